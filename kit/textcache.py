"""A bounded cache for pure functions of a text: what the kit works out once per turn.

A benchmark feeds one conversation to many memories, and a running summary's lines come
back at every compaction, so the tokens, dates, sentences and facts of a text are worth
keeping. A cache bounded by entries alone is not bounded in memory (16,384 texts of
100 KB each hold 1.6 GB), so :func:`text_cache` keeps only texts of at most ``longest``
characters (a turn, a sentence, a summary line) and computes longer ones each time.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

__all__ = ["text_cache", "ENTRIES", "LONGEST"]

ENTRIES = 1 << 14          # texts kept per cache, the least recently used dropped
LONGEST = 2048             # characters: a longer text is not kept
R = TypeVar("R")


def text_cache(function: Callable[..., R]) -> Callable[..., R]:
    """``function(text, *rest)``, kept for the last :data:`ENTRIES` calls whose ``text``
    has at most :data:`LONGEST` characters (``rest`` must be hashable). The result is
    shared between callers: return something immutable (a tuple, a frozenset)."""
    kept = functools.lru_cache(maxsize=ENTRIES)(function)

    @functools.wraps(function)
    def cached(text, *rest):
        if isinstance(text, str) and len(text) <= LONGEST:
            return kept(text, *rest)
        return function(text, *rest)

    cached.cache_info, cached.cache_clear = kept.cache_info, kept.cache_clear
    return cached
