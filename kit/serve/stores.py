"""Where the chat service keeps its sessions: one interface, two backends.

A worker process of the service holds nothing between two requests: every turn loads
the session from the store, and commits what it changed. So any worker can answer any
session, a restart forgets nothing, and two workers never disagree about a session's
turns, provided the writes are ordered. The interface (:class:`SessionStore`) is what
the service needs for that, and no more:

- **a lease per session** (:meth:`~SessionStore.acquire`): the session's lock, held for
  ``ttl`` seconds unless renewed, with a **fencing token** that grows by one with every
  lease the session hands out. A worker that dies holding a lease blocks its session
  for at most ``ttl`` seconds; after that, another worker gets the next token;
- **a fenced commit** (:meth:`~SessionStore.commit`): a turn's question and reply,
  the memory's new state, the trace events and the turn's record, written in one
  transaction, and only if the lease it names is still the session's current,
  unexpired one. A worker that lost its lease (paused past ``ttl``, its session taken
  over) gets :class:`LeaseLost` and writes nothing: a late writer can never overwrite
  a newer turn. The check and the write are one step in the store (one SQLite
  transaction, one Redis script), never a read followed by a write;
- **a consistent snapshot** (:meth:`~SessionStore.load`): the memory's saved state and
  the transcript from its oldest verbatim message on, read together.

``commit(..., lease=None)`` writes without the fence, as a service with only an
in-process lock would: last writer wins. Lesson 10 runs two workers that way to show
the turns it loses; nothing else passes None.

:class:`SQLiteSessionStore`: one file on one machine, nothing to set up (the tables
are version 4 of :mod:`kit.store`'s schema; lease expiry reads the store's clock, one
machine's). :class:`RedisSessionStore`: several workers on several machines; lease
expiry is Redis's own (``PX``), so the workers' clocks do not matter. Both are
thread-safe. :func:`open_store` makes one from ``"sqlite:PATH"`` or ``"redis://..."``.

Sources: the chatbot lesson's "a per-session lock, in Redis for multiple servers", the
context-handling post's "a simple Redis store would fix that", and the fencing-token
rule from Martin Kleppmann's "How to do distributed locking" (2016) and the Redis
documentation's "Distributed Locks with Redis" page.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass

from kit.messages import Message
from kit.store import _MEMORY, StoreError, TranscriptStore, _reason, check_session, parse_state
from kit.validation import check_int, check_seconds

__all__ = ["Lease", "LeaseLost", "StoreBusy", "Snapshot", "TurnRecord", "KeyRecord",
           "SessionStore", "SQLiteSessionStore", "RedisSessionStore", "open_store",
           "worker_name", "digest", "EVENTS_KEPT", "KEYS_KEPT", "KEY_TTL", "QUEUE_TTL",
           "LONGEST",
           "check_span"]

EVENTS_KEPT = 500          # trace events a session keeps (the oldest go first)
KEYS_KEPT = 100            # idempotency keys a session keeps (the oldest go first)
KEY_TTL = 86_400.0         # seconds an idempotency key is kept after its turn (a day)
QUEUE_TTL = 5.0            # seconds a waiting turn's ticket lives unless it asks again
LONGEST = 86_400.0         # seconds: the longest lease, wait or hold accepted


def worker_name() -> str:
    """``"host:pid"``: who committed a turn (the turn records say)."""
    return f"{socket.gethostname()}:{os.getpid()}"


class LeaseLost(StoreError):
    """A fenced write named a lease that is no longer the session's current one (it
    expired, another worker holds a newer token, or the Redis server restarted since it
    was handed out). Nothing was written."""


class StoreBusy(StoreError):
    """The store stayed locked by another connection until the operation's deadline (a
    SQLite file whose write lock another process holds). Nothing was written."""


def digest(text: str) -> str:
    """The SHA-256 of ``text`` (UTF-8) in hex: what an idempotency key remembers of the
    message it was first sent with."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Lease:
    """A session's lock, held by one worker until ``ttl`` seconds after it was taken or
    last renewed. ``token``: the fencing token (int >= 1), larger for every lease the
    session hands out; a store accepts a fenced write only with the current one."""

    session_id: str
    token: int
    ttl: float
    run: str = ""           # Redis: the server's run id when the lease was handed out


@dataclass(frozen=True)
class KeyRecord:
    """What a session remembers of an idempotency key: the ``digest`` of the text first
    sent with it (:func:`digest`), the fencing ``token`` of the turn that claimed it,
    and, once that turn is committed, its ``turn`` number and ``outcome`` (the reply as
    the client was sent it: ``answer``, ``refused``, ``guardrail``, ``cited``, ``turn``);
    ``outcome`` is None while the turn runs (or if it died before its commit)."""

    key: str
    digest: str
    token: int | None
    turn: int | None
    outcome: dict | None
    created_at: float = 0.0


@dataclass(frozen=True)
class TurnRecord:
    """One committed turn: ``turn`` (1-based), the numbers of its first and last
    message, the fencing ``token`` that wrote it (None: written without a lease),
    ``based_on`` (how many turns the session had when the worker loaded it: a turn
    answered with the whole history has ``based_on == turn - 1``), ``worker``
    (``host:pid``) and ``committed_at`` (seconds, the store's clock)."""

    turn: int
    first_number: int
    last_number: int
    token: int | None
    based_on: int
    worker: str
    committed_at: float = 0.0


@dataclass(frozen=True)
class Snapshot:
    """A session as one worker loaded it: ``state`` (the memory's saved state, None for
    a new session), ``messages`` (the stored transcript from the state's oldest verbatim
    message on, oldest first), ``last`` (the last message number stored, 0 if none) and
    ``turns`` (turns committed; for a session stored before the service kept turn
    records, its user messages)."""

    session_id: str
    state: dict | None
    messages: tuple[Message, ...]
    last: int
    turns: int


def first_needed(state: dict | None, last: int) -> int:
    """The oldest message a memory rebuilt from ``state`` needs: the first verbatim one,
    else the one after everything it folded; never after ``last`` (the last stored one,
    which a restore checks against). 1 for a new session or an unreadable state: the
    restore then reports what is wrong."""
    try:
        runs, added = state["turns"], state["added"]
        first = runs[0][0] if runs else added + 1
        if isinstance(first, bool) or not isinstance(first, int) or first < 1:
            return 1
    except (TypeError, KeyError, IndexError):
        return 1
    return min(first, max(last, 1))


def _event_json(event: dict) -> str:
    if not isinstance(event, dict):
        raise TypeError(f"a trace event must be a dict, got {type(event).__name__}")
    return json.dumps(event, sort_keys=True, allow_nan=False)


class SessionStore:
    """The interface of a service store (see the module docstring). Every method names
    the session in its errors; a failed write writes nothing."""

    kind = "store"

    def acquire(self, session_id: str, ttl: float, ticket: int | None = None
                ) -> Lease | None:
        """Take the session's lease for ``ttl`` seconds (> 0) if nobody holds an
        unexpired one; return it, or None if it is held. Does not wait. ``ticket``
        (from :meth:`enqueue`): take it only if no live ticket of the session is older
        (turns served in arrival order), and keep the ticket alive for
        :data:`QUEUE_TTL` seconds more; the ticket goes once the lease is taken. Without
        a ticket the queue is not looked at."""
        raise NotImplementedError

    def enqueue(self, session_id: str) -> int:
        """A ticket for a turn that will wait for the session's lease: larger than every
        ticket of the session still queued. It lives :data:`QUEUE_TTL` seconds unless
        :meth:`acquire` is asked with it again (a dead waiter blocks nobody for long)."""
        raise NotImplementedError

    def dequeue(self, session_id: str, ticket: int) -> None:
        """Drop ``ticket`` (a waiting turn that gave up); nothing if it is gone."""
        raise NotImplementedError

    def holder(self, session_id: str) -> int | None:
        """The token of the session's unexpired lease, None if nobody holds one (a read:
        it takes nothing)."""
        raise NotImplementedError

    def renew(self, lease: Lease) -> None:
        """Extend ``lease`` by its ``ttl`` from now. Raises :class:`LeaseLost` if it is
        no longer the session's current lease."""
        raise NotImplementedError

    def release(self, lease: Lease) -> bool:
        """Give the lease back (the next acquire needs not wait for it to expire);
        False if it was no longer held (expired, taken over): nothing changes then."""
        raise NotImplementedError

    def load(self, session_id: str) -> Snapshot:
        """The session as one consistent :class:`Snapshot` (an empty one if unknown)."""
        raise NotImplementedError

    def commit(self, session_id: str, lease: Lease | None, messages: Sequence[Message],
               state: dict, events: Sequence[dict] = (), record: TurnRecord | None = None,
               key: KeyRecord | None = None) -> None:
        """Write ``messages`` (numbered after the stored ones), the memory's ``state``,
        trace ``events`` (JSON-ready dicts), the turn's ``record`` and its idempotency
        ``key`` (a :class:`KeyRecord` with its outcome; the session then keeps its newest
        :data:`KEYS_KEPT` keys of the last :data:`KEY_TTL` seconds), all or nothing.

        Fenced: raises :class:`LeaseLost` (nothing written) unless ``lease`` is the
        session's current, unexpired lease. ``lease=None`` writes unfenced, last writer
        wins (the in-process-lock failure of lesson 10). Raises TypeError/ValueError
        for a state or event that is not JSON, StoreError if the store cannot write."""
        raise NotImplementedError

    def key_record(self, session_id: str, key: str) -> KeyRecord | None:
        """What the session remembers of idempotency ``key`` (None: nothing). A read."""
        raise NotImplementedError

    def claim(self, lease: Lease, key: str, text_digest: str) -> KeyRecord | None:
        """Under ``lease``, mark ``key`` as being answered by this lease's turn, unless
        the session already has it committed or with another text: then return that
        record and write nothing. Return None once claimed. Raises :class:`LeaseLost`
        if ``lease`` is no longer held (nothing written)."""
        raise NotImplementedError

    def ping(self) -> bool:
        """True if the store answers; raises StoreError if it does not."""
        raise NotImplementedError

    @contextmanager
    def until(self, deadline: float | None) -> Iterator[None]:
        """Within the block, this thread's store calls stop waiting for a lock at
        ``deadline`` (a :func:`time.monotonic` reading; None: the store's own timeout)
        and raise :class:`StoreBusy` then. Stores that never wait for a lock ignore it."""
        yield

    def events(self, session_id: str, last: int = 20) -> list[dict]:
        """The session's newest ``last`` trace events, oldest first."""
        raise NotImplementedError

    def turn_log(self, session_id: str) -> list[TurnRecord]:
        """Every committed turn's record, in turn order."""
        raise NotImplementedError

    def transcript(self, session_id: str) -> list[Message]:
        """Every stored message of the session, oldest first."""
        raise NotImplementedError

    def close(self) -> None:
        """Let go of the file or the connection (idempotent)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _check_commit(session_id: str, lease: Lease | None, messages: Sequence[Message],
                  state: dict, events: Sequence[dict]) -> tuple[str, list[str]]:
    """The state and events as JSON, after the shared argument checks."""
    check_session(session_id)
    if lease is not None and (not isinstance(lease, Lease) or lease.session_id != session_id):
        raise ValueError(f"the lease {lease!r:.80} is not a lease of session {session_id!r}")
    if not isinstance(state, dict):
        raise TypeError(f"state must be a dict, got {type(state).__name__}")
    for message in messages:
        if not isinstance(message, Message):
            raise TypeError(f"messages must be Message objects, got {message!r:.60}")
    return json.dumps(state, sort_keys=True, allow_nan=False), [_event_json(e) for e in events]


def _check_next(session_id: str, where: str, last: int, messages: Sequence[Message]) -> None:
    """Raise StoreError unless ``messages`` are numbered ``last + 1``, ``last + 2``, ..."""
    numbers = [m.number for m in messages]
    if numbers != list(range(last + 1, last + 1 + len(numbers))):
        raise StoreError(f"session {session_id!r} in {where!r}: the turn's messages "
                         f"{numbers[:5]} do not follow the stored ones (the last is {last}); "
                         f"nothing was written")


_KEY = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


def _check_key(key: object) -> str:
    """Return ``key`` if it is an idempotency key: 1-128 ASCII letters, digits and
    ``_ . : -`` (a UUID fits); else raise ValueError naming it."""
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ValueError(f"an idempotency key must be 1-128 letters, digits, '_', '.', "
                         f"':' or '-', got {key!r:.80}")
    return key


def _key_json(key: KeyRecord | None) -> str | None:
    """The outcome of a committed key as JSON, after the checks."""
    if key is None:
        return None
    if not isinstance(key, KeyRecord) or not isinstance(key.outcome, dict):
        raise TypeError(f"key must be a KeyRecord with its outcome, got {key!r:.80}")
    _check_key(key.key)
    return json.dumps(key.outcome, sort_keys=True, allow_nan=False)


def _check_ticket(ticket: object) -> int:
    if isinstance(ticket, bool) or not isinstance(ticket, int) or ticket < 1:
        raise TypeError(f"ticket must be an int >= 1 (from enqueue), got {ticket!r:.60}")
    return ticket


def _check_lease(lease: object) -> Lease:
    if not isinstance(lease, Lease):
        raise TypeError(f"lease must be a Lease (from acquire), got {lease!r:.60}")
    return lease


def check_span(name: str, value: object) -> float:
    """Return ``value`` (seconds) as a float if it is a number > 0 and at most
    :data:`LONGEST` (a day: a lease of 1e300 s overflows the clocks); else raise
    TypeError/ValueError naming ``name``. For leases, waits and holds."""
    if value is None:
        raise TypeError(f"{name} must be a number of seconds > 0, got None")
    seconds = check_seconds(name, value)
    if seconds > LONGEST:
        raise ValueError(f"{name} must be at most {LONGEST:g} seconds (a day), got {value!r}")
    return seconds


class SQLiteSessionStore(TranscriptStore, SessionStore):
    """The service's store in one SQLite file: a :class:`~kit.store.TranscriptStore`
    (same file, same arguments and errors) with leases, turn records, trace events and
    idempotency keys.

    Several worker processes may open the same file. The file is put in WAL mode
    (``journal_mode=WAL``, kept by the file): readers never wait for the writer and the
    writer never waits for readers. Each thread has its own connection, so a thread
    waiting for the file never holds up another thread's read. Reads take no lock: a
    lease check that finds the lease held, :meth:`holder`, :meth:`load` (one read
    transaction: one snapshot) and :meth:`key_record`. Every write is one short ``BEGIN
    IMMEDIATE`` transaction around the writes and their checks (the lease check and the
    write cannot be split by another process), never around a model call. So a worker
    stopped anywhere but inside a write transaction blocks nobody; one stopped inside
    its commit holds the file's one write lock, and the others' writes wait for it until
    their deadline (:meth:`until`, else ``timeout`` seconds) and then raise
    :class:`StoreBusy`. Lease expiry reads the store's ``clock`` (seconds, default
    :func:`time.time`): one machine's clock, which is why this backend is for one
    machine.
    """

    kind = "sqlite"
    keys_kept, key_ttl = KEYS_KEPT, KEY_TTL

    def __init__(self, path=":memory:", clock=time.time, *, timeout: float = 5.0) -> None:
        super().__init__(path, clock, timeout=timeout)
        self._local = threading.local()
        self._conns: list[sqlite3.Connection] = []
        self.journal = "memory"
        if self.path not in _MEMORY:
            try:
                with self._lock:
                    self.journal = self._conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            except sqlite3.DatabaseError as exc:
                self.close()
                raise StoreError(f"cannot open the transcript store {self.path!r}: "
                                 f"{_reason(exc, self.timeout)}") from exc

    # -- plumbing: one connection per thread, a deadline per thread -----------------
    def _thread_db(self) -> sqlite3.Connection:
        self._db()                                   # raises if closed
        if self.path in _MEMORY:                     # one private database: one connection
            return self._conn
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=self.timeout, check_same_thread=False)
            with self._lock:
                if self._conn is None:
                    db.close()
                    self._db()
                self._conns.append(db)
            self._local.db = db
        return db

    @contextmanager
    def until(self, deadline: float | None) -> Iterator[None]:
        before = getattr(self._local, "deadline", None)
        self._local.deadline = deadline
        try:
            yield
        finally:
            self._local.deadline = before

    @contextmanager
    def _using(self, session_id: str | None, doing: str) -> Iterator[sqlite3.Connection]:
        """This thread's connection, waiting for a lock at most until this thread's
        deadline (or ``timeout``); a lock still held then is :class:`StoreBusy`, any
        other sqlite3.DatabaseError a StoreError naming the path and the session."""
        deadline = getattr(self._local, "deadline", None)
        wait = self.timeout if deadline is None else \
            min(self.timeout, max(0.0, deadline - time.monotonic()))
        where = (f"the transcript store {self.path!r}" if session_id is None
                 else f"session {session_id!r} in {self.path!r}")
        shared = self.path in _MEMORY
        if shared:
            self._lock.acquire()
        try:
            db = self._thread_db()
            db.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
            yield db
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreBusy(f"{where}: {doing} failed: another connection held the "
                                f"file's write lock for {wait:g} s") from exc
            raise StoreError(f"{where}: {doing} failed: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{where}: {doing} failed: {_reason(exc, wait)}") from exc
        finally:
            if shared:
                self._lock.release()

    def close(self) -> None:
        with self._lock:
            conns, self._conns = self._conns, []
        for db in conns:
            db.close()
        super().close()

    def ping(self) -> bool:
        with self._using(None, "ping") as db:
            return db.execute("SELECT COUNT(*) FROM store_meta").fetchone()[0] >= 0

    # -- the lease -------------------------------------------------------------------
    def acquire(self, session_id: str, ttl: float, ticket: int | None = None
                ) -> Lease | None:
        check_session(session_id)
        ttl = check_span("ttl", ttl)
        if ticket is not None:
            _check_ticket(ticket)
        with self._using(session_id, "taking the lease") as db:
            now = float(self.clock())
            row = self._lease_row(db, session_id)       # reads first: no lock while held
            if ticket is not None:
                ahead, mine = db.execute(
                    "SELECT (SELECT COUNT(*) FROM waiters WHERE session_id = ? AND ticket < ?"
                    " AND expires_at > ?), (SELECT expires_at FROM waiters WHERE "
                    "session_id = ? AND ticket = ?)",
                    (session_id, ticket, now, session_id, ticket)).fetchone()
                if mine is None or mine - now < QUEUE_TTL / 2:     # still waiting: say so
                    with db:
                        db.execute("BEGIN IMMEDIATE")
                        db.execute("INSERT OR REPLACE INTO waiters VALUES (?, ?, ?)",
                                   (session_id, ticket, now + QUEUE_TTL))
                if ahead:
                    return None
            if row is not None and row[1] > now:
                return None
            with db:
                db.execute("BEGIN IMMEDIATE")
                now = float(self.clock())
                row = self._lease_row(db, session_id)
                if row is not None and row[1] > now:
                    return None
                if ticket is not None and db.execute(
                        "SELECT COUNT(*) FROM waiters WHERE session_id = ? AND ticket < ? "
                        "AND expires_at > ?", (session_id, ticket, now)).fetchone()[0]:
                    return None
                token = (row[0] if row else 0) + 1
                db.execute("INSERT OR REPLACE INTO leases VALUES (?, ?, ?)",
                           (session_id, token, now + ttl))
                if ticket is not None:       # served: its ticket and the dead ones go
                    db.execute("DELETE FROM waiters WHERE session_id = ? AND (ticket = ? "
                               "OR expires_at <= ?)", (session_id, ticket, now))
        return Lease(session_id, token, ttl)

    def enqueue(self, session_id: str) -> int:
        check_session(session_id)
        with self._using(session_id, "queueing for the lease") as db:
            with db:
                db.execute("BEGIN IMMEDIATE")
                ticket, = db.execute("SELECT COALESCE(MAX(ticket), 0) + 1 FROM waiters "
                                     "WHERE session_id = ?", (session_id,)).fetchone()
                db.execute("INSERT INTO waiters VALUES (?, ?, ?)",
                           (session_id, ticket, float(self.clock()) + QUEUE_TTL))
        return ticket

    def dequeue(self, session_id: str, ticket: int) -> None:
        check_session(session_id)
        _check_ticket(ticket)
        with self._using(session_id, "leaving the queue") as db:
            with db:
                db.execute("DELETE FROM waiters WHERE session_id = ? AND ticket = ?",
                           (session_id, ticket))

    def holder(self, session_id: str) -> int | None:
        check_session(session_id)
        with self._using(session_id, "reading the lease") as db:
            row = self._lease_row(db, session_id)
        return row[0] if row is not None and row[1] > float(self.clock()) else None

    @staticmethod
    def _lease_row(db: sqlite3.Connection, session_id: str) -> tuple | None:
        """(token, expires_at) of the session's last lease, None if it never had one."""
        return db.execute("SELECT token, expires_at FROM leases WHERE session_id = ?",
                          (session_id,)).fetchone()

    def _held(self, db: sqlite3.Connection, lease: Lease) -> bool:
        row = self._lease_row(db, lease.session_id)
        return row is not None and row[0] == lease.token and row[1] > float(self.clock())

    def renew(self, lease: Lease) -> None:
        _check_lease(lease)
        with self._using(lease.session_id, "renewing the lease") as db:
            with db:
                db.execute("BEGIN IMMEDIATE")
                if not self._held(db, lease):
                    raise LeaseLost(f"session {lease.session_id!r} in {self.path!r}: lease "
                                    f"{lease.token} is no longer held; not renewed")
                db.execute("UPDATE leases SET expires_at = ? WHERE session_id = ?",
                           (float(self.clock()) + lease.ttl, lease.session_id))

    def release(self, lease: Lease) -> bool:
        _check_lease(lease)
        with self._using(lease.session_id, "releasing the lease") as db:
            with db:
                db.execute("BEGIN IMMEDIATE")
                if not self._held(db, lease):
                    return False
                # the row stays (expired): the next token is still one more than this one
                db.execute("UPDATE leases SET expires_at = 0 WHERE session_id = ?",
                           (lease.session_id,))
        return True

    # -- idempotency keys ------------------------------------------------------------
    @staticmethod
    def _key_row(db: sqlite3.Connection, session_id: str, key: str) -> KeyRecord | None:
        row = db.execute("SELECT key, digest, token, turn, outcome, created_at FROM "
                         "idempotency WHERE session_id = ? AND key = ?",
                         (session_id, key)).fetchone()
        if row is None:
            return None
        outcome = None if row[4] is None else json.loads(row[4])
        return KeyRecord(row[0], row[1], row[2], row[3], outcome, row[5])

    def key_record(self, session_id: str, key: str) -> KeyRecord | None:
        check_session(session_id)
        _check_key(key)
        with self._using(session_id, "reading an idempotency key") as db:
            return self._key_row(db, session_id, key)

    def claim(self, lease: Lease, key: str, text_digest: str) -> KeyRecord | None:
        _check_lease(lease)
        _check_key(key)
        with self._using(lease.session_id, "claiming an idempotency key") as db:
            with db:
                db.execute("BEGIN IMMEDIATE")
                if not self._held(db, lease):
                    raise LeaseLost(f"session {lease.session_id!r} in {self.path!r}: lease "
                                    f"{lease.token} is no longer held; nothing was written")
                found = self._key_row(db, lease.session_id, key)
                if found is not None and (found.outcome is not None
                                          or found.digest != text_digest):
                    return found
                db.execute("INSERT OR REPLACE INTO idempotency VALUES (?, ?, ?, ?, NULL, "
                           "NULL, ?)", (lease.session_id, key, text_digest, lease.token,
                                        float(self.clock())))
        return None

    # -- a session -------------------------------------------------------------------
    def load(self, session_id: str) -> Snapshot:
        check_session(session_id)
        with self._using(session_id, "loading the session") as db:
            with db:
                db.execute("BEGIN")              # one read transaction: one snapshot
                row = db.execute("SELECT state FROM session_state WHERE session_id = ?",
                                 (session_id,)).fetchone()
                state = (parse_state(row[0], f"session {session_id!r} in {self.path!r}")
                         if row else None)
                last, = db.execute("SELECT COALESCE(MAX(number), 0) FROM messages WHERE "
                                   "session_id = ?", (session_id,)).fetchone()
                # a session stored before the service (a version-1 or -2 file, lesson 04)
                # has turns without records: its user messages count them
                turns, = db.execute("SELECT MAX((SELECT COUNT(*) FROM turns WHERE session_id"
                                    " = ?), (SELECT COUNT(*) FROM messages WHERE session_id "
                                    "= ? AND role = 'user'))", (session_id, session_id)
                                    ).fetchone()
                rows = db.execute("SELECT role, content, tokens, number, speaker, when_text "
                                  "FROM messages WHERE session_id = ? AND number >= ? "
                                  "ORDER BY number",
                                  (session_id, first_needed(state, last))).fetchall()
        return Snapshot(session_id, state, tuple(self._messages(session_id, rows)), last, turns)

    def commit(self, session_id: str, lease: Lease | None, messages: Sequence[Message],
               state: dict, events: Sequence[dict] = (), record: TurnRecord | None = None,
               key: KeyRecord | None = None) -> None:
        state_json, event_json = _check_commit(session_id, lease, messages, state, events)
        key_json = _key_json(key)
        insert = "INSERT" if lease is not None else "INSERT OR REPLACE"
        with self._using(session_id, "committing the turn") as db:
            with db:                             # the write lock from here to the end only
                db.execute("BEGIN IMMEDIATE")
                now = float(self.clock())
                if lease is not None and not self._held(db, lease):
                    raise LeaseLost(f"session {session_id!r} in {self.path!r}: lease "
                                    f"{lease.token} is no longer held (it expired or another "
                                    f"worker took the session); nothing was written")
                if lease is not None and messages:
                    last, = db.execute("SELECT COALESCE(MAX(number), 0) FROM messages "
                                       "WHERE session_id = ?", (session_id,)).fetchone()
                    _check_next(session_id, self.path, last, messages)
                db.executemany(
                    f"{insert} INTO messages (session_id, number, role, content, tokens, "
                    f"created_at, speaker, when_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(session_id, m.number, m.role, m.content, m.tokens, now, m.speaker,
                      m.when) for m in messages])
                db.execute("INSERT OR REPLACE INTO session_state VALUES (?, ?, ?)",
                           (session_id, state_json, now))
                db.executemany("INSERT INTO events (session_id, event) VALUES (?, ?)",
                               [(session_id, e) for e in event_json])
                if event_json:
                    db.execute("DELETE FROM events WHERE session_id = ? AND seq <= (SELECT "
                               "seq FROM events WHERE session_id = ? ORDER BY seq DESC "
                               "LIMIT 1 OFFSET ?)", (session_id, session_id, EVENTS_KEPT))
                if record is not None:
                    db.execute(f"{insert} INTO turns VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                               (session_id, record.turn, record.first_number,
                                record.last_number, record.token, record.based_on,
                                record.worker, now))
                if key is not None:
                    db.execute("INSERT OR REPLACE INTO idempotency VALUES (?, ?, ?, ?, ?, ?, ?)",
                               (session_id, key.key, key.digest, key.token, key.turn,
                                key_json, now))
                    db.execute("DELETE FROM idempotency WHERE session_id = ? AND (created_at"
                               " < ? OR key NOT IN (SELECT key FROM idempotency WHERE "
                               "session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?))",
                               (session_id, now - self.key_ttl, session_id, self.keys_kept))

    def events(self, session_id: str, last: int = 20) -> list[dict]:
        check_session(session_id)
        last = min(check_int("last", last, 0), EVENTS_KEPT)
        with self._using(session_id, "reading the events") as db:
            rows = db.execute("SELECT event FROM events WHERE session_id = ? ORDER BY seq "
                              "DESC LIMIT ?", (session_id, last)).fetchall()
        return [json.loads(text) for (text,) in reversed(rows)]

    def turn_log(self, session_id: str) -> list[TurnRecord]:
        check_session(session_id)
        with self._using(session_id, "reading the turn records") as db:
            rows = db.execute("SELECT turn, first_number, last_number, token, based_on, "
                              "worker, committed_at FROM turns WHERE session_id = ? "
                              "ORDER BY turn", (session_id,)).fetchall()
        return [TurnRecord(*row) for row in rows]

    def transcript(self, session_id: str) -> list[Message]:
        return self.turns(session_id)

    def __repr__(self) -> str:
        return f"SQLiteSessionStore({self.path!r}{', closed' if self._conn is None else ''})"


# -- Redis ---------------------------------------------------------------------------
# Every key of a session shares the hash tag {session}, so a Redis Cluster keeps them in
# one slot and one script may touch them all. A lease's lock holds "RUN:TOKEN", RUN the
# server's run id (INFO server: new at every start of redis-server), so a lease handed
# out before a restart is refused after it, even if a server that kept nothing on disk
# hands the same token out again.
_RUN = """
local function run_id()
  return string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
end
local function held(lock, value)
  return redis.call('GET', lock) == value and string.sub(value, 1, 41) == run_id() .. ':'
end
"""
# KEYS: lock, fence, queue (a sorted set of tickets), queue expiries (a hash)
# ARGV: ttl (ms), ticket ('' = none), queue ttl (ms)
_ACQUIRE = _RUN + """
if ARGV[2] ~= '' then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[2])         -- still waiting: say so
  redis.call('HSET', KEYS[4], ARGV[2], now + tonumber(ARGV[3]))
  for _, older in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[2])) do
    if tonumber(redis.call('HGET', KEYS[4], older) or '0') > now then return false end
    redis.call('ZREM', KEYS[3], older)                  -- a dead waiter's ticket
    redis.call('HDEL', KEYS[4], older)
  end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
if ARGV[2] ~= '' then
  redis.call('ZREM', KEYS[3], ARGV[2])
  redis.call('HDEL', KEYS[4], ARGV[2])
end
local token = redis.call('INCR', KEYS[2])
local run = run_id()
redis.call('SET', KEYS[1], run .. ':' .. token, 'PX', ARGV[1])
return {token, run}
"""
# KEYS: the ticket counter, queue, queue expiries; ARGV: queue ttl (ms)
_ENQUEUE = """
local ticket = redis.call('INCR', KEYS[1])
local t = redis.call('TIME')
redis.call('ZADD', KEYS[2], ticket, ticket)
redis.call('HSET', KEYS[3], ticket, tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
           + tonumber(ARGV[1]))
return ticket
"""
_RENEW = _RUN + """
if not held(KEYS[1], ARGV[1]) then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""
_RELEASE = _RUN + """
if not held(KEYS[1], ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
return 1
"""
# KEYS: lock, keys (a hash by key), key times (a sorted set)
# ARGV: the lease's lock value, key, digest, the pending record's json
_CLAIM = _RUN + """
if not held(KEYS[1], ARGV[1]) then return redis.error_reply('LEASELOST') end
local found = redis.call('HGET', KEYS[2], ARGV[2])
if found then
  local record = cjson.decode(found)
  if record['outcome'] ~= cjson.null or record['digest'] ~= ARGV[3] then return found end
end
local now = redis.call('TIME')
local record = cjson.decode(ARGV[4])
record['created_at'] = tonumber(now[1]) + tonumber(now[2]) / 1000000
redis.call('HSET', KEYS[2], ARGV[2], cjson.encode(record))
redis.call('ZADD', KEYS[3], record['created_at'], ARGV[2])
return false
"""
# KEYS: lock, messages, meta, state, events, turns, the set of sessions, keys, key times
# ARGV: lock value ('' = unfenced), session id, state, events kept, record ('' = none),
#       key ('' = none), key record json, keys kept, key ttl (seconds),
#       then pairs of (number, message json), then '--', then the event jsons
_COMMIT = _RUN + """
if ARGV[1] ~= '' and not held(KEYS[1], ARGV[1]) then
  return redis.error_reply('LEASELOST')
end
local i = 10
local last = tonumber(redis.call('HGET', KEYS[3], 'last') or '0')
if ARGV[1] ~= '' then                -- a fenced commit continues the numbering: check first
  local j, expected = i, last + 1
  while ARGV[j] ~= '--' do
    if tonumber(ARGV[j]) ~= expected then return redis.error_reply('NOTNEXT ' .. ARGV[j]) end
    expected, j = expected + 1, j + 2
  end
end
while ARGV[i] ~= '--' do
  local number = tonumber(ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  if number > last then last = number end
  i = i + 2
end
redis.call('HSET', KEYS[3], 'last', last)
redis.call('SET', KEYS[4], ARGV[3])
for j = i + 1, #ARGV do redis.call('RPUSH', KEYS[5], ARGV[j]) end
redis.call('LTRIM', KEYS[5], -tonumber(ARGV[4]), -1)
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
if ARGV[5] ~= '' then
  local record = cjson.decode(ARGV[5])
  record['committed_at'] = now
  redis.call('HSET', KEYS[6], record['turn'], cjson.encode(record))
end
if ARGV[6] ~= '' then                -- the key and its outcome; old and surplus keys go
  local record = cjson.decode(ARGV[7])
  record['created_at'] = now
  redis.call('HSET', KEYS[8], ARGV[6], cjson.encode(record))
  redis.call('ZADD', KEYS[9], now, ARGV[6])
  local gone = redis.call('ZRANGEBYSCORE', KEYS[9], '-inf', '(' .. (now - tonumber(ARGV[9])))
  local surplus = redis.call('ZRANGE', KEYS[9], 0, -tonumber(ARGV[8]) - 1)
  for _, list in ipairs({gone, surplus}) do
    for _, k in ipairs(list) do
      redis.call('HDEL', KEYS[8], k)
      redis.call('ZREM', KEYS[9], k)
    end
  end
end
redis.call('SADD', KEYS[7], ARGV[2])
return 1
"""


_USER_PASSWORD = re.compile(r"(//[^:/@?#]*:)[^/?#]*@")   # to the last "@" of the host part
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&#]*", re.IGNORECASE)


def redact(url: str) -> str:
    """``url`` with its password, if any, replaced by ``***`` (in the user part and in a
    ``password=`` query parameter), for error messages and logs."""
    return _QUERY_PASSWORD.sub(r"\1***", _USER_PASSWORD.sub(r"\1***@", url, count=1))


def _message_json(message: Message) -> str:
    return json.dumps([message.role, message.content, message.tokens, message.number,
                       message.speaker, message.when])


class RedisSessionStore(SessionStore):
    """The service's store in Redis, for several workers on one or more machines.

    ``url``: a ``redis://`` or ``unix://`` URL (see redis-py's ``Redis.from_url``);
    ``prefix``: put before every key (tests give each run its own). Per session: the
    messages (a hash by number), the memory's state, the turn records (a hash by turn),
    the newest :data:`EVENTS_KEPT` trace events (a list), ``last`` (in a meta hash), the
    lease (a key holding the token, expiring by Redis's clock: ``SET ... PX``) and the
    fencing counter (``INCR``). Acquire, renew, release and commit are Lua scripts, so
    each check-and-write is one atomic step on the server. Raises StoreError naming
    the URL and the session if Redis cannot be reached or answers with an error.
    """

    kind = "redis"
    keys_kept, key_ttl = KEYS_KEPT, KEY_TTL

    def __init__(self, url: str = "redis://127.0.0.1:6379/0", prefix: str = "kit") -> None:
        import redis                              # the [serve] extra; imported when used
        if not isinstance(url, str) or not url:
            raise ValueError(f"url must be a redis:// or unix:// URL, got {url!r:.60}")
        if not isinstance(prefix, str) or not prefix or "{" in prefix:
            raise ValueError(f"prefix must be a non-empty str without '{{', got {prefix!r}")
        self.url, self.prefix = redact(url), prefix   # what messages and repr show
        self._redis = redis.Redis.from_url(url, decode_responses=True, socket_timeout=10)
        self._errors = (redis.RedisError,)
        self._acquire = self._redis.register_script(_ACQUIRE)
        self._renew = self._redis.register_script(_RENEW)
        self._release = self._redis.register_script(_RELEASE)
        self._commit = self._redis.register_script(_COMMIT)
        self._claim = self._redis.register_script(_CLAIM)
        self._enqueue = self._redis.register_script(_ENQUEUE)
        self._closed = False
        self._lock = threading.Lock()

    def _key(self, session_id: str, name: str) -> str:
        return f"{self.prefix}:{{{session_id}}}:{name}"

    def _call(self, session_id: str | None, doing: str, fn, *args, **kwargs):
        if self._closed:
            raise ValueError(f"the Redis store {self.url!r} is closed")
        where = (f"the Redis store {self.url!r}" if session_id is None
                 else f"session {session_id!r} in {self.url!r}")
        try:
            return fn(*args, **kwargs)
        except self._errors as exc:
            if "LEASELOST" in str(exc):
                raise LeaseLost(f"{where}: the lease is no longer held (it expired or "
                                f"another worker took the session); nothing was written"
                                ) from None
            if "NOTNEXT" in str(exc):
                raise StoreError(f"{where}: the turn's messages do not follow the stored "
                                 f"ones; nothing was written") from None
            raise StoreError(f"{where}: {doing} failed: {type(exc).__name__}: "
                             f"{redact(str(exc))}") from exc

    def ping(self) -> bool:
        """True if the server answers (raises StoreError if it cannot be reached)."""
        return bool(self._call(None, "ping", self._redis.ping))

    def persistence(self) -> dict:
        """What the server keeps: ``{"aof": bool, "save": str, "run": str, "evicts":
        bool, "policy": str}`` (``appendonly`` on; the RDB ``save`` schedule, "" for
        none; the server's run id; whether a ``maxmemory`` with an eviction
        ``maxmemory-policy`` may drop keys, sessions and leases included). Read with ``CONFIG GET``, or ``INFO persistence`` where CONFIG is
        disabled (``save`` is then ``"?"``). Raises StoreError if Redis does not answer."""
        info = self._call(None, "reading INFO", self._redis.info)
        try:
            got = {}
            for name in ("appendonly", "save", "maxmemory-policy"):
                got.update(self._call(None, "CONFIG GET", self._redis.config_get, name))
            aof, save = got.get("appendonly") == "yes", got.get("save", "")
            policy = got.get("maxmemory-policy", "noeviction")
        except StoreError:
            aof, save = bool(info.get("aof_enabled")), "?"
            policy = str(info.get("maxmemory_policy", "noeviction"))
        evicts = policy != "noeviction" and int(info.get("maxmemory", 0) or 0) > 0
        return {"aof": aof, "save": save, "run": str(info.get("run_id", "")),
                "evicts": evicts, "policy": policy}

    @staticmethod
    def _value(lease: Lease) -> str:
        return f"{lease.run}:{lease.token}"

    def acquire(self, session_id: str, ttl: float, ticket: int | None = None
                ) -> Lease | None:
        check_session(session_id)
        ttl = check_span("ttl", ttl)
        if ticket is not None:
            _check_ticket(ticket)
        key = self._key
        got = self._call(session_id, "taking the lease", self._acquire,
                         keys=[key(session_id, "lock"), key(session_id, "fence"),
                               key(session_id, "queue"), key(session_id, "queued")],
                         args=[max(1, round(ttl * 1000)), "" if ticket is None else ticket,
                               round(QUEUE_TTL * 1000)])
        return None if got is None else Lease(session_id, int(got[0]), ttl, str(got[1]))

    def enqueue(self, session_id: str) -> int:
        check_session(session_id)
        key = self._key
        return int(self._call(session_id, "queueing for the lease", self._enqueue,
                              keys=[key(session_id, "tickets"), key(session_id, "queue"),
                                    key(session_id, "queued")],
                              args=[round(QUEUE_TTL * 1000)]))

    def dequeue(self, session_id: str, ticket: int) -> None:
        check_session(session_id)
        _check_ticket(ticket)
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.zrem(self._key(session_id, "queue"), ticket)
            pipe.hdel(self._key(session_id, "queued"), ticket)
            self._call(session_id, "leaving the queue", pipe.execute)

    def holder(self, session_id: str) -> int | None:
        check_session(session_id)
        value = self._call(session_id, "reading the lease", self._redis.get,
                           self._key(session_id, "lock"))
        return None if value is None else int(value.rpartition(":")[2])

    def renew(self, lease: Lease) -> None:
        _check_lease(lease)
        held = self._call(lease.session_id, "renewing the lease", self._renew,
                          keys=[self._key(lease.session_id, "lock")],
                          args=[self._value(lease), max(1, round(lease.ttl * 1000))])
        if not held:
            raise LeaseLost(f"session {lease.session_id!r} in {self.url!r}: lease "
                            f"{lease.token} is no longer held; not renewed")

    def release(self, lease: Lease) -> bool:
        _check_lease(lease)
        return bool(self._call(lease.session_id, "releasing the lease", self._release,
                               keys=[self._key(lease.session_id, "lock")],
                               args=[self._value(lease)]))

    @staticmethod
    def _record(key: str, text: str | None) -> KeyRecord | None:
        if text is None:
            return None
        data = json.loads(text)
        return KeyRecord(key, data["digest"], data.get("token"), data.get("turn"),
                         data.get("outcome"), data.get("created_at", 0.0))

    def key_record(self, session_id: str, key: str) -> KeyRecord | None:
        check_session(session_id)
        _check_key(key)
        return self._record(key, self._call(session_id, "reading an idempotency key",
                                            self._redis.hget, self._key(session_id, "keys"),
                                            key))

    def claim(self, lease: Lease, key: str, text_digest: str) -> KeyRecord | None:
        _check_lease(lease)
        _check_key(key)
        pending = json.dumps({"digest": text_digest, "token": lease.token, "turn": None,
                              "outcome": None})
        found = self._call(lease.session_id, "claiming an idempotency key", self._claim,
                           keys=[self._key(lease.session_id, "lock"),
                                 self._key(lease.session_id, "keys"),
                                 self._key(lease.session_id, "keytimes")],
                           args=[self._value(lease), key, text_digest, pending])
        return self._record(key, found)

    def load(self, session_id: str) -> Snapshot:
        check_session(session_id)
        key = self._key
        with self._redis.pipeline(transaction=True) as pipe:       # MULTI ... EXEC
            pipe.get(key(session_id, "state"))
            pipe.hget(key(session_id, "meta"), "last")
            pipe.hlen(key(session_id, "turns"))
            text, last, turns = self._call(session_id, "loading the session", pipe.execute)
        state = (None if text is None else
                 parse_state(text, f"session {session_id!r} in {self.url!r}"))
        last = int(last or 0)
        # Messages up to ``last`` never change once a fenced commit wrote them.
        numbers = list(range(first_needed(state, last), last + 1))
        rows: list = []
        for i in range(0, len(numbers), 1000):
            rows += self._call(session_id, "reading messages", self._redis.hmget,
                               key(session_id, "messages"), numbers[i:i + 1000])
        messages = tuple(Message(*json.loads(row)) for row in rows if row is not None)
        return Snapshot(session_id, state, messages, last, int(turns))

    def commit(self, session_id: str, lease: Lease | None, messages: Sequence[Message],
               state: dict, events: Sequence[dict] = (), record: TurnRecord | None = None,
               key: KeyRecord | None = None) -> None:
        state_json, event_json = _check_commit(session_id, lease, messages, state, events)
        _key_json(key)
        record_json = "" if record is None else json.dumps(asdict(record))
        key_json = "" if key is None else json.dumps(
            {"digest": key.digest, "token": key.token, "turn": key.turn,
             "outcome": key.outcome}, allow_nan=False)
        args: list = ["" if lease is None else self._value(lease), session_id, state_json,
                      EVENTS_KEPT, record_json, "" if key is None else key.key, key_json,
                      self.keys_kept, self.key_ttl]
        for m in messages:
            args += [m.number, _message_json(m)]
        args += ["--", *event_json]
        key = self._key
        self._call(session_id, "committing the turn", self._commit,
                   keys=[key(session_id, "lock"), key(session_id, "messages"),
                         key(session_id, "meta"), key(session_id, "state"),
                         key(session_id, "events"), key(session_id, "turns"),
                         f"{self.prefix}:sessions", key(session_id, "keys"),
                         key(session_id, "keytimes")], args=args)

    def events(self, session_id: str, last: int = 20) -> list[dict]:
        check_session(session_id)
        last = min(check_int("last", last, 0), EVENTS_KEPT)
        if last == 0:
            return []
        rows = self._call(session_id, "reading the events", self._redis.lrange,
                          self._key(session_id, "events"), -last, -1)
        return [json.loads(row) for row in rows]

    def turn_log(self, session_id: str) -> list[TurnRecord]:
        check_session(session_id)
        rows = self._call(session_id, "reading the turn records", self._redis.hvals,
                          self._key(session_id, "turns"))
        return sorted((TurnRecord(**json.loads(row)) for row in rows), key=lambda r: r.turn)

    def transcript(self, session_id: str) -> list[Message]:
        check_session(session_id)
        rows = self._call(session_id, "reading the transcript", self._redis.hvals,
                          self._key(session_id, "messages"))
        return sorted((Message(*json.loads(row)) for row in rows), key=lambda m: m.number)

    def sessions(self) -> list[str]:
        """Ids of every session with a committed turn, sorted."""
        return sorted(self._call(None, "listing sessions", self._redis.smembers,
                                 f"{self.prefix}:sessions"))

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._redis.close()

    def __repr__(self) -> str:
        return f"RedisSessionStore({self.url!r}, prefix={self.prefix!r})"


def open_store(spec: str, timeout: float = 5.0) -> SessionStore:
    """A store from its spec: ``"sqlite:PATH"`` (a file; ``"sqlite::memory:"`` for one
    process) or a ``redis://`` / ``rediss://`` / ``unix://`` URL (an optional
    ``#prefix`` at the end sets the key prefix). ``timeout``: seconds a SQLite store
    waits for another connection's write lock (its busy timeout; the service gives it
    less than its ``wait``). Raises ValueError naming a spec of neither kind,
    StoreError if the store cannot be opened."""
    if not isinstance(spec, str):
        raise TypeError(f"store must be a str such as 'sqlite:chat.db', got {spec!r:.60}")
    if spec.startswith("sqlite:") and len(spec) > len("sqlite:"):
        return SQLiteSessionStore(spec[len("sqlite:"):], timeout=timeout)
    if spec.startswith(("redis://", "rediss://", "unix://")):
        url, _, prefix = spec.partition("#")
        return RedisSessionStore(url, prefix or "kit")
    raise ValueError(f"store must be 'sqlite:PATH' or a redis:// URL, got {spec!r:.80}")

