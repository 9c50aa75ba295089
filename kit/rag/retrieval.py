"""Retrievers: top-k chunks for a query, behind one interface.

Every retriever answers ``search(query, k) -> list[Chunk]`` (best first, at most ``k``,
only chunks that match at all, so an unanswerable query gives ``[]``) and
``search_scored(query, k) -> list[tuple[Chunk, float]]``; ``add(chunks)`` grows the index.

- :class:`KeywordRetriever`: the toy rule of the end-to-end chatbot lesson. Query words of
  ``min_len``+ characters that also occur in a chunk; matching chunks come back in corpus
  order, not ranked.
- :class:`BM25Retriever`: BM25 (Robertson and Zaragoza 2009, "The Probabilistic Relevance
  Framework: BM25 and Beyond") through the ``bm25s`` library (Lucene's variant), with the
  small offline tokenizer :func:`tokenize`.
- :class:`HybridRetriever`: reciprocal rank fusion of several retrievers (Cormack, Clarke
  and Buettcher 2009, "Reciprocal Rank Fusion outperforms Condorcet and individual Rank
  Learning Methods"): a chunk's score is the sum over rankings of ``1 / (k_rrf + rank)``.

Ties are deterministic: equal scores keep corpus order (fusion: see :func:`rrf`).
Errors: TypeError for a non-str query, TypeError / ValueError for a ``k`` that is not an
int >= 1, each naming the value; a bad ``add`` changes nothing.
"""
from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Sequence

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN

from kit.rag.documents import Chunk, check_chunks
from kit.ranking import check_k_rrf
from kit.ranking import rrf as fuse
from kit.validation import check_int, check_weight

__all__ = ["Retriever", "KeywordRetriever", "BM25Retriever", "HybridRetriever", "rrf",
           "tokenize", "s_stem", "keyword_words", "check_query", "BM25_STOPWORDS"]

BM25_STOPWORDS = frozenset(STOPWORDS_EN)  # bm25s's 33 English stopwords, shipped offline


def check_query(query: object, k: object) -> None:
    """Raise TypeError for a non-str ``query``, TypeError / ValueError for ``k`` not an int >= 1."""
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, got {type(query).__name__}: {query!r:.60}")
    check_int("k", k, 1)


class Retriever:
    """Base class: holds the chunks in corpus order and implements ``search`` from
    ``search_scored``. Subclasses implement ``_ranked(query, k)`` and may extend
    ``_commit(new_chunks)`` to index them."""

    def __init__(self, chunks: Iterable[Chunk] = ()) -> None:
        self.chunks: list[Chunk] = []
        self.add(chunks)

    def __len__(self) -> int:
        return len(self.chunks)

    def search(self, query: str, k: int) -> list[Chunk]:
        """The top ``k`` matching chunks (``k``: an int >= 1, in chunks), best first, ``[]``
        when nothing matches. Raises as :func:`check_query`."""
        return [chunk for chunk, _ in self.search_scored(query, k)]

    def search_scored(self, query: str, k: int) -> list[tuple[Chunk, float]]:
        """``[(chunk, score), ...]``, best first, at most ``k``, only scores > 0 (the
        score's unit depends on the retriever: shared words, BM25, or RRF sums). Raises as
        :func:`check_query`."""
        check_query(query, k)
        return self._ranked(query, k)

    def add(self, chunks: Iterable[Chunk]) -> None:
        """Append chunks to the corpus (after the existing ones). Raises TypeError /
        ValueError naming a non-Chunk, an empty text or an id already present; then
        nothing is added."""
        new = check_chunks(chunks, existing=(c.id for c in self.chunks))
        self._commit(new)

    def _commit(self, new: list[Chunk]) -> None:
        self.chunks.extend(new)

    def build(self) -> "Retriever":
        """Finish any deferred indexing now; returns self (nothing to do here)."""
        return self

    def _ranked(self, query: str, k: int) -> list[tuple[Chunk, float]]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self.chunks)} chunks)"


def keyword_words(text: str) -> set[str]:
    """The keyword retriever's words: lowercased, split on whitespace, punctuation
    stripped from both ends (inner hyphens stay: "cash-on-delivery" is one word)."""
    words = (w.strip(string.punctuation) for w in text.lower().split())
    return {w for w in words if w}


class KeywordRetriever(Retriever):
    """The toy retriever of the end-to-end chatbot lesson: a chunk matches if it contains
    any query word of at least ``min_len`` characters (see :func:`keyword_words`); matches
    come back in corpus order, the first ``k``. The score is the number of distinct query
    words found, but it does not reorder anything: this retriever does not rank.

    The lesson strips only full stops from chunks and nothing from the query, so its "cod?"
    passes the 4-character filter and then matches nothing; here both sides are stripped,
    so "cod" (3 letters) is filtered out: "and for COD?" finds nothing either way.
    Raises TypeError / ValueError for ``min_len`` not an int >= 1.
    """

    def __init__(self, chunks: Iterable[Chunk] = (), min_len: int = 4) -> None:
        self.min_len = check_int("min_len", min_len, 1)
        self._words: list[set[str]] = []
        super().__init__(chunks)

    def _commit(self, new: list[Chunk]) -> None:
        words = [keyword_words(c.text) for c in new]
        super()._commit(new)
        self._words.extend(words)

    def query_words(self, query: str) -> set[str]:
        """The query words this retriever looks for (``min_len``+ characters)."""
        return {w for w in keyword_words(query) if len(w) >= self.min_len}

    def _ranked(self, query: str, k: int) -> list[tuple[Chunk, float]]:
        wanted = self.query_words(query)
        found = []
        for chunk, words in zip(self.chunks, self._words):
            shared = len(wanted & words)
            if shared:
                found.append((chunk, float(shared)))
                if len(found) == k:
                    break
        return found


def s_stem(word: str) -> str:
    """Harman's S-stemmer (1991, "How effective is suffixing?"): fold English plurals.
    "refunds" -> "refund", "deliveries" -> "delivery", "fees" -> "fee"; "address",
    "status" and words of 3 letters or fewer stay as they are."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    r"""BM25 tokens of ``text``: lowercased runs of letters and digits (``\w+``), the
    :data:`BM25_STOPWORDS` removed, each folded by :func:`s_stem`. Offline and deterministic:
    ``tokenize("And for COD orders?") == ["cod", "order"]``."""
    return [s_stem(w) for w in re.findall(r"\w+", text.lower()) if w not in BM25_STOPWORDS]


class BM25Retriever(Retriever):
    """BM25 ranking with ``bm25s`` (Lucene variant, ``k1`` term-frequency saturation,
    ``b`` length normalisation). Scores are floats >= 0; only chunks scoring > 0 come back
    (a chunk sharing no token with the query is not a match); equal scores keep corpus
    order; ``k`` larger than the corpus returns every match. A repeated query token counts
    once per repetition, as in Lucene.

    ``tokenizer``: ``str -> list[str]``, default :func:`tokenize`. Indexing is lazy:
    ``add`` only tokenizes the new chunks (cost proportional to their words); the next
    search rebuilds the bm25s index from the cached tokens once (proportional to the
    corpus's tokens: see the "add 1 + rebuild" column of ``benchmarks/retrieval.py``).
    So a growing transcript with one search per turn re-indexes at most once per turn.
    """

    def __init__(self, chunks: Iterable[Chunk] = (), k1: float = 1.5, b: float = 0.75,
                 tokenizer: Callable[[str], list[str]] = tokenize) -> None:
        check_weight("k1", k1), check_weight("b", b)
        if b > 1:
            raise ValueError(f"b must be between 0 and 1, got {b!r}")
        if not callable(tokenizer):
            raise TypeError(f"tokenizer must be callable, got {tokenizer!r:.60}")
        self.k1, self.b, self.tokenizer = k1, b, tokenizer
        self._tokens: list[list[str]] = []
        self._index: bm25s.BM25 | None = None
        self.builds = 0  # how many times the index was (re)built
        super().__init__(chunks)

    def _commit(self, new: list[Chunk]) -> None:
        tokens = [list(self.tokenizer(c.text)) for c in new]
        super()._commit(new)
        self._tokens.extend(tokens)
        if new:
            self._index = None  # stale: rebuilt on the next search

    def build(self) -> "BM25Retriever":
        """Build the index now if it is stale (otherwise the next search does); returns
        self. Use it to keep the build out of the first query's latency."""
        if self._index is None and any(self._tokens):  # bm25s cannot index no tokens at all
            index = bm25s.BM25(k1=self.k1, b=self.b)
            index.index(self._tokens, show_progress=False)
            self._index = index
            self.builds += 1
        return self

    def _ranked(self, query: str, k: int) -> list[tuple[Chunk, float]]:
        tokens = self.tokenizer(query)
        if not tokens or self.build()._index is None:
            return []
        scores = self._index.get_scores(tokens)
        hits = np.flatnonzero(scores > 0)
        order = hits[np.lexsort((hits, -scores[hits]))][:k]  # score desc, then corpus order
        return [(self.chunks[i], float(scores[i])) for i in order]

    def __repr__(self) -> str:
        return f"BM25Retriever({len(self.chunks)} chunks, k1={self.k1}, b={self.b})"


def rrf(rankings: Sequence[Sequence[Chunk]], k_rrf: float = 60) -> list[tuple[Chunk, float]]:
    """Reciprocal rank fusion of chunk rankings (:func:`kit.ranking.rrf` on chunk ids):
    every chunk in any ranking scores ``sum(1 / (k_rrf + rank))`` over the rankings it
    appears in (rank 1 = first). Chunks are identified by id (the first Chunk object
    seen is returned); ties as in :func:`kit.ranking.rrf`. Returns ``[(chunk, score),
    ...]`` best first. Raises ValueError for a ``k_rrf`` that is not a finite number >= 0.
    """
    chunks: dict[str, Chunk] = {}
    for ranking in rankings:
        for chunk in ranking:
            chunks.setdefault(chunk.id, chunk)
    fused = fuse([[chunk.id for chunk in ranking] for ranking in rankings], k_rrf)
    return [(chunks[i], score) for i, score in fused]


class HybridRetriever(Retriever):
    """Reciprocal rank fusion (:func:`rrf`) of the rankings of several retrievers.

    Each retriever is asked for ``max(k, depth)`` chunks; the fused top ``k`` come back.
    ``k_rrf`` = 60 as in Cormack et al. 2009. ``add`` adds the chunks to every retriever
    (checked against all of them first, so a bad add changes none). Raises ValueError for
    no retrievers or a ``k_rrf`` that is not a finite number >= 0, TypeError for an
    object without ``search``.
    """

    def __init__(self, retrievers: Sequence[Retriever], k_rrf: float = 60,
                 depth: int = 50) -> None:
        retrievers = tuple(retrievers)
        if not retrievers:
            raise ValueError("HybridRetriever needs at least one retriever, got none")
        for r in retrievers:
            if not callable(getattr(r, "search", None)):
                raise TypeError(f"{r!r:.60} has no search(query, k) method")
        check_k_rrf(k_rrf)
        self.retrievers, self.k_rrf = retrievers, k_rrf
        self.depth = check_int("depth", depth, 1)

    def __len__(self) -> int:
        return max(len(getattr(r, "chunks", ())) for r in self.retrievers)

    def add(self, chunks: Iterable[Chunk]) -> None:
        chunks = check_chunks(chunks)
        for r in self.retrievers:
            if not isinstance(r, Retriever):
                raise TypeError(f"cannot add to {r!r:.60}: not a kit Retriever")
            check_chunks(chunks, existing=(c.id for c in r.chunks))
        for r in self.retrievers:
            r.add(chunks)

    def build(self) -> "HybridRetriever":
        """Build every fused retriever's index now; returns self."""
        for r in self.retrievers:
            if callable(getattr(r, "build", None)):
                r.build()
        return self

    def _ranked(self, query: str, k: int) -> list[tuple[Chunk, float]]:
        depth = max(k, self.depth)
        return rrf([r.search(query, depth) for r in self.retrievers], self.k_rrf)[:k]

    def __repr__(self) -> str:
        names = ", ".join(type(r).__name__ for r in self.retrievers)
        return f"HybridRetriever([{names}], k_rrf={self.k_rrf}, depth={self.depth})"
