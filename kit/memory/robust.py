"""The production summary memory of lesson 04: the lesson-03 core with the options a
deployed chatbot needs, layered on :class:`kit.memory.summary.SummaryMemory`.

- ``fallback``: a prompt model used when the summariser raises, times out or returns
  a non-str, empty or (structured) malformed reply; the intended fallback is the
  rule-based extractive summariser of :mod:`kit.extractive`.
- ``timeout``: seconds to wait for each model call (on a worker thread).
- ``structured=True`` asks for ``{"summary", "open_points"}`` JSON (:mod:`kit.structured`).
- ``summary_cap`` keeps the summary small inside the budget: re-summarise once with
  :data:`~kit.prompts.SHORTEN_PROMPT`, then a truncation the trace flags. On by
  default (``"auto"``: what the budget leaves after the system prompt, the turns the
  split keeps and room for the next message), so a fold brings the context back within
  the budget whenever ``keep_recent`` fits.
- ``fact_check`` (on by default): the new summary must keep the ids, numbers, amounts,
  dates and names of what it replaced (:mod:`kit.memory.facts`); a reply that lost most
  of them is rejected (the fallback, or the extractive summariser, writes the summary),
  one that dropped a few is repaired. The trace says which facts were put back.
- ``fold_budget``: one compaction folds at most this much (summary plus turns, oldest
  first; default twice the budget, the most a normal compaction needs), so the prompt
  fits the model's window even after a long outage, and the memory is back within
  budget a few turns after it.
- ``backoff``: after repeated model failures the model is skipped for the next 0, 1, 3,
  7, ... messages (at most ``backoff``): the fallback folds meanwhile, and the trace
  says when the model is tried again. With a ``timeout``, at most one call per model is
  in flight (:class:`~kit.memory.compaction.CallSlots`).
- triggers (:mod:`kit.memory.triggers`): over budget, with a ``target`` for
  hysteresis; ``max_messages``; ``max_age`` on an injectable ``clock``.
- the compaction split in three steps (:mod:`kit.memory.compaction`): plan, compute
  (a pure model call, safe on a worker thread), commit; :mod:`kit.memory.background`
  runs the compute step off the request path.
- rebuilding the summary from the raw transcript (:mod:`kit.memory.rebuild`).

Where the context is still over budget after a compaction, the trace note names the
cause: the summary alone, turns that arrived during a background compaction, a
summary larger than what it replaced, a summary that outgrew a ``target`` fold, or
``keep_recent``.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from kit.llm import PromptModel
from kit.memory.compaction import Backoff, CallSlots, Compactor, SummaryUpdate, check_timeout
from kit.memory.rebuild import rebuild_summary as _rebuild
from kit.memory.summary import SummaryMemory, split_for_compaction
from kit.memory.triggers import Firing, OverBudget, TooManyTurns, TooOld
from kit.messages import Message, span, speaker_in_text
from kit.prompts import SUMMARY_PROMPT
from kit.structured import STRUCTURED_SUMMARY_PROMPT, StructuredSummary
from kit.tokens import Measure, cl100k_tokens
from kit.validation import check_int, check_seconds

__all__ = ["RobustSummaryMemory"]


class RobustSummaryMemory(SummaryMemory):
    """:class:`~kit.memory.summary.SummaryMemory` with lesson 04's production options.

    The first six arguments are the core's. Keyword-only options:

    - ``fallback``: a prompt model used when the summariser fails; the trace's
      ``summariser`` field says which one wrote the summary.
    - ``timeout``: seconds (> 0) to wait for each model call, which then runs on a
      worker thread; a timeout counts as a failure.
    - ``structured``: ask for ``{"summary", "open_points"}`` JSON (the default prompt
      becomes :data:`kit.structured.STRUCTURED_SUMMARY_PROMPT`); the parsed value is
      ``memory.structured``, its :meth:`render` text is the summary.
    - ``summary_cap``: int, 1 <= cap < budget, in the measure's unit: a longer summary is
      re-summarised once, then truncated, flagged in the note. Default ``"auto"``: at
      each compaction, what the budget leaves after the system prompt, the turns that
      stay verbatim and room for the next message (:meth:`current_cap`), so the memory gets
      back within budget whenever ``keep_recent`` fits, even with a summariser that
      never shortens; None: no cap.
    - ``fact_check``: True (default) or False: check that each new summary kept the
      facts of what it replaced; reject or repair it (see :mod:`kit.memory.facts`).
    - ``fold_budget``: int >= 1 or None (default: twice the budget), in the measure's
      unit: the most one compaction folds, previous summary included; the oldest turns
      first, at least one question with its replies.
    - ``backoff``: int >= 0 (default 64): after ``k`` model failures in a row the model
      is skipped for the next ``min(2**(k-1) - 1, backoff)`` messages (0, 1, 3, 7, ...:
      the first failure retries at once; meanwhile the fallback folds, or nothing
      without one); 0 turns the back-off off.
    - ``target``: int, 0 <= target <= budget: fold only down to it (hysteresis, see
      :class:`~kit.memory.triggers.OverBudget`); None folds all but ``keep_recent``.
    - ``max_messages``: int > keep_recent: also compact when more turns are verbatim.
    - ``max_age``: seconds > 0: also compact when the oldest foldable turn is older, on
      ``clock`` (a ``() -> float`` in seconds, default ``time.monotonic``; read once per
      add, only when ``max_age`` is set).

    State beyond the core's: ``structured`` (the parsed summary or None); ``backoff``
    (a :class:`~kit.memory.compaction.Backoff`); ``slots`` (the model calls in flight,
    :class:`~kit.memory.compaction.CallSlots`); ``triggers``
    (a list: append your own); ``added_at`` (message number -> clock reading, with
    ``max_age``). Raises TypeError/ValueError naming a bad argument.
    """

    def __init__(self, summariser: PromptModel, budget: int = 3000, keep_recent: int = 6,
                 measure: Measure = cl100k_tokens, prompt: str = SUMMARY_PROMPT,
                 system: str | None = None, *, count: str = "text",
                 fallback: PromptModel | None = None,
                 timeout: float | None = None, structured: bool = False,
                 summary_cap: int | str | None = "auto", fact_check: bool = True,
                 fold_budget: int | None = None, backoff: int = 64,
                 target: int | None = None,
                 max_messages: int | None = None, max_age: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(summariser, budget, keep_recent, measure, prompt, system, count=count)
        _check_options(self.budget, keep_recent, fallback, structured,
                       None if summary_cap == "auto" else summary_cap, target, max_messages,
                       clock)
        if not isinstance(fact_check, bool):
            raise TypeError(f"fact_check must be True or False, got {fact_check!r:.60}")
        self.fact_check = fact_check
        self.fold_budget = (2 * self.budget if fold_budget is None
                            else check_int("fold_budget", fold_budget, 1))
        self.backoff = Backoff(check_int("backoff", backoff, 0))
        self.slots = CallSlots()
        timeout, max_age = check_timeout(timeout), check_seconds("max_age", max_age)
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
        self.structured: StructuredSummary | None = None   # in structured mode
        self.added_at: dict[int, float] = {}  # message number -> clock, when max_age is set

    def settings(self) -> dict:
        """``budget``, ``keep_recent`` and ``structured``: what a restore must match (see
        :meth:`~kit.memory.base.Memory.settings`; the summariser, fallback, prompt,
        timeout, cap and triggers may differ)."""
        return {"budget": self.budget, "keep_recent": self.keep_recent,
                "structured": self.structured_mode}

    # -- when, and what: the triggers ----------------------------------------------
    def check_triggers(self, now: float | None = None) -> list[Firing]:
        """The triggers that fire now (``now``: a clock reading, used by ``max_age``)."""
        return [f for f in (t.check(self, now) for t in self.triggers) if f is not None]

    def _plan(self, now: float | None) -> tuple[list[Message], list[Message], list[Firing]]:
        firings = self.check_triggers(now)
        limit = len(self.foldable()) if firings else 0
        split = self._bounded(min(max((f.fold for f in firings), default=0), limit))
        while split < limit and self.turns[split].role == "assistant":
            split += 1                               # fold the reply with its question
        return self.turns[:split], self.turns[split:], firings

    def _bounded(self, split: int) -> int:
        """``split``, or fewer turns so that the summary and the folded turns stay within
        ``fold_budget`` (at least one turn)."""
        room, total = self.fold_budget - self.summary_tokens, 0
        for i, message in enumerate(self.turns[:split]):
            total += message.tokens
            if total > room and i > 0:
                return i
        return split

    def plan_compaction(self) -> tuple[list[Message], list[Message]] | None:
        """Decide whether to compact now and what: ``(old, recent)`` or None.

        ``old``: the oldest turns to fold (the most any firing trigger wants, within
        :meth:`foldable`); ``recent``: the turns that stay verbatim. New lists; nothing
        changes. None when no trigger fires or nothing can be folded.
        """
        old, recent, _ = self._plan(self.clock() if self.max_age is not None else None)
        return (old, recent) if old else None

    # -- compute: the model call(s), nothing changes ---------------------------------
    def current_cap(self) -> int | None:
        """The summary cap (in ``unit``) of a compaction now: ``summary_cap`` as given,
        or with ``"auto"`` the room the budget leaves after the system prompt and the
        turns the split keeps (the ``keep_recent`` newest, with the question of a reply
        among them: :func:`split_for_compaction`). Where the next message (the other
        role's) would leave all of those turns kept, nothing could be folded at that add,
        so the cap also leaves room for one more message as large as the largest kept
        one of that role (of any role where none is kept). Turns a ``target`` lets stay beyond the kept ones are left out: the next fold
        may take them. Where the reserve leaves no room it is dropped; where the kept
        turns alone leave none (``keep_recent`` does not fit), no cap brings the memory
        within budget, and it is three quarters of what the system prompt leaves (at least
        1), so the summary keeps its facts. The reserve assumes the roles alternate: after
        two replies in a row, one add may stay over budget until the next fold."""
        if self.summary_cap != "auto":
            return self.summary_cap
        room = self.budget - self.fixed_tokens
        kept = split_for_compaction(self.turns, self.keep_recent)[1]
        left = room - sum(m.tokens for m in kept)
        reserve = _next_size(kept) if _next_keeps_all(kept, self.keep_recent) else 0
        if left - reserve >= 1:
            return left - reserve
        return left if left >= 1 else max(1, room * 3 // 4)

    @property
    def compactor(self) -> Compactor:
        """The model calls of a compaction, with this memory's current settings (the cap
        from :meth:`current_cap`)."""
        return Compactor(self.summariser, self.sizing.summary_measure(), self.prompt,
                         self.fallback, self.timeout, self.structured_mode, self.current_cap(),
                         self.fact_check, self.slots)

    def compute_summary(self, summary: str, old: Sequence[Message],
                        use_model: bool = True) -> SummaryUpdate:
        """Fold ``old`` into ``summary``; return the new summary, without changing the memory.

        Calls the summariser (on a worker thread if ``timeout`` is set; not at all with
        ``use_model=False``), the ``fallback`` if that fails, the fact check, and once
        more to shorten a summary over ``summary_cap`` (see
        :class:`~kit.memory.compaction.Compactor`). Safe to run on a worker thread. Raises the summariser's own error when there is no fallback
        (TypeError for a non-str reply, ValueError for an empty or malformed one,
        TimeoutError), :class:`~kit.memory.compaction.SummariserFailed` when both fail,
        and what :func:`kit.tokens.measured` raises.
        """
        points = self.structured.open_points if self.structured and summary == self.summary else ()
        return self.compactor.compute(summary, speaker_in_text(old), points, use_model)

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
            note += f"; still over budget: {self._why_still_over(update, old, recent, summary_before)}"
        return {"action": "compacted", "moved": moved, "note": note, "summariser": update.by,
                "trigger": "; ".join(f.why for f in firings)}

    def _why_still_over(self, update: SummaryUpdate, old: list[Message], recent: list[Message],
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

        Use it instead of re-summarising a summary again and again (the compounding loss of
        the summary-memory lesson); swap it in with :meth:`replace_summary`. Raises as
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
        if not self.backoff.allows(self.added) and self.fallback is None:
            why = "; ".join(f.why for f in firings)
            return {"note": f"{why}, but compaction waits: {self.backoff}", "trigger": why}
        update = self.backoff.run(self.added,
                                  lambda use_model: self.compute_summary(self.summary, old,
                                                                         use_model))
        fields = self.commit_compaction(update, old, recent, firings)  # now that it returned
        notes = [fields["note"]]
        wanted = min(max((f.fold for f in firings), default=0), len(old) + len(self.foldable()))
        if len(old) < wanted:
            notes.append(f"the fold was capped at fold_budget={self.fold_budget} {self.unit}")
        if self.backoff.retry_at > self.added + 1:            # the model is being skipped
            notes.append(str(self.backoff))
        return {**fields, "note": "; ".join(notes)}



def _next_role(kept: Sequence[Message]) -> str:
    return "user" if kept[-1].role == "assistant" else "assistant"


def _next_size(kept: Sequence[Message]) -> int:
    """The size to reserve for the next message: the largest kept message of the next
    message's role, or the largest kept message where none has that role."""
    role = _next_role(kept)
    return max((m.tokens for m in kept if m.role == role),
               default=max(m.tokens for m in kept))


def _next_keeps_all(kept: Sequence[Message], keep_recent: int) -> bool:
    """Whether one more message, of the role after the newest kept one, would leave every
    kept turn in the split's kept part (so that add could fold nothing)."""
    if not kept:
        return False
    return not split_for_compaction([*kept, _Role(_next_role(kept))], keep_recent)[0]


class _Role:
    """A stand-in for the next message: :func:`split_for_compaction` reads only roles."""

    def __init__(self, role: str) -> None:
        self.role = role


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
