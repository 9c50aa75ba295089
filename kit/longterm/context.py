"""The interview context: recent turns verbatim, older turns folded into a structured summary.

    context = [summary of turns 1..k + open points] + [turns k+1..n, verbatim]

Source: the FEMentor write-up (the mock interview reads its turns newest first; recent
turns keep question, answer, score and weaknesses within about 2,200 characters; turns that
do not fit overflow into ``{summary, open_points}`` capped at about 900 characters; a
rule-based fallback keeps the interview going when the summarising model fails).

All sizes here are in **characters** (``len`` of the text), as in the FEMentor write-up.

- The verbatim part is the longest run of *newest* turns whose rendered blocks
  (:func:`~kit.longterm.session.render_turn`, joined by a blank line) fit in
  ``budget_chars``. It never exceeds the budget: a newest turn that alone is larger
  overflows into the summary too (the result's ``note`` says so).
- The overflow (all older turns) goes to the summariser, a prompt model answering
  :data:`~kit.longterm.overflow.INTERVIEW_SUMMARY_PROMPT` with JSON
  (:mod:`kit.longterm.overflow`). A model that raises, returns a non-str or returns
  malformed JSON is replaced by :func:`~kit.longterm.overflow.rule_based_summary`;
  ``summariser`` in the result says which ran ("model", "rules", "previous" when the
  previous summary was reused without a call, or "none" when nothing overflowed) and
  ``fallback_reason`` why. Either summary is capped with
  :func:`kit.structured.cap_structured` (a model may ignore the length it was asked
  for), which shortens the summary before it drops an open point.
- Incremental update: built turn by turn, pass the last result as ``previous``. Its
  summary already covers its overflow, so only the turns that *newly* overflow are sent,
  with that summary, and the model rewrites it (each turn reaches the model once,
  instead of the whole overflow on every call: the quadratic pattern of lesson 03).
  A turn once folded stays folded. Without ``previous`` the whole overflow is sent.
- The builder is a pure function: turns (and the previous result) in, a new
  :class:`InterviewContext` out.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kit.llm import PromptModel
from kit.longterm.overflow import (DEFAULT_SUMMARY_CAP_CHARS, INTERVIEW_SUMMARY_PROMPT,
                                   build_overflow_prompt, rule_based_summary, turn_span)
from kit.longterm.session import InterviewSession, InterviewTurn, as_turns, render_turn
from kit.structured import StructuredSummary, cap_structured, parse_structured_summary
from kit.validation import check_int

__all__ = ["InterviewContext", "build_interview_context", "DEFAULT_BUDGET_CHARS"]

DEFAULT_BUDGET_CHARS = 2200


@dataclass(frozen=True)
class InterviewContext:
    """What :func:`build_interview_context` built. Sizes are in characters.

    ``text``: the context; ``verbatim``: the newest turns kept word for word (oldest
    first); ``overflow``: the older turns, all covered by ``summary`` (None if nothing
    overflowed); ``summariser``: who wrote the summary's newest part, "model", "rules",
    "previous" (the previous result's summary, reused without a call) or "none";
    ``fallback_reason``: why the rules ran ("" otherwise); ``verbatim_chars``: size of
    the verbatim blocks (<= ``budget_chars``); ``summary_chars``: size of
    ``summary.render()`` (<= ``summary_cap_chars``); ``chars``: ``len(text)``, section
    titles included; ``note``: anything unusual, in words; ``folded_now``: 1-based
    numbers of the turns folded into the summary by *this* call (sent to the model, or
    given to the rules); ``prompt_chars``: characters sent to the model by this call
    (0 when it was not called).
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
    folded_now: tuple[int, ...] = ()
    prompt_chars: int = 0

    @property
    def overflow_numbers(self) -> tuple[int, ...]:
        """1-based numbers of the turns the summary covers (folded into it)."""
        return tuple(range(1, len(self.overflow) + 1))

    @property
    def verbatim_numbers(self) -> tuple[int, ...]:
        """1-based numbers of the turns kept verbatim."""
        start = len(self.overflow) + 1
        return tuple(range(start, start + len(self.verbatim)))


def _summarise(new: tuple[InterviewTurn, ...], first_number: int,
               current: StructuredSummary | None, summariser: PromptModel | None,
               instructions: str) -> tuple[StructuredSummary, str, str, int]:
    """Fold ``new`` (numbered from ``first_number``) into ``current``; returns (summary,
    who wrote it, fallback reason, characters sent to the model)."""
    sent, reason = 0, "no summariser given"
    if summariser is not None:
        prompt = build_overflow_prompt(new, first_number, instructions, current)
        sent = len(prompt)
        try:
            reply = summariser(prompt)
            if not isinstance(reply, str):
                raise TypeError(f"the summariser returned {type(reply).__name__}, not str")
            return parse_structured_summary(reply), "model", "", sent
        except Exception as exc:          # a failed model must not stop the interview
            reason = f"{type(exc).__name__}: {exc}"
    summary = rule_based_summary(new, first_number)
    if current is not None:               # the rules add to the summary, never replace it
        summary = StructuredSummary(f"{current.summary} {summary.summary}",
                                    current.open_points + summary.open_points)
    return summary, "rules", reason, sent


def _check_previous(previous: object, turns: tuple[InterviewTurn, ...]) -> int:
    """How many leading turns ``previous`` has folded already (0 for None)."""
    if previous is None:
        return 0
    if not isinstance(previous, InterviewContext):
        raise TypeError(f"previous must be an InterviewContext or None, got "
                        f"{type(previous).__name__}: {previous!r:.60}")
    covered = len(previous.overflow)
    if covered > len(turns):
        raise ValueError(f"previous summarises {turn_span(1, covered)}, more than the "
                         f"{len(turns)} turns given: build from scratch with previous=None")
    if turns[:covered] != previous.overflow:
        raise ValueError(f"previous summarises {turn_span(1, covered)}, but they are not the "
                         f"first {covered} of the turns given (another session, or turns "
                         f"changed): build from scratch with previous=None")
    return covered


def build_interview_context(turns: InterviewSession | Sequence[InterviewTurn],
                            summariser: PromptModel | None = None,
                            budget_chars: int = DEFAULT_BUDGET_CHARS,
                            summary_cap_chars: int = DEFAULT_SUMMARY_CAP_CHARS,
                            prompt: str = INTERVIEW_SUMMARY_PROMPT,
                            previous: InterviewContext | None = None) -> InterviewContext:
    """Build the interview context from ``turns`` (a session or turns, oldest first).

    ``summariser``: a prompt model ``str -> str`` returning the JSON of
    :data:`INTERVIEW_SUMMARY_PROMPT`, or None to use :func:`rule_based_summary`;
    ``budget_chars``: int >= 1, characters for the verbatim turns (default 2,200);
    ``summary_cap_chars``: int >= 10, cap on the rendered summary (default 900);
    ``prompt``: the summariser's instructions; ``previous``: the result of the last
    call on the same turns minus the new ones, or None to build from scratch.

    From scratch, the whole overflow is sent. With ``previous``, its summary already
    covers ``previous.overflow``: only the turns that newly overflow are sent, together
    with that summary (:func:`build_overflow_prompt`), and none at all when nothing new
    overflows (``summariser`` is then "previous"). Turns ``previous`` folded stay folded,
    even if a larger budget would now keep them verbatim. The rules, when they run,
    append their summary of the new turns to the previous one. The summariser is called
    at most once. Raises TypeError/ValueError for bad arguments, and ValueError when
    ``previous.overflow`` is not the start of ``turns`` (never for a failing summariser:
    that falls back to the rules).
    """
    turns = as_turns(turns)
    check_int("budget_chars", budget_chars, 1)
    check_int("summary_cap_chars", summary_cap_chars, 10)
    if summariser is not None and not callable(summariser):
        raise TypeError(f"summariser must be callable str -> str or None, got {summariser!r:.60}")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError(f"prompt must be a non-empty str, got {prompt!r:.60}")
    covered = _check_previous(previous, turns)
    kept, used, note = 0, 0, ""
    for number in range(len(turns), 0, -1):              # newest first
        cost = len(render_turn(turns[number - 1], number)) + (2 if kept else 0)
        if used + cost > budget_chars:                   # 2: the blank line between blocks
            if not kept:
                note = (f"the newest turn alone has {cost} characters, more than the "
                        f"budget of {budget_chars}; it is summarised too")
            break
        if number <= covered:                            # it would fit, but is folded
            note = (f"{turn_span(1, covered)} {'was' if covered == 1 else 'were'} folded by an "
                    f"earlier call and stay{'s' * (covered == 1)} in the summary, although "
                    f"the budget would keep turn {number} verbatim")
            break
        kept, used = kept + 1, used + cost
    split = len(turns) - kept
    overflow, verbatim = turns[:split], turns[split:]
    summary, ran, reason, folded, sent = None, "none", "", (), 0
    if split > covered:
        current = previous.summary if previous is not None else None
        summary, ran, reason, sent = _summarise(overflow[covered:], covered + 1, current,
                                                summariser, prompt)
        folded = tuple(range(covered + 1, split + 1))
    elif split:                                          # nothing new: reuse, no call
        summary, ran = previous.summary, "previous"
    sections = []
    if summary is not None:
        summary = cap_structured(summary, summary_cap_chars)
        sections.append(f"Earlier in this interview ({turn_span(1, split)}, summarised):\n"
                        f"{summary.render()}")
    if verbatim:
        blocks = [render_turn(t, number) for number, t in enumerate(verbatim, split + 1)]
        sections.append("Recent turns (verbatim):\n" + "\n\n".join(blocks))
    text = "\n\n".join(sections)
    return InterviewContext(text, verbatim, overflow, summary, ran, reason, used,
                            summary.chars if summary else 0, len(text), budget_chars,
                            summary_cap_chars, note, folded, sent)
