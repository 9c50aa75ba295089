"""The agent context manager: what an agent sends its model at each step (lesson 11).

:class:`AgentContext` holds an agent's run (the system prompt, user messages, assistant
messages with tool calls, tool results) and keeps it fit to send, with the policies of
this package layered on a plain full history:

- ``clearing`` (:class:`~kit.agent.clearing.ClearToolResults`): old tool results replaced
  by a counted placeholder, past a trigger, at least ``clear_at_least`` at a time;
- ``compaction`` (:class:`~kit.agent.compaction.CompactInLoop`): past its trigger, all but
  the newest messages folded into a task-state summary, computed then committed, with a
  fallback and a fact check;
- ``window`` (tokens): a sliding window that drops the oldest call-and-results group
  (never half of one) until the context fits, never the live question.

Whatever the policy, every context it returns keeps the pair invariant
(:mod:`kit.agent.pairs`), and the live question (the newest user message) is never
cleared, folded away or evicted. The protocol (the call shape of the lesson, the drill and
the checker): ``add(role, content, tool_calls=None, call_id=None)``, ``context()``,
``messages()``, ``size`` (see :mod:`kit.agent.loop`).

Sizes are in tokens of ``measure`` under the ``count`` rule (:mod:`kit.sizing`, default
``"billed"``: calls and results as a chat request bills them), each message and
placeholder measured once; ``size`` is a running total.
"""
from __future__ import annotations

from collections.abc import Callable

from kit.agent.clearing import ClearToolResults, plan_clearing
from kit.agent.compaction import (TASK_PROMPT, CompactInLoop, TaskStateModel, compact_turns,
                                  fold_request)
from kit.messages import AGENT_ROLES, Message, as_chat, make_message, render
from kit.sizing import SizeRule
from kit.tokens import Measure, cl100k_tokens
from kit.validation import check_int

__all__ = ["AgentContext"]


class AgentContext:
    """An agent's context under a policy (all off: the full history).

    ``measure``: ``str -> int``; ``system``: the system prompt (str or None); ``clearing``,
    ``compaction``: the policies' options, or None; ``window``: a sliding window's budget
    in tokens (int > 0) or None; ``summariser``: ``str -> str`` for compaction (default a
    :class:`~kit.agent.compaction.TaskStateModel`); ``count``: see :mod:`kit.sizing`.

    ``trace`` lists the events as dicts (``{"event": "cleared", "results": 3, "saved":
    8123, ...}``); ``summariser_calls`` and ``summariser_tokens`` (the prompts' sizes,
    from sizes already held) count the compactions' model use; with a ``cached``
    compaction ``summariser_requests`` holds instead each request the summariser was sent
    (chat dicts, :func:`~kit.agent.compaction.fold_request`), for the cache meter to bill.
    Raises TypeError/ValueError naming a bad argument.
    """

    name = "agent context"

    def __init__(self, measure: Measure = cl100k_tokens, system: str | None = None, *,
                 clearing: ClearToolResults | None = None,
                 compaction: CompactInLoop | None = None, window: int | None = None,
                 summariser: Callable[[str], object] | None = None,
                 count: str = "billed") -> None:
        if not callable(measure):
            raise TypeError(f"measure must be callable str -> int, got {measure!r:.60}")
        for name, value, kind in (("clearing", clearing, ClearToolResults),
                                  ("compaction", compaction, CompactInLoop)):
            if value is not None and not isinstance(value, kind):
                raise TypeError(f"{name} must be a {kind.__name__} or None, got {value!r:.60}")
        self.window = None if window is None else check_int("window", window, 1)
        self.rule = SizeRule(measure, count)
        self.measure, self.clearing, self.compaction = measure, clearing, compaction
        if summariser is not None and not callable(summariser):
            raise TypeError(f"summariser must be callable str -> str or None, got "
                            f"{summariser!r:.60}")
        self.summariser = TaskStateModel() if summariser is None else summariser
        self.system = (make_message("system", system, measure, 0, ("system",),
                                    size=self.rule.message) if system else None)
        self.turns: list[Message] = []
        self.summary, self.summary_tokens = "", 0
        self.requests: tuple = ()            # user messages folded so far (fact-check sources)
        self.turn_tokens = 0
        self.names: dict[str, str] = {}      # call id -> tool name
        self.waiting: list[str] = []         # calls of the last assistant message, unanswered
        self.cleared: set[str] = set()
        self.trace: list[dict] = []
        self.summariser_calls = self.summariser_tokens = 0
        self.summariser_requests: list[list[dict]] = []
        self._prompt_tokens = self.rule.summary(TASK_PROMPT) if compaction else 0

    # -- the protocol ----------------------------------------------------------
    @property
    def size(self) -> int:
        """The context's size in tokens under the ``count`` rule: system prompt, summary,
        messages (placeholders as they are), plus the rule's fixed overhead."""
        return (self.rule.overhead + (self.system.tokens if self.system else 0)
                + self.summary_tokens + self.turn_tokens)

    def messages(self) -> list[dict]:
        """The request as chat dicts: the system prompt, the summary (a user message), then
        the messages, oldest first. A new list."""
        head = [self.system.chat()] if self.system else []
        if self.summary:
            head.append({"role": "user", "content": self.summary})
        return head + as_chat(self.turns)

    def context(self) -> str:
        """The same as transcript lines (:func:`kit.messages.render`)."""
        summary = [Message("user", self.summary, 0)] if self.summary else []
        return render(([self.system] if self.system else []) + summary + self.turns)

    def add(self, role: str, content: str, tool_calls: list | None = None,
            call_id: str | None = None) -> None:
        """Add a message: ``"user"``, ``"assistant"`` (with ``tool_calls``: a list of
        ``{"id", "name", "arguments"}``) or ``"tool"`` (with the ``call_id`` it answers).
        Then apply the policies. Raises ValueError, changing nothing, for a message bigger
        than the ``window`` leaves beside the system prompt, for a result whose
        call is not waiting for one (an orphan), a user or assistant message while calls
        wait for results, a call id used before, or what :func:`kit.messages.make_message`
        refuses. An add is all or nothing: if the measure raises while a policy runs (a
        placeholder or a summary measured), the error propagates and the context is as it
        was before the add (a summariser's failure is not an error: the fallback writes)."""
        message = make_message(role, content, self.measure, len(self.turns) + 1, AGENT_ROLES,
                               calls=tool_calls or (), call_id=call_id,
                               size=self.rule.of if tool_calls or role == "tool"
                               else self.rule.message)
        if role == "tool" and message.call_id not in self.waiting:
            raise ValueError(f"tool result for {call_id!r} answers no waiting call (waiting: "
                             f"{self.waiting or 'none'}): it would be an orphaned result")
        if role != "tool" and self.waiting:
            raise ValueError(f"calls {self.waiting} wait for their results: add those before "
                             f"a {role} message")
        room = self.window - (self.size - self.turn_tokens - self.summary_tokens) \
            if self.window else None
        if room is not None and message.tokens > room:
            raise ValueError(f"a {role} message of size {message.tokens} can never fit the "
                             f"window of {self.window} ({room} left beside the system prompt)")
        reused = [c.id for c in message.calls if c.id in self.names]
        if reused:
            raise ValueError(f"tool call ids {reused} were used before in this run")
        before = (self.turns, self.turn_tokens, self.summary, self.summary_tokens,
                  self.requests, list(self.waiting), set(self.cleared), len(self.trace),
                  len(self.summariser_requests))
        self.turns.append(message)           # the policies commit new lists, never edit it
        self.turn_tokens += message.tokens
        if role == "tool":
            self.waiting.remove(message.call_id)
        self.waiting += [c.id for c in message.calls]
        self.names.update((c.id, c.name) for c in message.calls)
        try:
            if not self.waiting:             # never cut between a call and its result
                self._manage()
        except BaseException:                # a measure failed: the add did not happen
            (self.turns, self.turn_tokens, self.summary, self.summary_tokens, self.requests,
             self.waiting, self.cleared, events, asked) = before
            self.turns.pop()                 # the list the message was appended to
            del self.trace[events:]
            del self.summariser_requests[asked:]
            for call in message.calls:
                del self.names[call.id]
            raise

    # -- the policies ----------------------------------------------------------
    def _manage(self) -> None:
        if self.clearing:
            self._clear()
        if self.compaction and self.size > self.compaction.trigger:
            self._compact()
        if self.window and self.size > self.window:
            self._slide()

    def _placeholder(self, message: Message, text: str) -> Message:
        return make_message("tool", text, self.measure, message.number, AGENT_ROLES,
                            call_id=message.call_id, size=self.rule.of)

    def _clear(self) -> None:
        plan = plan_clearing(self.turns, self.size, self.clearing, self.names, self.cleared,
                             self._placeholder)
        if not plan:
            return
        turns, saved = list(self.turns), 0
        for i, placeholder in plan:              # compute, then commit
            saved += turns[i].tokens - placeholder.tokens
            turns[i] = placeholder
        before = self.size
        self.turns, self.turn_tokens = turns, self.turn_tokens - saved
        self.cleared.update(p.call_id for _, p in plan)
        self.trace.append({"event": "cleared", "results": len(plan), "saved": saved,
                           "before": before, "after": self.size,
                           "first": plan[0][1].call_id, "last": plan[-1][1].call_id})

    def _compact(self) -> None:
        old_tokens = self.turn_tokens
        asked = self.messages() if self.compaction.cached else None   # before the commit
        done = compact_turns(self.summary, self.turns, self.compaction.keep_recent,
                             self._counted_summariser, self.requests)
        if done is None:
            return
        before = self.size
        kept_tokens = sum(m.tokens for m in done.kept)
        if self.compaction.cached:           # billed by the meter, through the cache
            self.summariser_requests.append(fold_request(asked, self.compaction.keep_recent))
        else:
            self.summariser_tokens += (self._prompt_tokens + self.summary_tokens
                                       + old_tokens - kept_tokens)
        self.summary, self.summary_tokens = done.summary, self.rule.message("user", done.summary)
        self.turns, self.turn_tokens, self.requests = done.kept, kept_tokens, done.requests
        self.trace.append({"event": "compacted", "folded": done.folded, "by": done.by,
                           "repaired": list(done.repaired), "before": before,
                           "after": self.size})

    def _counted_summariser(self, prompt: str) -> object:
        self.summariser_calls += 1
        return self.summariser(prompt)

    def _slide(self) -> None:
        """Drop the oldest group (a user message, or an assistant message with its
        results) until the context fits, never the newest user message."""
        turns, tokens = list(self.turns), self.turn_tokens
        question = max((i for i, m in enumerate(turns) if m.role == "user"), default=-1)
        fixed, i, dropped = self.size - self.turn_tokens, 0, 0
        while fixed + tokens > self.window and i < len(turns):
            if i == question:
                i += 1
                continue
            end = i + 1
            while end < len(turns) and turns[end].role == "tool":
                end += 1
            tokens -= sum(m.tokens for m in turns[i:end])
            dropped += end - i
            question -= (end - i) if i < question else 0
            del turns[i:end]
        if dropped:
            self.turns, self.turn_tokens = turns, tokens
            self.trace.append({"event": "evicted", "messages": dropped, "after": self.size})
