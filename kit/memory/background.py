"""Background compaction: the reply goes out first, the summary is updated after.

A compaction makes the add that triggers it as slow as one summariser call. The
context-handling post ("build the summarization step as an async background job") and the
summary-memory lesson ("run it in the background after sending the reply, so the next
request finds the summary ready") move that call off the request path:

    memory = BackgroundSummaryMemory(summariser, budget=3000)
    memory.add("user", question)          # returns at once, even when over budget
    reply = chat(memory.messages())       # may still see the old summary: that is fine
    memory.add("assistant", reply)
    memory.wait()                         # only tests and lessons need to wait

How it stays correct, with the three steps of :mod:`kit.memory.compaction`:

- one worker thread per memory at a time; an add that finds it running starts none;
- the worker plans and snapshots the summary under the memory's lock, calls the
  model *without* the lock (adds go on meanwhile), then commits under the lock:
  ``commit_compaction`` removes exactly the ``old`` turns it summarised, by number,
  so turns added while the model ran stay verbatim;
- after a commit it plans again (those new turns may be over budget too) and stops
  when nothing is due;
- a failing summariser changes nothing: the failure goes into the trace and
  ``last_error``, :meth:`BackgroundSummaryMemory.flush` raises it, and the next add
  retries with the larger span.

With a :mod:`kit.store` attached, each message is written during its add (before any
compaction) and the state is saved after each add and each background commit, so a
process that dies mid-compaction loses no turn.
"""
from __future__ import annotations

import threading

from kit.memory.base import CompactionError, TraceEvent
from kit.memory.compaction import callers
from kit.memory.robust import RobustSummaryMemory
from kit.messages import Message, span

__all__ = ["BackgroundSummaryMemory", "BACKGROUND_ROLE"]

BACKGROUND_ROLE = "background"   # the role column of a trace event the worker records


class BackgroundSummaryMemory(RobustSummaryMemory):
    """A :class:`~kit.memory.robust.RobustSummaryMemory` whose compactions run on a
    worker thread after :meth:`add` has returned.

    Same arguments and errors as ``RobustSummaryMemory``. Differences: :meth:`add` never
    calls the summariser and never raises :class:`~kit.memory.base.CompactionError`;
    it is safe to call from several threads (a lock serialises adds and commits), and
    ``size``, ``context()``, ``messages()`` and ``len()`` read a consistent state while
    a compaction runs. ``pending`` says a compaction is running; :meth:`wait` and
    :meth:`flush` block until it is over; ``last_error`` holds the last background
    failure (None after a success). Background compactions are trace events with role
    ``"background"``, ``tokens`` 0 and ``message`` = the newest message number.
    """

    def __init__(self, *args, **kwargs) -> None:
        self._lock = threading.RLock()
        self._idle = threading.Condition(self._lock)
        self._worker: threading.Thread | None = None
        self.last_error: Exception | None = None
        self._failure: TraceEvent | None = None
        super().__init__(*args, **kwargs)

    # -- reads under the lock ------------------------------------------------------
    @property
    def size(self) -> int:
        """System prompt + summary + verbatim turns, in ``unit`` (read under the lock)."""
        with self._lock:
            return super().size

    def context(self, query: str | None = None) -> str:
        """As :meth:`kit.memory.base.Memory.context` (``query`` is ignored), read under
        the lock."""
        with self._lock:
            return super().context(query)

    def messages(self, query: str | None = None) -> list[dict[str, str]]:
        """As :meth:`kit.memory.base.Memory.messages` (``query`` is ignored), read under
        the lock."""
        with self._lock:
            return super().messages(query)

    def __len__(self) -> int:
        with self._lock:
            return super().__len__()

    # -- add: append now, compact later -------------------------------------------
    def add(self, role: str, content: str, *, speaker: str | None = None,
            when: str | None = None) -> TraceEvent:
        """Add a message and return at once; start a background compaction if the
        memory is over budget and none is running. ``speaker`` and ``when`` as in
        :meth:`kit.memory.base.Memory.add`. Raises what ``RobustSummaryMemory.add`` raises for
        a refused message (nothing changes), never CompactionError."""
        worker = self._worker
        if worker is not None and worker in callers():
            raise RuntimeError("add() was called from this memory's own background "
                               "compaction (the summariser); the memory is unchanged")
        with self._lock:
            return super().add(role, content, speaker=speaker, when=when)

    def _after_append(self) -> dict:
        old, _, firings = self._plan(self.stamp_newest())
        why = "; ".join(f.why for f in firings)
        if not old:
            return {} if not firings else {
                "note": f"{why}, but nothing can be folded: keep_recent={self.keep_recent}, "
                        f"and a question stays with its replies", "trigger": why}
        if not self.backoff.allows(self.added) and self.fallback is None:
            return {"note": f"{why}, but compaction waits: {self.backoff}", "trigger": why}
        if self._start():
            return {"note": f"{why}: compaction started in the background", "trigger": why}
        return {"note": f"{why}: the running background compaction will plan again",
                "trigger": why}

    def compact_in_background(self) -> bool:
        """Start a background compaction if one is due and none is running (a retry
        after a failure, say); return True if one started."""
        with self._lock:
            return self.plan_compaction() is not None and self._start()

    def _start(self) -> bool:
        if self._worker is not None:
            return False
        self._worker = threading.Thread(target=self._run, daemon=True,
                                        name=f"kit-compaction-{id(self):x}")
        self._worker.start()
        return True

    # -- the worker ------------------------------------------------------------------
    def _run(self) -> None:
        try:
            while self._compact_once():
                pass
        finally:                             # also if the summariser raised SystemExit
            with self._lock:
                if self._worker is threading.current_thread():
                    self._stop()

    def _stop(self) -> None:
        self._worker = None
        self._idle.notify_all()

    def _compact_once(self) -> bool:
        """One plan-compute-commit round; True if another round should follow."""
        with self._lock:
            old, recent, firings = self._plan(self.clock() if self.max_age is not None
                                              else None)
            if not old:
                self._stop()                 # in the same lock hold as the check
                return False
            summary = self.summary           # snapshot; the model call runs unlocked
            number, use_model = self.added, self.backoff.allows(self.added)
            if not use_model and self.fallback is None:
                self._stop()                 # the back-off: the next add tries again
                return False
        try:
            update = self.compute_summary(summary, old, use_model)
        except Exception as exc:
            with self._lock:
                if use_model:
                    self.backoff.failed(number)
                self._fail(old, exc)
                self._stop()
            return False
        with self._lock:
            if use_model:
                self.backoff.record(number, update.by)
            size_before, turns_before = self.size, len(self.turns)
            try:
                fields = self.commit_compaction(update, old, recent, firings)
            except RuntimeError as exc:      # a stale plan: nothing changed
                self._fail(old, exc)
                self._stop()
                return False
            self.last_error, self._failure = None, None
            fields["note"] = f"background compaction: {fields['note']}"
            self._record_background(size_before, turns_before, **fields)
            if self.link:
                self.link.save()
        return True

    def _fail(self, old: list[Message], exc: Exception) -> None:
        self.last_error = exc
        self._failure = self._record_background(
            self.size, len(self.turns), action="failed",
            note=f"background compaction of turns {span([m.number for m in old])} failed "
                 f"({type(exc).__name__}: {exc}); every turn kept, retried at the next add")

    def _record_background(self, size_before: int, turns_before: int, **fields) -> TraceEvent:
        event = TraceEvent(self.added, BACKGROUND_ROLE, 0, size_before, self.size,
                           turns_before, len(self.turns), self.unit, **fields)
        self.trace.append(event)
        return event

    # -- waiting -------------------------------------------------------------------
    @property
    def pending(self) -> bool:
        """True while a background compaction is running."""
        with self._lock:
            return self._worker is not None

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no compaction runs (at most ``timeout`` seconds; None: no
        limit); return True if idle. Raises RuntimeError if called from the worker
        (from inside the summariser, also when a ``timeout`` runs it on a thread of its
        own: see :func:`~kit.memory.compaction.callers`), which would wait for itself."""
        worker = self._worker
        if worker is not None and worker in callers():
            raise RuntimeError("wait() was called from the background compaction itself "
                               "(inside the summariser); it would wait forever")
        with self._idle:
            return self._idle.wait_for(lambda: self._worker is None, timeout)

    def flush(self) -> None:
        """Wait until idle, then raise :class:`~kit.memory.base.CompactionError` (the
        failure as its cause) if the last background compaction failed."""
        self.wait()
        with self._lock:
            if self.last_error is not None and self._failure is not None:
                raise CompactionError(f"the last background compaction failed "
                                      f"({type(self.last_error).__name__}: {self.last_error});"
                                      f" every turn was kept", self._failure) from self.last_error

    async def compact_async(self) -> None:
        """``await`` form for asyncio code: start a compaction if one is due, then
        :meth:`flush` in a thread (:func:`asyncio.to_thread`), so the loop is not blocked."""
        self.compact_in_background()
        import asyncio                       # imported here: the one call that needs it
        await asyncio.to_thread(self.flush)
