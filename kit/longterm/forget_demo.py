"""A planted secret, forgotten, scanned place by place: lesson 12's completeness table.

:func:`plant` writes a short chat (the allergy "penicillin" in message 3, repeated by
the assistant in message 4) through a :class:`~kit.longterm.fact_memory.FactMemory`
into a fact store (transcript and facts), and saves a running summary
(:class:`~kit.memory.RobustSummaryMemory`) from it, replaced once; the profile merged from
:data:`PROFILES` (the chat's session says the allergy in a project signal) goes to a JSON
file beside the store. :func:`places` builds every memory the chatbot can have from the
store (summary memory, recall memory with BM25 and stored embeddings, fact memory) and
scans them, the profile and the raw files with :func:`kit.longterm.forget_scan.scan`.
:func:`forget_all` is the forget of :mod:`kit.longterm.forget` plus the profile rebuilt.
"""
from __future__ import annotations

import os

from kit.llm import fact_listing_summariser
from kit.longterm.fact_memory import FactMemory
from kit.longterm.fact_store import FactStore
from kit.longterm.forget import Forgotten, forget, rebuild_memory, rebuild_profile
from kit.longterm.profile import Evidence, Profile
from kit.longterm.forget_scan import ScanReport, scan, sqlite_files, vectors_hold
from kit.memory import RecallMemory, RobustSummaryMemory
from kit.memory.recall_search import RecallSearch
from kit.ranking.dense import HashingEmbedder
from kit.tokens import count_words

__all__ = ["SECRET", "TURNS", "PROFILES", "plant", "places", "forget_all", "profile_path",
           "summary_memory", "recall_memory"]

SECRET = "penicillin"
TURNS = [("user", "I just moved to Lisbon!"), ("assistant", "Welcome to Lisbon."),
         ("user", "I'm allergic to penicillin, keep that between us."),
         ("assistant", "Understood, penicillin noted."),
         ("user", "I play the cello on weekends."), ("assistant", "Lovely, the cello."),
         ("user", "My sister Ana visits in May."), ("assistant", "Say hello to Ana."),
         ("user", "What should I cook tonight?"), ("assistant", "Try a tomato rice.")]
EMBED = HashingEmbedder(64)
PROFILES = {   # per interview session; "alice" is the chat's own
    "earlier": Profile((Evidence("clear explanations", 1, ("earlier",)),), (),
                       ("built a booking app",), sessions=("earlier",)),
    "alice": Profile((Evidence("clear explanations", 1, ("alice",)),), (),
                     ("planning around a penicillin allergy",), sessions=("alice",))}


def profile_path(store: FactStore) -> str:
    """Where :func:`plant` keeps the merged profile: ``<store file>.profile.json``."""
    return f"{store.path}.profile.json"


def _write_profile(store: FactStore, profile: Profile | None) -> None:
    with open(profile_path(store), "w", encoding="utf-8") as f:
        f.write("" if profile is None else profile.to_json())


def summary_memory() -> RobustSummaryMemory:
    """The running summary (30 words, 2 recent turns, a verbatim-keeping stub)."""
    return RobustSummaryMemory(fact_listing_summariser, budget=30, keep_recent=2,
                               measure=count_words)


def recall_memory() -> RecallMemory:
    """Recall memory with BM25 and stored embeddings (the hashing embedder)."""
    return RecallMemory(80, count_words, keep_recent=2, search=RecallSearch(embedder=EMBED))


def plant(path: str | os.PathLike, session: str = "alice") -> FactStore:
    """A fact store at ``path`` (a new file) holding :data:`TURNS`, their facts and a
    saved running summary (written twice, so an old copy sits in a freed cell)."""
    store = FactStore(path)
    facts = FactMemory(200, count_words, keep_recent=2, store=store, session_id=session)
    for role, text in TURNS:
        facts.add(role, text)
    for _ in range(2):
        rebuild_memory(summary_memory, store, session)
    _write_profile(store, rebuild_profile(PROFILES))
    return store


def forget_all(store: FactStore, session: str = "alice", **how) -> Forgotten:
    """:func:`kit.longterm.forget.forget` with ``how`` (``fact=``, ``words=`` or
    ``everything=True``), then the profile merged again without what went (the words,
    the fact's values, or the session's whole profile)."""
    values = [f.value for f in store.load_facts(session) if f.id == how.get("fact")]
    gone = forget(store, session, **how)
    words = how.get("words") or values or None
    _write_profile(store, rebuild_profile(PROFILES, words=words,
                                          session=session if gone.by == "everything" else None))
    return gone


def places(store: FactStore, session: str = "alice") -> ScanReport:
    """Every place :data:`SECRET` could be after :func:`plant`: the store's raw files and
    the profile file,
    the saved state row as it was, the contexts of the three memories rebuilt from it
    (the secret as the query), the running summary, the BM25 index's terms, the stored rows, and the stored
    embeddings (vectors of the texts that said it)."""
    saved = str(store.load_state(session))            # before the rebuilds replace it
    summary = rebuild_memory(summary_memory, store, session)
    recall = rebuild_memory(recall_memory, store, session)
    facts = FactMemory(200, count_words, keep_recent=2, store=store, session_id=session)
    contexts = {"saved summary (state row)": saved,
                "running summary": summary.summary,
                "summary memory's context": summary.context(),
                "recall memory's context": recall.context(SECRET),
                "BM25 index (its terms)": " ".join(recall.index.bm25.postings),
                "fact memory's context": facts.context(),
                "fact memory's history": facts.context("every value over time"),
                "transcript rows": " ".join(m.content for m in store.turns(session)),
                "fact rows": " ".join(f.text for f in store.load_facts(session))}
    dense = recall.search.dense
    said = [f"{role}: {text}" for role, text in TURNS if SECRET in text]
    vectors = {"stored embeddings": vectors_hold(dense.vectors, EMBED, said)}
    names = {"": "database file", "-wal": "write-ahead log (-wal)", "-shm": "shared memory (-shm)",
             "-journal": "rollback journal"}
    files = [(names[p[len(str(store.path)):]], p) for p in sqlite_files(store.path)]
    files.append(("profile file (JSON)", profile_path(store)))
    return scan(SECRET, files=files, contexts=contexts, vectors=vectors)
