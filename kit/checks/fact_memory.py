"""Checkers for lesson 12 (memory that changes): an as-of query, and the whole
decide-and-write step of a fact memory.

:func:`check_facts_as_of` checks ``facts_as_of(facts, day)``: the facts (kit
:class:`~kit.longterm.facts.Fact`) valid on ``day`` (ISO), in the given order: from
``valid_from`` (inclusive) to ``valid_to`` (exclusive; None: still valid); the input
unchanged.

:func:`check_fact_writer` checks a class ``FactWriter(decider)`` (``decider``: a model
``prompt -> reply``, or None for rules only) with:

- ``write(candidate) -> Decision | None``: find similar current facts, ask the decider
  once (:func:`~kit.longterm.facts.decide_prompt`, then
  :func:`~kit.longterm.facts.parse_decision`), or the rules
  (:func:`~kit.longterm.facts.decide_by_rules`) when there is no decider or it raises or
  gives an unreadable reply; check the decision
  (:func:`~kit.longterm.facts.check_decision`): a refused one writes nothing, adds 1
  to ``rejected`` and returns None; else write it: an add or update makes a new
  :class:`~kit.longterm.facts.Fact` (ids from 1 in writing order, ``valid_from`` the
  candidate's ``when``, ``source`` its message numbers), an update or retraction closes
  the named fact (``valid_to`` = the candidate's ``when``, ``closed_by`` its numbers,
  status "superseded" with ``superseded_by`` the new id, or "retracted"); return the
  decision;
- ``current()``, ``as_of(day)``, ``history(subject, attribute)``: lists of Facts;
- ``rejected``: an int.

It replays scripted and seeded random conversations into the learner's class and into
the kit's :class:`~kit.longterm.facts.FactTable`, with the same decider (none, a stub
model, a stub that fails or gives malformed decisions on seeded calls, counted), and
compares every return value, the facts now, on every day and in every history, the
rejected count and the decider calls. The wrong answers it tells apart are registered in
:mod:`kit.mistakes.facts`. Prints one pass line or raises
:class:`~kit.checks.CheckFailed` naming the case and the rule broken.
"""
from __future__ import annotations

import datetime
import json
import random
from collections.abc import Callable

from kit.checks import call_learner, call_pure, expect, passed, safe_text
from kit.llm import CountingLLM
from kit.longterm.facts import Candidate, Fact, FactTable, decider_stub

__all__ = ["check_facts_as_of", "check_fact_writer", "check_fact_writer_correctness",
           "check_fact_writer_failure_safety", "check_fact_writer_edge_cases",
           "check_fact_writer_complexity", "PARTS", "RUBRIC", "faulty_decider", "SCRIPTS"]

MECHANISM, AS_OF = "fact memory", "as of"


def _c(attribute, value, day, n, negated=False, many=False):
    return Candidate("Maya", attribute, value, negated, many, (n,), f"2023-{day}")


# (why, candidates): the scripted conversations, one change each
SCRIPTS = [
    ("a move: the new city supersedes the old one",
     [_c("home city", "Lisbon", "01-09", 2), _c("home city", "Tallinn", "03-03", 9)]),
    ("the same city said again in other words, then a move",
     [_c("home city", "Lisbon", "01-09", 2), _c("home city", "lisbon", "01-20", 5),
      _c("home city", "Tallinn", "03-03", 9)]),
    ("a second allergy is added beside the first, then the first is retracted",
     [_c("allergy", "sesame", "01-09", 3, many=True), _c("allergy", "kiwis", "02-01", 6, many=True),
      _c("allergy", "sesame", "03-01", 8, True, True)]),
    ("an order placed, then cancelled; a retraction of something never said does nothing",
     [_c("open order", "#4411", "03-04", 4, many=True),
      _c("open order", "#4411", "03-05", 7, True, True),
      _c("open order", "#9999", "03-06", 9, True, True)]),
    ("a new job, then another, on different days",
     [_c("employer", "Brightwater Labs", "01-10", 2), _c("employer", "Ironbark Robotics", "02-10", 5),
      _c("employer", "Saltmarsh Foods", "03-10", 8)]),
]
_POOL = {"home city": ["Lisbon", "Tallinn", "Hobart"], "employer": ["Acme", "Initech"],
         "allergy": ["sesame", "kiwis", "latex"], "favourite drink": ["chai", "matcha"]}


def _random_script(rng: random.Random, length: tuple[int, int] = (5, 13)) -> list[Candidate]:
    """A seeded conversation's candidates: days that never go back (several on one day),
    values drawn from small pools so that repeats, changes and denials of nothing occur."""
    day, found = datetime.date(2023, 1, 1), []
    for n in range(1, rng.randint(*length) + 1):
        day += datetime.timedelta(days=rng.choice((0, 1, 3)))
        attribute = rng.choice(sorted(_POOL))
        value = rng.choice(_POOL[attribute])
        found.append(Candidate("Maya", attribute, value, rng.random() < 0.2,
                               attribute == "allergy", (n,), day.isoformat()))
    return found


def faulty_decider(bad: dict[int, str]) -> Callable[[str], str]:
    """A stub decider model (:func:`~kit.longterm.facts.decider_stub`) that, on the
    calls numbered in ``bad`` (from 1), raises ("raise"), replies with text that is not
    JSON ("junk"), names a fact that does not exist ("missing") or retracts the similar
    fact of another attribute with the smallest id ("other"; 999 when there is none)."""
    calls = [0]

    def decider(prompt: str) -> str:
        calls[0] += 1
        fault = bad.get(calls[0])
        if fault == "raise":
            raise TimeoutError("the model timed out")
        if fault == "junk":
            return "I would update the old fact."
        if fault == "missing":
            return json.dumps({"op": "update", "target": 999})
        if fault == "other":
            head, _, similar = prompt.rpartition("\nSimilar: ")
            attribute = json.loads(head.rpartition("Candidate: ")[2])["attribute"]
            others = [f["id"] for f in json.loads(similar) if f["attribute"] != attribute]
            return json.dumps({"op": "retract", "target": min(others, default=999)})
        return decider_stub(prompt)
    return decider


def _days(candidates: list[Candidate]) -> list[str]:
    """Every day a candidate was said, and the days just before and after."""
    days = set()
    for c in candidates:
        day = datetime.date.fromisoformat(c.when)
        days |= {(day + datetime.timedelta(days=d)).isoformat() for d in (-1, 0, 1)}
    return sorted(days)


def _facts(value: object, what: str) -> list[Fact]:
    expect(isinstance(value, (list, tuple)) and all(isinstance(f, Fact) for f in value),
           f"{what} should return a list of kit.longterm.facts.Fact, got {value!r:.120}")
    return sorted(value, key=lambda f: f.id)


def _observe(cls: object, candidates: list[Candidate], decider_spec: dict | None,
             learner: bool) -> dict:
    """Replay ``candidates`` into ``cls(decider)`` and read everything back."""
    model = None if decider_spec is None else CountingLLM(faulty_decider(decider_spec))
    run = (lambda fn, *args, shown: call_learner(fn, *args, name=shown, shown=shown)) \
        if learner else (lambda fn, *args, shown: fn(*args))
    table = run(cls, model, shown="FactWriter(decider)")
    seen: dict = {"returns": []}
    for c in candidates:
        decision = run(table.write, c, shown=f"write({c!r:.90})")
        seen["returns"].append(None if decision is None else (getattr(decision, "op", decision),
                                                               getattr(decision, "target", None)))
    seen["current"] = _facts(run(table.current, shown="current()"), "current()")
    seen["as_of"] = {d: _facts(run(table.as_of, d, shown=f"as_of({d!r})"), f"as_of({d!r})")
                     for d in _days(candidates)}
    seen["history"] = {(c.subject, c.attribute): _facts(
        run(table.history, c.subject, c.attribute, shown=f"history({c.subject!r}, "
            f"{c.attribute!r})"), "history()") for c in candidates}
    seen["rejected"] = getattr(table, "rejected", None)
    seen["calls"] = None if model is None else model.calls
    return seen


def _show(value: object) -> str:
    """An observation in few characters: a fact as ``id value from..to status [source|closed]``."""
    if isinstance(value, Fact):
        return (f"{value.id} {value.value} {value.valid_from or '?'}..{value.valid_to or ''} "
                f"{value.status} [{','.join(map(str, value.source))}|"
                f"{','.join(map(str, value.closed_by))}]")
    if isinstance(value, list) and value and all(isinstance(f, Fact) for f in value):
        return "[" + "; ".join(map(_show, value)) + "]"
    return repr(value)


def _differs(got: dict, want: dict) -> str:
    """The first observation that differs, in words ("" when none)."""
    for key in ("returns", "current", "as_of", "history", "rejected", "calls"):
        if got[key] != want[key]:
            if key in ("as_of", "history"):
                bad = next(k for k in want[key] if got[key].get(k) != want[key][k])
                shown = ", ".join(map(repr, bad)) if isinstance(bad, tuple) else repr(bad)
                return (f"{key}({shown}) should be {_show(want[key][bad]):.160}, got "
                        f"{_show(got[key].get(bad)):.160}")
            return f"{key} should be {_show(want[key]):.160}, got {_show(got[key]):.160}"
    return ""


_RULES = {
    "returns": "write returns the decision written (op and target), or None when it was refused",
    "current": "current() holds the facts whose interval is still open",
    "as_of": "an update or retraction closes the old fact's interval on the candidate's day; "
             "as_of(day) holds the facts valid that day",
    "history": "history() keeps every fact ever written for the attribute, closed ones too, "
               "with its message numbers",
    "rejected": "a decision check_decision refuses writes nothing and adds 1 to rejected",
    "calls": "ask the decider once per candidate; when it raises or its reply cannot be read, "
             "the rules decide without asking again",
}


def _hint(cls: object, candidates: list[Candidate], spec: dict | None, got: dict,
          want: dict) -> str:
    from kit.mistakes import mistakes
    for wrong in mistakes(MECHANISM):
        theirs = _observe(wrong.answer, candidates, spec, learner=False)
        if theirs != want and all(theirs[k] == got[k] for k in want):
            return f"{wrong.hint}. Why: {wrong.why}"
    key = next(k for k in want if got[k] != want[k])
    return _RULES[key]


def _cases(part: str) -> list[tuple[str, list[Candidate], dict | None]]:
    """The replay cases of one rubric part: ``(why, candidates, decider faults or None)``."""
    if part == "correctness":
        return [(why, script, None) for why, script in SCRIPTS]
    if part == "failure safety":
        return [("the same moves with a model deciding", SCRIPTS[1][1], {}),
                ("the model fails on its first call and gives junk on its third",
                 SCRIPTS[4][1], {1: "raise", 3: "junk"}),
                ("the model names a fact that does not exist", SCRIPTS[0][1], {2: "missing"}),
                ("the model retracts a fact of another attribute",
                 [SCRIPTS[0][1][0], *SCRIPTS[2][1]], {3: "other"})]
    if part == "edge cases":
        rng, found = random.Random(12), []
        for i in range(8):
            script = _random_script(rng)
            faults = {n: rng.choice(("raise", "junk", "missing", "other"))
                      for n in rng.sample(range(1, len(script) + 1), 2)} if i % 2 else None
            found.append((f"a seeded random conversation ({len(script)} candidates"
                          f"{', faults on model calls ' + str(sorted(faults)) if faults else ''})",
                          script, faults))
        return found
    long = _random_script(random.Random(7), (40, 40))          # complexity: counted calls
    return [("a long conversation with a model deciding: one call per candidate", long, {}),
            ("a model that times out every third call: still one call per candidate", long,
             {n: "raise" for n in range(3, len(long) + 1, 3)})]


def _replay(cls: object, part: str) -> int:
    """Replay one part's cases into ``cls`` and the kit's FactTable; raise CheckFailed on
    the first difference; return the cases passed."""
    cases = _cases(part)
    for why, script, spec in cases:
        want = _observe(FactTable, script, spec, learner=False)
        got = _observe(cls, script, spec, learner=True)
        problem = _differs(got, want)
        if problem:
            expect(False, f"Case: {why:.90}. {problem}. Hint: {_hint(cls, script, spec, got, want)}.")
    return len(cases)


def check_fact_writer_correctness(cls: object) -> int:
    """The scripted conversations, no decider (rubric: correctness)."""
    return _replay(cls, "correctness")


def check_fact_writer_failure_safety(cls: object) -> int:
    """A model deciding: one that raises, replies with prose, names a missing fact or one
    of another attribute, on seeded calls (rubric: failure safety)."""
    return _replay(cls, "failure safety")


def check_fact_writer_edge_cases(cls: object) -> int:
    """Seeded random conversations: repeats, denials of nothing, same-day changes, with
    and without faults (rubric: edge cases)."""
    return _replay(cls, "edge cases")


def check_fact_writer_complexity(cls: object) -> int:
    """The decider is called once per candidate, never again on a failure (rubric:
    complexity, by counted calls)."""
    return _replay(cls, "complexity")


PARTS = (check_fact_writer_correctness, check_fact_writer_failure_safety,
         check_fact_writer_edge_cases, check_fact_writer_complexity)
RUBRIC = dict(zip(("correctness", "failure safety", "edge cases", "complexity"), PARTS))


def check_fact_writer(cls: object) -> None:
    """Check the decide-and-write class (see the module docstring): every part of
    :data:`RUBRIC`; print one pass line or raise CheckFailed."""
    passed("FactWriter", sum(part(cls) for part in PARTS))


_AS_OF_CASES = [
    ("a fact closed on 2023-03-03 and the one that replaced it",
     [Fact(1, "Maya", "home city", "Lisbon", "2023-01-09", "2023-03-03", (2,), (9,), "superseded", 2),
      Fact(2, "Maya", "home city", "Tallinn", "2023-03-03", None, (9,))]),
    ("a retracted order and a fact with no known start",
     [Fact(1, "Maya", "open order", "#4411", "2023-03-04", "2023-03-05", (4,), (7,), "retracted"),
      Fact(2, "Maya", "allergy", "sesame", "", None, (1,))]),
]


_AS_OF_DAYS = ("2023-01-01", "2023-01-09", "2023-02-01", "2023-03-03", "2023-03-04",
               "2023-03-05", "2023-06-01")
_AS_OF_RULE = ("a fact is valid from valid_from (inclusive) to valid_to (exclusive; None "
               "means still valid), in the order given")


def check_facts_as_of(facts_as_of: Callable) -> None:
    """Check ``facts_as_of(facts, day)``; print one pass line or raise CheckFailed. Every
    case is run first: a hint names a registered mistake only when it gives the answer's
    outputs on every case, else the box states the rule."""
    from kit.mistakes import mistakes
    runs = [(why, facts, day, call_pure(facts_as_of, facts, day, name="facts_as_of",
                                        shown=f"facts_as_of(<{why}>, {day!r})"))
            for why, facts in _AS_OF_CASES for day in _AS_OF_DAYS]
    for why, facts, day, got in runs:
        want = [f for f in facts if f.holds_on(day)]
        if got != want:
            same = [m.hint for m in mistakes(AS_OF)
                    if all(m.answer(f, d) == g for _, f, d, g in runs)]
            hint = "; or ".join(same) or _AS_OF_RULE
            shown = ([f.id for f in got] if isinstance(got, list)
                     and all(isinstance(f, Fact) for f in got) else got)   # ids, as want
            expect(False, f"Case: {why}, on {day}: should be the facts "
                          f"{[f.id for f in want]}, got {safe_text(repr(shown), 200)}. "
                          f"Hint: {hint}.")
    passed("facts_as_of", len(runs))
