"""The reduce loop of map-reduce summarization: the few lines lesson 05 builds.

- :func:`pack_in_order`: greedy batches that keep the order; a batch takes the next entry
  while ``fits(batch + [next])``.
- :func:`reduce_rounds`: the loop. Each round packs the entries; a batch of two or more
  becomes one entry (``merge``: one model call), a batch of one is carried up unchanged
  (``carry``: no call, nothing to merge). It stops when one entry is left, after
  ``max_rounds`` rounds, or *before* a round that would make no progress (every batch
  would hold a single entry: the summariser does not shrink its input).
- :func:`reduce_until_fits`: that loop on summaries (str), as exercise 2 of lesson 05
  writes it.

:func:`kit.hierarchical.hierarchical_summary` runs :func:`reduce_rounds` above its map
step, with a packer that measures every prompt against the window
(:func:`~kit.hierarchical.batching.pack_level`) and a ``merge`` that builds the
:class:`~kit.hierarchical.Summary` with its source ids; :mod:`kit.checks.hierarchy` takes
:func:`reduce_until_fits`'s answers as the right ones.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

__all__ = ["pack_in_order", "reduce_rounds", "reduce_until_fits"]

T = TypeVar("T")


def pack_in_order(entries: Sequence[T], fits: Callable[[list[T]], bool]) -> list[list[T]]:
    """Greedy, order-keeping batches: a batch takes the next entry while
    ``fits(batch + [next])``; an entry that does not fits starts the next batch (alone,
    it always goes in). ``[]`` for no entries; ``fits`` is called once per entry after
    the first."""
    batches: list[list[T]] = []
    for entry in entries:
        if batches and fits(batches[-1] + [entry]):
            batches[-1].append(entry)
        else:
            batches.append([entry])
    return batches


def _first(batch: Sequence[T]) -> T:
    return batch[0]


def reduce_rounds(level: Sequence[T], pack: Callable[[Sequence[T]], Sequence[Any]],
                  merge: Callable[[Any], T], max_rounds: int,
                  carry: Callable[[Any], T] = _first) -> Iterator[list[T]]:
    """Yield each level the reduce loop makes from ``level``, at most ``max_rounds``.

    ``pack(level)`` returns the round's batches, in order, each entry in one (anything
    with a ``len``: a list of entries, or a prompt object that knows its entries);
    ``merge(batch)`` makes one entry of a batch of two or more (the model call);
    ``carry(batch)`` moves a batch of one up (default: its entry, unchanged). Stops when
    one entry is left, or before a round whose batches would each hold one entry (no
    progress). What ``pack``, ``merge`` or ``carry`` raise propagates; the levels
    yielded before stay valid.
    """
    for _ in range(max_rounds):
        if len(level) <= 1:
            return
        batches = pack(level)
        if len(batches) == len(level):      # every batch holds one entry: no progress
            return
        level = [merge(batch) if len(batch) > 1 else carry(batch) for batch in batches]
        yield level


def reduce_until_fits(summaries: Sequence[T], summarise_batch: Callable[[list[T]], T],
                      fits: Callable[[list[T]], bool], max_rounds: int) -> list[T]:
    """Reduce ``summaries`` round by round (:func:`reduce_rounds` with
    :func:`pack_in_order`) until one is left, ``max_rounds`` rounds are done, or a round
    would make no progress. Returns a new list: ``[final]``, or the summaries left, in
    order, none lost. ``summaries`` does not change. The answer of lesson 05's
    exercise 2."""
    levels = [list(summaries),
              *reduce_rounds(summaries, lambda level: pack_in_order(level, fits),
                             summarise_batch, max_rounds)]
    return levels[-1]
