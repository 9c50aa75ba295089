"""Map-reduce summarization within a context window: :func:`hierarchical_summary`.

As the batched-summarization request proposes, summarise the memory items in batches (map),
then the batch summaries (reduce), level after level until one summary is left. The
decisions, each tested in ``tests/test_hierarchical.py``:

- No prompt is larger than the window: each is measured before it is sent. An item too
  large for a prompt of its own raises :class:`WindowExceededError` before any call.
- A lone summary is carried up. When a reduce batch holds a single summary there is
  nothing to merge: it moves to the next level unchanged, without a model call (one
  call and one lossy rewrite saved). It shows in the tree as a :class:`Summary` with
  ``carried=True``: same text, size and ``source_ids``, a new id at its new level, its
  one child the summary it carries, ``prompt_tokens`` 0. A lone *item* at level 1 is
  still summarised: an item is raw text, not a summary.
- The reduce loop is :func:`kit.hierarchical.reduce.reduce_rounds` (lesson 05's exercise
  2), run here with a packer that measures each prompt and a merge that makes the
  :class:`Summary`; the map is the first level.
- Termination: a reduce round must leave fewer summaries than it got. When it cannot
  (every batch would hold one summary, or one summary alone no longer fits a prompt),
  or ``max_rounds`` levels are done, the run stops *before* the next call and returns
  ``truncated=True`` with a ``reason``; ``summary`` is then the top level's summaries
  joined by blank lines. Nothing is dropped.
- Retention: every summary of every level is kept with ``source_ids``, the items it
  covers; each item id is under exactly one summary of each level.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

from kit.hierarchical.batching import NoRoom, pack_level
from kit.hierarchical.items import MemoryItem, as_items
from kit.hierarchical.prompts import HIERARCHY_PROMPT, build_batch_prompt, prompt_head
from kit.hierarchical.reduce import reduce_rounds
from kit.llm import PromptModel
from kit.tokens import Measure, cl100k_tokens, measured, unit_of
from kit.trace import Table
from kit.validation import check_int

__all__ = ["Summary", "HierarchyResult", "WindowExceededError", "DEPTHS",
           "hierarchical_summary"]

DEPTHS = ("single", "hierarchical")


@dataclass(frozen=True)
class Summary:
    """One node of the tree. ``level``: 1 for a summary of items, 2 for a summary of
    level-1 summaries...; ``source_ids``: the ids of every item it covers, in input
    order; ``tokens``: size of ``text`` in the measure's unit; ``id``:
    ``"L<level>.<batch>"``; ``children``: the ids it summarised directly (items at level
    1, summaries above); ``prompt_tokens``: size of the prompt that produced it;
    ``carried``: True if it is a lone summary moved up unchanged, with no model call
    (then ``children`` is that summary's id and ``prompt_tokens`` is 0)."""

    level: int
    text: str
    source_ids: tuple[str, ...]
    tokens: int
    id: str
    children: tuple[str, ...]
    prompt_tokens: int
    carried: bool = False


@dataclass(frozen=True)
class HierarchyResult:
    """What :func:`hierarchical_summary` returns.

    ``summary``: the final summary (if ``truncated``, the top level's summaries joined by
    blank lines); ``levels``: the summaries of each level, ``levels[0]`` being level 1;
    ``calls``: model calls made (carried summaries made none); ``largest_prompt_tokens``:
    the largest prompt sent, in ``unit``; ``truncated``: True if the run stopped with
    more than one summary left, and ``reason`` says why ("" otherwise).
    """

    summary: str
    levels: tuple[tuple[Summary, ...], ...]
    calls: int
    largest_prompt_tokens: int
    truncated: bool = False
    reason: str = ""
    unit: str = "tokens"

    @property
    def summaries(self) -> list[Summary]:
        """Every summary, level 1 first."""
        return list(chain.from_iterable(self.levels))

    @property
    def carried(self) -> int:
        """How many summaries were carried up unchanged (calls saved)."""
        return sum(s.carried for s in self.summaries)

    def table(self) -> Table:
        """One row per summary: level, id, what it summarised, items covered, size, and
        whether a model call made it ("yes") or it was carried up ("no, carried")."""
        rows = [[s.level, s.id, _ends(s.children), len(s.source_ids), s.tokens,
                 "no, carried" if s.carried else "yes"] for s in self.summaries]
        return Table(["level", "summary", "summarises", "items covered",
                      f"size ({self.unit})", "model call"], rows)


class WindowExceededError(ValueError):
    """A prompt would be larger than the window; it was not sent. ``tokens`` is the size
    it needs (in the measure's unit) and ``window`` the limit."""

    def __init__(self, message: str, tokens: int, window: int) -> None:
        super().__init__(message)
        self.tokens, self.window = tokens, window


def _ends(ids: Sequence[str]) -> str:
    return ids[0] if len(ids) == 1 else f"{ids[0]} .. {ids[-1]} ({len(ids)})"


def _check_args(summariser, window, batch_size, depth, max_rounds, measure, instructions):
    if not callable(summariser):
        raise TypeError(f"summariser must be callable str -> str, got {summariser!r:.60}")
    if not callable(measure):
        raise TypeError(f"measure must be callable str -> int, got {measure!r:.60}")
    check_int("window", window, 1)
    check_int("batch_size", batch_size, 2)
    check_int("max_rounds", max_rounds, 1)
    if depth not in DEPTHS:
        raise ValueError(f"depth must be one of {', '.join(DEPTHS)}; got {depth!r}")
    if not isinstance(instructions, str) or not instructions.strip():
        raise ValueError(f"instructions must be a non-empty str, got {instructions!r:.60}")
    for level in ((1,) if depth == "single" else (1, 2)):
        head = measured(measure, prompt_head(instructions, level))
        if head >= window:
            raise WindowExceededError(f"the instructions and header take {head} "
                                      f"{unit_of(measure)}, leaving no room in a window of "
                                      f"{window}", head, window)


@dataclass(frozen=True)
class _Batch:
    """One prompt of a level: the ``entries`` it lists (items as level-0 summaries, or
    summaries), the ``level`` and ``number`` of the summary it makes, the ``prompt`` and
    its size in ``tokens``. Its ``len`` is the number of entries."""

    entries: tuple[Summary, ...]
    level: int
    number: int
    prompt: str
    tokens: int

    def __len__(self) -> int:
        return len(self.entries)


def _batches(packed, entries: Sequence[Summary], level: int) -> list[_Batch]:
    """:func:`pack_level`'s ``(start, stop, prompt, tokens)`` as :class:`_Batch` objects."""
    return [_Batch(tuple(entries[start:stop]), level, number, prompt, tokens)
            for number, (start, stop, prompt, tokens) in enumerate(packed, 1)]


def _first_batches(items, window, batch_size, depth, measure, instructions, unit):
    """The level-1 batches; raises WindowExceededError before any call."""
    labels, texts = [it.id for it in items], [it.text for it in items]
    if depth == "single":
        prompt = build_batch_prompt(list(zip(labels, texts)), 1, instructions)
        tokens = measured(measure, prompt)
        if tokens > window:
            raise WindowExceededError(f"single pass: the prompt for {len(items)} items has "
                                      f"{tokens} {unit}, more than the window of {window}; "
                                      f"not sent (use depth='hierarchical')", tokens, window)
        return [(0, len(items), prompt, tokens)]
    try:
        return pack_level(labels, texts, 1, instructions, window, batch_size, measure)
    except NoRoom as no_room:
        raise WindowExceededError(f"item {no_room.label!r} alone needs a prompt of "
                                  f"{no_room.tokens} {unit}, more than the window of "
                                  f"{window}; split it into smaller items",
                                  no_room.tokens, window) from None


def hierarchical_summary(items: Iterable[MemoryItem | tuple[str, str]],
                         summariser: PromptModel, *, window: int = 4096,
                         batch_size: int = 50, depth: str = "hierarchical",
                         max_rounds: int = 10, measure: Measure = cl100k_tokens,
                         instructions: str = HIERARCHY_PROMPT) -> HierarchyResult:
    """Map-reduce summarization of ``items`` within a context ``window``.

    ``items``: :class:`MemoryItem` objects or ``(id, text)`` pairs; ``summariser``: a
    prompt model ``str -> str``; ``window``: the largest prompt, in ``measure``'s unit;
    ``batch_size``: at most this many entries (int >= 2) per prompt; ``depth``:
    "hierarchical" (map, then reduce until one summary is left) or "single" (one prompt
    with every item; ``batch_size`` and ``max_rounds`` unused); ``max_rounds``: at most
    this many levels (int >= 1), the map being the first. The reduce levels come from
    :func:`kit.hierarchical.reduce.reduce_rounds`, the loop of lesson 05's exercise 2:
    a lone summary in a reduce batch is carried up without a call; the run stops early,
    ``truncated``, when a round could make no progress (see the module docstring). The
    method is the one the batched-summarization request describes.

    Raises TypeError/ValueError naming a bad argument or item; WindowExceededError,
    before any call, when the instructions leave no room, an item cannot fit a prompt,
    or the single prompt is over the window; ValueError when the summariser returns a
    non-str or empty text. The summariser's own errors propagate. Keeps no state.
    """
    _check_args(summariser, window, batch_size, depth, max_rounds, measure, instructions)
    items = as_items(items)
    unit = unit_of(measure)
    entries = [Summary(0, it.text, (it.id,), 0, it.id, (), 0) for it in items]
    first = _first_batches(items, window, batch_size, depth, measure, instructions, unit)

    def pack(level: Sequence[Summary]) -> list[_Batch]:
        up = level[0].level + 1
        return _batches(pack_level([s.id for s in level], [s.text for s in level], up,
                                   instructions, window, batch_size, measure), level, up)

    def merge(batch: _Batch) -> Summary:
        text = summariser(batch.prompt)
        sid = f"L{batch.level}.{batch.number}"
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"the summariser returned {text!r:.40} for {sid}; "
                             f"a summary must be a non-empty str")
        text = text.strip()
        return Summary(batch.level, text, _sources(batch), measured(measure, text), sid,
                       tuple(e.id for e in batch.entries), batch.tokens)

    def carry(batch: _Batch) -> Summary:
        (only,) = batch.entries
        return Summary(batch.level, only.text, only.source_ids, only.tokens,
                       f"L{batch.level}.{batch.number}", (only.id,), 0, carried=True)

    levels = [tuple(merge(batch) for batch in _batches(first, entries, 1))]   # the map
    reason = ""
    try:
        for level in reduce_rounds(levels[0], pack, merge, max_rounds - 1, carry):
            levels.append(tuple(level))
    except NoRoom as no_room:
        reason = (f"no progress: summary {no_room.label} alone needs a prompt of "
                  f"{no_room.tokens} {unit}, more than the window of {window}")
    top = levels[-1]
    if len(top) > 1 and not reason:
        reason = (f"max_rounds={max_rounds} reached with {len(top)} summaries left"
                  if len(levels) == max_rounds else
                  f"no progress: level {len(levels) + 1} would hold each of the {len(top)} "
                  f"level-{len(levels)} summaries in a batch of its own")
    every = list(chain.from_iterable(levels))
    return HierarchyResult("\n\n".join(s.text for s in top), tuple(levels),
                           sum(not s.carried for s in every),
                           max(s.prompt_tokens for s in every), bool(reason), reason, unit)


def _sources(batch: _Batch) -> tuple[str, ...]:
    """The item ids a batch's summary covers: its entries' ``source_ids``, in order."""
    return tuple(chain.from_iterable(e.source_ids for e in batch.entries))
