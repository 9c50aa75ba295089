"""Checker for lesson 11's whole-mechanism exercise (and the drill ``agent-context``): a
context manager for an agent loop.

The exercise: a class (``AgentMemory`` in the lesson; any name, any design) built as
``cls(budget, measure, system, trigger=..., keep=..., clear_at_least=...)``, with the
agent protocol of :mod:`kit.agent.loop`: ``add(role, content, tool_calls=None,
call_id=None)``, ``messages()`` (chat dicts: ``tool_calls`` as ``[{"id", ...}]``, a
result's ``tool_call_id``), ``context()`` and ``size``. The rules are those of
:class:`kit.agent.AgentContext` with ``clearing=ClearToolResults(trigger, keep,
clear_at_least)``, ``window=budget`` and ``count="text"``, which the checker runs beside
it on the same input:

1. ``size``: the system prompt, every message's text, every call's name and arguments
   and every placeholder, in the measure's unit; each measured once, when it enters.
2. After each add, once the calls of the last assistant message have their results:
   while over ``trigger``, replace the oldest results by the placeholder
   (:func:`kit.agent.clearing.placeholder`), never the newest ``keep``, until at least
   ``clear_at_least`` was saved and the size is back under ``trigger`` (or none is left).
3. Then, while over ``budget``, drop the oldest group (a user message, or an assistant
   message with all its results), never the newest user message (the live question).
4. A message bigger than the budget leaves beside the system prompt raises ValueError
   and changes nothing.
5. The pair invariant holds after every add (:mod:`kit.agent.pairs`).
6. All or nothing: when the measure raises inside an add (the checker's tokenizer fails on
   seeded calls, :class:`MeasureDown`), the error propagates and ``messages()`` and
   ``size`` are as before the add; the checker then retries it.

Each case is replayed add by add; the checker observes ``messages()`` and ``size`` with
a counted word measure, then replays the requests through the prompt-cache meter
(:mod:`kit.agent.meter`, the automatic-prefix profile with no minimum length, as the
cases are a few hundred words). Deterministic, offline, < 1 s.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace

from kit.agent.cache import OPENAI
from kit.agent.clearing import ClearToolResults
from kit.agent.context import AgentContext
from kit.agent.loop import AgentRun, Ledger, Request, kind_of
from kit.agent.meter import meter
from kit.agent.pairs import call_ids, pair_problems
from kit.agent.trace import AgentTrace
from kit.checks import CheckFailed, call_learner, expect, passed
from kit.checks.protocol import size_of
from kit.tokens import CallCounter, count_words

__all__ = ["check_agent_context", "check_to_clear", "CLEAR_CASES", "CASES", "Case", "PARTS",
           "RUBRIC",
           "check_agent_context_correctness", "check_agent_context_failure_safety",
           "check_agent_context_edge_cases", "check_agent_context_complexity"]

_TOOLS = ("grep", "read_file", "run_tests")
#: The automatic-prefix profile at the cases' scale (a few hundred words): every prefix
#: cached, hits counted to the word.
_PROFILE = replace(OPENAI, name="automatic prefix, any length", min_tokens=0, step=1)
_FILLER = ("data", "row", "file", "line", "test", "value", "order", "note")
_TASK = "Refund order ORD-48213 for Priya Raman by 14 March"
_FOLLOW = "Also add a note for the finance team"


@dataclass(frozen=True)
class Case:
    """One run (sizes in words): ``budget``, ``trigger``, ``keep``, ``clear_at_least``,
    ``system`` (words of the system prompt, 0 for none), ``results`` (one tool result's
    size per step), ``follow_up`` (the step the second user message comes before, or
    None), ``oversized``: the steps where a result too big for the budget is tried first;
    ``thinking``: the size of each assistant message's text; ``faults``: the placeholder
    measurements (1st, 2nd, ...) and, as ``-n``, the result of step n, on which the measure
    fails once (:class:`MeasureDown`)."""

    name: str
    budget: int
    trigger: int
    keep: int
    clear_at_least: int
    system: int
    results: tuple
    follow_up: int | None = None
    oversized: tuple = ()
    thinking: int = 4
    faults: tuple = ()


class MeasureDown(RuntimeError):
    """The checker's tokenizer failing, on purpose, on a seeded call."""


class _Flaky:
    """:func:`kit.tokens.count_words` that raises :class:`MeasureDown` once on each seeded
    fault of a :class:`Case` (see ``faults``); ``raised`` counts them."""

    def __init__(self, faults: tuple, results: dict) -> None:
        self.placeholders = {n for n in faults if n > 0}
        self.texts = {results[-n] for n in faults if n < 0}
        self.seen = self.raised = 0

    def __call__(self, text: str) -> int:
        hit = False
        if text.startswith("[cleared"):
            self.seen += 1
            hit = self.seen in self.placeholders
        elif text in self.texts:
            self.texts.discard(text)
            hit = True
        if hit:
            self.raised += 1
            raise MeasureDown("the tokenizer failed (a seeded fault of the checker)")
        return count_words(text)


def _sizes(seed: int, n: int, low: int, high: int) -> tuple:
    rng = random.Random(seed)
    return tuple(rng.randint(low, high) for _ in range(n))


CASES = (
    Case("nothing to clear", 1200, 900, 2, 0, 6, (60,) * 6),
    Case("clearing fires", 1200, 500, 2, 0, 6, _sizes(1, 14, 60, 120)),
    Case("clear_at_least batches the clearing", 1200, 600, 2, 250, 6, _sizes(2, 18, 60, 120)),
    Case("keep=0 clears every old result", 1200, 400, 0, 0, 0, _sizes(3, 12, 60, 120)),
    Case("a follow-up and the budget", 700, 500, 3, 200, 6, _sizes(4, 24, 100, 180),
         follow_up=8, thinking=30),
    Case("a result too big for the budget", 600, 400, 2, 0, 6, _sizes(5, 10, 60, 120),
         oversized=tuple(sorted(random.Random(7).sample(range(1, 11), 3))), thinking=30),
    Case("a tokenizer that fails", 700, 450, 2, 0, 6, _sizes(8, 14, 60, 120),
         faults=(*sorted(random.Random(9).sample(range(1, 9), 3)), -4, -11), thinking=30),
)


def _text(tag: str, words: int) -> str:
    return " ".join([tag] + [_FILLER[i % len(_FILLER)] for i in range(words - 1)])


def _sent(message: dict) -> dict:
    """A learner's chat dict as the checker sizes it: calls in the OpenAI shape whether
    they came flat (``{"id", "name", "arguments"}``) or nested."""
    calls = message.get("tool_calls")
    if not calls or not isinstance(calls, list):
        return {k: v for k, v in message.items() if k != "tool_calls" and isinstance(v, str)}
    nested = [c if isinstance(c.get("function"), dict) else
              {"id": c.get("id"), "function": {"name": c.get("name"),
                                               "arguments": c.get("arguments", "")}}
              for c in calls if isinstance(c, dict)]
    return {**{k: v for k, v in message.items() if isinstance(v, str)}, "tool_calls": nested}


def _shape(messages: list[dict]) -> list[tuple]:
    return [(m.get("role"), m.get("content"), tuple(call_ids(m)), m.get("tool_call_id"))
            for m in messages]


class _Run:
    """The learner's object and the kit's, driven together through one case."""

    def __init__(self, cls: object, case: Case, name: str) -> None:
        self.case, self.name = case, name
        self.flaky = _Flaky(case.faults, {i: _text(f"r{i:02d}", w)
                                          for i, w in enumerate(case.results, 1)})
        self.words = CallCounter(self.flaky if case.faults else count_words)
        self.propagated = 0
        system = _text("system", case.system) if case.system else None
        self.where = f"case {case.name!r}"
        self.learner = call_learner(
            lambda: cls(case.budget, self.words, system, trigger=case.trigger, keep=case.keep,
                        clear_at_least=case.clear_at_least), name=name,
            shown=f"{name}({case.budget}, measure, system, trigger={case.trigger}, "
                  f"keep={case.keep}, clear_at_least={case.clear_at_least})")
        self.kit = AgentContext(count_words, system, count="text", window=case.budget,
                                clearing=ClearToolResults(case.trigger, case.keep,
                                                          case.clear_at_least))
        self.question, self.results, self.calls = _TASK, {}, {}
        self.requests, self.ledger, self.mismatch = [], Ledger(count_words), ""
        self.observing = True

    def add(self, role: str, content: str, step: str, **extra) -> None:
        shown = f"{self.name}.add({role!r}, {content[:30]!r}..., {extra})"
        for _ in range(len(self.case.faults) + 1):   # each fault fires once: then it adds
            before = self.snapshot() if self.case.faults else None
            try:
                call_learner(lambda: self.learner.add(role, content, **extra),
                             name=f"{self.name}.add", shown=shown, expected=(MeasureDown,))
                break
            except MeasureDown:
                self.propagated += 1
                expect(self.snapshot() == before,
                       f"{self.where}, {step}: the measure failed inside add (a seeded "
                       f"tokenizer failure; the error came out, as it should) but the context "
                       f"changed. Why: the caller retries the add, and a half-done add leaves "
                       f"a message twice or a result cleared without its size. Hint: compute "
                       f"then commit: measure the message and every placeholder before you "
                       f"change anything, or take the add back before the error propagates.")
        self.kit.add(role, content, **extra)
        if extra.get("tool_calls") is None and self.observing:
            self.observe(step)

    def snapshot(self) -> tuple:
        """The learner's ``messages()`` (shape) and ``size``, to compare around an add."""
        messages = call_learner(self.learner.messages, name=f"{self.name}.messages")
        return _shape(messages), size_of(self.learner, self.name)

    def observe(self, step: str) -> None:
        where = f"{self.where}, after {step}"
        messages = call_learner(self.learner.messages, name=f"{self.name}.messages")
        expect(isinstance(messages, list) and all(isinstance(m, dict) for m in messages),
               f"{where}: messages() should return a list of dicts, got {messages!r:.80}")
        size = size_of(self.learner, self.name)
        self.invariants(messages, size, where)
        if not self.mismatch and (_shape(messages) != _shape(self.kit.messages())
                                  or size != self.kit.size):
            self.mismatch = self.describe(messages, size, where)
        try:
            sized = [self.ledger.size(_sent(m)) for m in messages]
        except TypeError as exc:
            raise CheckFailed(f"{where}: messages() holds a message the checker cannot size "
                              f"({exc}). Hint: give each message a str role and content, "
                              f"each call an id, a name and arguments (str).") from None
        self.requests.append(Request(len(self.requests), 6.0 * len(self.requests),
                                     tuple(k for k, _ in sized), tuple(s for _, s in sized),
                                     tuple(map(kind_of, messages))))

    def invariants(self, messages: list[dict], size: int, where: str) -> None:
        problems = pair_problems(messages)
        expect(not problems, f"{where}: {problems[0] if problems else ''}. Why: a provider "
               f"refuses a request where a tool result is not right after its call, or a call "
               f"has no result. Hint: clear a result by replacing its content, keeping the "
               f"message; make room by dropping a call together with all its results.")
        expect(any(m.get("content") == self.question for m in messages),
               f"{where}: the live question (the newest user message, {self.question!r:.40}) "
               f"is not in messages(). Why: the agent no longer knows what it is doing. Hint: "
               f"never clear or drop the newest user message.")
        results = [m for m in messages if m.get("role") == "tool"]
        newest = results[len(results) - self.case.keep:] if self.case.keep else []
        cut = [m.get("tool_call_id") for m in newest
               if m.get("content") != self.results.get(m.get("tool_call_id"))]
        expect(not cut, f"{where}: the result of {cut[0] if cut else ''} was cleared, but it is "
               f"among the newest keep={self.case.keep}. Why: the model is working on it. "
               f"Hint: only results older than the newest keep are candidates "
               f"(results[:-keep], and all of them for keep=0).")
        recount = sum(count_words(m.get("content") or "") for m in messages) + sum(
            count_words(self.calls[c][0]) + count_words(self.calls[c][1])
            for m in messages for c in call_ids(m) if c in self.calls)
        if size != recount:
            placeholders = sum(count_words(m.get("content") or "") for m in results
                               if m.get("content") != self.results.get(m.get("tool_call_id")))
            hint = ("a placeholder is a message too: count its size when it replaces a result "
                    "(and take the result's size off)" if placeholders and
                    size == recount - placeholders else
                    "count each message's text and each call's name and arguments, once, "
                    "when they enter; update the total when you clear or drop")
            raise CheckFailed(f"{where}: size is {size}, but messages() holds {recount} words. "
                              f"Why: the trigger and the budget are decided on size. Hint: {hint}.")
        expect(size <= self.case.budget, f"{where}: size {size} is over the budget "
               f"{self.case.budget}. Hint: after clearing, drop the oldest groups until it fits.")

    def describe(self, messages: list[dict], size: int, where: str) -> str:
        def cleared(msgs: list[dict]) -> list[str]:
            return [m.get("tool_call_id") for m in msgs if m.get("role") == "tool"
                    and m.get("content") != self.results.get(m.get("tool_call_id"))]
        want = self.kit.messages()
        both = {c for m in want for c in call_ids(m)} & {c for m in messages for c in call_ids(m)}
        if set(cleared(want)) & both == set(cleared(messages)) & both:   # differ in what is kept
            hint = ("while over the budget, drop the oldest group (a user message, or a call "
                    "with all its results), never the newest user message, and no more")
        else:
            hint = ("clear only when over the trigger, oldest first, and stop once at least "
                    "clear_at_least was saved and the size is back under the trigger")
        return (f"{where}: messages() should hold {len(want)} messages ({self.kit.size} words) "
                f"with the results of {cleared(want) or 'no call'} cleared; yours hold "
                f"{len(messages)} ({size} words) with {cleared(messages) or 'none'} cleared. "
                f"Hint: {hint}.")

    def refuses(self, role: str, content: str, step: str, **extra) -> None:
        before = (_shape(call_learner(self.learner.messages, name=f"{self.name}.messages")),
                  size_of(self.learner, self.name))
        try:
            self.learner.add(role, content, **extra)
        except ValueError:
            pass
        except Exception as exc:                 # noqa: BLE001 (reported, not raised)
            raise CheckFailed(f"{self.where}, {step}: add raised {type(exc).__name__}, not "
                              f"ValueError, for a result bigger than the budget") from exc
        else:
            raise CheckFailed(f"{self.where}, {step}: a result of {count_words(content)} "
                              f"words was accepted with a budget of {self.case.budget}. Hint: "
                              f"raise ValueError before changing anything when a message can "
                              f"never fit.")
        after = (_shape(call_learner(self.learner.messages, name=f"{self.name}.messages")),
                 size_of(self.learner, self.name))
        expect(after == before, f"{self.where}, {step}: the refused result changed the "
               f"context. Hint: check the size before you change anything.")


def _replay(cls: object, case: Case, name: str, observe: bool = True) -> _Run:
    """Drive ``cls`` and the kit through ``case``; with ``observe``, check the learner's
    state after every add (else only the adds run)."""
    run = _Run(cls, case, name)
    run.observing = observe
    run.add("user", _TASK, "the task")
    for i, words in enumerate(case.results, 1):
        if case.follow_up == i:
            run.question = _FOLLOW
            run.add("user", _FOLLOW, f"the follow-up before step {i}")
        tool = _TOOLS[i % len(_TOOLS)]
        call = f"call_{i:03d}"
        arguments = f'{{"step": {i}}}'
        run.calls[call] = (tool, arguments)
        run.add("assistant", _text(f"step{i}", case.thinking), f"step {i}'s call",
                tool_calls=[{"id": call, "name": tool, "arguments": arguments}])
        if i in case.oversized:
            run.refuses("tool", _text(f"r{i:02d}", case.budget), f"step {i}", call_id=call)
        run.results[call] = _text(f"r{i:02d}", words)
        run.add("tool", run.results[call], f"step {i}", call_id=call)
    expect(run.propagated == run.flaky.raised,
           f"{run.where}: the measure failed {run.flaky.raised} times, but add raised only "
           f"{run.propagated} times. Why: an add that swallows the tokenizer's error goes on "
           f"with a size it never measured. Hint: let the measure's exception propagate.")
    return run


def _cache(run: _Run, name: str) -> None:
    """The learner's requests cost no more than the kit's under the automatic profile."""
    trace = AgentTrace("check", "", {}, _TASK, (), (), _FOLLOW, 0, run.case.budget)
    mine = AgentRun("yours", trace, run.requests)
    ref = AgentRun("kit", trace, _kit_requests(run.case))
    got, want = meter(mine, _PROFILE), meter(ref, _PROFILE)
    expect(got.hit_ratio >= want.hit_ratio - 0.02,
           f"{run.where}: your requests hit the prompt cache for {got.hit_ratio:.0%} of their "
           f"tokens, the kit's for {want.hit_ratio:.0%}. Why: each clearing rewrites the prompt "
           f"from the first cleared result on, so a clearing at every step leaves the cache "
           f"nothing to reuse. Hint: once triggered, clear at least clear_at_least (oldest "
           f"first), not just enough to get back under the trigger.")


class _Kit(AgentContext):
    """The kit's class under the exercise's signature."""

    def __init__(self, budget, measure, system, *, trigger, keep, clear_at_least):
        super().__init__(measure, system, count="text", window=budget,
                         clearing=ClearToolResults(trigger, keep, clear_at_least))


def _kit_requests(case: Case) -> list:
    return _replay(_Kit, case, "kit").requests


def _check(cls: object, names: tuple, cache: bool = False) -> int:
    name = getattr(cls, "__name__", "your class")
    cases = 0
    for case in (c for c in CASES if c.name in names):
        run = _replay(cls, case, name)
        if cache:
            _cache(run, name)
        expect(not run.mismatch, run.mismatch)
        cases += len(run.requests)
    return cases


def check_agent_context_correctness(cls: object) -> int:
    """The spec's cases against the kit, add by add: nothing to clear, clearing fires,
    clear_at_least (with the cache meter). Returns the states compared."""
    return _check(cls, ("nothing to clear", "clearing fires",
                        "clear_at_least batches the clearing"), cache=True)


def check_agent_context_edge_cases(cls: object) -> int:
    """keep=0 and no system prompt; a follow-up question under a tight budget (groups
    dropped, the live question kept). Returns the states compared."""
    return _check(cls, ("keep=0 clears every old result", "a follow-up and the budget"))


def check_agent_context_failure_safety(cls: object) -> int:
    """A result too big for the budget, tried at three seeded steps, raises ValueError and
    changes nothing; the right result is then accepted and the run goes on. A measure that
    fails on seeded calls (three placeholders, two results): the error propagates out of add
    and nothing changed; the retried add then succeeds. Returns the states compared."""
    return _check(cls, ("a result too big for the budget", "a tokenizer that fails"))


def check_agent_context_complexity(cls: object) -> int:
    """Counted measure calls over 300 steps: at most twice the kit's, none when reading
    ``size`` or ``messages()``, and the kit's context at the end. Returns 3."""
    name = getattr(cls, "__name__", "your class")
    case = Case("a long run", 3000, 2000, 3, 800, 6, _sizes(6, 300, 60, 120))
    run = _replay(cls, case, name, observe=False)
    calls, kit_calls = run.words.calls, _replay(_Kit, case, "kit", observe=False).words.calls
    call_learner(run.learner.messages, name=f"{name}.messages")
    size_of(run.learner, name)
    expect(run.words.calls == calls, f"{name}: reading size or messages() called the measure "
           f"{run.words.calls - calls} times. Hint: keep each message's size when it enters "
           f"and a running total.")
    expect(calls <= 2 * kit_calls, f"{name}: the measure was called {calls} times over 300 "
           f"steps, the kit needs {kit_calls}. Why: a real tokenizer is the slowest step. "
           f"Hint: measure each message (and placeholder) once, when it enters.")
    run.observe("300 steps")
    expect(not run.mismatch, run.mismatch)
    return 3


PARTS = (check_agent_context_correctness, check_agent_context_edge_cases,
         check_agent_context_failure_safety, check_agent_context_complexity)
RUBRIC = {"correctness": check_agent_context_correctness,
          "failure safety": check_agent_context_failure_safety,
          "edge cases": check_agent_context_edge_cases,
          "complexity": check_agent_context_complexity}


def check_agent_context(cls: object) -> None:
    """Check a learner's agent context manager ``cls(budget, measure, system, trigger=...,
    keep=..., clear_at_least=...)``; print one pass line or raise CheckFailed (see the
    module docstring for the rules and :mod:`kit.mistakes.agent` for the wrong answers it
    rejects)."""
    passed("agent context", sum(part(cls) for part in PARTS))


# -- exercise 1: how many results to clear ---------------------------------------------
def _to_clear(sizes: list, size: int, trigger: int, keep: int, clear_at_least: int,
              placeholder_size: int) -> int:
    """The reference of exercise 1 (the rule of :func:`kit.agent.clearing.plan_clearing`)."""
    if size <= trigger:
        return 0
    candidates = sizes[:len(sizes) - keep] if keep else sizes
    saved = count = 0
    for result in candidates:
        saved, count = saved + result - placeholder_size, count + 1
        if saved >= clear_at_least and size - saved <= trigger:
            break
    return count


#: (why, sizes, size, trigger, keep, clear_at_least, placeholder size)
CLEAR_CASES = (
    ("under the trigger", [500, 400, 300], 900, 1000, 1, 0, 10),
    ("exactly at the trigger", [500, 400, 300], 1000, 1000, 1, 0, 10),
    ("just enough to get under", [500, 400, 300, 200], 1100, 1000, 1, 0, 10),
    ("clear_at_least asks for more", [500, 400, 300, 200], 1100, 1000, 1, 800, 10),
    ("keep=0: every result is a candidate", [100, 100, 100], 400, 150, 0, 0, 10),
    ("keep covers every result", [500, 400], 2000, 1000, 2, 0, 10),
    ("not enough to clear", [300, 200, 100], 2000, 1000, 1, 5000, 10),
    ("the placeholder costs too", [100, 100, 100, 100], 450, 300, 0, 0, 40),
)


def check_to_clear(fn: object) -> None:
    """Check exercise 1's ``fn(sizes, size, trigger, keep, clear_at_least,
    placeholder_size) -> int`` (how many of the oldest results to clear) on
    :data:`CLEAR_CASES`; print one pass line or raise CheckFailed."""
    for why, sizes, size, trigger, keep, least, cost in CLEAR_CASES:
        shown = f"to_clear({sizes}, {size}, {trigger}, {keep}, {least}, {cost})"
        got = call_learner(fn, list(sizes), size, trigger, keep, least, cost, name="to_clear",
                           shown=shown)
        want = _to_clear(sizes, size, trigger, keep, least, cost)
        if got == want:
            continue
        if why == "exactly at the trigger":
            hint = "clear only when the size is over the trigger (size > trigger)"
        elif why == "keep=0: every result is a candidate":
            hint = "with keep=0 every result is a candidate (sizes[:-0] is empty)"
        elif why == "the placeholder costs too":
            hint = "a cleared result saves its size minus the placeholder's"
        else:
            hint = ("candidates are the results older than the newest keep; take them oldest "
                    "first until at least clear_at_least is saved and the size is back under "
                    "the trigger, or none is left")
        raise CheckFailed(f"{shown} ({why}) should be {want}, got {got!r:.40}. Hint: {hint}.")
    passed("results to clear", len(CLEAR_CASES))
