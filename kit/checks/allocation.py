"""Checker for lesson 09 (how good is your memory?): a tiny token-budget allocator.

:func:`check_fit_parts` checks the exercise ``fit_parts(parts, budget)``:

- ``parts``: a list of dicts ``{"name": str, "sizes": [int, ...], "priority": int,
  "minimum": int}``: the items of one part of a prompt (turns, a summary, the question)
  with their sizes in tokens, most wanted first; higher ``priority`` is filled first;
  the first ``minimum`` items are protected.
- ``budget``: int >= 0, tokens (ValueError naming it when negative).

Rules, as :func:`kit.memory.budget.allocate` applies them (without caps, headers or
windows): (1) every protected item goes in first, whatever the budget, and counts
against it (if they alone exceed it, nothing else goes in); (2) then the parts by
priority, highest first, ties in the order given; within a part the items in order: an
item goes in if it fits in what is left (``used + size <= budget``), else it is cut and
the next, smaller item may still fit. Return ``{name: [indices given, ascending]}`` for
every part; do not change ``parts``.

The checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from kit.checks import CheckFailed, call_pure, expect, passed
from kit.memory.budget import Part, allocate

__all__ = ["check_fit_parts", "reference_fit", "part"]


def part(name: str, sizes: list[int], priority: int = 0, minimum: int = 0) -> dict:
    """One part as the exercise takes it."""
    return {"name": name, "sizes": list(sizes), "priority": priority, "minimum": minimum}


def reference_fit(parts: list[dict], budget: int, *, order: str = "priority",
                  protect: bool = True, count_protected: bool = True, stop: bool = False,
                  strict: bool = False, whole_budget: bool = False) -> dict[str, list[int]]:
    """The right answer (defaults), or one typical mistake: ``order`` "ascending" (lowest
    priority first), "given" (priority ignored) or "reversed-ties" (sorted then reversed);
    ``protect=False`` (minimum ignored); ``count_protected=False`` (protected items not
    charged); ``stop`` (a part stops at its first item that does not fit); ``strict``
    (``<`` instead of ``<=``); ``whole_budget`` (an item is compared with the whole budget,
    not with what is left)."""
    given = {p["name"]: [] for p in parts}
    used = 0
    minimum = {p["name"]: (p["minimum"] if protect else 0) for p in parts}
    for p in parts:
        given[p["name"]] += range(minimum[p["name"]])
        if count_protected:
            used += sum(p["sizes"][:minimum[p["name"]]])
    if order == "priority":
        ranked = sorted(parts, key=lambda p: p["priority"], reverse=True)
    elif order == "ascending":
        ranked = sorted(parts, key=lambda p: p["priority"])
    elif order == "reversed-ties":
        ranked = sorted(parts, key=lambda p: p["priority"])[::-1]
    else:
        ranked = list(parts)
    for p in ranked:
        for i in range(minimum[p["name"]], len(p["sizes"])):
            size = p["sizes"][i]
            room = budget if whole_budget else budget - used
            if size < room if strict else size <= room:
                given[p["name"]].append(i)
                used += size
            elif stop:
                break
    return given


_CASES = [
    ([part("recalled", [5, 3, 4], 1)], 20, "everything fits"),
    ([part("recalled", [5, 8, 3], 1)], 9,
     "item 1 (8 tokens) does not fit after item 0; item 2 (3 tokens) still does"),
    ([part("recalled", [4, 6], 1)], 10, "the two items fill the budget exactly (4 + 6 = 10)"),
    ([part("system", [4], 5, 1), part("recalled", [5, 5, 2], 1)], 10,
     "the protected system prompt (4 tokens) uses part of the budget"),
    ([part("system", [12], 5, 1), part("question", [3], 5, 1), part("recalled", [2, 1], 2)], 10,
     "the protected items alone (15 tokens) exceed the budget of 10"),
    ([part("summary", [6], 3), part("recent", [4, 4], 1), part("recalled", [3, 3], 2)], 10,
     "priorities 3, 1, 2: summary first, then recalled, then recent"),
    ([part("recent", [2, 2, 2], 1), part("recalled", [5, 5], 2)], 9,
     "the higher-priority part is listed second"),
    ([part("a", [6], 2), part("b", [6], 2), part("c", [1], 1)], 8,
     "parts a and b tie on priority: a, listed first, goes first"),
    ([part("system", [12], 5, 1), part("question", [8], 5, 1), part("reserve", [100], 5, 1),
      part("summary", [40], 3), part("recalled", [30, 25, 60, 18, 22], 2),
      part("recent", [15, 20, 12, 30], 1, 2)], 300,
     "a recall-memory context: protected system, question, reserve and 2 recent turns"),
    ([part("empty", [], 4), part("recalled", [0, 7], 1)], 0, "a budget of 0, an empty part"),
]

_MISTAKES = [
    ({"count_protected": False}, "protected items count against the budget: start with used = "
                                 "the sum of every part's protected sizes"),
    ({"protect": False}, "the first `minimum` items of a part are protected: they go in "
                         "first, whatever the budget, and are never cut"),
    ({"whole_budget": True}, "compare an item with what is LEFT (budget - used), not with the "
                             "whole budget: the total went over"),
    ({"order": "ascending"}, "fill the highest priority first (sorted(..., reverse=True)): the "
                             "lowest-priority part is the one to cut"),
    ({"order": "given"}, "fill parts by priority, highest first, not in the order listed"),
    ({"order": "reversed-ties"}, "ties keep the order given: sorted(parts, key=..., "
                                 "reverse=True) is stable; sorting then reversing [::-1] "
                                 "swaps tied parts"),
    ({"stop": True}, "an item that does not fit is cut, then keep going: the next, smaller "
                     "item may still fit (continue, not break)"),
    ({"strict": True}, "an item that fits exactly goes in: used + size <= budget"),
]


def _same(got: object, want: dict[str, list[int]]) -> bool:
    if not isinstance(got, dict) or set(got) != set(want):
        return False
    return all(isinstance(got[k], (list, tuple)) and list(got[k]) == v for k, v in want.items())


def _hint(got: object, parts: list[dict], budget: int) -> str:
    want = reference_fit(parts, budget)
    for options, hint in _MISTAKES:
        wrong = reference_fit(parts, budget, **options)
        if wrong != want and _same(got, wrong):
            return hint
    if isinstance(got, dict) and set(got) != set(want):
        return f"return a key for every part, even one that got nothing: {sorted(want)}"
    if isinstance(got, dict) and all(isinstance(v, (list, tuple)) for v in got.values()) and \
            {k: sorted(v) for k, v in got.items()} == want:
        return "list each part's indices in ascending order (the part's own order)"
    return ("protected items first (charged); then parts by priority, highest first; an item "
            "goes in when used + size <= budget; return the indices, not the sizes")


def _show(parts: list[dict]) -> str:
    return ", ".join(f"{p['name']} {p['sizes']} prio {p['priority']}"
                     + (f" min {p['minimum']}" if p["minimum"] else "") for p in parts)


def check_fit_parts(fit_parts: Callable) -> None:
    """Check ``fit_parts(parts, budget)``; print one pass line or raise CheckFailed.

    Rejects: going over the budget (protected items not charged, items compared with the
    whole budget), cutting protected items, filling a lower priority first or ignoring
    priority, reversing ties, stopping at the first item that does not fit, ``<`` for
    ``<=``, changing the input (sorting ``parts`` in place), accepting a negative budget.
    Then compares with :func:`kit.memory.budget.allocate` on 40 seeded random cases.
    """
    cases = 0
    for parts, budget, why in _CASES:
        label = f"fit_parts([{_show(parts)}], budget={budget})"
        got = call_pure(fit_parts, parts, budget, name="fit_parts", shown=label)
        want = reference_fit(parts, budget)
        expect(_same(got, want), f"{label} should be {want}, got {got!r:.200} ({why}). "
                                 f"Hint: {_hint(got, parts, budget)}.")
        cases += 1
    parts = [part("recalled", [1], 1)]
    label = "fit_parts([recalled [1] prio 1], budget=-1)"
    try:
        got = call_pure(fit_parts, parts, -1, name="fit_parts", shown=label,
                        expected=(ValueError,))
    except ValueError:
        cases += 1
    else:
        raise CheckFailed(f"{label} returned {got!r:.100} instead of raising ValueError: a "
                          f"negative budget is a bug upstream, say so with "
                          f"ValueError(f\"budget must be >= 0, got {{budget}}\").")
    rng = random.Random(9)
    for n in range(40):
        parts = [part(f"p{j}", [rng.randint(0, 30) for _ in range(rng.randint(0, 5))],
                      rng.randint(0, 3)) for j in range(rng.randint(1, 4))]
        for p in parts:
            p["minimum"] = rng.randint(0, min(1, len(p["sizes"])))
        budget = rng.randint(0, 120)
        kit = allocate(budget, [Part(p["name"], tuple(p["sizes"]), p["priority"], p["minimum"])
                                for p in parts])
        want = {p["name"]: list(kit.given(p["name"])) for p in parts}
        label = f"fit_parts([{_show(parts)}], budget={budget}) (random case {n})"
        got = call_pure(fit_parts, parts, budget, name="fit_parts", shown=label)
        expect(_same(got, want), f"{label} should be {want} (as kit.memory.allocate decides), "
                                 f"got {got!r:.200}. Hint: {_hint(got, parts, budget)}.")
        cases += 1
    passed("fit_parts", cases)
