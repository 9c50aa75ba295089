"""The floor every benchmark that prints a ratio compares against.

:class:`FloorMemory` does the least any memory must do: it measures each message once,
when it is added, keeps a running total of the sizes, and builds its context by joining
the lines. No eviction, no summary, no checks, no trace. A memory that runs at 1.2x the
floor spends a fifth on top of measuring and storing; one at 50x recounts or rebuilds
something on every call. It follows the learner protocol (``add``, ``context``,
``messages``, ``size``), so a benchmark drives it exactly like the memory under test.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable

from kit.validation import check_budget

__all__ = ["FloorMemory"]


class FloorMemory:
    """Count once, running total: ``add(role, content)``, ``context()``, ``messages()``,
    ``size`` (the texts' sizes in the measure's unit). ``measure``: ``str -> int``;
    ``budget``: None (keep everything) or an int >= 1 in the measure's unit: then the
    oldest messages are dropped while the running total is over it, the least any
    memory with a budget must do (the floor to compare a window or a summary memory
    against); ``count``: ``"text"`` (the content alone) or ``"rendered"`` (also its
    ``"role: "`` label and line break, each measured once, as the kit's memories count
    them: a budgeted floor's context then stays within the budget too). Raises
    TypeError / ValueError for a bad budget or count."""

    name = "floor (count once, running total)"

    def __init__(self, measure: Callable[[str], int], budget: int | None = None,
                 count: str = "text") -> None:
        if not callable(measure):
            raise TypeError(f"measure must be callable str -> int, got {measure!r:.60}")
        if count not in ("text", "rendered"):
            raise ValueError(f"count must be 'text' or 'rendered', got {count!r:.60}")
        self.measure, self.size, self.rendered = measure, 0, count == "rendered"
        self._labels: dict[str, int] = {}           # "role: " and "\n" -> size, measured once
        self.budget = None if budget is None else check_budget(budget)
        self.turns: deque[tuple[str, str, int]] = deque()

    def add(self, role: str, content: str) -> None:
        size = self.measure(content)
        if self.rendered:
            size += self._label(f"{role}: ") + self._label("\n")
        self.size += size
        self.turns.append((role, content, size))
        while self.budget is not None and self.size > self.budget and self.turns:
            self.size -= self.turns.popleft()[2]

    def _label(self, text: str) -> int:
        size = self._labels.get(text)
        if size is None:
            size = self._labels[text] = self.measure(text)
        return size

    def context(self) -> str:
        return "\n".join(f"{role}: {content}" for role, content, _ in self.turns)

    def messages(self) -> list[dict[str, str]]:
        return [{"role": role, "content": content} for role, content, _ in self.turns]
