"""Reciprocal rank fusion, shared by memory and RAG.

:func:`rrf` fuses several rankings of the same kind of item (turn numbers, chunk ids)
into one: every item scores ``sum(1 / (k_rrf + rank))`` over the rankings it appears
in (Cormack, Clarke and Buettcher, "Reciprocal Rank Fusion outperforms Condorcet and
individual Rank Learning Methods", SIGIR 2009, with ``k_rrf = 60``).
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

from kit.validation import check_weight

if TYPE_CHECKING:                 # numpy is imported by rrf_positions, when first used
    import numpy as np

__all__ = ["rrf", "rrf_positions", "check_k_rrf"]


def check_k_rrf(k_rrf: object) -> float:
    """Return ``k_rrf`` if it is a finite number >= 0; else raise ValueError naming it."""
    check_weight("k_rrf", k_rrf)
    return k_rrf


def _weights(weights: Sequence[float] | None, count: int) -> Sequence[float]:
    """``weights``, or ``count`` ones for None; ValueError unless one finite number >= 0
    per ranking."""
    if weights is None:
        return [1.0] * count
    if len(weights) != count or any(
            isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w)
            or w < 0 for w in weights):
        raise ValueError(f"weights must be one finite number >= 0 per ranking "
                         f"({count}), got {list(weights)!r:.80}")
    return weights


def rrf(rankings: Sequence[Sequence[Hashable]], k_rrf: float = 60,
        weights: Sequence[float] | None = None) -> list[tuple[Hashable, float]]:
    """Reciprocal rank fusion of ``rankings`` (each a sequence of keys, best first; rank
    1 = first; a key repeated in one ranking counts at its first place only):
    ``[(key, score), ...]`` best first. ``weights``: one number >= 0 per ranking,
    multiplying its terms (default all 1: plain RRF).

    Sums use ``math.fsum``, so equal rank sets give exactly equal scores; ties are broken
    by the key's best rank, then by the first ranking holding that rank (the order a
    round-robin merge would meet them). Raises ValueError for a ``k_rrf`` that is not a
    finite number >= 0, or for weights that are not one finite number >= 0 per ranking.
    """
    check_k_rrf(k_rrf)
    weights = _weights(weights, len(rankings))
    terms: dict[Hashable, list[float]] = {}
    first: dict[Hashable, tuple[int, int]] = {}   # key -> (best rank, ranking index)
    for r, ranking in enumerate(rankings):
        for rank, key in enumerate(dict.fromkeys(ranking), start=1):   # a repeat counts once
            terms.setdefault(key, []).append(weights[r] / (k_rrf + rank))
            first[key] = min(first.get(key, (rank, r)), (rank, r))
    scores = {key: math.fsum(t) for key, t in terms.items()}
    return [(key, scores[key]) for key in sorted(scores, key=lambda k: (-scores[k], first[k]))]


def rrf_positions(rankings: Sequence[np.ndarray], k_rrf: float = 60,
                  weights: Sequence[float] | None = None) -> np.ndarray:
    """:func:`rrf` over rankings of positions (int arrays of positions >= 0, best first,
    no repeats: :meth:`kit.ranking.bm25.BM25Index.best` gives such), in array operations:
    the fused positions, best first, in exactly the order :func:`rrf` gives.

    Each position's terms are added in increasing order (a sorting network over the
    rankings), so equal sets of terms give exactly equal scores; where two neighbouring
    scores come within 1e-12 of each other, that run is scored again with ``math.fsum``,
    as :func:`rrf` does, and ordered by its tie rule (best rank, then the first ranking
    holding it). The cost is about the rankings' lengths times their number, with Python
    work only for those near-ties. Raises ValueError for a negative position, a bad
    ``k_rrf`` or bad weights."""
    import numpy as np
    check_k_rrf(k_rrf)
    weights = _weights(weights, len(rankings))
    rankings = [np.asarray(r, dtype=np.int64).ravel() for r in rankings]
    if any(len(r) and r.min() < 0 for r in rankings):
        raise ValueError("positions must be ints >= 0")
    size = 1 + max((int(r.max()) for r in rankings if len(r)), default=-1)
    if not size:
        return np.zeros(0, dtype=np.int64)
    absent = np.iinfo(np.int64).max
    ranks = np.full((size, len(rankings)), absent)  # position -> its rank in each ranking
    columns = []                                    # per ranking: position -> its term
    for r, ranking in enumerate(rankings):
        places = np.arange(1, len(ranking) + 1)
        ranks[ranking, r] = places
        column = np.zeros(size)
        column[ranking] = weights[r] / (k_rrf + places)
        columns.append(column)
    first = ranks.argmin(axis=1)                    # the first ranking holding the best rank
    best = ranks[np.arange(size), first]
    held = np.flatnonzero(best != absent)
    terms = [column[held] for column in columns]
    for round_ in range(len(terms)):                # odd-even transposition sort: each
        for i in range(round_ % 2, len(terms) - 1, 2):   # position's terms in increasing
            terms[i], terms[i + 1] = (np.minimum(terms[i], terms[i + 1]),      # order
                                      np.maximum(terms[i], terms[i + 1]))
    scores = terms[0].copy() if terms else np.zeros(0)
    for column in terms[1:]:
        scores += column
    tie = best[held] * len(rankings) + first[held]
    order = np.lexsort((tie, -scores))
    ranked = scores[order]
    near = np.flatnonzero(ranked[:-1] - ranked[1:] <= 1e-12 * ranked[:-1])
    if len(near):                                   # runs of near-ties: score them exactly
        order = order.copy()
        starts = near[np.r_[True, near[1:] != near[:-1] + 1]]
        ends = near[np.r_[near[1:] != near[:-1] + 1, True]] + 2
        for start, end in zip(starts.tolist(), ends.tolist()):
            run = order[start:end]
            exact = [(-math.fsum(c[held[i]] for c in columns), int(tie[i])) for i in run.tolist()]
            order[start:end] = run[sorted(range(len(run)), key=exact.__getitem__)]
    return held[order]
