"""The interview context: recent turns verbatim, older turns folded into a structured summary.

    context = [summary of turns 1..k + open points] + [turns k+1..n, verbatim]

Source: seed 002 (the mock interview reads its turns newest first; recent turns keep
question, answer, score and weaknesses within about 2,200 characters; turns that do
not fit overflow into ``{summary, open_points}`` capped at about 900 characters; a
rule-based fallback keeps the interview going when the summarising model fails).

All sizes here are in **characters** (``len`` of the text), as in the seed.

- The verbatim part is the longest run of *newest* turns whose rendered blocks
  (:func:`~kit.longterm.session.render_turn`, joined by a blank line) fit in
  ``budget_chars``. It never exceeds the budget: a newest turn that alone is larger
  overflows into the summary too (the result's ``note`` says so).
- The overflow (all older turns) goes to the summariser, a prompt model answering
  :data:`INTERVIEW_SUMMARY_PROMPT` with JSON. A model that raises, returns a non-str or
  returns malformed JSON is replaced by :func:`rule_based_summary`; ``summariser`` in
  the result says which ran ("model", "rules", or "none" when nothing overflowed) and
  ``fallback_reason`` why. Either summary is capped with
  :func:`kit.structured.cap_structured` (a model may ignore the length it was asked for).
- The builder is a pure function: turns in, a new :class:`InterviewContext` out.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from kit.llm import PromptModel
from kit.longterm.session import (MAX_SCORE, InterviewSession, InterviewTurn, as_turns,
                                  render_turn, turn_to_dict)
from kit.memory.base import check_int
from kit.structured import StructuredSummary, cap_structured, parse_structured_summary

__all__ = ["InterviewContext", "build_interview_context", "INTERVIEW_SUMMARY_PROMPT",
           "TURNS_MARKER", "build_overflow_prompt", "read_overflow_prompt",
           "interview_summary_stub", "rule_based_summary", "FOLLOW_UP_BELOW",
           "DEFAULT_BUDGET_CHARS", "DEFAULT_SUMMARY_CAP_CHARS"]

DEFAULT_BUDGET_CHARS = 2200
DEFAULT_SUMMARY_CAP_CHARS = 900
FOLLOW_UP_BELOW = 6        # a turn scored below this (out of 10) leaves an open point
TURNS_MARKER = "Earlier turns (JSON, oldest first):"

INTERVIEW_SUMMARY_PROMPT = (
    "You compress the earlier part of a mock technical interview so the interviewer can "
    "go on without rereading it. Reply with exactly one JSON object and nothing else:\n"
    '{"summary": "<non-empty string>", "open_points": ["<string>", ...]}\n'
    "In summary keep, for every turn: its number, topic and score, the weaknesses and "
    "strengths it showed, and every fact about the candidate's projects. In open_points "
    "list what the interviewer should still follow up: questions answered weakly or not "
    "at all, oldest first. Stay under 900 characters in total."
)


def build_overflow_prompt(turns: Sequence[InterviewTurn], first_number: int = 1,
                          instructions: str = INTERVIEW_SUMMARY_PROMPT) -> str:
    """``instructions``, a blank line, :data:`TURNS_MARKER`, then the turns as a JSON list
    (:func:`~kit.longterm.session.turn_to_dict`, numbered from ``first_number``).
    The turns travel as JSON so that no answer text can pass for an instruction line."""
    payload = [turn_to_dict(t, first_number + i) for i, t in enumerate(turns)]
    return f"{instructions}\n\n{TURNS_MARKER}\n{json.dumps(payload, ensure_ascii=False, indent=1)}"


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
    the open point "Turn n (topic): follow up on <weaknesses, or the question>".
    Returns JSON (uncapped, like a wordy model). Raises ValueError for another prompt.
    """
    parts, points = [], []
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


def _span(first: int, last: int) -> str:
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
    text = f"{_span(first_number, first_number + len(turns) - 1).capitalize()} covered: {topics}."
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


@dataclass(frozen=True)
class InterviewContext:
    """What :func:`build_interview_context` built. Sizes are in characters.

    ``text``: the context; ``verbatim``: the newest turns kept word for word (oldest
    first); ``overflow``: the older turns folded into ``summary`` (None if nothing
    overflowed); ``summariser``: "model", "rules" or "none"; ``fallback_reason``: why
    the rules ran ("" otherwise); ``verbatim_chars``: size of the verbatim blocks
    (<= ``budget_chars``); ``summary_chars``: size of ``summary.render()``
    (<= ``summary_cap_chars``); ``chars``: ``len(text)``, section titles included;
    ``note``: anything unusual, in words.
    """

    text: str
    verbatim: tuple[InterviewTurn, ...]
    overflow: tuple[InterviewTurn, ...]
    summary: StructuredSummary | None
    summariser: str
    fallback_reason: str
    verbatim_chars: int
    summary_chars: int
    chars: int
    budget_chars: int
    summary_cap_chars: int
    note: str = ""

    @property
    def overflow_numbers(self) -> tuple[int, ...]:
        """1-based numbers of the turns folded into the summary."""
        return tuple(range(1, len(self.overflow) + 1))

    @property
    def verbatim_numbers(self) -> tuple[int, ...]:
        """1-based numbers of the turns kept verbatim."""
        start = len(self.overflow) + 1
        return tuple(range(start, start + len(self.verbatim)))


def _summarise(overflow: tuple[InterviewTurn, ...], summariser: PromptModel | None,
               prompt: str) -> tuple[StructuredSummary, str, str]:
    if summariser is None:
        return rule_based_summary(overflow), "rules", "no summariser given"
    try:
        reply = summariser(build_overflow_prompt(overflow, 1, prompt))
        if not isinstance(reply, str):
            raise TypeError(f"the summariser returned {type(reply).__name__}, not str")
        return parse_structured_summary(reply), "model", ""
    except Exception as exc:          # a failed model must not stop the interview
        return rule_based_summary(overflow), "rules", f"{type(exc).__name__}: {exc}"


def build_interview_context(turns: InterviewSession | Sequence[InterviewTurn],
                            summariser: PromptModel | None = None,
                            budget_chars: int = DEFAULT_BUDGET_CHARS,
                            summary_cap_chars: int = DEFAULT_SUMMARY_CAP_CHARS,
                            prompt: str = INTERVIEW_SUMMARY_PROMPT) -> InterviewContext:
    """Build the interview context from ``turns`` (a session or turns, oldest first).

    ``summariser``: a prompt model ``str -> str`` returning the JSON of
    :data:`INTERVIEW_SUMMARY_PROMPT`, or None to use :func:`rule_based_summary`;
    ``budget_chars``: int >= 1, characters for the verbatim turns (default 2,200);
    ``summary_cap_chars``: int >= 10, cap on the rendered summary (default 900);
    ``prompt``: the summariser's instructions. The summariser is called at most once,
    only if some turn overflows. Raises TypeError/ValueError for bad arguments (never
    for a failing summariser: that falls back to the rules).
    """
    turns = as_turns(turns)
    check_int("budget_chars", budget_chars, 1)
    check_int("summary_cap_chars", summary_cap_chars, 10)
    if summariser is not None and not callable(summariser):
        raise TypeError(f"summariser must be callable str -> str or None, got {summariser!r:.60}")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError(f"prompt must be a non-empty str, got {prompt!r:.60}")
    blocks, used, note = [], 0, ""
    for number in range(len(turns), 0, -1):              # newest first
        block = render_turn(turns[number - 1], number)
        cost = len(block) + (2 if blocks else 0)         # the blank line between blocks
        if used + cost > budget_chars:
            if not blocks:
                note = (f"the newest turn alone has {len(block)} characters, more than the "
                        f"budget of {budget_chars}; it is summarised too")
            break
        blocks.insert(0, block)
        used += cost
    split = len(turns) - len(blocks)
    overflow, verbatim = turns[:split], turns[split:]
    summary, ran, reason = None, "none", ""
    sections = []
    if overflow:
        summary, ran, reason = _summarise(overflow, summariser, prompt)
        summary = cap_structured(summary, summary_cap_chars)
        sections.append(f"Earlier in this interview ({_span(1, split)}, summarised):\n"
                        f"{summary.render()}")
    if blocks:
        sections.append("Recent turns (verbatim):\n" + "\n\n".join(blocks))
    text = "\n\n".join(sections)
    return InterviewContext(text, verbatim, overflow, summary, ran, reason, used,
                            summary.chars if summary else 0, len(text), budget_chars,
                            summary_cap_chars, note)
