"""Map-reduce summarization of a large memory set: summarise batches, then the summaries.

Seed 003 ("Batched Summarization for Long-Term Memory"): one prompt holding every memory
item overflows the model's context window. Map-reduce summarization instead

1. *map*: packs the items into batches whose prompts fit the ``window`` and summarises
   each batch (the summaries of level 1);
2. *reduce*: packs the level-1 summaries the same way and summarises each batch
   (level 2), and so on until one summary is left.

Sizes are in the unit of ``measure`` (default :func:`kit.tokens.approx_tokens`: tokens).
Each item is measured once; each prompt is measured once before it is sent, and none is
larger than the window. Decisions, each tested in ``tests/test_hierarchical.py``:

- An item too large for a prompt of its own raises :class:`WindowExceededError` before
  any model call: split long documents into several items first. Nothing is dropped.
- ``depth="single"`` sends one prompt with every item, or raises
  :class:`WindowExceededError` naming both sizes without sending it.
- Termination: a reduce round must leave fewer summaries than it got. When it cannot
  (every batch would hold one summary, or one summary alone no longer fits a prompt:
  the summariser does not shrink its input), or ``max_rounds`` levels are done, the run
  stops *before* the next call and returns ``truncated=True`` with a ``reason``; its
  ``summary`` is then the top level's summaries joined by blank lines.
- Retention: every summary of every level is kept with ``source_ids``, the ids of the
  items it covers; each item id is under exactly one summary of each level.

Prompt layout (:func:`build_batch_prompt`; the stubs here read it back)::

    <instructions>

    Memory items, one per line as [id] text:      <- "Batch summaries, ..." above level 1
    [m1] The user prefers window seats.
    [m2] Order 1234 ships on Monday.
      further lines of a text are indented by two spaces

Ids stay in the prompt so a fact can be traced back: item ids at level 1, summary ids
(``L1.3``: level 1, batch 3) above, which :attr:`HierarchyResult.levels` maps to items.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

from kit.llm import PromptModel
from kit.memory.base import check_int
from kit.messages import indent_continuation
from kit.tokens import Measure, approx_tokens, measured, unit_of
from kit.trace import Table

__all__ = [
    "MemoryItem", "Summary", "HierarchyResult", "WindowExceededError", "DEPTHS",
    "HIERARCHY_PROMPT", "ITEMS_HEADER", "SUMMARIES_HEADER", "as_items",
    "build_batch_prompt", "parse_batch_prompt", "plan_batches", "hierarchical_summary",
    "first_sentence_summariser", "ShrinkingStub",
]

DEPTHS = ("single", "hierarchical")
HIERARCHY_PROMPT = (
    "Summarise the entries below in one short text. Keep, exactly as written, every name, "
    "number, id, date, decision and stated constraint; drop small talk. After each fact, "
    "cite the [id] of the entry it came from."
)
ITEMS_HEADER = "Memory items, one per line as [id] text:"
SUMMARIES_HEADER = "Batch summaries, one per line as [id] text:"


@dataclass(frozen=True)
class MemoryItem:
    """One memory to summarise: ``id`` (unique str, no line break or brackets), ``text``."""

    id: str
    text: str


@dataclass(frozen=True)
class Summary:
    """One batch summary. ``level``: 1 for a summary of items, 2 for a summary of level-1
    summaries...; ``source_ids``: the ids of every item it covers, in input order;
    ``tokens``: size of ``text`` in the measure's unit; ``id``: ``"L<level>.<batch>"``;
    ``children``: the ids it summarised directly (items at level 1, summaries above);
    ``prompt_tokens``: size of the prompt that produced it."""

    level: int
    text: str
    source_ids: tuple[str, ...]
    tokens: int
    id: str
    children: tuple[str, ...]
    prompt_tokens: int


@dataclass(frozen=True)
class HierarchyResult:
    """What :func:`hierarchical_summary` returns.

    ``summary``: the final summary (if ``truncated``, the top level's summaries joined by
    blank lines); ``levels``: the summaries of each level, ``levels[0]`` being level 1;
    ``calls``: model calls made; ``largest_prompt_tokens``: the largest prompt sent, in
    ``unit``; ``truncated``: True if the run stopped with more than one summary left,
    and ``reason`` says why ("" otherwise).
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

    def table(self) -> Table:
        """One row per summary: level, id, what it summarised, items covered, size."""
        rows = [[s.level, s.id, _ends(s.children), len(s.source_ids), s.tokens]
                for s in self.summaries]
        return Table(["level", "summary", "summarises", "items covered",
                      f"size ({self.unit})"], rows)


class WindowExceededError(ValueError):
    """A prompt would be larger than the window; it was not sent. ``tokens`` is the size
    it needs (in the measure's unit) and ``window`` the limit."""

    def __init__(self, message: str, tokens: int, window: int) -> None:
        super().__init__(message)
        self.tokens, self.window = tokens, window


def _ends(ids: Sequence[str]) -> str:
    return ids[0] if len(ids) == 1 else f"{ids[0]} .. {ids[-1]} ({len(ids)})"


def as_items(items: Iterable[MemoryItem | tuple[str, str]]) -> list[MemoryItem]:
    """Items as a list of :class:`MemoryItem` from items or ``(id, text)`` pairs.

    Raises TypeError for a string or a malformed entry, ValueError for no items, an id
    that is empty or holds a line break, ``[`` or ``]``, empty text, or a repeated id.
    """
    if isinstance(items, (str, bytes)):
        raise TypeError(f"items must be a list of MemoryItem or (id, text), not one string: {items!r:.60}")
    result, seen = [], {}
    for i, item in enumerate(items):
        if not isinstance(item, MemoryItem):
            if not (isinstance(item, tuple) and len(item) == 2):
                raise TypeError(f"item {i} must be a MemoryItem or an (id, text) pair, got {item!r:.60}")
            item = MemoryItem(*item)
        if not isinstance(item.id, str) or not isinstance(item.text, str):
            raise TypeError(f"item {i} needs a str id and text, got {item!r:.60}")
        if not item.id or any(c in item.id for c in "[]") or item.id.splitlines() != [item.id]:
            raise ValueError(f"item {i} has id {item.id!r}: ids must be non-empty, one line, "
                             f"without [ or ]")
        if not item.text.strip():
            raise ValueError(f"item {item.id!r} has empty text: nothing to summarise")
        if item.id in seen:
            raise ValueError(f"duplicate id {item.id!r} at items {seen[item.id]} and {i}")
        seen[item.id] = i
        result.append(item)
    if not result:
        raise ValueError("items is empty: nothing to summarise")
    return result


def _head(instructions: str, level: int) -> str:
    return f"{instructions}\n\n{ITEMS_HEADER if level == 1 else SUMMARIES_HEADER}\n"


def _line(label: str, text: str) -> str:
    return f"[{label}] {indent_continuation(text)}"


def build_batch_prompt(entries: Sequence[tuple[str, str]], level: int = 1,
                       instructions: str = HIERARCHY_PROMPT) -> str:
    """The prompt for one batch of ``(id, text)`` entries (layout in the module docstring).

    ``level`` 1 lists memory items, a higher level batch summaries.
    """
    return _head(instructions, level) + "\n".join(_line(i, t) for i, t in entries)


def parse_batch_prompt(prompt: str) -> list[tuple[str, str]]:
    """The ``(id, text)`` entries of a prompt built by :func:`build_batch_prompt`.

    Raises ValueError if the prompt has no header line.
    """
    lines = prompt.split("\n")
    heads = [n for n, line in enumerate(lines) if line in (ITEMS_HEADER, SUMMARIES_HEADER)]
    if not heads:
        raise ValueError(f"not a batch prompt (no {ITEMS_HEADER!r} line): {prompt[:60]!r}")
    entries: list[list[str]] = []
    for line in lines[heads[-1] + 1:]:
        match = re.match(r"\[([^\]]+)\] (.*)", line)
        if match:
            entries.append([match[1], match[2]])
        elif entries and line.startswith("  "):
            entries[-1][1] += "\n" + line[2:]
    return [(label, text) for label, text in entries]


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


class _NoRoom(Exception):
    """Internal: entry ``label`` alone needs a prompt of ``tokens``."""

    def __init__(self, label: str, tokens: int) -> None:
        super().__init__(label, tokens)
        self.label, self.tokens = label, tokens


def _pack(labels, texts, level, instructions, window, batch_size, measure):
    """Batches ``(start, stop, prompt, tokens)`` of one level, each prompt measured and
    within the window. Raises _NoRoom for an entry that cannot fit a prompt alone.

    Estimate per entry: its line plus 1 (the line break, and the rounding of a
    characters-based measure). If a measured prompt is still over, the batch shrinks.
    """
    head = _head(instructions, level)
    room = window - measured(measure, head)
    lines = [_line(label, text) for label, text in zip(labels, texts)]
    sizes = [measured(measure, line) + 1 for line in lines]
    batches, start = [], 0
    while start < len(lines):
        stop = _batch_end(sizes, start, room, batch_size)
        while True:
            prompt = head + "\n".join(lines[start:stop])
            tokens = measured(measure, prompt)
            if tokens <= window or stop == start + 1:
                break
            stop -= 1
        if tokens > window:
            raise _NoRoom(labels[start], tokens)
        batches.append((start, stop, prompt, tokens))
        start = stop
    return batches


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
        head = measured(measure, _head(instructions, level))
        if head >= window:
            raise WindowExceededError(f"the instructions and header take {head} "
                                      f"{unit_of(measure)}, leaving no room in a window of "
                                      f"{window}", head, window)


def hierarchical_summary(items: Iterable[MemoryItem | tuple[str, str]],
                         summariser: PromptModel, *, window: int = 4096,
                         batch_size: int = 50, depth: str = "hierarchical",
                         max_rounds: int = 10, measure: Measure = approx_tokens,
                         instructions: str = HIERARCHY_PROMPT) -> HierarchyResult:
    """Map-reduce summarization of ``items`` within a context ``window`` (seed 003).

    ``items``: :class:`MemoryItem` objects or ``(id, text)`` pairs; ``summariser``: a
    prompt model ``str -> str``; ``window``: the largest prompt, in ``measure``'s unit;
    ``batch_size``: at most this many entries (int >= 2) per prompt; ``depth``:
    "hierarchical" (map, then reduce until one summary is left) or "single" (one prompt
    with every item; ``batch_size`` and ``max_rounds`` unused); ``max_rounds``: at most
    this many levels (int >= 1). Stops early, ``truncated``, when a round could make no
    progress (see the module docstring).

    Raises TypeError/ValueError naming a bad argument or item; WindowExceededError,
    before any call, when the instructions leave no room, an item cannot fit a prompt,
    or the single prompt is over the window; ValueError when the summariser returns a
    non-str or empty text. The summariser's own errors propagate. Keeps no state.
    """
    _check_args(summariser, window, batch_size, depth, max_rounds, measure, instructions)
    items = as_items(items)
    unit = unit_of(measure)
    labels, texts = [it.id for it in items], [it.text for it in items]
    sources = [(it.id,) for it in items]
    if depth == "single":
        prompt = build_batch_prompt(list(zip(labels, texts)), 1, instructions)
        tokens = measured(measure, prompt)
        if tokens > window:
            raise WindowExceededError(f"single pass: the prompt for {len(items)} items has "
                                      f"{tokens} {unit}, more than the window of {window}; "
                                      f"not sent (use depth='hierarchical')", tokens, window)
        batches = [(0, len(items), prompt, tokens)]
    else:
        try:
            batches = _pack(labels, texts, 1, instructions, window, batch_size, measure)
        except _NoRoom as no_room:
            raise WindowExceededError(f"item {no_room.label!r} alone needs a prompt of "
                                      f"{no_room.tokens} {unit}, more than the window of "
                                      f"{window}; split it into smaller items",
                                      no_room.tokens, window) from None
    levels: list[tuple[Summary, ...]] = []
    reason = ""
    while True:
        level = len(levels) + 1
        levels.append(_summarise(batches, labels, sources, level, summariser, measure))
        if len(levels[-1]) == 1:
            break
        if level == max_rounds:
            reason = f"max_rounds={max_rounds} reached with {len(levels[-1])} summaries left"
            break
        labels, texts = [s.id for s in levels[-1]], [s.text for s in levels[-1]]
        sources = [s.source_ids for s in levels[-1]]
        try:
            batches = _pack(labels, texts, level + 1, instructions, window, batch_size, measure)
        except _NoRoom as no_room:
            reason = (f"no progress: summary {no_room.label} alone needs a prompt of "
                      f"{no_room.tokens} {unit}, more than the window of {window}")
            break
        if len(batches) == len(labels):
            reason = (f"no progress: level {level + 1} would hold each of the {len(labels)} "
                      f"level-{level} summaries in a batch of its own")
            break
    return HierarchyResult("\n\n".join(s.text for s in levels[-1]), tuple(levels),
                           sum(len(level) for level in levels),
                           max(s.prompt_tokens for s in chain.from_iterable(levels)),
                           bool(reason), reason, unit)


def _summarise(batches, labels, sources, level, summariser, measure) -> tuple[Summary, ...]:
    """One round: call the summariser on each batch's prompt, in order."""
    summaries = []
    for number, (start, stop, prompt, tokens) in enumerate(batches, 1):
        sid = f"L{level}.{number}"
        text = summariser(prompt)
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"the summariser returned {text!r:.40} for {sid}; "
                             f"a summary must be a non-empty str")
        text = text.strip()
        summaries.append(Summary(level, text, tuple(chain.from_iterable(sources[start:stop])),
                                 measured(measure, text), sid, tuple(labels[start:stop]),
                                 tokens))
    return tuple(summaries)


_SENTENCE = re.compile(r"\s*(.+?[.!?])(?=\s|$)", re.S)


def first_sentence_summariser(prompt: str) -> str:
    """Deterministic stub: the first sentence of each entry, joined by spaces.

    A sentence ends at ``.``, ``!`` or ``?`` followed by whitespace or the end (the whole
    text if none). Reads :func:`parse_batch_prompt`'s layout; ids are not repeated.
    """
    firsts = []
    for _, text in parse_batch_prompt(prompt):
        match = _SENTENCE.match(text)
        firsts.append(match[1] if match else text.strip())
    return " ".join(" ".join(f.split()) for f in firsts)


class ShrinkingStub:
    """Deterministic stub: the first ``ceil(ratio * words)`` words of the entries' texts.

    ``ratio`` in (0, 1]: 0.1 keeps a tenth of the words; 1.0 keeps them all (a summariser
    that does not shrink). ``calls`` counts calls. Raises ValueError for another ratio.
    """

    def __init__(self, ratio: float) -> None:
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
            raise ValueError(f"ratio must be a number in (0, 1], got {ratio!r}")
        self.ratio, self.calls = ratio, 0

    def __call__(self, prompt: str) -> str:
        self.calls += 1
        words = " ".join(text for _, text in parse_batch_prompt(prompt)).split()
        return " ".join(words[:math.ceil(self.ratio * len(words))])
