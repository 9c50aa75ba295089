"""Hybrid ranking: a dense (embedding) ranking and a lexical (BM25) ranking fused by rank.

Lesson 09's exercise 4 writes :func:`hybrid_rank`; recall memory does the same with its
parts (:class:`kit.memory.recall_search.RecallSearch`, ``embedder=``). Two rankings,
each of the texts that match at all, best first:

- **lexical**: the texts whose BM25 score is > 0, by score;
- **dense**: the texts whose cosine similarity to the question is > 0, by cosine
  (vectors are not assumed to be normalised: cosine = dot / (norm * norm); a zero vector
  matches nothing);

and each text scores ``sum(1 / (k_rrf + rank))`` over the rankings it is in (rank 1 =
first; reciprocal rank fusion, Cormack et al., SIGIR 2009). Only ranks count, never the
raw scores: BM25 scores (unbounded) and cosines (at most 1) are on scales that cannot
be added.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["hybrid_rank", "ranking_of"]


def ranking_of(scores: Sequence[float]) -> list[int]:
    """Indices of the scores > 0, best first (ties: the smaller index first)."""
    return sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))


def hybrid_rank(question: str, texts: Sequence[str], embed: Callable,
                bm25_scores: Callable, k_rrf: float = 60) -> list[int]:
    """Indices of ``texts`` in at least one of the two rankings, best first by their RRF
    score (ties: the smaller index first).

    ``embed``: ``list[str] -> vectors`` (one per text, all of one length), called once
    with the texts and the question together; ``bm25_scores(question)``: one BM25 score
    per text; ``k_rrf``: a number >= 0. Raises ValueError for a ``k_rrf`` < 0 or scores
    or vectors that are not one per text.
    """
    if isinstance(k_rrf, bool) or not isinstance(k_rrf, (int, float)) or not k_rrf >= 0:
        raise ValueError(f"k_rrf must be a number >= 0, got {k_rrf!r}")
    lexical = list(bm25_scores(question))
    vectors = np.asarray(embed([*texts, question]), dtype=float)
    if len(lexical) != len(texts) or vectors.shape[0] != len(texts) + 1:
        raise ValueError(f"expected one score and one vector per text ({len(texts)})")
    norms = np.linalg.norm(vectors, axis=1)
    dots = vectors[:-1] @ vectors[-1]
    cosines = np.divide(dots, norms[:-1] * norms[-1], out=np.zeros(len(texts)),
                        where=norms[:-1] * norms[-1] > 0)
    fused: dict[int, list[float]] = {}
    for ranking in (ranking_of(lexical), ranking_of(cosines.tolist())):
        for rank, i in enumerate(ranking, start=1):
            fused.setdefault(i, []).append(1 / (k_rrf + rank))
    score = {i: math.fsum(terms) for i, terms in fused.items()}
    return sorted(score, key=lambda i: (-score[i], i))
