"""Forget: by fact, by topic words, or everything of a session, everywhere it went.

A user's "forget what I told you about my health" must reach every place the text
went, and the bytes too, not only the rows a query sees (lesson 12):

- **the transcript** (the source of truth): each chosen message's text is replaced by
  :data:`FORGOTTEN` (its number stays, so the numbering the facts and the summary
  refer to holds), and a record that it was forgotten is written to the session's
  ``events`` (message numbers and how, never the words; a later forget keeps it);
- **the fact memory**: the chosen facts' rows are deleted (a fact's whole history of
  values: a superseded value is the same secret, older);
- **the running summary** and every derived state (the saved memory state, the
  service's trace events): deleted (the idempotency keys stay, their saved replies and
  the digests of their texts replaced by :data:`FORGOTTEN`: a retry is not run again), and
  the memory is **rebuilt from the remaining raw turns** (:func:`rebuild_memory`), never
  edited in place: an edited summary still says the secret in another wording;
- **the BM25 index and the stored embeddings** of a recall memory live in the memory
  and are rebuilt with it (:func:`rebuild_memory` replays the redacted transcript);
- **the profile**: :func:`rebuild_profile` merges the per-session profiles again,
  without the forgotten session and without any label or signal naming a topic word;
- **the bytes**: SQLite keeps deleted rows in free pages and old page images in its
  write-ahead log. :func:`forget` runs its transaction with ``PRAGMA secure_delete=ON``
  (freed space is overwritten with zeros), then ``VACUUM`` (text freed earlier, without
  zeros, goes too) and a ``wal_checkpoint(TRUNCATE)`` (the log's frames copied back and
  the ``-wal`` file cut to 0 bytes). The service's Redis
  store is rewritten by :meth:`kit.serve.redis_store.RedisSessionStore.forget`.

:func:`kit.longterm.forget_scan.scan` checks all of it on the raw files. Which messages
go: ``words`` matches whole words, whatever their case, Unicode form or invisible
characters (:func:`fold`, then one regular expression, linear in the text); ``fact`` is a fact id; ``everything`` is the whole session;
:func:`forget_user` is everything of several sessions (a user's), scrubbed once.
"""
from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from kit.longterm.fact_store import FactStore
from kit.longterm.facts import Fact
from kit.longterm.profile import Evidence, Profile, merge_profiles
from kit.messages import Message
from kit.persistence import memory_state, restore
from kit.store import StoreError, TranscriptStore, check_session
from kit.validation import check_int

__all__ = ["FORGOTTEN", "Forgotten", "Topic", "topic_pattern", "fold", "choose", "forget", "forget_user",
           "forget_rows",
           "scrub_bytes", "rebuild_memory", "rebuild_profile"]

FORGOTTEN = "[forgotten]"       # what a forgotten message's text becomes
_CHECKPOINT_TRIES = 20
# Invisible format characters a word can hide behind (soft hyphen, zero-width spaces and
# joiners, direction marks, word joiner, byte-order mark): dropped before matching.
_INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
                        "\u2066-\u2069\ufeff]")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Forgotten:
    """What one forget did: ``messages`` (numbers whose text went), ``facts`` (ids of
    the fact rows deleted), ``by`` ("fact", "words" or "everything")."""

    session_id: str
    messages: tuple[int, ...]
    facts: tuple[int, ...]
    by: str

    def record(self) -> dict:
        """The event written beside the transcript: what went, never the words."""
        return {"kind": "forgotten", "by": self.by, "messages": list(self.messages),
                "facts": len(self.facts)}


def fold(text: str) -> str:
    """``text`` in the form a topic is matched in: Unicode NFKC (a decomposed accent
    composed, full-width letters made plain), invisible format characters dropped, case
    folded ("Straße" and "STRASSE" alike). Linear in the text."""
    return unicodedata.normalize("NFKC", _INVISIBLE.sub("", unicodedata.normalize(
        "NFKC", text)).casefold())


class Topic:
    """Topic words as one matcher: :meth:`search` tells whether a text's :func:`fold`
    names any of them as a whole word. ``words``: the single words (a set: looked up
    once per word of the text, so a long list costs no more per text character);
    ``pattern``: one expression for the rest (phrases, whose spaces match any run of
    whitespace, and words with punctuation such as "c++"), or None."""

    def __init__(self, words: frozenset, pattern: re.Pattern | None) -> None:
        self.words, self.pattern = words, pattern

    def search(self, text: str) -> bool:
        """True if ``text`` names a topic word. Linear in the text (and in the phrases)."""
        folded = fold(text)
        if self.words and not self.words.isdisjoint(_WORD.findall(folded)):
            return True
        return self.pattern is not None and self.pattern.search(folded) is not None


def topic_pattern(words: Iterable[str]) -> Topic:
    """One matcher (:class:`Topic`) for any of ``words`` as a whole word, whatever its
    case, Unicode form or invisible characters. Raises TypeError naming ``words`` if it
    is not a str or an iterable, ValueError naming a word that is not a non-empty str,
    or for no words."""
    if isinstance(words, str):
        words = [words]
    try:
        words = list(words)
    except TypeError:
        raise TypeError(f"topic words must be a list of strs, got {words!r:.60}") from None
    for word in words:
        if not isinstance(word, str) or not fold(word).strip():
            raise ValueError(f"topic words must be non-empty strs, got {word!r:.60}")
    if not words:
        raise ValueError("forget by topic needs at least one word, got none")
    folded = {fold(w).strip() for w in words}
    single = frozenset(w for w in folded if _WORD.fullmatch(w))
    rest = sorted(folded - single, key=len, reverse=True)
    alternatives = "|".join(r"\s+".join(re.escape(part) for part in w.split()) for w in rest)
    return Topic(single, re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)") if rest else None)


def choose(turns: Sequence[Message], facts: Sequence[Fact], *, fact: int | None = None,
           words: Iterable[str] | None = None, everything: bool = False
           ) -> tuple[tuple[int, ...], tuple[int, ...], str]:
    """(message numbers, fact ids, how) a forget takes. Exactly one way must be given.

    - ``fact``: that fact, every fact of its subject and attribute (its history), the
      messages that stated or closed them and every message naming one of their values
      (the assistant's "penicillin noted" repeats the secret);
    - ``words``: every message and fact whose text names a word, and the facts stated
      by those messages (a message already :data:`FORGOTTEN` is not taken again: the
      word "forgotten" takes nothing new);
    - ``everything``: every message and fact.
    Raises ValueError for none or more than one way, or an unknown fact id; TypeError
    for a fact id that is not an int or an ``everything`` that is not a bool."""
    if not isinstance(everything, bool):
        raise TypeError(f"everything must be a bool, got {everything!r:.30}")
    given = [fact is not None, words is not None, everything]
    if sum(given) != 1:
        raise ValueError("forget takes exactly one of fact=, words= or everything=True")
    if everything:
        return tuple(m.number for m in turns), tuple(f.id for f in facts), "everything"
    if fact is not None:
        check_int("fact", fact, 0)
        target = next((f for f in facts if f.id == fact), None)
        if target is None:
            raise ValueError(f"no stored fact has id {fact!r:.30}")
        chosen = [f for f in facts if (f.subject, f.attribute) ==
                  (target.subject, target.attribute)]
        said = topic_pattern([f.value for f in chosen if f.value.strip()] or [target.text])
        numbers = {n for f in chosen for n in f.source + f.closed_by}
        numbers |= {m.number for m in turns if m.content != FORGOTTEN      # echoes, replies
                    and said.search(m.content)}
        ids = [f.id for f in facts if f in chosen or said.search(f.text)
               or numbers & set(f.source)]
        return tuple(sorted(numbers)), tuple(ids), "fact"
    pattern = topic_pattern(words)      # a text already forgotten is not taken again
    numbers = {m.number for m in turns if m.content != FORGOTTEN and pattern.search(m.content)}
    chosen = [f.id for f in facts if pattern.search(f.text) or numbers & set(f.source)]
    return tuple(sorted(numbers)), tuple(chosen), "words"


def forget_rows(db: sqlite3.Connection, forgotten: Forgotten, *, everything: bool) -> None:
    """The forget's writes, inside the caller's open transaction on ``db`` (a
    transcript-store file): texts replaced, fact rows deleted, the derived rows (saved
    state, events) deleted, the idempotency keys' saved answers and text digests
    replaced by :data:`FORGOTTEN`, the record written. The records of
    earlier forgets stay (they name no words: the trail of what went). A forget that
    takes nothing (words no message names, an unknown session) writes nothing. The
    service's SQLite store calls it after its lease check, in the same transaction."""
    session = forgotten.session_id
    went = bool(forgotten.messages or forgotten.facts)
    if not (went or everything):
        return
    db.execute("PRAGMA secure_delete = ON")        # freed space is overwritten with zeros
    if everything:
        for table in ("messages", "turns", "waiters", "facts"):
            db.execute(f"DELETE FROM {table} WHERE session_id = ?", (session,))
    else:
        for number in forgotten.messages:
            db.execute("UPDATE messages SET content = ? WHERE session_id = ? AND number = ?",
                       (FORGOTTEN, session, number))
        for fact_id in forgotten.facts:
            db.execute("DELETE FROM facts WHERE session_id = ? AND id = ?", (session, fact_id))
    db.execute("DELETE FROM session_state WHERE session_id = ?", (session,))  # rebuilt later
    # Idempotency keys stay, so a retry is not run again (a duplicate turn, the text
    # written back), but the answers they saved go, and so do the digests of the texts
    # (a digest confirms a guessed text); a claim whose turn died goes.
    db.execute("DELETE FROM idempotency WHERE session_id = ? AND outcome IS NULL", (session,))
    db.execute("UPDATE idempotency SET outcome = json_set(outcome, '$.answer', ?), digest = ? "
               "WHERE session_id = ?", (FORGOTTEN, FORGOTTEN, session))
    db.execute("DELETE FROM events WHERE session_id = ? AND CASE WHEN json_valid(event) "
               "THEN json_extract(event, '$.kind') END IS NOT ?", (session, "forgotten"))
    if went:
        db.execute("INSERT INTO events (session_id, event) VALUES (?, ?)",
                   (session, json.dumps(forgotten.record(), sort_keys=True)))


def scrub_bytes(db: sqlite3.Connection, where: str) -> None:
    """After a forget's commit: ``VACUUM`` (the file rebuilt with no free pages: text
    freed *before* the forget, when ``secure_delete`` was off, goes too), then the
    write-ahead log copied back and cut to 0 bytes (``wal_checkpoint(TRUNCATE)``;
    nothing more for a rollback-journal file). Retries while
    a reader holds it; raises :class:`StoreError` naming ``where`` if it stays busy."""
    db.execute("VACUUM")                  # space freed before the forget, without zeros
    if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        return
    for _ in range(_CHECKPOINT_TRIES):
        busy, _log, _done = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if not busy:
            return
    raise StoreError(f"{where}: the forget is committed but the write-ahead log could "
                     f"not be truncated (a reader held it {_CHECKPOINT_TRIES} times); "
                     f"run the forget again")


def forget(store: TranscriptStore, session_id: str, *, fact: int | None = None,
           words: Iterable[str] | None = None, everything: bool = False) -> Forgotten:
    """Forget in ``store`` (a transcript store: every file has the facts table) one way:
    ``fact`` (an id), ``words`` (topic words) or ``everything`` (see :func:`choose`);
    return what went. One transaction under ``secure_delete``, then the log scrubbed
    (:func:`scrub_bytes`). In-process memories are stale afterwards: rebuild them
    (:func:`rebuild_memory`; a :class:`~kit.longterm.fact_memory.FactMemory` is made
    again on the store). Raises TypeError/ValueError for a bad argument (nothing
    written), :class:`StoreError` naming the path and session if SQLite fails."""
    if not isinstance(store, TranscriptStore):
        raise TypeError(f"store must be a kit.store.TranscriptStore, got {store!r:.60}")
    check_session(session_id)
    facts = FactStore.load_facts(store, session_id)    # every store file has the table
    numbers, fact_ids, by = choose(store.turns(session_id), facts, fact=fact, words=words,
                                   everything=everything)
    forgotten = Forgotten(session_id, numbers, fact_ids, by)
    with store._using(session_id, "forgetting") as db:
        with db:
            db.execute("BEGIN IMMEDIATE")
            forget_rows(db, forgotten, everything=everything)
        scrub_bytes(db, f"session {session_id!r} in {store.path!r}")
    return forgotten


def forget_user(store: TranscriptStore, sessions: Iterable[str]) -> list[Forgotten]:
    """Forget everything of a user: each of their ``sessions`` (ids), in one transaction,
    the bytes scrubbed once. Returns what went, per session. Raises as :func:`forget`
    (every id is checked before anything is written)."""
    if not isinstance(store, TranscriptStore):
        raise TypeError(f"store must be a kit.store.TranscriptStore, got {store!r:.60}")
    if isinstance(sessions, str):
        raise TypeError(f"sessions must be a list of session ids, got {sessions!r:.60}")
    sessions = list(dict.fromkeys(check_session(s) for s in sessions))   # each once
    gone = [Forgotten(s, tuple(m.number for m in store.turns(s)),
                      tuple(f.id for f in FactStore.load_facts(store, s)), "everything")
            for s in sessions]
    with store._using(None, "forgetting a user") as db:
        with db:
            db.execute("BEGIN IMMEDIATE")
            for forgotten in gone:
                forget_rows(db, forgotten, everything=True)
        scrub_bytes(db, f"the transcript store {store.path!r}")
    return gone


def rebuild_memory(make: Callable[[], object], store: TranscriptStore, session_id: str):
    """A memory rebuilt from the session's remaining raw turns: ``make()`` gives a fresh
    memory, every stored turn (forgotten ones as :data:`FORGOTTEN`) is added to it in
    order (its summary folded again, its search index and embeddings built again), its
    state saved, and it is returned restored and attached to ``store``. Raises what the
    memory's ``add`` raises (nothing saved then) and what :func:`restore` raises."""
    check_session(session_id)
    memory = make()
    for m in store.turns(session_id):
        memory.add(m.role, m.content, speaker=m.speaker or None, when=m.when or None)
    store.save_state(session_id, {**memory_state(memory), "settings": memory.settings()})
    return restore(make(), store, session_id)


def _kept(items: tuple, pattern: Topic | None) -> tuple:
    if pattern is None:
        return items
    return tuple(i for i in items if not pattern.search(
        i.label if isinstance(i, Evidence) else i))


def rebuild_profile(per_session: Mapping[str, Profile], *, session: str | None = None,
                    words: Iterable[str] | None = None) -> Profile | None:
    """The profile merged again from the per-session profiles (one per session id, in
    order), without ``session`` and without any label or signal naming a topic word;
    None when no session is left. Never edits the merged profile: a count merged in
    cannot be taken back out. Raises ValueError for an unknown ``session``."""
    if session is not None and session not in per_session:
        raise ValueError(f"no profile for session {session!r:.60}")
    pattern = topic_pattern(words) if words is not None else None
    merged = None
    for sid, p in per_session.items():
        if sid == session:
            continue
        clean = Profile(_kept(p.strengths, pattern), _kept(p.weaknesses, pattern),
                        _kept(p.project_signals, pattern), _kept(p.role_fit_signals, pattern),
                        _kept(p.recommended_focus, pattern), p.sessions, p.min_support)
        merged = merge_profiles(merged, clean)
    return merged
