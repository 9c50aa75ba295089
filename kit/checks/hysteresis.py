"""Checker for lesson 04, exercise 2 (robust summary memory): how far to fold, with
hysteresis between the token budget and a lower target.

:func:`check_fold_until` checks ``fold_until(turns, size, budget, target,
keep_recent)``. ``turns``: list of ``(role, tokens)`` pairs, the verbatim turns,
oldest first; ``size``: the whole context in tokens (system prompt + summary +
turns); ``budget`` and ``target``: ints, ``0 <= target <= budget``; ``keep_recent``:
int >= 0. Returns how many of the oldest turns to fold: 0 unless ``size > budget``;
else the fewest oldest turns whose tokens bring ``size`` to ``target`` or below,
never more than the foldable ones (all but the newest ``keep_recent``, the split
moved back while it lands on an assistant turn, as in
:func:`~kit.memory.split_for_compaction`), and if the next turn is a reply it is
folded too (a question never leaves without its replies). Same rule as
:class:`kit.memory.OverBudget` with a ``target`` inside :class:`kit.memory.RobustSummaryMemory`.

:func:`fold_reference` is the answer, and with its flags the typical wrong ones. The
checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake. Exercise 1 (a
compaction with a fallback) is in :mod:`kit.checks.fallback`.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from kit.checks import call_pure, expect, passed

__all__ = ["check_fold_until", "fold_reference"]


Sized = list[tuple[str, int]]


def fold_reference(turns: Sized, size: int, budget: int, target: int, keep_recent: int, *,
                   down_to: str = "target", strict: bool = False, over: str = ">",
                   extend: bool = True, move_back: bool = True, cap: bool = True) -> int:
    """The answer to exercise 2, and (with the keyword flags) the typical wrong ones.

    ``down_to="budget"``: folds only to the budget; ``strict``: stops at ``<`` instead of
    ``<=``; ``over=">="``: fires at ``size == budget``; ``extend=False``: leaves a reply
    without its question; ``move_back=False``: the keep_recent split may land on a
    reply; ``cap=False``: ignores keep_recent.
    """
    fires = size >= budget if over == ">=" else size > budget
    if not fires:
        return 0
    limit = max(len(turns) - keep_recent, 0) if cap else len(turns)
    while move_back and 0 < limit < len(turns) and turns[limit][0] == "assistant":
        limit -= 1
    goal = budget if down_to == "budget" else target
    n, left = 0, size
    while n < limit and (left >= goal if strict else left > goal):
        left -= turns[n][1]
        n += 1
    while extend and n < limit and turns[n][0] == "assistant":
        n += 1
    return n


def _sized(spec: str) -> Sized:
    """"u10 a10 u5" -> [("user", 10), ("assistant", 10), ("user", 5)]."""
    names = {"u": "user", "a": "assistant"}
    return [(names[item[0]], int(item[1:])) for item in spec.split()]


_EIGHT = "u10 a10 u10 a10 u10 a10 u10 a10"          # 80 tokens of turns
_FOLD_CASES = [
    # (turns, size, budget, target, keep_recent, why)
    (_EIGHT, 100, 120, 90, 2, "under budget: no compaction, even above the target"),
    (_EIGHT, 120, 120, 90, 2, "size == budget is not over budget: no compaction"),
    (_EIGHT, 130, 120, 110, 2, "exactly at the target after 2 turns: 110 <= 110, stop there"),
    (_EIGHT, 130, 120, 90, 2, "40 over the target: fold turns 1-4 (40 tokens)"),
    (_EIGHT, 130, 120, 120, 2, "target == budget: fold one turn, and its reply with it"),
    (_EIGHT, 130, 120, 60, 2, "the target wants 7 turns, but keep_recent=2 allows 6"),
    (_EIGHT, 130, 120, 0, 0, "target 0, keep_recent=0: fold everything"),
    ("u5 a20 u5 a20 u5 a20 u5 a20", 130, 120, 104, 2,
     "3 turns reach the target, but the 4th is their reply: fold 4"),
    ("u10 a10 a10 u10 a10 u10 a10", 140, 120, 125, 2,
     "two replies in a row follow the question: fold both with it"),
    ("u10 a10 u10 a10 u10", 125, 120, 90, 2,
     "keep_recent=2 would start the verbatim part at a reply: the foldable part is 1-2"),
    ("u10 a10 u10 a10 a10 u10", 150, 120, 60, 2,
     "keep_recent=2 lands on two replies in a row: the split moves back twice, to 1-2"),
    ("u10 a10", 200, 120, 60, 2, "keep_recent covers every turn: nothing can be folded"),
    ("u10 a10 u10 a10", 170, 120, 100, 0,
     "the size includes a large summary: 70 over the target, but the turns hold 40"),
    ("u30 a5 u5 a5 u5 a5", 121, 120, 100, 2, "one large turn is enough, plus its reply"),
]


def _fold_label(turns: Sized, size: int, budget: int, target: int, keep_recent: int) -> str:
    shown = " ".join(f"{role[0]}{tokens}" for role, tokens in turns)
    return (f"fold_until([{shown}], size={size}, budget={budget}, target={target}, "
            f"keep_recent={keep_recent})")


_WRONG = [  # (flags, hint)
    ({"over": ">="}, "size == budget is not over budget: fire only when size > budget"),
    ({"down_to": "budget"}, "you fold only down to the budget, so the next message puts the "
                            "memory over again and it compacts on every turn. Fold down to "
                            "the target: the gap between them is the hysteresis"),
    ({"strict": True}, "off by one at the boundary: stop as soon as size - folded <= target "
                       "(reaching the target exactly is enough)"),
    ({"extend": False}, "the fold ends between a question and its reply: while the next turn "
                        "is an assistant turn (and still foldable), fold it too"),
    ({"move_back": False}, "the verbatim part would start with a reply: the foldable part "
                           "ends where kit.memory.split_for_compaction puts the split (moved "
                           "back while it lands on an assistant turn)"),
    ({"cap": False}, "you folded into the newest keep_recent turns: at most len(turns) - "
                     "keep_recent turns may go (moved back to a question)"),
]


def _fold_hint(got: object, turns: Sized, args: tuple) -> str:
    size, budget, target, keep_recent = args
    if size <= budget and got != 0:
        return f"size {size} is not over the budget {budget}: no compaction, return 0"
    if got == fold_reference(turns, sum(t for _, t in turns), budget, target, keep_recent):
        return ("use the size you are given: it holds the summary and the system prompt "
                "as well as the turns, so the sum of the turns is too small")
    for flags, hint in _WRONG:
        if got == fold_reference(turns, *args, **flags):
            return hint
    if got == fold_reference(turns, size, 0, 0, keep_recent):
        return ("you fold every foldable turn whatever the target: fold only the fewest "
                "oldest turns that bring the size to the target or below")
    return ("fold the fewest oldest turns that bring size to the target or below, within "
            "len(turns) - keep_recent (moved back to a question), then fold any reply that "
            "follows")


def _check_fold(fold_until: Callable, turns: Sized, size: int, budget: int, target: int,
                keep_recent: int, why: str) -> None:
    label = _fold_label(turns, size, budget, target, keep_recent)
    got = call_pure(fold_until, turns, size, budget, target, keep_recent, name="fold_until",
                    shown=label)
    want = fold_reference(turns, size, budget, target, keep_recent)
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    expect(isinstance(got, int) and not isinstance(got, bool),
           f"{label} should return an int (how many of the oldest turns to fold), got "
           f"{got!r:.60}{missing}")
    expect(got == want,
           f"{label} should return {want}, got {got} ({why}). Hint: "
           f"{_fold_hint(got, turns, (size, budget, target, keep_recent))}.")


def check_fold_until(fold_until: Callable[[Sized, int, int, int, int], int]) -> None:
    """Check ``fold_until(turns, size, budget, target, keep_recent)``; print one pass line
    or raise CheckFailed.

    Rejects: firing at ``size == budget``, folding only down to the budget (compacts on
    every turn), stopping one turn late at the target, splitting a question from its
    reply, a keep_recent split that lands on a reply, folding into the newest
    ``keep_recent`` turns, ignoring the target (folding everything), using the turns'
    sum instead of ``size``, and mutating ``turns``. Also compares with the reference on
    200 random cases.
    """
    cases = 0
    for spec, size, budget, target, keep_recent, why in _FOLD_CASES:
        _check_fold(fold_until, _sized(spec), size, budget, target, keep_recent, why)
        cases += 1
    rng = random.Random(4)
    for _ in range(200):
        turns = [(rng.choice(("user", "assistant")), rng.randint(1, 30))
                 for _ in range(rng.randint(0, 10))]
        if turns:
            turns[0] = ("user", turns[0][1])
        budget = rng.randint(20, 150)
        target = rng.randint(0, budget)
        size = sum(t for _, t in turns) + rng.randint(0, 60)
        _check_fold(fold_until, turns, size, budget, target, rng.choice((0, 2, 4)),
                    "same rule as kit.memory.OverBudget with a target")
        cases += 1
    passed("fold_until", cases)
