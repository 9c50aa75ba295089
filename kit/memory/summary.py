"""Summary memory: recent turns verbatim, older turns folded into a running summary.

    context = [summary of turns 1..k] + [turns k+1..n, verbatim]

Semantics (seed 000, "Add summarization-based memory to reduce context size"):

- ``size`` = system prompt + summary + verbatim turns, in the measure's unit; the
  summary counts against the ``budget``.
- After each add, if ``size > budget`` and something older than the ``keep_recent``
  newest turns exists, one *compaction* runs: the summariser gets the previous summary
  plus the evicted turns (an incremental update, never the whole transcript) and
  returns the new summary. Other triggers (a message count, an age; a ``target`` for
  hysteresis) are in :mod:`kit.memory.triggers`.
- ``keep_recent`` wins over the budget: the newest turns stay verbatim even if the
  context is then still over budget. The trace note says so and names the cause (the
  summary alone, turns that arrived during a background compaction, a summary larger
  than what it replaced, a summary that outgrew a ``target`` fold, or keep_recent).
- Compute first, then commit (:mod:`kit.memory.compaction`): the new summary and turn
  list are swapped in only after the summariser returned. A summariser that raises,
  times out, or returns a non-str or an empty summary is replaced by the ``fallback``
  if there is one; if not (or it fails too), summary and turns stay exactly as they
  were (the new message stays added) and ``add`` raises
  :class:`~kit.memory.base.CompactionError` with the error as its cause; the next
  compaction folds the larger span.
- ``structured=True`` asks for ``{"summary", "open_points"}`` JSON (seed 002,
  :mod:`kit.structured`); ``summary_cap`` keeps the summary small inside the budget:
  re-summarise once with :data:`SHORTEN_PROMPT`, then a truncation the trace flags.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from kit.llm import PromptModel
from kit.memory.base import BudgetedMemory, check_int
from kit.memory.compaction import Compactor, SummaryUpdate, check_seconds, check_timeout
from kit.memory.prompts import (CARELESS_PROMPT, SHORTEN_PROMPT, STRUCTURED_SHORTEN_PROMPT,
                                SUMMARY_PROMPT, SUMMARY_TITLE, build_summary_prompt)
from kit.memory.rebuild import rebuild_summary as _rebuild
from kit.memory.triggers import Firing, OverBudget, TooManyTurns, TooOld
from kit.messages import Message, indent_continuation, span, speaker_in_text
from kit.structured import STRUCTURED_SUMMARY_PROMPT, StructuredSummary
from kit.tokens import Measure, approx_tokens

__all__ = ["SummaryMemory", "split_for_compaction",
           # re-exported from kit.memory.prompts, where they live
           "SUMMARY_PROMPT", "CARELESS_PROMPT", "SUMMARY_TITLE", "SHORTEN_PROMPT",
           "STRUCTURED_SHORTEN_PROMPT", "build_summary_prompt"]


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
    prompt, never evicted. Keyword-only options:

    - ``fallback``: a prompt model used when the summariser raises, times out or
      returns a non-str, empty or (structured) malformed reply; the trace's
      ``summariser`` field says which one wrote the summary. The intended fallback is
      the rule-based extractive summariser of :mod:`kit.extractive` (seed 002).
    - ``timeout``: seconds (> 0) to wait for each model call, which then runs on a
      worker thread; a timeout counts as a failure.
    - ``structured``: ask for ``{"summary", "open_points"}`` JSON (the default prompt
      becomes :data:`kit.structured.STRUCTURED_SUMMARY_PROMPT`); the parsed value is
      ``memory.structured``, its :meth:`render` text is the summary.
    - ``summary_cap``: int, 1 <= cap < budget, in the measure's unit: a longer summary is
      re-summarised once (:data:`SHORTEN_PROMPT`), then truncated, flagged in the note.
    - ``target``: int, 0 <= target <= budget: fold only down to it (hysteresis, see
      :class:`~kit.memory.triggers.OverBudget`); None folds all but ``keep_recent``.
    - ``max_messages``: int > keep_recent: also compact when more turns are verbatim.
    - ``max_age``: seconds > 0: also compact when the oldest foldable turn is older, on
      ``clock`` (a ``() -> float`` in seconds, default ``time.monotonic``; read once per
      add, only when ``max_age`` is set).

    State: ``summary`` (str) and ``summary_tokens``; ``structured`` (the parsed
    summary or None); ``folded`` (numbers of the messages inside the summary);
    ``compactions``; ``triggers`` (a list: append your own); ``added_at`` (message
    number -> clock reading, with ``max_age``).

    Raises TypeError/ValueError naming a bad argument (including an odd
    ``keep_recent``: with an even one the verbatim part is whole question-and-reply pairs
    when compaction runs after a reply; after a question, :func:`split_for_compaction`
    moves the split back so no reply loses its question).
    """

    name = "summary memory"

    def __init__(self, summariser: PromptModel, budget: int = 3000, keep_recent: int = 6,
                 measure: Measure = approx_tokens, prompt: str = SUMMARY_PROMPT,
                 system: str | None = None, *, fallback: PromptModel | None = None,
                 timeout: float | None = None, structured: bool = False,
                 summary_cap: int | None = None, target: int | None = None,
                 max_messages: int | None = None, max_age: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not callable(summariser):
            raise TypeError(f"summariser must be callable str -> str, got {summariser!r}")
        check_int("keep_recent", keep_recent, 0)
        if not isinstance(prompt, str) or not prompt.strip():
            raise ValueError(f"prompt must be a non-empty str, got {prompt!r:.60}")
        if keep_recent % 2:
            raise ValueError(f"keep_recent must be even, so the verbatim turns are whole "
                             f"question-and-reply pairs; got {keep_recent}")
        super().__init__(budget, measure, system)
        _check_options(self.budget, keep_recent, fallback, structured, summary_cap, target,
                       max_messages, clock)
        timeout, max_age = check_timeout(timeout), check_seconds("max_age", max_age)
        self.summariser, self.keep_recent, self.prompt = summariser, keep_recent, prompt
        self.fallback, self.timeout = fallback, timeout
        self.structured_mode, self.summary_cap = structured, summary_cap
        if structured and prompt == SUMMARY_PROMPT:
            self.prompt = STRUCTURED_SUMMARY_PROMPT
        self.target, self.max_messages, self.max_age = target, max_messages, max_age
        self.clock = clock
        self.triggers = [OverBudget(self.budget, target)]
        if max_messages is not None:
            self.triggers.append(TooManyTurns(max_messages))
        if max_age is not None:
            self.triggers.append(TooOld(max_age))
        self.summary, self.summary_tokens = "", 0
        self.structured: StructuredSummary | None = None   # in structured mode
        self.compactions = 0
        self.folded: tuple[int, ...] = ()    # numbers of the messages in the summary
        self.added_at: dict[int, float] = {}  # message number -> clock, when max_age is set

    @property
    def size(self) -> int:
        """System prompt + summary + verbatim turns, in ``unit``."""
        return self.fixed_tokens + self.summary_tokens + self.turn_tokens

    def settings(self) -> dict:
        """``budget``, ``keep_recent`` and ``structured``: what a restore must match (see
        :meth:`~kit.memory.base.Memory.settings`; the summariser, fallback, prompt,
        timeout, cap and triggers may differ)."""
        return {"budget": self.budget, "keep_recent": self.keep_recent,
                "structured": self.structured_mode}

    def _blocks(self) -> list[str]:
        summary = indent_continuation(self.summary)   # its text cannot pass for a turn
        return [f"{SUMMARY_TITLE}\n{summary}"] if self.summary else []

    def _block_tokens(self) -> list[int]:
        return [self.summary_tokens] if self.summary else []

    # -- when, and what: the triggers ----------------------------------------------
    def foldable(self) -> list[Message]:
        """The turns compaction may fold now: all but the ``keep_recent`` newest, never
        a reply without its question (see :func:`split_for_compaction`)."""
        return split_for_compaction(self.turns, self.keep_recent)[0]

    def check_triggers(self, now: float | None = None) -> list[Firing]:
        """The triggers that fire now (``now``: a clock reading, used by ``max_age``)."""
        return [f for f in (t.check(self, now) for t in self.triggers) if f is not None]

    def _plan(self, now: float | None) -> tuple[list[Message], list[Message], list[Firing]]:
        firings = self.check_triggers(now)
        limit = len(self.foldable()) if firings else 0
        split = min(max((f.fold for f in firings), default=0), limit)
        while split < limit and self.turns[split].role == "assistant":
            split += 1                               # fold the reply with its question
        return self.turns[:split], self.turns[split:], firings

    def plan_compaction(self) -> tuple[list[Message], list[Message]] | None:
        """Decide whether to compact now and what: ``(old, recent)`` or None.

        ``old``: the oldest turns to fold (the most any firing trigger wants, within
        :meth:`foldable`); ``recent``: the turns that stay verbatim. New lists; nothing
        changes. None when no trigger fires or nothing can be folded.
        """
        old, recent, _ = self._plan(self.clock() if self.max_age is not None else None)
        return (old, recent) if old else None

    # -- compute: the model call(s), nothing changes ---------------------------------
    @property
    def compactor(self) -> Compactor:
        """The model calls of a compaction, with this memory's current settings."""
        return Compactor(self.summariser, self.measure, self.prompt, self.fallback,
                         self.timeout, self.structured_mode, self.summary_cap)

    def compute_summary(self, summary: str, old: Sequence[Message]) -> SummaryUpdate:
        """Fold ``old`` into ``summary``; return the new summary, without changing the memory.

        Calls the summariser (on a worker thread if ``timeout`` is set), the
        ``fallback`` if that fails, and once more to shorten a summary over
        ``summary_cap`` (see :class:`~kit.memory.compaction.Compactor`). Safe to run on
        a worker thread. Raises the summariser's own error when there is no fallback
        (TypeError for a non-str reply, ValueError for an empty or malformed one,
        TimeoutError), :class:`~kit.memory.compaction.SummariserFailed` when both fail,
        and what :func:`kit.tokens.measured` raises.
        """
        points = self.structured.open_points if self.structured and summary == self.summary else ()
        return self.compactor.compute(summary, speaker_in_text(old), points)

    # -- commit: swap the new state in --------------------------------------------
    def commit_compaction(self, update: SummaryUpdate, old: Sequence[Message],
                          recent: Sequence[Message], firings: Sequence[Firing] = ()) -> dict:
        """Swap ``update`` in and drop ``old`` from the turns; return the trace fields.

        ``old`` and ``recent`` come from :meth:`plan_compaction`; turns added since (by a
        background compaction, say) stay. ``firings``: the triggers that fired (from
        :meth:`check_triggers`), for the trace. Raises TypeError for an update that is
        not a :class:`SummaryUpdate`, and RuntimeError, changing nothing, if the turns
        no longer start with ``old`` followed by ``recent`` (a stale plan).
        """
        if not isinstance(update, SummaryUpdate):
            raise TypeError(f"update must be a SummaryUpdate, got {update!r:.60}")
        old, recent = list(old), list(recent)
        if self.turns[:len(old) + len(recent)] != old + recent:
            raise RuntimeError(f"stale compaction plan: the turns no longer start with "
                               f"messages {span([m.number for m in old + recent])}; "
                               f"nothing changed")
        summary_before = self.summary_tokens
        self.summary, self.summary_tokens = update.text, update.tokens
        self.structured = update.structured   # type: ignore[assignment]
        self.turns = self.turns[len(old):]
        self.turn_tokens -= sum(m.tokens for m in old)
        self.compactions += 1
        moved = tuple(m.number for m in old)
        self.folded += moved
        for number in moved:
            self.added_at.pop(number, None)
        shown = "; ".join(f.why for f in firings if not f.quiet)
        note = f"turn{'s' if len(moved) > 1 else ''} {span(moved)} folded into the summary"
        note = f"{shown}: {note}" if shown else note
        if update.note:
            note += f"; {update.note}"
        if self.size > self.budget:
            note += f"; still over budget: {self._why_over(update, old, recent, summary_before)}"
        return {"action": "compacted", "moved": moved, "note": note, "summariser": update.by,
                "trigger": "; ".join(f.why for f in firings)}

    def _why_over(self, update: SummaryUpdate, old: list[Message], recent: list[Message],
                  summary_before: int) -> str:
        """Why a committed compaction left the context over budget, in words: the first
        of these that holds (sizes in ``unit``).

        1. the summary alone (with the system prompt) is over the budget;
        2. the planned turns would fit: messages added while the summariser ran (a
           background compaction) are over it;
        3. the new summary is larger than the old summary plus the turns it replaced;
        4. the fold took fewer turns than it could (a ``target`` or a custom trigger)
           and the summary grew by more than that fold left room for;
        5. else every foldable turn was folded: ``keep_recent`` wins.
        """
        unit = self.unit
        if self.fixed_tokens + update.tokens > self.budget:
            return "the summary alone is larger than the budget"
        if self.fixed_tokens + update.tokens + sum(m.tokens for m in recent) <= self.budget:
            late = [m.number for m in self.turns[len(recent):]]
            return (f"message{'s' if len(late) > 1 else ''} {span(late)} arrived while the "
                    f"summariser ran")
        replaced = summary_before + sum(m.tokens for m in old)
        if update.tokens > replaced:
            return (f"the new summary ({update.tokens} {unit}) is larger than the summary and "
                    f"turns it replaced ({replaced} {unit})")
        left = split_for_compaction(recent, self.keep_recent)[0]
        if left:
            grew = update.tokens - summary_before
            if self.target is not None:
                return (f"the summary grew by {grew} {unit}, more than the "
                        f"{self.budget - self.target} {unit} between the target "
                        f"({self.target}) and the budget ({self.budget})")
            return (f"the summary grew by {grew} {unit} and the triggers left turn"
                    f"{'s' if len(left) > 1 else ''} {span([m.number for m in left])} unfolded")
        return f"keep_recent={self.keep_recent} wins"

    # -- rebuild from the raw transcript ---------------------------------------------
    def rebuild_summary(self, turns: Sequence[Message]) -> SummaryUpdate:
        """A summary of ``turns`` (raw source messages, e.g. from a transcript store)
        folded span by span from an empty summary with the normal prompt, each span at
        most ``budget`` minus the system prompt; nothing changes.

        Use it instead of re-summarising a summary again and again (seed 000,
        compounding loss); swap it in with :meth:`replace_summary`. Raises as
        :func:`kit.memory.rebuild.rebuild_summary` does.
        """
        if isinstance(turns, (list, tuple)):           # anything else: rebuild names it
            turns = type(turns)(speaker_in_text(turns))
        return _rebuild(self.compactor, turns, self.budget - self.fixed_tokens)

    def replace_summary(self, update: SummaryUpdate) -> None:
        """Swap in ``update`` as the summary (turns unchanged). Raises TypeError for an
        update that is not a :class:`SummaryUpdate`."""
        if not isinstance(update, SummaryUpdate):
            raise TypeError(f"update must be a SummaryUpdate, got {update!r:.60}")
        self.summary, self.summary_tokens = update.text, update.tokens
        self.structured = update.structured   # type: ignore[assignment]

    # -- after each add: plan, compute, commit --------------------------------------
    def stamp_newest(self) -> float | None:
        """Record the clock reading for the newest turn and return it (only when
        ``max_age`` is set; else None and no clock call). Call it first in an
        ``_after_append`` override. Raises TypeError if the clock returns no number."""
        if self.max_age is None or not self.turns:
            return None
        now = self.clock()
        if isinstance(now, bool) or not isinstance(now, (int, float)):
            raise TypeError(f"clock must return seconds as a number, got {now!r:.60}")
        self.added_at[self.turns[-1].number] = now
        return now

    def _after_append(self) -> dict:
        old, recent, firings = self._plan(self.stamp_newest())
        if not old:
            if not firings:
                return {}
            why = "; ".join(f.why for f in firings)
            return {"note": f"{why}, but nothing can be folded: keep_recent="
                            f"{self.keep_recent}, and a question stays with its replies",
                    "trigger": why}
        update = self.compute_summary(self.summary, old)
        return self.commit_compaction(update, old, recent, firings)  # now that it returned


def _check_options(budget: int, keep_recent: int, fallback: object, structured: object,
                   summary_cap: object, target: object, max_messages: object,
                   clock: object) -> None:
    """Raise TypeError/ValueError naming the first bad keyword option (``timeout`` and
    ``max_age`` are checked by :func:`~kit.memory.compaction.check_seconds`)."""
    if fallback is not None and not callable(fallback):
        raise TypeError(f"fallback must be callable str -> str or None, got {fallback!r:.60}")
    if not isinstance(structured, bool):
        raise TypeError(f"structured must be True or False, got {structured!r:.60}")
    if summary_cap is not None and check_int("summary_cap", summary_cap, 1) >= budget:
        raise ValueError(f"summary_cap must be < budget ({budget}), got {summary_cap}")
    if target is not None and check_int("target", target, 0) > budget:
        raise ValueError(f"target must be <= budget ({budget}), got {target}")
    if max_messages is not None and check_int("max_messages", max_messages, 1) <= keep_recent:
        raise ValueError(f"max_messages must be > keep_recent ({keep_recent}), so there is "
                         f"something to fold; got {max_messages}")
    if not callable(clock):
        raise TypeError(f"clock must be callable () -> seconds, got {clock!r:.60}")
