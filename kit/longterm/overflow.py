"""What overflows the interview context: the prompt that folds it, a stub, the rules.

Source: the FEMentor write-up (older turns are compressed into ``{summary, open_points}``,
capped at about 900 characters; when the model fails, rule-based fallbacks built from the
topics, strengths and weaknesses keep the interview going).

- :func:`build_overflow_prompt`: the instructions, the current summary (if any) and the
  turns to fold, as JSON; :func:`read_overflow_prompt` and
  :func:`read_overflow_summary` read them back (for stub models and tests).
- :func:`interview_summary_stub`: a deterministic prompt model that answers it.
- :func:`rule_based_summary`: the fallback, built from scores and labels, no model.

Sizes are in characters. :func:`kit.longterm.build_interview_context` uses all three.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from kit.longterm.session import MAX_SCORE, InterviewTurn, as_turns, turn_to_dict
from kit.structured import StructuredSummary, parse_structured_summary

__all__ = ["INTERVIEW_SUMMARY_PROMPT", "TURNS_MARKER", "SUMMARY_MARKER", "FOLLOW_UP_BELOW",
           "DEFAULT_SUMMARY_CAP_CHARS", "build_overflow_prompt", "read_overflow_prompt",
           "read_overflow_summary", "interview_summary_stub", "rule_based_summary", "turn_span"]

DEFAULT_SUMMARY_CAP_CHARS = 900
FOLLOW_UP_BELOW = 6        # a turn scored below this (out of 10) leaves an open point
TURNS_MARKER = "Earlier turns (JSON, oldest first):"
SUMMARY_MARKER = "Current summary (JSON):"

INTERVIEW_SUMMARY_PROMPT = (
    "You compress the earlier part of a mock technical interview so the interviewer can "
    "go on without rereading it. Reply with exactly one JSON object and nothing else:\n"
    '{"summary": "<non-empty string>", "open_points": ["<string>", ...]}\n'
    "In summary keep, for every turn: its number, topic and score, the weaknesses and "
    "strengths it showed, and every fact about the candidate's projects. In open_points "
    "list what the interviewer should still follow up: questions answered weakly or not "
    "at all, oldest first. If a current summary is given, it covers the turns before "
    "these: rewrite it so that it also covers them, keep its facts and carry its open "
    "points forward, removing one only when a turn below answered it. Stay under 900 "
    "characters in total."
)


def build_overflow_prompt(turns: Sequence[InterviewTurn], first_number: int = 1,
                          instructions: str = INTERVIEW_SUMMARY_PROMPT,
                          summary: StructuredSummary | None = None) -> str:
    """``instructions``, a blank line, then (only if ``summary`` is given: the current
    summary of the turns before these) :data:`SUMMARY_MARKER`, that summary as one JSON
    line and a blank line,
    then :data:`TURNS_MARKER` and the turns as a JSON list
    (:func:`~kit.longterm.session.turn_to_dict`, numbered from ``first_number``).
    The turns travel as JSON so that no answer text can pass for an instruction line."""
    payload = [turn_to_dict(t, first_number + i) for i, t in enumerate(turns)]
    current = f"{SUMMARY_MARKER}\n{summary.to_json()}\n\n" if summary is not None else ""
    return (f"{instructions}\n\n{current}{TURNS_MARKER}\n"
            f"{json.dumps(payload, ensure_ascii=False, indent=1)}")


def read_overflow_prompt(prompt: str) -> list[dict]:
    """The turn dicts of a prompt made by :func:`build_overflow_prompt` (for stub models).
    Raises ValueError if the marker line or a JSON list after it is missing."""
    if not isinstance(prompt, str):
        raise TypeError(f"a prompt is a str, got {type(prompt).__name__}: {prompt!r:.60}")
    head, sep, body = prompt.partition(f"\n{TURNS_MARKER}\n")
    try:
        turns = json.loads(body) if sep else None
    except json.JSONDecodeError:
        turns = None
    if not isinstance(turns, list):
        raise ValueError(f"not an overflow prompt (needs the line {TURNS_MARKER!r} and a JSON "
                         f"list after it): {prompt[:60]!r}")
    return turns


def read_overflow_summary(prompt: str) -> StructuredSummary | None:
    """The previous summary in a prompt made by :func:`build_overflow_prompt`, or None
    when it has none. Raises ValueError if it is not an overflow prompt or the line
    after :data:`SUMMARY_MARKER` is not a valid summary."""
    read_overflow_prompt(prompt)
    head = prompt.partition(f"\n{TURNS_MARKER}\n")[0]
    _, sep, current = head.partition(f"\n{SUMMARY_MARKER}\n")
    return parse_structured_summary(current.strip()) if sep else None


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    for end in (". ", "! ", "? "):
        if end in flat:
            flat = flat.split(end, 1)[0] + end.strip()
    return flat


def interview_summary_stub(prompt: str) -> str:
    """A deterministic prompt model answering :data:`INTERVIEW_SUMMARY_PROMPT`.

    Per turn it writes "Turn n (topic, s/10): <first sentence of the answer>", then
    the weaknesses and strengths; every turn scored below :data:`FOLLOW_UP_BELOW` gives
    the open point "Turn n (topic): follow up on <weaknesses, or the question>". A
    current summary in the prompt comes first and keeps its open points (the stub never
    closes one), so folding turns 1-2 then 3-5 gives the same summary as folding 1-5.
    Returns JSON (uncapped, like a wordy model). Raises ValueError for another prompt.
    """
    current = read_overflow_summary(prompt)
    parts = [current.summary] if current else []
    points = list(current.open_points) if current else []
    for t in read_overflow_prompt(prompt):
        line = f"Turn {t['number']} ({t['topic']}, {t['score']}/{MAX_SCORE}): {_first_sentence(t['answer'])}"
        if t["weaknesses"]:
            line += f" Weak: {', '.join(t['weaknesses'])}."
        if t["strengths"]:
            line += f" Strong: {', '.join(t['strengths'])}."
        parts.append(line)
        if t["score"] < FOLLOW_UP_BELOW:
            what = ", ".join(t["weaknesses"]) or t["question"]
            points.append(f"Turn {t['number']} ({t['topic']}): follow up on {what}")
    return StructuredSummary(" ".join(parts) or "(no turns)", tuple(points)).to_json()


def turn_span(first: int, last: int) -> str:
    """"turn 3" or "turns 1-5"."""
    return f"turn {first}" if first == last else f"turns {first}-{last}"


def _counted(labels: Counter) -> str:
    return ", ".join(f"{label} ({n} turn{'s' if n > 1 else ''})"
                     for label, n in sorted(labels.items(), key=lambda kv: -kv[1]))


def rule_based_summary(turns: Sequence[InterviewTurn], first_number: int = 1) -> StructuredSummary:
    """The fallback: a summary built from counts alone, no model.

    Summary: the topics discussed in first-seen order with their number of turns and
    average score, then the weaknesses and strengths seen with how many turns showed
    them (most often first, ties in first-seen order). Open points: one per turn scored
    below :data:`FOLLOW_UP_BELOW`. Uncapped. Raises ValueError for no turns.
    """
    turns = as_turns(turns)
    if not turns:
        raise ValueError("rule_based_summary needs at least one turn, got none")
    scores: dict[str, list[int]] = {}
    for t in turns:
        scores.setdefault(t.topic, []).append(t.score)
    topics = "; ".join(f"{topic} ({len(s)} turn{'s' if len(s) > 1 else ''}, "
                       f"avg {sum(s) / len(s):.1f}/{MAX_SCORE})" for topic, s in scores.items())
    text = f"{turn_span(first_number, first_number + len(turns) - 1).capitalize()} covered: {topics}."
    weak = Counter(w for t in turns for w in t.weaknesses)
    strong = Counter(s for t in turns for s in t.strengths)
    if weak:
        text += f" Weaknesses seen: {_counted(weak)}."
    if strong:
        text += f" Strengths seen: {_counted(strong)}."
    points = tuple(f"Turn {first_number + i} ({t.topic}) scored {t.score}/{MAX_SCORE}: revisit "
                   f"{', '.join(t.weaknesses) or 'the question'}"
                   for i, t in enumerate(turns) if t.score < FOLLOW_UP_BELOW)
    return StructuredSummary(text, points)
