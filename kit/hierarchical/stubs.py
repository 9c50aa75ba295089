"""Deterministic summarisers for map-reduce summarization: no model, no network.

Both read the entries back from the prompt with
:func:`kit.hierarchical.prompts.parse_batch_prompt`, so they see exactly what a real
model would be sent.

- :func:`first_sentence_summariser`: keeps the first sentence of each entry (shrinks
  until every entry is one sentence, then no more).
- :class:`ShrinkingStub`: keeps a fixed share of the words; ``ratio=1.0`` never
  shrinks, the case the reduce loop's termination rule exists for.
"""
from __future__ import annotations

import math
import re

from kit.hierarchical.prompts import parse_batch_prompt

__all__ = ["first_sentence_summariser", "ShrinkingStub"]

_SENTENCE = re.compile(r"(.+?[.!?])(?=\s|$)", re.S)


def _first_sentence(text: str) -> str:
    """The first sentence of ``text``, from its first non-space character (the whole
    text, stripped, if none). The leading white space is skipped before the match, not
    inside it: a pattern starting with ``\\s*`` was quadratic on a long run of spaces."""
    body = text.lstrip()
    match = _SENTENCE.match(body)
    if match:
        return match[1]
    if body[:1] in (".", "!", "?") and body != text and (len(body) == 1 or body[1].isspace()):
        return body[0]                           # a mark alone after the white space
    return text.strip()


def first_sentence_summariser(prompt: str) -> str:
    """Deterministic stub: the first sentence of each entry, joined by spaces.

    A sentence ends at ``.``, ``!`` or ``?`` followed by whitespace or the end (the whole
    text if none). Reads :func:`parse_batch_prompt`'s layout; ids are not repeated.
    """
    firsts = [_first_sentence(text) for _, text in parse_batch_prompt(prompt)]
    return " ".join(" ".join(f.split()) for f in firsts)


class ShrinkingStub:
    """Deterministic stub: the first ``ceil(ratio * words)`` words of the entries' texts.

    ``ratio`` in (0, 1]: 0.1 keeps a tenth of the words; 1.0 keeps them all (a summariser
    that does not shrink). ``calls`` counts calls. Raises ValueError for another ratio.
    """

    def __init__(self, ratio: float) -> None:
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
            raise ValueError(f"ratio must be a number in (0, 1], got {ratio!r}")
        self.ratio, self.calls = ratio, 0

    def __call__(self, prompt: str) -> str:
        self.calls += 1
        words = " ".join(text for _, text in parse_batch_prompt(prompt)).split()
        return " ".join(words[:math.ceil(self.ratio * len(words))])
