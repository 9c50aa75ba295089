"""Compaction after the reply: an add never calls the summariser; the caller compacts
once the reply has gone out.

:mod:`kit.memory.background` moves compaction onto a thread of the same process. A web
service whose workers hold nothing between requests needs the other order: the turn
is answered and committed, the reply is streamed, and only then, still holding the
session's lease, the worker folds what is due and saves the state (lesson 10, and the
summary-memory lesson's "run it in the background after sending the reply"):

    memory.add("user", question)          # never compacts: at most a note that it is due
    memory.add("assistant", reply)
    ... send the reply ...
    memory.compact()                      # the summariser runs here, off the reply path

Between the two the memory may be over its budget: it is a context the next turn never
sees, because the next turn of the session waits for the lease, and compaction runs
before the lease is given back. If the worker dies in between, the state it committed
with the turn is whole (over budget, nothing lost) and the next turn's compaction folds
it.
"""
from __future__ import annotations

from kit.memory.base import CompactionError, TraceEvent
from kit.memory.robust import RobustSummaryMemory

__all__ = ["DeferredSummaryMemory", "COMPACTION_ROLE", "MAX_ROUNDS"]

COMPACTION_ROLE = "compaction"   # the role column of the trace event compact() records
MAX_ROUNDS = 16                  # plan-compute-commit rounds one compact() runs at most


class DeferredSummaryMemory(RobustSummaryMemory):
    """A :class:`~kit.memory.robust.RobustSummaryMemory` whose adds never compact;
    :meth:`compact` folds what is due. Same arguments, name and saved state as
    ``RobustSummaryMemory`` (a session saved by one restores into the other).

    :meth:`add` raises what ``RobustSummaryMemory.add`` raises for a refused message,
    never :class:`~kit.memory.base.CompactionError`; its trace note says when a
    compaction is due. ``compaction_due`` says whether one is.
    """

    def _after_append(self) -> dict:
        old, _, firings = self._plan(self.stamp_newest())
        if not firings:
            return {}
        why = "; ".join(f.why for f in firings)
        if not old:
            return {"note": f"{why}, but nothing can be folded: keep_recent={self.keep_recent}, "
                            f"and a question stays with its replies", "trigger": why}
        return {"note": f"{why}: compaction due after the reply", "trigger": why}

    @property
    def compaction_due(self) -> bool:
        """True if a compaction would fold something now (the back-off allowing)."""
        old = self._plan(self.clock() if self.max_age is not None else None)[0]
        return bool(old) and (self.backoff.allows(self.added) or self.fallback is not None)

    def compact(self) -> list[TraceEvent]:
        """Fold what is due, one plan-compute-commit round at a time (at most
        :data:`MAX_ROUNDS`), and return the rounds' trace events (role
        ``"compaction"``, ``message`` = the newest message number, ``moved`` = the
        messages folded); [] if nothing was due. The state is saved after each round
        when a store is attached. Raises :class:`~kit.memory.base.CompactionError` (the
        summariser's exception as its cause) if a round fails: that round changed
        nothing, earlier rounds stay, and the trace records a "failed" event."""
        events: list[TraceEvent] = []
        for _ in range(MAX_ROUNDS):
            if not self.compaction_due:
                break
            old, recent, firings = self._plan(self.clock() if self.max_age is not None
                                              else None)
            size_before, turns_before = self.size, len(self.turns)
            try:
                update = self.backoff.run(self.added, lambda use_model: self.compute_summary(
                    self.summary, old, use_model))
            except Exception as exc:
                event = self._event(size_before, turns_before, action="failed",
                                    note=f"{type(exc).__name__}: {exc}; every turn kept")
                raise CompactionError(f"compaction after message {self.added} failed "
                                      f"({type(exc).__name__}: {exc}); every turn was kept",
                                      event) from exc
            fields = self.commit_compaction(update, old, recent, firings)
            events.append(self._event(size_before, turns_before, **fields))
            if self.link:
                self.link.save()
        return events

    def _event(self, size_before: int, turns_before: int, **fields) -> TraceEvent:
        event = TraceEvent(self.added, COMPACTION_ROLE, 0, size_before, self.size,
                           turns_before, len(self.turns), self.unit, **fields)
        self.trace.append(event)
        return event
