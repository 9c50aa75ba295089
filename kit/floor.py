"""The floor every benchmark that prints a ratio compares against.

:class:`FloorMemory` does the least any memory must do: it measures each message once,
when it is added, keeps a running total of the sizes, and builds its context by joining
the lines. No eviction, no summary, no checks, no trace. A memory that runs at 1.2x the
floor spends a fifth on top of measuring and storing; one at 50x recounts or rebuilds
something on every call. It follows the learner protocol (``add``, ``context``,
``messages``, ``size``), so a benchmark drives it exactly like the memory under test.
"""
from __future__ import annotations

from collections.abc import Callable

__all__ = ["FloorMemory"]


class FloorMemory:
    """Count once, running total: ``add(role, content)``, ``context()``, ``messages()``,
    ``size`` (the texts' sizes in the measure's unit). ``measure``: ``str -> int``."""

    name = "floor (count once, running total)"

    def __init__(self, measure: Callable[[str], int]) -> None:
        self.measure, self.size = measure, 0
        self.turns: list[tuple[str, str]] = []

    def add(self, role: str, content: str) -> None:
        self.size += self.measure(content)
        self.turns.append((role, content))

    def context(self) -> str:
        return "\n".join(f"{role}: {content}" for role, content in self.turns)

    def messages(self) -> list[dict[str, str]]:
        return [{"role": role, "content": content} for role, content in self.turns]
