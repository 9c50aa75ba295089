"""Batches for map-reduce summarization: greedy, in order, within a count and a size.

- :func:`plan_batches`: the rule on plain numbers (entry sizes and the room a prompt
  has for them), as ``(start, stop)`` index ranges; the exercise ``make_batches`` of
  lesson 05 is the same rule.
- :func:`pack_level`: the rule on real text: the prompts of one level, each measured
  before it is sent and none larger than the window.

The batched-summarization request asks to "split the memory items into fixed-size batches
(configurable)"; the size limit (the context window) is the reason batches exist, so it is
enforced too.
"""
from __future__ import annotations

from collections.abc import Sequence

from kit.hierarchical.prompts import entry_line, prompt_head
from kit.tokens import Measure, measured

__all__ = ["plan_batches", "pack_level", "NoRoom"]


def _batch_end(sizes: Sequence[int], start: int, room: int, batch_size: int) -> int:
    """End (exclusive) of the greedy batch that starts at ``start``."""
    stop, used = start, 0
    while (stop < len(sizes) and stop - start < batch_size
           and (stop == start or used + sizes[stop] <= room)):
        used += sizes[stop]
        stop += 1
    return stop


def plan_batches(sizes: Sequence[int], room: int, batch_size: int) -> list[tuple[int, int]]:
    """Greedy, order-keeping batches as ``(start, stop)`` index ranges.

    A batch closes when it holds ``batch_size`` entries or the next entry's size would
    take its total over ``room``. Raises ValueError for an entry larger than ``room``.
    """
    for i, size in enumerate(sizes):
        if size > room:
            raise ValueError(f"entry {i} needs {size}, more than the room of {room}")
    batches, start = [], 0
    while start < len(sizes):
        stop = _batch_end(sizes, start, room, batch_size)
        batches.append((start, stop))
        start = stop
    return batches


class NoRoom(Exception):
    """Entry ``label`` alone needs a prompt of ``tokens``, more than the window."""

    def __init__(self, label: str, tokens: int) -> None:
        super().__init__(label, tokens)
        self.label, self.tokens = label, tokens


def pack_level(labels: Sequence[str], texts: Sequence[str], level: int, instructions: str,
               window: int, batch_size: int,
               measure: Measure) -> list[tuple[int, int, str, int]]:
    """The batches of one level as ``(start, stop, prompt, prompt size)``.

    Every prompt is measured with ``measure`` and is at most ``window`` (same unit).
    The rule is exact: a batch takes the next entry while it holds fewer than
    ``batch_size`` and the prompt with that entry, measured, is at most ``window`` (a
    prompt of exactly ``window`` fits). Each entry is estimated once, as its line plus 1
    (the line break, and the rounding of a characters-based measure), and packed by
    :func:`plan_batches`' rule on the estimates; the batch then takes more entries while
    the measured prompt still fits, and gives entries back while it does not. Raises :class:`NoRoom` for an entry that cannot fit a prompt even alone.
    """
    head = prompt_head(instructions, level)
    room = window - measured(measure, head)
    lines = [entry_line(label, text) for label, text in zip(labels, texts)]
    sizes = [measured(measure, line) + 1 for line in lines]
    batches, start = [], 0
    while start < len(lines):
        stop = _batch_end(sizes, start, room, batch_size)
        while (stop < len(lines) and stop - start < batch_size     # the estimates are upper
               and sum(sizes[start:stop + 1]) - (stop + 1 - start) <= room   # bounds: measure
               and measured(measure, head + "\n".join(lines[start:stop + 1])) <= window):
            stop += 1                         # near the edge (a prompt of exactly window fits)
        while True:
            prompt = head + "\n".join(lines[start:stop])
            tokens = measured(measure, prompt)
            if tokens <= window or stop == start + 1:
                break
            stop -= 1
        if tokens > window:
            raise NoRoom(labels[start], tokens)
        batches.append((start, stop, prompt, tokens))
        start = stop
    return batches
