"""Checker for lesson 05 (hierarchical summarisation), exercise 1: packing items into batches.

:func:`check_make_batches`: the exercise ``make_batches(sizes, room, batch_size)``.
``sizes`` is a list of ints >= 0, the size in tokens of each item's line, in order;
``room`` (int >= 0) is the tokens a prompt has left for items; ``batch_size`` (int >= 1)
the most items per batch. Return the batches as lists of item indices: greedy and in
order, a batch closes when it holds ``batch_size`` items or when the next item would
take its total over ``room`` (a total equal to ``room`` fits). Every index appears once,
no batch is empty, ``[]`` for no items. An item larger than ``room`` fits no batch:
raise ValueError naming its index and size, never drop it. ``sizes`` must not change.
Same rule as :func:`kit.hierarchical.plan_batches`.

The checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable

from kit.checks import CheckFailed, call_pure, expect, passed
from kit.hierarchical import plan_batches

__all__ = ["check_make_batches"]

# (sizes in tokens, room in tokens, batch_size, expected batches, why)
_BATCH_CASES = [
    ([1] * 7, 100, 3, [[0, 1, 2], [3, 4, 5], [6]],
     "by count: a batch closes at batch_size items; the last batch holds the rest"),
    ([5, 3, 4, 6, 2, 8], 10, 10, [[0, 1], [2, 3], [4, 5]],
     "by size: 5 + 3 + 4 would be 12 > 10; 4 + 6 and 2 + 8 are exactly 10, which fits"),
    ([2, 2, 2, 7, 1, 1, 1, 1], 8, 3, [[0, 1, 2], [3, 4], [5, 6, 7]],
     "both rules: the first batch closes on the count (3 items), the second on the size "
     "(7 + 1 = 8, one more would be 9 > 8)"),
    ([1, 1, 1, 1], 100, 4, [[0, 1, 2, 3]], "exactly batch_size items make one full batch"),
    ([10], 10, 3, [[0]], "an item exactly as large as room fits"),
    ([4, 6, 4, 6], 10, 5, [[0, 1], [2, 3]], "totals exactly equal to room fit"),
    ([0, 5, 0, 5], 5, 4, [[0, 1, 2], [3]], "items of size 0 still count towards batch_size"),
    ([3, 3, 3], 10, 1, [[0], [1], [2]], "batch_size=1: one item per batch"),
    ([], 10, 3, [], "no items: no batches (not one empty batch)"),
]

# (sizes, room, batch_size, index of the item that fits nowhere)
_OVERSIZE_CASES = [
    ([3, 5, 17, 2], 10, 3, 2),
    ([12, 1], 10, 3, 0),
    ([1, 2, 11], 10, 5, 2),
]


def _greedy(sizes: list[int], room: int, batch_size: int, fits: Callable[[int], bool],
            count_limit: int | None = None) -> list[list[int]]:
    """A greedy packing with a pluggable size test, to name the learner's mistake."""
    batches: list[list[int]] = []
    batch: list[int] = []
    total = 0
    for i, size in enumerate(sizes):
        if batch and (len(batch) >= (count_limit or batch_size) or not fits(total + size)):
            batches.append(batch)
            batch, total = [], 0
        batch.append(i)
        total += size
    return batches + [batch] * bool(batch)


def _kit_batches(sizes: list[int], room: int, batch_size: int) -> list[list[int]]:
    return [list(range(start, stop)) for start, stop in plan_batches(sizes, room, batch_size)]


def _batches_hint(got: list[list[int]], sizes: list[int], room: int, batch_size: int) -> str:
    n = len(sizes)
    if got == [list(range(i, min(i + batch_size, n))) for i in range(0, n, batch_size)]:
        return ("you close batches only by count; also close a batch when the next item "
                "would take its total over room")
    if got == _greedy(sizes, room, n + 1, lambda total: total <= room):
        return "batch_size is a limit too: close a batch once it holds batch_size items"
    if got == _greedy(sizes, room, batch_size, lambda total: total < room):
        return ("a batch whose total equals room still fits: compare with <=, not < "
                "(off by one at the boundary)")
    for off in (batch_size - 1, batch_size + 1):
        if off >= 1 and got == _greedy(sizes, room, batch_size, lambda t: t <= room, off):
            return (f"your batches hold up to {off} items, not batch_size={batch_size}: "
                    f"off by one in the count")
    return ("walk the items in order; start a new batch when the current one holds "
            "batch_size items or when adding the next item would pass room")


def _check_shape(got: object, label: str, n: int) -> list[list[int]]:
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    expect(isinstance(got, list),
           f"{label} should return a list of batches (lists of item indices), got "
           f"{type(got).__name__}: {got!r:.100}{missing}")
    for batch in got:   # type: ignore[union-attr]
        expect(isinstance(batch, list) and all(isinstance(i, int) and not isinstance(i, bool)
                                               for i in batch),
               f"{label} should return lists of item indices (ints), got a batch "
               f"{batch!r:.80}. Return [[0, 1], [2]], not sizes or ranges.")
        expect(batch != [],
               f"{label} returned an empty batch in {got!r:.100}: that would be a model call "
               f"with nothing to summarise. Append the current batch only if it holds items "
               f"(check for an empty trailing batch).")
    flat = [i for batch in got for i in batch]   # type: ignore[union-attr]
    if flat != list(range(n)):
        lost = sorted(set(range(n)) - set(flat))
        why = (f"items {lost} are missing" if lost
               else "an index is repeated or out of order")
        raise CheckFailed(f"{label} returned {got!r:.100}: {why}. Every item goes into "
                          f"exactly one batch, in the original order (memories are in time "
                          f"order; never sort or skip them).")
    return got   # type: ignore[return-value]


def _check_oversize(make_batches: Callable, sizes: list[int], room: int, batch_size: int,
                    bad: int) -> None:
    label = f"make_batches({sizes}, room={room}, batch_size={batch_size})"
    why = (f"item {bad} needs {sizes[bad]} tokens, more than room={room}: no batch can hold "
           f"it")
    try:
        got = call_pure(make_batches, sizes, room, batch_size, name="make_batches",
                        shown=label, expected=(ValueError,),
                        hint=f"{why}; raise ValueError for it, not another exception")
    except ValueError as error:
        text = str(error)
        expect(bool(re.search(rf"\b{bad}\b", text)) and str(sizes[bad]) in text,
               f"{label} raised ValueError({text!r:.100}): name the item, its index {bad} "
               f"and its size {sizes[bad]}, so that the caller knows which memory to split "
               f"(e.g. 'item {bad} needs {sizes[bad]} tokens, more than the room of {room}')")
        return
    flat = [i for b in got for i in b] if isinstance(got, list) and all(
        isinstance(b, list) for b in got) else None
    if flat is not None and bad not in flat:
        raise CheckFailed(f"{label} returned {got!r:.100}, without item {bad}: {why}. Raise "
                          f"ValueError naming it instead of dropping it silently: a dropped "
                          f"memory is a fact nobody will ever summarise.")
    raise CheckFailed(f"{label} returned {got!r:.100}: {why}, not even alone (its prompt "
                      f"would be over the window). Raise ValueError naming the item.")


def check_make_batches(make_batches: Callable[[list[int], int, int], list[list[int]]]) -> None:
    """Check ``make_batches(sizes, room, batch_size)``; print one pass line or raise CheckFailed.

    Rejects: batching only by count (or only by size), ``<`` instead of ``<=`` at the
    boundary, off-by-one counts, an empty (trailing) batch, items skipped, repeated or
    reordered, an oversize item dropped silently or put in a batch of its own (instead
    of a ValueError naming its index and size), and a changed ``sizes``. Also compares
    with :func:`kit.hierarchical.plan_batches` on 200 random cases.
    """
    cases = 0
    for sizes, room, batch_size, want, why in _BATCH_CASES:
        _check_batches(make_batches, sizes, room, batch_size, want, why)
        cases += 1
    for sizes, room, batch_size, bad in _OVERSIZE_CASES:
        _check_oversize(make_batches, sizes, room, batch_size, bad)
        cases += 1
    rng = random.Random(5)
    for _ in range(200):
        room = rng.randint(1, 20)
        sizes = [rng.randint(0, room) for _ in range(rng.randint(0, 12))]
        batch_size = rng.randint(1, 6)
        if sizes and rng.random() < 0.15:
            bad = rng.randrange(len(sizes))
            sizes[bad] = room + rng.randint(1, 9)
            _check_oversize(make_batches, sizes, room, batch_size, bad)
        else:
            _check_batches(make_batches, sizes, room, batch_size,
                           _kit_batches(sizes, room, batch_size),
                           "same rule as kit.hierarchical.plan_batches")
        cases += 1
    passed("make_batches", cases)


def _check_batches(make_batches: Callable, sizes: list[int], room: int, batch_size: int,
                   want: list[list[int]], why: str) -> None:
    label = f"make_batches({sizes}, room={room}, batch_size={batch_size})"
    got = call_pure(make_batches, sizes, room, batch_size, name="make_batches", shown=label,
                    hint=f"This case should return {want}: {why}")
    got = _check_shape(got, label, len(sizes))
    totals = [sum(sizes[i] for i in batch) for batch in got]
    expect(got == want,
           f"{label} should return {want}, got {got} (batch totals {totals} tokens). "
           f"Why: {why}. Hint: {_batches_hint(got, sizes, room, batch_size)}.")
