"""Sliding windows: keep the newest messages, forget the rest completely (lesson 02).

- :class:`SlidingWindow` keeps at most ``max_messages`` messages.
- :class:`TokenWindow` keeps the newest messages whose sizes fit a token ``budget``.

Both keep the system prompt, and neither lets the window start with an assistant
message when it could start with a user one: a reply without its question confuses
the model, so when the window slides past a question its orphaned reply is evicted
too (and the trace says so). A conversation that opens with an assistant greeting
keeps it until the window first slides.
Sources: the context-handling post ("keep only the last N messages") and the summary-memory
lesson.
"""
from __future__ import annotations

from kit.memory.base import BudgetedMemory, Memory
from kit.messages import Message
from kit.tokens import Measure, cl100k_tokens
from kit.validation import check_int

__all__ = ["SlidingWindow", "TokenWindow", "fit_budget", "orphan_reply"]


def fit_budget(sizes: list[int], budget: int) -> int:
    """How many of the newest items fit together in ``budget`` (lesson 02, exercise 2).

    ``sizes``: item sizes, oldest first, in the budget's unit. Walks from the newest
    back and stops at the first that does not fit (the kept items are a contiguous
    run at the end); a total equal to the budget fits. ``sizes`` is not changed. Raises
    TypeError/ValueError unless ``budget`` is an int >= 0.
    """
    check_int("budget", budget, 0)
    total, count = 0, 0
    for size in reversed(sizes):
        if total + size > budget:
            break
        total += size
        count += 1
    return count


def orphan_reply(turns: list[Message]) -> bool:
    """True if ``turns`` starts with an assistant message and a user message follows."""
    return bool(turns) and turns[0].role == "assistant" and any(m.role == "user" for m in turns)


def _slide(memory: Memory, count: int, why: str) -> dict:
    """Evict the ``count`` oldest turns, then any reply left without its question.

    The window has slid (in this add or an earlier one) once its first turn is no
    longer message 1; from then on it must not open with an assistant message.
    Returns the trace fields.
    """
    turns = memory.turns
    if count <= 0 and not (turns and turns[0].role == "assistant" and turns[0].number > 1):
        return {}                                   # nothing to evict, no orphan possible
    moved = memory._evict(count) if count > 0 else ()
    notes = [why] if moved else []
    orphans = 0
    while memory.turns and memory.turns[0].number > 1 and orphan_reply(memory.turns):
        moved += memory._evict(1)
        orphans += 1
    if orphans:
        notes.append("dropped a reply whose question had left")
    return {"action": "evicted", "moved": moved, "note": "; ".join(notes)} if moved else {}


class SlidingWindow(Memory):
    """The newest ``max_messages`` messages (int >= 1), plus the system prompt.

    Raises ValueError/TypeError for a bad ``max_messages``.
    """

    name = "sliding window"

    def __init__(self, max_messages: int = 6, measure: Measure = cl100k_tokens,
                 system: str | None = None, *, count: str = "text") -> None:
        self.max_messages = check_int("max_messages", max_messages, 1)
        super().__init__(measure, system, count=count)

    def settings(self) -> dict:
        """``{"max_messages": ...}``: see :meth:`~kit.memory.base.Memory.settings`."""
        return {"max_messages": self.max_messages}

    def _after_append(self) -> dict:
        return _slide(self, len(self.turns) - self.max_messages,
                      f"over {self.max_messages} messages")


class TokenWindow(BudgetedMemory):
    """The newest messages that fit ``budget`` (in the measure's unit), plus the system prompt.

    ``TokenWindow(budget, measure=cl100k_tokens, system=None, *, count="text")``. This
    is lesson 02's window: it has no ``keep_recent``, so in a run of long replies (a
    tool loop) the question they answer can leave; the memories with ``keep_recent``
    >= 1 (summary, recall) never evict the newest user message. The system prompt
    counts against the budget; bad budgets and oversized messages raise as described
    in :class:`~kit.memory.base.BudgetedMemory`.
    """

    name = "token window"

    def _after_append(self) -> dict:
        count, size = 0, self.size
        while size > self.budget:             # the oldest go first, off the running total
            size -= self.turns[count].tokens
            count += 1
        return _slide(self, count, f"over budget ({self.budget} {self.unit})" if count else "")
