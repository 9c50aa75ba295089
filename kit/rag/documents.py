"""Documents for retrieval: the chunk type.

A :class:`Chunk` is the unit a retriever returns and a prompt numbers ``[1]``, ``[2]``...
(seed 004, "Build an end-to-end chatbot with memory, RAG, and evaluation pipeline").
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Chunk"]


@dataclass(frozen=True)
class Chunk:
    """One retrievable passage: ``id`` (unique str), ``text`` (str), ``source`` (the file
    or article it came from, str)."""

    id: str
    text: str
    source: str
