"""The pieces of one compaction that do not touch a memory: calling the summariser,
checking its reply, and the value a compaction commits.

A compaction is split in three so that the model call can run anywhere (even on a
worker thread, see :mod:`kit.memory.background`) while the memory changes in one
short step:

1. ``plan_compaction()``: which turns to fold (pure);
2. ``compute_summary(summary, old)``: the model call, returning a :class:`SummaryUpdate`
   (pure: the memory is not touched);
3. ``commit_compaction(update, old, recent)``: swap the new summary and turns in.

Source: seed 000 ("state changes only after the model call returns") and the
compute-then-commit style of LangMem's ``summarize_messages``.
"""
from __future__ import annotations

from dataclasses import dataclass

from kit.tokens import Measure, measured

__all__ = ["SummaryUpdate", "checked_update"]


@dataclass(frozen=True)
class SummaryUpdate:
    """A new running summary, computed but not yet committed.

    ``text``: the summary (stripped, non-empty); ``tokens``: its size in the memory's
    unit; ``by``: who wrote it ("model" or "fallback"); ``note``: what else happened, in
    words ("" when nothing did), added to the trace note.
    """

    text: str
    tokens: int
    by: str = "model"
    note: str = ""


def checked_update(reply: object, measure: Measure, n_turns: int, by: str = "model",
                   note: str = "") -> SummaryUpdate:
    """Check a summariser's ``reply`` and measure it (one call to ``measure``).

    Raises TypeError for a non-str reply, ValueError for an empty one (``n_turns``, the
    number of turns it should have covered, goes into the message), and what
    :func:`kit.tokens.measured` raises for a measure that does not return an int >= 0.
    """
    if not isinstance(reply, str):
        raise TypeError(f"summariser must return str, got {type(reply).__name__}")
    text = reply.strip()
    if not text:
        raise ValueError(f"the summariser returned an empty summary for {n_turns} turns; "
                         f"kept the summary and turns as they were")
    return SummaryUpdate(text, measured(measure, text), by, note)
