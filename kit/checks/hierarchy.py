"""Checker for lesson 05 (hierarchical summarisation), exercise 2: the reduce loop.

:func:`check_reduce_until_fits`: the exercise
``reduce_until_fits(summaries, summarise_batch, fits, max_rounds)``. ``summaries`` is a
non-empty list of str (say, the level-1 summaries) in order; ``summarise_batch`` a model
call ``list[str] -> str``; ``fits`` a test ``list[str] -> bool`` (do these summaries fit
one prompt? any single summary does); ``max_rounds`` an int >= 1. One round packs the
current summaries greedily, in order (a batch takes the next summary while
``fits(batch + [next])``); a batch of two or more summaries becomes one, with one call
of ``summarise_batch``; a batch of one summary is carried up unchanged, without a call.
Stop when one summary is left, after ``max_rounds`` rounds, or when a round would make
no progress (every batch would hold a single summary: the summariser does not shrink its
input, and the round would change nothing). Return a new list of the summaries left
(one when done; several, none lost, in order, when stopped early). ``summaries`` must
not change. The answers to compare with come from the kit's own loop,
:func:`kit.hierarchical.reduce_until_fits` (the loop that
:func:`kit.hierarchical.hierarchical_summary` runs).

Decision: carrying a lone summary up is required, not merely allowed. Calling the model
on a batch of one has nothing to merge: it costs a call and adds one more lossy rewrite
(drift), and :mod:`kit.hierarchical` does not do it (in the lesson, ``L2.2`` carries
``L1.3``). So the checker's ``summarise_batch`` refuses a batch of one summary with a
hint that says so. One answer per case also keeps the exercise's expected outputs
unambiguous.

The checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake. The test doubles
given to ``reduce_until_fits`` stop a loop that never ends: after :data:`CALL_LIMIT` model
calls, or :data:`FITS_LIMIT` calls of ``fits``, the check fails instead of hanging.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from kit.checks import CheckFailed, call_learner, expect, passed, show_call
from kit.hierarchical import reduce_until_fits as kit_reduce

__all__ = ["check_reduce_until_fits", "CALL_LIMIT", "FITS_LIMIT"]

CALL_LIMIT = 200          # model calls before a reduce loop counts as unbounded
FITS_LIMIT = 100_000      # calls of `fits` before the same
FITS_SLACK = 10           # a right answer calls `fits` about once per summary per round


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
        if len(batch) == 1:
            self.fail(f"summarise_batch was called on a batch of one summary, {batch!r:.60}: "
                      f"there is nothing to merge, so the call is wasted and adds one more "
                      f"lossy rewrite. Carry a lone summary up to the next round unchanged, "
                      f"without a call (kit.hierarchical does: L2.2 carries L1.3).")
        if self.fits is not None and not self.fits.test(batch):
            self.fail(f"summarise_batch was called with a batch that does not fit: "
                      f"{batch!r:.100} ({self.fits.describe(batch)}). A batch takes the "
                      f"next summary only while fits(batch + [next]) is True.")
        self.batches.append(list(batch))
        if len(self.batches) > CALL_LIMIT:
            self.fail(f"summarise_batch was called {CALL_LIMIT} times and the loop goes on: "
                      f"stop when one summary is left, and after max_rounds rounds")
        if self.kind == "tag":
            return "(" + "+".join(batch) + ")"
        words = " ".join(batch).split()
        if self.kind == "concat":
            return " ".join(words)
        return " ".join(words[:(len(words) + 1) // 2])


class _Fits:
    """``fits`` for the checks: at most ``limit`` summaries (``by="count"``) or words
    (``by="words"``). Checks its argument, counts its calls and stops an endless loop."""

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
                                       f"nothing (every batch holds one summary), and after "
                                       f"max_rounds rounds")
            raise self.failure
        return self.test(batch)


def _words(n: int, tag: str, count: int) -> list[str]:
    """``count`` summaries of ``n`` words each, "a1 a1 ..." style, all distinct."""
    return [" ".join([f"{tag}{i}"] * n) for i in range(1, count + 1)]


_SEVEN = [f"s{i}" for i in range(1, 8)]
_SEVEN_DONE = "((s1+s2+s3)+(s4+s5+s6)+s7)"

# (summaries, model kind, fits limit and unit, max_rounds, why)
_REDUCE_CASES = [
    (_SEVEN, "tag", (3, "count"), 5,
     "batches of 3 in order: 7 summaries -> 3 -> 1 in three calls; s7, alone in its batch, "
     "is carried up unchanged, without a call"),
    (["only"], "tag", (3, "count"), 5, "one summary: nothing to reduce, no call"),
    (_words(5, "a", 4), "concat", (12, "words"), 1000,
     "the summariser does not shrink: round 1 merges pairs (10 words), then no two "
     "summaries fit together (20 > 12): round 2 would change nothing, so stop there with "
     "2 summaries left"),
    (_words(5, "b", 4), "concat", (12, "words"), 3,
     "round 2 would put every summary in a batch of its own: no progress; the answer has "
     "2 summaries after 2 calls"),
    (_words(8, "c", 3), "concat", (12, "words"), 5,
     "no two summaries fit together (16 > 12): no progress from the start, no call; return "
     "the 3 summaries as they are, in a new list"),
    (_SEVEN, "tag", (3, "count"), 1,
     "max_rounds=1: one round (2 calls, s7 carried), then stop with the 3 summaries left"),
    (_SEVEN, "tag", (3, "count"), 2, "max_rounds=2: exactly the 2 rounds needed"),
    (_words(6, "d", 8), "halve", (12, "words"), 5,
     "a shrinking summariser, fits by size: pairs, 8 -> 4 -> 2 -> 1, seven calls"),
    ([*_words(3, "e", 3), *_words(9, "f", 1), *_words(2, "g", 2)], "halve", (9, "words"), 5,
     "greedy by size, in order: 3 + 3 + 3 words fit 9, the 9-word summary goes alone (and "
     "is carried up unchanged), then 2 + 2; round 2 can merge nothing (5 + 9 and 9 + 2 "
     "words are over 9): stop with 3 summaries after 2 calls"),
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
                limit: tuple[int, str], max_rounds: int
                ) -> tuple[object, _Model, str, list, int]:
    """The learner's answer, the model double, the case label, the list given and the
    number of ``fits`` calls; re-raises a failure a double recorded."""
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
    return got, model, label, given, fits.calls


def _lost(got: list[str], summaries: list[str]) -> list[str]:
    """The input summaries (tags or first words) that no longer show in ``got``."""
    text = " ".join(got).replace("(", " ").replace(")", " ").replace("+", " ").split()
    return [s for s in summaries if s.split()[0] not in text]


def _check_reduce(reduce_until_fits: Callable, summaries: list[str], kind: str,
                  limit: tuple[int, str], max_rounds: int, why: str) -> None:
    want_model, want_fits = _Model(kind), _Fits(*limit)
    want = kit_reduce(summaries, want_model, want_fits, max_rounds)
    want_calls = len(want_model.batches)
    got, model, label, given, fits_calls = _run_reduce(reduce_until_fits, summaries, kind,
                                                       limit, max_rounds)
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    expect(isinstance(got, list) and all(isinstance(s, str) for s in got),
           f"{label} should return a list of the summaries left (str), got "
           f"{type(got).__name__}: {got!r:.100}{missing}. Return [final] when one is left.")
    expect(got is not given,
           f"{label} returned the input list itself: return a new list (list(summaries)), "
           f"so that the caller's list and the result cannot change each other")
    calls = len(model.batches)
    if got == want and calls != want_calls:
        raise CheckFailed(
            f"{label} returned the right summaries but called summarise_batch {calls} times, "
            f"expected {want_calls}. Why: {why}. Call it once per batch of two or more "
            f"summaries, and only once per batch.")
    if got == want and fits_calls > FITS_SLACK * want_fits.calls + 20:
        raise CheckFailed(
            f"{label} returned the right summaries but called fits {fits_calls:,} times, "
            f"where {want_fits.calls} calls are enough: after a round that merged nothing "
            f"your loop went on. Why: {why}. When every batch of a round holds a single "
            f"summary, the round would change nothing: stop there.")
    lost = _lost(got, summaries) if kind != "halve" else []
    if lost:
        raise CheckFailed(
            f"{label} returned {got!r:.120}: summaries {lost} are lost. Every summary ends up "
            f"in exactly one batch (did you forget to add the last batch?), and when you stop "
            f"early, return all the summaries left, not just one.")
    if len(got) != len(want):
        unbounded = kit_reduce(summaries, _Model(kind), _Fits(*limit).test, CALL_LIMIT)
        if len(got) == 1 and len(want) > 1 and len(unbounded) == 1:
            rounds = f"{max_rounds} round{'s' * (max_rounds != 1)}"
            them = "it" if max_rounds == 1 else "them"
            hint = (f"max_rounds={max_rounds} allows exactly {rounds}: stop after {them} with "
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
    expect(got == want, f"{label} should return {want!r:.140}, got {got!r:.140}. Why: {why}. "
                        f"Hint: pack in order, greedily (a batch takes the next summary while "
                        f"fits(batch + [next])), replace each batch of two or more by one "
                        f"call of summarise_batch, and carry a batch of one up unchanged.")


def check_reduce_until_fits(reduce_until_fits: Callable) -> None:
    """Check ``reduce_until_fits(summaries, summarise_batch, fits, max_rounds)``.

    Prints one pass line or raises CheckFailed. Rejects: a model call on a batch of one
    summary (carry it up instead), a loop without a progress check (unbounded: it runs
    until :data:`FITS_LIMIT` calls of ``fits``; bounded by ``max_rounds``: it goes on
    after a round that merged nothing), ignoring ``max_rounds`` or being one round off,
    losing summaries (the last batch, or all but one when stopping early), batches
    packed past ``fits``, a wrong call of ``summarise_batch`` or ``fits`` (even if the
    learner's code caught the failure), a changed input and returning the input list.
    Also compares with :func:`kit.hierarchical.reduce_until_fits` on 100 random cases.
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
                      (limit, "words"), rng.randint(1, 5),
                      "same rule as kit.hierarchical.reduce_until_fits")
        cases += 1
    passed("reduce_until_fits", cases)
