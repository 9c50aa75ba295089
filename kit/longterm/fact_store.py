"""Facts beside the transcript: the ``facts`` table of a transcript-store file (version 5).

:class:`FactStore` is a :class:`~kit.store.TranscriptStore` (same file, same arguments,
same refusal of a damaged or unknown file, same migration of older versions) that also
keeps a fact memory's facts (:class:`~kit.longterm.facts.Fact`), one row per fact ever
written, keyed by session and fact id. :meth:`FactStore.save_facts` writes the rows of
one decision (a new fact and/or the old one with its interval closed) in one
transaction: on disk when it returns, nothing written when it raises. Rows are never
deleted by the fact memory; ``delete(session_id)`` forgets a whole session's facts with
its messages.
"""
from __future__ import annotations

import json
from collections.abc import Sequence

from kit.longterm.facts import Fact
from kit.store import StoreError, TranscriptStore, check_session

__all__ = ["FactStore"]

_FIELDS = ("id, subject, attribute, value, valid_from, valid_to, source, closed_by, status, "
           "superseded_by")


def _numbers(text: str) -> tuple[int, ...]:
    found = json.loads(text)
    if not isinstance(found, list) or not all(type(n) is int for n in found):
        raise ValueError(f"not a list of message numbers: {text!r:.60}")
    return tuple(found)


class FactStore(TranscriptStore):
    """A transcript store that also keeps facts (see the module docstring). Raises what
    :class:`~kit.store.TranscriptStore` raises."""

    def save_facts(self, session_id: str, facts: Sequence[Fact]) -> None:
        """Insert or replace these facts of the session, in one transaction. Raises
        TypeError for an item that is not a Fact, StoreError naming the session if
        SQLite cannot write (then nothing is written)."""
        check_session(session_id)
        for fact in facts:
            if not isinstance(fact, Fact):
                raise TypeError(f"facts must be kit.longterm.facts.Fact, got {fact!r:.60}")
        with self._using(session_id, "writing facts") as db:
            with db:
                for f in facts:
                    db.execute(f"INSERT OR REPLACE INTO facts (session_id, {_FIELDS}) VALUES "
                               f"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               (session_id, f.id, f.subject, f.attribute, f.value, f.valid_from,
                                f.valid_to, json.dumps(list(f.source)),
                                json.dumps(list(f.closed_by)), f.status, f.superseded_by))

    def load_facts(self, session_id: str) -> list[Fact]:
        """Every stored fact of the session, by id. Raises StoreError naming the session
        and the fact for a row that cannot be a fact (a damaged file)."""
        check_session(session_id)
        with self._using(session_id, "reading facts") as db:
            rows = db.execute(f"SELECT {_FIELDS} FROM facts WHERE session_id = ? ORDER BY id",
                              (session_id,)).fetchall()
        facts = []
        for row in rows:
            try:
                fact = Fact(row[0], row[1], row[2], row[3], row[4], row[5], _numbers(row[6]),
                            _numbers(row[7]), row[8], row[9])
                if fact.status not in ("current", "superseded", "retracted"):
                    raise ValueError(f"unknown status {fact.status!r:.30}")
            except (TypeError, ValueError) as exc:
                raise StoreError(f"session {session_id!r} in {self.path!r}: stored fact "
                                 f"{row[0]!r:.30} is damaged: {exc}") from exc
            facts.append(fact)
        return facts
