"""The lesson-09 checker of hybrid_rank (dense + BM25 by reciprocal rank fusion) accepts
right answers of different designs and rejects the registered wrong ones, each with its
own hint."""
from __future__ import annotations

import math

import numpy as np
import pytest

from kit.checks.hybrid import check_hybrid_rank
from kit.mistakes import mistakes
from kit.ranking.fusion import rrf
from kit.ranking.hybrid import hybrid_rank as kit_hybrid_rank

NAME = "hybrid ranking"


def by_loops(question, texts, embed, bm25_scores, k_rrf=60):
    """The lesson's answer: plain Python, the question embedded with the texts."""
    vectors = embed(texts + [question])
    q = vectors[-1]
    qn = math.sqrt(sum(x * x for x in q))
    cosines = []
    for v in vectors[:-1]:
        n = math.sqrt(sum(x * x for x in v))
        cosines.append(sum(a * b for a, b in zip(v, q)) / (n * qn) if n and qn else 0.0)
    lexical = bm25_scores(question)
    fused = {}
    for scores in (lexical, cosines):
        ranking = sorted((i for i in range(len(texts)) if scores[i] > 0),
                         key=lambda i: (-scores[i], i))
        for rank, i in enumerate(ranking, start=1):
            fused[i] = fused.get(i, 0.0) + 1 / (k_rrf + rank)
    return sorted(fused, key=lambda i: (-fused[i], i))


def by_numpy_and_kit_rrf(question, texts, embed, bm25_scores, k_rrf=60):
    """Right too: numpy for the cosines, two embedder calls, the kit's rrf for the sums
    (its scores), then the tie rule of the exercise (smaller index first)."""
    if not texts:
        return []
    turns = np.asarray(embed(list(texts)), dtype=float)
    query = np.asarray(embed([question]), dtype=float)[0]
    norms = np.linalg.norm(turns, axis=1) * np.linalg.norm(query)
    cosines = np.divide(turns @ query, norms, out=np.zeros(len(texts)), where=norms > 0)
    lexical = np.asarray(bm25_scores(question), dtype=float)
    rankings = [[int(i) for i in np.lexsort((np.arange(len(s)), -s)) if s[i] > 0]
                for s in (lexical, cosines)]
    return [key for key, _ in sorted(rrf(rankings, k_rrf), key=lambda kv: (-kv[1], kv[0]))]


def ties_by_larger_index(question, texts, embed, bm25_scores, k_rrf=60):
    """Wrong: equal fused scores go to the larger index first."""
    found = kit_hybrid_rank(question, texts, embed, bm25_scores, k_rrf)
    return _retie(found, question, texts, embed, bm25_scores, k_rrf)


def _retie(found, question, texts, embed, bm25_scores, k_rrf):
    score = {i: 0.0 for i in found}
    lexical = bm25_scores(question)
    vectors = np.asarray(embed(list(texts) + [question]), dtype=float)
    norms = np.linalg.norm(vectors, axis=1)
    cos = [float(v @ vectors[-1] / (n * norms[-1])) if n * norms[-1] else 0.0
           for v, n in zip(vectors[:-1], norms[:-1])]
    for s in (lexical, cos):
        ranking = sorted((i for i in range(len(texts)) if s[i] > 0), key=lambda i: (-s[i], i))
        for rank, i in enumerate(ranking, start=1):
            score[i] += 1 / (k_rrf + rank)
    return sorted(score, key=lambda i: (-score[i], -i))


def mutates_texts(question, texts, embed, bm25_scores, k_rrf=60):
    """Wrong: appends the question to the caller's list."""
    texts.append(question)
    return kit_hybrid_rank(question, texts[:-1], embed, bm25_scores, k_rrf)


@pytest.mark.parametrize("answer", [by_loops, by_numpy_and_kit_rrf, kit_hybrid_rank],
                         ids=["loops", "numpy-and-rrf", "kit"])
def test_correct_answers_pass(answer, passes):
    passes(check_hybrid_rank, answer, "hybrid_rank")


@pytest.mark.parametrize("wrong, hint", [(ties_by_larger_index, "ties by index"),
                                         (mutates_texts, "changed its input in place")],
                         ids=["ties-by-larger-index", "mutates-texts"])
def test_wrong_answers_the_registry_does_not_list_are_rejected_too(wrong, hint, rejects):
    rejects(check_hybrid_rank, wrong, hint)


@pytest.mark.parametrize("wrong", mistakes(NAME), ids=lambda m: m.name)
def test_each_registered_mistake_is_rejected_with_its_hint(wrong, rejects):
    rejects(check_hybrid_rank, wrong.answer, wrong.hint)


def test_the_kit_reference_fuses_ranks_not_scores():
    texts = ["Caroline: Melanie, relax!", "Melanie: I signed up for a pottery class."]
    vectors = {texts[0]: [0.1, 1.0], texts[1]: [1.0, 0.0], "q": [1.0, 0.05]}
    embed = lambda ts: [vectors[t] for t in ts]                        # noqa: E731
    assert kit_hybrid_rank("q", texts, embed, lambda q: [9.0, 0.0]) == [0, 1]
    assert kit_hybrid_rank("q", texts, embed, lambda q: [0.0, 0.0]) == [1, 0]
    with pytest.raises(ValueError, match="k_rrf must be a number >= 0"):
        kit_hybrid_rank("q", texts, embed, lambda q: [1.0, 0.0], k_rrf=-1)
