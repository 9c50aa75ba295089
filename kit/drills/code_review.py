"""Drill 06: code review. Find and fix the bugs of a summary memory, in 20 minutes.

The candidate reads :class:`kit.mistakes.review.BuggyMemory` (five bugs the well-known
libraries shipped: turns dropped before the summariser call, the summary not counted,
``turns[-0:]`` with ``keep_recent=0``, a time-triggered summary that overwrites instead of
updating, a reply orphaned from its question) and writes ``ReviewedMemory(summariser,
budget, keep_recent, measure, system=None, *, clock=None, max_age=None)``, the fixed class,
with the learner protocol (``add``, ``context``, ``messages``, ``size``).

Each rubric category runs the lesson-03 checker's part (:mod:`kit.checks.summary_memory`,
no clock: the budget rules) and then this drill's time-trigger checks, on a fixed clock
the checker moves (ten seconds between messages), against
:class:`kit.mistakes.review.ReviewedReference`:

- **correctness**: the laptop trace, the replay and retention of the planted facts; then
  timed replays: the same summariser prompts at the same adds (a timed compaction updates
  the running summary), the same verbatim turns, summary and size;
- **failure safety**: seeded summariser failures; then a timed compaction that times out:
  the error propagates, no message is lost, the next one starts from the same summary;
- **edge cases**: a reply kept with its question, ``keep_recent=0``, a system prompt; then
  an age of exactly ``max_age`` (no compaction: older means ``>``), ``keep_recent=0`` on
  the timer, nothing foldable, and no ``max_age`` (the clock is never read);
- **complexity**: measure calls flat per add, summariser calls as the kit's; then over a
  timed chat of 200 messages the summariser is called as often as the reference and the
  clock at most once per add.
"""
from __future__ import annotations

import contextlib
import functools
import io
from collections.abc import Callable

from kit.checks import CheckFailed, expect
from kit.checks.protocol import CheckerClock, add, build, state
from kit.checks.summary_memory import RUBRIC as SUMMARY_RUBRIC
from kit.conversations import shopping_chat
from kit.drills import Drill
from kit.llm import FailingLLM
from kit.mistakes.review import ReviewedReference
from kit.prompts import parse_summary_turns
from kit.tokens import CallCounter, count_words

__all__ = ["DRILL", "check_correctness", "check_failure_safety", "check_edge_cases",
           "check_complexity"]

_NAME = "memory"
_STEP = 10                       # seconds between two messages on the checker's clock


def _listing(prompt: str) -> str:
    """A stub summariser that keeps the previous summary and every folded text."""
    summary, turns = parse_summary_turns(prompt)
    return "; ".join([summary] * bool(summary) + [f"{role}: {text}" for role, text in turns])


class _Recorder:
    """A prompt model that records ``(summary, turns)`` of each call, then answers with
    ``_listing`` (through a :class:`FailingLLM` when ``fail_on`` is given)."""

    def __init__(self, fail_on: set[int] | None = None) -> None:
        self.model = FailingLLM(_listing, fail_on) if fail_on else _listing
        self.calls: list[tuple[str, list]] = []
        self.failed: list[bool] = []

    def __call__(self, *args, **kwargs) -> str:
        if len(args) != 1 or kwargs or not isinstance(args[0], str):
            raise CheckFailed("your memory called summariser(...) with more than one prompt "
                              "string. Hint: self.summariser(build_summary_prompt(summary, old)).")
        try:
            summary, turns = parse_summary_turns(args[0])
        except ValueError:
            raise CheckFailed(f"the summariser could not read your prompt {args[0][:60]!r}. "
                              f"Hint: build it with build_summary_prompt(self.summary, old)."
                              ) from None
        self.calls.append((summary, turns))
        try:
            reply = self.model(args[0])
        except Exception:
            self.failed.append(True)
            raise
        self.failed.append(False)
        return reply


def _numbered(chat):
    return [(role, f"{text} [m{n}]") for n, (role, text) in enumerate(chat, start=1)]


def _make(cls, summariser, budget, keep, measure, clock, max_age, label):
    factory = functools.partial(cls, clock=clock, max_age=max_age)
    name = getattr(cls, "__name__", "your class")
    return build(factory, summariser, budget, keep, measure, name=name,
                 shown=f"{name}(summariser, {budget}, {keep}, measure, clock=clock, "
                       f"max_age={max_age}) ({label})")


def _turns(messages: list[dict]) -> list[tuple[str, str]]:
    return [(m.get("role"), m.get("content")) for m in messages if m.get("role") != "system"]


def _show(turns) -> str:
    numbers = [text.rsplit("[m", 1)[-1].rstrip("]") for _, text in turns]
    return "no turns" if not turns else f"messages {', '.join(numbers)}"


def _replay(cls: object, chat, budget: int, keep: int, max_age: float, why: str) -> int:
    """Add by add on the checker's clock, against ReviewedReference: the same summariser
    calls (summary and turns of each prompt), then the same turns and size."""
    label = f"budget {budget} words, keep_recent={keep}, max_age={max_age:g} s"
    mine, ref = _Recorder(), _Recorder()
    clock, ref_clock = CheckerClock(), CheckerClock()
    memory = _make(cls, mine, budget, keep, CallCounter(count_words), clock, max_age, label)
    kit = ReviewedReference(ref, budget, keep, count_words, clock=ref_clock, max_age=max_age)
    for n, (role, content) in enumerate(chat, start=1):
        clock.now = ref_clock.now = float(_STEP * (n - 1))
        where = (f"timed chat ({label}, one message every {_STEP} s), message {n} at "
                 f"t={clock.now:g} s")
        start, ref_start = len(mine.calls), len(ref.calls)
        add(memory, role, content, name=_NAME)
        kit.add(role, content)
        got, want = mine.calls[start:], ref.calls[ref_start:]
        if len(got) != len(want):
            oldest = kit.added_at[0] if kit.added_at and not want else None
            detail = (f"the oldest verbatim turn is {clock.now - oldest:g} s old, "
                      f"max_age={max_age:g}" if oldest is not None else "")
            raise CheckFailed(
                f"{where}: your memory called the summariser {len(got)} times, the fixed "
                f"class {len(want)} times{f' ({detail})' if detail else ''}. Why: {why}. "
                f"Hint: after the add, compact once if size > budget, or else if the oldest "
                f"verbatim turn is more than max_age seconds old (now - its time > max_age).")
        for (g_summary, g_turns), (w_summary, w_turns) in zip(got, want):
            expect(g_summary == w_summary,
                   f"{where}: the prompt's current summary should be {w_summary[:60]!r}, got "
                   f"{g_summary[:60]!r}"
                   f"{': the summary was overwritten instead of updated' if not g_summary else ''}"
                   f". Why: a timed compaction folds more turns into the running summary; "
                   f"starting from an empty one loses everything folded earlier (the order "
                   f"id, the allergy). Hint: every compaction, on the budget or on the timer, "
                   f"calls build_summary_prompt(self.summary, old).")
            expect(g_turns == w_turns,
                   f"{where}: the prompt's new turns should be {_show(w_turns)}, got "
                   f"{_show(g_turns)}. Why: {why}. Hint: fold the `old` part of "
                   f"split_for_compaction(self.turns, self.keep_recent), on the timer too.")
        _, messages, size = state(memory, _NAME)
        want_turns = [(m.role, m.content) for m in kit.turns]
        expect(_turns(messages) == want_turns,
               f"{where}: the verbatim turns should be {_show(want_turns)}, got "
               f"{_show(_turns(messages))}. Why: {why}. Hint: after a compaction keep only "
               f"the recent turns, and their times with them.")
        expect(size == kit.size,
               f"{where}: size should be {kit.size} words (summary + verbatim turns), got "
               f"{size}. Hint: count the summary too, measured once when it comes back.")
    return len(chat)


_TIMED = _numbered(shopping_chat(14, seed=6))
_WHY_TIMER = ("one message every 10 s and max_age=35 s: the oldest turn goes stale every few "
              "messages, and each timed compaction folds what is older than keep_recent")


def _time_correctness(cls: object) -> int:
    cases = _replay(cls, _TIMED, 1_000, 2, 35, _WHY_TIMER)
    cases += _replay(cls, _numbered(shopping_chat(30, seed=7)), 60, 2, 45,
                     "the budget and the timer both fire in this chat: each compaction "
                     "updates the same running summary")
    return cases


def _time_failure(cls: object) -> int:
    """A timed compaction whose summariser times out: propagates, nothing lost, the next
    one from the same summary with at least the failed turns."""
    chat = _TIMED
    mine = _Recorder(fail_on={2})
    clock = CheckerClock()
    label = "budget 1000 words, keep_recent=2, max_age=35 s, the 2nd summariser call times out"
    memory = _make(cls, mine, 1_000, 2, CallCounter(count_words), clock, 35, label)
    error = mine.model.error
    failed_call = None
    cases = 0
    for n, (role, content) in enumerate(chat, start=1):
        clock.now = float(_STEP * (n - 1))
        for attempt in (1, 2):
            where = f"timed chat ({label}), message {n} at t={clock.now:g} s" + \
                (" (added again)" if attempt == 2 else "")
            before, start = state(memory, _NAME), len(mine.calls)
            raised = None
            try:
                add(memory, role, content, name=_NAME, expected=(Exception,))
            except CheckFailed:
                raise
            except Exception as exc:           # noqa: BLE001
                raised = exc
            failed = any(mine.failed[start:])
            cases += 1
            if failed:
                failed_call = mine.calls[start]
                expect(raised is not None and _caused_by(raised, error),
                       f"{where}: the summariser raised TimeoutError, but memory.add "
                       f"{'returned normally' if raised is None else 'raised ' + type(raised).__name__ + ' without it as its cause'}"
                       f". Why: the caller must hear of the failure. Hint: let the "
                       f"exception propagate out of add.")
                after = state(memory, _NAME)
                if after == before:
                    continue                               # rolled back: add it again
                expect(_turns(after[1]) == _turns(before[1]) + [(role, content)]
                       and [m for m in after[1] if m.get("role") == "system"]
                       == [m for m in before[1] if m.get("role") == "system"],
                       f"{where}: after the failed timed compaction the verbatim turns "
                       f"should be {_show(_turns(before[1]) + [(role, content)])} and the "
                       f"summary unchanged; got {_show(_turns(after[1]))}. Why: a timeout "
                       f"must lose nothing: the old turns were removed before the "
                       f"summariser call. Hint: compute first, then commit: drop the old "
                       f"turns only after the summariser returned.")
            elif raised is not None:
                raise CheckFailed(f"{where}: memory.add raised {type(raised).__name__}: "
                                  f"{raised}, but the summariser did not fail.") from raised
            elif failed_call is not None and mine.calls[start:]:
                summary, turns = mine.calls[start]
                expect(summary == failed_call[0] and turns[:len(failed_call[1])] == failed_call[1],
                       f"{where}: the first compaction after the failed one should start from "
                       f"the same summary and fold at least {_show(failed_call[1])}; got "
                       f"{_show(turns)} with summary {summary[:50]!r}. Why: nothing the failed "
                       f"call was to fold may be skipped. Hint: keep summary, turns and their "
                       f"times as they were on a failure.")
                failed_call = None
            break
        context = state(memory, _NAME)[0]
        for k in range(1, n + 1):
            times = context.count(f"[m{k}]")
            expect(times == 1,
                   f"timed chat ({label}), after message {n}: message {k} should be in "
                   f"context() exactly once (verbatim or in the summary), found {times} "
                   f"times. Why: the stub summariser keeps every text, so a missing message "
                   f"was lost. Hint: commit the new summary and the new turn list together, "
                   f"after the call returned.")
    return cases


def _caused_by(exc: BaseException | None, error: BaseException) -> bool:
    seen = set()
    while exc is not None and id(exc) not in seen:
        if exc is error:
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return False


def _time_edges(cls: object) -> int:
    cases = 0
    # an age of exactly max_age does not compact; keep_recent=0 folds every turn
    mine, clock = _Recorder(), CheckerClock()
    memory = _make(cls, mine, 1_000, 0, CallCounter(count_words), clock, 35,
                   "keep_recent=0, max_age=35 s")
    chat = _numbered([("user", "My order id is 4417."), ("assistant", "Noted: order 4417."),
                      ("user", "Is it shipped?")])
    for n, ((role, content), now, calls) in enumerate(zip(chat, (0.0, 35.0, 36.0), (0, 0, 1)),
                                                     start=1):
        clock.now = now
        add(memory, role, content, name=_NAME)
        where = (f"keep_recent=0, max_age=35 s, message {n} at t={now:g} s (the oldest turn "
                 f"is {now:g} s old)")
        expect(len(mine.calls) == calls,
               f"{where}: your memory called the summariser {len(mine.calls)} times so far, "
               f"expected {calls}. Why: "
               + ("an age of exactly max_age is not older than max_age: compact only when "
                  "now - oldest > max_age" if n < 3 else
                  "36 s > 35 s: compact now; with keep_recent=0 every turn folds, the "
                  "newest too (turns[-0:] is the whole list)")
               + ". Hint: stamp each message with one clock reading, compare the newest "
                 "stamp with the oldest, and split with split_for_compaction.")
        cases += 1
    expect(mine.calls[-1][1] == chat, f"keep_recent=0, max_age=35 s, message 3 at t=36 s: the "
           f"timed compaction should fold messages 1, 2, 3, got {_show(mine.calls[-1][1])}. "
           f"Hint: keep_recent=0 folds everything; turns[-0:] is the whole list.")
    expect(not _turns(state(memory, _NAME)[1]),
           "keep_recent=0, max_age=35 s, after message 3: no turn should stay verbatim. "
           "Hint: turns[-0:] is the whole list: compute the split as len(turns) - keep_recent.")
    # nothing foldable: keep_recent=4 and two old messages
    mine, clock = _Recorder(), CheckerClock()
    memory = _make(cls, mine, 1_000, 4, CallCounter(count_words), clock, 35,
                   "keep_recent=4, max_age=35 s")
    for now, (role, content) in zip((0.0, 1_000.0), chat):
        clock.now = now
        add(memory, role, content, name=_NAME)
    expect(not mine.calls,
           "keep_recent=4, max_age=35 s, two messages 1,000 s apart: your memory called the "
           "summariser, but nothing is older than keep_recent. Why: keep_recent wins over "
           "the timer too. Hint: split first and call the summariser only `if old:`.")
    cases += 1
    # no max_age: the clock is never read, nothing is folded on time
    mine, clock = _Recorder(), CheckerClock()
    memory = _make(cls, mine, 1_000, 0, CallCounter(count_words), clock, None,
                   "keep_recent=0, no max_age")
    for n, (role, content) in enumerate(chat):
        clock.now = 1_000.0 * n
        add(memory, role, content, name=_NAME)
    expect(not mine.calls and clock.calls == 0,
           f"keep_recent=0, max_age=None, budget 1000 words: your memory read the clock "
           f"{clock.calls} times and called the summariser {len(mine.calls)} times. Why: "
           f"without max_age there is no time trigger; the context is far under the budget. "
           f"Hint: read the clock only when max_age is set.")
    return cases + 1


def _time_complexity(cls: object) -> int:
    chat = _numbered(shopping_chat(200, seed=8))
    budget, keep, max_age = 150, 2, 45
    mine, ref = _Recorder(), _Recorder()
    clock, ref_clock = CheckerClock(), CheckerClock()
    label = f"timed shopping_chat(200) (budget {budget} words, keep_recent={keep}, max_age=45 s)"
    memory = _make(cls, mine, budget, keep, CallCounter(count_words), clock, max_age, label)
    kit = ReviewedReference(ref, budget, keep, count_words, clock=ref_clock, max_age=max_age)
    for n, (role, content) in enumerate(chat, start=1):
        clock.now = ref_clock.now = float(_STEP * (n - 1))
        add(memory, role, content, name=_NAME)
        kit.add(role, content)
    expect(len(mine.calls) == len(ref.calls),
           f"{label}: your memory called the summariser {len(mine.calls)} times, the fixed "
           f"class {len(ref.calls)} times. Why: each call is a model call. Hint: at most one "
           f"compaction per add, whichever trigger fires.")
    expect(clock.calls <= len(chat),
           f"{label}: your memory read the clock {clock.calls} times in {len(chat)} adds. "
           f"Why: one reading per add stamps the new message and dates the oldest. Hint: "
           f"read it once per add and keep the stamps.")
    return 2


def _quiet(part: Callable[[object], int]) -> Callable[[object], int]:
    """``part`` with its prints (if any) kept off the rubric."""
    @functools.wraps(part)
    def run(cls: object) -> int:
        with contextlib.redirect_stdout(io.StringIO()):
            return part(cls)
    return run


def _category(budget_part: Callable[[object], int],
              time_part: Callable[[object], int]) -> Callable[[object], int]:
    def check(cls: object) -> int:
        return _quiet(budget_part)(cls) + time_part(cls)
    check.__doc__ = f"{budget_part.__doc__}\n\nThen: {time_part.__doc__ or time_part.__name__}"
    return check


check_correctness = _category(SUMMARY_RUBRIC["correctness"], _time_correctness)
check_failure_safety = _category(SUMMARY_RUBRIC["failure safety"], _time_failure)
check_edge_cases = _category(SUMMARY_RUBRIC["edge cases"], _time_edges)
check_complexity = _category(SUMMARY_RUBRIC["complexity"], _time_complexity)

DRILL = Drill(
    name="code-review",
    title="Code review: find and fix the bugs",
    minutes=20,
    symbol="ReviewedMemory",
    notebook="06_code_review",
    rubric={"correctness": check_correctness, "failure safety": check_failure_safety,
            "edge cases": check_edge_cases, "complexity": check_complexity},
    talking_points=(
        "Read for state changes first: what is mutated before the model call returns? "
        "(compute first, then commit)",
        "size is what is sent: the summary counts against the budget",
        "turns[-0:] is the whole list: keep_recent=0 needs len(turns) - keep_recent",
        "A timed refresh is an update: pass the running summary, never start from empty",
        "A reply never leaves its question: move the split back from an assistant turn",
        "How you would catch each bug in CI: a replay test, a failure-injection test, a "
        "keep_recent=0 test, a fixed clock",
    ),
    mechanism="code review",
)
