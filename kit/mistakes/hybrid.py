"""Wrong hybrid rankings (lesson 09's exercise 4, mechanism "hybrid ranking").

Each function has the exercise's signature, ``hybrid_rank(question, texts, embed,
bm25_scores, k_rrf=60)`` (see :mod:`kit.checks.hybrid` and
:func:`kit.ranking.hybrid.hybrid_rank`), and gets one thing wrong.
:func:`kit.checks.hybrid.check_hybrid_rank` rejects each with a message that holds its
``hint``.
"""
from __future__ import annotations

import math

import numpy as np

from kit.mistakes import mistake
from kit.ranking.hybrid import ranking_of

__all__ = ["sums_raw_scores", "rank_from_zero", "dot_not_cosine", "ranks_unmatched",
           "lexical_only", "dense_only", "embeds_each_text_alone"]

MECHANISM = "hybrid ranking"


def _cosines(vectors) -> list[float]:
    vectors = np.asarray(vectors, dtype=float)
    norms = np.linalg.norm(vectors, axis=1)
    out = []
    for row, norm in zip(vectors[:-1], norms[:-1]):
        out.append(float(row @ vectors[-1] / (norm * norms[-1])) if norm * norms[-1] else 0.0)
    return out


def _fuse(rankings, k_rrf, start=1):
    score: dict[int, list[float]] = {}
    for ranking in rankings:
        for rank, i in enumerate(ranking, start=start):
            score.setdefault(i, []).append(1 / (k_rrf + rank))
    total = {i: math.fsum(t) for i, t in score.items()}
    return sorted(total, key=lambda i: (-total[i], i))


@mistake(MECHANISM, "sums-raw-scores",
         what="adds each text's BM25 score and cosine similarity instead of fusing ranks",
         why="BM25 scores are unbounded and cosines at most 1, so the sum is BM25's order "
             "with the dense ranking all but ignored: the paraphrase the model found stays "
             "below every word match",
         hint="fuse the ranks (1 / (k_rrf + rank)), not the raw scores")
def sums_raw_scores(question, texts, embed, bm25_scores, k_rrf=60):
    lexical, cosines = list(bm25_scores(question)), _cosines(embed([*texts, question]))
    total = [max(a, 0) + max(b, 0) for a, b in zip(lexical, cosines)]
    return ranking_of(total)


@mistake(MECHANISM, "rank-from-zero",
         what="numbers the ranks from 0, so the best text scores 1 / k_rrf",
         why="with a small k_rrf the first place then outweighs two good places in both "
             "rankings (and k_rrf = 0 divides by zero)",
         hint="rank 1 is the first place: 1 / (k_rrf + 1)")
def rank_from_zero(question, texts, embed, bm25_scores, k_rrf=60):
    lexical, cosines = list(bm25_scores(question)), _cosines(embed([*texts, question]))
    return _fuse([ranking_of(lexical), ranking_of(cosines)], k_rrf, start=0)


@mistake(MECHANISM, "dot-not-cosine",
         what="ranks the texts by the dot product of unnormalised vectors",
         why="a long text's vector is longer, so it wins on length, not on meaning",
         hint="normalise the vectors (cosine = dot / (norm * norm))")
def dot_not_cosine(question, texts, embed, bm25_scores, k_rrf=60):
    lexical = list(bm25_scores(question))
    vectors = np.asarray(embed([*texts, question]), dtype=float)
    dots = (vectors[:-1] @ vectors[-1]).tolist()
    return _fuse([ranking_of(lexical), ranking_of(dots)], k_rrf)


@mistake(MECHANISM, "ranks-unmatched",
         what="ranks every text in both rankings, also those with a BM25 score of 0 or a "
              "cosine <= 0",
         why="texts that match nothing earn fusion points just for being in the list, "
             "and crowd out real matches",
         hint="a ranking holds only the texts scoring > 0")
def ranks_unmatched(question, texts, embed, bm25_scores, k_rrf=60):
    lexical, cosines = list(bm25_scores(question)), _cosines(embed([*texts, question]))
    order = lambda s: sorted(range(len(s)), key=lambda i: (-s[i], i))   # noqa: E731
    return _fuse([order(lexical), order(cosines)], k_rrf)


@mistake(MECHANISM, "lexical-only",
         what="returns the BM25 ranking alone",
         why="a turn that shares no word with the question (a paraphrase, the second hop "
             "of a multi-hop question) is never found",
         hint="the dense ranking is missing")
def lexical_only(question, texts, embed, bm25_scores, k_rrf=60):
    return ranking_of(list(bm25_scores(question)))


@mistake(MECHANISM, "dense-only",
         what="returns the embedding ranking alone",
         why="exact names, numbers and rare words, where BM25 is strong and embeddings "
             "blur, are lost",
         hint="the BM25 ranking is missing")
def dense_only(question, texts, embed, bm25_scores, k_rrf=60):
    return ranking_of(_cosines(embed([*texts, question])))


@mistake(MECHANISM, "embeds-each-text-alone",
         what="calls the embedder once per text",
         why="a model runs a batch of texts in about the time of a few single ones: one "
             "call per turn made the course's benchmark several times slower",
         hint="embed the texts in one call")
def embeds_each_text_alone(question, texts, embed, bm25_scores, k_rrf=60):
    vectors = [np.asarray(embed([t]), dtype=float)[0] for t in [*texts, question]]
    lexical, cosines = list(bm25_scores(question)), _cosines(vectors)
    return _fuse([ranking_of(lexical), ranking_of(cosines)], k_rrf)
