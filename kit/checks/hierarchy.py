"""Checkers for lesson 05 (hierarchical summarisation): batching and the reduce loop.

- :func:`check_make_batches`: the exercise ``make_batches(sizes, room, batch_size)``.
  ``sizes`` is a list of ints >= 0, the size in tokens of each item's line, in order;
  ``room`` (int >= 0) is the tokens a prompt has left for items; ``batch_size``
  (int >= 1) the most items per batch. Return the batches as lists of item indices:
  greedy and in order, a batch closes when it holds ``batch_size`` items or when the
  next item would take its total over ``room`` (a total equal to ``room`` fits). Every
  index appears once, no batch is empty, ``[]`` for no items. An item larger than
  ``room`` fits no batch: raise ValueError naming its index and size, never drop it.
  ``sizes`` must not change. Same rule as :func:`kit.hierarchical.plan_batches`.
- :func:`check_reduce_until_fits`: the exercise
  ``reduce_until_fits(summaries, summarise_batch, fits, max_rounds)``. ``summaries`` is
  a non-empty list of str (say, the level-1 summaries) in order; ``summarise_batch`` a
  model call ``list[str] -> str``; ``fits`` a test ``list[str] -> bool`` (do these
  summaries fit one prompt? any single summary does); ``max_rounds`` an int >= 1. One
  round packs the current summaries greedily, in order (a batch takes the next summary
  while ``fits(batch + [next])``), then calls ``summarise_batch`` once per batch, a
  batch of one included; the replies are the next round's summaries. Stop when one
  summary is left, after ``max_rounds`` rounds, or, *before any call*, when a round
  would make no progress (every batch would hold a single summary: the summariser
  does not shrink its input). Return a new list of the summaries left (one when done;
  several, none lost, in order, when stopped early). ``summaries`` must not change.
  The same termination rule as :func:`kit.hierarchical.hierarchical_summary`.

Each checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake. The test
doubles given to ``reduce_until_fits`` stop a loop that never ends: after
:data:`CALL_LIMIT` model calls the check fails instead of hanging.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable

from kit.checks import CheckFailed, call_learner, call_pure, expect, passed, show_call
from kit.hierarchical import plan_batches

__all__ = ["check_make_batches", "check_reduce_until_fits", "reference_reduce", "CALL_LIMIT"]

CALL_LIMIT = 200          # model calls before a reduce loop counts as unbounded
FITS_LIMIT = 100_000      # calls of `fits` before the same


# -- exercise 1: make_batches ------------------------------------------------------------

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


# -- exercise 2: reduce_until_fits -------------------------------------------------------

def reference_reduce(summaries: list[str], summarise_batch: Callable[[list[str]], str],
                     fits: Callable[[list[str]], bool], max_rounds: int) -> list[str]:
    """The checker's answer to ``reduce_until_fits`` (see the module docstring)."""
    level = list(summaries)
    for _ in range(max_rounds):
        if len(level) <= 1:
            break
        batches = [[level[0]]]
        for summary in level[1:]:
            if fits(batches[-1] + [summary]):
                batches[-1].append(summary)
            else:
                batches.append([summary])
        if len(batches) == len(level):      # no progress: stop before any call
            break
        level = [summarise_batch(batch) for batch in batches]
    return level


class _Model:
    """``summarise_batch`` for the checks: ``kind`` "tag" writes the tree, "(a+b)";
    "concat" joins the texts (does not shrink); "halve" keeps the first half of the
    words (rounded up). Records every batch; fails (and remembers the failure, in case
    the learner's code catches it) on a bad call or after CALL_LIMIT calls."""

    def __init__(self, kind: str, fits: "_Fits | None" = None, label: str = "") -> None:
        self.kind, self.fits, self.label = kind, fits, label
        self.batches: list[list[str]] = []
        self.failure: CheckFailed | None = None

    def fail(self, message: str) -> None:
        where = f"{self.label}: " if self.label else ""
        self.failure = self.failure or CheckFailed(where + message)
        raise self.failure

    def __call__(self, *args: object, **kwargs: object) -> str:
        if self.failure is not None:
            raise self.failure
        if len(args) != 1 or kwargs:
            self.fail(f"summarise_batch takes exactly one argument, the batch (a list of "
                      f"str); it was called as {show_call('summarise_batch', args)}"
                      f"{' with keywords ' + ', '.join(kwargs) if kwargs else ''}")
        batch = args[0]
        if not isinstance(batch, list) or not all(isinstance(s, str) for s in batch):
            self.fail(f"summarise_batch takes a list of summaries (str), got "
                      f"{type(batch).__name__}: {batch!r:.80}")
        if not batch:
            self.fail("summarise_batch was called with an empty batch: a model call with "
                      "nothing to summarise (an empty batch appended at the start or end?)")
        if self.fits is not None and len(batch) > 1 and not self.fits.test(batch):
            self.fail(f"summarise_batch was called with a batch that does not fit: "
                      f"{batch!r:.100} ({self.fits.describe(batch)}). A batch takes the "
                      f"next summary only while fits(batch + [next]) is True.")
        self.batches.append(list(batch))
        if len(self.batches) > CALL_LIMIT:
            self.fail(f"summarise_batch was called {CALL_LIMIT} times and the loop goes on: "
                      f"with a summariser that does not shrink, a round can merge nothing "
                      f"(every batch would hold one summary). Stop the loop then, before "
                      f"calling, and also after max_rounds rounds.")
        if self.kind == "tag":
            return "(" + "+".join(batch) + ")"
        words = " ".join(batch).split()
        if self.kind == "concat":
            return " ".join(words)
        return " ".join(words[:(len(words) + 1) // 2])


class _Fits:
    """``fits`` for the checks: at most ``limit`` summaries (``by="count"``) or words
    (``by="words"``). Checks its argument and stops an endless loop."""

    def __init__(self, limit: int, by: str) -> None:
        self.limit, self.by, self.calls, self.label = limit, by, 0, ""
        self.failure: CheckFailed | None = None

    def size(self, batch: list[str]) -> int:
        return len(batch) if self.by == "count" else sum(len(s.split()) for s in batch)

    def test(self, batch: list[str]) -> bool:
        return self.size(batch) <= self.limit

    def describe(self, batch: list[str]) -> str:
        unit = "summaries" if self.by == "count" else "words"
        return f"{self.size(batch)} {unit}, the limit is {self.limit}"

    def __call__(self, *args: object, **kwargs: object) -> bool:
        if self.failure is not None:
            raise self.failure
        self.calls += 1
        batch = args[0] if len(args) == 1 and not kwargs else None
        if not isinstance(batch, list) or not all(isinstance(s, str) for s in batch):
            self.failure = CheckFailed(
                f"{self.label}: fits takes one argument, a list of summaries (str), e.g. "
                f"fits(batch + [summary]); it was called as {show_call('fits', args)}"
                f"{' with keywords ' + ', '.join(kwargs) if kwargs else ''}")
            raise self.failure
        if self.calls > FITS_LIMIT:
            self.failure = CheckFailed(f"{self.label}: fits was called {FITS_LIMIT:,} times "
                                       f"and the loop goes on: stop when a round can merge "
                                       f"nothing, and after max_rounds rounds")
            raise self.failure
        return self.test(batch)


def _words(n: int, tag: str, count: int) -> list[str]:
    """``count`` summaries of ``n`` words each, "a1 a1 ..." style, all distinct."""
    return [" ".join([f"{tag}{i}"] * n) for i in range(1, count + 1)]


_SEVEN = [f"s{i}" for i in range(1, 8)]
_SEVEN_DONE = "((s1+s2+s3)+(s4+s5+s6)+(s7))"

# (summaries, model kind, fits limit and unit, max_rounds, why)
_REDUCE_CASES = [
    (_SEVEN, "tag", (3, "count"), 5,
     "batches of 3 in order: 7 summaries -> 3 -> 1, four calls; a batch of one (s7) is "
     "summarised too"),
    (["only"], "tag", (3, "count"), 5, "one summary: nothing to reduce, no call"),
    (_words(5, "a", 4), "concat", (12, "words"), 1000,
     "the summariser does not shrink: round 1 merges pairs (10 words), then no two "
     "summaries fit together (20 > 12): stop, before calling, with 2 summaries left"),
    (_words(5, "b", 4), "concat", (12, "words"), 3,
     "round 2 would put every summary in a batch of its own: no progress, so no call; "
     "the answer has 2 summaries after 2 calls"),
    (_words(8, "c", 3), "concat", (12, "words"), 5,
     "no two summaries fit together (16 > 12): no progress from the start, no call; return "
     "the 3 summaries as they are, in a new list"),
    (_SEVEN, "tag", (3, "count"), 1,
     "max_rounds=1: one round (3 calls), then stop with the 3 summaries it made"),
    (_SEVEN, "tag", (3, "count"), 2, "max_rounds=2: exactly the 2 rounds needed"),
    (_words(6, "d", 8), "halve", (12, "words"), 5,
     "a shrinking summariser, fits by size: pairs, 8 -> 4 -> 2 -> 1, seven calls"),
    ([*_words(3, "e", 3), *_words(9, "f", 1), *_words(2, "g", 2)], "halve", (9, "words"), 5,
     "greedy by size, in order: 3 + 3 + 3 words fit 9, the 9-word summary goes alone, "
     "then 2 + 2"),
]


def _reduce_label(summaries: list[str], fits: _Fits, max_rounds: int, kind: str) -> str:
    unit = "summaries" if fits.by == "count" else "words"
    lengths = ", ".join(sorted({str(len(s.split())) for s in summaries}, key=int))
    shown = (repr(summaries) if len(repr(summaries)) <= 60
             else f"[{len(summaries)} summaries of {lengths} words]")
    model = {"tag": "a summariser", "concat": "a summariser that does not shrink",
             "halve": "a halving summariser"}[kind]
    return (f"reduce_until_fits({shown}, {model}, fits <= {fits.limit} {unit}, "
            f"max_rounds={max_rounds})")


def _reraise(*doubles: object) -> None:
    for double in doubles:
        failure = getattr(double, "failure", None)
        if failure is not None:
            raise CheckFailed(str(failure)) from None


def _run_reduce(reduce_until_fits: Callable, summaries: list[str], kind: str,
                limit: tuple[int, str], max_rounds: int) -> tuple[object, _Model, str, list]:
    fits = _Fits(*limit)
    label = _reduce_label(summaries, fits, max_rounds, kind)
    model = _Model(kind, fits, label)
    fits.label = label
    given = list(summaries)
    try:
        got = call_learner(reduce_until_fits, given, model, fits, max_rounds,
                           name="reduce_until_fits", shown=label)
    except CheckFailed:
        _reraise(model, fits)
        raise
    _reraise(model, fits)
    expect(given == summaries,
           f"{label} changed the summaries list in place (it now holds {len(given)}): "
           f"build new lists per round and leave the input alone.")
    return got, model, label, given


def _lost(got: list[str], summaries: list[str]) -> list[str]:
    """The input summaries (tags or first words) that no longer show in ``got``."""
    text = " ".join(got).replace("(", " ").replace(")", " ").replace("+", " ").split()
    return [s for s in summaries if s.split()[0] not in text]


def _check_reduce(reduce_until_fits: Callable, summaries: list[str], kind: str,
                  limit: tuple[int, str], max_rounds: int, why: str) -> None:
    want_model = _Model(kind)
    want = reference_reduce(summaries, want_model, _Fits(*limit).test, max_rounds)
    want_calls = len(want_model.batches)
    got, model, label, given = _run_reduce(reduce_until_fits, summaries, kind, limit, max_rounds)
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    expect(isinstance(got, list) and all(isinstance(s, str) for s in got),
           f"{label} should return a list of the summaries left (str), got "
           f"{type(got).__name__}: {got!r:.100}{missing}. Return [final] when one is left.")
    expect(got is not given,
           f"{label} returned the input list itself: return a new list (list(summaries)), "
           f"so that the caller's list and the result cannot change each other")
    calls = len(model.batches)
    if got == want and calls != want_calls:
        extra = calls - want_calls
        raise CheckFailed(
            f"{label} returned the right summaries but called summarise_batch {calls} times, "
            f"expected {want_calls}: {extra} call(s) on batches of one summary that could not "
            f"merge. Why: {why}. Decide before calling: if every batch of the round holds a "
            f"single summary, the round makes no progress, so stop without calling.")
    lost = _lost(got, summaries) if kind != "halve" else []
    if lost:
        raise CheckFailed(
            f"{label} returned {got!r:.120}: summaries {lost} are lost. Every summary ends up "
            f"in exactly one batch (did you forget to add the last batch?), and when you stop "
            f"early, return all the summaries left, not just one.")
    if len(got) != len(want):
        unbounded = reference_reduce(summaries, _Model(kind), _Fits(*limit).test, CALL_LIMIT)
        if len(got) == 1 and len(want) > 1 and len(unbounded) == 1:
            rounds = f"{max_rounds} round{'s' * (max_rounds != 1)}"
            hint = (f"max_rounds={max_rounds} allows exactly {rounds}: stop after them with "
                    f"the summaries you have")
        elif len(got) == 1 and len(want) > 1:
            hint = ("when a round can merge nothing, return the summaries left as a list; "
                    "joined into one str they hide that the reduction stopped early (and "
                    "may not fit one prompt)")
        elif len(got) == len(summaries) and len(want) < len(summaries):
            hint = ("no round was run: loop while more than one summary is left, up to "
                    "max_rounds rounds (off by one?)")
        else:
            hint = "count the rounds: at most max_rounds, and stop as soon as one is left"
        raise CheckFailed(f"{label} should return {len(want)} summaries {want!r:.120}, got "
                          f"{len(got)}: {got!r:.120}. Why: {why}. Hint: {hint}.")
    if got != want and calls < want_calls:
        hint = (f"you made {calls} call(s), expected {want_calls}: call summarise_batch once "
                f"per batch, a batch of one included (in kit.hierarchical, L1.3 summarises "
                f"m7 alone), so that every level is complete")
    else:
        hint = ("pack in order, greedily (a batch takes the next summary while "
                "fits(batch + [next])), and call summarise_batch once per batch")
    expect(got == want, f"{label} should return {want!r:.140}, got {got!r:.140}. Why: {why}. "
                        f"Hint: {hint}.")


def check_reduce_until_fits(reduce_until_fits: Callable) -> None:
    """Check ``reduce_until_fits(summaries, summarise_batch, fits, max_rounds)``.

    Prints one pass line or raises CheckFailed. Rejects: a loop without a progress
    check (it runs until :data:`CALL_LIMIT` calls, or wastes calls on batches of one),
    a progress check made after the calls, ignoring ``max_rounds`` or being one round
    off, losing summaries (the last batch, or all but one when stopping early),
    batches packed past ``fits``, singletons left unsummarised, a wrong call of
    ``summarise_batch`` or ``fits`` (even if the learner's code caught the failure),
    a changed input and returning the input list. Also compares with
    :func:`reference_reduce` on 100 random cases.
    """
    cases = 0
    for summaries, kind, limit, max_rounds, why in _REDUCE_CASES:
        _check_reduce(reduce_until_fits, summaries, kind, limit, max_rounds, why)
        cases += 1
    rng = random.Random(7)
    for _ in range(100):
        limit = rng.randint(4, 14)
        summaries = [" ".join([f"r{i}"] * rng.randint(1, limit))
                     for i in range(1, rng.randint(1, 12) + 1)]
        _check_reduce(reduce_until_fits, summaries, rng.choice(["concat", "halve"]),
                      (limit, "words"), rng.randint(1, 5), "same rule as reference_reduce")
        cases += 1
    passed("reduce_until_fits", cases)
