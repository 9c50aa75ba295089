"""The raw transcript in SQLite, so a restart forgets nothing.

A memory's summary is lossy; the transcript is the source of truth. Every message a
memory adds is written here *before* any compaction runs, with who said it and when
(``speaker``, ``when``) if the message says so, and the memory's state is saved after
every add; :func:`kit.persistence.restore` rebuilds a freshly constructed memory from
the two, and a summary can always be redone from the stored turns. This module is the
store alone; the wiring between a memory and the store (``attach_store``, ``restore``,
``memory_state``, ``SessionLink``) is :mod:`kit.persistence`, one layer up:

    from kit.persistence import attach_store, restore

    with TranscriptStore("chat.db") as store:
        memory = SummaryMemory(summariser, budget=200)
        attach_store(memory, store, "alice")
        memory.add("user", "my order is 88412")
    # ... a new process:
    with TranscriptStore("chat.db") as store:
        memory = restore(SummaryMemory(summariser, budget=200), store, "alice")

One file, the standard library's :mod:`sqlite3`, parameterised queries only, the
default rollback journal (no ``-wal`` side files). One connection with
``check_same_thread=False`` and a lock, so a background compaction thread can write.

Schema version 2 added the ``speaker`` and ``when_text`` columns. A version-1 file is
migrated when it is opened (the two columns are added, empty for the old rows, in one
transaction); a newer version is refused.
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable

from kit.messages import TURN_ROLES, Message

__all__ = ["TranscriptStore", "StoreError", "SCHEMA_VERSION", "check_session"]

SCHEMA_VERSION = 2
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS messages (session_id TEXT NOT NULL, number INTEGER NOT NULL,"
    " role TEXT NOT NULL, content TEXT NOT NULL, tokens INTEGER NOT NULL,"
    " created_at REAL NOT NULL, speaker TEXT NOT NULL DEFAULT '',"
    " when_text TEXT NOT NULL DEFAULT '', PRIMARY KEY (session_id, number))",
    "CREATE TABLE IF NOT EXISTS session_state (session_id TEXT PRIMARY KEY,"
    " state TEXT NOT NULL, updated_at REAL NOT NULL)",
)
_MIGRATIONS = {   # from version -> the statements that take a file to the next version
    "1": ("ALTER TABLE messages ADD COLUMN speaker TEXT NOT NULL DEFAULT ''",
          "ALTER TABLE messages ADD COLUMN when_text TEXT NOT NULL DEFAULT ''"),
}
_COLUMNS = "role, content, tokens, number, speaker, when_text"   # Message's field order
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


def _check_message(message: object) -> None:
    """Raise TypeError/ValueError naming the first field of ``message`` the store cannot
    keep: it must be a :class:`Message` with a user/assistant role, a number from 1 to
    2**63 - 1 (SQLite's INTEGER), str texts and an int size >= 0."""
    if not isinstance(message, Message):
        raise TypeError(f"message must be a kit.messages.Message, got {message!r:.60}")
    number = message.number
    if isinstance(number, bool) or not isinstance(number, int):
        raise TypeError(f"message number must be an int, got {number!r:.60}")
    if message.role not in TURN_ROLES or number < 1:
        raise ValueError(f"only numbered user/assistant turns are stored, got "
                         f"{message.role} message number {number}")
    if number >= 2 ** 63:
        raise ValueError(f"message number must be < 2**63 (SQLite's INTEGER), got {number}")
    for name in ("content", "speaker", "when"):
        value = getattr(message, name)
        if not isinstance(value, str):
            raise TypeError(f"message {number}: {name} must be a str, got {value!r:.60}")
    tokens = message.tokens
    if isinstance(tokens, bool) or not isinstance(tokens, int):
        raise TypeError(f"message {number}: tokens must be an int >= 0, got {tokens!r:.60}")
    if tokens < 0:
        raise ValueError(f"message {number}: tokens must be an int >= 0, got {tokens}")


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
            while row is not None and row[0] in _MIGRATIONS:
                row = self._migrate(row[0])
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path!r} is not a readable transcript store: {exc}") from exc
        if row is None or row[0] != str(SCHEMA_VERSION):
            raise StoreError(f"{self.path!r} has transcript-store schema version "
                             f"{row and row[0]!r}; this kit reads version {SCHEMA_VERSION}")
        lacking = {"messages", "session_state"} - {name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if lacking:
            raise StoreError(f"{self.path!r} has a store_meta table but lacks the table(s) "
                             f"{', '.join(sorted(lacking))}: not a whole transcript store")

    def _migrate(self, version: str) -> tuple[str]:
        """Take the file from ``version`` to the next one in one transaction; return
        the new version row. Raises StoreError naming the path if it cannot be written."""
        conn, target = self._conn, str(int(version) + 1)
        try:
            with conn:
                conn.execute("BEGIN")
                for statement in _MIGRATIONS[version]:
                    conn.execute(statement)
                conn.execute("UPDATE store_meta SET value = ? WHERE key = 'schema_version'",
                             (target,))
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{self.path!r} has transcript-store schema version {version!r} "
                             f"and could not be migrated to {target}: {exc}") from exc
        return (target,)

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
        """Store one turn: its number, role, content, tokens, speaker, when and
        ``created_at``.

        Raises ValueError naming the session and number if that number is already
        stored for the session (nothing is written), TypeError/ValueError for a bad
        session id or a message that is not a numbered (>= 1) user/assistant
        :class:`~kit.messages.Message`.
        """
        check_session(session_id)
        _check_message(message)
        with self._lock:
            db = self._db()
            try:
                with db:
                    db.execute("INSERT INTO messages (session_id, number, role, content, "
                               "tokens, created_at, speaker, when_text) VALUES "
                               "(?, ?, ?, ?, ?, ?, ?, ?)",
                               (session_id, message.number, message.role, message.content,
                                message.tokens, float(self.clock()), message.speaker,
                                message.when))
            except sqlite3.IntegrityError as exc:   # the fields are checked: a duplicate
                raise ValueError(f"session {session_id!r} already has message "
                                 f"{message.number}; nothing was written") from exc

    def turns(self, session_id: str, first: int = 1, last: int | None = None) -> list[Message]:
        """Stored messages ``first..last`` (by number, inclusive; ``last=None``: to the
        end), oldest first, with the token counts measured when they were added and
        their speaker and date."""
        check_session(session_id)
        for name, value in (("first", first), ("last", last)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"{name} must be an int, got {value!r}")
        if first < 1:
            raise ValueError(f"first must be >= 1, got {first}")
        sql = f"SELECT {_COLUMNS} FROM messages WHERE session_id = ? AND number >= ?"
        params: tuple = (session_id, first)
        if last is not None:
            sql, params = sql + " AND number <= ?", params + (last,)
        with self._lock:
            rows = self._db().execute(sql + " ORDER BY number", params).fetchall()
        return [Message(*row) for row in rows]

    def pick(self, session_id: str, numbers: Iterable[int]) -> list[Message]:
        """The stored messages with these numbers, oldest first (numbers not stored are
        left out; repeats come once). Raises TypeError for a number that is not an int."""
        check_session(session_id)
        wanted = sorted(set(numbers))
        for n in wanted:
            if isinstance(n, bool) or not isinstance(n, int):
                raise TypeError(f"message numbers must be ints, got {n!r}")
        found: list[Message] = []
        with self._lock:
            db = self._db()
            for i in range(0, len(wanted), 500):          # SQLite's limit on parameters
                chunk = wanted[i:i + 500]
                marks = ", ".join("?" * len(chunk))
                rows = db.execute(f"SELECT {_COLUMNS} FROM messages WHERE session_id = ? AND "
                                  f"number IN ({marks}) ORDER BY number", (session_id, *chunk))
                found += [Message(*row) for row in rows]
        return found

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
        """The session's saved state, or None if none was saved. Raises
        :class:`StoreError` naming the session and path if the saved text is not a JSON
        object (a damaged file, or another program's row)."""
        check_session(session_id)
        with self._lock:
            row = self._db().execute("SELECT state FROM session_state WHERE session_id = ?",
                                     (session_id,)).fetchone()
        if row is None:
            return None
        try:
            state = json.loads(row[0])
        except (TypeError, ValueError) as exc:
            raise StoreError(f"session {session_id!r} in {self.path!r}: the saved state is "
                             f"not JSON ({exc})") from exc
        if not isinstance(state, dict):
            raise StoreError(f"session {session_id!r} in {self.path!r}: the saved state is "
                             f"not a JSON object, got {row[0]!r:.60}")
        return state


