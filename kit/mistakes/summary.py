"""Wrong answers to lesson 03's whole-mechanism exercise, mechanism ``"summary memory"``.

Each is a plausible class with the exercise's signature ``(summariser, budget,
keep_recent, measure, system=None)`` and the learner protocol (``add``, ``context``,
``messages``, ``size``), registered with :func:`kit.mistakes.mistake`; ``hint`` is a
piece of the message :func:`kit.checks.summary_memory.check_summary_memory` gives for it.

They share :class:`_Sound`, a correct memory split into small methods, and each
overrides the one method where the mistake sits, so the wrong line is easy to see.
"""
from __future__ import annotations

from kit.memory import build_summary_prompt, split_for_compaction
from kit.messages import make_message
from kit.mistakes import mistake

__all__ = ["RemovesBeforeSummarising", "SummaryNotCounted", "SlicesKeepRecent",
           "RecountsEveryAdd", "OrphansReply", "ResummarisesTranscript", "OverwritesSummary",
           "CompactsUnderBudget", "CompactsAtBudget", "SwallowsSummariserError",
           "HidesSummariserError", "IgnoresMeasure", "SummaryOnlyInContext",
           "BudgetBeatsKeepRecent", "SizeMeasuresOnRead", "MessagesShareDicts"]

MECHANISM = "summary memory"


class _Sound:
    """A correct summary memory (not registered): each message measured once, running
    totals, compute first and then commit."""

    def __init__(self, summariser, budget, keep_recent, measure, system=None):
        self.summariser, self.budget, self.keep_recent = summariser, budget, keep_recent
        self.measure, self.system = measure, system
        self.system_size = measure(system) if system else 0
        self.summary, self.summary_size = "", 0
        self.turns, self.turns_size = [], 0          # kit Messages, sizes measured once

    @property
    def size(self):
        return self.system_size + self.summary_size + self.turns_size

    def add(self, role, content):
        message = make_message(role, content, self.measure)
        self.turns.append(message)
        self.turns_size += message.tokens
        if self.over_budget():
            self.compact()

    def over_budget(self):
        return self.size > self.budget

    def split(self):
        return split_for_compaction(self.turns, self.keep_recent)

    def prompt(self, old):
        return build_summary_prompt(self.summary, old)

    def compact(self):
        old, recent = self.split()
        if not old:
            return
        summary = self.summariser(self.prompt(old))            # compute ...
        self.summary, self.summary_size = summary, self.measure(summary)   # ... then commit
        self.turns = recent
        self.turns_size -= sum(m.tokens for m in old)

    def messages(self):
        head = [{"role": "system", "content": self.system}] if self.system else []
        if self.summary:
            head.append({"role": "system",
                         "content": f"Summary of earlier conversation:\n{self.summary}"})
        return head + [{"role": m.role, "content": m.content} for m in self.turns]

    def context(self):
        return "\n".join(f"{m['role']}: {m['content']}" for m in self.messages())


@mistake(MECHANISM, "removes-before-summarising",
         what="deletes the old turns from the memory first, then calls the summariser",
         why="when the summariser times out, the deleted turns are gone for good",
         hint="removed before the summariser call")
class RemovesBeforeSummarising(_Sound):
    def compact(self):
        old, recent = self.split()
        if not old:
            return
        self.turns = recent                                     # committed too early
        self.turns_size -= sum(m.tokens for m in old)
        summary = self.summariser(self.prompt(old))
        self.summary, self.summary_size = summary, self.measure(summary)


@mistake(MECHANISM, "summary-not-counted",
         what="size adds up the system prompt and the verbatim turns, not the summary",
         why="the context sent is bigger than the budget says, and compaction comes too late",
         hint="the summary is not counted")
class SummaryNotCounted(_Sound):
    @property
    def size(self):
        return self.system_size + self.turns_size


@mistake(MECHANISM, "slices-keep-recent",
         what="takes the recent turns as turns[-keep_recent:]",
         why="with keep_recent=0, turns[-0:] is the whole list: nothing is ever folded and "
             "the context grows without bound",
         hint="turns[-0:] is the whole list")
class SlicesKeepRecent(_Sound):
    def split(self):
        recent = self.turns[-self.keep_recent:]
        split = len(self.turns) - len(recent)
        while 0 < split < len(self.turns) and self.turns[split].role == "assistant":
            split -= 1
        return self.turns[:split], self.turns[split:]


@mistake(MECHANISM, "recounts-every-add",
         what="size re-measures every verbatim turn (and the summary) each time it is read",
         why="each add costs more tokenizer calls as the memory grows: quadratic work over "
             "a chat, as in the well-known libraries",
         hint="re-measures messages it has already measured")
class RecountsEveryAdd(_Sound):
    @property
    def size(self):
        texts = [self.system or "", self.summary] + [m.content for m in self.turns]
        return sum(self.measure(text) for text in texts if text)


@mistake(MECHANISM, "orphans-reply",
         what="splits at len(turns) - keep_recent without moving back from a reply",
         why="the verbatim part can start with a reply whose question is only in the "
             "summary, which confuses the model",
         hint="starts with a reply whose question")
class OrphansReply(_Sound):
    def split(self):
        split = max(len(self.turns) - self.keep_recent, 0)
        return self.turns[:split], self.turns[split:]


@mistake(MECHANISM, "resummarises-transcript",
         what="keeps the whole transcript and re-summarises it from the start at every "
              "compaction",
         why="every compaction re-reads a growing transcript: slower and dearer each time, "
             "quadratic over a chat",
         hint="not incremental")
class ResummarisesTranscript(_Sound):
    def __init__(self, summariser, budget, keep_recent, measure, system=None):
        super().__init__(summariser, budget, keep_recent, measure, system)
        self.folded = []                                      # every turn folded so far

    def compact(self):
        old, recent = self.split()
        if not old:
            return
        summary = self.summariser(build_summary_prompt("", self.folded + old))  # all again
        self.summary, self.summary_size = summary, self.measure(summary)
        self.turns, self.folded = recent, self.folded + old
        self.turns_size -= sum(m.tokens for m in old)


@mistake(MECHANISM, "overwrites-summary",
         what="builds each update prompt without the previous summary",
         why="each compaction replaces the summary, so whatever was folded earlier (the "
             "order id, the allergy) is lost",
         hint="the summary was overwritten instead of updated")
class OverwritesSummary(_Sound):
    def prompt(self, old):
        return build_summary_prompt("", old)


@mistake(MECHANISM, "compacts-under-budget",
         what="compacts after every add that leaves something older than keep_recent, "
              "whatever the size",
         why="a model call (time, money, lost detail) on almost every message, when the "
             "context fits",
         hint="under the budget of")
class CompactsUnderBudget(_Sound):
    def over_budget(self):
        return True


@mistake(MECHANISM, "compacts-at-budget",
         what="compacts when size >= budget",
         why="a context exactly at the budget fits; compacting it costs a model call and "
             "loses detail for nothing",
         hint="A context equal to the budget fits")
class CompactsAtBudget(_Sound):
    def over_budget(self):
        return self.size >= self.budget


@mistake(MECHANISM, "swallows-summariser-error",
         what="catches the summariser's exception in add and carries on",
         why="the caller never learns that compaction failed; the memory silently stops "
             "compacting and grows past the budget",
         hint="memory.add returned normally")
class SwallowsSummariserError(_Sound):
    def compact(self):
        try:
            super().compact()
        except Exception:
            pass                                               # "the next add retries"


@mistake(MECHANISM, "hides-summariser-error",
         what="replaces the summariser's exception by a new one, raised `from None`",
         why="the caller cannot tell a timeout from a bad key or a quota, and the traceback "
             "of the real failure is gone",
         hint="without it as its cause")
class HidesSummariserError(_Sound):
    def compact(self):
        try:
            super().compact()
        except Exception:
            raise RuntimeError("compaction failed") from None


@mistake(MECHANISM, "ignores-measure",
         what="counts words with len(text.split()) instead of the measure it was given",
         why="the sizes are in the wrong unit: a token budget is checked in words, so the "
             "context sent can be far over the model's limit",
         hint="never called the measure it was given")
class IgnoresMeasure(_Sound):
    def __init__(self, summariser, budget, keep_recent, measure, system=None):
        super().__init__(summariser, budget, keep_recent, lambda text: len(text.split()),
                         system)


@mistake(MECHANISM, "summary-only-in-context",
         what="puts the summary in context() but sends only the system prompt and the "
              "verbatim turns in messages()",
         why="a chat API gets messages(), so the model never sees what was folded: the "
             "memory forgets everything older than keep_recent",
         hint="should hold the summary")
class SummaryOnlyInContext(_Sound):
    def messages(self):
        head = [{"role": "system", "content": self.system}] if self.system else []
        return head + [{"role": m.role, "content": m.content} for m in self.turns]

    def context(self):
        parts = [self.system or "", self.summary and f"Summary: {self.summary}"]
        return "\n".join([p for p in parts if p] +
                         [f"{m.role}: {m.content}" for m in self.turns])


@mistake(MECHANISM, "budget-beats-keep-recent",
         what="when the memory is over budget and nothing is older than keep_recent, folds "
              "every turn anyway (the budget wins over keep_recent)",
         why="the newest turns, which keep_recent promises verbatim, are squeezed into the "
             "summary: the model loses the exact words of what was just said",
         hint="keep_recent wins over the budget")
class BudgetBeatsKeepRecent(_Sound):
    def split(self):
        old, recent = super().split()
        return (old, recent) if old else split_for_compaction(self.turns, 0)


@mistake(MECHANISM, "size-measures-on-read",
         what="size measures the system prompt and the summary again each time it is read "
              "(the turns come from a running total)",
         why="the size is read before every model call and on every add: each read is a "
             "tokenizer pass over the summary, work the running totals already did",
         hint="reading size, context() and messages() should not call the measure")
class SizeMeasuresOnRead(_Sound):
    @property
    def size(self):
        return ((self.measure(self.system) if self.system else 0)
                + (self.measure(self.summary) if self.summary else 0) + self.turns_size)


@mistake(MECHANISM, "messages-share-dicts",
         what="keeps the verbatim turns as a list of dicts and returns them (in a new list) "
              "from messages()",
         why="a caller that edits a message it got (to trim or redact it) rewrites the "
             "memory without knowing",
         hint="returned the dicts it keeps")
class MessagesShareDicts(_Sound):
    def messages(self):
        kept = getattr(self, "chat", {})          # id of a kept Message -> its dict
        self.chat = {id(m): kept.get(id(m), {"role": m.role, "content": m.content})
                     for m in self.turns}
        head = [{"role": "system", "content": self.system}] if self.system else []
        if self.summary:
            head.append({"role": "system",
                         "content": f"Summary of earlier conversation:\n{self.summary}"})
        return head + list(self.chat.values())
