"""Starter for the drill citations-guardrail: write your answer, then check it with

    .venv/bin/python -m kit drill citations-guardrail <this file>

(from the repository root; `python -m kit drill ...` with the environment active).
The spec, hints and follow-ups are in the notebook notebooks/drills/05_citations_guardrail.ipynb (your copy: work/drills/05_citations_guardrail.ipynb)."""

import re

from kit.rag import REFUSAL


def guarded_answer(draft, chunks):
    """Read the [n] markers of draft and apply the citation guardrail.

    draft: the model's answer (str). chunks: the kit.rag.Chunk objects it was shown, in
    prompt order; marker [n] names chunks[n - 1]. Markers: [1], [1, 2], [2,1], [ 1 ] and
    adjacent [1][2]; other brackets are not markers.
    Returns (draft.strip(), cited ids: each once, first-seen order, a list) if the draft is
    not blank, cites a shown chunk and every marker names one (1 <= n <= len(chunks));
    else (REFUSAL, []). Linear in len(draft); never raises on a str; chunks unchanged.
    """
    raise NotImplementedError("Exercise: write your answer here")
