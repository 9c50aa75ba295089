"""The lesson-05 checkers accept the right answers and reject the typical wrong ones.

kit.checks.batching checks exercise 1 (make_batches), kit.checks.hierarchy exercise 2
(reduce_until_fits).
"""
from __future__ import annotations

import pytest

from kit.checks import CheckFailed, batching, hierarchy
from kit.checks.batching import check_make_batches
from kit.checks.hierarchy import check_reduce_until_fits
from kit.hierarchical import (hierarchical_summary, pack_in_order, plan_batches,
                              reduce_until_fits)


# -- make_batches(sizes, room, batch_size) -----------------------------------------------
def make_batches(sizes, room, batch_size):
    batches, batch, total = [], [], 0
    for i, size in enumerate(sizes):
        if size > room:
            raise ValueError(f"item {i} needs {size} tokens, more than the room of {room}")
        if batch and (len(batch) == batch_size or total + size > room):
            batches.append(batch)
            batch, total = [], 0
        batch.append(i)
        total += size
    if batch:
        batches.append(batch)
    return batches


def make_batches_check_first(sizes, room, batch_size):    # the error before any packing
    for i, size in enumerate(sizes):
        if size > room:
            raise ValueError(f"item {i} is {size} tokens > room {room}")
    return [list(range(a, b)) for a, b in plan_batches(sizes, room, batch_size)]


def make_batches_count_only(sizes, room, batch_size):
    if any(size > room for size in sizes):
        i = next(i for i, s in enumerate(sizes) if s > room)
        raise ValueError(f"item {i} needs {sizes[i]}")
    return [list(range(i, min(i + batch_size, len(sizes))))
            for i in range(0, len(sizes), batch_size)]


def _packer(limit_ok, count_ok):
    def pack(sizes, room, batch_size):
        batches, batch, total = [], [], 0
        for i, size in enumerate(sizes):
            if size > room:
                raise ValueError(f"item {i} needs {size} tokens, more than the room of {room}")
            if batch and (not count_ok(len(batch), batch_size) or not limit_ok(total + size, room)):
                batches.append(batch)
                batch, total = [], 0
            batch.append(i)
            total += size
        if batch:
            batches.append(batch)
        return batches
    return pack


make_batches_strict = _packer(lambda t, r: t < r, lambda n, b: n < b)      # < at the boundary
make_batches_size_only = _packer(lambda t, r: t <= r, lambda n, b: True)   # ignores batch_size
make_batches_one_more = _packer(lambda t, r: t <= r, lambda n, b: n <= b)  # batch_size + 1


def make_batches_drops_oversize(sizes, room, batch_size):
    batches, batch, total = [], [], 0
    for i, size in enumerate(sizes):
        if size > room:
            continue                                     # silently dropped
        if batch and (len(batch) == batch_size or total + size > room):
            batches.append(batch)
            batch, total = [], 0
        batch.append(i)
        total += size
    return batches + ([batch] if batch else [])


def make_batches_oversize_alone(sizes, room, batch_size):  # no check at all
    batches, batch, total = [], [], 0
    for i, size in enumerate(sizes):
        if batch and (len(batch) == batch_size or total + size > room):
            batches.append(batch)
            batch, total = [], 0
        batch.append(i)
        total += size
    return batches + ([batch] if batch else [])


def make_batches_empty_tail(sizes, room, batch_size):     # appends the last batch always
    for i, size in enumerate(sizes):
        if size > room:
            raise ValueError(f"item {i} needs {size} tokens, more than the room of {room}")
    batches, batch, total = [], [], 0
    for i, size in enumerate(sizes):
        if batch and (len(batch) == batch_size or total + size > room):
            batches.append(batch)
            batch, total = [], 0
        batch.append(i)
        total += size
    batches.append(batch)
    return batches


def make_batches_mutating(sizes, room, batch_size):       # consumes the caller's list
    result = make_batches(list(sizes), room, batch_size)
    sizes.clear()
    return result


def make_batches_sorted(sizes, room, batch_size):         # bin packing by size: order lost
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    for i in order:
        if sizes[i] > room:
            raise ValueError(f"item {i} needs {sizes[i]} tokens, more than the room of {room}")
    batches = []
    for i in order:
        for batch in batches:
            if len(batch) < batch_size and sum(sizes[j] for j in batch) + sizes[i] <= room:
                batch.append(i)
                break
        else:
            batches.append([i])
    return batches


def make_batches_vague_error(sizes, room, batch_size):
    if any(size > room for size in sizes):
        raise ValueError("an item is too large")
    return make_batches(sizes, room, batch_size)


def make_batches_index_error(sizes, room, batch_size):
    if any(size > room for size in sizes):
        raise IndexError("too big")
    return make_batches(sizes, room, batch_size)


def make_batches_ranges(sizes, room, batch_size):
    return plan_batches(sizes, room, batch_size)


def make_batches_rejects_equal(sizes, room, batch_size):  # >= instead of > for the error
    for i, size in enumerate(sizes):
        if size >= room:
            raise ValueError(f"item {i} needs {size} tokens, more than the room of {room}")
    return make_batches(sizes, room, batch_size)


def make_batches_stub(sizes, room, batch_size):
    raise NotImplementedError("Exercise: write your answer here")


@pytest.mark.parametrize("answer", [make_batches, make_batches_check_first])
def test_make_batches_right_answers_pass(answer, passes):
    passes(check_make_batches, answer, "make_batches")


@pytest.mark.parametrize("wrong, hints", [
    (make_batches_count_only, ["make_batches([5, 3, 4, 6, 2, 8], room=10, batch_size=10) should "
                               "return [[0, 1], [2, 3], [4, 5]]", "only by count"]),
    (make_batches_strict, ["should return [[0, 1], [2, 3], [4, 5]]", "compare with <=",
                           "off by one at the boundary"]),
    (make_batches_size_only, ["make_batches([1, 1, 1, 1, 1, 1, 1], room=100, batch_size=3)",
                              "batch_size is a limit too"]),
    (make_batches_one_more, ["up to 4 items, not batch_size=3: off by one in the count"]),
    (make_batches_drops_oversize, ["make_batches([3, 5, 17, 2], room=10, batch_size=3) returned "
                                   "[[0, 1, 3]], without item 2", "dropping it silently"]),
    (make_batches_oversize_alone, ["make_batches([3, 5, 17, 2], room=10, batch_size=3) returned "
                                   "[[0, 1], [2], [3]]", "not even alone",
                                   "Raise ValueError naming the item"]),
    (make_batches_empty_tail, ["make_batches([], room=10, batch_size=3) returned an empty batch",
                               "empty trailing batch"]),
    (make_batches_mutating, ["changed its input in place"]),
    (make_batches_sorted, ["in the original order"]),
    (make_batches_vague_error, ["raised ValueError('an item is too large')",
                                "its index 2 and its size 17"]),
    (make_batches_index_error, ["raised IndexError: too big", "raise ValueError for it"]),
    (make_batches_ranges, ["lists of item indices", "not sizes or ranges"]),
    (make_batches_rejects_equal, ["make_batches([10], room=10, batch_size=3) raised ValueError",
                                  "an item exactly as large as room fits"]),
    (make_batches_stub, ["not written yet"]),
])
def test_make_batches_wrong_answers_fail_with_hint(wrong, hints, rejects):
    rejects(check_make_batches, wrong, *hints)


def test_make_batches_cases_agree_with_kit():
    for sizes, room, batch_size, want, _ in batching._BATCH_CASES:
        assert [list(range(a, b)) for a, b in plan_batches(sizes, room, batch_size)] == want
    for sizes, room, batch_size, bad in batching._OVERSIZE_CASES:
        with pytest.raises(ValueError, match=f"entry {bad} needs {sizes[bad]}"):
            plan_batches(sizes, room, batch_size)


def test_make_batches_cases_cover_the_traps():
    cases = batching._BATCH_CASES
    assert any(sum(sizes[i] for i in want[0]) == room for sizes, room, _, want, _ in cases)
    assert any(len(want[0]) == bs and sum(sizes) < room for sizes, room, bs, want, _ in cases)
    assert any(0 in sizes for sizes, *_ in cases) and any(not sizes for sizes, *_ in cases)
    assert {bad for _, _, _, bad in batching._OVERSIZE_CASES} >= {0, 2}


# -- reduce_until_fits(summaries, summarise_batch, fits, max_rounds) ---------------------
# The right answer is the kit's own loop, kit.hierarchical.reduce_until_fits (the lesson's
# exercise 2 solution is the same lines); the wrong answers below pack with the kit's
# pack_in_order where packing is not their mistake.
def _round(batches, summarise_batch):
    """Merge each batch of two or more with one call; carry a batch of one up."""
    return [batch[0] if len(batch) == 1 else summarise_batch(batch) for batch in batches]


def reduce_while_loop(summaries, summarise_batch, fits, max_rounds):  # another right answer
    level, rounds = list(summaries), 0
    while len(level) > 1 and rounds < max_rounds:
        batches, batch = [], []
        for summary in level:
            if batch and not fits(batch + [summary]):
                batches.append(batch)
                batch = []
            batch.append(summary)
        batches.append(batch)
        if len(batches) == len(level):
            break
        level = _round(batches, summarise_batch)
        rounds += 1
    return level


def reduce_checks_after_the_round(summaries, summarise_batch, fits, max_rounds):
    # right too: a round that merges nothing carries every summary, so it made no call
    level = list(summaries)
    for _ in range(max_rounds):
        new = _round(pack_in_order(level, fits), summarise_batch) if len(level) > 1 else level
        if len(new) == len(level):
            break
        level = new
    return level


def reduce_summarises_singletons(summaries, summarise_batch, fits, max_rounds):
    level = list(summaries)
    for _ in range(max_rounds):
        if len(level) == 1:
            break
        batches = pack_in_order(level, fits)
        if len(batches) == len(level):
            break
        level = [summarise_batch(b) for b in batches]       # a batch of one too
    return level


def reduce_unbounded(summaries, summarise_batch, fits, max_rounds):   # no bound, no progress check
    level = list(summaries)
    while len(level) > 1:
        level = _round(pack_in_order(level, fits), summarise_batch)
    return level


def reduce_no_progress_check(summaries, summarise_batch, fits, max_rounds):  # bounded only
    level = list(summaries)
    for _ in range(max_rounds):
        if len(level) == 1:
            break
        level = _round(pack_in_order(level, fits), summarise_batch)
    return level


def reduce_ignores_max_rounds(summaries, summarise_batch, fits, max_rounds):
    level = list(summaries)
    while len(level) > 1:
        batches = pack_in_order(level, fits)
        if len(batches) == len(level):
            break
        level = _round(batches, summarise_batch)
    return level


def reduce_one_round_short(summaries, summarise_batch, fits, max_rounds):
    return reduce_until_fits(summaries, summarise_batch, fits, max_rounds - 1)


def reduce_one_round_more(summaries, summarise_batch, fits, max_rounds):
    return reduce_until_fits(summaries, summarise_batch, fits, max_rounds + 1)


def reduce_forgets_last_batch(summaries, summarise_batch, fits, max_rounds):
    level = list(summaries)
    for _ in range(max_rounds):
        if len(level) == 1:
            break
        batches, batch = [], []
        for summary in level:
            if batch and not fits(batch + [summary]):
                batches.append(batch)
                batch = []
            batch.append(summary)
        if len(batches) + 1 == len(level):
            break
        level = _round(batches, summarise_batch)             # the last batch never joins
    return level


def reduce_keeps_first_when_stuck(summaries, summarise_batch, fits, max_rounds):
    level = list(summaries)
    for _ in range(max_rounds):
        if len(level) == 1:
            break
        batches = pack_in_order(level, fits)
        if len(batches) == len(level):
            return level[:1]                                # the rest is lost
        level = _round(batches, summarise_batch)
    return level


def reduce_joins_when_stuck(summaries, summarise_batch, fits, max_rounds):
    level = reduce_until_fits(summaries, summarise_batch, fits, max_rounds)
    return ["\n\n".join(level)]


def reduce_overfills(summaries, summarise_batch, fits, max_rounds):  # tests before appending
    level = list(summaries)
    for _ in range(max_rounds):
        if len(level) == 1:
            break
        batches, batch = [], []
        for summary in level:
            if batch and not fits(batch):
                batches.append(batch)
                batch = []
            batch.append(summary)
        batches.append(batch)
        if len(batches) == len(level):
            break
        level = _round(batches, summarise_batch)
    return level


def reduce_drops_singletons(summaries, summarise_batch, fits, max_rounds):
    level = list(summaries)
    for _ in range(max_rounds):
        if len(level) == 1:
            break
        batches = pack_in_order(level, fits)
        if len(batches) == len(level):
            break
        level = [summarise_batch(b) for b in batches if len(b) > 1]   # s7 is lost
    return level


def reduce_joined_string(summaries, summarise_batch, fits, max_rounds):
    return reduce_until_fits(summaries, summarise_batch, fits, max_rounds)[0]


def reduce_passes_text(summaries, summarise_batch, fits, max_rounds):  # a prompt, not a list
    level = list(summaries)
    for _ in range(max_rounds):
        if len(level) == 1:
            break
        batches = pack_in_order(level, fits)
        if len(batches) == len(level):
            break
        level = [summarise_batch("\n".join(b)) if len(b) > 1 else b[0] for b in batches]
    return level


def reduce_fits_on_text(summaries, summarise_batch, fits, max_rounds):
    return reduce_until_fits(summaries, summarise_batch,
                             lambda batch: fits(" ".join(batch)), max_rounds)


def reduce_swallows(summaries, summarise_batch, fits, max_rounds):   # hides the guard
    try:
        return reduce_summarises_singletons(summaries, summarise_batch, fits, max_rounds)
    except Exception:
        return list(summaries)


def reduce_mutating(summaries, summarise_batch, fits, max_rounds):
    result = reduce_until_fits(summaries, summarise_batch, fits, max_rounds)
    summaries[:] = result
    return result


def reduce_returns_input(summaries, summarise_batch, fits, max_rounds):
    if len(summaries) == 1:
        return summaries
    return reduce_until_fits(summaries, summarise_batch, fits, max_rounds)


def reduce_empty_first_batch(summaries, summarise_batch, fits, max_rounds):
    level = list(summaries)
    for _ in range(max_rounds):
        if len(level) == 1:
            break
        batches, batch = [], []
        for summary in level:
            if not fits(batch + [summary]) or len(batches) == 0 and len(batch) == 0:
                batches.append(batch)
                batch = []
            batch.append(summary)
        batches.append(batch)
        if len(batches) >= len(level):
            break
        level = [summarise_batch(b) if len(b) != 1 else b[0] for b in batches]
    return level


def reduce_calls_twice(summaries, summarise_batch, fits, max_rounds):   # a retry "to be safe"
    level = list(summaries)
    for _ in range(max_rounds):
        if len(level) == 1:
            break
        batches = pack_in_order(level, fits)
        if len(batches) == len(level):
            break
        level = [b[0] if len(b) == 1 else (summarise_batch(b), summarise_batch(b))[1]
                 for b in batches]
    return level


def reduce_stub(summaries, summarise_batch, fits, max_rounds):
    raise NotImplementedError("Exercise: write your answer here")


@pytest.mark.parametrize("answer", [reduce_until_fits, reduce_while_loop,
                                    reduce_checks_after_the_round],
                         ids=["kit", "while loop", "checks after the round"])
def test_reduce_right_answers_pass(answer, passes):
    passes(check_reduce_until_fits, answer, "reduce_until_fits")


@pytest.mark.parametrize("wrong, hints", [
    (reduce_summarises_singletons, ["reduce_until_fits(['s1', 's2', 's3', 's4', 's5', 's6', "
                                    "'s7'], a summariser, fits <= 3 summaries, max_rounds=5): "
                                    "summarise_batch was called on a batch of one summary, "
                                    "['s7']", "the call is wasted",
                                    "Carry a lone summary up to the next round unchanged"]),
    (reduce_unbounded, ["a summariser that does not shrink, fits <= 12 words, max_rounds=1000): "
                        "fits was called 100,000 times and the loop goes on",
                        "stop when a round can merge nothing"]),
    (reduce_no_progress_check, ["max_rounds=1000) returned the right summaries but called "
                                "fits 1,002 times, where 4 calls are enough",
                                "after a round that merged nothing your loop went on"]),
    (reduce_ignores_max_rounds, ["max_rounds=1) should return 3 summaries",
                                 "max_rounds=1 allows exactly 1 round: stop after it with"]),
    (reduce_one_round_short, ["max_rounds=1) should return 3 summaries", "got 7",
                              "no round was run"]),
    (reduce_one_round_more, ["max_rounds=1) should return 3 summaries", "got 1",
                             "allows exactly 1 round:"]),
    (reduce_forgets_last_batch, ["returned []: summaries ['s1', 's2', 's3', 's4', 's5', 's6', "
                                 "'s7'] are lost", "forget to add the last batch"]),
    (reduce_keeps_first_when_stuck, ["are lost", "return all the summaries left"]),
    (reduce_joins_when_stuck, ["should return 2 summaries",
                               "return the summaries left as a list"]),
    (reduce_overfills, ["summarise_batch was called with a batch that does not fit",
                        "4 summaries, the limit is 3", "fits(batch + [next])"]),
    (reduce_drops_singletons, ["summaries ['s7'] are lost"]),
    (reduce_joined_string, ["should return a list of the summaries left (str), got str"]),
    (reduce_passes_text, ["summarise_batch takes a list of summaries (str), got str"]),
    (reduce_fits_on_text, ["fits takes one argument, a list of summaries",
                           "it was called as fits('s1 s2')"]),
    (reduce_swallows, ["summarise_batch was called on a batch of one summary"]),
    (reduce_mutating, ["changed the summaries list in place"]),
    (reduce_returns_input, ["returned the input list itself"]),
    (reduce_empty_first_batch, ["summarise_batch was called with an empty batch"]),
    (reduce_calls_twice, ["called summarise_batch 6 times, expected 3",
                          "only once per batch"]),
    (reduce_stub, ["not written yet"]),
])
def test_reduce_wrong_answers_fail_with_hint(wrong, hints, rejects):
    rejects(check_reduce_until_fits, wrong, *hints)


def test_reduce_cases_exercise_every_stop():
    """The fixed cases end each way: nothing to do, one summary left, max_rounds reached,
    no progress from the start and no progress after a first round."""
    ends = set()
    for summaries, kind, limit, max_rounds, _ in hierarchy._REDUCE_CASES:
        model, test = hierarchy._Model(kind), hierarchy._Fits(*limit).test
        left = reduce_until_fits(summaries, model, test, max_rounds)
        longer = reduce_until_fits(summaries, hierarchy._Model(kind), test, max_rounds + 1)
        if len(summaries) == 1:
            ends.add("nothing to do")
        elif len(left) == 1:
            ends.add("done")
        elif left != longer:
            ends.add("max_rounds")
        elif not model.batches:
            ends.add("no progress from the start")
        else:
            ends.add("no progress later")
    assert ends == {"nothing to do", "done", "max_rounds", "no progress from the start",
                    "no progress later"}


def test_reduce_seven_summaries_make_the_lesson_tree():
    model = hierarchy._Model("tag")
    assert reduce_until_fits(hierarchy._SEVEN, model, lambda b: len(b) <= 3, 5) == [
        hierarchy._SEVEN_DONE] == ["((s1+s2+s3)+(s4+s5+s6)+s7)"]
    assert model.batches == [["s1", "s2", "s3"], ["s4", "s5", "s6"],
                             ["(s1+s2+s3)", "(s4+s5+s6)", "s7"]]    # s7 carried: 3 calls


def test_reduce_carries_like_the_kit():
    """The exercise's rule is the kit's: on the same batches, the kit carries the same
    summaries up and makes the same number of calls."""
    items = [(f"m{n}", f"Fact {n}.") for n in range(1, 6)]
    kit_result = hierarchical_summary(items, lambda prompt: "x.", batch_size=2, window=1000)
    level1 = [s.id for s in kit_result.levels[0]]                 # 3 summaries, as in kit
    model = hierarchy._Model("tag")
    assert reduce_until_fits(level1, model, lambda b: len(b) <= 2, 5) == [
        "((L1.1+L1.2)+L1.3)"]
    assert len(model.batches) == kit_result.calls - len(level1) == 2
    assert [s.carried for s in kit_result.levels[1]] == [False, True]


def test_a_guard_failure_caught_by_the_learner_is_still_reported():
    with pytest.raises(CheckFailed, match="called on a batch of one summary"):
        check_reduce_until_fits(reduce_swallows)


def test_the_non_shrinking_double_keeps_every_word():
    model = hierarchy._Model("concat")
    assert model(["a b", "c"]) == "a b c"
    assert hierarchy._Model("halve")(["a b c", "d e"]) == "a b c"
