"""Did a forget reach everywhere? Scan the raw files and every context for a secret.

Checked through queries alone, a forget looks complete when it is not: a deleted SQLite
row stays in the file's free pages and its write-ahead log, a Redis append-only file
keeps every command until it is rewritten, an edited summary keeps the secret in other
words. So the scan reads **bytes**: each store file (the database, its ``-wal``,
``-shm`` and ``-journal``; Redis's append-only files and ``.rdb`` snapshot) is searched
for the secret's UTF-8 bytes (composed or decomposed, in its usual cases), and every
**context** the chatbot can build afterwards (each memory's context for the secret as a
query and for no query) is searched as text, both sides folded
(:func:`kit.longterm.forget.fold`: NFKC, case folded, invisible characters dropped).
Stored embeddings are vectors, not text: a place "stored embeddings" is clean when no
stored vector is (cosine >= 0.99) the embedding of a text that held the secret
(:func:`vectors_hold`).

:func:`scan` reports place by place (:class:`Place`); :attr:`ScanReport.completeness`
is the share of places clean, the figure lesson 12's table shows.
"""
from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kit.longterm.forget import fold

__all__ = ["Place", "ScanReport", "scan", "sqlite_files", "redis_files", "file_holds",
           "vectors_hold"]

SIDE_FILES = ("", "-wal", "-shm", "-journal")


def sqlite_files(path: str | os.PathLike) -> list[str]:
    """The SQLite database at ``path`` and those of its side files that exist."""
    return [str(path) + side for side in SIDE_FILES if os.path.exists(str(path) + side)]


def redis_files(folder: str | os.PathLike) -> list[str]:
    """A Redis server's files under ``folder`` (its ``--dir``): every append-only file
    (``appendonly.aof`` or the ``appendonlydir`` parts) and every ``.rdb`` snapshot."""
    found = []
    for root, _dirs, names in os.walk(folder):
        found += [os.path.join(root, n) for n in sorted(names)
                  if ".aof" in n or n.endswith(".rdb")]
    return sorted(found)


def _spellings(secret: str) -> set[bytes]:
    """The UTF-8 bytes ``secret`` may be stored as: composed and decomposed (NFC, NFD),
    as typed, lower, upper, title and case-folded (ASCII case is ignored on top)."""
    cases = {secret, secret.lower(), secret.upper(), secret.title(), secret.casefold()}
    return {unicodedata.normalize(form, c).encode("utf-8").lower()
            for c in cases for form in ("NFC", "NFD")}


def file_holds(path: str, secret: str, whole_word: bool = False) -> bool:
    """True if the file's bytes contain ``secret`` (UTF-8, composed or decomposed, in any
    of its usual cases: :func:`_spellings`); with ``whole_word``, only where no ASCII
    letter or digit touches its own first or last letter or digit (:func:`_whole`: a
    short name inside a longer word, "eve" in "every", is not it). Linear in the file's
    size."""
    with open(path, "rb") as f:
        data = f.read().lower()
    if not whole_word:
        return any(spelling in data for spelling in _spellings(secret))
    return any(re.search(_whole(spelling), data) for spelling in _spellings(secret))


def _whole(spelling: bytes) -> bytes:
    """``spelling`` as a whole word: no ASCII letter or digit before it if it starts with
    one, none after it if it ends with one (a secret's own punctuation or space is its
    edge: "-eve" in "x-eve", "eve " in "eve x" are there)."""
    before = rb"(?<![a-z0-9])" if spelling[:1].isalnum() else b""
    after = rb"(?![a-z0-9])" if spelling[-1:].isalnum() else b""
    return before + re.escape(spelling) + after


def vectors_hold(vectors: np.ndarray, embedder: Callable[[list[str]], object],
                 texts: Sequence[str], threshold: float = 0.99) -> bool:
    """True if a row of ``vectors`` (stored embeddings, shape ``(n, dim)``) has cosine
    >= ``threshold`` with the embedding of one of ``texts`` (the texts that held the
    secret)."""
    if not len(texts) or not len(vectors):
        return False
    wanted = np.asarray(embedder(list(texts)), dtype=float)
    stored = np.asarray(vectors, dtype=float)

    def unit(m):
        norms = np.linalg.norm(m, axis=1, keepdims=True)
        return np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)
    return bool((unit(stored) @ unit(wanted).T >= threshold).any())


@dataclass(frozen=True)
class Place:
    """One place scanned: ``kind`` ("file", "context" or "vectors"), its ``name`` and
    whether it is ``clean`` (holds no trace of the secret)."""

    kind: str
    name: str
    clean: bool


@dataclass(frozen=True)
class ScanReport:
    """Every place scanned, in order."""

    places: tuple[Place, ...]

    @property
    def completeness(self) -> float:
        """Share of places clean (1.0 for no place: nothing to leak)."""
        return sum(p.clean for p in self.places) / len(self.places) if self.places else 1.0

    @property
    def leaks(self) -> list[str]:
        return [p.name for p in self.places if not p.clean]

    def rows(self) -> list[list[str]]:
        """``[kind, name, "clean" | "HOLDS IT"]`` per place, for a table."""
        return [[p.kind, p.name, "clean" if p.clean else "HOLDS IT"] for p in self.places]


def scan(secret: str, *, files: Iterable[tuple[str, str]] = (),
         contexts: Mapping[str, str] | None = None,
         vectors: Mapping[str, bool] | None = None) -> ScanReport:
    """Scan for ``secret`` (a non-empty str): ``files`` as ``(place name, path)``
    pairs (a path that does not exist is clean: nothing holds it), ``contexts`` as
    ``{place name: context text}``, ``vectors`` as ``{place name: holds}`` (see
    :func:`vectors_hold`). Raises ValueError for an empty secret."""
    if not isinstance(secret, str) or not secret.strip():
        raise ValueError(f"secret must be a non-empty str, got {secret!r:.60}")
    places = [Place("file", name, not (os.path.exists(path) and file_holds(path, secret)))
              for name, path in files]
    places += [Place("context", name, fold(secret) not in fold(text))
               for name, text in (contexts or {}).items()]
    places += [Place("vectors", name, not holds) for name, holds in (vectors or {}).items()]
    return ScanReport(tuple(places))
