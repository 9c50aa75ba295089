"""Wrong agent context managers (lesson 11's whole-mechanism exercise and the drill
``agent-context``; mechanism "agent context").

Each class has the exercise's signature, ``cls(budget, measure, system=None, *, trigger,
keep, clear_at_least)`` with ``add(role, content, tool_calls=None, call_id=None)``,
``messages()``, ``context()`` and ``size`` (see :mod:`kit.checks.agent_context`), and gets
one thing wrong. They share the plain, right manager :class:`_Agent` and override the one
step they get wrong, so the mistake is the only difference you read.
"""
from __future__ import annotations

from kit.agent.clearing import placeholder
from kit.mistakes import mistake

__all__ = ["DropsOldestMessage", "ClearsNewestResult", "ClearsEveryStep", "CompactsAtCount",
           "DropsQuestion", "PlaceholderUncounted", "HalfDoneAdd"]

MECHANISM = "agent context"


class _Agent:
    """A right agent context manager, written the way a learner would: a list of dicts
    with their sizes, a running total, the calls waiting for results; the clearing is
    planned (every placeholder measured) before anything changes, and an add whose measure
    fails is taken back."""

    def __init__(self, budget, measure, system=None, *, trigger, keep, clear_at_least):
        self.budget, self.measure, self.system = budget, measure, system
        self.trigger, self.keep, self.at_least = trigger, keep, clear_at_least
        self.fixed = measure(system) if system else 0
        self.items, self.total = [], self.fixed
        self.waiting, self.names = set(), {}

    @property
    def size(self):
        return self.total

    def add(self, role, content, tool_calls=None, call_id=None):
        calls = tool_calls or []
        size = self.measure(content) + sum(self.measure(c["name"]) + self.measure(c["arguments"])
                                           for c in calls)
        if size > self.budget - self.fixed:
            raise ValueError(f"a message of {size} can never fit the budget {self.budget}")
        waits = call_id in self.waiting
        if (role == "tool") != bool(self.waiting) or (role == "tool" and not waits):
            raise ValueError(f"{role} message breaks the pairs (waiting: {self.waiting})")
        self.items.append({"role": role, "content": content, "size": size, "calls": calls,
                           "call_id": call_id, "cleared": False})
        self.total += size
        waiting = (self.waiting - {call_id}) | {c["id"] for c in calls}
        self.names.update((c["id"], c["name"]) for c in calls)
        if not waiting:
            try:
                plan = self.plan() if self.total > self.trigger else []
            except Exception:                # the measure failed: take the add back
                self.items.pop()
                self.total -= size
                raise
            self.apply(plan)
            self.make_room()
        self.waiting = waiting

    def candidates(self):
        results = [item for item in self.items if item["role"] == "tool"]
        return results[:len(results) - self.keep] if self.keep else results

    def plan(self):
        """The results to clear as (item, placeholder, its size), oldest first, every
        placeholder measured before anything changes."""
        plan, saved = [], 0
        for item in self.candidates():
            if item["cleared"]:
                continue
            text = placeholder(self.names[item["call_id"]], item["size"])
            new = self.measure(text)
            plan.append((item, text, new))
            saved += item["size"] - new
            if self.enough(saved, self.total - saved):
                break
        return plan

    def enough(self, saved, total):
        return saved >= self.at_least and total <= self.trigger

    def apply(self, plan):
        for item, text, new in plan:
            self.total -= item["size"] - new
            item.update(content=text, size=new, cleared=True)

    def question(self):
        return max((i for i, item in enumerate(self.items) if item["role"] == "user"), default=-1)

    def make_room(self):
        """Drop the oldest group (a message with the results after it) while over budget,
        never the newest user message."""
        i, question = 0, self.question()
        while self.total > self.budget and i < len(self.items):
            if i == question:
                i += 1
                continue
            end = i + 1
            while end < len(self.items) and self.items[end]["role"] == "tool":
                end += 1
            self.drop(i, end)
            question -= end - i if i < question else 0

    def drop(self, start, end):
        self.total -= sum(item["size"] for item in self.items[start:end])
        del self.items[start:end]

    def messages(self):
        out = [{"role": "system", "content": self.system}] if self.system else []
        for item in self.items:
            message = {"role": item["role"], "content": item["content"]}
            if item["calls"]:
                message["tool_calls"] = [{"id": c["id"], "type": "function", "function": {
                    "name": c["name"], "arguments": c["arguments"]}} for c in item["calls"]]
            if item["call_id"]:
                message["tool_call_id"] = item["call_id"]
            out.append(message)
        return out

    def context(self):
        return "\n".join(f"{m['role']}: {m['content']}" for m in self.messages())


@mistake(MECHANISM, "orphaned-result",
         what="makes room by dropping the oldest message whatever its role, so a call can go "
              "while its result stays",
         why="the request holds a tool result whose call is gone, and the provider refuses it: "
             "the agent stops",
         hint="make room by dropping a call together with all its results")
class DropsOldestMessage(_Agent):
    def make_room(self):
        question = self.question()
        i = 0
        while self.total > self.budget and i < len(self.items):
            if i == question:
                i += 1
                continue
            self.drop(i, i + 1)
            question -= 1 if i < question else 0


@mistake(MECHANISM, "newest-result-cleared",
         what="keeps keep - 1 results out of the clearing (off by one), so the keep-th newest "
              "result is cleared",
         why="the model loses a result it is still working on and calls the tool again",
         hint="only results older than the newest keep are candidates")
class ClearsNewestResult(_Agent):
    def candidates(self):
        results = [item for item in self.items if item["role"] == "tool"]
        return results[:len(results) - self.keep + 1] if self.keep > 1 else results


@mistake(MECHANISM, "clears-every-step",
         what="ignores clear_at_least: clears just enough to get back under the trigger, so "
              "the next result triggers it again",
         why="every step rewrites the prompt from the first cleared result on: the prompt cache "
             "never hits and the bill is several times higher",
         hint="once triggered, clear at least clear_at_least")
class ClearsEveryStep(_Agent):
    def enough(self, saved, total):
        return total <= self.trigger


@mistake(MECHANISM, "call-split-from-result",
         what="makes room like a compaction that cuts at a count: folds all but the newest 3 "
              "messages into one note, without moving the cut back to a call",
         why="the kept part can open with a tool result whose call was folded away: the request "
             "is refused",
         hint="an orphaned result")
class CompactsAtCount(_Agent):
    def make_room(self):
        if self.total <= self.budget or len(self.items) <= 4:
            return
        question = self.items[self.question()]
        kept = self.items[-3:]
        folded = [item for item in self.items[:-3] if item is not question]
        note = f"[{len(folded)} earlier messages folded]"
        size = self.measure(note)
        self.total += size - sum(item["size"] for item in folded)
        head = [{"role": "user", "content": note, "size": size, "calls": [], "call_id": None,
                 "cleared": False}]
        self.items = head + ([question] if question not in kept else []) + kept


@mistake(MECHANISM, "question-cleared",
         what="makes room by dropping the oldest groups, the newest user message among them",
         why="the live question leaves the context: the agent carries on without knowing what "
             "it was asked",
         hint="never clear or drop the newest user message")
class DropsQuestion(_Agent):
    def question(self):
        return -1


@mistake(MECHANISM, "placeholder-uncounted",
         what="takes a cleared result's size off the total but does not add the placeholder's",
         why="size says less than the request holds, so the trigger and the budget fire late "
             "and the request can pass the window",
         hint="a placeholder is a message too")
class PlaceholderUncounted(_Agent):
    def apply(self, plan):
        for item, text, _ in plan:
            self.total -= item["size"]
            item.update(content=text, size=0, cleared=True)


@mistake(MECHANISM, "half-done-add",
         what="clears in place, measuring each placeholder as it goes: when the measure fails "
              "half way, the new message and the results cleared so far stay",
         why="the caller sees the error and retries the add: the message is in the context twice, "
             "or results are cleared with sizes that no longer add up",
         hint="compute then commit")
class HalfDoneAdd(_Agent):
    def plan(self):
        saved = 0
        for item in self.candidates():
            if item["cleared"]:
                continue
            text = placeholder(self.names[item["call_id"]], item["size"])
            new = self.measure(text)
            saved += item["size"] - new
            self.total -= item["size"] - new          # changed before the next measure
            item.update(content=text, size=new, cleared=True)
            if self.enough(saved, self.total):
                break
        return []
