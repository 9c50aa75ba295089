"""Summary memory: recent turns verbatim, older turns folded into a running summary.

    context = [summary of turns 1..k] + [turns k+1..n, verbatim]

Semantics (seed 000, "Add summarization-based memory to reduce context size"):

- ``size`` = system prompt + summary + verbatim turns, in the measure's unit; the
  summary counts against the ``budget``.
- After each add, if ``size > budget`` and something older than the ``keep_recent``
  newest turns exists, one *compaction* runs: the summariser gets the previous summary
  plus the evicted turns (an incremental update, never the whole transcript) and
  returns the new summary.
- ``keep_recent`` wins over the budget: the newest turns stay verbatim even if the
  context is then still over budget (the trace says so).
- Compute first, then commit: the new summary and turn list are swapped in only after
  the summariser returned. A summariser that raises (or returns a non-str or an empty
  summary) leaves summary and turns exactly as they were (the new message stays
  added) and ``add`` raises :class:`~kit.memory.base.CompactionError` with the
  original error as its cause; the next compaction folds the larger span.
"""
from __future__ import annotations

from collections.abc import Sequence

from kit.llm import NO_SUMMARY, SUMMARY_HEADER, TURNS_HEADER, PromptModel
from kit.memory.base import BudgetedMemory, check_int
from kit.memory.compaction import SummaryUpdate, checked_update
from kit.messages import Message, check_role, indent_continuation, render, span
from kit.tokens import Measure, approx_tokens

__all__ = ["SummaryMemory", "SUMMARY_PROMPT", "CARELESS_PROMPT", "SUMMARY_TITLE",
           "build_summary_prompt", "split_for_compaction"]

SUMMARY_PROMPT = (
    "You maintain the running summary of a conversation. Rewrite the current summary so "
    "that it also covers the new turns. Keep, exactly as written: every name, number, "
    "order or account id, amount, date, decision, stated constraint (allergies, limits, "
    "must/never) and open question. Drop greetings and small talk. Use short factual "
    "clauses and nothing else."
)
CARELESS_PROMPT = "Summarise the conversation so far in a sentence or two."
SUMMARY_TITLE = "Summary of earlier conversation:"


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


class SummaryMemory(BudgetedMemory):
    """Recent turns verbatim; older turns folded into a running summary.

    ``summariser``: a prompt model ``str -> str``; ``budget``: int > 0 in the measure's
    unit; ``keep_recent``: even int >= 0, turns always kept verbatim (0 folds even the
    newest message, so pass the current question to the model separately); ``measure``:
    ``str -> int``; ``prompt``: the summarisation instructions; ``system``: a system
    prompt, never evicted. Raises TypeError/ValueError naming a bad argument
    (including an odd ``keep_recent``: with an even one the verbatim part is whole
    question-and-reply pairs when compaction runs after a reply; after a question,
    :func:`split_for_compaction` moves the split back so no reply loses its question).
    """

    name = "summary memory"

    def __init__(self, summariser: PromptModel, budget: int = 3000, keep_recent: int = 6,
                 measure: Measure = approx_tokens, prompt: str = SUMMARY_PROMPT,
                 system: str | None = None) -> None:
        if not callable(summariser):
            raise TypeError(f"summariser must be callable str -> str, got {summariser!r}")
        check_int("keep_recent", keep_recent, 0)
        if not isinstance(prompt, str) or not prompt.strip():
            raise ValueError(f"prompt must be a non-empty str, got {prompt!r:.60}")
        if keep_recent % 2:
            raise ValueError(f"keep_recent must be even, so the verbatim turns are whole "
                             f"question-and-reply pairs; got {keep_recent}")
        super().__init__(budget, measure, system)
        self.summariser, self.keep_recent, self.prompt = summariser, keep_recent, prompt
        self.summary, self.summary_tokens = "", 0
        self.compactions = 0

    @property
    def size(self) -> int:
        """System prompt + summary + verbatim turns, in ``unit``."""
        return self.fixed_tokens + self.summary_tokens + self.turn_tokens

    def _blocks(self) -> list[str]:
        summary = indent_continuation(self.summary)   # its text cannot pass for a turn
        return [f"{SUMMARY_TITLE}\n{summary}"] if self.summary else []

    # -- compaction: plan, compute, commit ------------------------------------
    def plan_compaction(self) -> tuple[list[Message], list[Message]] | None:
        """Decide whether to compact now and what: ``(old, recent)`` or None.

        ``old`` is the oldest turns to fold into the summary, ``recent`` the turns that
        stay verbatim (new lists; nothing changes). None when compaction should not run
        or nothing can be folded. Pure: call it from any thread holding the memory.
        """
        if self.size <= self.budget:
            return None
        old, recent = split_for_compaction(self.turns, self.keep_recent)
        return (old, recent) if old else None

    def compute_summary(self, summary: str, old: Sequence[Message]) -> SummaryUpdate:
        """Fold ``old`` into ``summary`` with the summariser; return the new summary.

        Calls the model once and changes nothing on the memory, so it may run on a
        worker thread. Raises the summariser's own error, TypeError for a non-str
        reply, ValueError for an empty one, and what :func:`kit.tokens.measured`
        raises if the summary cannot be measured.
        """
        reply = self.summariser(build_summary_prompt(summary, old, self.prompt))
        return checked_update(reply, self.measure, len(old), by="model")

    def commit_compaction(self, update: SummaryUpdate, old: Sequence[Message],
                          recent: Sequence[Message]) -> dict:
        """Swap ``update`` in: drop ``old`` from the turns; return the trace fields.

        ``old`` and ``recent`` come from :meth:`plan_compaction`; turns added since (by a
        background compaction, say) stay. Raises RuntimeError, changing nothing, if the
        turns no longer start with ``old`` followed by ``recent`` (a stale plan).
        """
        old, recent = list(old), list(recent)
        if self.turns[:len(old) + len(recent)] != old + recent:
            raise RuntimeError(f"stale compaction plan: the turns no longer start with "
                               f"messages {span([m.number for m in old + recent])}; "
                               f"nothing changed")
        self.summary, self.summary_tokens = update.text, update.tokens
        self.turns = self.turns[len(old):]
        self.turn_tokens -= sum(m.tokens for m in old)
        self.compactions += 1
        moved = tuple(m.number for m in old)
        note = f"turn{'s' if len(moved) > 1 else ''} {span(moved)} folded into the summary"
        if update.note:
            note += f"; {update.note}"
        if self.fixed_tokens + self.summary_tokens > self.budget:
            note += "; still over budget: the summary alone is larger than the budget"
        elif self.size > self.budget:
            note += f"; still over budget: keep_recent={self.keep_recent} wins"
        return {"action": "compacted", "moved": moved, "note": note,
                "summariser": update.by}

    def _after_append(self) -> dict:
        plan = self.plan_compaction()
        if plan is None:
            if self.size <= self.budget:
                return {}
            return {"note": f"over budget, but nothing can be folded: keep_recent="
                            f"{self.keep_recent}, and a question stays with its replies"}
        old, recent = plan
        update = self.compute_summary(self.summary, old)
        return self.commit_compaction(update, old, recent)   # only now that it returned
