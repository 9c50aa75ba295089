"""An incremental BM25 index: one document added at a time, searched after every add.

A conversation grows one turn at a time, with a search after almost every turn, so
the index must take one new document cheaply. bm25s (used by RAG's retriever over a
help centre indexed once) rebuilds its whole index on the first search after an add.
This index keeps BM25 (Robertson and Zaragoza 2009, with Lucene's idf, as bm25s uses)
in posting lists: adding a document costs its own words, a search costs the postings
of the query's words (scored with numpy, one array operation per query word), and
every document is tokenised once.

It also does pseudo-relevance feedback (query expansion, :meth:`BM25Index.expand`):
Bo1, Amati's Bose-Einstein model of divergence from randomness, the default query
expansion of the Terrier engine, with its defaults (3 feedback documents, 10 terms).

The tokenizer (:func:`recall_tokenize`) lowercases, drops English function words
(bm25s's extended list, question words included, less a few particles) and folds
endings with :func:`light_stem`, so "painted", "painting" and "paints" meet.
Deterministic: equal scores keep the order documents were added in. Used by recall
memory (:mod:`kit.memory.turn_index`) for turns and for session digests.
"""
from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from kit.ranking.column import Column
from kit.textcache import text_cache
from kit.validation import check_weight

if TYPE_CHECKING:                 # numpy is imported when a search first needs it
    import numpy as np

__all__ = ["BM25Index", "light_stem", "recall_tokenize", "recall_stopwords", "KEPT_WORDS"]

_VOWELS = frozenset("aeiouy")
_STOPWORDS: frozenset[str] | None = None

# Words of STOPWORDS_EN_PLUS kept as search words: in conversation they carry meaning
# ("grew up", "moved out", "where do you work now?").
KEPT_WORDS = frozenset({"up", "down", "out", "off", "over", "now", "again"})


def recall_stopwords() -> frozenset[str]:
    """bm25s's extended English stopword list (``STOPWORDS_EN_PLUS``: "what", "did",
    "has", "her" ...) without :data:`KEPT_WORDS`: 172 words, loaded on first use."""
    global _STOPWORDS
    if _STOPWORDS is None:
        _STOPWORDS = frozenset(_bm25s_stopwords()) - KEPT_WORDS
    return _STOPWORDS


def _bm25s_stopwords() -> tuple[str, ...]:
    """bm25s's ``STOPWORDS_EN_PLUS``, read from its module alone: importing it through
    the package loads bm25s's whole engine first (~150 ms) for a list of words."""
    import importlib.util
    from pathlib import Path
    package = importlib.util.find_spec("bm25s")         # found, not imported
    if package is not None and package.origin:
        path = Path(package.origin).with_name("stopwords.py")
        spec = importlib.util.spec_from_file_location("_kit_bm25s_stopwords", path)
        if spec is not None and spec.loader is not None and path.is_file():
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            if isinstance(getattr(module, "STOPWORDS_EN_PLUS", None), (list, tuple)):
                return tuple(module.STOPWORDS_EN_PLUS)
    from bm25s.stopwords import STOPWORDS_EN_PLUS        # another layout: the usual way
    return tuple(STOPWORDS_EN_PLUS)


def light_stem(word: str) -> str:
    """Fold common English endings, so that forms of a word meet.

    -ies/-ied -> y, -ing/-ed (a doubled last consonant undone), plural -s/-es, -ly,
    then a silent final e: "painted", "painting", "paints" -> "paint"; "camped" ->
    "camp"; "running" -> "run"; "stories" -> "story"; "making", "make" -> "mak".
    Words of 3 letters or fewer, or with digits, stay as they are. A light stemmer
    (not Porter's): it only has to make the same word meet itself.
    """
    w = word
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith(("ies", "ied")) and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("sses"):
        w = w[:-2]
    else:
        for suffix in ("ings", "ing", "edly", "ed"):
            if w.endswith(suffix):
                stem = w[:-len(suffix)]
                if len(stem) >= 3 and _VOWELS & set(stem):
                    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                        stem = stem[:-1]           # running -> run, but fall-ing -> fall
                    w = stem
                break
        else:
            if w.endswith("s") and not w.endswith(("ss", "us", "is")):
                w = w[:-1]
                if w.endswith("e") and w[:-1].endswith(("ch", "sh", "x", "ss", "zz")):
                    w = w[:-1]                     # boxes -> box, wishes -> wish
            elif w.endswith("ly") and len(w) > 5:
                w = w[:-2]
    if len(w) > 3 and w.endswith("e") and w[-2] not in _VOWELS:
        w = w[:-1]                                 # make / making -> mak
    return w


def recall_tokenize(text: str) -> list[str]:
    r"""BM25 tokens of ``text``: lowercased ``\w+`` runs, :func:`recall_stopwords`
    removed, each folded by :func:`light_stem`.
    ``recall_tokenize("What has Melanie painted?") == ["melanie", "paint"]``.

    A pure function of the text, so its results are kept (:func:`kit.textcache.text_cache`:
    a benchmark that feeds one conversation to many memories tokenises each turn once).
    Raises TypeError for a non-str."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}: {text!r:.60}")
    return list(_recall_tokens(text))


@text_cache
def _recall_tokens(text: str) -> tuple[str, ...]:
    stop = recall_stopwords()
    return tuple(light_stem(w) for w in re.findall(r"\w+", text.lower()) if w not in stop)


class BM25Index:
    """BM25 over documents added one at a time, each with an increasing int key.

    ``k1`` (>= 0), ``b`` (0..1): term-frequency saturation and length normalisation
    (1.5 and 0.75, bm25s's defaults); ``tokenizer``: ``str -> list[str]``. Raises
    ValueError / TypeError naming a bad value.

    ``add(key, text)`` indexes a document (``tokens=`` to give its tokens instead);
    ``scores(weights)`` is BM25 of a weighted query for every document (a numpy array,
    by position: the order of adding); ``expand(weights, feedback)`` adds Bo1 terms;
    ``tokenized`` counts the texts tokenised.
    """

    def __init__(self, k1: float = 1.5, b: float = 0.75,
                 tokenizer: Callable[[str], list[str]] = recall_tokenize) -> None:
        self.k1 = check_weight("k1", k1)
        if not 0 <= check_weight("b", b) <= 1:
            raise ValueError(f"b must be between 0 and 1, got {b!r}")
        self.b = float(b)
        if not callable(tokenizer):
            raise TypeError(f"tokenizer must be callable str -> list[str], got {tokenizer!r:.60}")
        self.tokenizer = tokenizer
        self._key_column = Column()                      # position -> key, also as an array
        self.keys: list[int] = self._key_column.values
        self._positions: dict[int, int] = {}             # key -> position
        self.terms: list[Counter] = []                   # position -> {term: tf}
        self.frequency: Counter = Counter()              # term -> occurrences in all documents
        self.postings: dict[str, tuple[Column, Column]] = {}   # term -> (positions, tfs)
        self._length_column = Column()                   # position -> tokens in the document
        self.lengths: list[int] = self._length_column.values
        self.total_length = 0
        self.tokenized = 0
        # Each term's BM25 contribution by document, for the index as it is now: n and
        # the average length change with every add, so an add clears it.
        self._contributions: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._norm: np.ndarray | None = None             # k1 * (1 - b + b * length / average)

    def like(self) -> "BM25Index":
        """A new, empty index with the same settings."""
        return BM25Index(self.k1, self.b, self.tokenizer)

    def __len__(self) -> int:
        return len(self.keys)

    def tokens(self, text: str) -> list[str]:
        """``tokenizer(text)``, counted in :attr:`tokenized`."""
        self.tokenized += 1
        return self.tokenizer(text)

    def add(self, key: int, text: str = "", tokens: Sequence[str] | None = None) -> None:
        """Index one document: ``key`` (an int greater than every key so far) and its
        ``text`` (or its ``tokens``). Raises ValueError, indexing nothing, otherwise."""
        if isinstance(key, bool) or not isinstance(key, int) or (self.keys and key <= self.keys[-1]):
            raise ValueError(f"keys must be increasing ints; got {key!r} after "
                             f"{self.keys[-1] if self.keys else None}")
        if not -2 ** 63 <= key < 2 ** 63:
            raise ValueError(f"keys must fit in 64 bits (an array holds them); got {key!r}")
        tokens = self.tokens(text) if tokens is None else list(tokens)
        position, counts = len(self.keys), Counter(tokens)
        for term, tf in counts.items():
            found = self.postings.get(term)
            if found is None:
                found = self.postings[term] = (Column(), Column("float64"))
            positions, tfs = found
            positions.values.append(position)
            tfs.values.append(tf)
        self.lengths.append(len(tokens))
        self.terms.append(counts)
        self.frequency.update(counts)
        self._positions[key] = position
        self.keys.append(key)
        self.total_length += len(tokens)
        if self._norm is not None:
            self._contributions, self._norm = {}, None

    def key_array(self) -> np.ndarray:
        """The keys by position as a read-only int array (kept up to date as documents
        are added, never rebuilt)."""
        return self._key_column.array()

    def best(self, scores: np.ndarray, below: int | None = None) -> np.ndarray:
        """Positions scoring > 0, best first (ties: the earlier added first), only those
        with keys below ``below`` when given: :meth:`ranked` as an array of positions."""
        return _best(scores, None, self.cut(below))

    def position(self, key: int) -> int | None:
        """The position of the document with ``key`` (the order of adding), or None."""
        return self._positions.get(key)

    def _posting_arrays(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The term's postings as (positions, tfs) arrays (views, never rebuilt)."""
        found = self.postings.get(term)
        return None if found is None else (found[0].array(), found[1].array())

    def contribution(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The term's part of every score, for the index as it is now: ``(positions,
        values)``, the documents holding it and ``idf * tf * (k1 + 1) / (tf + k1 * (1 -
        b + b * length / average length))`` for each (None if no document holds it).
        Computed once per term between two adds."""
        found = self._contributions.get(term)
        if found is None:
            arrays = self._posting_arrays(term)
            if arrays is None:
                return None
            n = len(self.keys)
            if self._norm is None:
                average = max(self.total_length / n, 1e-9)
                lengths = self._length_column.array()
                self._norm = self.k1 * (1 - self.b + self.b * lengths / average)
            positions, tfs = arrays
            idf = math.log(1 + (n - len(positions) + 0.5) / (len(positions) + 0.5))
            found = (positions, idf * tfs * (self.k1 + 1) / (tfs + self._norm[positions]))
            self._contributions[term] = found
        return found

    def scores(self, weights: dict[str, float]) -> np.ndarray:
        """BM25 of the weighted query ``{term: weight}`` for every document, by position:
        ``sum over terms of weight * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length
        / average length))`` (0 where no term occurs). Each term costs one array
        operation over the documents that hold it (:meth:`contribution`)."""
        import numpy as np
        scores = np.zeros(len(self.keys))
        for term, weight in weights.items():
            found = self.contribution(term) if weight else None
            if found is not None:
                positions, values = found
                scores[positions] += values if weight == 1 else weight * values
        return scores

    def weights(self, text: str) -> dict[str, float]:
        """The query ``text`` as ``{term: times repeated / the most repeated}`` (1 for a
        word said once). Tokenises ``text`` once."""
        counts = Counter(self.tokens(text))
        most = max(counts.values(), default=1)
        return {t: tf / most for t, tf in counts.items()}

    def expand(self, weights: dict[str, float], feedback: tuple[int, int] = (3, 10)
               ) -> dict[str, float]:
        """``weights`` plus Bo1 pseudo-relevance feedback (Amati 2003; Terrier's
        parameter-free reweighting): take the ``feedback[0]`` best documents for
        ``weights``; weigh each of their terms by ``tf * log2((1 + m) / m) + log2(1 + m)``,
        where ``tf`` counts it in those documents and ``m`` is its mean count per
        document in the whole index; add the ``feedback[1]`` best, each weighted by its
        Bo1 weight / the best one's (so at most 1). A new dict; ``weights`` is unchanged."""
        turns, count = feedback
        weights = dict(weights)
        if not (weights and turns and count):
            return weights
        first = self.scores(weights)
        top = [int(p) for p in _best(first, turns)]
        if not top:
            return weights
        seen: Counter = Counter()
        for position in top:
            seen.update(self.terms[position])
        n, bo1 = len(self.keys), {}
        for term, tf in seen.items():
            mean = self.frequency[term] / n
            bo1[term] = tf * math.log2((1 + mean) / mean) + math.log2(1 + mean)
        best = sorted(bo1.items(), key=lambda item: (-item[1], item[0]))[:count]
        for term, weight in best:
            weights[term] = weights.get(term, 0.0) + weight / best[0][1]
        return weights

    def ranked(self, scores: np.ndarray, below: int | None = None) -> list[tuple[int, float]]:
        """``[(key, score), ...]`` for the positions scoring > 0, best first (ties: the
        earlier added first), only keys below ``below`` when given."""
        return [(self.keys[p], float(scores[p])) for p in _best(scores, None, self.cut(below))]

    def cut(self, below: int | None) -> int:
        """How many positions hold keys < ``below`` (all when None): the documents older
        than ``below``, as keys increase."""
        return len(self.keys) if below is None else bisect.bisect_left(self.keys, below)

    def extend(self, documents: Iterable[tuple[int, str]]) -> None:
        """:meth:`add` each ``(key, text)``."""
        for key, text in documents:
            self.add(key, text)

    def __repr__(self) -> str:
        return f"BM25Index({len(self.keys)} documents, {len(self.postings)} terms)"


def _best(scores: np.ndarray, limit: int | None, cut: int | None = None) -> np.ndarray:
    """Positions with a score > 0 among the first ``cut``, best first, ties by
    position; at most ``limit``."""
    import numpy as np
    view = scores[:cut] if cut is not None else scores
    hits = np.flatnonzero(view > 0)                  # in position order, so a stable sort
    order = hits[np.argsort(-view[hits], kind="stable")]       # keeps ties by position
    return order if limit is None else order[:limit]
