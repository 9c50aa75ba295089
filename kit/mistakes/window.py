"""Wrong token windows (lesson 02's whole-mechanism exercise, mechanism "token window").

Each class has the exercise's signature, ``cls(budget, measure, system=None)`` with
``add(role, content)``, ``context()``, ``messages()`` and ``size`` (see
:mod:`kit.checks.token_window`), and gets one thing wrong. They share the plain, right
window :class:`_Window` and override the one step they get wrong, so the mistake is the
only difference you read. :func:`kit.checks.token_window.check_token_window` rejects
each with a message that holds its ``hint``.
"""
from __future__ import annotations

from kit.mistakes import mistake

__all__ = ["RecountsEveryAdd", "MeasuresTwice", "SizeRecounts", "SystemNotCounted",
           "EvictsAtBudget", "EvictsBeforeAppend", "KeepsOrphan", "DropsOneOrphan",
           "DropsGreeting", "AcceptsOversized", "RaisesAfterEvicting", "ZeroSlice",
           "MessagesAliased", "SizeCountsLabels", "ContextWithoutSystem",
           "OrphansOnlyOnEviction", "RefusedTakesANumber", "MessagesShareDicts"]

MECHANISM = "token window"


class _Window:
    """A right token window, written the way a learner would: (role, text, size)
    tuples, a running total, a flag that says the window has slid."""

    def __init__(self, budget, measure, system=None):
        self.budget, self.measure, self.system = budget, measure, system
        self.system_size = measure(system) if system else 0
        self.turns = []              # (role, content, size), oldest first
        self.total = 0               # size of the kept turns
        self.slid = False            # has anything been evicted yet?

    @property
    def room(self):
        return self.budget - self.system_size

    def add(self, role, content):
        size = self.measure(content)
        if size > self.room:
            raise ValueError(f"{size} is more than the {self.room} the budget leaves")
        self.turns.append((role, content, size))
        self.total += size
        self.evict()
        self.drop_orphans()

    def evict(self):
        while self.total > self.room:
            self.pop()

    def pop(self):
        _, _, size = self.turns.pop(0)
        self.total -= size
        self.slid = True

    def orphan(self):
        return (bool(self.turns) and self.turns[0][0] == "assistant"
                and any(role == "user" for role, _, _ in self.turns))

    def drop_orphans(self):
        while self.slid and self.orphan():
            self.pop()

    @property
    def size(self):
        return self.system_size + self.total

    def messages(self):
        head = [{"role": "system", "content": self.system}] if self.system else []
        return head + [{"role": role, "content": content} for role, content, _ in self.turns]

    def context(self):
        return "\n".join(f"{m['role']}: {m['content']}" for m in self.messages())


@mistake(MECHANISM, "recounts-every-add",
         what="Keeps only the texts and measures every kept message again on each add to "
              "find the total.",
         why="Each add costs a tokenizer pass over the whole window: the chat slows down "
             "as the window grows (quadratic work over a conversation kept in full).",
         hint="the calls per add grew")
class RecountsEveryAdd(_Window):
    def add(self, role, content):
        if self.measure(content) > self.room:
            raise ValueError("message too big for the budget")
        self.turns.append((role, content, 0))
        while sum(self.measure(c) for _, c, _ in self.turns) > self.room:
            self.pop()
        self.drop_orphans()

    @property
    def size(self):
        return self.system_size + sum(self.measure(c) for _, c, _ in self.turns)


@mistake(MECHANISM, "measures-twice",
         what="Measures the new message once to refuse an oversized one and again to store "
              "its size.",
         why="Two tokenizer passes per message where one does: a real tokenizer is the "
             "slowest step of an add.",
         hint="measured twice")
class MeasuresTwice(_Window):
    def add(self, role, content):
        if self.measure(content) > self.room:
            raise ValueError("message too big for the budget")
        self.turns.append((role, content, self.measure(content)))
        self.total += self.turns[-1][2]
        self.evict()
        self.drop_orphans()


@mistake(MECHANISM, "size-recounts",
         what="Computes size by measuring the system prompt and every kept message each "
              "time it is read.",
         why="The size is read before every model call, so each read costs a tokenizer "
             "pass over the window.",
         hint="should not call the measure")
class SizeRecounts(_Window):
    @property
    def size(self):
        system = self.measure(self.system) if self.system else 0
        return system + sum(self.measure(c) for _, c, _ in self.turns)


@mistake(MECHANISM, "system-not-counted",
         what="Evicts only while the messages alone are over the budget, leaving the system "
              "prompt out of the sum.",
         why="The request is over the budget by the size of the system prompt on every "
             "call once the window is full.",
         hint="count the system prompt against the budget")
class SystemNotCounted(_Window):
    def evict(self):
        while self.total > self.budget:
            self.pop()


@mistake(MECHANISM, "evicts-at-budget",
         what="Evicts while the size is at or over the budget (>= instead of >): one "
              "message too many goes.",
         why="A message that fits exactly is thrown away: the model loses context for "
             "nothing.",
         hint="a total equal to the budget fits")
class EvictsAtBudget(_Window):
    def evict(self):
        while self.total >= self.room:
            self.pop()


@mistake(MECHANISM, "evicts-before-append",
         what="Evicts to fit the budget before appending the new message, so the new "
              "message's size is never part of the test: one message too many stays.",
         why="The window is over the budget after most adds.",
         hint="one message too many")
class EvictsBeforeAppend(_Window):
    def add(self, role, content):
        size = self.measure(content)
        if size > self.room:
            raise ValueError("message too big for the budget")
        self.evict()
        self.turns.append((role, content, size))
        self.total += size
        self.drop_orphans()


@mistake(MECHANISM, "keeps-orphan",
         what="Evicts by budget only: a reply whose question was evicted stays at the front.",
         why="The model reads an answer to a question it cannot see, and some chat APIs "
             "refuse a conversation that opens with the assistant.",
         hint="drop that reply too")
class KeepsOrphan(_Window):
    def drop_orphans(self):
        pass


@mistake(MECHANISM, "drops-one-orphan",
         what="Drops a leading orphaned reply with an if, not a while: after two replies in "
              "a row, the second stays.",
         why="The window still opens with a reply to a question that has gone.",
         hint="a while, not an if")
class DropsOneOrphan(_Window):
    def drop_orphans(self):
        if self.slid and self.orphan():
            self.pop()


@mistake(MECHANISM, "drops-greeting",
         what="Applies the orphan rule from the first add: an opening assistant greeting "
              "is dropped as soon as the user answers it.",
         why="Nothing was evicted, so the greeting answered no lost question; dropping it "
             "loses what the user is replying to.",
         hint="greeting stays until the window first slides")
class DropsGreeting(_Window):
    def drop_orphans(self):
        while self.orphan():
            self.pop()


@mistake(MECHANISM, "accepts-oversized",
         what="Never refuses a message: one bigger than the budget evicts everything else "
              "and stays, alone and over the budget.",
         why="The whole conversation is lost and the request is still too big for the "
             "model.",
         hint="should raise ValueError")
class AcceptsOversized(_Window):
    def add(self, role, content):
        size = self.measure(content)
        self.turns.append((role, content, size))
        self.total += size
        while self.total > self.room and len(self.turns) > 1:
            self.pop()
        self.drop_orphans()


@mistake(MECHANISM, "raises-after-evicting",
         what="Evicts to make room first and raises ValueError only when the new message "
              "still does not fit: the older messages are gone by then.",
         why="A refused add must change nothing; here it silently empties the window.",
         hint="should leave the memory as it was")
class RaisesAfterEvicting(_Window):
    def add(self, role, content):
        size = self.measure(content)
        self.turns.append((role, content, size))
        self.total += size
        while self.total > self.room and len(self.turns) > 1:
            self.pop()
        if self.total > self.room:
            self.turns.pop()
            self.total -= size
            raise ValueError("message too big for the budget")
        self.drop_orphans()


@mistake(MECHANISM, "zero-slice",
         what="Counts how many older messages fit beside the new one (k) and keeps "
              "turns[-k:]; when none fits, turns[-0:] keeps them all.",
         why="A big message that should push everything out leaves the window over the "
             "budget.",
         hint="turns[-0:] is turns")
class ZeroSlice(_Window):
    def add(self, role, content):
        size = self.measure(content)
        if size > self.room:
            raise ValueError("message too big for the budget")
        left, k = self.room - size, 0
        for _, _, older in reversed(self.turns):
            if older > left:
                break
            left, k = left - older, k + 1
        if k < len(self.turns):
            self.slid = True
        self.turns = self.turns[-k:] + [(role, content, size)]
        self.total = sum(s for _, _, s in self.turns)
        self.drop_orphans()


@mistake(MECHANISM, "messages-aliased",
         what="Stores the chat as a list of dicts and returns that list itself from "
              "messages().",
         why="A caller that appends the question to the list it got, or trims it, changes "
             "the memory without knowing.",
         hint="returned its own list")
class MessagesAliased(_Window):
    def add(self, role, content):
        super().add(role, content)
        self.chat = super().messages()

    def messages(self):
        if not hasattr(self, "chat"):
            self.chat = super().messages()
        return self.chat


@mistake(MECHANISM, "size-counts-labels",
         what="Measures each message as its 'role: content' line, so size (and the "
              "eviction) counts the role labels too.",
         why="The size disagrees with the lessons' default rule (texts only), so the "
             "window evicts earlier than the budget says.",
         hint="size counts the role labels")
class SizeCountsLabels(_Window):
    def __init__(self, budget, measure, system=None):
        super().__init__(budget, measure, system)
        self.system_size = measure(f"system: {system}") if system else 0

    def add(self, role, content):
        size = self.measure(f"{role}: {content}")
        if size > self.room:
            raise ValueError("message too big for the budget")
        self.turns.append((role, content, size))
        self.total += size
        self.evict()
        self.drop_orphans()


@mistake(MECHANISM, "context-without-system",
         what="Builds context() from the kept messages only; the system prompt is in "
              "messages() but not in the text.",
         why="A caller that sends context() as the prompt loses the standing instructions "
             "on every call, while size still counts them.",
         hint="context() should hold the system prompt")
class ContextWithoutSystem(_Window):
    def context(self):
        return "\n".join(f"{role}: {content}" for role, content, _ in self.turns)


@mistake(MECHANISM, "orphans-only-on-eviction",
         what="Drops leading replies only on an add that evicted something, instead of "
              "whenever the window has slid: replies kept because no question followed "
              "them stay when a question arrives later without an eviction.",
         why="The window opens with replies to a question that left it earlier.",
         hint="once the window has slid, on every add")
class OrphansOnlyOnEviction(_Window):
    def add(self, role, content):
        size = self.measure(content)
        if size > self.room:
            raise ValueError(f"{size} is more than the {self.room} the budget leaves")
        self.turns.append((role, content, size))
        self.total += size
        before = len(self.turns)
        self.evict()
        if len(self.turns) < before:
            self.drop_orphans()


@mistake(MECHANISM, "refused-takes-a-number",
         what="Numbers each message as it arrives, a refused one included, and tells an "
              "opening greeting from an orphan by its number (message 1 is the greeting): "
              "after a refusal the greeting is message 2 and is dropped as an orphan.",
         why="A refused add must change nothing, its number included; here it changes "
             "what a later add keeps.",
         hint="a refused message takes no number")
class RefusedTakesANumber(_Window):
    def __init__(self, budget, measure, system=None):
        super().__init__(budget, measure, system)
        self.count = 0

    def add(self, role, content):
        self.count += 1                     # before the refusal: the refused one counts
        size = self.measure(content)
        if size > self.room:
            raise ValueError(f"{size} is more than the {self.room} the budget leaves")
        self.turns.append((role, content, size, self.count))
        self.total += size
        while self.total > self.room:
            self.total -= self.turns.pop(0)[2]
        while (self.turns[0][3] > 1 and self.turns[0][0] == "assistant"
               and any(turn[0] == "user" for turn in self.turns)):
            self.total -= self.turns.pop(0)[2]

    def messages(self):
        head = [{"role": "system", "content": self.system}] if self.system else []
        return head + [{"role": turn[0], "content": turn[1]} for turn in self.turns]


@mistake(MECHANISM, "messages-share-dicts",
         what="Keeps the chat as a list of dicts and returns a new list of those same "
              "dicts from messages().",
         why="A caller that edits a message it got (trims it, redacts it) rewrites the "
             "memory without knowing.",
         hint="returned the dicts it keeps")
class MessagesShareDicts(_Window):
    def add(self, role, content):
        super().add(role, content)
        kept = {content for _, content, _ in self.turns}
        self.chat = [m for m in getattr(self, "chat", []) if m["content"] in kept]
        self.chat.append({"role": role, "content": content})
        self.chat = [m for m in self.chat if m["content"] in kept]

    def messages(self):
        head = [{"role": "system", "content": self.system}] if self.system else []
        return head + list(getattr(self, "chat", []))
