"""The code under review in drill 06, mechanism ``"code review"``: a summary memory with
the bugs the well-known libraries shipped.

:class:`BuggyMemory` is the class the candidate reviews (the drill notebook prints its
source): ``BuggyMemory(summariser, budget, keep_recent, measure, system=None, *,
clock=None, max_age=None)`` with the learner protocol (``add``, ``context``,
``messages``, ``size``). It compacts when the context is over budget, and also when the
oldest verbatim turn is more than ``max_age`` seconds old on ``clock``. It has five bugs:

1. the old turns are dropped before the summariser call (a timeout loses them);
2. ``size`` leaves the summary out (the context sent is over the budget);
3. the recent turns are ``turns[-keep_recent:]`` (with ``keep_recent=0``, ``turns[-0:]``
   is every turn: nothing is ever folded);
4. the time-triggered compaction starts a new summary of the stale turns, overwriting
   the running summary instead of updating it;
5. the split never moves back from a reply, so a reply is orphaned from its question.

:class:`ReviewedReference` is the fixed class (not registered; the drill's time-trigger
checks compare with it). Each one-bug variant below subclasses it and overrides the one
method where the bug sits, so "fixed four of five" is a wrong answer too. All six are
registered with :func:`kit.mistakes.mistake`; ``hint`` is a piece of the drill's message.
"""
from __future__ import annotations

import time

from kit.memory import build_summary_prompt, split_for_compaction
from kit.messages import make_message
from kit.mistakes import mistake

__all__ = ["BuggyMemory", "ReviewedReference", "DropsTurnsFirst", "SummaryUncounted",
           "SlicesMinusZero", "TimerOverwritesSummary", "OrphansReplyOnSplit", "BUGS"]

MECHANISM = "code review"


class BuggyMemory:
    """Recent turns verbatim, older turns folded into a running summary.

    Compacts after an add when the context is over budget, or when the oldest verbatim
    turn is more than max_age seconds old on clock (a () -> seconds function).
    """

    def __init__(self, summariser, budget, keep_recent, measure, system=None, *,
                 clock=None, max_age=None):
        self.summariser, self.budget, self.keep_recent = summariser, budget, keep_recent
        self.measure, self.system = measure, system
        self.clock, self.max_age = clock or time.monotonic, max_age
        self.system_size = measure(system) if system else 0
        self.summary = ""
        self.turns, self.turns_size = [], 0
        self.added_at = []

    @property
    def size(self):
        return self.system_size + self.turns_size

    def add(self, role, content):
        message = make_message(role, content, self.measure)
        self.turns.append(message)
        self.turns_size += message.tokens
        if self.max_age is not None:
            self.added_at.append(self.clock())
        if self.size > self.budget:
            self.compact()
        elif self.max_age is not None and self.added_at[-1] - self.added_at[0] > self.max_age:
            self.refresh()

    def split(self):
        recent = self.turns[-self.keep_recent:]
        return self.turns[:len(self.turns) - len(recent)], recent

    def compact(self):
        old, recent = self.split()
        if not old:
            return
        self.turns, self.added_at = recent, self.added_at[len(old):]
        self.turns_size -= sum(m.tokens for m in old)
        self.summary = self.summariser(build_summary_prompt(self.summary, old))

    def refresh(self):
        old, recent = self.split()
        if not old:
            return
        summary = self.summariser(build_summary_prompt("", old))
        self.summary = summary
        self.turns, self.added_at = recent, self.added_at[len(old):]
        self.turns_size -= sum(m.tokens for m in old)

    def messages(self):
        head = [{"role": "system", "content": self.system}] if self.system else []
        if self.summary:
            head.append({"role": "system",
                         "content": f"Summary of earlier conversation:\n{self.summary}"})
        return head + [{"role": m.role, "content": m.content} for m in self.turns]

    def context(self):
        return "\n".join(f"{m['role']}: {m['content']}" for m in self.messages())


mistake(MECHANISM, "buggy-memory",
        what="the class under review, all five bugs at once",
        why="turns lost on a timeout, a context over budget, nothing folded with "
            "keep_recent=0, facts lost at every timed refresh, replies without questions",
        hint="the summary is not counted")(BuggyMemory)


class ReviewedReference:
    """The fixed class (not registered): the same methods as :class:`BuggyMemory`,
    each bug fixed. Compute first, then commit; the summary counted; the kit's split;
    every compaction updates the running summary."""

    def __init__(self, summariser, budget, keep_recent, measure, system=None, *,
                 clock=None, max_age=None):
        self.summariser, self.budget, self.keep_recent = summariser, budget, keep_recent
        self.measure, self.system = measure, system
        self.clock, self.max_age = clock or time.monotonic, max_age
        self.system_size = measure(system) if system else 0
        self.summary, self.summary_size = "", 0
        self.turns, self.turns_size = [], 0          # kit Messages, each measured once
        self.added_at = []                           # clock reading per verbatim turn

    @property
    def size(self):
        return self.system_size + self.summary_size + self.turns_size

    def add(self, role, content):
        message = make_message(role, content, self.measure)
        self.turns.append(message)
        self.turns_size += message.tokens
        if self.max_age is not None:
            self.added_at.append(self.clock())
        if self.size > self.budget:
            self.compact()
        elif self.max_age is not None and self.added_at[-1] - self.added_at[0] > self.max_age:
            self.refresh()

    def split(self):
        return split_for_compaction(self.turns, self.keep_recent)

    def fold(self, previous):
        old, recent = self.split()
        if not old:
            return
        summary = self.summariser(build_summary_prompt(previous, old))      # compute ...
        self.summary, self.summary_size = summary, self.measure(summary)    # ... commit
        self.turns, self.added_at = recent, self.added_at[len(old):]
        self.turns_size -= sum(m.tokens for m in old)

    def compact(self):
        self.fold(self.summary)

    def refresh(self):
        self.fold(self.summary)

    messages = BuggyMemory.messages
    context = BuggyMemory.context


@mistake(MECHANISM, "drops-turns-first",
         what="drops the old turns from the memory, then calls the summariser",
         why="when the summariser times out, the dropped turns are gone for good",
         hint="removed before the summariser call")
class DropsTurnsFirst(ReviewedReference):
    def fold(self, previous):
        old, recent = self.split()
        if not old:
            return
        self.turns, self.added_at = recent, self.added_at[len(old):]
        self.turns_size -= sum(m.tokens for m in old)
        summary = self.summariser(build_summary_prompt(previous, old))
        self.summary, self.summary_size = summary, self.measure(summary)


@mistake(MECHANISM, "summary-uncounted",
         what="size adds up the system prompt and the verbatim turns, not the summary",
         why="the context sent is bigger than the budget says, and compaction comes too late",
         hint="the summary is not counted")
class SummaryUncounted(ReviewedReference):
    @property
    def size(self):
        return self.system_size + self.turns_size


@mistake(MECHANISM, "slices-minus-zero",
         what="takes the recent turns as turns[-keep_recent:] (then keeps replies with "
              "their questions)",
         why="with keep_recent=0, turns[-0:] is the whole list: nothing is ever folded and "
             "the context grows without bound",
         hint="turns[-0:] is the whole list")
class SlicesMinusZero(ReviewedReference):
    def split(self):
        split = len(self.turns) - len(self.turns[-self.keep_recent:])
        while 0 < split < len(self.turns) and self.turns[split].role == "assistant":
            split -= 1
        return self.turns[:split], self.turns[split:]


@mistake(MECHANISM, "timer-overwrites-summary",
         what="the time-triggered compaction summarises the stale turns from an empty "
              "summary",
         why="every timed refresh replaces the running summary, so whatever was folded "
             "earlier (the order id, the allergy) is lost",
         hint="overwritten instead of updated")
class TimerOverwritesSummary(ReviewedReference):
    def refresh(self):
        self.fold("")


@mistake(MECHANISM, "orphans-reply-on-split",
         what="splits at len(turns) - keep_recent without moving back from a reply",
         why="the verbatim part can start with a reply whose question is only in the "
             "summary, which confuses the model",
         hint="starts with a reply whose question")
class OrphansReplyOnSplit(ReviewedReference):
    def split(self):
        split = max(len(self.turns) - self.keep_recent, 0)
        return self.turns[:split], self.turns[split:]


#: The five one-bug variants, in the order of the module docstring.
BUGS = (DropsTurnsFirst, SummaryUncounted, SlicesMinusZero, TimerOverwritesSummary,
        OrphansReplyOnSplit)
