"""Ranking helpers shared by memory and RAG, below both (the layers: ranking is layer 0).

- :mod:`kit.ranking.fusion`: reciprocal rank fusion, :func:`rrf` (optionally weighted).
- :mod:`kit.ranking.bm25`: an incremental BM25 index (:class:`BM25Index`) with Bo1
  pseudo-relevance feedback, its tokenizer and light stemmer.
- :mod:`kit.ranking.dates`: relative time ("last week", "yesterday") resolved against
  a session date (:func:`resolve_times`, :func:`annotate`, :func:`parse_session_date`).
- :mod:`kit.ranking.dense`: the dense-retrieval interface (``embed(texts) -> vectors``),
  an incremental ``DenseIndex``, a deterministic ``HashingEmbedder`` for tests, a
  ``CachedEmbedder`` and the real model (imported from there: it needs numpy at import).
- :mod:`kit.ranking.onnx_embedder`: ``OnnxEmbedder``, a sentence-embedding model in ONNX
  form run offline (by default the packaged all-MiniLM-L6-v2; ``onnxruntime`` and
  ``tokenizers`` imported only when a model is loaded).
- :mod:`kit.ranking.hybrid`: ``hybrid_rank``, a dense and a BM25 ranking fused by rank.
"""
from kit.ranking.bm25 import BM25Index, light_stem, recall_tokenize
from kit.ranking.dates import TimeRef, annotate, parse_session_date, resolve_times
from kit.ranking.fusion import check_k_rrf, rrf

__all__ = ["rrf", "check_k_rrf", "BM25Index", "light_stem", "recall_tokenize", "TimeRef",
           "annotate", "parse_session_date", "resolve_times"]
