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

What a store promises:

- **A write that returns is on disk.** Each :meth:`~TranscriptStore.append` and
  :meth:`~TranscriptStore.save_state` is one committed transaction (SQLite's default
  ``synchronous=FULL``): it survives a SIGKILL of the process. A write that cannot be
  made raises :class:`StoreError`, after waiting at most ``timeout`` seconds (default
  5) for a lock another connection holds; nothing is written then.
- **A damaged file is never a new store.** A path that does not exist becomes a new
  store (built under a temporary name beside it and linked into place, so no other
  process sees it half-made). An existing file is opened only if it is a whole
  transcript store: a file of 0 bytes, a truncated one, one whose pages fail SQLite's
  ``quick_check`` (it reads the whole file once at open: about 40 ms for 30 MB), or
  one without the store's tables is refused with a :class:`StoreError` naming the
  path. Damage met later (a
  file changed while open, a row that cannot be a message) is a :class:`StoreError`
  naming the path and the session; every ``sqlite3.DatabaseError`` of a store
  operation is wrapped so. (SQLite keeps no checksums: bytes changed inside a text
  that leave the structure whole are not detected.)
- **Every file carries its schema version** (``store_meta.schema_version``, now 5:
  version 2 added the ``speaker`` and ``when_text`` columns, version 3 the ``leases``,
  ``turns`` and ``events`` tables the chat service keeps, version 4 its ``idempotency``
  table (a retried turn's key and first outcome) and ``waiters`` (turns waiting for a
  session, in arrival order), see :mod:`kit.serve.stores`; version 5 the fact memory's
  ``facts``, see :mod:`kit.longterm.facts`).
  An older file is migrated when it is opened, one version at a time (version 1: the
  two columns are added, empty for the old rows; versions 2, 3 and 4: the new tables
  are made, empty), each step in one transaction that first takes the write lock and reads
  the version again, so two processes opening it at once migrate it once; any other
  version, a missing one, or a file whose tables lack the columns of its version is
  refused, unchanged.
"""
from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from kit.messages import TURN_ROLES, Message, check_text
from kit.validation import check_seconds

__all__ = ["TranscriptStore", "StoreError", "SCHEMA_VERSION", "DEFAULT_TIMEOUT",
           "check_session", "parse_state"]

SCHEMA_VERSION = 5
DEFAULT_TIMEOUT = 5.0      # seconds a store operation waits for another connection's lock
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS messages (session_id TEXT NOT NULL, number INTEGER NOT NULL,"
    " role TEXT NOT NULL, content TEXT NOT NULL, tokens INTEGER NOT NULL,"
    " created_at REAL NOT NULL, speaker TEXT NOT NULL DEFAULT '',"
    " when_text TEXT NOT NULL DEFAULT '', PRIMARY KEY (session_id, number))",
    "CREATE TABLE IF NOT EXISTS session_state (session_id TEXT PRIMARY KEY,"
    " state TEXT NOT NULL, updated_at REAL NOT NULL)",
)
# Version 3: what the chat service keeps beside the transcript (kit.serve.stores).
_SERVICE_TABLES = (
    # one row per session: the last fencing token handed out and when its lease ends
    "CREATE TABLE IF NOT EXISTS leases (session_id TEXT PRIMARY KEY,"
    " token INTEGER NOT NULL, expires_at REAL NOT NULL)",
    # one row per committed turn: its messages, the token that wrote it, what it read
    "CREATE TABLE IF NOT EXISTS turns (session_id TEXT NOT NULL, turn INTEGER NOT NULL,"
    " first_number INTEGER NOT NULL, last_number INTEGER NOT NULL, token INTEGER,"
    " based_on INTEGER NOT NULL, worker TEXT NOT NULL, committed_at REAL NOT NULL,"
    " PRIMARY KEY (session_id, turn))",
    # trace events as JSON, oldest first
    "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    " session_id TEXT NOT NULL, event TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS events_by_session ON events (session_id, seq)",
)
# Version 4: the service's idempotency keys, one row per (session, key): the text's
# digest, the token of the turn that claimed it, and once committed the turn and its
# outcome (JSON); outcome NULL while that turn runs. And the turns waiting for a
# session's lease, by ticket (arrival order), each alive until expires_at.
_IDEMPOTENCY_TABLES = (
    "CREATE TABLE IF NOT EXISTS idempotency (session_id TEXT NOT NULL, key TEXT NOT NULL,"
    " digest TEXT NOT NULL, token INTEGER, turn INTEGER, outcome TEXT,"
    " created_at REAL NOT NULL, PRIMARY KEY (session_id, key))",
    "CREATE TABLE IF NOT EXISTS waiters (session_id TEXT NOT NULL, ticket INTEGER NOT NULL,"
    " expires_at REAL NOT NULL, PRIMARY KEY (session_id, ticket))",
)
# Version 5: the fact memory's facts (kit.longterm.facts): one row per fact ever
# written, never deleted; an update or retraction closes the old row's interval.
_FACT_TABLES = (
    "CREATE TABLE IF NOT EXISTS facts (session_id TEXT NOT NULL, id INTEGER NOT NULL,"
    " subject TEXT NOT NULL, attribute TEXT NOT NULL, value TEXT NOT NULL,"
    " valid_from TEXT NOT NULL, valid_to TEXT, source TEXT NOT NULL,"
    " closed_by TEXT NOT NULL DEFAULT '[]', status TEXT NOT NULL,"
    " superseded_by INTEGER, PRIMARY KEY (session_id, id))",
)
_SCHEMA += _SERVICE_TABLES + _IDEMPOTENCY_TABLES + _FACT_TABLES
_MIGRATIONS = {   # from version -> the statements that take a file to the next version
    "1": ("ALTER TABLE messages ADD COLUMN speaker TEXT NOT NULL DEFAULT ''",
          "ALTER TABLE messages ADD COLUMN when_text TEXT NOT NULL DEFAULT ''"),
    "2": _SERVICE_TABLES,
    "3": _IDEMPOTENCY_TABLES,
    "4": _FACT_TABLES,
}
_TABLES = {"messages", "session_state", "leases", "turns", "events", "idempotency",
           "waiters", "facts"}                                        # of version 5
_COLUMNS = "role, content, tokens, number, speaker, when_text"   # Message's field order
_MESSAGE_COLUMNS = {"session_id", "number", "role", "content", "tokens", "created_at",
                    "speaker", "when_text"}                          # since version 2
_MEMORY = ("", ":memory:")                                           # SQLite's private stores
_INTEGER = 2 ** 63                    # SQLite's INTEGER holds -2**63 .. 2**63 - 1


class StoreError(ValueError):
    """The file is not a usable transcript store (damaged, truncated, empty, another
    program's SQLite database, an unknown schema version, or unopenable), a store
    operation failed (a lock held past the timeout, damage met while open), or stored
    data cannot rebuild a memory. The message names the path, and the session where
    one is involved; the sqlite3 error, if any, is ``__cause__``."""


def check_session(session_id: object) -> str:
    """Return ``session_id`` if it is a non-empty str of valid Unicode (no lone
    surrogate: SQLite stores UTF-8); else raise TypeError/ValueError naming it."""
    if not isinstance(session_id, str):
        raise TypeError(f"session_id must be a str, got {type(session_id).__name__}: "
                        f"{session_id!r:.60}")
    if not session_id.strip():
        raise ValueError(f"session_id must be a non-empty str, got {session_id!r}")
    return check_text("session_id", session_id)


def _check_number(name: str, value: object, kind: str = "an int") -> int:
    """Return ``value`` if it is an int SQLite's INTEGER holds; else raise TypeError or
    ValueError naming ``name`` and the value."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be {kind}, got {value!r:.60}")
    if not -_INTEGER <= value < _INTEGER:
        raise ValueError(f"{name} must be within -2**63 .. 2**63 - 1 (SQLite's INTEGER), "
                         f"got {value}")
    return value


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
    if number >= _INTEGER:
        raise ValueError(f"message number must be < 2**63 (SQLite's INTEGER), got {number}")
    for name in ("content", "speaker", "when"):
        value = getattr(message, name)
        if not isinstance(value, str):
            raise TypeError(f"message {number}: {name} must be a str, got {value!r:.60}")
        check_text(f"message {number}: {name}", value)
    tokens = message.tokens
    if isinstance(tokens, bool) or not isinstance(tokens, int):
        raise TypeError(f"message {number}: tokens must be an int >= 0, got {tokens!r:.60}")
    if tokens < 0:
        raise ValueError(f"message {number}: tokens must be an int >= 0, got {tokens}")


def _reason(exc: Exception, timeout: float) -> str:
    """The error as text; a lock held too long also says how long was waited."""
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        text += f" (another connection held the file for more than timeout={timeout:g} s)"
    return text


def _create_schema(conn: sqlite3.Connection) -> None:
    """The tables and the version row of a new store, in one transaction; nothing if
    the file already has tables (another process made it first)."""
    with conn:
        conn.execute("BEGIN IMMEDIATE")
        if conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]:
            return
        for statement in _SCHEMA:
            conn.execute(statement)
        conn.execute("INSERT INTO store_meta VALUES ('schema_version', ?)",
                     (str(SCHEMA_VERSION),))


def _build(path: str, timeout: float) -> None:
    conn = sqlite3.connect(path, timeout=timeout)
    try:
        _create_schema(conn)
    finally:
        conn.close()


def _create_file(path: str, timeout: float) -> None:
    """Make a new store at ``path`` all at once: build it under a temporary name in the
    same folder, then hard-link it into place, so no process ever sees it empty (if
    another made one first, theirs stays). Where the file system has no hard links,
    it is made in place. Raises OSError or sqlite3.Error."""
    fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".new",
                                dir=os.path.dirname(os.path.abspath(path)))
    os.close(fd)
    try:
        _build(temp, timeout)
        try:
            os.link(temp, path)
        except FileExistsError:              # another process made it first
            pass
        except OSError:                      # no hard links on this file system
            _build(path, timeout)
    finally:
        os.unlink(temp)


def parse_state(text: object, where: str) -> dict:
    """A saved state's JSON text as a dict. Raises :class:`StoreError` starting with
    ``where`` (the session and the store) if it is not a JSON object (a damaged file,
    another program's row) or nests too deep to read."""
    try:
        state = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{where}: the saved state is not JSON ({exc})") from exc
    except RecursionError:
        raise StoreError(f"{where}: the saved state is not a state (nested too deep to "
                         f"read)") from None
    if not isinstance(state, dict):
        raise StoreError(f"{where}: the saved state is not a JSON object, got {text!r:.60}")
    return state


class TranscriptStore:
    """Messages and memory state of many sessions in one SQLite file.

    ``path``: a file path or ``":memory:"``; a path that does not exist becomes a new
    store, an existing file must be a whole transcript store. ``clock``: returns the time
    in seconds stored as each message's ``created_at`` (default :func:`time.time`;
    inject one in tests). ``timeout``: seconds (> 0, default 5) that an operation waits
    for a lock another connection holds before it fails.

    Raises :class:`StoreError` naming the path if the file is empty (0 bytes),
    truncated or damaged, belongs to another program, has an unknown schema version,
    stays locked past ``timeout`` or cannot be opened (see the module docstring); a
    file of version 1 to 4 is migrated. Raises TypeError/ValueError naming a bad ``clock`` or
    ``timeout``. Every operation raises :class:`StoreError` naming the path and the
    session if SQLite fails (the sqlite3 error is ``__cause__``); a failed write writes
    nothing. Thread-safe; a context manager that closes on exit.
    """

    def __init__(self, path: str | os.PathLike = ":memory:",
                 clock: Callable[[], float] = time.time, *,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        if not callable(clock):
            raise TypeError(f"clock must be callable () -> float, got {clock!r}")
        if timeout is None:
            raise TypeError("timeout must be a number of seconds > 0, got None")
        self.timeout = check_seconds("timeout", timeout)
        self.path, self.clock = os.fspath(path), clock
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        try:
            self._conn = self._connect()
        except StoreError:
            raise
        except (OSError, sqlite3.Error, ValueError) as exc:   # ValueError: a NUL, a surrogate
            raise StoreError(f"cannot open the transcript store {self.path!r}: "
                             f"{_reason(exc, self.timeout)}") from exc
        try:
            self._open_schema()
        except BaseException:
            self._conn.close()
            self._conn = None
            raise

    def _connect(self) -> sqlite3.Connection:
        """The connection; a path that does not exist becomes a new store first. Raises
        StoreError for an existing empty file (never made a new store)."""
        path = self.path
        if isinstance(path, str) and "\0" in path:
            raise StoreError(f"cannot open the transcript store {path!r}: a path cannot "
                             f"hold a NUL character")
        if path not in _MEMORY:
            if not os.path.exists(path):
                _create_file(path, self.timeout)
            elif os.path.isfile(path) and os.path.getsize(path) == 0:
                raise StoreError(f"{path!r} is empty (0 bytes): a truncated transcript store "
                                 f"or not one, and an existing file is never made a new "
                                 f"store (give a path that does not exist to start one)")
        conn = sqlite3.connect(path, timeout=self.timeout, check_same_thread=False)
        if path in _MEMORY:
            _create_schema(conn)
        return conn

    def _open_schema(self) -> None:
        """Check that the file is a whole store of a known version, migrating an older
        one; raise StoreError naming the path if not."""
        conn = self._conn
        try:
            problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise StoreError(f"{self.path!r} is damaged: SQLite's quick_check reports "
                                 f"{'; '.join(map(str, problems))[:300]}")
            tables = self._tables()
            if not tables:
                raise StoreError(f"{self.path!r} is a SQLite file without tables, not a "
                                 f"transcript store, and an existing file is never made a "
                                 f"new store (give a path that does not exist to start one)")
            if "store_meta" not in tables:
                raise StoreError(f"{self.path!r} is a SQLite database but not a transcript "
                                 f"store (its tables: {', '.join(sorted(tables))})")
            version = self._version()
            while version in _MIGRATIONS:
                if version != "1":               # the columns of version 2 come first
                    self._check_columns(version)
                version = self._migrate(version)
            lacking = _TABLES - self._tables()
        except sqlite3.DatabaseError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreError(f"cannot open the transcript store {self.path!r}: "
                                 f"{_reason(exc, self.timeout)}") from exc
            raise StoreError(f"{self.path!r} is not a readable transcript store (damaged, "
                             f"truncated or another kind of file): {exc}") from exc
        if version is None:
            raise StoreError(f"{self.path!r} has a store_meta table but no schema version; "
                             f"this kit reads version {SCHEMA_VERSION}")
        if version != str(SCHEMA_VERSION):
            raise StoreError(f"{self.path!r} has transcript-store schema version {version!r}; "
                             f"this kit reads version {SCHEMA_VERSION} and migrates "
                             f"{', '.join(_MIGRATIONS)} (the file is left unchanged)")
        if lacking:
            raise StoreError(f"{self.path!r} has a store_meta table but lacks the table(s) "
                             f"{', '.join(sorted(lacking))}: not a whole transcript store")
        self._check_columns(version)

    def _check_columns(self, version: str) -> None:
        """Raise StoreError if the messages table lacks a column of ``version`` (>= 2)."""
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(messages)")}
        if _MESSAGE_COLUMNS - columns:
            raise StoreError(f"{self.path!r} says schema version {version} but its "
                             f"messages table lacks the column(s) "
                             f"{', '.join(sorted(_MESSAGE_COLUMNS - columns))}")

    def _tables(self) -> set[str]:
        return {name for (name,) in self._conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _version(self) -> str | None:
        row = self._conn.execute("SELECT value FROM store_meta WHERE key = 'schema_version'"
                                 ).fetchone()
        return None if row is None else row[0]

    def _migrate(self, version: str) -> str | None:
        """Take the file from ``version`` to the next one in one transaction; return the
        version it has now. The write lock comes first, then the version is read again:
        another process may have migrated the file meanwhile. Raises StoreError naming
        the path if it cannot be written."""
        conn, target = self._conn, str(int(version) + 1)
        try:
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                now = self._version()
                if now != version:
                    return now
                for statement in _MIGRATIONS[version]:
                    conn.execute(statement)
                conn.execute("UPDATE store_meta SET value = ? WHERE key = 'schema_version'",
                             (target,))
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{self.path!r} has transcript-store schema version {version!r} "
                             f"and could not be migrated to {target}: "
                             f"{_reason(exc, self.timeout)}") from exc
        return target

    # -- plumbing ---------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise ValueError(f"the transcript store {self.path!r} is closed")
        return self._conn

    @contextmanager
    def _using(self, session_id: str | None, doing: str) -> Iterator[sqlite3.Connection]:
        """The open connection, under the lock; a sqlite3.DatabaseError in the block
        becomes a StoreError naming the path, the session and what was being done."""
        with self._lock:
            db = self._db()
            try:
                yield db
            except sqlite3.DatabaseError as exc:
                where = (f"the transcript store {self.path!r}" if session_id is None
                         else f"session {session_id!r} in {self.path!r}")
                raise StoreError(f"{where}: {doing} failed: "
                                 f"{_reason(exc, self.timeout)}") from exc

    def _messages(self, session_id: str, rows: Iterable[tuple]) -> list[Message]:
        """Stored rows as messages; a row that cannot be a turn is a StoreError."""
        found = []
        for row in rows:
            message = Message(*row)
            try:
                _check_message(message)
            except (TypeError, ValueError) as exc:
                raise StoreError(f"session {session_id!r} in {self.path!r}: stored message "
                                 f"{message.number!r:.30} is damaged: {exc}") from exc
            found.append(message)
        return found

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
        ``created_at``; on disk (committed) when this returns.

        Raises ValueError naming the session and number if that number is already
        stored for the session, :class:`StoreError` naming the session and path if
        SQLite cannot write it (a lock held past ``timeout``, a damaged file): nothing
        is written then. TypeError/ValueError for a bad session id or a message that is
        not a numbered (>= 1) user/assistant :class:`~kit.messages.Message`.
        """
        check_session(session_id)
        _check_message(message)
        with self._using(session_id, f"writing message {message.number}") as db:
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
                                 f"{message.number}; nothing was written (if another memory "
                                 f"or process writes this session, restore it to go on)"
                                 ) from exc

    def turns(self, session_id: str, first: int = 1, last: int | None = None) -> list[Message]:
        """Stored messages ``first..last`` (by number, inclusive; ``last=None``: to the
        end), oldest first, with the token counts measured when they were added and
        their speaker and date. Raises StoreError naming the session and the message
        for a stored row that cannot be a turn; TypeError/ValueError for a ``first`` or
        ``last`` that is not an int of SQLite's INTEGER (-2**63 .. 2**63 - 1)."""
        check_session(session_id)
        for name, value in (("first", first), ("last", last)):
            if value is not None:
                _check_number(name, value)
        if first < 1:
            raise ValueError(f"first must be >= 1, got {first}")
        sql = f"SELECT {_COLUMNS} FROM messages WHERE session_id = ? AND number >= ?"
        params: tuple = (session_id, first)
        if last is not None:
            sql, params = sql + " AND number <= ?", params + (last,)
        with self._using(session_id, "reading turns") as db:
            rows = db.execute(sql + " ORDER BY number", params).fetchall()
        return self._messages(session_id, rows)

    def pick(self, session_id: str, numbers: Iterable[int]) -> list[Message]:
        """The stored messages with these numbers, oldest first (numbers not stored are
        left out; repeats come once). Raises TypeError for a number that is not an int,
        ValueError for one past SQLite's INTEGER (-2**63 .. 2**63 - 1)."""
        check_session(session_id)
        wanted = list(set(numbers))
        for n in wanted:
            _check_number("message numbers", n, "ints")
        wanted.sort()
        rows: list[tuple] = []
        with self._using(session_id, "reading messages") as db:
            for i in range(0, len(wanted), 500):          # SQLite's limit on parameters
                chunk = wanted[i:i + 500]
                marks = ", ".join("?" * len(chunk))
                rows += db.execute(f"SELECT {_COLUMNS} FROM messages WHERE session_id = ? "
                                   f"AND number IN ({marks}) ORDER BY number",
                                   (session_id, *chunk)).fetchall()
        return self._messages(session_id, rows)

    def count(self, session_id: str) -> int:
        """Number of messages stored for the session (0 for an unknown one)."""
        check_session(session_id)
        with self._using(session_id, "counting messages") as db:
            return db.execute("SELECT COUNT(*) FROM messages WHERE session_id = ?",
                              (session_id,)).fetchone()[0]

    def last(self, session_id: str) -> int:
        """The largest message number stored for the session (0 for an unknown one)."""
        check_session(session_id)
        with self._using(session_id, "reading the last message number") as db:
            return db.execute("SELECT COALESCE(MAX(number), 0) FROM messages WHERE "
                              "session_id = ?", (session_id,)).fetchone()[0]

    def created_at(self, session_id: str, number: int) -> float:
        """When message ``number`` was stored (seconds, from the store's clock).
        Raises KeyError naming the session and number if it is not stored,
        TypeError/ValueError for a number that is not an int of SQLite's INTEGER."""
        check_session(session_id)
        _check_number("number", number)
        with self._using(session_id, f"reading message {number!r:.30}") as db:
            row = db.execute("SELECT created_at FROM messages WHERE session_id = ? "
                             "AND number = ?", (session_id, number)).fetchone()
        if row is None:
            raise KeyError(f"session {session_id!r} has no message {number!r}")
        return row[0]

    def sessions(self) -> list[str]:
        """Ids of every session with stored messages or state, sorted."""
        with self._using(None, "listing sessions") as db:
            rows = db.execute("SELECT session_id FROM messages UNION "
                              "SELECT session_id FROM session_state ORDER BY 1").fetchall()
        return [row[0] for row in rows]

    def delete(self, session_id: str) -> int:
        """Forget a session's messages, state, turns, events, idempotency keys and facts
        (one transaction); return
        how many messages went. Its lease row stays, so a fencing token is never handed
        out twice."""
        check_session(session_id)
        with self._using(session_id, "deleting the session") as db:
            with db:
                gone = db.execute("DELETE FROM messages WHERE session_id = ?",
                                  (session_id,)).rowcount
                for table in ("session_state", "turns", "events", "idempotency", "waiters",
                              "facts"):
                    db.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))
            return gone

    # -- state ------------------------------------------------------------------
    def save_state(self, session_id: str, state: dict) -> None:
        """Replace the session's saved state with ``state`` (a dict stored as JSON); on
        disk when this returns.

        Raises TypeError/ValueError (nothing written) if it is not a dict or not JSON,
        :class:`StoreError` naming the session and path if SQLite cannot write it.
        """
        check_session(session_id)
        if not isinstance(state, dict):
            raise TypeError(f"state must be a dict, got {type(state).__name__}")
        try:
            text = json.dumps(state, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"the state of session {session_id!r} is not JSON: {exc}") from exc
        with self._using(session_id, "saving the state") as db:
            with db:
                db.execute("INSERT OR REPLACE INTO session_state VALUES (?, ?, ?)",
                           (session_id, text, float(self.clock())))

    def load_state(self, session_id: str) -> dict | None:
        """The session's saved state, or None if none was saved. Raises
        :class:`StoreError` naming the session and path if the saved text is not a JSON
        object (a damaged file, or another program's row) or nests too deep to read."""
        check_session(session_id)
        with self._using(session_id, "reading the state") as db:
            row = db.execute("SELECT state FROM session_state WHERE session_id = ?",
                             (session_id,)).fetchone()
        if row is None:
            return None
        return parse_state(row[0], f"session {session_id!r} in {self.path!r}")
