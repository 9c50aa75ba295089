"""The prompts of summary memory and the layout of an incremental-update prompt.

- :data:`SUMMARY_PROMPT`: what a running summary must keep (seed 000: "the
  summarisation prompt must list what to preserve"); :data:`CARELESS_PROMPT`: the
  generic "summarise this" that loses ids and amounts.
- :data:`SHORTEN_PROMPT` / :data:`STRUCTURED_SHORTEN_PROMPT`: re-summarise a summary
  that passed its cap (seed 000 follow-up: "re-summarise the summary").
- :func:`build_summary_prompt`: instructions + current summary + new turns, the layout
  the stub summarisers of :mod:`kit.llm` read.
"""
from __future__ import annotations

from collections.abc import Sequence

from kit.llm import NO_SUMMARY, SUMMARY_HEADER, TURNS_HEADER
from kit.messages import Message, check_role, indent_continuation, render

__all__ = ["SUMMARY_PROMPT", "CARELESS_PROMPT", "SUMMARY_TITLE", "SHORTEN_PROMPT",
           "STRUCTURED_SHORTEN_PROMPT", "build_summary_prompt"]

SUMMARY_PROMPT = (
    "You maintain the running summary of a conversation. Rewrite the current summary so "
    "that it also covers the new turns. Keep, exactly as written: every name, number, "
    "order or account id, amount, date, decision, stated constraint (allergies, limits, "
    "must/never) and open question. Drop greetings and small talk. Use short factual "
    "clauses and nothing else."
)
CARELESS_PROMPT = "Summarise the conversation so far in a sentence or two."
SUMMARY_TITLE = "Summary of earlier conversation:"
SHORTEN_PROMPT = (
    "The current summary is too long. Shorten it, keeping every fact exactly as written: "
    "every name, number, order or account id, amount, date, decision, stated constraint "
    "and open question. Drop repetition and filler. There are no new turns."
)
STRUCTURED_SHORTEN_PROMPT = (
    SHORTEN_PROMPT + ' Reply with exactly one JSON object and nothing else: '
    '{"summary": "<non-empty string>", "open_points": ["<string>", ...]}, keeping '
    'every open point.'
)


def build_summary_prompt(summary: str, turns: Sequence[Message],
                         instructions: str = SUMMARY_PROMPT) -> str:
    """The incremental-update prompt: instructions, current summary, new turns.

    Layout (read by the stub summarisers in :mod:`kit.llm`)::

        <instructions>

        Current summary:
        <summary, or (none)>

        New turns:
        role: content
        ...

    Every line after the first of the summary and of each turn is indented by two
    spaces, so text inside them cannot pass for a header or a new turn. Raises
    TypeError for a non-str summary or instructions or turns that are not
    :class:`Message` objects, ValueError for a turn that is not user or assistant.
    """
    if not isinstance(summary, str):
        raise TypeError(f"summary must be a str ('' for none), got {summary!r:.60}")
    if not isinstance(instructions, str):
        raise TypeError(f"instructions must be a str, got {instructions!r:.60}")
    turns = list(turns)
    for turn in turns:
        if not isinstance(turn, Message):
            raise TypeError(f"turns must be kit.messages.Message objects (see make_message), "
                            f"got {turn!r:.60}")
        check_role(turn.role)
    return (f"{instructions}\n\n{SUMMARY_HEADER}{indent_continuation(summary) or NO_SUMMARY}"
            f"\n\n{TURNS_HEADER}{render(turns)}")
