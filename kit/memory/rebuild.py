"""Rebuild a running summary from the raw transcript, and show why you would.

A summary of a summary of a summary drifts (the "compounding loss" of the summary-memory
lesson): every re-summarise may drop a fact, and nothing brings it back. Keeping the raw
transcript (``kit.store``) lets you fold it again from the source instead.

- :func:`fold_spans`: cut turns into spans that fit a size limit, pairs kept whole.
- :func:`rebuild_summary`: fold the source turns span by span from an empty summary.
- :func:`resummarise`: the drifting alternative, re-summarising a summary N times.

Compare the two with :func:`kit.conversations.facts_in`. Sizes are in the measure's
unit (the ``tokens`` of each :class:`~kit.messages.Message`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from kit.memory.compaction import Compactor, SummaryUpdate, checked_update
from kit.messages import Message, span
from kit.prompts import SHORTEN_PROMPT, build_summary_prompt
from kit.validation import check_int

__all__ = ["fold_spans", "rebuild_summary", "resummarise"]


def fold_spans(turns: Sequence[Message], limit: int) -> list[list[Message]]:
    """Cut ``turns`` into consecutive spans whose sizes (sum of ``tokens``) are at most
    ``limit``, for a rebuild that folds span by span.

    A span only ends before a user message, so a question and its replies stay
    together; a span holds one such group alone when that group is over ``limit``. Returns new lists; raises TypeError/ValueError for a ``limit`` that is
    not an int >= 1.
    """
    check_int("limit", limit, 1)
    groups: list[list[Message]] = []          # a question and its replies
    for turn in turns:
        if groups and turn.role != "user":
            groups[-1].append(turn)
        else:
            groups.append([turn])
    spans: list[list[Message]] = []
    size = 0
    for group in groups:
        group_size = sum(m.tokens for m in group)
        if spans and size + group_size <= limit:
            spans[-1] += group
            size += group_size
        else:
            spans.append(list(group))
            size = group_size
    return spans


def rebuild_summary(compactor: Compactor, turns: Sequence[Message], limit: int
                    ) -> SummaryUpdate:
    """Fold ``turns`` span by span (:func:`fold_spans` with ``limit``) from an empty
    summary with ``compactor`` (the normal prompt, fallback and cap); return the last
    :class:`SummaryUpdate`, its note saying it was rebuilt. Changes nothing.

    Raises TypeError for turns that are not Messages (or one string), ValueError for
    no turns (both before any model call), and what :meth:`Compactor.compute` raises.
    """
    if isinstance(turns, (str, bytes)):
        raise TypeError(f"turns must be a list of Message, got {turns!r:.60}")
    turns = list(turns)
    if not turns:
        raise ValueError("rebuild_summary needs at least one turn, got none")
    build_summary_prompt("", turns)            # checks every turn before any model call
    summary, points, update = "", (), None
    spans = fold_spans(turns, limit)
    for part in spans:
        update = compactor.compute(summary, part, points)
        summary = update.text
        points = update.structured.open_points if update.structured else ()
    note = f"rebuilt from messages {span([m.number for m in turns])} in {len(spans)} folds"
    return replace(update, note=f"{note}; {update.note}" if update.note else note)


def resummarise(summary: str, model: Callable[[str], str], times: int,
                instructions: str = SHORTEN_PROMPT) -> list[str]:
    """Re-summarise ``summary`` ``times`` times, each pass fed the previous result;
    return the ``times`` results (what a summary of a summary of ... looks like).

    Each prompt is :func:`~kit.prompts.build_summary_prompt` with no new turns
    and ``instructions``. Raises TypeError/ValueError unless ``times`` is an int >= 0,
    TypeError/ValueError for a non-str or empty reply, and what the model raises.
    """
    check_int("times", times, 0)
    results = []
    for _ in range(times):
        summary = checked_update(model(build_summary_prompt(summary, [], instructions)),
                                 len, 0).text
        results.append(summary)
    return results
