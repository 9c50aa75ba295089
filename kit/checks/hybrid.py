"""Checker for lesson 09's exercise 4: hybrid ranking, dense + BM25 fused by reciprocal
rank fusion.

:func:`check_hybrid_rank` checks ``hybrid_rank(question, texts, embed, bm25_scores,
k_rrf=60)``:

- the lexical ranking: the texts whose BM25 score (``bm25_scores(question)``, one per
  text) is > 0, by score; the dense ranking: the texts whose cosine similarity to the
  question (vectors from ``embed``, not normalised) is > 0, by cosine; in both, ties go
  to the smaller index;
- each text in a ranking scores ``1 / (k_rrf + rank)`` (rank 1 = first) per ranking;
- return the indices of the texts in either ranking, best first (ties: smaller index);
- embed with at most 2 calls (the texts together, and the question); change no input.

The kit's :func:`kit.ranking.hybrid.hybrid_rank` is the reference; the wrong answers it
tells apart are registered in :mod:`kit.mistakes.hybrid`. Prints one pass line or
raises :class:`kit.checks.CheckFailed` naming the case.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from kit.checks import CheckFailed, call_learner, expect, passed

__all__ = ["check_hybrid_rank", "TableEmbedder"]

MECHANISM = "hybrid ranking"


class TableEmbedder:
    """A stub embedder: each text's vector from a table (unknown texts: the zero
    vector); counts its calls."""

    def __init__(self, table: dict[str, list[float]], dim: int) -> None:
        self.table, self.dim, self.calls = table, dim, 0

    def __call__(self, texts):
        self.calls += 1
        return [list(self.table.get(t, [0.0] * self.dim)) for t in texts]


def _scores(table: dict[str, float], texts: list[str]):
    return lambda question: [table.get(t, 0.0) for t in texts]


# (question, texts, vectors by text (the question's last), BM25 scores by text, k_rrf, why)
_Q = "What does Melanie do to relax?"
_CASES = [
    (_Q, ["Melanie: I signed up for a pottery class.", "Caroline: Melanie, relax! It is fine.",
          "Melanie: The weather is grey.", "Caroline: Pottery sounds calming."],
     {"Melanie: I signed up for a pottery class.": [3.0, 1.0, 0.0],
      "Caroline: Melanie, relax! It is fine.": [0.2, 0.0, 1.0],
      "Melanie: The weather is grey.": [0.0, -1.0, 0.0],
      "Caroline: Pottery sounds calming.": [1.0, 1.0, 0.0], _Q: [1.0, 0.0, 0.0]},
     {"Caroline: Melanie, relax! It is fine.": 7.5, "Melanie: The weather is grey.": 2.0,
      "Melanie: I signed up for a pottery class.": 1.1},
     60, "the paraphrase (pottery) shares no word with the question; the word match does"),
    ("q", ["a", "b", "c"], {"a": [-1.0, 0.0], "b": [1.0, 0.0], "c": [0.0, 1.0], "q": [1.0, 0.0]},
     {"a": 3.0}, 60, "'c' matches nothing: no word, a cosine of 0"),
    ("q", ["a", "b", "c", "d"],
     {"a": [1.0, 0.0], "b": [0.9, 0.1], "c": [0.8, 0.2], "d": [-1.0, 0.0], "q": [1.0, 0.0]},
     {"a": 5.0, "b": 4.0, "d": 1.0}, 1,
     "k_rrf = 1: 'a' is first in both rankings, 'b' second in both"),
    ("q", ["a", "b", "c"],
     {"a": [0.0, 1.0], "b": [1.0, 0.2], "c": [0.6, 0.8], "q": [1.0, 0.0]},
     {"a": 9.0, "b": 3.0, "c": 2.0}, 1,
     "k_rrf = 1: first in one ranking against second and third in both"),
    ("q", ["short", "long"],
     {"short": [1.0, 0.0], "long": [10.0, 10.0], "q": [1.0, 0.1]}, {}, 60,
     "no word match; the longer vector points further from the question"),
    ("q", ["x", "y", "z"], {"x": [1.0, 0.0], "y": [0.0, 1.0], "z": [1.0, 0.0], "q": [1.0, 0.0]},
     {"y": 2.0}, 60, "ties: 'x' and 'z' have equal cosines, and 'y' ties with 'x' after fusion"),
    ("q", [], {"q": [1.0]}, {}, 60, "no texts"),
]


def _random_cases(seed: int = 24, count: int = 10) -> list[tuple]:
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        n = rng.randint(2, 9)
        texts = [f"turn {i}" for i in range(n)]
        vectors = {t: [rng.choice([-1, 0, 1, 2, 3]) * 0.5 for _ in range(3)] for t in texts}
        vectors["question"] = [rng.choice([0, 1, 2]) * 0.5 + 0.5 for _ in range(3)]
        scores = {t: rng.choice([0, 0, 1, 2, 4, 7]) * 0.75 for t in texts}
        cases.append(("question", texts, vectors, scores, rng.choice([0, 1, 5, 60]),
                      "a random case"))
    return cases


def _label(case: tuple) -> str:
    question, texts, _, _, k_rrf, _ = case
    return f"hybrid_rank({question!r}, {texts!r:.80}, embed, bm25_scores, k_rrf={k_rrf})"


def _run(fn: Callable, case: tuple, name: str = "hybrid_rank"):
    question, texts, vectors, scores, k_rrf, _ = case
    dim = len(next(iter(vectors.values())))
    embed = TableEmbedder(vectors, dim)
    label = _label(case)
    given = list(texts)
    got = call_learner(fn, question, given, embed, _scores(scores, list(texts)), k_rrf,
                       name=name, shown=label)
    expect(given == list(texts), f"{name} changed its input in place: {texts!r:.80} became "
                                 f"{given!r:.80}. Build and return a new value instead.")
    return got, embed.calls, label


def _hint(got: object, case: tuple, want: list[int]) -> str:
    from kit.mistakes import mistakes
    for wrong in mistakes(MECHANISM):
        try:
            theirs, _, _ = _run(wrong.answer, case)
        except (CheckFailed, ZeroDivisionError):
            continue
        if theirs != want and got == theirs:
            return f"{wrong.hint}: {wrong.why}"
    return ("rank the texts scoring > 0 by BM25 and, apart, by cosine; give each 1 / (k_rrf "
            "+ rank) per ranking it is in (rank 1 = first) and sort by the sum, ties by index")


def check_hybrid_rank(hybrid_rank: Callable) -> None:
    """Check ``hybrid_rank``; print one pass line or raise CheckFailed.

    Rejects: adding raw scores, ranks from 0, dot products of unnormalised vectors,
    ranking texts that do not match, one ranking alone, one embedder call per text, an
    input changed. Compares with :func:`kit.ranking.hybrid.hybrid_rank` on hand-made
    and random cases."""
    from kit.ranking.hybrid import hybrid_rank as reference
    cases = 0
    for case in _CASES + _random_cases():
        want, _, _ = _run(reference, case, "reference")
        try:
            label = _label(case)
            got, calls, label = _run(hybrid_rank, case)
        except CheckFailed as failure:
            if isinstance(failure.__cause__, ZeroDivisionError) and case[4] == 0:
                raise CheckFailed(f"{label} raised ZeroDivisionError with k_rrf = 0. Hint: "
                                  f"rank 1 is the first place: 1 / (k_rrf + 1).") from failure
            raise
        if isinstance(got, tuple):
            got = list(got)
        if isinstance(got, list):
            got = [int(i) if hasattr(i, "__index__") else i for i in got]
        expect(got == want, f"{label} should be {want}, got {got!r:.120} ({case[-1]}). "
                            f"Hint: {_hint(got, case, want)}.")
        expect(calls <= 2, f"{label} called embed {calls} times for {len(case[1])} texts. "
                           f"Hint: embed the texts in one call (the question with them, or "
                           f"in a second call): a model runs a batch at once.")
        cases += 1
    passed("hybrid_rank", cases)
