"""Memory items: what map-reduce summarization takes as input, and a seeded sample.

- :class:`MemoryItem`: one memory, an ``id`` and a ``text``.
- :func:`as_items`: checks a list of items or ``(id, text)`` pairs and returns items.
- :func:`sample_items`: ``n`` made-up items from a fixed seed, the items of lesson 05 and
  of ``benchmarks/hierarchical.py`` (the batched-summarization request asks for benchmarks
  of single-pass against batched summarization; this is their data).
"""
from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from kit.validation import check_int

__all__ = ["MemoryItem", "as_items", "sample_items"]

_PEOPLE = ("Asha", "Ben", "Chen", "Dara", "Eli", "Farah", "Goran", "Hana")
_FACTS = ("prefers window seats", "is allergic to peanuts", "paid invoice {n}",
          "asked for a refund on order {n}", "moved the meeting to day {n}",
          "set a budget of {n} euros", "wants the report by day {n}",
          "changed plan to tier {n}")
_DETAILS = ("It was confirmed by email.", "The agent noted it twice.",
            "No follow-up is needed.", "Check again next week.")


@dataclass(frozen=True)
class MemoryItem:
    """One memory to summarise: ``id`` (unique str, no line break or brackets), ``text``."""

    id: str
    text: str


def as_items(items: Iterable[MemoryItem | tuple[str, str]]) -> list[MemoryItem]:
    """Items as a list of :class:`MemoryItem` from items or ``(id, text)`` pairs.

    Raises TypeError for a string or a malformed entry, ValueError for no items, an id
    that is empty or holds a line break, ``[`` or ``]``, empty text, or a repeated id.
    """
    if isinstance(items, (str, bytes)):
        raise TypeError(f"items must be a list of MemoryItem or (id, text), not one string: "
                        f"{items!r:.60}")
    result, seen = [], {}
    for i, item in enumerate(items):
        if not isinstance(item, MemoryItem):
            if not (isinstance(item, tuple) and len(item) == 2):
                raise TypeError(f"item {i} must be a MemoryItem or an (id, text) pair, "
                                f"got {item!r:.60}")
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


def sample_items(n: int, seed: int = 0) -> list[MemoryItem]:
    """``n`` made-up memory items ``m1`` .. ``m<n>``, the same for the same ``seed``.

    Each text is two sentences, a fact about a person ("Ben paid invoice 4120.") and a
    detail ("No follow-up is needed."): 10 to 18 tokens by
    :func:`kit.tokens.cl100k_tokens` (about 18 with its ``[id]`` as a prompt line). Ids
    are unique. The items for a smaller ``n`` are
    the first ones for a larger ``n`` (same seed), so one list can be sliced for several
    sizes. ``n``: int >= 0 (0 gives ``[]``); ``seed``: any int. Raises TypeError or
    ValueError naming a bad ``n``.
    """
    check_int("n", n, 0)
    rng = random.Random(seed)
    items = []
    for i in range(1, n + 1):
        person, fact = rng.choice(_PEOPLE), rng.choice(_FACTS)
        fact = fact.format(n=rng.randrange(1000, 10000))
        items.append(MemoryItem(f"m{i}", f"{person} {fact}. {rng.choice(_DETAILS)}"))
    return items
