"""The prompts of summary memory and the layout of an incremental-update prompt, written
and read in one place.

- :data:`SUMMARY_PROMPT`: what a running summary must keep (the instructions list what
  to preserve); :data:`CARELESS_PROMPT`: the generic "summarise this" that loses ids and
  amounts.
- :data:`SHORTEN_PROMPT` / :data:`STRUCTURED_SHORTEN_PROMPT`: re-summarise a summary
  that passed its cap.
- :func:`build_summary_prompt` writes the layout: instructions, the current summary,
  the new turns; :func:`parse_summary_turns` and :func:`parse_summary_prompt` read it
  back (the stub summarisers of :mod:`kit.llm` use them, as a real model reads the text).

This module sits at the bottom of the kit (it needs only :mod:`kit.messages`), so both
the models and the memories can use it.
"""
from __future__ import annotations

from collections.abc import Sequence

from kit.messages import Message, check_role, indent_continuation, render

__all__ = ["SUMMARY_PROMPT", "CARELESS_PROMPT", "SUMMARY_TITLE", "SHORTEN_PROMPT",
           "STRUCTURED_SHORTEN_PROMPT", "SUMMARY_HEADER", "TURNS_HEADER", "NO_SUMMARY",
           "build_summary_prompt", "parse_summary_prompt", "parse_summary_turns",
           "DECOMPOSE_PROMPT", "QUESTION_HEADER"]

SUMMARY_HEADER = "Current summary:\n"
TURNS_HEADER = "New turns:\n"
NO_SUMMARY = "(none)"

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

QUESTION_HEADER = "Question:\n"
DECOMPOSE_PROMPT = (
    "Split the question into the simpler questions a search of a conversation's "
    "transcript needs to answer it: one per line, at most four, each naming the people "
    "and things it asks about. A simple question stays one line. Reply with the lines "
    "and nothing else."
)


def build_summary_prompt(summary: str, turns: Sequence[Message],
                         instructions: str = SUMMARY_PROMPT) -> str:
    """The incremental-update prompt: instructions, current summary, new turns.

    Layout (read back by :func:`parse_summary_turns`)::

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


def parse_summary_prompt(prompt: str) -> tuple[str, list[str]]:
    """Split a summary prompt into (current summary, list of new turn contents).

    :func:`parse_summary_turns` without the roles. The current summary is "" when the
    prompt says ``(none)``. Raises TypeError for a non-str prompt, ValueError if either
    header line is missing.
    """
    summary, turns = parse_summary_turns(prompt)
    return summary, [content for _, content in turns]


def parse_summary_turns(prompt: str) -> tuple[str, list[tuple[str, str]]]:
    """Split a summary prompt into (current summary, list of ``(role, content)`` pairs).

    Reads the layout of :func:`build_summary_prompt`: headers and
    turns start at column 0, and further lines of a summary or turn are indented by two
    spaces (so user text cannot fake a header or a turn). A turn line is ``user: ...``
    or ``assistant: ...``; the role is "user" or "assistant". The current summary is ""
    when the prompt says ``(none)``. Raises TypeError for a non-str prompt, ValueError
    if either header line is missing.
    """
    if not isinstance(prompt, str):
        raise TypeError(f"a summary prompt is a str, got {type(prompt).__name__}: {prompt!r:.60}")
    lines = prompt.split("\n")
    summary_at = _last_line(lines, SUMMARY_HEADER.strip())
    turns_at = _last_line(lines, TURNS_HEADER.strip())
    if summary_at is None or turns_at is None or turns_at < summary_at:
        raise ValueError(f"not a summary prompt (needs the lines {SUMMARY_HEADER.strip()!r} "
                         f"then {TURNS_HEADER.strip()!r}): {prompt[:60]!r}")
    summary = _dedent(lines[summary_at + 1:turns_at]).strip()
    turns: list[tuple[str, list[str]]] = []              # lines joined once, at the end
    for line in lines[turns_at + 1:]:
        role, sep, text = line.partition(": ")
        if sep and role in ("user", "assistant"):
            turns.append((role, [text]))                 # a new turn
        elif turns and line.startswith("  "):            # the next line of a multi-line
            turns[-1][1].append(line[2:])                # message
    return (("" if summary == NO_SUMMARY else summary),
            [(role, "\n".join(parts)) for role, parts in turns])


def _last_line(lines: list[str], wanted: str) -> int | None:
    found = [i for i, line in enumerate(lines) if line == wanted]
    return found[-1] if found else None


def _dedent(lines: list[str]) -> str:
    return "\n".join(line[2:] if line.startswith("  ") else line for line in lines)
