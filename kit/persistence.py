"""A memory wired to a transcript store: write ahead, save the state, restore after a restart.

Sources: the context-handling post ("if the server restarts, the assistant forgets
everything") and the summary-memory lesson ("keep the raw transcript in your database").
:func:`attach_store` connects a fresh memory to a session of a
:class:`kit.store.TranscriptStore`: every message is written *before* any compaction runs,
and the memory's state (:func:`memory_state`: its running summary, which turns are
verbatim, how many messages it has numbered) is saved after every add. :func:`restore`
rebuilds a freshly constructed memory from the two.

    with TranscriptStore("chat.db") as store:
        memory = SummaryMemory(summariser, budget=200)
        attach_store(memory, store, "alice")
        memory.add("user", "my order is 88412")
    # ... a new process:
    with TranscriptStore("chat.db") as store:
        memory = restore(SummaryMemory(summariser, budget=200), store, "alice")

A memory with more to rebuild than turns and a summary (the search index of
:class:`kit.memory.recall.RecallMemory`) has a ``restoring(store, session_id)`` method:
:func:`restore` calls it before committing anything (it may fail, changing nothing) and
calls the function it returns after the commit.

What is durable when ``add`` returns: the message, always (it is committed to the file
before compaction runs, and a SIGKILL right after ``add`` returns cannot lose it). If
it cannot be written, ``add`` raises :class:`~kit.store.StoreError` naming the path and
the session, and the memory is as it was before the call. The state (the summary) is
saved after the add; if that save fails, ``add`` still returns, the next add saves the
whole state, and a restore in between brings the newer messages back verbatim.
"""
from __future__ import annotations

import json
import threading

from kit.memory.base import Memory
from kit.messages import Message, number_runs
from kit.store import StoreError, TranscriptStore, check_session
from kit.structured import StructuredSummary
from kit.tokens import measure_name

__all__ = ["SessionLink", "attach_store", "restore", "memory_state", "SUMMARY_FIELDS"]

SUMMARY_FIELDS = ("summary", "summary_tokens", "compactions", "structured")


def _numbers(runs: list[list[int]]) -> list[int]:
    return [n for first, last in runs for n in range(first, last + 1)]


def _missing(runs: list[list[int]], have: set[int], limit: int = 10) -> list:
    """The numbers in ``runs`` (ascending, separate) that are not in ``have``: the first
    ``limit``, then "..." if there are more. Looks at most len(have) + limit numbers, so
    a damaged run such as [1, 10**12] costs nothing."""
    found: list = []
    for first, last in runs:
        n = first
        while n <= last:
            if n not in have:
                if len(found) == limit:
                    return found + ["..."]
                found.append(n)
            n += 1
    return found


def memory_state(memory) -> dict:
    """What a memory holds beyond the transcript, as a JSON-ready dict.

    ``memory`` (its ``name``), ``unit``, ``measure`` (its name, see
    :func:`kit.tokens.measure_name`: two measures of one unit count differently),
    ``added`` (messages numbered so far) and
    ``turns`` (the verbatim turns' numbers as inclusive runs, ``[[5, 12]]``); for a
    summary memory also ``summary``, ``summary_tokens``, ``compactions``, ``structured``
    (if the memory has it) and, when ``max_age`` is set, ``added_at`` (the memory's
    clock reading per verbatim turn; use a wall clock such as :func:`time.time` if
    ages must survive a restart: ``time.monotonic`` readings do not). ``folded`` is not
    saved: it is every message that is not verbatim. The store saves this dict with a
    ``settings`` key added (:meth:`kit.memory.base.Memory.settings`), which
    :func:`restore` checks.
    """
    state = {"memory": memory.name, "unit": memory.unit, "added": memory.added,
             "turns": number_runs([m.number for m in memory.turns])}
    if measure_name(memory.measure):
        state["measure"] = measure_name(memory.measure)
    if getattr(memory, "count", "text") != "text":        # older states: always "text"
        state["count"] = memory.count
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


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number_key(key: str) -> bool:
    """A message number as a JSON key: "12" yes; "²", "-1", "" and 5,000 digits (which
    int() refuses) no."""
    return key.isascii() and key.isdigit() and len(key) <= 19


def _check_state(state: dict) -> str:
    """"" if ``state`` (a saved dict) has the shape :func:`memory_state` writes; else what
    is wrong with it, naming the field and the value. Checks the types and that the
    verbatim runs are ascending, apart and within ``1..added``."""
    for key in ("memory", "unit"):
        if not isinstance(state.get(key), str):
            return f"{key} must be a str, got {state.get(key)!r:.60}"
    if not isinstance(state.get("measure", ""), str):
        return f"measure must be a str, got {state['measure']!r:.60}"
    added, runs = state.get("added"), state.get("turns")
    if not _is_count(added):
        return f"added must be an int >= 0, got {added!r:.60}"
    if added >= 2 ** 63:
        return f"added must be < 2**63 (SQLite's INTEGER), got {added}"
    if not (isinstance(runs, list) and all(
            isinstance(r, list) and len(r) == 2 and all(_is_count(n) for n in r) for r in runs)):
        return f"turns must be a list of [first, last] runs of message numbers, got {runs!r:.60}"
    bounds = [n for run in runs for n in run]
    if bounds and not (1 <= bounds[0] and bounds[-1] <= added and all(
            a <= b if i % 2 == 0 else a < b for i, (a, b) in enumerate(zip(bounds, bounds[1:])))):
        return (f"turns must be ascending, separate runs within 1..{added}, "
                f"got {runs!r:.60}")
    for key in ("summary_tokens", "compactions"):
        if key in state and not _is_count(state[key]):
            return f"{key} must be an int >= 0, got {state[key]!r:.60}"
    if "summary" in state and not isinstance(state["summary"], str):
        return f"summary must be a str, got {state['summary']!r:.60}"
    if state.get("structured") is not None and not isinstance(state["structured"], dict):
        return f"structured must be a dict or None, got {state['structured']!r:.60}"
    added_at = state.get("added_at", {})
    if not (isinstance(added_at, dict) and all(
            _is_number_key(k) and isinstance(t, (int, float)) and not isinstance(t, bool)
            for k, t in added_at.items())):
        return f"added_at must map message numbers to seconds, got {added_at!r:.60}"
    return ""


class SessionLink:
    """Connects one memory to one session of a :class:`TranscriptStore`.

    The memory calls :meth:`message_added` right after a message joins its turns
    (before any compaction: the transcript is written ahead) and :meth:`save` when the
    add is over (also after a failed compaction: the message was kept).

    An add either commits or raises: when ``add`` returns, the message is on disk. If
    it cannot be written (the file locked past the store's ``timeout``, damaged,
    closed, or another writer already stored that number), :meth:`message_added` takes
    the message back out of the memory and raises :class:`StoreError` naming the path
    and the session: the add is refused, the memory is as it was (turns, size, trace),
    and the caller may retry it. A state that cannot be saved does not fail the add
    (the message is on disk, and :func:`restore` brings back messages stored after the
    last state as verbatim turns): :meth:`save` records it in ``state_saved`` and
    ``last_error``, the next save writes the whole state, and :meth:`sync` raises.
    ``unsaved`` stays empty (no message is ever kept in memory only).
    """

    def __init__(self, memory, store: TranscriptStore, session_id: str) -> None:
        self.memory, self.store, self.session_id = memory, store, session_id
        self.unsaved: list[Message] = []     # always empty: a message not written is refused
        self.state_saved = True
        self.last_error: Exception | None = None
        self._lock = threading.RLock()

    def message_added(self, message: Message) -> str:
        """Write ``message`` (committed when this returns); return a trace note ("").

        Raises :class:`StoreError` naming the path, the session and the message if it
        cannot be written, after taking it back out of the memory (:meth:`_undo`)."""
        with self._lock:
            try:
                self.store.append(self.session_id, message)
            except BaseException as exc:
                self._undo(message)
                if not isinstance(exc, Exception):        # KeyboardInterrupt, SystemExit
                    raise
                self.last_error = exc
                where = (str(exc) if isinstance(exc, StoreError) else
                         f"session {self.session_id!r} in {self.store.path!r}: message "
                         f"{message.number} was not written ({type(exc).__name__}: {exc})")
                raise StoreError(f"{where}; the add was refused and the memory is "
                                 f"unchanged") from exc
            return ""

    def _undo(self, message: Message) -> None:
        """Take back what :meth:`kit.memory.base.Memory.add` did before it called
        :meth:`message_added`: the turn, its size and its number."""
        memory = self.memory
        if memory.turns and memory.turns[-1] is message:
            memory.turns.pop()
            memory.turn_tokens -= message.tokens
        if memory.added == message.number:
            memory.added -= 1

    def save(self) -> None:
        """Save the memory's state (:func:`memory_state`) and its ``settings`` (see
        :meth:`kit.memory.base.Memory.settings`); a failure is recorded in
        ``last_error`` and ``state_saved``, and the next save writes the whole state."""
        with self._lock:
            try:
                self.store.save_state(self.session_id, {**memory_state(self.memory),
                                                        "settings": self.memory.settings()})
            except Exception as exc:
                self.last_error, self.state_saved = exc, False
            else:
                self.state_saved, self.last_error = True, None

    def sync(self) -> None:
        """Save the state again; raise :class:`StoreError` (the failure as its cause)
        if it still cannot be written."""
        with self._lock:
            self.save()
            if not self.state_saved:
                raise StoreError(f"session {self.session_id!r} in {self.store.path!r}: "
                                 f"the state is unsaved (every message is stored)"
                                 ) from self.last_error

    def __repr__(self) -> str:
        return f"SessionLink({self.session_id!r}, {self.store!r}, state_saved={self.state_saved})"


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


def _check_settings(saved, mine: dict, session_id: str, store: TranscriptStore) -> None:
    """Raise StoreError naming the first setting that differs (None: not saved)."""
    if saved is None:
        return
    if not isinstance(saved, dict):
        raise StoreError(f"session {session_id!r} in {store.path!r} has settings "
                         f"{saved!r:.60}, not a dict")
    for key in sorted(set(saved) | set(mine)):
        theirs, ours = saved.get(key, "unset"), mine.get(key, "unset")
        if theirs != ours or type(theirs) is not type(ours):
            raise StoreError(f"session {session_id!r} in {store.path!r} was saved with "
                             f"{key}={theirs!r}; this memory has {key}={ours!r} (restore "
                             f"needs the same {', '.join(sorted(mine)) or 'settings'})")


def restore(memory, store: TranscriptStore, session_id: str):
    """Rebuild a freshly constructed ``memory`` from ``store``; return it, attached to
    the store.

    What must match the memory that wrote the session: its kind (``name``), its
    measure's ``unit``, and its :meth:`~kit.memory.base.Memory.settings` (``budget``,
    ``keep_recent``, ``structured`` for a summary memory; ``max_messages`` for a sliding
    window; ``budget``, ``keep_recent``, ``recent`` for a recall memory): they decided
    which turns are verbatim and what the summary looks like. What may differ: the
    summariser and fallback (restore into a better model, then rebuild the summary),
    prompt, timeout, ``summary_cap``, ``target`` and the other triggers, the clock and
    the system prompt (its size counts from the next add). A state saved without
    settings (by an older kit) is not checked.

    Verbatim turns come from the stored transcript, the summary from the saved state.
    Messages stored after the last saved state (the process stopped mid-add) come back
    as verbatim turns: kept, not yet compacted. An unknown session gives an empty,
    attached memory. Raises ValueError for a used memory, :class:`StoreError` naming
    the first mismatch if the state belongs to another kind of memory, unit, measure
    (when both are named; a state saved by an older kit has none) or setting, naming
    the field if the saved state is damaged (wrong types, runs out of order or past
    ``added``, an ``added`` past the last stored message: every message is stored
    before it is folded, so a state can never count more), naming the messages if verbatim turns are missing from the transcript,
    or naming the path and the session if the store cannot be read (a damaged row or
    page, a lock held past its ``timeout``); the memory is then unchanged.
    """
    check_session(session_id)
    _check_fresh(memory, store, "restore")
    state = store.load_state(session_id)
    if state is None:
        state = {"memory": memory.name, "unit": memory.unit, "added": 0, "turns": []}
    wrong = _check_state(state)
    if wrong:
        raise StoreError(f"session {session_id!r} in {store.path!r}: the saved state is "
                         f"damaged: {wrong}")
    for key, mine in (("memory", memory.name), ("unit", memory.unit)):
        if state[key] != mine:
            raise StoreError(f"session {session_id!r} in {store.path!r} was saved by a "
                             f"{key} {state[key]!r}; this memory is {mine!r}")
    saved, mine = state.get("measure"), measure_name(memory.measure)
    if saved and mine and saved != mine:                 # sizes would mix two counts
        raise StoreError(f"session {session_id!r} in {store.path!r} was measured with "
                         f"{saved!r}; this memory measures with {mine!r} (pass measure= the "
                         f"same, or rebuild the session from its transcript)")
    saved, mine = state.get("count", "text"), getattr(memory, "count", "text")
    if saved != mine:                                    # sizes would mix two rules
        raise StoreError(f"session {session_id!r} in {store.path!r} was sized with "
                         f"count={saved!r}; this memory counts with count={mine!r} (pass "
                         f"count={saved!r})")
    _check_settings(state.get("settings"), memory.settings(), session_id, store)
    runs, last = state["turns"], store.last(session_id)
    first = runs[0][0] if runs else state["added"] + 1
    stored = store.turns(session_id, first=first) if first <= last else []
    missing = _missing(runs, {m.number for m in stored})
    if missing:
        raise StoreError(f"session {session_id!r} in {store.path!r}: the transcript lacks "
                         f"verbatim message(s) {missing}")
    if state["added"] > last:            # messages are stored before any compaction
        raise StoreError(f"session {session_id!r} in {store.path!r}: the saved state is "
                         f"damaged: added is {state['added']}, but the transcript's last "
                         f"message is {last}")
    verbatim = set(_numbers(runs))       # now known to be stored: no larger than the file
    # verbatim turns, then any message stored after the last saved state
    turns = [m for m in stored if m.number in verbatim or m.number > state["added"]]
    try:
        fields = {name: _load_field(name, state[name]) for name in SUMMARY_FIELDS
                  if name in state}
    except (TypeError, ValueError) as exc:          # a structured summary that is not one
        raise StoreError(f"session {session_id!r} in {store.path!r}: the saved state is "
                         f"damaged: structured: {exc}") from exc
    added = max([state["added"]] + [m.number for m in turns])
    added_at = {int(n): t for n, t in state.get("added_at", {}).items()}
    if hasattr(memory, "folded"):        # a summary memory folds every non-verbatim message
        kept = {m.number for m in turns}             # added <= the last stored number
        fields["folded"] = tuple(n for n in range(1, added + 1) if n not in kept)
    restoring = getattr(memory, "restoring", None)
    finish = restoring(store, session_id) if callable(restoring) else None
    # Commit: every value is computed, nothing below can fail.
    memory.turns, memory.turn_tokens, memory.added = turns, sum(m.tokens for m in turns), added
    for name, value in fields.items():
        setattr(memory, name, value)
    if "added_at" in state:
        memory.added_at = added_at
    memory.link = SessionLink(memory, store, session_id)
    if finish is not None:
        finish()
    return memory
