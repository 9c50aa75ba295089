"""When does a summary memory compact, and how much does it fold? Triggers decide.

A trigger looks at a memory and answers with a :class:`Firing` (why it fires, in words,
and how many of the oldest verbatim turns it wants folded) or None. The memory asks each
of its triggers after every add, folds the largest span any of them wants (never the
``keep_recent`` newest turns, never a question without its reply), and writes the
``why`` into the trace.

- :class:`OverBudget`: size > ``budget`` (the summary-memory lesson). With a ``target`` it
  folds only until the size is back to ``target``: the gap between budget and target is the
  *hysteresis* that stops it from firing on every turn once the context is full.
- :class:`TooManyTurns`: more than ``max_messages`` verbatim turns (the context-handling
  post's "recent window exceeds 6 messages").
- :class:`TooOld`: the oldest foldable turn is older than ``max_age`` seconds on an
  injectable clock (the context-handling post's "oldest message older than X minutes").

Sizes are in the memory's unit (``memory.unit``: tokens, words or characters); ages in
seconds of the memory's ``clock``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Protocol

from kit.messages import Message

__all__ = ["Firing", "Trigger", "Watched", "OverBudget", "TooManyTurns", "TooOld"]


class Watched(Protocol):
    """What a trigger reads of a memory (a :class:`~kit.memory.robust.RobustSummaryMemory`):
    its ``size`` and ``unit``, the verbatim ``turns``, the turns it may fold now
    (``foldable()``) and ``added_at`` (message number -> clock reading)."""

    size: int
    unit: str
    turns: list[Message]
    added_at: dict[int, float]

    def foldable(self) -> list[Message]: ...


class Firing(NamedTuple):
    """A trigger fired: ``why`` (words, for the trace), ``fold`` (how many of the oldest
    verbatim turns it wants folded; the memory caps it at what ``keep_recent`` allows)
    and ``quiet`` (True: the trace note need not repeat ``why``, the size columns
    already say it)."""

    why: str
    fold: int
    quiet: bool = False


class Trigger(Protocol):
    """Anything with ``check(memory, now) -> Firing | None``; ``now`` is the memory's
    clock reading (None when the memory keeps no times)."""

    def check(self, memory: Watched, now: float | None) -> Firing | None: ...


@dataclass(frozen=True)
class OverBudget:
    """Fires when ``memory.size > budget``.

    ``target=None`` folds every turn older than ``keep_recent``, as in the summary-memory
    lesson. With a ``target`` (0 <= target <= budget) it folds the fewest oldest turns that
    bring the size to ``target`` or below, counted before the new summary exists (the
    summary grows by what the model writes). ``target == budget`` is no hysteresis: fold
    just enough, so it fires again on almost every turn.
    """

    budget: int
    target: int | None = None

    def check(self, memory: Watched, now: float | None) -> Firing | None:
        size = memory.size
        if size <= self.budget:
            return None
        if self.target is None:
            return Firing("over budget", len(memory.turns), quiet=True)
        fold, excess = 0, size - self.target
        while excess > 0 and fold < len(memory.turns):
            excess -= memory.turns[fold].tokens
            fold += 1
        return Firing(f"over budget ({size} > {self.budget} {memory.unit}), folding down "
                      f"to the target of {self.target} {memory.unit}", fold)


@dataclass(frozen=True)
class TooManyTurns:
    """Fires when more than ``max_messages`` turns are verbatim; folds every turn older
    than ``keep_recent``, so the next firing is ``max_messages - keep_recent`` turns away
    (a trigger of the context-handling post)."""

    max_messages: int

    def check(self, memory: Watched, now: float | None) -> Firing | None:
        count = len(memory.turns)
        if count <= self.max_messages:
            return None
        return Firing(f"{count} verbatim turns > max_messages={self.max_messages}", count)


@dataclass(frozen=True)
class TooOld:
    """Fires when the oldest turn outside ``keep_recent`` is more than ``max_age`` seconds
    old; folds every such turn that is (a trigger of the context-handling post). Ages come
    from ``memory.added_at`` (message number -> clock reading at its add) and ``now``.
    """

    max_age: float

    def check(self, memory: Watched, now: float | None) -> Firing | None:
        if now is None:
            return None
        foldable = memory.foldable()
        stale = 0
        for message in foldable:
            added = memory.added_at.get(message.number)
            if added is None or now - added <= self.max_age:
                break
            stale += 1
        if not stale:
            return None
        first = foldable[0]
        age = now - memory.added_at[first.number]
        return Firing(f"message {first.number} is {age:g} s old > max_age={self.max_age:g} s",
                      stale)
