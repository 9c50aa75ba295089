"""A prompt-cache model with two provider profiles (lesson 11).

A provider caches the work it did on a request's *prefix*: the next request that starts
with the same blocks, in the same order (tools, then the system prompt, then the
messages), is billed less for that part. Anything that changes a block (a timestamp in the
system prompt, a reordered tool list, a cleared tool result, a new summary) makes every
block after it new again. This module replays requests, each a list of blocks (a key that
identifies the block's content exactly, and its size in tokens), through one of two
profiles, as named parameters of :class:`CacheProfile`:

- :data:`OPENAI`, *automatic prefix*: every request is cached; a request reads the
  longest prefix it shares with a recent one, from 1,024 tokens, in 128-token steps;
  cached input at a discount (``read``: 0.1 for the GPT-5 family; 0.25 for GPT-4.1, 0.5
  for GPT-4o), no write surcharge; kept 5 to 10 minutes after its last use in memory (at
  most an hour; 24 h retention optional). Sources: OpenAI API docs, guide "Prompt caching"
  (developers.openai.com/api/docs/guides/prompt-caching); the announcement "Prompt Caching
  in the API" (openai.com/index/api-prompt-caching); the cookbook "Prompt Caching 201".
- :data:`ANTHROPIC`, *explicit breakpoints*: at most 4 ``cache_control`` breakpoints per
  request; at each, the prefix up to it is looked up, and so are the prefixes ending up to
  20 blocks before it (the look-back window); a hit reads that prefix, and the part up to
  the furthest breakpoint is written. A prefix shorter than the model's minimum is not
  cached (1,024 tokens for Claude Sonnet 4.5 and Opus 4.1; 2,048 for Sonnet 4.6 and Haiku
  3.5; 4,096 for Opus 4.5 and Haiku 4.5). Lifetime 5 minutes, refreshed by each hit (1 hour
  optional: :data:`ANTHROPIC_1H`); writes at 1.25 times the input price (2 times for 1
  hour), reads at 0.1. Source: Claude docs, "Prompt caching"
  (docs.claude.com/en/docs/build-with-claude/prompt-caching).

Simplifications, said once: a block is one message (a provider counts content blocks);
a hit ends at a block boundary (the 128-token step rounds it down); nothing is evicted
before its lifetime; every request goes to the same cache (no routing).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import accumulate

__all__ = ["CacheProfile", "Usage", "PromptCache", "OPENAI", "ANTHROPIC", "ANTHROPIC_1H",
           "PROFILES"]


@dataclass(frozen=True)
class CacheProfile:
    """A provider's caching rules. ``automatic``: every prefix is cached (else only at
    explicit breakpoints, at most ``breakpoints`` per request, looked up ``lookback``
    blocks back); ``min_tokens``: the shortest cacheable prefix; ``step``: hits are a
    multiple of it (tokens); ``read``, ``write``: price multipliers of the input price for
    cached reads and cache writes; ``lifetime``: seconds an entry lives after its last use."""

    name: str
    automatic: bool
    min_tokens: int
    step: int
    read: float
    write: float
    lifetime: float
    breakpoints: int = 0
    lookback: int = 0


OPENAI = CacheProfile("automatic prefix (OpenAI)", True, 1024, 128, 0.1, 1.0, 300.0)
ANTHROPIC = CacheProfile("explicit breakpoints (Anthropic)", False, 1024, 1, 0.1, 1.25, 300.0,
                         breakpoints=4, lookback=20)
ANTHROPIC_1H = replace(ANTHROPIC, name="explicit breakpoints, 1 h (Anthropic)", write=2.0,
                       lifetime=3600.0)
PROFILES = (OPENAI, ANTHROPIC)


@dataclass(frozen=True)
class Usage:
    """One request's input tokens: ``read`` from the cache, ``written`` to it (billed at
    the write multiplier), ``uncached`` (billed at the input price)."""

    read: int
    written: int
    uncached: int

    def bill(self, profile: CacheProfile) -> float:
        """Input-token equivalents: uncached + written x write + read x read."""
        return self.uncached + self.written * profile.write + self.read * profile.read


class PromptCache:
    """One provider cache under ``profile``; :meth:`send` replays a request through it."""

    def __init__(self, profile: CacheProfile) -> None:
        self.profile = profile
        self.entries: dict[int, float] = {}     # prefix hash -> expiry time (seconds)

    def _alive(self, prefix: int, now: float) -> bool:
        return self.entries.get(prefix, -1.0) >= now

    def send(self, keys: tuple, sizes: tuple, now: float, breakpoints: tuple = ()) -> Usage:
        """The :class:`Usage` of a request of blocks (``keys``, ``sizes`` in tokens) sent
        at ``now`` (seconds), with ``breakpoints`` (block indices; ignored by an automatic
        profile). Updates the cache. Raises ValueError for more breakpoints than the
        profile allows or one outside the request."""
        profile, total = self.profile, sum(sizes)
        ends = list(accumulate(sizes))
        prefixes, h = [], 0
        for key in keys:
            h = hash((h, key))
            prefixes.append(h)
        if profile.automatic:
            hit = next((i for i in range(len(keys) - 1, -1, -1)
                        if self._alive(prefixes[i], now)), -1)
            read = ends[hit] // profile.step * profile.step if hit >= 0 else 0
            read = read if read >= profile.min_tokens else 0
            for i, end in enumerate(ends):
                if end >= profile.min_tokens:
                    self.entries[prefixes[i]] = now + profile.lifetime
            return Usage(read, 0, total - read)
        marks = sorted(set(breakpoints))
        if len(marks) > profile.breakpoints or any(not 0 <= b < len(keys) for b in marks):
            raise ValueError(f"breakpoints must be at most {profile.breakpoints} block indices "
                             f"below {len(keys)}, got {breakpoints!r}")
        hit = -1
        for mark in marks:
            for i in range(mark, max(-1, mark - profile.lookback - 1), -1):
                if self._alive(prefixes[i], now):
                    hit = max(hit, i)
                    break
        read = ends[hit] if hit >= 0 else 0
        if hit >= 0:
            self.entries[prefixes[hit]] = now + profile.lifetime
        written_to = [m for m in marks if m > hit and ends[m] >= profile.min_tokens]
        for mark in written_to:
            self.entries[prefixes[mark]] = now + profile.lifetime
        written = ends[written_to[-1]] - read if written_to else 0
        return Usage(read, written, total - read - written)
