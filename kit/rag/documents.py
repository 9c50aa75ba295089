"""Documents for retrieval: the chunk type, Markdown chunking and the help-centre corpus.

A :class:`Chunk` is the unit a retriever returns and a prompt numbers ``[1]``, ``[2]``...
(the end-to-end chatbot lesson).

Chunking (:func:`chunk_markdown`) splits a Markdown text at its headings, then packs the
paragraphs of each section into chunks of at most ``max_words`` words (whitespace-separated
words; a paragraph longer than the cap is split at sentence ends, a sentence longer than
the cap at word boundaries). Each chunk starts with its section's heading on a line of its
own, so a chunk read alone still says what it is about. Ids are ``<stem>-NN``: the slug of
the source's file stem and a two-digit, 1-based counter, so ``refunds.md`` gives
``refunds-01``, ``refunds-02``... The same text always gives the same ids; editing a file
renumbers the chunks after the edit (the gold set's test catches that).

The shipped corpus (:func:`load_corpus`) is a made-up shop's help centre in
``kit/data/helpcentre/*.md``: refunds (prepaid and cash-on-delivery), shipping, returns,
warranty, account and payments, with near-duplicates on purpose (an archived refund
policy beside the current one, a FAQ restating the articles) and distractors that use
"refund" in another sense (gift cards, loyalty points, the warranty plan).

The gold set of questions over this corpus is loaded by :mod:`kit.rag.goldset`.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePath

from kit.validation import check_int

__all__ = ["Chunk", "MAX_WORDS", "chunk_markdown", "load_markdown", "load_corpus",
           "seed_chunks", "check_chunks", "shipped_file"]

MAX_WORDS = 80  # words per chunk, heading line not counted

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Chunk:
    """One retrievable passage: ``id`` (unique str), ``text`` (str), ``source`` (the file
    or article it came from, str)."""

    id: str
    text: str
    source: str


def seed_chunks() -> list[Chunk]:
    """The two chunks of the worked example of the end-to-end chatbot lesson (both from
    ``refunds.md``): c1 on prepaid refunds, c2 on cash-on-delivery refunds. Kept verbatim
    so the lesson's trace (turn 1 retrieves c1, c2; the rewritten turn 2 retrieves c2 only)
    reproduces."""
    return [Chunk("c1", "Refunds for prepaid orders take 5 working days.", "refunds.md"),
            Chunk("c2", "Cash-on-delivery refunds are paid as store credit.", "refunds.md")]


def _slug(source: str) -> str:
    stem = PurePath(source).stem.lower()
    return re.sub(r"[^a-z0-9]+", "-", stem).strip("-")


def _heading(line: str) -> str | None:
    """The title of an ATX heading line (stripped), or None: one to six ``#``, white
    space, the title, then optional closing ``#``s and white space, which are dropped
    ("## Refunds ##" -> "Refunds"). A loop, not a regex: the regex with three adjacent
    optional runs was cubic on a heading line full of spaces."""
    hashes = len(line) - len(line.lstrip("#"))
    if not 1 <= hashes <= 6 or not line[hashes:hashes + 1].isspace():
        return None
    return line[hashes:].strip().rstrip("#").rstrip()


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """[(heading title, [paragraph, ...]), ...] in text order; lines of a paragraph are
    joined with spaces; text before the first heading has the title ""."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    lines: list[str] = []

    def end_paragraph() -> None:
        if lines:
            sections[-1][1].append(" ".join(lines))
            lines.clear()

    for raw in text.splitlines():
        line = raw.strip()
        title = _heading(line)
        if title is not None:
            end_paragraph()
            sections.append((title, []))
        elif line:
            lines.append(line)
        else:
            end_paragraph()
    end_paragraph()
    return [(title, paragraphs) for title, paragraphs in sections if paragraphs]


def _pieces(paragraph: str, max_words: int) -> list[str]:
    """The paragraph itself if it fits, else its sentences, else word runs, each fitting."""
    if len(paragraph.split()) <= max_words:
        return [paragraph]
    pieces = []
    for sentence in _SENTENCE_END.split(paragraph):
        words = sentence.split()
        pieces += [" ".join(words[i:i + max_words]) for i in range(0, len(words), max_words)]
    return pieces


def _join(group: list[tuple[int, str]]) -> str:
    """Pieces of one chunk: a space within a paragraph, a blank line between paragraphs."""
    body = group[0][1]
    for (p_before, _), (p, piece) in zip(group, group[1:]):
        body += (" " if p == p_before else "\n\n") + piece
    return body


def chunk_markdown(text: str, source: str, max_words: int = MAX_WORDS) -> list[Chunk]:
    """Split Markdown ``text`` into chunks of at most ``max_words`` body words each.

    Sections start at ATX headings (``#`` to ``######``); within a section, pieces
    (paragraphs, or their sentences when a paragraph is over the cap) are packed greedily
    in order; paragraphs in one chunk are separated by a blank line. Each chunk's text is
    ``"<heading>\\n<body>"`` (just the body before the first heading). Ids are
    ``<slug of source stem>-NN`` from 01. Code fences and tables are not treated
    specially. Raises TypeError for a non-str text or source, ValueError for an empty
    source, a source with no usable stem, or a text with no body text (naming the source).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}: {text!r:.60}")
    if not isinstance(source, str):
        raise TypeError(f"source must be a str, got {type(source).__name__}: {source!r:.60}")
    check_int("max_words", max_words, 1)
    stem = _slug(source)
    if not stem:
        raise ValueError(f"source must name a file such as 'refunds.md', got {source!r}")
    bodies: list[tuple[str, str]] = []
    for title, paragraphs in _sections(text):
        groups: list[list[tuple[int, str]]] = [[]]  # chunks as [(paragraph number, piece)]
        size = 0
        for p, paragraph in enumerate(paragraphs):
            for piece in _pieces(paragraph, max_words):
                words = len(piece.split())
                if groups[-1] and size + words > max_words:
                    groups.append([])
                    size = 0
                groups[-1].append((p, piece))
                size += words
        bodies += [(title, _join(group)) for group in groups]
    if not bodies:
        raise ValueError(f"no text to chunk in {source!r}")
    return [Chunk(f"{stem}-{n:02d}", f"{title}\n{body}" if title else body, source)
            for n, (title, body) in enumerate(bodies, start=1)]


def load_markdown(path_or_text: str | os.PathLike, source: str | None = None,
                  max_words: int = MAX_WORDS) -> list[Chunk]:
    """Chunks of one Markdown document: a file (``pathlib.Path`` or other path-like; its
    name is the default ``source``) or the Markdown text itself (a ``str``; ``source`` is
    then required). See :func:`chunk_markdown` for the chunking and ids.

    Raises FileNotFoundError naming a missing file, TypeError for a ``str`` that looks like
    a file path (pass ``Path(...)`` to read a file), ValueError for text without a source.
    """
    if isinstance(path_or_text, os.PathLike):
        path = Path(path_or_text)
        if not path.is_file():
            raise FileNotFoundError(f"no Markdown file at {str(path)!r}")
        return chunk_markdown(path.read_text(encoding="utf-8"), source or path.name, max_words)
    if not isinstance(path_or_text, str):
        raise TypeError("path_or_text must be a pathlib.Path or Markdown text (str), got "
                        f"{type(path_or_text).__name__}: {path_or_text!r:.60}")
    if re.fullmatch(r"\S+\.(md|markdown)", path_or_text.strip()):
        raise TypeError(f"{path_or_text!r} looks like a file path; pass "
                        f"pathlib.Path({path_or_text!r}) to read the file")
    if source is None:
        raise ValueError("source is required when passing Markdown text, e.g. 'refunds.md'")
    return chunk_markdown(path_or_text, source, max_words)


def check_chunks(chunks: Iterable[Chunk], existing: Iterable[str] = ()) -> list[Chunk]:
    """Return ``chunks`` as a list after checking each is a :class:`Chunk` with a non-empty
    str id and non-blank text, and that no id repeats (within ``chunks`` or against the
    ``existing`` ids). Raises TypeError / ValueError naming the bad chunk or id."""
    if isinstance(chunks, (str, Chunk)):
        raise TypeError(f"chunks must be a list of Chunk, got one {type(chunks).__name__}: "
                        f"{chunks!r:.60}")
    seen, out = set(existing), []
    for i, chunk in enumerate(chunks):
        if not isinstance(chunk, Chunk):
            raise TypeError(f"chunk {i} must be a Chunk, got {type(chunk).__name__}: "
                            f"{chunk!r:.60}")
        if not isinstance(chunk.id, str) or not chunk.id:
            raise ValueError(f"chunk {i} needs a non-empty str id, got {chunk.id!r}")
        if not isinstance(chunk.text, str) or not chunk.text.strip():
            raise ValueError(f"chunk {chunk.id!r} has no text: {chunk.text!r:.60}")
        if chunk.id in seen:
            raise ValueError(f"duplicate chunk id {chunk.id!r}")
        seen.add(chunk.id)
        out.append(chunk)
    return out


def shipped_file(name: str):
    """A file or directory shipped in ``kit/data``, as an ``importlib.resources``
    Traversable (``.read_text()``, ``.iterdir()``; it works from an installed wheel too):
    ``shipped_file("helpcentre")`` is the corpus directory."""
    return resources.files("kit") / "data" / name


def load_corpus(directory: str | os.PathLike | None = None,
                max_words: int = MAX_WORDS) -> list[Chunk]:
    """Chunks of every ``*.md`` file in ``directory`` (not recursive), files in name
    order; default: the shipped help centre ``kit/data/helpcentre`` (55 chunks from 10
    files), read with ``importlib.resources``. Raises FileNotFoundError naming a missing
    directory, ValueError for a directory without Markdown files or a repeated id."""
    if directory is None:
        root = shipped_file("helpcentre")
    else:
        root = Path(directory)
        if not root.is_dir():
            raise FileNotFoundError(f"no corpus directory at {str(root)!r}")
    files = sorted((f for f in root.iterdir() if f.name.endswith(".md")), key=lambda f: f.name)
    if not files:
        raise ValueError(f"no .md files in {str(root)!r}")
    chunks = [chunk for f in files
              for chunk in chunk_markdown(f.read_text(encoding="utf-8"), f.name, max_words)]
    return check_chunks(chunks)

