"""The lesson-09 checker of fit_parts accepts right answers and rejects the typical wrong ones."""
from __future__ import annotations

import random

import pytest

from kit.checks.allocation import check_fit_parts, part, reference_fit
from kit.memory.budget import Part, allocate


def fit_parts(parts, budget):
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    given = {p["name"]: list(range(p["minimum"])) for p in parts}
    used = sum(sum(p["sizes"][:p["minimum"]]) for p in parts)
    for p in sorted(parts, key=lambda p: p["priority"], reverse=True):
        for i in range(p["minimum"], len(p["sizes"])):
            if used + p["sizes"][i] <= budget:
                given[p["name"]].append(i)
                used += p["sizes"][i]
    return given


def fit_parts_by_kit(parts, budget):              # right too: the kit's allocator itself
    allocation = allocate(budget, [Part(p["name"], tuple(p["sizes"]), p["priority"], p["minimum"])
                                   for p in parts])
    return {p["name"]: list(allocation.given(p["name"])) for p in parts}


def fit_parts_negative_key(parts, budget):        # right too: sort by -priority, tuples
    if budget < 0:
        raise ValueError(budget)
    left = budget - sum(sum(p["sizes"][:p["minimum"]]) for p in parts)
    given = {p["name"]: tuple(range(p["minimum"])) for p in parts}
    for p in sorted(parts, key=lambda p: -p["priority"]):
        for i, size in enumerate(p["sizes"]):
            if i >= p["minimum"] and size <= left:
                given[p["name"]] += (i,)
                left -= size
    return given


def _wrong(**mistake):
    def answer(parts, budget):
        if budget < 0:
            raise ValueError(budget)
        return reference_fit(parts, budget, **mistake)
    return answer


def fit_parts_sorts_in_place(parts, budget):
    if budget < 0:
        raise ValueError(budget)
    parts.sort(key=lambda p: p["priority"], reverse=True)
    return fit_parts(parts, budget)


def fit_parts_no_budget_check(parts, budget):
    return fit_parts(parts, budget) if budget >= 0 else {p["name"]: [] for p in parts}


def fit_parts_sizes(parts, budget):               # returns the sizes, not the indices
    return {name: [next(p for p in parts if p["name"] == name)["sizes"][i] for i in given]
            for name, given in fit_parts(parts, budget).items()}


def fit_parts_skips_empty(parts, budget):
    return {k: v for k, v in fit_parts(parts, budget).items() if v}


def fit_parts_stub(parts, budget):
    raise NotImplementedError("Exercise: write your answer here")


@pytest.mark.parametrize("right", [fit_parts, fit_parts_by_kit, fit_parts_negative_key])
def test_right_answers_pass(right, passes):
    passes(check_fit_parts, right, "fit_parts")


@pytest.mark.parametrize("wrong, hint", [
    (_wrong(count_protected=False), "protected items count against the budget"),
    (_wrong(protect=False), "are protected"),
    (_wrong(whole_budget=True), "compare an item with what is LEFT"),
    (_wrong(order="ascending"), "fill the highest priority first"),
    (_wrong(order="given"), "fill parts by priority"),
    (_wrong(order="reversed-ties"), "ties keep the order given"),
    (_wrong(stop=True), "continue, not break"),
    (_wrong(strict=True), "used + size <= budget"),
    (fit_parts_sizes, "return the indices, not the sizes"),
    (fit_parts_skips_empty, "return a key for every part"),
])
def test_typical_mistakes_are_named(wrong, hint, rejects):
    rejects(check_fit_parts, wrong, hint)


def test_sorting_the_input_in_place_is_rejected(rejects):
    rejects(check_fit_parts, fit_parts_sorts_in_place, "changed its input in place")


def test_a_negative_budget_must_raise(rejects):
    rejects(check_fit_parts, fit_parts_no_budget_check, "budget=-1", "ValueError")


def test_the_stub_is_rejected(rejects):
    rejects(check_fit_parts, fit_parts_stub, "not written yet")


def test_the_reference_agrees_with_the_kit_allocator():
    rng = random.Random(3)
    for _ in range(500):
        parts = [part(f"p{j}", [rng.randint(0, 30) for _ in range(rng.randint(0, 6))],
                      rng.randint(0, 3)) for j in range(rng.randint(1, 5))]
        for p in parts:
            p["minimum"] = rng.randint(0, min(2, len(p["sizes"])))
        budget = rng.randint(0, 150)
        assert reference_fit(parts, budget) == fit_parts_by_kit(parts, budget)


def test_reference_on_a_hand_computed_case():
    parts = [part("system", [4], 5, 1), part("summary", [6], 3), part("recalled", [5, 9, 2], 2),
             part("recent", [3, 3], 1, 1)]
    # protected 4 + 3 = 7; summary 6 -> 13; recalled 5 -> 18, 9 cut, 2 -> 20; recent 3 cut
    assert reference_fit(parts, 20) == {"system": [0], "summary": [0], "recalled": [0, 2],
                                        "recent": [0]}
    assert reference_fit(parts, 5) == {"system": [0], "summary": [], "recalled": [],
                                       "recent": [0]}
