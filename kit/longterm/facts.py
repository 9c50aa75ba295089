"""A fact memory's write path: add, update, retract or do nothing, and answer as of a date.

Lesson 06 distils a profile and merges counts; nothing there ever *changes* a remembered
fact. Here every turn goes through four steps (lesson 12):

1. **candidates**: the turn becomes candidate facts, ``(subject, attribute, value)``
   with a ``negated`` flag ("I'm no longer allergic to sesame") and whether the
   attribute holds one value or many (:class:`Candidate`; the extractors are in
   :mod:`kit.longterm.fact_rules`);
2. **similar facts**: the *current* stored facts most like the candidate, by the kit's
   BM25 (:class:`kit.ranking.BM25Index`) over each fact's text;
3. **a decision** per candidate (:class:`Decision`): ``add``, ``update`` (the new value
   supersedes a named fact), ``retract`` (a named fact is no longer true) or ``none``
   (already known, or nothing to retract), by a model (``decider(prompt) -> JSON``)
   or, when it fails or gives no readable reply, by :func:`decide_by_rules`;
4. **checked, then written**: :func:`check_decision` refuses an update or retraction
   that does not name a current fact of the same subject and attribute, an unknown
   operation, or an add without a value; a refused decision changes nothing and is
   counted (:attr:`FactTable.rejected`). An update or retraction *closes* the old
   fact's validity interval (``valid_to``, ``closed_by``, ``status``), never deletes
   it, so :meth:`FactTable.as_of` still answers "what was true then" and
   :meth:`FactTable.history` shows every value in order. Every fact keeps its
   provenance: the message numbers it came from (``source``).

The new rows are worked out as values and written (to a store, when one is attached,
in one transaction) before the table's own state changes: compute first, then commit.
Dates are ISO ``YYYY-MM-DD`` strings ("" when a turn has none). Sources: mem0's
ADD/UPDATE/DELETE/NONE decision over retrieved memories (Chhikara et al., 2025) and
Zep/Graphiti's ``valid_at``/``invalid_at`` edges (Rasmussen et al., 2025), in the kit's
own words.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from kit.ranking import BM25Index
from kit.validation import check_int

__all__ = ["Fact", "Candidate", "Decision", "FactTable", "OPERATIONS", "DECIDE_PROMPT",
           "InvalidDecision", "check_decision", "decide_by_rules", "decide_prompt",
           "parse_decision", "decider_stub"]

OPERATIONS = ("add", "update", "retract", "none")
DECIDE_PROMPT = ("You keep a user's long-term facts. A new candidate fact and the stored "
                 "facts most like it follow, as JSON. Reply with one JSON object: "
                 '{"op": "add" | "update" | "retract" | "none", "target": the id of the '
                 'stored fact an update or retraction replaces, or null}.\n')


@dataclass(frozen=True)
class Fact:
    """One stored fact. ``id``: int from 1, in writing order; ``valid_from`` /
    ``valid_to``: ISO dates ("" unknown; ``valid_to`` None while it is current);
    ``source`` / ``closed_by``: the message numbers that stated / ended it; ``status``:
    "current", "superseded" or "retracted"; ``superseded_by``: the id of the fact that
    replaced it."""

    id: int
    subject: str
    attribute: str
    value: str
    valid_from: str
    valid_to: str | None = None
    source: tuple[int, ...] = ()
    closed_by: tuple[int, ...] = ()
    status: str = "current"
    superseded_by: int | None = None

    @property
    def text(self) -> str:
        return f"{self.subject}'s {self.attribute}: {self.value}"

    def holds_on(self, day: str) -> bool:
        """True if the fact was valid on ``day`` (ISO): from ``valid_from`` (inclusive)
        to ``valid_to`` (exclusive)."""
        return self.valid_from <= day and (self.valid_to is None or day < self.valid_to)


@dataclass(frozen=True)
class Candidate:
    """A fact a turn states (or denies, ``negated``). ``many``: the attribute holds
    several values at once (allergies), so a new value is added, not an update;
    ``source``: message numbers; ``when``: ISO date of the turn ("" unknown)."""

    subject: str
    attribute: str
    value: str
    negated: bool = False
    many: bool = False
    source: tuple[int, ...] = ()
    when: str = ""

    @property
    def text(self) -> str:
        return f"{self.subject}'s {self.attribute}: {self.value}"


@dataclass(frozen=True)
class Decision:
    """``op``: one of :data:`OPERATIONS`; ``target``: the id of the fact an update or
    retraction closes (None otherwise); ``by``: "model", "rules" or "" (who decided)."""

    op: str
    target: int | None = None
    by: str = ""


class InvalidDecision(ValueError):
    """A decision that cannot be written (named in the message); nothing was written."""


def _same(fact: Fact, candidate: Candidate) -> bool:
    return fact.subject == candidate.subject and fact.attribute == candidate.attribute


def _words(value: str) -> list[str]:
    words = re.findall(r"\w+", value.lower())
    return words[1:] if words[:1] == ["the"] and len(words) > 1 else words


def _same_value(stored: str, said: str) -> bool:
    """True if two values of one attribute name the same thing: the same words, case,
    punctuation and a leading "the" ignored, or the words of one the first words of the
    other's ("Brightwater" and "Brightwater Labs"; not "York" and "New York")."""
    a, b = _words(stored), _words(said)
    if not a or not b:
        return a == b
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return long[:len(short)] == short


def decide_by_rules(candidate: Candidate, similar: Sequence[Fact]) -> Decision:
    """The rule-based decision, from the candidate and the similar current facts only.
    Same subject and attribute: the same value (case, punctuation, a leading "the" and
    a shorter form, its first words, ignored) is ``none`` (a rephrasing is no new
    fact); a denial ``retract``\\ s the fact with its value (or,
    with no value, the attribute's only current fact), else ``none``; a new value of a
    one-value attribute ``update``\\ s the current fact; anything else is ``add``."""
    related = [f for f in similar if _same(f, candidate)]
    same = [f for f in related if _same_value(f.value, candidate.value)]
    if candidate.negated:
        if same:
            return Decision("retract", same[0].id, "rules")
        if not candidate.value and len(related) == 1:
            return Decision("retract", related[0].id, "rules")
        return Decision("none", None, "rules")
    if same:
        return Decision("none", None, "rules")
    if related and not candidate.many:
        return Decision("update", related[0].id, "rules")
    return Decision("add", None, "rules")


def check_decision(decision: object, candidate: Candidate, current: dict[int, Fact]) -> Decision:
    """Return ``decision`` if it can be written, else raise :class:`InvalidDecision`
    naming what is wrong: not a Decision, an unknown op, an update or retraction whose
    target is not a current fact of the candidate's subject and attribute, a target
    given to an add or none, or an add/update without a value."""
    if not isinstance(decision, Decision):
        raise InvalidDecision(f"a decision must be a Decision, got {decision!r:.60}")
    if decision.op not in OPERATIONS:
        raise InvalidDecision(f"unknown op {decision.op!r:.30}; ops are {', '.join(OPERATIONS)}")
    if decision.op in ("update", "retract"):
        fact = current.get(decision.target) if isinstance(decision.target, int) else None
        if fact is None:
            raise InvalidDecision(f"{decision.op} names {decision.target!r:.30}, which is "
                                  f"not a current fact")
        if not _same(fact, candidate):
            raise InvalidDecision(f"{decision.op} names fact {fact.id} ({fact.text}), not "
                                  f"one of {candidate.subject}'s {candidate.attribute}")
    elif decision.target is not None:
        raise InvalidDecision(f"{decision.op} takes no target, got {decision.target!r:.30}")
    if decision.op in ("add", "update") and (candidate.negated or not candidate.value.strip()):
        raise InvalidDecision(f"{decision.op} needs a stated value, got "
                              f"{'a denial' if candidate.negated else 'none'}")
    return decision


def decide_prompt(candidate: Candidate, similar: Sequence[Fact]) -> str:
    """The decider's prompt: :data:`DECIDE_PROMPT`, then a "Candidate:" line and a
    "Similar:" line, each one JSON value."""
    facts = [{"id": f.id, "subject": f.subject, "attribute": f.attribute, "value": f.value}
             for f in similar]
    return (DECIDE_PROMPT + "Candidate: " + json.dumps({
        "subject": candidate.subject, "attribute": candidate.attribute,
        "value": candidate.value, "negated": candidate.negated, "many": candidate.many})
        + "\nSimilar: " + json.dumps(facts))


def parse_decision(reply: object) -> Decision:
    """A decider's reply as a :class:`Decision` (by "model"). Raises ValueError when it
    is not one JSON object with an ``op`` (a str) and an int or null ``target``;
    whether the op and target make sense is :func:`check_decision`'s job."""
    if not isinstance(reply, str):
        raise ValueError(f"the decider must return a str, got {type(reply).__name__}")
    try:
        found = json.loads(reply.strip())
    except ValueError as exc:
        raise ValueError(f"the decider's reply is not JSON: {reply!r:.60}") from exc
    if not isinstance(found, dict) or not isinstance(found.get("op"), str):
        raise ValueError(f"the decider's reply has no op: {reply!r:.60}")
    target = found.get("target")
    if target is not None and (isinstance(target, bool) or not isinstance(target, int)):
        raise ValueError(f"the decider's target must be an int or null, got {target!r:.30}")
    return Decision(found["op"].strip().lower(), target, "model")


def decider_stub(prompt: str) -> str:
    """A stub decider model: reads :func:`decide_prompt`'s two JSON lines and replies
    with :func:`decide_by_rules`'s decision as JSON. Offline and deterministic."""
    lines = {line.split(": ", 1)[0]: line.split(": ", 1)[1]
             for line in prompt.splitlines() if line.startswith(("Candidate: ", "Similar: "))}
    candidate = Candidate(**json.loads(lines["Candidate"]))
    similar = [Fact(f["id"], f["subject"], f["attribute"], f["value"], "")
               for f in json.loads(lines["Similar"])]
    decision = decide_by_rules(candidate, similar)
    return json.dumps({"op": decision.op, "target": decision.target})


class FactTable:
    """Facts with validity intervals, written through checked decisions.

    ``decider``: a model ``prompt -> reply`` (:func:`decide_prompt`,
    :func:`parse_decision`); None decides by rules only. A decider that raises or gives
    an unreadable reply is replaced by :func:`decide_by_rules` for that candidate
    (counted in :attr:`fallbacks`). ``k``: how many similar current facts (int >= 1)
    the decider sees. ``writer``: called with the rows to write (new and closed facts)
    before the table changes, in one call per decision (a store's transaction); if it
    raises, nothing changes and the error propagates. Raises TypeError/ValueError naming
    a bad ``decider``, ``k`` or ``writer``.

    Counters: :attr:`decisions` (written: add, update, retract, none), :attr:`rejected`
    (refused by :func:`check_decision`), :attr:`fallbacks`, :attr:`model_calls`.
    :attr:`log`: one ``(candidate, similar ids, decision or the refusal text)`` per
    candidate, for a trace table.
    """

    def __init__(self, decider: Callable[[str], str] | None = None, *, k: int = 5,
                 writer: Callable[[list[Fact]], None] | None = None) -> None:
        if decider is not None and not callable(decider):
            raise TypeError(f"decider must be callable prompt -> reply or None, got {decider!r:.60}")
        if writer is not None and not callable(writer):
            raise TypeError(f"writer must be callable rows -> None or None, got {writer!r:.60}")
        self.decider, self.k, self.writer = decider, check_int("k", k, 1), writer
        self.facts: dict[int, Fact] = {}
        self.index, self.last_id = BM25Index(), 0      # the last id written
        self.decisions = {op: 0 for op in OPERATIONS}
        self.rejected = self.fallbacks = self.model_calls = 0
        self.log: list[tuple[Candidate, tuple[int, ...], Decision | str]] = []

    # -- reading ----------------------------------------------------------------------
    def current(self) -> list[Fact]:
        """The facts valid now (interval open), oldest first."""
        return [f for f in self.facts.values() if f.valid_to is None]

    def as_of(self, day: str) -> list[Fact]:
        """The facts valid on ``day`` (ISO ``YYYY-MM-DD``), oldest first."""
        return [f for f in self.facts.values() if f.holds_on(day)]

    def history(self, subject: str, attribute: str) -> list[Fact]:
        """Every fact ever written for the subject's attribute, oldest first."""
        return [f for f in self.facts.values()
                if f.subject == subject and f.attribute == attribute]

    def similar(self, candidate: Candidate) -> list[Fact]:
        """Up to ``k`` current facts most like the candidate by BM25, best first."""
        if not len(self.index):
            return []
        ranked = self.index.ranked(self.index.scores(self.index.weights(candidate.text)))
        found = [self.facts[key] for key, _ in ranked
                 if key in self.facts and self.facts[key].valid_to is None]
        return found[:self.k]

    # -- writing ----------------------------------------------------------------------
    def decide(self, candidate: Candidate, similar: Sequence[Fact]) -> object:
        """The decision for one candidate: the model's, or the rules' when it fails."""
        if self.decider is None:
            return decide_by_rules(candidate, similar)
        self.model_calls += 1
        try:
            return parse_decision(self.decider(decide_prompt(candidate, similar)))
        except Exception:                     # a failed or unreadable model: the rules decide
            self.fallbacks += 1
            return decide_by_rules(candidate, similar)

    def write(self, candidate: Candidate) -> Decision | None:
        """Decide one candidate, check the decision, write it. Returns the decision
        written, or None when it was refused (then nothing changed; :attr:`rejected`
        counts it and :attr:`log` says why). Raises TypeError for a candidate that is not
        a :class:`Candidate`, and what the writer raises (then nothing changed)."""
        if not isinstance(candidate, Candidate):
            raise TypeError(f"candidate must be a kit.longterm.facts.Candidate, got "
                            f"{candidate!r:.60}")
        similar = self.similar(candidate)
        ids = tuple(f.id for f in similar)
        current = {f.id: f for f in self.current()}
        try:
            decision = check_decision(self.decide(candidate, similar), candidate, current)
        except InvalidDecision as exc:
            self.rejected += 1
            self.log.append((candidate, ids, f"refused: {exc}"))
            return None
        self._apply(self.rows_for(decision, candidate))
        self.decisions[decision.op] += 1
        self.log.append((candidate, ids, decision))
        return decision

    def rows_for(self, decision: Decision, candidate: Candidate) -> list[Fact]:
        """The rows a checked decision writes: the closed old fact and/or the new one."""
        rows, new_id = [], self.last_id + 1
        if decision.op in ("update", "retract"):
            old = self.facts[decision.target]
            rows.append(replace(old, valid_to=candidate.when, closed_by=candidate.source,
                                status="superseded" if decision.op == "update" else "retracted",
                                superseded_by=new_id if decision.op == "update" else None))
        if decision.op in ("add", "update"):
            rows.append(Fact(new_id, candidate.subject, candidate.attribute, candidate.value,
                             candidate.when, None, candidate.source))
        return rows

    def _apply(self, rows: list[Fact]) -> None:
        if not rows:
            return
        if self.writer is not None:
            self.writer(rows)                 # on disk first: a failure changes nothing
        for fact in rows:
            if fact.id > self.last_id:
                self.index.add(fact.id, fact.text)
                self.last_id = fact.id
            self.facts[fact.id] = fact

    def load(self, facts: Sequence[Fact]) -> None:
        """Replace the table's facts with stored ones (ids increasing), writing nothing."""
        self.facts, self.index, self.last_id = {}, BM25Index(), 0
        for fact in sorted(facts, key=lambda f: f.id):
            self.index.add(fact.id, fact.text)
            self.facts[fact.id] = fact
            self.last_id = fact.id
