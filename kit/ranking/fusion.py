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
    if weights is None:
        weights = [1.0] * len(rankings)
    elif len(weights) != len(rankings) or any(
            isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w)
            or w < 0 for w in weights):
        raise ValueError(f"weights must be one finite number >= 0 per ranking "
                         f"({len(rankings)}), got {list(weights)!r:.80}")
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
    """:func:`rrf` over rankings of positions (int arrays, best first, no repeats, at
    least one ranking), in array operations: the fused positions, best first.

    The same scores and the same tie rule as :func:`rrf` (best rank, then the first
    ranking holding it), with one difference in the arithmetic: each position's terms
    are added in increasing order rather than with ``math.fsum``. Equal sets of terms
    still give exactly equal scores; two different sets whose sums differ by less than
    a rounding error (about 1e-17 here) may be ordered the other way. Costs about the
    rankings' lengths times their number, with no Python work per position.
    ``k_rrf`` and ``weights`` are checked by the caller (:func:`rrf` checks them).
    """
    import numpy as np
    if weights is None:
        weights = [1.0] * len(rankings)
    rankings = [np.asarray(r, dtype=np.int64) for r in rankings]
    size = 1 + max((int(r.max()) for r in rankings if len(r)), default=-1)
    absent = np.iinfo(np.int64).max
    ranks = np.full((size, len(rankings)), absent)  # position -> its rank in each ranking
    terms = []                                      # per ranking: position -> its term
    for r, ranking in enumerate(rankings):
        places = np.arange(1, len(ranking) + 1)
        ranks[ranking, r] = places
        column = np.zeros(size)
        column[ranking] = weights[r] / (k_rrf + places)
        terms.append(column)
    first = ranks.argmin(axis=1)                    # the first ranking holding the best rank
    best = ranks[np.arange(size), first]
    held = np.flatnonzero(best != absent)
    terms = [column[held] for column in terms]
    for round_ in range(len(terms)):                # odd-even transposition sort: each
        for i in range(round_ % 2, len(terms) - 1, 2):   # position's terms in increasing
            terms[i], terms[i + 1] = (np.minimum(terms[i], terms[i + 1]),      # order
                                      np.maximum(terms[i], terms[i + 1]))
    scores = terms[0].copy()
    for column in terms[1:]:
        scores += column
    return held[np.lexsort((best[held] * len(rankings) + first[held], -scores))]
