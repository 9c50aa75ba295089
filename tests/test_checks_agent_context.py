"""The lesson-11 whole-mechanism checker (an agent context manager) accepts right designs
and rejects every registered wrong one with its hint."""
from __future__ import annotations

import pytest

from kit.agent.clearing import placeholder
from kit.checks import CheckFailed
from kit.checks import agent_context as checks
from kit.checks.agent_context import check_agent_context
from kit.mistakes import mistakes

NAME = "agent context"


class CommitAgent:
    """Compute first, then commit: the context is a tuple of (role, content, calls,
    call_id, size); each add builds the new tuple (cleared, then trimmed) and swaps it in."""

    def __init__(self, budget, measure, system=None, *, trigger, keep, clear_at_least):
        self.budget, self.measure, self.system = budget, measure, system
        self.trigger, self.keep, self.least = trigger, keep, clear_at_least
        self.head = measure(system) if system else 0
        self.state, self.open, self.tool_of = (), [], {}

    @property
    def size(self):
        return self.head + sum(m[4] for m in self.state)

    def add(self, role, content, tool_calls=None, call_id=None):
        calls = tuple((c["id"], c["name"], c["arguments"]) for c in tool_calls or ())
        size = self.measure(content) + sum(self.measure(n) + self.measure(a) for _, n, a in calls)
        if self.head + size > self.budget:
            raise ValueError("too big")
        if role == "tool" and call_id not in self.open or role != "tool" and self.open:
            raise ValueError("pairs")
        state = self.state + ((role, content, calls, call_id, size),)
        still_open = [i for i in self.open if i != call_id] + [c[0] for c in calls]
        self.tool_of.update((i, n) for i, n, _ in calls)
        if not still_open:
            state = self._trim(self._clear(state))       # may raise: nothing assigned yet
        self.state, self.open = state, still_open

    def _clear(self, state):
        total = self.head + sum(m[4] for m in state)
        if total <= self.trigger:
            return state
        results = [i for i, m in enumerate(state) if m[0] == "tool"]
        old = results[:len(results) - self.keep] if self.keep else results
        state, saved = list(state), 0
        for i in old:
            role, content, calls, cid, size = state[i]
            if content.startswith("[cleared"):
                continue
            text = placeholder(self.tool_of[cid], size)
            new = self.measure(text)
            state[i] = (role, text, calls, cid, new)
            saved += size - new
            if saved >= self.least and total - saved <= self.trigger:
                break
        return tuple(state)

    def _trim(self, state):
        state = list(state)
        asked = max(i for i, m in enumerate(state) if m[0] == "user")
        i = 0
        while self.head + sum(m[4] for m in state) > self.budget and i < len(state):
            if i == asked:
                i += 1
                continue
            end = i + 1
            while end < len(state) and state[end][0] == "tool":
                end += 1
            if i < asked:
                asked -= end - i
            del state[i:end]
        return tuple(state)

    def messages(self):
        out = [{"role": "system", "content": self.system}] if self.system else []
        for role, content, calls, cid, _ in self.state:
            m = {"role": role, "content": content}
            if calls:
                m["tool_calls"] = [{"id": i, "type": "function",
                                    "function": {"name": n, "arguments": a}} for i, n, a in calls]
            if cid:
                m["tool_call_id"] = cid
            out.append(m)
        return out

    def context(self):
        return "\n".join(f"[{m['role']}] {m['content']}" for m in self.messages())


class GroupAgent:
    """Groups: each entry is a user message or an assistant message with its results, as
    a list of dicts with their sizes; a running total; clearing walks the groups, measures
    its placeholders first, and an add whose measure fails is taken back."""

    def __init__(self, budget, measure, system=None, *, trigger, keep, clear_at_least):
        self.budget, self.measure, self.system = budget, measure, system
        self.trigger, self.keep, self.least = trigger, keep, clear_at_least
        self.size = measure(system) if system else 0
        self.budget_room = budget - self.size
        self.groups, self.pending = [], set()

    def add(self, role, content, tool_calls=None, call_id=None):
        calls = tool_calls or []
        size = self.measure(content) + sum(self.measure(c["name"]) + self.measure(c["arguments"])
                                           for c in calls)
        if size > self.budget_room:
            raise ValueError("never fits")
        if (role == "tool") != (call_id in self.pending) or (role != "tool" and self.pending):
            raise ValueError("pairs")
        entry = {"role": role, "content": content, "calls": calls, "id": call_id,
                 "size": size, "cleared": False}
        if role == "tool":
            self.groups[-1].append(entry)
            self.pending.discard(call_id)
        else:
            self.groups.append([entry])
            self.pending = {c["id"] for c in calls}
        self.size += size
        if not self.pending:
            try:
                plan = self._plan()
            except Exception:                    # a failed measure: take the add back
                self.size -= size
                (self.groups[-1] if role == "tool" else self.groups).pop()
                if role == "tool":
                    self.pending.add(call_id)
                raise
            for e, text, new in plan:
                self.size -= e["size"] - new
                e.update(content=text, size=new, cleared=True)
            self._evict()

    def _plan(self):
        """[(entry, placeholder, its size)] to clear, all measured before any change."""
        if self.size <= self.trigger:
            return []
        results = [e for g in self.groups for e in g if e["role"] == "tool"]
        plan, saved = [], 0
        for e in results[:max(0, len(results) - self.keep)]:
            if e["cleared"]:
                continue
            name = next(c["name"] for g in self.groups for c in g[0]["calls"] if c["id"] == e["id"])
            text = placeholder(name, e["size"])
            new = self.measure(text)
            plan.append((e, text, new))
            saved += e["size"] - new
            if saved >= self.least and self.size - saved <= self.trigger:
                break
        return plan

    def _evict(self):
        live = max(i for i, g in enumerate(self.groups) if g[0]["role"] == "user")
        i = 0
        while self.size > self.budget and i < len(self.groups):
            if i == live:
                i += 1
                continue
            self.size -= sum(e["size"] for e in self.groups.pop(i))
            live -= 1 if i < live else 0

    def messages(self):
        out = [{"role": "system", "content": self.system}] if self.system else []
        for group in self.groups:
            for e in group:
                m = {"role": e["role"], "content": e["content"]}
                if e["calls"]:
                    m["tool_calls"] = [dict(c) for c in e["calls"]]
                if e["id"]:
                    m["tool_call_id"] = e["id"]
                out.append(m)
        return out

    def context(self):
        return "\n\n".join(m["content"] for m in self.messages())


@pytest.mark.parametrize("design", [CommitAgent, GroupAgent])
def test_right_designs_pass(design, capsys):
    check_agent_context(design)
    assert capsys.readouterr().out == "PASS agent context: 109 cases correct\n"


def test_the_kit_class_passes():
    assert sum(part(checks._Kit) for part in checks.PARTS) == 109


WRONG = mistakes(NAME)


def test_the_registry_has_the_named_wrong_answers():
    assert {m.name for m in WRONG} == {
        "orphaned-result", "newest-result-cleared", "clears-every-step",
        "call-split-from-result", "question-cleared", "placeholder-uncounted",
        "half-done-add"}


@pytest.mark.parametrize("wrong", WRONG, ids=lambda m: m.name)
def test_each_wrong_answer_fails_with_its_hint(wrong):
    with pytest.raises(CheckFailed) as failure:
        check_agent_context(wrong.answer)
    assert wrong.hint in str(failure.value)


def test_a_stub_says_it_is_not_written():
    class Stub:
        def __init__(self, *args, **kwargs):
            raise NotImplementedError
    with pytest.raises(CheckFailed, match="not written yet"):
        check_agent_context(Stub)
