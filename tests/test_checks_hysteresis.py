"""The lesson-04 fold_until checker accepts the right answer and rejects the typical wrong
ones; its reference is the kit's own rule."""
from __future__ import annotations

import random

import pytest

from kit.checks.hysteresis import check_fold_until, fold_reference
from kit.memory import RobustSummaryMemory
from kit.messages import Message


# -- fold_until(turns, size, budget, target, keep_recent) ---------------------------------
def fold_until(turns, size, budget, target, keep_recent):
    if size <= budget:
        return 0
    limit = max(len(turns) - keep_recent, 0)
    while 0 < limit < len(turns) and turns[limit][0] == "assistant":
        limit -= 1
    n = 0
    while n < limit and size > target:
        size -= turns[n][1]
        n += 1
    while n < limit and turns[n][0] == "assistant":
        n += 1
    return n


def variant(**flags):
    def wrong(turns, size, budget, target, keep_recent):
        return fold_reference(turns, size, budget, target, keep_recent, **flags)
    return wrong


def ignores_target(turns, size, budget, target, keep_recent):
    return fold_until(turns, size, budget, 0, keep_recent)


def sums_the_turns(turns, size, budget, target, keep_recent):
    return fold_until(turns, sum(t for _, t in turns), budget, target, keep_recent)


def mutating(turns, size, budget, target, keep_recent):
    n = fold_until(turns, size, budget, target, keep_recent)
    del turns[:n]
    return n


def returns_the_turns(turns, size, budget, target, keep_recent):
    return turns[:fold_until(turns, size, budget, target, keep_recent)]


def always_folds(turns, size, budget, target, keep_recent):
    return fold_until(turns, max(size, budget + 1), budget, target, keep_recent)


def test_fold_until_right_answer_passes(passes):
    passes(check_fold_until, fold_until, "fold_until")


@pytest.mark.parametrize("wrong, hints", [
    (variant(over=">="), ["size == budget is not over budget"]),
    (variant(down_to="budget"), ["fold only down to the budget", "on every turn"]),
    (variant(strict=True), ["off by one at the boundary"]),
    (variant(extend=False), ["between a question and its reply"]),
    (variant(move_back=False), ["would start with a reply"]),
    (variant(cap=False), ["newest keep_recent turns"]),
    (ignores_target, ["whatever the target"]),
    (sums_the_turns, ["use the size you are given"]),
    (always_folds, ["is not over the budget"]),
    (mutating, ["changed its input in place"]),
    (returns_the_turns, ["should return an int"]),
])
def test_fold_until_wrong_answers_are_rejected(rejects, wrong, hints):
    rejects(check_fold_until, wrong, *hints)


def kit_fold(turns, size, budget, target, keep_recent):
    """What RobustSummaryMemory (OverBudget with a target) plans for the same numbers."""
    sizes = {f"t{i}": tokens for i, (_, tokens) in enumerate(turns)}
    memory = RobustSummaryMemory(lambda prompt: "summary", budget=max(budget, 1),
                           keep_recent=keep_recent, target=target, fold_budget=10**9,
                           measure=lambda text: sizes.get(text, 0))
    for i, (role, _) in enumerate(turns):
        memory.turns.append(Message(role, f"t{i}", sizes[f"t{i}"], i + 1))
    memory.turn_tokens = sum(sizes.values())
    memory.summary_tokens = size - memory.turn_tokens
    plan = memory.plan_compaction()
    return len(plan[0]) if plan else 0


def test_the_reference_is_the_kit_rule():
    rng = random.Random(11)
    checked = 0
    for _ in range(500):
        turns = [(rng.choice(("user", "assistant")), rng.randint(1, 30))
                 for _ in range(rng.randint(1, 10))]
        turns[0] = ("user", turns[0][1])
        budget = rng.randint(20, 150)
        target = rng.randint(0, budget)
        size = sum(t for _, t in turns) + rng.randint(0, 60)
        keep_recent = rng.choice((0, 2, 4))
        want = fold_reference(turns, size, budget, target, keep_recent)
        assert kit_fold(turns, size, budget, target, keep_recent) == want
        checked += want > 0
    assert checked > 100          # most cases fold something
