"""A static embedding table distilled from a sentence-embedding model (model2vec-style).

:class:`StaticEmbedder` runs the model once per word piece of its vocabulary (each piece
alone, between ``[CLS]`` and ``[SEP]``: about 30,000 short sequences, in batches) and keeps
the model's output vector at the piece's position as a table row, minus the mean row (the
direction every row shares, which would make every text look alike); a text's vector is
then the mean of its word pieces' rows, L2-normalised: no model run per text, so
thousands of texts a second, at the price of word order and context (the idea of
model2vec, Tulkens and van Dongen 2024, without its PCA and frequency weighting). A cheaper option for recall memory's dense ranking
(``benchmarks/memory_policy.py --embedder static``); docs/embeddings.md has its figures.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kit.ranking.onnx_embedder import OnnxEmbedder
from kit.validation import check_int

__all__ = ["StaticEmbedder"]


class StaticEmbedder:
    """``embedder(texts)``: a float32 array of shape ``(len(texts), dim)``, each row the
    mean of the text's word-piece vectors from the distilled table, L2-normalised (a
    text with no word piece is the zero vector).

    ``model``: the :class:`~kit.ranking.onnx_embedder.OnnxEmbedder` to distil (None: the
    packaged MiniLM; raises :class:`~kit.ranking.onnx_embedder.ModelUnavailable` without
    the ``semantic`` extra); ``batch_size``: word pieces per model run while distilling
    (>= 1). Raises TypeError for ``texts`` that is not a list of str.
    """

    def __init__(self, model: OnnxEmbedder | None = None, batch_size: int = 1024) -> None:
        check_int("batch_size", batch_size, 1)
        self.model = model if model is not None else OnnxEmbedder()
        self._tokenizer = self.model._tokenizer
        size = self._tokenizer.get_vocab_size()
        cls, sep = (self._tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]"))
        self.table = np.zeros((size, self.model.dim), dtype=np.float32)
        for start in range(0, size, batch_size):
            ids = np.array([[cls, p, sep] for p in range(start, min(size, start + batch_size))],
                           dtype=np.int64)
            self.table[start:start + len(ids)] = self.model.hidden(ids)[:, 1, :]
        self.table -= self.table.mean(axis=0)
        self.dim = self.model.dim

    def __call__(self, texts: list[str]) -> np.ndarray:
        if isinstance(texts, str) or not isinstance(texts, Sequence) \
                or not all(isinstance(t, str) for t in texts):
            raise TypeError(f"texts must be a list of str, got {texts!r:.80}")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, encoding in enumerate(self._tokenizer.encode_batch(list(texts),
                                                                    add_special_tokens=False)):
            if encoding.ids:
                out[row] = self.table[encoding.ids].mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=out, where=norms > 0)

    def __repr__(self) -> str:
        return f"StaticEmbedder({len(self.table)} word pieces, dim={self.dim}, from {self.model!r:.60})"
