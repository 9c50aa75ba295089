"""One turn of the chat service, without HTTP: lease, load, answer, commit, reply,
compact, release.

A worker keeps no session in memory between two requests. A turn (:meth:`ChatService.begin`
then :meth:`ChatService.finish`)::

    take the session's lease (wait while another worker holds it)   -> fencing token t
    load the session from the store (state + verbatim transcript)   -> rebuild the memory
    answer the question (kit.rag.Chatbot: rewrite, retrieve, cite, guardrail)
    commit question + reply + state + trace events + turn record, fenced by t
    --- the reply goes out (begin returns; the HTTP layer streams it) ---
    compaction, if due (the summariser runs here), state committed, fenced by t
    give the lease back

The memory is rebuilt into a private in-memory :class:`~kit.store.TranscriptStore`
(with :func:`kit.persistence.restore`), so its writes land there; what is new after the
turn goes to the shared store in one fenced commit. The turn is whole in the store or
absent: a worker killed before the commit leaves nothing, and its lease expires after
``ttl`` seconds.

``lock="local"`` swaps the lease for a :class:`threading.Lock` per session in this
process and commits unfenced: right for one worker, wrong for two (lesson 10 shows the
turns it loses). Sources: the chatbot lesson's per-session lock ("in Redis for multiple
servers") and its "what would you add next? streaming"; the context-handling post's
background summarisation ("for a web app with many concurrent users, that's a problem").
"""
from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from kit.extractive import extractive_summariser
from kit.longterm.forget import FORGOTTEN, topic_pattern
from kit.memory import CompactionError, DeferredSummaryMemory
from kit.persistence import restore
from kit.rag.chatbot import Answer, Chatbot
from kit.serve.stores import (LONGEST, KeyRecord, Lease, LeaseLost, SessionStore, Snapshot,
                              TurnRecord, check_span, digest, worker_name)
from kit.store import StoreError, TranscriptStore
from kit.validation import check_seconds

__all__ = ["ChatService", "Turn", "Held", "SessionBusy", "KeyConflict", "demo_chatbot",
           "service_memory", "SlowModel", "check_session_id", "outcome_of", "SESSION_ID",
           "SERVICE_BUDGET", "KEEP_RECENT", "LOCKS", "HOLD", "LONGEST", "pauses"]

SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")   # it goes into URLs and Redis keys
SERVICE_BUDGET = 250       # tokens (cl100k) of the demo memory: compaction every few turns
KEEP_RECENT = 2            # messages the demo memory keeps verbatim (the last turn)
LOCKS = ("lease", "local")
HOLD = 600.0               # seconds a turn may keep its lease renewed, begin to finish


def pauses() -> Iterator[float]:
    """Seconds to sleep between two tries at a held lock: 5 ms, doubling to 100 ms."""
    pause = 0.005
    while True:
        yield pause
        pause = min(pause * 2, 0.1)


CONTEXT_READS = 5     # reads of a session's state while commits keep coming in between


class SessionBusy(StoreError):
    """The session's lease stayed held for longer than the service waits."""


class KeyConflict(Exception):
    """An idempotency key the session already knows: sent before with another text
    (``running`` False), or its first turn is still running (``running`` True). The
    message names the key and the session; nothing was done."""

    def __init__(self, message: str, key: str, running: bool) -> None:
        super().__init__(message)
        self.key, self.running = key, running


def outcome_of(answer) -> dict:
    """What a client is sent of a turn, as JSON-ready dict (the idempotency key's saved
    outcome, replayed to a retry): ``turn``, ``answer`` (text), ``refused``,
    ``guardrail`` (its reason) and ``cited`` (chunk ids)."""
    return {"turn": answer.turn, "answer": answer.answer, "refused": answer.refused,
            "guardrail": answer.guardrail.reason, "cited": list(answer.cited_ids)}


def check_session_id(session_id: object) -> str:
    """Return ``session_id`` if it is 1-64 ASCII letters, digits, ``_`` or ``-``; else
    raise ValueError naming it."""
    if not isinstance(session_id, str) or not SESSION_ID.fullmatch(session_id):
        raise ValueError(f"session id must be 1-64 letters, digits, '_' or '-', got "
                         f"{session_id!r:.80}")
    return session_id


class SlowModel:
    """A stub model that sleeps ``delay`` seconds, then calls ``model``: the slow LLM
    that makes two requests overlap in lesson 10 and the tests, so they are not a
    matter of timing. Works for chat models ``(system, user)`` and summarisers
    ``(prompt)``: it passes on whatever it is given."""

    def __init__(self, model: Callable, delay: float) -> None:
        if not callable(model):
            raise TypeError(f"model must be callable, got {model!r:.60}")
        self.model, self.delay = model, check_seconds("delay", delay) or 0.0

    def __call__(self, *args):
        time.sleep(self.delay)
        return self.model(*args)

    def __repr__(self) -> str:
        return f"SlowModel({self.model!r}, delay={self.delay})"


def demo_chatbot(model_delay: float | None = None) -> Chatbot:
    """The course's help-centre chatbot: BM25 over the shipped help centre, the quoting
    stub model (``model_delay`` seconds per call, None: no delay), the memory fenced as
    quoted data in its prompts (``fence_memory``), no network."""
    from kit.rag import BM25Retriever, QuotingModel, load_corpus
    model, model_delay = QuotingModel(), check_seconds("model_delay", model_delay)
    llm = SlowModel(model, model_delay) if model_delay else model
    return Chatbot(BM25Retriever(load_corpus()), llm, fence_memory=True)


def service_memory(summary_delay: float | None = None, budget: int = SERVICE_BUDGET,
                   keep_recent: int = KEEP_RECENT) -> Callable[[], DeferredSummaryMemory]:
    """A factory of the service's memory: :class:`~kit.memory.DeferredSummaryMemory`
    with the extractive summariser (:func:`kit.extractive.extractive_summariser`: it keeps
    the fact sentences that fit the summary cap, so the context gets back under its
    budget; ``summary_delay`` seconds per call), a ``budget`` in cl100k tokens and the
    newest ``keep_recent`` messages verbatim. With the defaults (250 tokens, the last
    turn verbatim) the help-centre chat compacts from about the sixth turn on and stays
    within its budget. Raises what the memory raises for a bad budget or keep_recent, at
    once."""
    summary_delay = check_seconds("summary_delay", summary_delay)
    summariser = (SlowModel(extractive_summariser, summary_delay) if summary_delay
                  else extractive_summariser)

    def make() -> DeferredSummaryMemory:
        return DeferredSummaryMemory(summariser, budget=budget, keep_recent=keep_recent)
    make()                                   # a bad setting fails here, not at a turn
    return make


@dataclass(frozen=True)
class Held:
    """A session's lock, taken (:meth:`ChatService.try_take`): ``lease`` (None with
    ``lock="local"``) and ``release`` (gives it back; a second call does nothing)."""

    lease: Lease | None
    release: Callable[[], None]


@dataclass
class Turn:
    """A turn between :meth:`ChatService.begin` and :meth:`ChatService.finish`:
    ``answer`` (what the user sees is ``answer.answer``; None for a replay), ``turn``
    (its number), the ``lease`` held (None with ``lock="local"``), the rebuilt
    ``memory``, the ``events`` committed with it, and its ``outcome``
    (:func:`outcome_of`). ``replayed``: True if the turn was not run again but is the
    saved outcome of an earlier request with the same idempotency key."""

    session_id: str
    turn: int
    answer: Answer | None
    lease: Lease | None
    memory: object
    events: list[dict]
    staging: TranscriptStore | None = field(repr=False)
    release: Callable[[], None] = field(repr=False)
    outcome: dict = field(default_factory=dict)
    replayed: bool = False
    finished: bool = False
    gate: threading.Lock = field(default_factory=threading.Lock, repr=False)  # one finish

    @property
    def compaction_due(self) -> bool:
        """True if :meth:`ChatService.finish` will call the summariser."""
        return bool(getattr(self.memory, "compaction_due", False))


def _once(fn: Callable[[], None]) -> Callable[[], None]:
    """``fn`` made safe to call twice: the second call does nothing."""
    done = threading.Lock()

    def call() -> None:
        if done.acquire(blocking=False):
            fn()
    return call


class _Renewer(threading.Thread):
    """Renews a lease every ``ttl / 3`` seconds until stopped, for at most ``hold``
    seconds (a turn nobody finishes must not hold its session for ever); stops by itself
    when the lease is lost (the fenced commit will then refuse the turn)."""

    def __init__(self, store: SessionStore, lease: Lease, hold: float) -> None:
        super().__init__(daemon=True, name=f"kit-lease-{lease.session_id}")
        self.store, self.lease, self.stop = store, lease, threading.Event()
        self.lost, self.until = False, time.monotonic() + hold

    def run(self) -> None:
        while not self.stop.wait(self.lease.ttl / 3) and time.monotonic() < self.until:
            try:
                self.store.renew(self.lease)
            except LeaseLost:
                self.lost = True
                return
            except Exception:               # a blip of the store: try again next period
                continue


def _event(trace_event) -> dict:
    event = trace_event._asdict()
    event["moved"] = list(event["moved"])
    return {"kind": "memory", **event}


class ChatService:
    """The chatbot behind a shared :class:`~kit.serve.stores.SessionStore`.

    ``store``: where sessions live; ``chatbot``: a :class:`~kit.rag.Chatbot` (default
    :func:`demo_chatbot`); ``memory_factory``: ``() -> memory`` for a session's memory,
    rebuilt every turn (default :func:`service_memory`; a memory with ``compact()``
    compacts after the reply); ``lock``: ``"lease"`` (the store's lease and fencing
    token) or ``"local"`` (a lock in this process, unfenced: one worker only); ``ttl``:
    the lease in seconds, renewed every ttl/3 while a turn runs; ``wait``: seconds a
    turn waits for a held lease before :class:`SessionBusy`; ``hold``: seconds a turn may
    keep its lease renewed, from begin to finish (default :data:`HOLD`, 600: a slow model
    keeps its turn; a turn nobody finishes frees its session then); ``ttl``, ``wait`` and
    ``hold`` are at most :data:`LONGEST` (a day); ``worker``: the name in the turn records
    (a str, default ``host:pid``). Raises TypeError/ValueError naming a bad argument.
    """

    def __init__(self, store: SessionStore, chatbot: Chatbot | None = None,
                 memory_factory: Callable[[], object] | None = None, *, lock: str = "lease",
                 ttl: float = 10.0, wait: float = 30.0, hold: float | None = None,
                 worker: str | None = None) -> None:
        if not isinstance(store, SessionStore):
            raise TypeError(f"store must be a SessionStore, got {store!r:.60}")
        if lock not in LOCKS:
            raise ValueError(f"lock must be one of {LOCKS}, got {lock!r:.40}")
        if memory_factory is not None and not callable(memory_factory):
            raise TypeError(f"memory_factory must be callable () -> memory, got "
                            f"{memory_factory!r:.60}")
        if chatbot is not None and not callable(getattr(chatbot, "answer_turn", None)):
            raise TypeError(f"chatbot must be a kit.rag.Chatbot, got {chatbot!r:.60}")
        if worker is not None and (not isinstance(worker, str) or not worker.strip()):
            raise TypeError(f"worker must be a non-empty str, got {worker!r:.60}")
        self.store, self.lock = store, lock
        self.chatbot = chatbot if chatbot is not None else demo_chatbot()
        self.memory_factory = memory_factory or service_memory()
        self.ttl, self.wait = check_span("ttl", ttl), check_span("wait", wait)
        self.hold = HOLD if hold is None else check_span("hold", hold)
        self.worker = worker or worker_name()
        self._local: dict[str, threading.Lock] = {}
        self._registry = threading.Lock()

    # -- the lock ------------------------------------------------------------------
    def try_take(self, session_id: str, deadline: float | None = None,
                 ticket: int | None = None) -> Held | None:
        """One attempt at the session's lock, no waiting for its holder: the lease
        (renewed every ttl/3 from now on, for at most ``hold`` seconds) or the local
        lock; None if held. ``deadline`` (a :func:`time.monotonic` reading): the store's
        own lock is waited for until then at most (:class:`~kit.serve.stores.StoreBusy`).
        ``ticket`` (from :meth:`queue`): None also while an older waiting turn is
        queued, so turns are served in arrival order. Raises ValueError for a bad id,
        StoreError if the store fails."""
        check_session_id(session_id)
        if self.lock == "local":
            with self._registry:
                lock = self._local.setdefault(session_id, threading.Lock())
            return Held(None, _once(lock.release)) if lock.acquire(blocking=False) \
                else None
        with self.store.until(deadline):
            lease = self.store.acquire(session_id, self.ttl, *(() if ticket is None
                                                               else (ticket,)))
        if lease is None:
            return None
        renewer = _Renewer(self.store, lease, hold=self.hold)
        renewer.start()

        def release() -> None:
            renewer.stop.set()
            try:
                self.store.release(lease)
            except StoreError:              # unreachable store: the lease expires by itself
                pass
        return Held(lease, _once(release))

    def take(self, session_id: str, started: float | None = None) -> Held:
        """The session's lock, waiting while another turn holds it (polling every 5 ms
        growing to 100 ms), until ``wait`` seconds after ``started`` (a
        :func:`time.monotonic` reading; default now). Raises :class:`SessionBusy` then."""
        deadline = (time.monotonic() if started is None else started) + self.wait
        for pause in pauses():
            taken = self.try_take(session_id, deadline)
            if taken is not None:
                return taken
            if time.monotonic() >= deadline:
                raise self.busy(session_id)
            time.sleep(pause)

    def queue(self, session_id: str, deadline: float | None = None) -> int | None:
        """A ticket in the session's queue for a turn about to wait for it (the store's
        :meth:`~kit.serve.stores.SessionStore.enqueue`); None with ``lock="local"``."""
        if self.lock == "local":
            return None
        with self.store.until(deadline):
            return self.store.enqueue(check_session_id(session_id))

    def leave(self, session_id: str, ticket: int | None) -> None:
        """Drop a waiting turn's ticket (it gave up or was served); never raises for a
        store that fails (the ticket then expires by itself)."""
        if ticket is not None:
            try:
                self.store.dequeue(session_id, ticket)
            except StoreError:
                pass

    def busy(self, session_id: str) -> SessionBusy:
        """The error of a turn that waited ``wait`` seconds for the session in vain."""
        return SessionBusy(f"session {session_id!r} is busy: another turn held it for "
                           f"{self.wait:g} s")

    # -- loading -------------------------------------------------------------------
    def _rebuild(self, snapshot: Snapshot) -> tuple[object, TranscriptStore]:
        """The session's memory, rebuilt from ``snapshot`` into a private store."""
        staging = TranscriptStore(":memory:")
        try:
            for message in snapshot.messages:
                staging.append(snapshot.session_id, message)
            if snapshot.state is not None:
                staging.save_state(snapshot.session_id, snapshot.state)
            return restore(self.memory_factory(), staging, snapshot.session_id), staging
        except StoreError as exc:            # name the real store, not the private copy
            staging.close()
            raise StoreError(str(exc).replace(repr(staging.path), repr(self.store))) from exc
        except BaseException:
            staging.close()
            raise

    # -- idempotency keys ------------------------------------------------------------
    def replay(self, session_id: str, key: str, question: str) -> dict | None:
        """What a request with idempotency ``key`` gets without running a turn: the saved
        outcome of the turn first sent with it (a dict, :func:`outcome_of`), or None if
        the session has no committed turn for it (run the turn: :meth:`begin` with the
        key). Reads only. Raises :class:`KeyConflict` if the key was first sent with
        another text, or if its first turn still holds the session (running)."""
        found = self.store.key_record(session_id, key)
        if found is None:
            return None
        self._check_same(session_id, key, question, found)
        if found.outcome is not None:
            return found.outcome
        if found.token is not None and found.token == self.store.holder(session_id):
            raise KeyConflict(f"the turn sent with idempotency key {key!r} in session "
                              f"{session_id!r} is still running; retry in a moment", key, True)
        return None                          # its turn died before the commit: run it

    @staticmethod
    def _check_same(session_id: str, key: str, question: str, found: KeyRecord) -> None:
        # after a forget the text's digest is gone too: the key replays its outcome
        if found.digest not in (digest(question), FORGOTTEN):
            raise KeyConflict(f"idempotency key {key!r} was first sent with another text in "
                              f"session {session_id!r}; send a new message with a new key",
                              key, False)

    # -- a turn --------------------------------------------------------------------
    def begin(self, session_id: str, question: str, taken: Held | None = None, *,
              started: float | None = None, key: str | None = None) -> Turn:
        """Answer ``question`` in session ``session_id`` and commit the turn; return the
        :class:`Turn`, still holding the session's lock: call :meth:`finish` once the
        reply is sent. ``started``: when the request came (a :func:`time.monotonic`
        reading, default now): waits for the session and for the store end ``wait``
        seconds after it (:class:`SessionBusy`, :class:`~kit.serve.stores.StoreBusy`;
        a commit that starts later, after a slow model, waits the store's own timeout).
        ``key``: the request's idempotency key (1-128 letters, digits, ``_ . : -``):
        if the session already committed a turn for it, that turn is replayed
        (``Turn.replayed``, nothing run or written); if it was first sent with another
        text, :class:`KeyConflict`; else the key and the outcome are committed with the
        turn. Raises ValueError for a bad session id, question or key (or what
        :meth:`kit.rag.Chatbot.answer_turn` raises), :class:`SessionBusy`,
        :class:`~kit.serve.stores.LeaseLost` if the lease was lost before the commit
        (nothing written), StoreError if the store fails; the lock is given back and
        the session is as it was. ``taken``: the session's lock if the caller took it
        already (:meth:`try_take`; the HTTP app waits for it without holding a thread);
        it is given back if the turn fails."""
        check_session_id(session_id)
        started = time.monotonic() if started is None else started
        deadline = started + self.wait
        if key is not None and self.lock == "local":
            raise ValueError("idempotency keys need the store's lease (lock='lease')")
        taken = taken if taken is not None else self.take(session_id, started)
        lease, release = taken.lease, taken.release
        staging = None
        try:
            if key is not None:
                with self.store.until(deadline):
                    found = self.store.claim(lease, key, digest(question))
                if found is not None:
                    self._check_same(session_id, key, question, found)
                    release()
                    return Turn(session_id, found.turn, None, lease, None, [], None,
                                release, found.outcome, replayed=True, finished=True)
            with self.store.until(deadline):
                snapshot = self.store.load(session_id)
            memory, staging = self._rebuild(snapshot)
            seen = len(memory.trace)
            answer = self.chatbot.answer_turn(memory, session_id, question, snapshot.turns + 1)
            new = staging.turns(session_id, first=snapshot.last + 1)
            token = lease.token if lease else None
            events = [{"kind": "turn", "turn": answer.turn, "question": question,
                       "answer": answer.answer, "refused": answer.refused,
                       "guardrail": answer.guardrail.reason, "query": answer.query,
                       "cited": list(answer.cited_ids), "worker": self.worker,
                       "token": token}]
            events += [_event(e) for e in memory.trace[seen:]]
            record = TurnRecord(answer.turn, new[0].number, new[-1].number, token,
                                snapshot.turns, self.worker)
            outcome = outcome_of(answer)
            saved = None if key is None else KeyRecord(key, digest(question), token,
                                                       answer.turn, outcome)
            with self.store.until(deadline if time.monotonic() < deadline else None):
                self.store.commit(session_id, lease, new, staging.load_state(session_id),
                                  events, record, **({} if saved is None else {"key": saved}))
        except BaseException:
            if staging is not None:
                staging.close()
            release()
            raise
        return Turn(session_id, answer.turn, answer, lease, memory, events, staging, release,
                    outcome)

    def finish(self, turn: Turn) -> list[dict]:
        """After the reply: run the compaction that is due (if the memory compacts on
        demand), commit the new state fenced by the turn's lease, give the lock back;
        return the compaction's events (what moved into the summary). Never raises for
        a failed compaction, a lost lease or a store that fails: the turn is committed
        either way, the failure is an event, and the next turn of the session compacts.
        Idempotent, and safe to call from two threads at once (one does the work)."""
        if turn.replayed or not turn.gate.acquire(blocking=False):
            return []                 # a replay, finished, or finishing on another thread
        turn.finished = True
        memory, events = turn.memory, []
        try:
            compact = getattr(memory, "compact", None)
            if callable(compact):
                before = {m.number: m for m in memory.turns}
                try:
                    done = compact()
                    failure = None
                except CompactionError as exc:
                    done, failure = [], exc
                for event in done:
                    moved = [before[n] for n in event.moved if n in before]
                    events.append({**_event(event), "turn": turn.turn,
                                   "summary": getattr(memory, "summary", ""),
                                   "moved_text": [{"number": m.number, "role": m.role,
                                                   "content": m.content} for m in moved]})
                if failure is not None:
                    events.append({"kind": "memory", "turn": turn.turn, "action": "failed",
                                   "note": str(failure), "moved": []})
                if events:
                    try:
                        self.store.commit(turn.session_id, turn.lease, [],
                                          turn.staging.load_state(turn.session_id), events)
                    except StoreError as exc:     # LeaseLost too: nothing was written
                        why = ("the lease was lost" if isinstance(exc, LeaseLost)
                               else f"the store failed ({exc})")
                        events = [{"kind": "memory", "turn": turn.turn, "action": "failed",
                                   "moved": [], "note": f"{why} before the compaction was "
                                   f"saved; the next turn compacts again"}]
        finally:
            turn.staging.close()
            turn.release()
        return events

    def ask(self, session_id: str, question: str) -> Answer:
        """:meth:`begin` then :meth:`finish`: a whole turn, for lessons and scripts."""
        turn = self.begin(session_id, question)
        self.finish(turn)
        return turn.answer

    # -- reading -------------------------------------------------------------------
    def forget(self, session_id: str, words: list[str] | None = None,
               taken: Held | None = None) -> dict:
        """Forget the session's messages naming one of ``words``, or all of it when
        ``words`` is None (:meth:`~kit.serve.stores.SessionStore.forget`: texts, saved
        state, events, idempotency outcomes, and the store's bytes), under the session's
        lock like a turn (``taken``, or taken here: :class:`SessionBusy` after ``wait``
        seconds); the memory is rebuilt from the remaining raw turns at the next load.
        Returns ``{"session", "forgotten": message numbers, "by"}``. Raises ValueError
        for a bad id or words (nothing written), LeaseLost, StoreError."""
        check_session_id(session_id)
        if words is not None:
            topic_pattern(words)           # a bad word is named at once, not after the queue
        held = taken if taken is not None else self.take(session_id)
        try:
            numbers = self.store.forget(session_id, held.lease, words)
        finally:
            held.release()
        return {"session": session_id, "forgotten": list(numbers),
                "by": "everything" if words is None else "words"}

    def context(self, session_id: str, events: int = 20) -> dict:
        """What the context panel shows, as JSON-ready dict: ``turns`` committed,
        ``budget``, ``unit``, ``size``, ``parts`` (name, tokens, items given, cut, in
        the order of the memory's context: system, summary, recent, recalled... as
        the memory has them), ``summary`` (its text), ``recent`` (the verbatim
        messages), and the newest ``events`` trace events. Read without the lock, the
        state and the events of one commit: the events are read before and after the
        state, and again while a commit (a turn, a compaction) came in between; if
        commits keep coming, the events read just before the state (of its commit or
        an earlier one, never a later one). Raises ValueError for a bad id."""
        check_session_id(session_id)
        newest = self.store.events(session_id, events)
        for _ in range(CONTEXT_READS):
            seen, snapshot = newest, self.store.load(session_id)
            newest = self.store.events(session_id, events)
            if newest == seen:
                break
        memory, staging = self._rebuild(snapshot)
        try:
            allocation = memory.allocation()
            return {
                "session": session_id, "turns": snapshot.turns,
                "budget": getattr(memory, "budget", None), "unit": memory.unit,
                "size": memory.size,
                "parts": [{"name": p.name, "tokens": p.tokens, "items": len(p.given),
                           "cut": p.cut} for p in allocation.parts],
                "summary": getattr(memory, "summary", ""),
                "recent": [{"number": m.number, "role": m.role, "content": m.content}
                           for m in memory.turns],
                "events": seen,             # == newest unless the reads ran out
            }
        finally:
            staging.close()
