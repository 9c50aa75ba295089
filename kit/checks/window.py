"""Checkers for lesson 02 (sliding windows).

- :func:`check_window`: the exercise ``window(messages, max_messages)``. ``messages``
  is a list of ``(role, text)`` tuples, oldest first; ``max_messages`` is an int >= 1
  (ValueError otherwise). Return a *new* list with the newest ``max_messages``
  messages; then, only if something was cut, drop a leading assistant reply when a
  user message follows it (its question has left the window). The input must not
  change.
- :func:`check_fit_budget`: the exercise ``fit_budget(sizes, budget)``. ``sizes`` are
  message sizes in tokens, oldest first; ``budget`` is an int >= 0, in tokens. Return
  how many of the newest messages fit together in the budget (a total equal to the
  budget fits), as a contiguous suffix: stop at the first message that does not fit
  (a message of 0 tokens always fits, even in a budget of 0).

Each checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from kit.checks import (CheckFailed, Turns, call_learner, call_pure, expect, passed, role_turns,
                        show_turns)

__all__ = ["check_window", "check_fit_budget"]

Chat = Turns


# (roles of the conversation, max_messages, numbers (1-based) of the messages kept, why)
_WINDOW_CASES = [
    ("uauaua", 4, [3, 4, 5, 6], "newest 4 start with a user message: keep all 4"),
    ("uauaua", 3, [5, 6], "newest 3 start with a reply whose question was cut: drop it"),
    ("uauaua", 5, [3, 4, 5, 6], "newest 5 start with an orphaned reply: drop it"),
    ("uauau", 4, [3, 4, 5], "newest 4 start with an orphaned reply: drop it"),
    ("uauau", 5, [1, 2, 3, 4, 5], "exactly max_messages: nothing is cut"),
    ("uauaua", 6, [1, 2, 3, 4, 5, 6], "exactly max_messages: nothing is cut"),
    ("uauaua", 10, [1, 2, 3, 4, 5, 6], "fewer than max_messages: nothing is cut"),
    ("auau", 4, [1, 2, 3, 4], "nothing is cut, so the opening greeting stays"),
    ("auau", 9, [1, 2, 3, 4], "nothing is cut, so the opening greeting stays"),
    ("auau", 2, [4], "the newest 2 start with a reply whose question was cut"),
    ("auau", 3, [2, 3, 4], "the newest 3 start with a user message"),
    ("ua", 1, [2], "the reply is alone: no user message follows it, so keep it"),
    ("uaua", 1, [4], "the reply is alone: no user message follows it, so keep it"),
    ("uau", 1, [3], "one message: the newest"),
    ("uaaau", 3, [5], "the newest 3 start with two replies whose question was cut: drop both"),
    ("uaaaua", 5, [5, 6], "the newest 5 start with three orphaned replies: drop all three"),
    ("uaa", 2, [2, 3], "no user message comes after the two replies, so there is nothing to "
                       "drop: keep both (as kit's SlidingWindow(2) does)"),
    ("", 3, [], "an empty conversation has an empty window"),
]


def _window_hint(got: object, want: Chat, chat: Chat, max_messages: int) -> str:
    """Name the likely mistake behind a wrong window."""
    cut = len(chat) > max_messages
    newest = chat[-max_messages:]
    if isinstance(got, list) and len(got) > max_messages:
        return f"keep at most {max_messages} messages (off by one?)"
    if got == newest and want != newest:
        return ("the window starts with an assistant reply whose question was cut: "
                "drop that reply")
    if (cut and isinstance(got, list) and got and isinstance(got[0], tuple)
            and got[0][0] == "assistant" and any(m[0] == "user" for m in got[1:])):
        return ("the window still starts with a reply whose question was cut: keep "
                "dropping leading replies (a while, not an if)")
    if not cut and got == chat[1:]:
        return ("nothing was cut, so there is no orphan: keep the opening message "
                "(only drop a leading reply after the window slid)")
    if cut and isinstance(got, list) and got == newest[1:] and want == newest:
        why = ("otherwise the window would be empty" if len(want) == 1 else
               "a later user message, not the window's length, is what makes a leading "
               "reply an orphan: with none after it, keep it")
        return f"drop the leading reply only when a user message follows it ({why})"
    if isinstance(got, list) and len(got) < len(want):
        return "you kept too few messages (off by one?)"
    return "take the newest max_messages (a slice from the end), then apply the orphan rule"


def check_window(window: Callable[[Chat, int], Chat]) -> None:
    """Check ``window(messages, max_messages)``; print one pass line or raise CheckFailed.

    Rejects: off-by-one sizes, mutating ``messages``, keeping an orphaned reply,
    dropping a leading greeting when nothing was cut, dropping a lone reply or replies
    that no user message follows (``while len(kept) > 1`` instead of "a user message
    comes later"), returning
    the input list itself, and not raising ValueError for ``max_messages`` < 1 (an
    ``assert`` or another exception type included). Any other exception from
    ``window`` becomes a CheckFailed naming the case.
    """
    cases = 0
    for roles, max_messages, keep, why in _WINDOW_CASES:
        chat = role_turns(roles)
        want = [chat[i - 1] for i in keep]
        label = (f"window({len(chat)} messages {' '.join(roles) or '(none)'}, "
                 f"max_messages={max_messages})")
        got = call_pure(window, chat, max_messages, name="window", shown=label)
        expect(isinstance(got, list),
               f"window should return a list, got {type(got).__name__}: {got!r:.80}")
        if got != want:
            raise CheckFailed(
                f"{label} should return {show_turns(want, chat)}, got {show_turns(got, chat)}. "
                f"Why: {why}. Hint: {_window_hint(got, want, chat, max_messages)}.")
        cases += 1
    chat = role_turns("uau")
    got = call_learner(window, chat, 5, name="window")   # no copy: the identity matters
    expect(isinstance(got, list),
           f"window(3 messages u a u, max_messages=5) should return a list, got "
           f"{type(got).__name__}: {got!r:.80}")
    expect(got is not chat, "window returned the input list itself: return a new list "
                            "(a slice or list(messages)), so later changes cannot alias")
    cases += 1
    for bad in (0, -1):
        try:
            got = call_pure(
                window, role_turns("uaua"), bad, name="window", expected=(ValueError,),
                shown=f"window(4 messages, max_messages={bad})",
                hint=(f"max_messages={bad} should raise ValueError: write `if max_messages "
                      f"< 1: raise ValueError(...)` (an assert is for your own bugs, not "
                      f"for bad arguments, and python -O skips it)"))
        except ValueError:
            cases += 1
            continue
        raise CheckFailed(
            f"window(4 messages, max_messages={bad}) should raise ValueError, got "
            f"{show_turns(got, role_turns('uaua'))}. A window must hold at least one message; "
            f"note that messages[-0:] is the whole list, not an empty one.")
    passed("window", cases)


# (sizes in tokens, budget in tokens, expected count, why it matters)
_BUDGET_CASES = [
    ([5, 3, 4], 7, 2, "4 + 3 = 7 exactly fills the budget, and that fits"),
    ([5, 3, 4], 12, 3, "all three add up to exactly 12"),
    ([5, 3, 4], 11, 2, "4 + 3 = 7 fits, adding 5 makes 12 > 11"),
    ([5, 3, 4], 100, 3, "everything fits"),
    ([5, 3, 4], 3, 0, "the newest message (4) alone is over 3"),
    ([2, 9, 3], 6, 1, "3 fits, 9 does not: stop there even though the older 2 would fit"),
    ([1, 1, 10], 2, 0, "count from the newest (10), not the oldest"),
    ([4, 4, 4], 8, 2, "4 + 4 = 8 is an exact fit"),
    ([6], 6, 1, "one message exactly the budget fits"),
    ([6], 5, 0, "one message over the budget"),
    ([3, 3, 3], 0, 0, "a budget of 0 holds no message bigger than 0 tokens"),
    ([], 10, 0, "no messages"),
    ([7, 0, 3], 3, 2, "3 fills the budget exactly, and the 0-token message before it still "
                      "fits (3 + 0 = 3 <= 3); stop only at 7, the first that does not fit"),
    ([4, 0, 2], 5, 2, "a message of 0 tokens fits any budget: 2 + 0 = 2 <= 5; only 4 "
                      "(total 6) does not fit"),
    ([0, 0], 0, 2, "a budget of 0 holds messages of 0 tokens: 0 + 0 = 0 <= 0"),
]


def _suffix(sizes: Sequence[int], budget: int, fits: Callable[[int, int], bool]) -> int:
    """Messages counted from the end of ``sizes`` while ``fits(total, budget)`` holds."""
    total = count = 0
    for size in reversed(sizes):
        if not fits(total + size, budget):
            break
        total, count = total + size, count + 1
    return count


def _stop_when_full(sizes: Sequence[int], budget: int, first: bool = True) -> int:
    """The wrong answer that stops as soon as the total reaches the budget.

    ``first``: test before taking a message (so a budget of 0 holds nothing), else
    after it (stop once the remainder is 0, having taken at least one message).
    """
    total = count = 0
    for size in reversed(sizes):
        if (first and total >= budget) or total + size > budget:
            break
        total, count = total + size, count + 1
        if not first and total == budget:
            break
    return count


def _stop_at_empty(sizes: Sequence[int], budget: int) -> int:
    """The wrong answer that treats a message of 0 tokens as the end of the history."""
    total = count = 0
    for size in reversed(sizes):
        if size == 0 or total + size > budget:
            break
        total, count = total + size, count + 1
    return count


def _greedy(sizes: Sequence[int], budget: int) -> int:
    """The wrong answer that skips a message too big and keeps counting older ones."""
    total = count = 0
    for size in reversed(sizes):
        if total + size <= budget:
            total, count = total + size, count + 1
    return count


_FULL_HINT = ("do not stop when the total reaches the budget: a message of 0 tokens still "
              "fits (total + 0 <= budget). Stop only at a message with total + size > budget")

# Typical wrong answers, each with the hint it earns when it explains every case.
_BUDGET_MISTAKES = [
    (lambda s, b: _suffix(s, b, lambda t, bb: t < bb),
     "a total equal to the budget fits: compare with <=, not <"),
    (_greedy, "the kept messages must be contiguous: stop at the first message that does "
              "not fit instead of skipping it to count older ones"),
    (lambda s, b: _suffix(s[::-1], b, lambda t, bb: t <= bb),
     "count from the newest message (the end of the list), not the oldest"),
    (_stop_when_full, _FULL_HINT),
    (lambda s, b: _stop_when_full(s, b, first=False), _FULL_HINT),
    (lambda s, b: 0 if b <= 0 else _suffix(s, b, lambda t, bb: t <= bb),
     "a budget of 0 is valid and holds messages of 0 tokens: drop the special case for "
     "budget 0, the loop already gives the right answer"),
    (_stop_at_empty,
     "a message of 0 tokens (an empty message) is part of the history and fits any "
     "budget: do not treat size 0 as the end"),
]


def _budget_hint(fit_budget: Callable) -> str:
    """Name the mistake whose answers match all of the learner's answers, if one does."""
    got = []
    for sizes, budget, _, _ in _BUDGET_CASES:
        try:
            got.append(fit_budget(list(sizes), budget))
        except Exception:                # the failing case already says enough
            got.append(None)
    for mistake, hint in _BUDGET_MISTAKES:
        if got == [mistake(sizes, budget) for sizes, budget, _, _ in _BUDGET_CASES]:
            return hint
    return ("walk from the end, add sizes while the total stays <= budget, count them, "
            "and stop at the first message that does not fit")


def check_fit_budget(fit_budget: Callable[[list[int], int], int]) -> None:
    """Check ``fit_budget(sizes, budget)``; print one pass line or raise CheckFailed.

    Rejects: ``<`` instead of ``<=`` (exact fits), skipping a big message to fit older
    small ones (not contiguous), counting from the oldest message, mutating ``sizes``,
    and returning something other than an int. Messages of 0 tokens always fit, even
    in a budget of 0 (a valid budget): stopping once the total reaches the budget,
    returning 0 for a budget of 0, or stopping at a size-0 message are rejected.
    """
    for sizes, budget, want, why in _BUDGET_CASES:
        got = call_pure(fit_budget, sizes, budget, name="fit_budget")
        expect(isinstance(got, int) and not isinstance(got, bool),
               f"fit_budget should return an int (a number of messages), got "
               f"{type(got).__name__}: {got!r:.80}")
        if got != want:
            raise CheckFailed(f"fit_budget({sizes}, budget={budget}) should return {want}, "
                              f"got {got}. Why: {why}. Hint: {_budget_hint(fit_budget)}.")
    passed("fit_budget", len(_BUDGET_CASES))
