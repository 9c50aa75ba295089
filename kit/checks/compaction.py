"""Checker for lesson 03 (summary memory), exercise 2: one compaction as a pure function.

:func:`check_compact`: the exercise ``compact(summary, turns, keep_recent,
summariser)``. ``turns`` is a list of :class:`kit.messages.Message`; ``summariser``
is a prompt model ``str -> str``. Split like ``split_for_compaction``; if nothing is
old (decided from the split, not from ``len(turns)``) return ``(summary,
list(turns))``, a new list, without calling the summariser; else call it once with
one argument, exactly ``build_summary_prompt(summary, old)`` (the previous summary
and only the old turns: an incremental update, with the default instructions) and
return ``(reply, recent)``, ``recent`` a list. A pure function: the inputs never
change, and an exception from the summariser propagates as it is (the same object,
after one call: no retry).

The checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

import copy
from collections.abc import Callable

from kit.checks import CheckFailed, as_messages, call_learner, expect, passed
from kit.memory import build_summary_prompt
from kit.messages import Message
from kit.prompts import SUMMARY_HEADER, parse_summary_prompt

__all__ = ["check_compact"]


class _Recorder:
    """A summariser that records each prompt it gets and replies "summary v1", "v2"...

    Like the kit's summarisers it takes exactly one argument, the prompt string; any
    other call raises CheckFailed and is kept in ``misuse``, so that the checker can
    report it even if the learner's code caught the exception.
    """

    def __init__(self, label: str = "compact") -> None:
        self.label = label
        self.prompts: list[str] = []
        self.misuse: CheckFailed | None = None

    def __call__(self, *args: object, **kwargs: object) -> str:
        if len(args) != 1 or kwargs or not isinstance(args[0], str):
            shown = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
            shown = shown if len(shown) <= 100 else shown[:97] + "..."
            self.misuse = CheckFailed(
                f"{self.label} called summariser({shown}). A summariser is a prompt model "
                f"str -> str: call it with exactly one argument, the prompt string: "
                f"summariser(build_summary_prompt(summary, old)). The instructions are "
                f"already inside that prompt.")
            raise self.misuse
        self.prompts.append(args[0])  # type: ignore[arg-type]
        return f"summary v{len(self.prompts)}"


class _Timeout:
    """A summariser that always raises TimeoutError and counts its calls.

    Each call raises a new TimeoutError, kept in ``errors``, so that the checker can
    tell the summariser's own exception (``is``) from a new one the learner raised.
    """

    def __init__(self) -> None:
        self.calls = 0
        self.errors: list[TimeoutError] = []

    def __call__(self, *args: object) -> str:
        self.calls += 1
        self.errors.append(TimeoutError("model timed out"))
        raise self.errors[-1]


_CHAT = [
    ("user", "My order id is 88412 and I am allergic to peanuts"),
    ("assistant", "Noted: order 88412, no peanuts"),
    ("user", "My budget is Rs 60000"),
    ("assistant", "Budget noted"),
    ("user", "Show me gift baskets"),
    ("assistant", "Here are three gift baskets"),
    ("user", "Which one ships fastest?"),
]

# The assistant answers in two messages in a row (messages 4 and 5).
_TWO_REPLIES = [
    ("user", "Order 88412: please add trail mix"),
    ("assistant", "Added trail mix"),
    ("user", "Is the large bag in stock?"),
    ("assistant", "Let me check the warehouse"),
    ("assistant", "Yes, 14 large bags are in stock"),
    ("user", "Great, ship it today"),
]

# (previous summary, the turns as (role, text), keep_recent, messages that are old, why)
_COMPACT_CASES = [
    ("", _CHAT[:4], 2, 2, "first compaction: no previous summary, turns 1-2 are old"),
    ("order 88412", _CHAT[:6], 2, 4, "fold turns 1-4 into the previous summary"),
    ("order 88412", _CHAT[:6], 4, 2, "keep_recent=4: turns 1-2 are old"),
    ("order 88412", _CHAT[:5], 2, 2, "recent would start with a reply: the split moves back"),
    ("order 88412", _CHAT[:7], 4, 2, "recent would start with a reply: the split moves back"),
    ("order 88412", _TWO_REPLIES, 2, 2,
     "recent would start with message 5, the second of two replies in a row: the split "
     "moves back twice, to message 3"),
    ("order 88412", _CHAT[:4], 0, 4, "keep_recent=0 folds everything"),
    ("order 88412", _CHAT[:2], 2, 0, "nothing is older than keep_recent: no summariser call"),
    ("order 88412", _CHAT[:3], 2, 0,
     "3 turns u a u and keep_recent=2: the split lands on the reply (message 2) and moves "
     "back to message 1, so nothing is old: no summariser call"),
    ("", _CHAT[:3], 4, 0, "fewer turns than keep_recent: no summariser call"),
    ("order 88412", [], 0, 0, "no turns: no summariser call"),
]


def _label(summary: str, turns: list[Message], keep_recent: int) -> str:
    roles = " ".join(m.role[0] for m in turns) or "(none)"
    return f"compact({summary!r}, {len(turns)} turns {roles}, keep_recent={keep_recent})"


def _reraise_misuse(summariser: Callable) -> None:
    """Raise the recorder's CheckFailed for a wrong summariser call, if there was one."""
    misuse = getattr(summariser, "misuse", None)
    if misuse is not None:
        raise CheckFailed(str(misuse)) from None


def _call_compact(compact: Callable, summary: str, turns: list[Message], keep_recent: int,
                  summariser: Callable,
                  expected: tuple[type[BaseException], ...] = ()) -> tuple[object, list]:
    """Call ``compact`` on a copy of ``turns`` (the summariser itself, not a copy).

    Returns ``(result, the copy passed in)``, so that the caller can check the
    identity of what came back. Fails on the stub, on an exception not in
    ``expected`` (naming the case), on a wrong call of the summariser (even if the
    learner's code caught it) and on mutation.
    """
    label = _label(summary, turns, keep_recent)
    given = copy.deepcopy(turns)
    try:
        result = call_learner(compact, summary, given, keep_recent, summariser,
                              name="compact", shown=label, expected=expected)
    except CheckFailed:
        _reraise_misuse(summariser)
        raise
    _reraise_misuse(summariser)
    expect(given == turns,
           f"{label} changed the turns list in place (it "
           f"now holds {len(given)} turns). A pure function returns the new list and "
           f"leaves its input alone: the caller commits only after the call succeeded.")
    return result, given


def _compact_split_hint(n_sent: int, turns: list[Message], keep_recent: int) -> str:
    """The likely mistake when the prompt holds ``n_sent`` turns instead of the old ones."""
    naive = max(len(turns) - keep_recent, 0)
    if n_sent == naive - 1 and turns[n_sent].role == "assistant":
        return ("two replies are in a row here, and the recent part still starts with "
                "one: keep moving the split back (a while, not an if), or simply use "
                "kit.memory.split_for_compaction(turns, keep_recent)")
    if n_sent == naive and 0 < naive < len(turns) and turns[naive].role == "assistant":
        return ("the recent part would start with a reply: move the split back to its "
                "question, or simply use kit.memory.split_for_compaction(turns, keep_recent)")
    return "split with kit.memory.split_for_compaction(turns, keep_recent)"


def _sends_no_turns(prompts: list[str]) -> bool:
    """True if the first prompt parses and its "New turns:" section is empty."""
    try:
        return bool(prompts) and parse_summary_prompt(prompts[0])[1] == []
    except Exception:                    # a prompt the stubs cannot read: no extra hint
        return False


def _check_prompt(prompt: str, summary: str, old: list[Message], recent: list[Message],
                  label: str, keep_recent: int) -> None:
    try:
        got_summary, contents = parse_summary_prompt(prompt)
    except ValueError as exc:
        raise CheckFailed(f"{label}: the summariser could not read your prompt ({exc}). "
                          f"Build it with kit.memory.build_summary_prompt(summary, old)") from None
    expect(got_summary == summary,
           f"{label}: the prompt's current summary should be {summary or '(none)'!r}, got "
           f"{got_summary or '(none)'!r}. Pass the previous summary, so the update is "
           f"incremental and nothing folded earlier is lost.")
    want = [m.content for m in old]
    if recent and contents == [m.content for m in old + recent]:
        raise CheckFailed(f"{label}: the prompt holds every turn, the recent ones too. Send "
                          f"only the old turns (the recent ones stay verbatim); "
                          f"re-summarising the whole transcript costs more on every call.")
    expect(contents == want,
           f"{label}: the prompt's new turns should be the {len(want)} old turn(s) "
           f"{[m.number for m in old]}, got {len(contents)} turn(s): {contents!r:.120}. "
           f"Hint: {_compact_split_hint(len(contents), old + recent, keep_recent)}.")
    want_prompt = build_summary_prompt(summary, old)
    if prompt == want_prompt:
        return
    instructions = prompt.split(SUMMARY_HEADER, 1)[0].strip()
    if instructions != want_prompt.split(SUMMARY_HEADER, 1)[0].strip():
        raise CheckFailed(
            f"{label}: the prompt should be exactly build_summary_prompt(summary, old), "
            f"but its instructions are {instructions or '(none)'!r:.80}. Call it with no "
            f"third argument and send its result unchanged: the default instructions "
            f"(kit.memory.SUMMARY_PROMPT) tell the model to keep every id, number and "
            f"constraint, which a generic \"summarise this\" prompt loses.")
    at = next((i for i, (a, b) in enumerate(zip(prompt, want_prompt)) if a != b),
              min(len(prompt), len(want_prompt)))
    raise CheckFailed(
        f"{label}: the prompt should be exactly build_summary_prompt(summary, old); yours "
        f"differs from character {at}: {prompt[max(at - 20, 0):at + 40]!r} where the "
        f"kit's has {want_prompt[max(at - 20, 0):at + 40]!r}. Pass the prompt the kit "
        f"builds, unchanged.")


def check_compact(compact: Callable[..., tuple[str, list[Message]]]) -> None:
    """Check ``compact(summary, turns, keep_recent, summariser)``; print one pass line or
    raise CheckFailed.

    Rejects: re-summarising the whole transcript (recent turns in the prompt), dropping
    the previous summary, off-by-one splits, mutating ``turns`` (before or after the
    call), calling the summariser when nothing is old or more than once, calling it
    with anything but the one prompt string ``build_summary_prompt(summary, old)``
    (other instructions included), returning anything but ``(reply, recent)``, and
    swallowing, wrapping or replacing the summariser's exception (a new TimeoutError
    included: the exception must be the summariser's own object), retrying the
    summariser after a timeout, deciding "nothing is old" from ``len(turns) <=
    keep_recent`` instead of from the split, a split that moves back only once past
    two replies in a row, and returning the input list itself as ``recent``. Any other
    exception from ``compact`` becomes a CheckFailed naming the case.
    """
    cases = 0
    for summary, texts, keep_recent, n_old, why in _COMPACT_CASES:
        turns = as_messages(texts)
        old, recent = turns[:n_old], turns[n_old:]
        label = _label(summary, turns, keep_recent)
        recorder = _Recorder(label)
        got, given = _call_compact(compact, summary, turns, keep_recent, recorder)
        missing = " (does one path of your function end without a `return`?)" * (got is None)
        expect(isinstance(got, tuple) and len(got) == 2,
               f"{label} should return a tuple (new_summary, recent), got {got!r:.100}"
               f"{missing}")
        kept = got[1]
        count = (" (a count? return the list `recent` itself, not its length)"
                 * (isinstance(kept, int) and not isinstance(kept, bool)))
        expect(isinstance(kept, list),
               f"{label} should return (new_summary, recent) with recent the list of turns "
               f"kept verbatim, got {type(kept).__name__} {kept!r:.60} as the second "
               f"item{count}")
        if not old:
            by_length = (" Decide from the split (`if not old:`), not from `len(turns) <= "
                         "keep_recent`: the split can move back so far that nothing is old "
                         "although there are more turns than keep_recent"
                         * (len(turns) > keep_recent))
            if by_length and _sends_no_turns(recorder.prompts):
                by_length += "; your prompt's \"New turns:\" section was empty"
            by_length += "." * bool(by_length)
            expect(not recorder.prompts,
                   f"{label} called the summariser, but nothing is old ({why}). Return "
                   f"(summary, list(turns)) without a model call: each call costs time and "
                   f"money.{by_length}")
            expect(got == (summary, turns),
                   f"{label}: nothing is old, so return the summary and turns unchanged; "
                   f"got {got!r:.120}")
            expect(kept is not given,
                   f"{label} returned the input list `turns` itself as recent: return a "
                   f"new list, list(turns) (or the `recent` that split_for_compaction "
                   f"returns), so that a later change to the caller's list cannot change "
                   f"the result, or the other way round")
        else:
            expect(len(recorder.prompts) == 1,
                   f"{label} called the summariser {len(recorder.prompts)} times; call it "
                   f"exactly once, with the previous summary and the old turns ({why})")
            _check_prompt(recorder.prompts[0], summary, old, recent, label, keep_recent)
            expect(got[0] == "summary v1",
                   f"{label}: the new summary is the summariser's reply ('summary v1'), "
                   f"got {got[0]!r:.80}")
            expect(kept == recent,
                   f"{label}: the turns to keep are {[m.number for m in recent]}, got "
                   f"{[getattr(m, 'number', m) for m in kept]!r:.100} ({why})")
        cases += 1

    # A summariser that times out: it is called once, its own error propagates and
    # nothing changes.
    for summary, n, keep_recent in (("order 88412", 6, 2), ("", 4, 0)):
        turns = as_messages(_CHAT[:n])
        label = _label(summary, turns, keep_recent)
        given, failing = copy.deepcopy(turns), _Timeout()
        try:
            call_learner(compact, summary, given, keep_recent, failing, name="compact",
                         shown=f"{label} with a summariser that times out",
                         expected=(TimeoutError,),
                         hint="Do not wrap or replace it: let the TimeoutError propagate "
                              "(no try/except around the summariser call), so that the "
                              "caller sees the real failure and keeps its state")
        except TimeoutError as exc:
            expect(failing.calls == 1,
                   f"{label} with a summariser that times out called it {failing.calls} "
                   f"times; call it exactly once and let the TimeoutError propagate. "
                   f"Retrying inside compact makes the user wait through every timeout in "
                   f"a row; the caller keeps its state and the next compaction tries again.")
            expect(any(exc is error for error in failing.errors),
                   f"{label} with a summariser that times out raised a new "
                   f"{type(exc).__name__}({str(exc)!r:.80}), not the summariser's own "
                   f"exception. Do not catch it to raise another: with no try/except (or a "
                   f"bare `raise`) the caller gets the original error, its message and "
                   f"its traceback.")
        else:
            raise CheckFailed(f"{label} with a summariser that times out returned normally "
                              f"instead of letting the TimeoutError propagate. Swallowing it "
                              f"hides the failure; the caller must see it and keep its state.")
        expect(given == turns,
               f"{label}: the summariser timed out, yet the turns list changed ({len(given)} "
               f"turns left). Compute first, then commit: never touch the input before "
               f"the model call has returned.")
        cases += 1
    turns = as_messages(_CHAT[:2])
    failing = _Timeout()
    try:
        got, _ = _call_compact(compact, "order 88412", turns, 2, failing,
                               expected=(TimeoutError,))
    except TimeoutError:
        raise CheckFailed("compact(2 turns, keep_recent=2) called a summariser although "
                          "nothing is old (it timed out). Return early instead.") from None
    expect(got == ("order 88412", turns),
           f"compact(2 turns, keep_recent=2) should return the summary and turns unchanged, "
           f"got {got!r:.100}")
    passed("compact", cases + 1)
