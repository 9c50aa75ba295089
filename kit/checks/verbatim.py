"""Checker for lesson 06 (long-term memory), exercise 1: which turns stay verbatim.

:func:`check_split_by_char_budget`: the exercise ``split_by_char_budget(turn_texts,
budget_chars, separator_chars)``. ``turn_texts`` is a list of str, the rendered
turns oldest first; ``budget_chars`` (int >= 0) and ``separator_chars`` (int >= 0,
the characters between two neighbouring verbatim turns: 2 for a blank line) are in
characters. Return ``(overflow, verbatim)``, two *new* lists with ``overflow +
verbatim == turn_texts``: ``verbatim`` is the longest run of *newest* turns whose
size ``sum(len(t)) + separator_chars * (len(verbatim) - 1)`` is at most
``budget_chars``. Walk newest first and stop at the first turn that does not fit
(never skip it to keep an older one). A newest turn that alone is over the budget
goes to ``overflow`` like the rest (it is summarised, never dropped). Same rule as
:func:`kit.longterm.build_interview_context`. The input must not change.

The checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from kit.checks import call_learner, call_pure, expect, passed
from kit.longterm import build_interview_context, render_turn, sample_sessions

__all__ = ["check_split_by_char_budget"]

SEPARATOR = "\n\n"            # what build_interview_context puts between verbatim turns
# budgets (characters) for the comparison with build_interview_context on session s1: around
# the turn sizes (499 newest, 1828 for turns 3-6, 2208 for turns 2-6)
S1_BUDGETS = (300, 499, 1000, 1827, 1828, 2200, 2207, 2208, 3000)


def _size(texts: list[str], sep: int) -> int:
    return sum(len(t) for t in texts) + sep * max(len(texts) - 1, 0)


def _split(texts: list[str], budget: int, sep: int) -> tuple[list[str], list[str]]:
    """The reference: newest first, stop at the first turn that does not fit."""
    used, kept = 0, 0
    for text in reversed(texts):
        cost = len(text) + (sep if kept else 0)
        if used + cost > budget:
            break
        used, kept = used + cost, kept + 1
    return texts[:len(texts) - kept], texts[len(texts) - kept:]


def _oldest_first(texts, budget, sep):
    used, kept = 0, 0
    for text in texts:
        cost = len(text) + (sep if kept else 0)
        if used + cost > budget:
            break
        used, kept = used + cost, kept + 1
    return texts[kept:], texts[:kept]


def _skipping(texts, budget, sep):               # `continue` instead of `break`
    used, chosen = 0, []
    for i in range(len(texts) - 1, -1, -1):
        cost = len(texts[i]) + (sep if chosen else 0)
        if used + cost <= budget:
            used += cost
            chosen.insert(0, i)
    return ([t for i, t in enumerate(texts) if i not in chosen], [texts[i] for i in chosen])


def _strict(texts, budget, sep):                 # `<` where `<=` is meant
    return _split(texts, budget - 1, sep) if budget > 0 else (list(texts), [])


def _sep_per_turn(texts, budget, sep):           # n separators for n turns
    used, kept = 0, 0
    for text in reversed(texts):
        if used + len(text) + sep > budget:
            break
        used, kept = used + len(text) + sep, kept + 1
    return texts[:len(texts) - kept], texts[len(texts) - kept:]


_VARIANTS = (
    (_oldest_first, "you kept the oldest turns that fit. Walk newest first: the turn in "
                    "progress needs word-for-word fidelity, old turns can be summarised"),
    (_skipping, "you skipped a turn that did not fit and went on to keep an older one. "
                "Stop at the first turn that does not fit (break, not continue): verbatim "
                "must be a contiguous run of the newest turns"),
    (_strict, "a run of exactly budget_chars characters fits: compare with <=, not < "
              "(off by one at the budget)"),
    (lambda t, b, s: _split(t, b, 0), "count the separator_chars between neighbouring "
                                      "verbatim turns"),
    (_sep_per_turn, "n verbatim turns have n - 1 separators between them, not n: the "
                    "first turn kept adds no separator"),
)


def _split_hint(got: tuple[list, list], texts: list[str], budget: int, sep: int) -> str:
    """Name the likely mistake behind a wrong (but well-formed) split."""
    overflow, verbatim = got
    want = _split(texts, budget, sep)
    for variant, hint in _VARIANTS:
        if got == variant(texts, budget, sep) != want:
            return hint
    if overflow + verbatim != texts:
        if texts and len(overflow) + len(verbatim) == len(texts) - 1 and texts[-1] not in got[0] + got[1]:
            return ("the newest turn is missing from both lists. A turn too big for the "
                    "budget is not dropped: it goes to overflow, to be summarised, so that "
                    "overflow + verbatim is always every turn")
        if overflow == want[0] and verbatim == want[1][::-1]:
            return "verbatim is newest first: return it oldest first (reverse it back)"
        return ("overflow + verbatim must be every turn, in order: verbatim is a run of "
                "the newest turns and overflow is everything before it")
    if len(verbatim) == 1 and not want[1] and _size(verbatim, sep) > budget:
        return ("the newest turn alone is larger than the budget; keeping it verbatim "
                "breaks the budget. Put it in overflow too (verbatim is empty)")
    if _size(verbatim, sep) > budget:
        return (f"verbatim holds {_size(verbatim, sep)} characters (separators included), "
                f"more than the budget")
    return ("walk newest first, adding len(text) plus separator_chars for every turn "
            "after the first; stop at the first turn that would go over budget_chars")


def _label(texts: list[str], budget: int, sep: int) -> str:
    sizes = ", ".join(str(len(t)) for t in texts) or "none"
    return (f"split_by_char_budget({len(texts)} turns of {sizes} characters, "
            f"budget_chars={budget}, separator_chars={sep})")


def _show(part: list, texts: list[str]) -> str:
    """A part of the result as the 1-based numbers of its turns: "turns [2, 3]"."""
    if not part:
        return "[]"
    if all(t in texts for t in part):
        return f"turns {[texts.index(t) + 1 for t in part]}"
    return f"{part!r:.80}"


def _texts(lengths: list[int]) -> list[str]:
    """Distinct texts of the given lengths: "A...", "B...", ..."""
    return [chr(ord("A") + i % 26) * n if n else "" for i, n in enumerate(lengths)]


# (turn lengths in characters, budget_chars, separator_chars, verbatim turns, why)
_SPLIT_CASES = [
    ([5, 7, 3], 20, 2, 3, "5 + 7 + 3 + 2 separators of 2 = 19 <= 20: every turn fits"),
    ([5, 7, 3], 12, 2, 2, "3 + 2 + 7 = 12: a run of exactly the budget fits"),
    ([5, 7, 3], 11, 2, 1, "3 + 2 + 7 = 12 > 11: only the newest turn fits"),
    ([4, 4, 4], 12, 0, 3, "no separators: 4 + 4 + 4 = 12 fits"),
    ([4, 4, 4], 12, 1, 2, "4 + 1 + 4 + 1 + 4 = 14 > 12: the separators count"),
    ([4, 4, 4], 14, 1, 3, "4 + 1 + 4 + 1 + 4 = 14: three turns have two separators"),
    ([3, 3, 8], 8, 0, 1, "the newest turn (8) fills the budget: the two older turns "
                         "are summarised, however small"),
    ([1, 9, 2], 5, 0, 1, "turn 2 (9) does not fit: stop there, even though turn 1 (1) "
                         "would"),
    ([2, 2, 9], 8, 2, 0, "the newest turn alone (9) is over the budget: every turn "
                         "overflows, none is dropped"),
    ([6], 6, 2, 1, "one turn of exactly the budget fits"),
    ([6], 5, 2, 0, "one turn over the budget overflows"),
    ([1, 1], 0, 0, 0, "a budget of 0 keeps nothing verbatim"),
    ([], 10, 2, 0, "no turns: both lists empty"),
]


def _check_one_split(fn: Callable, texts: list[str], budget: int, sep: int, why: str,
                     want: tuple[list[str], list[str]] | None = None) -> None:
    label = _label(texts, budget, sep)
    got = call_pure(fn, texts, budget, sep, name="split_by_char_budget", shown=label)
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    expect(isinstance(got, tuple) and len(got) == 2,
           f"{label} should return a tuple (overflow, verbatim), got {got!r:.100}{missing}")
    expect(all(isinstance(part, list) for part in got),
           f"{label} should return two lists, got {type(got[0]).__name__} and "
           f"{type(got[1]).__name__}")
    want = want or _split(texts, budget, sep)
    expect(got == want,
           f"{label} should return overflow={_show(want[0], texts)}, verbatim="
           f"{_show(want[1], texts)}; got overflow={_show(got[0], texts)}, verbatim="
           f"{_show(got[1], texts)}. Why: {why}. Hint: {_split_hint(got, texts, budget, sep)}.")


def check_split_by_char_budget(split_by_char_budget: Callable[[list[str], int, int],
                                                              tuple[list[str], list[str]]]) -> None:
    """Check ``split_by_char_budget(turn_texts, budget_chars, separator_chars)``; print one
    pass line or raise CheckFailed.

    Rejects: oldest-first selection, ignoring the separators or counting one per turn,
    ``<`` instead of ``<=`` at the budget, skipping a turn that does not fit to keep an
    older one, dropping (or keeping verbatim) a newest turn larger than the budget,
    verbatim returned newest first, mutating the input, and returning the input list
    itself. Also compares with :func:`kit.longterm.build_interview_context` on session
    ``s1`` (its rendered turns, a blank line between them) and with the rule on 200
    random cases.
    """
    cases = 0
    for lengths, budget, sep, _, why in _SPLIT_CASES:
        _check_one_split(split_by_char_budget, _texts(lengths), budget, sep, why)
        cases += 1
    s1 = sample_sessions()[0]
    blocks = [render_turn(t, i) for i, t in enumerate(s1.turns, start=1)]
    for budget in S1_BUDGETS:
        ctx = build_interview_context(s1, budget_chars=budget)
        split = len(ctx.overflow)
        _check_one_split(split_by_char_budget, blocks, budget, len(SEPARATOR),
                         f"build_interview_context keeps turns {list(ctx.verbatim_numbers)} "
                         f"of session s1 verbatim", (blocks[:split], blocks[split:]))
        cases += 1
    rng = random.Random(6)
    for _ in range(200):
        lengths = [rng.randint(1, 9) for _ in range(rng.randint(0, 7))]
        _check_one_split(split_by_char_budget, _texts(lengths), rng.randint(0, 30),
                         rng.randint(0, 3), "the same rule as build_interview_context")
        cases += 1
    for lengths, budget in (([2, 2], 100), ([2, 2], 0), ([], 5)):
        texts = _texts(lengths)
        label = _label(texts, budget, 2)
        # No copy here: the check is about the identity of the list passed in.
        got = call_learner(split_by_char_budget, texts, budget, 2,
                           name="split_by_char_budget", shown=label)
        expect(isinstance(got, tuple) and len(got) == 2
               and got[0] is not texts and got[1] is not texts,
               f"{label} returned the input list itself: return new lists (slices), so "
               f"that a later change to one cannot change the other")
        cases += 1
    passed("split_by_char_budget", cases)
