"""The scripted agent loop: model -> tool calls -> results -> model, over a seeded trace.

:func:`run_agent` drives any context manager with the agent protocol through an
:class:`~kit.agent.trace.AgentTrace`:

- ``add(role, content, tool_calls=None, call_id=None)``: role ``"user"``,
  ``"assistant"`` or ``"tool"``; an assistant message may carry ``tool_calls``, a list of
  ``{"id", "name", "arguments"}`` dicts (arguments: JSON text); a ``"tool"`` message
  answers one call by its ``call_id``. This is the one call shape of the lesson, the drill
  and the checker.
- ``messages() -> list[dict]``: the request, as OpenAI-style chat dicts (a call as
  ``tool_calls``, a result with ``tool_call_id``); ``context() -> str``; ``size -> int``.

Before each model call the loop takes ``messages()`` as the request and records it for the
cache meter (:mod:`kit.agent.meter`): each distinct message is measured once (a
:class:`Ledger`, with the ``billed`` rule of :mod:`kit.sizing`), the tool definitions lead
the request. It checks the request itself, trusting no size the context reports: over
the trace's window the run fails (an *overflow*: the provider would refuse it, the run
stops there); it counts requests that break the pair invariant (:mod:`kit.agent.pairs`)
and those that lost the live question (the newest user message, verbatim). A cached
summariser's requests (:func:`kit.agent.compaction.fold_request`) are recorded too, and one
over the window fails the run the same way. At the end it reports which planted facts the
final context still holds.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kit.agent.pairs import pair_problems
from kit.agent.trace import AgentTrace
from kit.tokens import REPLY_PRIMING_TOKENS, Measure, cl100k_tokens, count_chat_tokens

__all__ = ["ScriptedModel", "Ledger", "Request", "AgentRun", "run_agent", "kind_of",
           "SUMMARY_HEAD", "CLEARED_HEAD", "KINDS"]

SUMMARY_HEAD = "Summary of the task so far"     # how a compaction summary starts
CLEARED_HEAD = "[cleared"                        # how a cleared result's placeholder starts
#: The parts of a request, for the stacked plot (the order of the stack).
KINDS = ("tools", "system", "summary", "user", "tool calls", "tool results", "cleared")


class ScriptedModel:
    """The agent's model, a stub: the ``n``-th call returns the trace's ``n``-th step as an
    assistant message with one tool call (id ``call_001``, ...), then a final answer with
    none. ``calls`` counts the calls. The request it is given is not read."""

    def __init__(self, trace: AgentTrace) -> None:
        self.trace, self.calls = trace, 0

    def __call__(self, messages: Sequence[dict]) -> dict:
        i, self.calls = self.calls, self.calls + 1
        if i >= len(self.trace.steps):
            return {"content": "Done: the refund job is fixed and the tests pass.",
                    "tool_calls": []}
        step = self.trace.steps[i]
        return {"content": f"Step {i + 1}: {step.tool}.", "tool_calls": [
            {"id": f"call_{i + 1:03d}", "name": step.tool, "arguments": step.arguments}]}


def kind_of(message: dict) -> str:
    """Which part of :data:`KINDS` a chat dict is (a summary and a placeholder are known by
    their first words, :data:`SUMMARY_HEAD` and :data:`CLEARED_HEAD`)."""
    role, content = message.get("role"), message.get("content") or ""
    if role == "tool":
        return "cleared" if content.startswith(CLEARED_HEAD) else "tool results"
    if content.startswith(SUMMARY_HEAD):
        return "summary"
    return {"system": "system", "user": "user"}.get(role, "tool calls")


def _key(message: dict) -> tuple:
    calls = tuple((c.get("id"), (c.get("function") or {}).get("name"),
                   (c.get("function") or {}).get("arguments"))
                  for c in message.get("tool_calls") or ())
    return (message.get("role"), message.get("content"), message.get("tool_call_id"), calls)


class Ledger:
    """Billed sizes of chat dicts, each distinct message measured once (``count_chat_tokens``
    of the one message, reply priming left out), in tokens of ``measure``. ``measured``
    counts the messages measured."""

    def __init__(self, measure: Measure = cl100k_tokens) -> None:
        self.measure, self.sizes, self.measured = measure, {}, 0

    def size(self, message: dict) -> tuple[tuple, int]:
        """``(key, tokens)`` of one chat dict; the key identifies its content exactly."""
        key = _key(message)
        tokens = self.sizes.get(key)
        if tokens is None:
            tokens = count_chat_tokens([message], measure=self.measure) - REPLY_PRIMING_TOKENS
            self.sizes[key] = tokens
            self.measured += 1
        return key, tokens


@dataclass(frozen=True)
class Request:
    """One model call's request: ``step`` (0-based), ``time`` (seconds since the start),
    per block (the tool definitions, then each message): ``keys``, ``sizes`` (tokens) and
    ``kinds`` (:data:`KINDS`)."""

    step: int
    time: float
    keys: tuple
    sizes: tuple
    kinds: tuple

    @property
    def tokens(self) -> int:
        return sum(self.sizes)

    def by_kind(self) -> dict[str, int]:
        """Tokens per part of :data:`KINDS`."""
        parts = dict.fromkeys(KINDS, 0)
        for kind, size in zip(self.kinds, self.sizes):
            parts[kind] += size
        return parts


@dataclass
class AgentRun:
    """What a run did: its ``requests``; ``overflow``: the step whose request passed the
    window (None if none did: the run finished); ``pair_violations`` and
    ``question_lost``: requests that broke the pair invariant or lost the live question;
    ``model_calls``; ``summariser_calls`` and ``summariser_tokens`` (input tokens the
    context reports for its own summariser, 0 if it has none); ``summariser_requests``:
    the requests of a cached summariser (:class:`Request`, timed between the model calls
    they came between; the meter bills them through the cache; one over the window is an
    overflow at the next step); ``facts_kept``: the planted facts in the final context;
    ``final``: the final ``context()``."""

    policy: str
    trace: AgentTrace
    requests: list = field(default_factory=list)
    overflow: int | None = None
    pair_violations: int = 0
    question_lost: int = 0
    model_calls: int = 0
    summariser_calls: int = 0
    summariser_tokens: int = 0
    summariser_requests: list = field(default_factory=list)
    facts_kept: tuple = ()
    final: str = ""
    problems: list = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.overflow is None

    @property
    def peak(self) -> int:
        """The largest request, in tokens."""
        return max((r.tokens for r in self.requests), default=0)

    @property
    def sent(self) -> int:
        """Every request's tokens, summed (what is sent without a cache)."""
        return sum(r.tokens for r in self.requests)


def run_agent(context: object, trace: AgentTrace, *, policy: str = "", steps: int | None = None,
              model: Callable[[list], dict] | None = None, ledger: Ledger | None = None,
              stop_on_overflow: bool = True) -> AgentRun:
    """Run ``trace`` (its first ``steps`` steps, all by default) through ``context``, a
    fresh context manager with the agent protocol (see the module docstring), and return
    the :class:`AgentRun`. ``model``: the agent's model (default a
    :class:`ScriptedModel`); ``ledger``: the sizes (share one between runs of a trace
    to measure each message once). With ``stop_on_overflow`` (the default) the run ends
    at the first request over the window, as a provider would fail it. An exception from
    the context propagates."""
    model = model or ScriptedModel(trace)
    ledger = ledger or Ledger()
    run = AgentRun(policy, trace)
    tools = ledger.size({"role": "system", "content": trace.tool_text()})
    asked = getattr(context, "summariser_requests", None)
    seen = 0

    def record(messages: list, step: int, time: float) -> Request:
        sized = [ledger.size(m) for m in messages]
        return Request(step, time, (tools[0], *(k for k, _ in sized)),
                       (tools[1], *(s for _, s in sized)), ("tools", *map(kind_of, messages)))

    def summarised(i: int) -> bool:              # a cached summariser's requests so far
        nonlocal seen
        for messages in (asked or [])[seen:]:
            fold = record(messages, i, max(0.0, i - 0.5) * trace.seconds)
            run.summariser_requests.append(fold)
            if fold.tokens > trace.window and run.overflow is None:
                run.overflow = i                   # the provider refuses the fold too
        seen = len(asked or [])
        return run.overflow is not None

    question = trace.task
    context.add("user", trace.task)
    count = len(trace.steps) if steps is None else steps
    for i in range(count + 1):                     # count tool steps, then the final answer
        if i == trace.follow_up_at and i < count:
            question = trace.follow_up
            context.add("user", question)
        if summarised(i) and stop_on_overflow:
            break
        messages = context.messages()
        request = record(messages, i, i * trace.seconds)
        run.requests.append(request)
        problems = pair_problems(messages, running=False)
        run.pair_violations += bool(problems)
        run.problems += [f"request {i}: {p}" for p in problems[:1]]
        run.question_lost += not any(question in (m.get("content") or "") for m in messages)
        if request.tokens > trace.window:
            run.overflow = i
            if stop_on_overflow:
                break
        reply = model(messages)
        run.model_calls += 1
        calls = reply.get("tool_calls") or []
        context.add("assistant", reply["content"], tool_calls=calls or None)
        for call in calls:
            context.add("tool", trace.steps[i].result, call_id=call["id"])
    summarised(count + 1)
    run.final = context.context()
    run.facts_kept = tuple(f for f in trace.facts if f in run.final)
    run.summariser_calls = getattr(context, "summariser_calls", 0)
    run.summariser_tokens = getattr(context, "summariser_tokens", 0)
    return run
