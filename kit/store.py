"""The raw transcript in SQLite, so a restart forgets nothing (seed 001, seed 000).

A memory's summary is lossy; the transcript is the source of truth. Every message a
memory adds is written here *before* any compaction runs, and the memory's state (its
running summary, which turns are verbatim, how many messages it has numbered) is
saved after every add. :func:`restore` rebuilds a freshly constructed memory from the
two, and a summary can always be redone from the stored turns.

    with TranscriptStore("chat.db") as store:
        memory = SummaryMemory(summariser, budget=200)
        attach_store(memory, store, "alice")       # or memory.attach(store, "alice")
        memory.add("user", "my order is 88412")
    # ... a new process:
    with TranscriptStore("chat.db") as store:
        memory = restore(SummaryMemory(summariser, budget=200), store, "alice")

One file, the standard library's :mod:`sqlite3`, parameterised queries only, the
default rollback journal (no ``-wal`` side files). One connection with
``check_same_thread=False`` and a lock, so a background compaction thread can write.
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable

from kit.memory.base import Memory
from kit.messages import TURN_ROLES, Message
from kit.structured import StructuredSummary

__all__ = ["TranscriptStore", "StoreError", "SCHEMA_VERSION", "SessionLink", "attach_store",
           "restore", "memory_state"]

SCHEMA_VERSION = 1
SUMMARY_FIELDS = ("summary", "summary_tokens", "compactions", "structured")
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS messages (session_id TEXT NOT NULL, number INTEGER NOT NULL,"
    " role TEXT NOT NULL, content TEXT NOT NULL, tokens INTEGER NOT NULL,"
    " created_at REAL NOT NULL, PRIMARY KEY (session_id, number))",
    "CREATE TABLE IF NOT EXISTS session_state (session_id TEXT PRIMARY KEY,"
    " state TEXT NOT NULL, updated_at REAL NOT NULL)",
)


class StoreError(ValueError):
    """The file is not a usable transcript store (corrupt, another program's SQLite
    database, a newer schema, or unopenable), or stored data cannot rebuild a memory.
    The message names the path or the session."""


def check_session(session_id: object) -> str:
    """Return ``session_id`` if it is a non-empty str; else raise naming it."""
    if not isinstance(session_id, str):
        raise TypeError(f"session_id must be a str, got {type(session_id).__name__}: "
                        f"{session_id!r:.60}")
    if not session_id.strip():
        raise ValueError(f"session_id must be a non-empty str, got {session_id!r}")
    return session_id


class TranscriptStore:
    """Messages and memory state of many sessions in one SQLite file.

    ``path``: a file path (created if missing) or ``":memory:"``; ``clock``: returns
    the time in seconds stored as each message's ``created_at`` (default
    :func:`time.time`; inject one in tests). Raises :class:`StoreError` naming the path
    if the file is corrupt, belongs to another program, has a newer schema or cannot
    be opened. Thread-safe; a context manager that closes on exit.
    """

    def __init__(self, path: str | os.PathLike = ":memory:",
                 clock: Callable[[], float] = time.time) -> None:
        if not callable(clock):
            raise TypeError(f"clock must be callable () -> float, got {clock!r}")
        self.path, self.clock = os.fspath(path), clock
        self._lock = threading.RLock()
        try:
            self._conn: sqlite3.Connection | None = sqlite3.connect(
                self.path, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the transcript store {self.path!r}: {exc}") from exc
        try:
            self._open_schema()
        except BaseException:
            self._conn.close()
            self._conn = None
            raise

    def _open_schema(self) -> None:
        conn = self._conn
        try:
            tables = {row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and "store_meta" not in tables:
                raise StoreError(f"{self.path!r} is a SQLite database but not a transcript "
                                 f"store (its tables: {', '.join(sorted(tables))})")
            if not tables:               # a new file: create the schema in one transaction
                with conn:
                    conn.execute("BEGIN")
                    for statement in _SCHEMA:
                        conn.execute(statement)
                    conn.execute("INSERT OR IGNORE INTO store_meta VALUES ('schema_version', ?)",
                                 (str(SCHEMA_VERSION),))
            row = conn.execute("SELECT value FROM store_meta WHERE key = 'schema_version'"
                               ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path!r} is not a readable transcript store: {exc}") from exc
        if row is None or row[0] != str(SCHEMA_VERSION):
            raise StoreError(f"{self.path!r} has transcript-store schema version "
                             f"{row and row[0]!r}; this kit reads version {SCHEMA_VERSION}")

    # -- plumbing ---------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise ValueError(f"the transcript store {self.path!r} is closed")
        return self._conn

    def close(self) -> None:
        """Close the file (idempotent). Later calls raise ValueError."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> "TranscriptStore":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"TranscriptStore({self.path!r}{', closed' if self._conn is None else ''})"

    # -- messages ---------------------------------------------------------------
    def append(self, session_id: str, message: Message) -> None:
        """Store one turn: its number, role, content, tokens and ``created_at``.

        Raises ValueError naming the session and number if that number is already
        stored for the session (nothing is written), TypeError/ValueError for a bad
        session id or a message that is not a numbered (>= 1) user/assistant
        :class:`~kit.messages.Message`.
        """
        check_session(session_id)
        if not isinstance(message, Message):
            raise TypeError(f"message must be a kit.messages.Message, got {message!r:.60}")
        if message.role not in TURN_ROLES or message.number < 1:
            raise ValueError(f"only numbered user/assistant turns are stored, got "
                             f"{message.role} message number {message.number}")
        with self._lock:
            db = self._db()
            try:
                with db:
                    db.execute("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?)",
                               (session_id, message.number, message.role, message.content,
                                message.tokens, float(self.clock())))
            except sqlite3.IntegrityError as exc:
                raise ValueError(f"session {session_id!r} already has message "
                                 f"{message.number}; nothing was written") from exc

    def turns(self, session_id: str, first: int = 1, last: int | None = None) -> list[Message]:
        """Stored messages ``first..last`` (by number, inclusive; ``last=None``: to the
        end), oldest first, with the token counts measured when they were added."""
        check_session(session_id)
        for name, value in (("first", first), ("last", last)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"{name} must be an int, got {value!r}")
        if first < 1:
            raise ValueError(f"first must be >= 1, got {first}")
        sql = ("SELECT role, content, tokens, number FROM messages WHERE session_id = ? "
               "AND number >= ?")
        params: tuple = (session_id, first)
        if last is not None:
            sql, params = sql + " AND number <= ?", params + (last,)
        with self._lock:
            rows = self._db().execute(sql + " ORDER BY number", params).fetchall()
        return [Message(*row) for row in rows]

    def count(self, session_id: str) -> int:
        """Number of messages stored for the session (0 for an unknown one)."""
        check_session(session_id)
        with self._lock:
            return self._db().execute("SELECT COUNT(*) FROM messages WHERE session_id = ?",
                                      (session_id,)).fetchone()[0]

    def created_at(self, session_id: str, number: int) -> float:
        """When message ``number`` was stored (seconds, from the store's clock).
        Raises KeyError naming the session and number if it is not stored."""
        check_session(session_id)
        with self._lock:
            row = self._db().execute("SELECT created_at FROM messages WHERE session_id = ? "
                                     "AND number = ?", (session_id, number)).fetchone()
        if row is None:
            raise KeyError(f"session {session_id!r} has no message {number!r}")
        return row[0]

    def sessions(self) -> list[str]:
        """Ids of every session with stored messages or state, sorted."""
        with self._lock:
            rows = self._db().execute("SELECT session_id FROM messages UNION "
                                      "SELECT session_id FROM session_state ORDER BY 1")
            return [row[0] for row in rows]

    def delete(self, session_id: str) -> int:
        """Forget a session's messages and state; return how many messages went."""
        check_session(session_id)
        with self._lock:
            db = self._db()
            with db:
                gone = db.execute("DELETE FROM messages WHERE session_id = ?",
                                  (session_id,)).rowcount
                db.execute("DELETE FROM session_state WHERE session_id = ?", (session_id,))
            return gone

    # -- state ------------------------------------------------------------------
    def save_state(self, session_id: str, state: dict) -> None:
        """Replace the session's saved state with ``state`` (a dict stored as JSON).

        Raises TypeError/ValueError (nothing written) if it is not a dict or not JSON.
        """
        check_session(session_id)
        if not isinstance(state, dict):
            raise TypeError(f"state must be a dict, got {type(state).__name__}")
        try:
            text = json.dumps(state, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"the state of session {session_id!r} is not JSON: {exc}") from exc
        with self._lock:
            db = self._db()
            with db:
                db.execute("INSERT OR REPLACE INTO session_state VALUES (?, ?, ?)",
                           (session_id, text, float(self.clock())))

    def load_state(self, session_id: str) -> dict | None:
        """The session's saved state, or None if none was saved."""
        check_session(session_id)
        with self._lock:
            row = self._db().execute("SELECT state FROM session_state WHERE session_id = ?",
                                     (session_id,)).fetchone()
        return None if row is None else json.loads(row[0])


# -- a memory wired to a store ----------------------------------------------------
def _runs(numbers: list[int]) -> list[list[int]]:
    """[3, 4, 5, 9] -> [[3, 5], [9, 9]]: message numbers as inclusive runs."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return runs


def _numbers(runs: list[list[int]]) -> list[int]:
    return [n for first, last in runs for n in range(first, last + 1)]


def memory_state(memory) -> dict:
    """What a memory holds beyond the transcript, as a JSON-ready dict.

    ``memory`` (its ``name``), ``unit``, ``added`` (messages numbered so far) and
    ``turns`` (the verbatim turns' numbers as inclusive runs, ``[[5, 12]]``); for a
    summary memory also ``summary``, ``summary_tokens``, ``compactions``, ``structured``
    (if the memory has it) and, when ``max_age`` is set, ``added_at`` (the memory's
    clock reading per verbatim turn; use a wall clock such as :func:`time.time` if
    ages must survive a restart: ``time.monotonic`` readings do not). ``folded`` is not
    saved: it is every message that is not verbatim.
    """
    state = {"memory": memory.name, "unit": memory.unit, "added": memory.added,
             "turns": _runs([m.number for m in memory.turns])}
    for name in SUMMARY_FIELDS:
        if hasattr(memory, name):
            value = getattr(memory, name)
            state[name] = json.loads(value.to_json()) if hasattr(value, "to_json") else value
    if getattr(memory, "max_age", None) is not None:     # clock readings of verbatim turns
        state["added_at"] = {str(n): t for n, t in memory.added_at.items()}
    return state


def _load_field(name: str, value):
    if name == "structured" and isinstance(value, dict):
        return StructuredSummary(**value)
    return value


class SessionLink:
    """Connects one memory to one session of a :class:`TranscriptStore`.

    The memory calls :meth:`message_added` right after a message joins its turns
    (before any compaction: the transcript is written ahead) and :meth:`save` when
    the add is over (also after a failed compaction: the message was kept). A write
    that fails never costs the memory its turn and never fails the add: the message
    stays in memory, waits in ``unsaved`` and is written, in order, at the next add
    (or :meth:`sync`, which raises if it still fails); the add's trace note says so,
    and ``last_error`` keeps the failure until everything is written again.
    """

    def __init__(self, memory, store: TranscriptStore, session_id: str) -> None:
        self.memory, self.store, self.session_id = memory, store, session_id
        self.unsaved: list[Message] = []     # turns not yet written, oldest first
        self.state_saved = True
        self.last_error: Exception | None = None
        self._lock = threading.RLock()

    def message_added(self, message: Message) -> str:
        """Write ``message`` after any earlier unsaved ones; return a trace note ("" if
        everything is written)."""
        with self._lock:
            self.unsaved.append(message)
            return self._write_unsaved()

    def _write_unsaved(self) -> str:
        while self.unsaved:
            try:
                self.store.append(self.session_id, self.unsaved[0])
            except Exception as exc:         # kept in memory; retried at the next add
                self.last_error = exc
                numbers = ", ".join(str(m.number) for m in self.unsaved)
                return (f"transcript write failed ({type(exc).__name__}: {exc}); message "
                        f"{numbers} kept in memory, to be written at the next add")
            self.unsaved.pop(0)
        return ""

    def save(self) -> None:
        """Save the memory's state (:func:`memory_state`); a failure is recorded in
        ``last_error`` and ``state_saved``, and the next save writes the whole state."""
        with self._lock:
            try:
                self.store.save_state(self.session_id, memory_state(self.memory))
            except Exception as exc:
                self.last_error, self.state_saved = exc, False
            else:
                self.state_saved = True
                if not self.unsaved:
                    self.last_error = None   # everything is written again

    def sync(self) -> None:
        """Retry unsaved messages and the state; raise :class:`StoreError` (the last
        failure as its cause) if something is still not written."""
        with self._lock:
            self._write_unsaved()
            self.save()
            if self.unsaved or not self.state_saved:
                raise StoreError(f"session {self.session_id!r} in {self.store.path!r}: "
                                 f"{len(self.unsaved)} message(s) unsaved, state "
                                 f"{'saved' if self.state_saved else 'unsaved'}"
                                 ) from self.last_error

    def __repr__(self) -> str:
        return (f"SessionLink({self.session_id!r}, {self.store!r}, "
                f"unsaved={len(self.unsaved)}, state_saved={self.state_saved})")


def _check_fresh(memory, store, verb: str) -> None:
    if not isinstance(memory, Memory):
        raise TypeError(f"memory must be a kit.memory Memory, got {memory!r:.60}")
    if not isinstance(store, TranscriptStore):
        raise TypeError(f"store must be a TranscriptStore, got {store!r:.60}")
    if memory.added or memory.link is not None:
        raise ValueError(f"{verb} needs a freshly constructed memory; this one has "
                         f"{memory.added} messages{' and a store' if memory.link else ''}")


def attach_store(memory, store: TranscriptStore, session_id: str):
    """Write ``memory``'s messages and state to ``store`` under ``session_id`` from now
    on; return the memory.

    Raises TypeError for a wrong type, ValueError if the memory already holds messages
    or a store, or if the session already exists in the store (continue it with
    :func:`restore`, or ``store.delete`` it to start over).
    """
    check_session(session_id)
    _check_fresh(memory, store, "attach_store")
    stored = store.count(session_id)
    if stored or store.load_state(session_id) is not None:
        raise ValueError(f"session {session_id!r} already exists in {store.path!r} "
                         f"({stored} messages); continue it with restore() or delete it")
    memory.link = SessionLink(memory, store, session_id)
    return memory


def restore(memory, store: TranscriptStore, session_id: str):
    """Rebuild a freshly constructed ``memory`` (same class and configuration as the
    one that wrote the session) from ``store``; return it, attached to the store.

    Verbatim turns come from the stored transcript, the summary from the saved state.
    Messages stored after the last saved state (the process stopped mid-add) come back
    as verbatim turns: kept, not yet compacted. An unknown session gives an empty,
    attached memory. Raises ValueError for a used memory, :class:`StoreError` if the
    state belongs to another kind of memory or unit, or a verbatim turn is missing
    from the transcript.
    """
    check_session(session_id)
    _check_fresh(memory, store, "restore")
    state = store.load_state(session_id) or {"memory": memory.name, "unit": memory.unit,
                                             "added": 0, "turns": []}
    for key, mine in (("memory", memory.name), ("unit", memory.unit)):
        if state[key] != mine:
            raise StoreError(f"session {session_id!r} in {store.path!r} was saved by a "
                             f"{key} {state[key]!r}; this memory is {mine!r}")
    verbatim = set(_numbers(state["turns"]))
    first = min(verbatim, default=state["added"] + 1)
    # verbatim turns, then any message stored after the last saved state
    turns = [m for m in store.turns(session_id, first=first)
             if m.number in verbatim or m.number > state["added"]]
    missing = sorted(verbatim - {m.number for m in turns})
    if missing:
        raise StoreError(f"session {session_id!r} in {store.path!r}: the transcript lacks "
                         f"verbatim message(s) {missing}")
    fields = {name: _load_field(name, state[name]) for name in SUMMARY_FIELDS if name in state}
    added = max([state["added"]] + [m.number for m in turns])
    added_at = {int(n): t for n, t in state.get("added_at", {}).items()}
    # Commit: every value is computed, nothing below can fail.
    memory.turns, memory.turn_tokens, memory.added = turns, sum(m.tokens for m in turns), added
    for name, value in fields.items():
        setattr(memory, name, value)
    if hasattr(memory, "folded"):        # a summary memory folds every non-verbatim message
        kept = {m.number for m in turns}
        memory.folded = tuple(n for n in range(1, added + 1) if n not in kept)
    if "added_at" in state:
        memory.added_at = added_at
    memory.link = SessionLink(memory, store, session_id)
    return memory
