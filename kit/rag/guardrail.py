"""Output guardrail: no valid citation, no answer.

The generator must cite the numbered chunks it was shown (:mod:`kit.rag.citations`), one of
the "output guardrails" of the end-to-end chatbot lesson. :func:`check_citations` lets a
draft through only if

- it is not empty,
- it cites at least one shown chunk (a valid ``[n]``), and
- it cites nothing else: **no invalid marker** (``[0]``, or ``[n]`` past the last chunk).

Otherwise the user gets the fixed :data:`REFUSAL` text instead of the draft.

Why refuse a draft that mixes valid and invalid markers, instead of deleting the
invalid ones? An invalid marker means the model cited something it was not shown: it
numbered a source from memory, or miscounted. Either way the sentence it sits on is
not backed by a shown chunk, and the valid markers elsewhere say nothing about that
sentence. Stripping the marker would hide the evidence and pass an unsupported claim;
a refusal is the cautious answer, and the trace's reason (``"invalid marker [3] ..."``)
tells the developer which prompt or model to fix. The guardrail checks citations
only: it does not judge whether the cited chunk supports the sentence (that is
groundedness, measured by an evaluation judge).
"""
from __future__ import annotations

from dataclasses import dataclass

from kit.rag.citations import CitationResult

__all__ = ["REFUSAL", "GuardrailResult", "check_citations", "refuse"]

REFUSAL = "I could not answer that from our help articles."


@dataclass(frozen=True)
class GuardrailResult:
    """``passed``: the draft may be shown; ``answer``: what the user sees (the stripped
    draft if passed, else :data:`REFUSAL`); ``reason``: why, in words."""

    passed: bool
    answer: str
    reason: str


def refuse(reason: str) -> GuardrailResult:
    """A failed check: the :data:`REFUSAL` text and ``reason`` (a non-empty str).
    Raises ValueError for an empty reason."""
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError(f"a refusal needs a reason, got {reason!r}")
    return GuardrailResult(False, REFUSAL, reason)


def _markers(numbers: tuple[int, ...]) -> str:
    return " ".join(f"[{n}]" for n in numbers)


def check_citations(draft: str, citations: CitationResult) -> GuardrailResult:
    """Pass ``draft`` only if it cites a shown chunk and no unshown one.

    ``citations``: :func:`kit.rag.citations.parse_citations` of this draft against the
    chunks it was shown. Returns a :class:`GuardrailResult`; reasons read like
    ``"cites [1] -> c1"``, ``"no citation"``, ``"invalid marker [3]: only 2 chunks were
    shown"``. Raises TypeError for a non-str draft or a ``citations`` that is not a
    :class:`CitationResult`.
    """
    if not isinstance(draft, str):
        raise TypeError(f"draft must be a str, got {type(draft).__name__}: {draft!r:.60}")
    if not isinstance(citations, CitationResult):
        raise TypeError(f"citations must be a CitationResult (see parse_citations), "
                        f"got {citations!r:.60}")
    if not draft.strip():
        return refuse("empty answer")
    if citations.invalid:
        plural = "s" if len(citations.invalid) > 1 else ""
        return refuse(f"invalid marker{plural} {_markers(citations.invalid)}: only "
                      f"{citations.shown} chunk{'s' if citations.shown != 1 else ''} "
                      f"{'were' if citations.shown != 1 else 'was'} shown")
    if not citations.citations:
        return refuse("no citation")
    cited = ", ".join(f"[{c.marker}] -> {c.chunk_id}" for c in citations.citations)
    return GuardrailResult(True, draft.strip(), f"cites {cited}")
