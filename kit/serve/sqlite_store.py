"""The service's store in one SQLite file (:class:`SQLiteSessionStore`): the interface
of :mod:`kit.serve.stores` over :class:`kit.store.TranscriptStore`'s file (schema
version 4), in WAL mode, reads without the write lock, a write lock only around each
write's checks and writes, and a deadline per thread for the waits."""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from kit.longterm.forget import Forgotten, choose, forget_rows, scrub_bytes
from kit.messages import Message
from kit.serve.stores import (EVENTS_KEPT, KEY_TTL, KEYS_KEPT, QUEUE_TTL, KeyRecord, Lease,
                              LeaseLost, SessionStore, Snapshot, StoreBusy, TurnRecord,
                              _check_acquire, _check_commit, _check_forget, _check_key, _check_lease,
                              _check_next,
                              _check_ticket, _key_json, first_needed)
from kit.store import _MEMORY, StoreError, TranscriptStore, _reason, check_session, parse_state
from kit.validation import check_int

__all__ = ["SQLiteSessionStore"]

_ALL = 2 ** 62             # a ticket larger than any: "behind every queued turn"


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
    keys_kept, key_ttl, queue_ttl = KEYS_KEPT, KEY_TTL, QUEUE_TTL

    def __init__(self, path=":memory:", clock=time.time, *, timeout: float = 5.0) -> None:
        super().__init__(path, clock, timeout=timeout)
        self._local = threading.local()
        self._conns: list[tuple[threading.Thread, sqlite3.Connection]] = []
        self.journal = "memory"
        if self.path not in _MEMORY:
            # Switching to WAL needs the file to itself, and SQLite does not wait for that:
            # workers that open a new file at once retry until the timeout.
            deadline = time.monotonic() + self.timeout
            while True:
                try:
                    with self._lock:
                        self.journal = self._conn.execute(
                            "PRAGMA journal_mode=WAL").fetchone()[0]
                    break
                except sqlite3.OperationalError as exc:
                    if "locked" in str(exc) and time.monotonic() < deadline:
                        time.sleep(0.02)
                        continue
                    self.close()
                    raise StoreError(f"cannot open the transcript store {self.path!r}: "
                                     f"{_reason(exc, self.timeout)}") from exc
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
                # the connections of threads that ended (a turn's lease renewer) go now
                ended = [c for t, c in self._conns if not t.is_alive()]
                self._conns = [(t, c) for t, c in self._conns if t.is_alive()]
                self._conns.append((threading.current_thread(), db))
            for old in ended:
                old.close()
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
        for _, db in conns:
            db.close()
        super().close()

    def ping(self) -> bool:
        with self._using(None, "ping") as db:
            return db.execute("SELECT COUNT(*) FROM store_meta").fetchone()[0] >= 0

    # -- the lease -------------------------------------------------------------------
    def acquire(self, session_id: str, ttl: float, ticket: int | None = None
                ) -> Lease | None:
        ttl = _check_acquire(session_id, ttl, ticket)
        with self._using(session_id, "taking the lease") as db:
            now = float(self.clock())
            row = self._lease_row(db, session_id)       # reads first: no lock while held
            before = ticket or _ALL                     # NOT_QUEUED: behind every ticket
            if ticket is not None:
                ahead, mine = db.execute(
                    "SELECT (SELECT COUNT(*) FROM waiters WHERE session_id = ? AND ticket < ?"
                    " AND expires_at > ?), (SELECT expires_at FROM waiters WHERE "
                    "session_id = ? AND ticket = ?)",
                    (session_id, before, now, session_id, ticket)).fetchone()
                if ticket and (mine is None or mine - now < self.queue_ttl / 2):  # still here
                    with db:
                        db.execute("BEGIN IMMEDIATE")
                        db.execute("INSERT OR REPLACE INTO waiters VALUES (?, ?, ?)",
                                   (session_id, ticket, now + self.queue_ttl))
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
                        "AND expires_at > ?", (session_id, before, now)).fetchone()[0]:
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
                           (session_id, ticket, float(self.clock()) + self.queue_ttl))
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

    def _require(self, db: sqlite3.Connection, lease: Lease, refused: str) -> None:
        """Raise LeaseLost (``refused``: what then did not happen) unless ``lease`` is held."""
        if not self._held(db, lease):
            raise LeaseLost(f"session {lease.session_id!r} in {self.path!r}: lease "
                            f"{lease.token} is no longer held{refused}")

    def renew(self, lease: Lease) -> None:
        _check_lease(lease)
        with self._using(lease.session_id, "renewing the lease") as db:
            with db:
                db.execute("BEGIN IMMEDIATE")
                self._require(db, lease, "; not renewed")
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
                self._require(db, lease, "; nothing was written")
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
                if lease is not None:
                    self._require(db, lease, " (it expired or another worker took the "
                                             "session); nothing was written")
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

    def forget(self, session_id: str, lease: Lease | None, words: Sequence[str] | None = None
               ) -> tuple[int, ...]:
        _check_forget(session_id, lease, words)             # checked before anything
        with self._using(session_id, "forgetting") as db:
            with db:
                db.execute("BEGIN IMMEDIATE")
                if lease is not None:
                    self._require(db, lease, "; nothing was forgotten")
                turns = self._messages(session_id, db.execute(
                    "SELECT role, content, tokens, number, speaker, when_text FROM messages "
                    "WHERE session_id = ? ORDER BY number", (session_id,)).fetchall())
                numbers, facts, by = choose(turns, [], words=words, everything=words is None)
                forget_rows(db, Forgotten(session_id, numbers, facts, by),
                            everything=words is None)
            scrub_bytes(db, f"session {session_id!r} in {self.path!r}")
        return numbers

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
