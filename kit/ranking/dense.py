"""Dense retrieval: texts as vectors, searched by cosine similarity.

BM25 finds a turn only through the words it shares with the question; most multi-hop
evidence shares none ("What items has Melanie bought?" / "Luna and Oliver! They are so
sweet and playful"). An embedding model maps texts with a similar meaning to nearby
vectors. This module is the interface a model plugs into:

- an **embedder** is any callable ``texts -> vectors``: a list of str in, one vector per
  text out (a numpy array or lists of numbers), all of one length. Real ones are
  :class:`~kit.ranking.onnx_embedder.OnnxEmbedder` (a local ONNX model, by default the
  packaged all-MiniLM-L6-v2) and :class:`kit.openai_compat.OpenAICompatibleEmbedder`;
  :class:`HashingEmbedder` is a deterministic one with no model, for tests;
- :class:`DenseIndex` keeps one L2-normalised vector per text, added one at a time or
  in batches (one embedder call per batch), with increasing int keys like
  :class:`kit.ranking.bm25.BM25Index`, and searches with one matrix-vector product;
- :func:`check_vectors` checks what an embedder returned, once, before anything is
  stored: a wrong embedder leaves the index as it was;
- a real model: :class:`~kit.ranking.onnx_embedder.OnnxEmbedder` (all-MiniLM-L6-v2 in
  ONNX form, with the ``semantic`` extra; :func:`semantic_embedder` gives one per
  process, or None when the extra is missing), and :class:`CachedEmbedder`, which embeds
  each distinct text once however many indexes ask for it (a benchmark's strategies).

Fusing the dense ranking with BM25 (e.g. :func:`kit.ranking.fusion.rrf`) is the
caller's part.
"""
from __future__ import annotations

import bisect
import functools
import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from kit.ranking.onnx_embedder import (INSTALL_HINT, MINILM_SHA256, ModelUnavailable,
                                      OnnxEmbedder, semantic_available)
from kit.validation import check_int

__all__ = ["Embedder", "HashingEmbedder", "DenseIndex", "check_vectors", "CachedEmbedder",
           "OnnxEmbedder", "ModelUnavailable", "semantic_embedder", "resolve_embedder",
           "semantic_available",
           "MINILM_SHA256", "INSTALL_HINT"]

Embedder = Callable[[list[str]], Sequence[Sequence[float]]]
"""``texts -> vectors``: one vector per text, all of one length."""

_WORD = re.compile(r"\w+")
_DECIMALS = 12          # scores are rounded so that equal texts tie exactly


class HashingEmbedder:
    """A deterministic embedder with no model: feature hashing (Weinberger et al. 2009).

    A text's features are its lowercase ``\\w+`` words (when ``words``) and, for each
    ``n`` in ``ngrams``, the character n-grams of each word padded with ``#`` ("paint":
    "#pa", "pai", "ain", "int", "nt#"; a padded word shorter than ``n`` is one feature).
    Each feature is hashed with BLAKE2b (the same on every run and machine, unlike
    Python's ``hash()``) to an index in ``range(dim)`` and a sign; the vector sums the
    signs and is L2-normalised. So texts sharing words or word parts ("painting",
    "paints") get a positive cosine; an empty or all-punctuation text is the zero vector.

    ``embedder(texts)`` takes a list of str and returns a float64 array of shape
    ``(len(texts), dim)``. Raises TypeError / ValueError naming a bad ``dim`` (an int
    >= 1), ``ngrams`` (a tuple of ints >= 1), ``words`` (a bool), no features at all, or
    a ``texts`` that is not a list of str.
    """

    def __init__(self, dim: int = 256, ngrams: tuple[int, ...] = (3,), words: bool = True) -> None:
        self.dim = check_int("dim", dim, 1)
        if not isinstance(ngrams, tuple):
            raise TypeError(f"ngrams must be a tuple of ints, got {type(ngrams).__name__}: "
                            f"{ngrams!r:.60}")
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in ngrams):
            raise ValueError(f"ngrams must be a tuple of ints >= 1, got {ngrams!r:.60}")
        if not isinstance(words, bool):
            raise TypeError(f"words must be a bool, got {type(words).__name__}: {words!r:.60}")
        if not words and not ngrams:
            raise ValueError("HashingEmbedder needs features: words=True or some ngrams, "
                             "got words=False, ngrams=()")
        self.ngrams, self.words = ngrams, words
        self._slots: dict[str, list[tuple[int, float]]] = {}   # word -> its (index, sign)s

    def features(self, word: str) -> list[str]:
        """The features of one lowercase word: itself (``w:`` + word) and its padded
        character n-grams (``g:`` + gram), so a word and an equal gram never collide."""
        found = [f"w:{word}"] if self.words else []
        padded = f"#{word}#"
        for n in self.ngrams:
            grams = [padded[i:i + n] for i in range(len(padded) - n + 1)] or [padded]
            found += [f"g:{gram}" for gram in grams]
        return found

    def _hashed(self, word: str) -> list[tuple[int, float]]:
        slots = self._slots.get(word)
        if slots is None:
            slots = []
            for feature in self.features(word):
                digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
                index = int.from_bytes(digest[:7], "little") % self.dim
                slots.append((index, 1.0 if digest[7] & 1 else -1.0))
            self._slots[word] = slots
        return slots

    def __call__(self, texts: list[str]) -> np.ndarray:
        if isinstance(texts, str) or not isinstance(texts, Sequence) \
                or not all(isinstance(t, str) for t in texts):
            raise TypeError(f"texts must be a list of str, got {texts!r:.80}")
        vectors = np.zeros((len(texts), self.dim))
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                for index, sign in self._hashed(word):
                    vectors[row, index] += sign
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.divide(vectors, norms, out=vectors, where=norms > 0)

    def __repr__(self) -> str:
        return f"HashingEmbedder(dim={self.dim}, ngrams={self.ngrams}, words={self.words})"


def check_vectors(vectors: object, count: int, dim: int | None) -> np.ndarray:
    """``vectors`` (what an embedder returned for ``count`` texts) as a float64 array of
    shape ``(count, width)``, where ``width`` must equal ``dim`` when ``dim`` is not None
    (the index's dimension once known). Raises ValueError naming what is wrong: not one
    vector per text, a vector of another length, no numbers, something that is not a
    number, or a NaN or infinity. Another array type (``__array__``: torch, JAX...) is
    read through ``numpy.asarray``."""
    if not isinstance(vectors, (Sequence, np.ndarray)) and hasattr(vectors, "__array__"):
        vectors = np.asarray(vectors)
    if count == 0 and _length(vectors) == 0:
        return np.zeros((0, dim or 0))
    if isinstance(vectors, np.ndarray) and vectors.ndim != 2:
        raise ValueError(f"embedder returned an array of shape {vectors.shape}, expected "
                         f"({count}, {dim if dim is not None else 'dim'}): one row per text")
    got = _length(vectors)
    if got is None:
        raise ValueError(f"embedder returned {type(vectors).__name__}, not one vector per text: "
                         f"{vectors!r:.60}")
    if got != count:
        raise ValueError(f"embedder returned {got} vector{'s' * (got != 1)} for {count} "
                         f"text{'s' * (count != 1)}")
    if not isinstance(vectors, np.ndarray):
        _check_lengths(vectors, dim)
    try:
        array = np.asarray(vectors)
    except (TypeError, ValueError):                 # e.g. a number that is a list
        array = np.asarray(vectors, dtype=object)
    if array.ndim != 2:
        raise ValueError(f"embedder returned vectors that are not flat sequences of numbers "
                         f"(an array of shape {array.shape})")
    width = array.shape[1]
    if dim is not None and width != dim:
        raise ValueError(f"vector 0 has {width} numbers, the index holds {dim}")
    if width == 0:
        raise ValueError("embedder returned vectors of no numbers")
    if array.dtype.kind not in "iuf":
        raise ValueError(f"embedder returned vectors holding {array.dtype} values, "
                         "expected numbers")
    array = array.astype(np.float64, copy=False)
    finite = np.isfinite(array)
    if not finite.all():
        row = int(np.flatnonzero(~finite.all(axis=1))[0])
        raise ValueError(f"vector {row} holds {float(array[row][~finite[row]][0])!r}")
    return array


def _length(vectors: object) -> int | None:
    """``len(vectors)`` for a sequence or array of vectors; None for anything else."""
    if isinstance(vectors, (str, bytes)) or not isinstance(vectors, (Sequence, np.ndarray)):
        return None
    return len(vectors)


def _check_lengths(vectors: Sequence, dim: int | None) -> None:
    """Every vector of a list is a sequence of ``dim`` numbers (of vector 0's, when
    ``dim`` is None); raise ValueError naming the first that is not."""
    want, of = dim, "the index holds"
    for i, vector in enumerate(vectors):
        length = _length(vector)
        if length is None:
            raise ValueError(f"vector {i} is not a sequence of numbers: {vector!r:.60}")
        if want is None:
            want, of = length, "vector 0 has"
        elif length != want:
            raise ValueError(f"vector {i} has {length} numbers, {of} {want}")


class DenseIndex:
    """Texts under increasing int keys, searched by cosine similarity of their vectors.

    ``embedder``: ``texts -> vectors`` (see :data:`Embedder`). ``add(key, text)`` embeds
    one text, ``extend(items)`` many in one embedder call; both are all-or-nothing: a
    bad key, an embedder that raises (its exception goes through) or returns wrong
    vectors (ValueError from :func:`check_vectors`) leave the index as it was. Vectors
    are kept L2-normalised in one growing array (its capacity doubles), so a search is
    one matrix-vector product. ``embed_calls`` counts the embedder calls that returned
    (adds and searches), ``embedded`` the texts they embedded; ``dim`` is the vectors'
    length (None until the first add). Raises TypeError for an ``embedder`` that is not
    callable.
    """

    def __init__(self, embedder: Embedder) -> None:
        if not callable(embedder):
            raise TypeError(f"embedder must be callable texts -> vectors, got {embedder!r:.60}")
        self.embedder = embedder
        self.keys: list[int] = []                 # position -> key
        self.dim: int | None = None
        self._vectors = np.zeros((0, 0))          # rows [:len(keys)] are in use
        self.embed_calls = 0
        self.embedded = 0

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, key: int, text: str) -> None:
        """Index ``text`` under ``key`` (an int greater than every key so far)."""
        self.extend([(key, text)])

    def extend(self, items: Iterable[tuple[int, str]]) -> None:
        """Index each ``(key, text)`` (keys increasing, above every key so far) with one
        embedder call; no call for no items. Raises ValueError for a bad key, TypeError
        for a text that is not a str, before the embedder is called."""
        items = list(items)
        last = self.keys[-1] if self.keys else None
        for key, text in items:
            if isinstance(key, bool) or not isinstance(key, int) or (last is not None and key <= last):
                raise ValueError(f"keys must be increasing ints; got {key!r} after {last}")
            if not isinstance(text, str):
                raise TypeError(f"text of key {key} must be a str, got "
                                f"{type(text).__name__}: {text!r:.60}")
            last = key
        if not items:
            return
        rows = self._embed([text for _, text in items])
        self._store(rows)
        self.keys += [key for key, _ in items]

    @property
    def vectors(self) -> np.ndarray:
        """The stored vectors, L2-normalised, one row per key in :attr:`keys` order, shape
        ``(len(self), dim)``: a read-only view (what a forget's scan reads)."""
        view = self._vectors[:len(self.keys)]
        view.flags.writeable = False
        return view

    def _embed(self, texts: list[str]) -> np.ndarray:
        """The texts' vectors, checked and L2-normalised (a zero vector stays zero)."""
        count = len(texts)                    # before the call: an embedder may empty it
        vectors = check_vectors(self.embedder(list(texts)), count, self.dim)
        self.embed_calls += 1
        self.embedded += count
        # scale each row by its largest magnitude first: the norm of [1e308, 1e308] overflows
        peaks = np.abs(vectors).max(axis=1, keepdims=True) if vectors.size else vectors
        vectors = np.divide(vectors, peaks, out=np.zeros_like(vectors), where=peaks > 0)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)

    def _store(self, rows: np.ndarray) -> None:
        """Put ``rows`` after the rows in use, doubling the capacity when it is short."""
        used, need = len(self.keys), len(self.keys) + len(rows)
        if self.dim is None or need > len(self._vectors):
            grown = np.zeros((max(need, 2 * len(self._vectors), 16), rows.shape[1]))
            if used:
                grown[:used] = self._vectors[:used]
            self._vectors, self.dim = grown, rows.shape[1]
        self._vectors[used:need] = rows

    def search(self, query: str, below: int | None = None, limit: int | None = None
               ) -> list[tuple[int, float]]:
        """``[(key, cosine similarity), ...]`` of the texts scoring > 0 on ``query``,
        best first (ties: the smaller key first; scores rounded to 12 decimals), only
        keys < ``below`` when given, at most ``limit`` (an int >= 0) when given. An
        empty index (or none below ``below``) gives [] without an embedder call. Raises
        TypeError / ValueError naming a bad ``query``, ``below`` or ``limit``, or
        ValueError for wrong vectors (see :func:`check_vectors`)."""
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}: {query!r:.60}")
        if below is not None and (isinstance(below, bool) or not isinstance(below, int)):
            raise TypeError(f"below must be an int or None, got {type(below).__name__}: "
                            f"{below!r:.60}")
        if limit is not None:
            check_int("limit", limit, 0)
        order, scores = self.ranked_positions(query, below, limit)
        return [(self.keys[p], float(scores[p])) for p in order.tolist()]

    def ranked_positions(self, query: str, below: int | None = None, limit: int | None = None):
        """:meth:`search` as arrays, for a caller that fuses rankings: ``(positions,
        scores)``, the positions (int64, index order: ``self.keys[p]`` is the key) of the
        texts scoring > 0, best first, and every text's rounded score below the cut.
        Arguments as :meth:`search`, checked by it."""
        cut = len(self.keys) if below is None else bisect.bisect_left(self.keys, below)
        if not cut or limit == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        scores = np.round(self._vectors[:cut] @ self._embed([query])[0], _DECIMALS)
        hits = np.flatnonzero(scores > 0)
        return hits[np.lexsort((hits, -scores[hits]))][:limit].astype(np.int64), scores

    def __repr__(self) -> str:
        return f"DenseIndex({len(self.keys)} texts, dim={self.dim}, embedder={self.embedder!r:.60})"


class CachedEmbedder:
    """An embedder that keeps each distinct text's vector: ``cached(texts)`` calls
    ``embedder`` once, on the texts it has not seen (each once, in first-seen order), and
    returns one vector per text as a float array of shape ``(len(texts), dim)``.

    Share one between indexes that see the same texts (a benchmark's strategies and
    budgets over one conversation): each turn and each question is embedded once. Keeps
    at most ``max_texts`` vectors (an int >= 1), the least recently used dropped first;
    thread-safe. ``calls`` counts the calls of ``embedder``, ``hits`` the texts found.
    The embedder's failures go through (nothing is kept from a failed call); its vectors
    are checked by :func:`check_vectors`. Raises TypeError for an ``embedder`` that is
    not callable, or ``texts`` that is not a list of str.
    """

    def __init__(self, embedder: Embedder, max_texts: int = 100_000) -> None:
        if not callable(embedder):
            raise TypeError(f"embedder must be callable texts -> vectors, got {embedder!r:.60}")
        self.embedder, self.max_texts = embedder, check_int("max_texts", max_texts, 1)
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.calls = self.hits = 0

    def __len__(self) -> int:
        return len(self._kept)

    def __call__(self, texts: list[str]) -> np.ndarray:
        if isinstance(texts, str) or not isinstance(texts, Sequence) \
                or not all(isinstance(t, str) for t in texts):
            raise TypeError(f"texts must be a list of str, got {texts!r:.80}")
        with self._lock:
            new = [t for t in dict.fromkeys(texts) if t not in self._kept]
            fresh = set(new)                    # a set: one lookup per text, not a scan
            self.hits += sum(t not in fresh for t in texts)
            if new:
                dim = len(next(iter(self._kept.values()))) if self._kept else None
                vectors = check_vectors(self.embedder(list(new)), len(new), dim)
                self.calls += 1
                for text, vector in zip(new, _compact(vectors)):
                    self._kept[text] = vector
            rows = [self._kept[t] for t in texts]
            for text in texts:
                self._kept.move_to_end(text)
            while len(self._kept) > self.max_texts:
                self._kept.popitem(last=False)
        return np.array(rows) if rows else np.zeros((0, 0))

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.embedder!r:.80}, {len(self._kept)} texts)"


_LOADING = threading.Lock()


def _compact(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` as float32 (half the memory), unless a number does not fit (1e300
    would become inf, 1e-300 zero): then as they are."""
    with np.errstate(over="ignore", under="ignore"):
        small = vectors.astype(np.float32)
    fits = np.isfinite(small).all() and np.array_equal(small == 0, vectors == 0)
    return small if fits else vectors


@functools.lru_cache(maxsize=1)
def _load() -> CachedEmbedder:
    return CachedEmbedder(OnnxEmbedder(), max_texts=20_000)


def _packaged() -> CachedEmbedder:
    with _LOADING:             # threads that ask at once share one load, not one each
        return _load()


def semantic_embedder() -> CachedEmbedder | None:
    """The packaged MiniLM (:class:`OnnxEmbedder` with its defaults, its digest checked),
    loaded once per process (thread-safe), behind one :class:`CachedEmbedder` (at most 20,000 texts,
    about 30 MB): every memory of the process embeds a text once. None when the
    ``semantic`` extra is not installed (see :data:`INSTALL_HINT`). Raises
    :class:`ModelUnavailable` when it is installed but cannot load (a runtime that fails
    to import, the kit's tokenizer file missing), ValueError when the installed model
    file is not the one the kit pins."""
    return _packaged() if semantic_available() else None


def resolve_embedder(embedder: object):
    """What an ``embedder=`` option means: ``"semantic"``, the packaged model
    (:func:`semantic_embedder`; raises :class:`ModelUnavailable` without the extra);
    ``"auto"``, that model when it is installed and loads, else None (a broken runtime
    falls back like a missing one; a model file with another digest still raises);
    anything else is returned as given. Raises ValueError for another str."""
    if not isinstance(embedder, str):
        return embedder
    if embedder not in ("semantic", "auto"):
        raise ValueError(f'embedder must be a callable, "semantic", "auto" or None, '
                         f"got {embedder!r:.60}")
    try:
        found = semantic_embedder()
    except ModelUnavailable:
        if embedder == "semantic":
            raise
        found = None
    if found is None and embedder == "semantic":
        raise ModelUnavailable(f"the semantic embedder needs the embedding runtime and "
                               f"model: {INSTALL_HINT}")
    return found
