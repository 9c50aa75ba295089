"""Citation tracking: number the chunks the model sees, then read its ``[n]`` markers back.

The generator is shown a context block with numbered chunks (:func:`number_chunks`)::

    [1] Refunds for prepaid orders take 5 working days.

    [2] Cash-on-delivery refunds are paid as store credit.

and must cite ``[n]``. :func:`parse_citations` maps every marker in its answer back to the
chunk it names (citation tracking, as in the end-to-end chatbot lesson).

What counts as a citation marker (decided here, tested in tests/test_citations.py):

- ``[1]``, adjacent ``[1][2]``, grouped ``[1, 2]`` / ``[1,2]``: each number is one marker.
- Not citations, ignored: ``[x]`` or any bracket that is not a list of whole numbers
  (``[1-2]``, ``[1.5]``); a markdown link ``[1](https://...)``; footnote syntax
  ``[^1]`` (the prompt asks for ``[n]``, and a footnote points at a footnote, not at a
  shown chunk); anything inside inline code `` `a[0]` `` or a fenced code block; and a
  bracket glued to a word, ``)`` or ``]`` that does not start a run of markers
  (``a[0]``, ``items[1][2]``, ``f(x)[1]``), which is indexing. The last rule errs on the
  safe side: ``days[1]`` (no space) is ignored, so an answer cited only that way has no
  citation and is refused, rather than code like ``items[1]`` passing for a citation.
- A marker whose number names no shown chunk (``[0]``, or ``n`` > number of chunks) is
  *invalid*: listed in :attr:`CitationResult.invalid`, never mapped to a chunk.
  A number of more than 9 digits (leading zeros aside) is read as :data:`TOO_BIG` (10**9, no chunk has it), so
  a hostile ``[999...9]`` of thousands of digits is invalid instead of crashing ``int``.

Valid citations are de-duplicated by marker, in first-seen order.

A marker means something only next to the chunks of its own turn: ``[1]`` is this
turn's first chunk, and the next turn numbers its chunks from 1 again. So an answer
kept for later (in a conversation's memory) is rewritten by :func:`markers_to_ids`:
each run of markers becomes the ids of the chunks it cites, ``days [1].`` ->
``days (source: c1).``, ``[1][2]`` -> ``(sources: c1, c2)``. Parentheses, not brackets:
the history must not look like the ``[n]`` citations the model is asked to write (and
an id made of digits in brackets would read as a marker).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kit.messages import indent_continuation

__all__ = ["Citation", "CitationResult", "number_chunks", "parse_citations", "find_markers",
           "markers_to_ids"]

# Code spans and fenced blocks are blanked out before markers are searched.
_FENCED = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE = re.compile(r"`[^`\n]*`")
# A run of adjacent bracket groups of whole numbers, e.g. "[1]", "[1][2]", "[1, 2]".
# Not a citation when glued to a word, ")" or "]" (indexing) or followed by "(" (a link).
_GROUP = r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]"
_RUN = re.compile(rf"(?<![\w\])])((?:{_GROUP})+)(?!\(|{_GROUP})")
_NUMBER = re.compile(r"\d+")
TOO_BIG = 10 ** 9


def _number(digits: str) -> int:
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 9 else TOO_BIG


@dataclass(frozen=True)
class Citation:
    """One valid citation: ``marker`` (the n of ``[n]``, 1-based), the cited chunk's
    ``chunk_id`` and its ``source``."""

    marker: int
    chunk_id: str
    source: str


@dataclass(frozen=True)
class CitationResult:
    """What :func:`parse_citations` found in an answer.

    ``citations``: valid citations, one per marker, in first-seen order;
    ``invalid``: marker numbers that name no shown chunk (0 or > ``shown``),
    de-duplicated, first-seen order; ``shown``: how many chunks the model was shown.
    """

    citations: tuple[Citation, ...]
    invalid: tuple[int, ...]
    shown: int

    @property
    def chunk_ids(self) -> tuple[str, ...]:
        """Ids of the cited chunks, de-duplicated, first-seen order."""
        return tuple(dict.fromkeys(c.chunk_id for c in self.citations))

    @property
    def sources(self) -> tuple[str, ...]:
        """Sources of the cited chunks, de-duplicated, first-seen order."""
        return tuple(dict.fromkeys(c.source for c in self.citations))

    @property
    def markers(self) -> tuple[int, ...]:
        """Valid marker numbers, first-seen order."""
        return tuple(c.marker for c in self.citations)


def _check_chunks(chunks: Sequence[object]) -> list:
    if isinstance(chunks, (str, bytes)):
        raise TypeError(f"chunks must be a list of Chunk objects, not one string: {chunks!r:.60}")
    chunks = list(chunks)
    for i, chunk in enumerate(chunks, 1):
        if not all(isinstance(getattr(chunk, a, None), str) for a in ("id", "text", "source")):
            raise TypeError(f"chunk {i} must have str id, text and source (kit.rag.Chunk), "
                            f"got {chunk!r:.60}")
    return chunks


def number_chunks(chunks: Sequence[object]) -> str:
    """The context block: ``[1] text``, ``[2] text``..., separated by a blank line.

    Further lines of a multi-line chunk are indented by two spaces, so no chunk text
    can start a line that looks like another ``[n]``. Returns "" for no chunks. Raises
    TypeError for items without str ``id``, ``text`` and ``source``.
    """
    chunks = _check_chunks(chunks)
    return "\n\n".join(f"[{n}] {indent_continuation(c.text.strip())}"
                       for n, c in enumerate(chunks, 1))


def _blank(match: re.Match) -> str:
    return " " * len(match.group(0))


def _runs(answer: str) -> list[tuple[int, int, list[int]]]:
    """(start, end, marker numbers) of every run of markers in ``answer``, in order;
    code spans are skipped (blanked with spaces, so positions stay those of ``answer``)."""
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a str, got {type(answer).__name__}: {answer!r:.60}")
    text = _INLINE.sub(_blank, _FENCED.sub(_blank, answer))
    return [(run.start(1), run.end(1), [_number(n) for n in _NUMBER.findall(run.group(1))])
            for run in _RUN.finditer(text)]


def find_markers(answer: str) -> list[int]:
    """Every citation marker number in ``answer``, in order, repeats kept.

    ``"a [1][2], b [2, 3], c[4] [x] [5](url)"`` -> ``[1, 2, 2, 3]``. See the module
    docstring for what is ignored. Raises TypeError for a non-str answer.
    """
    return [n for _, _, numbers in _runs(answer) for n in numbers]


def markers_to_ids(answer: str, chunks: Sequence[object]) -> str:
    """``answer`` with each run of citation markers replaced by the ids it cites.

    ``chunks``: the chunks the answer was written from, in prompt order (marker n is
    ``chunks[n - 1]``). One cited chunk gives ``(source: <id>)``, several give
    ``(sources: <id>, <id>)``, de-duplicated in first-seen order:
    ``"5 days [1]. Credit [2][1]."`` -> ``"5 days (source: c1). Credit (sources: c2, c1)."``.
    Everything else is kept character for character, including brackets that are not
    markers (see the module docstring) and a run holding a number that names no shown
    chunk (the guardrail refuses such a draft, so the chatbot never stores one).
    Raises TypeError for a non-str answer or chunks without str ``id``, ``text`` and
    ``source``.
    """
    chunks = _check_chunks(chunks)
    parts, done = [], 0
    for start, end, numbers in _runs(answer):
        if not all(1 <= n <= len(chunks) for n in numbers):
            continue
        ids = list(dict.fromkeys(chunks[n - 1].id for n in numbers))
        label = "source" if len(ids) == 1 else "sources"
        parts += [answer[done:start], f"({label}: {', '.join(ids)})"]
        done = end
    return "".join(parts) + answer[done:]


def parse_citations(answer: str, chunks: Sequence[object]) -> CitationResult:
    """Map the ``[n]`` markers of ``answer`` to the numbered ``chunks`` it was shown.

    ``chunks``: the list given to :func:`number_chunks`, in the same order (marker n is
    ``chunks[n - 1]``). Returns a :class:`CitationResult`: valid citations and invalid
    markers, each de-duplicated in first-seen order. Raises TypeError for a non-str
    answer or chunks without str ``id``, ``text`` and ``source``.
    """
    chunks = _check_chunks(chunks)
    valid: dict[int, Citation] = {}
    invalid: dict[int, None] = {}
    for n in find_markers(answer):
        if 1 <= n <= len(chunks):
            if n not in valid:
                valid[n] = Citation(n, chunks[n - 1].id, chunks[n - 1].source)
        else:
            invalid.setdefault(n)
    return CitationResult(tuple(valid.values()), tuple(invalid), len(chunks))
