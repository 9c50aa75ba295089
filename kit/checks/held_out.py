"""Checker for lesson 09's exercise 3 (overfitting a memory to a benchmark): choose a
setting on some conversations, report it on the one left out.

:func:`check_leave_one_out` checks the exercise ``leave_one_out(scores)``:

- ``scores``: ``{setting: [score on conversation 0, 1, ...]}``, in the order the
  settings are preferred (the default first), every list of the same length (at least
  2 conversations);
- for each conversation ``i``: the setting with the best **mean over the other
  conversations** (ties: the setting listed first), and that setting's score **on
  conversation i**;
- return ``[(chosen, held-out score), ...]``, one pair per conversation, in order; raise
  ValueError for fewer than 2 conversations or lists of different lengths; do not change
  ``scores``.

The kit's own :func:`kit.ablation.leave_one_out` is the reference; the wrong answers it
tells apart are registered in :mod:`kit.mistakes.held_out`. Prints one pass line
(:func:`kit.checks.passed`) or raises :class:`kit.checks.CheckFailed` naming the case
and the likely mistake.
"""
from __future__ import annotations

import math
import numbers
import random
from collections.abc import Callable

from kit.checks import CheckFailed, call_pure, expect, passed

__all__ = ["check_leave_one_out"]

MECHANISM = "leave-one-out"

# (scores, why): each case tells the typical mistakes from the right answer
_CASES = [
    ({"split": [0.8125, 0.875], "direct only": [0.84375, 0.8125],
      "every part": [0.6875, 0.9375]},
     "two conversations: each fold is chosen on the other one alone"),
    ({"default": [0.5, 0.625, 0.75], "other": [0.625, 0.5, 0.75]},
     "three conversations; on the last fold the two settings tie on the others"),
    ({"a": [0.875, 0.125, 0.5, 0.5], "b": [0.375, 0.625, 0.625, 0.375],
      "c": [0.5, 0.5, 0.125, 0.875]},
     "four conversations, a different setting wins each fold"),
    ({"only": [0.25, 0.75]}, "one setting: it is chosen every time"),
    ({"split": [0.5, 0.75, 0.25], "direct only": [0.75, 0.5, 0.25]},
     "a tie on the last fold between settings not listed in alphabetical order: the "
     "first listed, 'split', stays"),
]


def _same(got: object, want: list[tuple[str, float]]) -> bool:
    if not isinstance(got, (list, tuple)) or len(got) != len(want):
        return False
    for pair, (setting, score) in zip(got, want):
        if (not isinstance(pair, (list, tuple)) or len(pair) != 2 or pair[0] != setting
                or isinstance(pair[1], bool) or not isinstance(pair[1], numbers.Real)
                or not math.isclose(float(pair[1]), score, abs_tol=1e-9)):
            return False
    return True


def _hint(got: object, scores: dict) -> str:
    from kit.ablation import leave_one_out
    from kit.mistakes import mistakes
    want = leave_one_out(scores)
    for wrong in mistakes(MECHANISM):
        try:
            theirs = wrong.answer(scores)
        except ValueError:
            continue
        if not _same(theirs, want) and _same(got, theirs):
            return f"{wrong.hint}: {wrong.why}"
    return ("for each conversation i, rank the settings by the mean of their scores on the "
            "other conversations only (a tie keeps the first listed), then report the chosen "
            "setting's score on i")


def _random_cases(seed: int = 9, count: int = 12) -> list[dict]:
    """Score tables with ties (scores in steps of 1/16, so every sum is exact in floating
    point and a tie is a tie however the mean is computed), 2 to 5 conversations."""
    rng = random.Random(seed)
    return [{f"s{k}": [rng.randint(0, 16) / 16 for _ in range(n)]
             for k in range(rng.randint(1, 4))}
            for n in [rng.randint(2, 5) for _ in range(count)]]


def check_leave_one_out(leave_one_out: Callable) -> None:
    """Check ``leave_one_out(scores)``; print one pass line or raise CheckFailed.

    Rejects: choosing with the held-out conversation included, choosing on the held-out
    conversation itself, breaking ties by the last setting, reporting the tuning score,
    accepting lists of different lengths or a single conversation, changing the input.
    Then compares with :func:`kit.ablation.leave_one_out` on random score tables.
    """
    from kit.ablation import leave_one_out as reference
    cases = 0
    for scores, why in _CASES + [(s, "a random score table") for s in _random_cases()]:
        label = f"leave_one_out({scores!r})"
        got = call_pure(leave_one_out, scores, name="leave_one_out", shown=label[:200])
        want = reference(scores)
        expect(_same(got, want), f"{label[:200]} should be {want}, got {got!r:.200} ({why}). "
                                 f"Hint: {_hint(got, scores)}.")
        cases += 1
    for bad, why in (({"a": [0.5, 0.625], "b": [0.75]}, "lists of different lengths"),
                     ({"a": [0.5, 0.625], "b": [0.75, 0.5, 0.25]},
                      "lists of different lengths (a longer one after the first)"),
                     ({"a": [0.5], "b": [0.75]}, "a single conversation: nothing to hold out")):
        label = f"leave_one_out({bad!r})"
        hint = ("raise ValueError when the settings' score lists differ in length"
                if "lengths" in why else "raise ValueError for fewer than 2 conversations")
        try:
            got = call_pure(leave_one_out, bad, name="leave_one_out", shown=label,
                            expected=(ValueError,), hint=hint)
        except ValueError:
            cases += 1
            continue
        raise CheckFailed(f"{label} returned {got!r:.120} instead of raising ValueError "
                          f"({why}). Hint: {hint}.")
    passed("leave_one_out", cases)
