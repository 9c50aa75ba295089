"""Summary memory, the core that lesson 03 builds: recent turns verbatim, older turns
folded into a running summary.

    context = [summary of turns 1..k] + [turns k+1..n, verbatim]

- ``size`` = system prompt + summary + verbatim turns, in the measure's unit: the
  summary counts against the ``budget``. Each text is measured once.
- After each add, if ``size > budget`` and something is older than the ``keep_recent``
  newest turns, one compaction runs (:func:`compact`): the summariser gets the previous
  summary plus the old turns (an incremental update, never the whole transcript).
- ``keep_recent`` wins over the budget: the newest turns stay verbatim even if the
  context is then still over budget (the trace note says so). A reply never leaves its
  question behind (:func:`split_for_compaction`).
- Compute first, then commit: the new summary and turn list replace the old ones only
  after the summariser returned a usable summary. If it raises, or returns a non-str
  or empty reply, summary and turns stay as they were (the new message stays added),
  and ``add`` raises :class:`~kit.memory.base.CompactionError` with the error as its
  cause; the next compaction folds the larger span.

The production options of lesson 04 (fallback, timeout, structured summary, summary
cap, triggers, background compaction) are layered on this class in
:mod:`kit.memory.robust`, not mixed in here.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from kit.memory.base import BudgetedMemory
from kit.messages import Message, indent_continuation, span, speaker_in_text
from kit.prompts import (CARELESS_PROMPT, SUMMARY_PROMPT, SUMMARY_TITLE,
                                build_summary_prompt)
from kit.tokens import Measure, cl100k_tokens
from kit.validation import check_int

__all__ = ["SummaryMemory", "split_for_compaction", "compact", "checked_summary",
           "SUMMARY_PROMPT", "CARELESS_PROMPT", "SUMMARY_TITLE", "build_summary_prompt"]

PRODUCTION_OPTIONS = ("fallback", "timeout", "structured", "summary_cap", "fact_check",
                      "fold_budget", "backoff", "target", "max_messages", "max_age", "clock")


def split_for_compaction(turns: Sequence[Message], keep_recent: int
                         ) -> tuple[list[Message], list[Message]]:
    """Split turns into (old, recent): the newest ``keep_recent`` stay verbatim.

    If the recent part would start with an assistant message, the split moves back so
    that its question stays with it (recent then holds more than ``keep_recent``).
    ``keep_recent=0`` folds everything. Returns new lists; ``turns`` is not changed.
    Raises TypeError/ValueError unless ``keep_recent`` is an int >= 0.
    """
    split = len(turns) - check_int("keep_recent", keep_recent, 0)
    if split <= 0:
        return [], list(turns)
    while 0 < split < len(turns) and turns[split].role == "assistant":
        split -= 1
    return list(turns[:split]), list(turns[split:])


def compact(summary: str, turns: Sequence[Message], keep_recent: int,
            summariser: Callable[[str], object], prompt: str = SUMMARY_PROMPT
            ) -> tuple[object, list[Message]]:
    """One incremental compaction as a pure function: ``(new_summary, recent)``.

    Splits ``turns`` with :func:`split_for_compaction`. Nothing old: returns
    ``(summary, recent)`` without calling the summariser. Else calls it once with
    ``build_summary_prompt(summary, old, prompt)`` (speakers written into the turns'
    text) and returns its reply unchecked, with ``recent``. Changes nothing; the
    summariser's exception propagates. Raises TypeError for a summariser that is not
    callable, and what :func:`split_for_compaction` and :func:`build_summary_prompt` raise.
    """
    if not callable(summariser):
        raise TypeError(f"summariser must be callable str -> str, got {summariser!r:.60}")
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    return summariser(build_summary_prompt(summary, speaker_in_text(old), prompt)), recent


def checked_summary(reply: object, n_turns: int) -> str:
    """A summariser's ``reply`` stripped, if it is a non-empty str. Raises TypeError for
    a non-str reply, ValueError for an empty one (naming the ``n_turns`` it should cover)."""
    if not isinstance(reply, str):
        raise TypeError(f"summariser must return str, got {type(reply).__name__}")
    if not reply.strip():
        raise ValueError(f"the summariser returned an empty summary for {n_turns} turns; "
                         f"kept the summary and turns as they were")
    return reply.strip()


class SummaryMemory(BudgetedMemory):
    """Recent turns verbatim; older turns folded into a running summary.

    ``summariser``: a prompt model ``str -> str``; ``budget``: int > 0 in the measure's
    unit; ``keep_recent``: int >= 0, turns always kept verbatim (0 folds even the newest
    message). The split moves back from a reply to its question, so after a question
    ``keep_recent + 1`` turns may stay when ``keep_recent`` is even, and after a reply
    when it is odd: choose an even one for whole question-and-reply pairs after a reply;
    an odd one is accepted and follows the same split;
    ``measure``: ``str -> int``; ``prompt``: the summarisation instructions; ``system``:
    a system prompt, never evicted; ``count``: what counts against the budget
    (:mod:`kit.sizing`; default ``"text"``, the lesson's rule).

    State: ``summary`` (str), ``summary_tokens``, ``compactions``, ``folded`` (numbers
    of the messages inside the summary). Raises TypeError/ValueError naming a bad
    argument; a lesson-04 option (``fallback=``, ``timeout=``, ...) raises TypeError
    naming :class:`kit.memory.robust.RobustSummaryMemory`, which has them.
    """

    name = "summary memory"

    def __init__(self, summariser: Callable[[str], object], budget: int = 3000,
                 keep_recent: int = 6, measure: Measure = cl100k_tokens,
                 prompt: str = SUMMARY_PROMPT, system: str | None = None, *,
                 count: str = "text", **options) -> None:
        if options:
            known = set(options) <= set(PRODUCTION_OPTIONS)
            raise TypeError(f"SummaryMemory got {', '.join(sorted(options))}: "
                            f"{'options of' if known else 'not options of the core; see'} "
                            f"kit.memory.robust.RobustSummaryMemory (lesson 04). The core takes "
                            f"summariser, budget, keep_recent, measure, prompt, system and count")
        if not callable(summariser):
            raise TypeError(f"summariser must be callable str -> str, got {summariser!r}")
        check_int("keep_recent", keep_recent, 0)
        if not isinstance(prompt, str) or not prompt.strip():
            raise ValueError(f"prompt must be a non-empty str, got {prompt!r:.60}")
        super().__init__(budget, measure, system, count=count)
        self.summariser, self.keep_recent, self.prompt = summariser, keep_recent, prompt
        self.summary, self.summary_tokens, self.compactions = "", 0, 0
        self.folded: tuple[int, ...] = ()    # numbers of the messages in the summary

    @property
    def size(self) -> int:
        """System prompt + summary + verbatim turns, in ``unit``."""
        return self.fixed_tokens + self.summary_tokens + self.turn_tokens

    def settings(self) -> dict:
        """``budget``, ``keep_recent`` and ``structured`` (always False here: the summary
        is plain text): what a restore must match (see
        :meth:`~kit.memory.base.Memory.settings`)."""
        return {"budget": self.budget, "keep_recent": self.keep_recent, "structured": False}

    def _blocks(self) -> list[str]:
        summary = indent_continuation(self.summary)   # its text cannot pass for a turn
        return [f"{SUMMARY_TITLE}\n{summary}"] if self.summary else []

    def _block_tokens(self) -> list[int]:
        return [self.summary_tokens] if self.summary else []

    def foldable(self) -> list[Message]:
        """The turns compaction may fold now: all but the ``keep_recent`` newest, never
        a reply without its question (see :func:`split_for_compaction`)."""
        return split_for_compaction(self.turns, self.keep_recent)[0]

    def _after_append(self) -> dict:
        if self.size <= self.budget:
            return {}
        reply, recent = compact(self.summary, self.turns, self.keep_recent,     # compute
                                self.summariser, self.prompt)
        old = self.turns[:len(self.turns) - len(recent)]
        if not old:
            return {"note": f"over budget, but nothing can be folded: keep_recent="
                            f"{self.keep_recent}, and a question stays with its replies",
                    "trigger": "over budget"}
        summary = checked_summary(reply, len(old))
        tokens = self.sizing.summary(summary)
        before = self.summary_tokens + sum(m.tokens for m in old)
        self.summary, self.summary_tokens = summary, tokens                   # commit
        self.turns, self.turn_tokens = recent, self.turn_tokens - sum(m.tokens for m in old)
        self.compactions += 1
        moved = tuple(m.number for m in old)
        self.folded += moved
        note = f"turn{'s' * (len(moved) > 1)} {span(moved)} folded into the summary"
        if self.size > self.budget:
            note += f"; still over budget: {self._why_over(tokens, before)}"
        return {"action": "compacted", "moved": moved, "note": note,
                "summariser": "model", "trigger": "over budget"}

    def _why_over(self, tokens: int, replaced: int) -> str:
        """Why a compaction left the context over budget: the summary alone, a summary
        larger than the summary and turns it replaced, or else ``keep_recent``."""
        if self.fixed_tokens + tokens > self.budget:
            return "the summary alone is larger than the budget"
        if tokens > replaced:
            return (f"the new summary ({tokens} {self.unit}) is larger than the summary and "
                    f"turns it replaced ({replaced} {self.unit})")
        return f"keep_recent={self.keep_recent} wins"
