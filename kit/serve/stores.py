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

:class:`~kit.serve.sqlite_store.SQLiteSessionStore` (in :mod:`kit.serve.sqlite_store`):
one file on one machine, nothing to set up (the tables
are version 4 of :mod:`kit.store`'s schema; lease expiry reads the store's clock, one
machine's). :class:`~kit.serve.redis_store.RedisSessionStore` (in
:mod:`kit.serve.redis_store`): several workers on several machines; lease
expiry is Redis's own (``PX``), so the workers' clocks do not matter. Both are
thread-safe. :func:`kit.serve.backends.open_store` makes one from ``"sqlite:PATH"`` or
``"redis://..."``.

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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from kit.longterm.forget import topic_pattern
from kit.messages import Message
from kit.store import StoreError, check_session
from kit.validation import check_seconds

__all__ = ["Lease", "LeaseLost", "StoreBusy", "Snapshot", "TurnRecord", "KeyRecord",
           "SessionStore", "worker_name", "digest", "EVENTS_KEPT",
           "KEYS_KEPT", "KEY_TTL", "QUEUE_TTL", "NOT_QUEUED", "LONGEST", "check_span"]

EVENTS_KEPT = 500          # trace events a session keeps (the oldest go first)
KEYS_KEPT = 100            # idempotency keys a session keeps (the oldest go first)
KEY_TTL = 86_400.0         # seconds an idempotency key is kept after its turn (a day)
QUEUE_TTL = 5.0            # seconds a waiting turn's ticket lives unless it asks again
NOT_QUEUED = 0             # acquire's ticket for a first try: only if nobody is queued
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
    sent with it (:func:`digest`; ``"[forgotten]"`` after a forget: a retry with the key
    then replays the outcome whatever its text), the fencing ``token`` of the turn that claimed it,
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
        :data:`QUEUE_TTL` seconds more; the ticket goes once the lease is taken.
        ``ticket=NOT_QUEUED`` (0): a first try, before queueing: only if no turn is
        queued. Without a ticket the queue is not looked at."""
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

    def forget(self, session_id: str, lease: Lease | None, words: Sequence[str] | None = None
               ) -> tuple[int, ...]:
        """Forget the session's messages naming one of ``words`` (whole words, any case),
        or everything of the session when ``words`` is None; return the message
        numbers whose text went (:mod:`kit.longterm.forget`). Texts become
        ``"[forgotten]"`` (numbers kept), the saved state and trace events go (the
        memory is rebuilt from the remaining raw turns at the next load; the records of
        earlier forgets stay), the idempotency keys stay with their saved answers
        ``"[forgotten]"`` (a retry is not run again), a record is written (nothing at all
        when nothing was taken); the lease row stays (a token is never handed out
        twice). Fenced like :meth:`commit` (:class:`LeaseLost`: nothing written). The
        bytes go too, before it returns: SQLite ``secure_delete``, ``VACUUM`` and a
        truncated log; Redis an append-only-file rewrite (and a new snapshot when it
        keeps one), waited for."""
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
    if isinstance(ticket, bool) or not isinstance(ticket, int) or not 0 <= ticket < 2 ** 63:
        raise TypeError(f"ticket must be an int >= 0 (from enqueue, or NOT_QUEUED), got "
                        f"{ticket!r:.60}")
    return ticket


def _check_acquire(session_id: object, ttl: object, ticket: object) -> float:
    """The arguments of ``acquire``, checked once for every backend; returns ``ttl`` as
    seconds (see :func:`check_span`)."""
    check_session(session_id)
    ttl = check_span("ttl", ttl)
    if ticket is not None:
        _check_ticket(ticket)
    return ttl


def _check_forget(session_id: object, lease: object, words: object) -> None:
    """The arguments of ``forget``, checked once for every backend, before anything is
    read or written: the session id, a lease of that session (or None), the topic words
    (see :func:`kit.longterm.forget.topic_pattern`) or None for everything."""
    check_session(session_id)
    if lease is not None and (not isinstance(lease, Lease) or lease.session_id != session_id):
        raise ValueError(f"the lease {lease!r:.80} is not a lease of session {session_id!r}")
    if words is not None:
        topic_pattern(words)


def _check_lease(lease: object) -> Lease:
    if not isinstance(lease, Lease):
        raise TypeError(f"lease must be a Lease (from acquire), got {lease!r:.60}")
    check_span("the lease's ttl", lease.ttl)      # a renewal extends by it
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
