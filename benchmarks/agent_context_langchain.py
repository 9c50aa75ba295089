"""LangChain's two context middlewares over the kit's agent traces (``agent_context.py --peers``).

``SummarizationMiddleware`` and ``ContextEditingMiddleware`` (``ClearToolUsesEdit``) are
driven through their public API, ``langchain.agents.create_agent``, with:

- a stub chat model (a ``BaseChatModel`` subclass whose ``bind_tools`` returns itself) that
  plays the trace's script, emitting the same tool calls as the kit's scripted agent, and
  records every request it is sent, as chat dicts, for the kit's cache meter; a request over
  the window fails the run, as a provider would;
- the trace's tools, returning the trace's results;
- the kit's measure (``cl100k_base``, billed as a chat request: each distinct message
  measured once) as both middlewares' ``token_counter``;
- for ``SummarizationMiddleware``, a stub summary model that keeps every human message of
  its prompt verbatim (the task's facts, when the prompt still holds them), counted and
  billed at the uncached price like the kit's summariser. The middleware's other options
  keep their defaults: ``trim_tokens_to_summarize`` (4,000 tokens) trims what it folds
  before the model sees it, and when nothing is left it writes "Previous conversation was
  too long to summarize." without calling the model.

The follow-up request: LangChain's agent ends its run when the model answers without a tool
call; the stub does so at the follow-up step, and the run goes on with the state's messages
plus the follow-up (one model call more than the kit's run).

Needs the ``peers`` extra (``langchain``); nothing here touches the network.
"""
from __future__ import annotations

import json
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import (ClearToolUsesEdit, ContextEditingMiddleware,
                                         SummarizationMiddleware)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (AIMessage, BaseMessage, HumanMessage, SystemMessage,
                                     ToolMessage)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import StructuredTool

from kit.agent.loop import AgentRun, Ledger, Request, kind_of
from kit.agent.pairs import pair_problems
from kit.agent.trace import AgentTrace
from kit.tokens import REPLY_PRIMING_TOKENS, cl100k_tokens

__all__ = ["GRID", "run_langchain", "as_chat"]

K = 1000
#: (label, kind, options, LangChain's default?) for each configuration of the grid.
GRID = ([(f"SummarizationMiddleware trigger={t // K}k keep={k}", "summarization",
          {"trigger": ("tokens", t), "keep": ("messages", k)}, False)
         for t in (50 * K, 100 * K, 150 * K) for k in (10, 20, 40)]
        + [(f"ClearToolUsesEdit trigger={t // K}k keep={k} clear_at_least={c // K}k",
            "editing", {"trigger": t, "keep": k, "clear_at_least": c},
            (t, k, c) == (100 * K, 3, 0))
           for t in (50 * K, 100 * K, 150 * K) for k in (3, 10) for c in (0, 10 * K, 50 * K)])


class Overflow(Exception):
    """A request over the window: the provider would refuse it."""


def as_chat(message: BaseMessage) -> dict:
    """A LangChain message as an OpenAI-style chat dict (what the meter sizes)."""
    content = message.content if isinstance(message.content, str) else json.dumps(message.content)
    if isinstance(message, SystemMessage):
        return {"role": "system", "content": content}
    if isinstance(message, HumanMessage):
        return {"role": "user", "content": content}
    if isinstance(message, ToolMessage):
        return {"role": "tool", "content": content, "tool_call_id": message.tool_call_id}
    chat = {"role": "assistant", "content": content}
    if getattr(message, "tool_calls", None):
        chat["tool_calls"] = [{"id": c["id"], "type": "function", "function": {
            "name": c["name"], "arguments": json.dumps(c["args"])}} for c in message.tool_calls]
    return chat


class ScriptModel(BaseChatModel):
    """Plays a trace's script; records each request in ``run`` (an AgentRun)."""

    trace: Any
    run: Any
    ledger: Any
    tool_text: Any

    @property
    def _llm_type(self) -> str:
        return "kit-script"

    def bind_tools(self, tools, **kwargs):       # the script already knows the tools
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        run, trace = self.run, self.trace
        i = run.model_calls
        chats = [as_chat(m) for m in messages]
        sized = [self.ledger.size(c) for c in chats]
        request = Request(i, i * trace.seconds, (self.tool_text[0], *(k for k, _ in sized)),
                          (self.tool_text[1], *(s for _, s in sized)),
                          ("tools", *map(kind_of, chats)))
        run.requests.append(request)
        run.pair_violations += bool(pair_problems(chats, running=False))
        question = trace.follow_up if run.follow_up_sent else trace.task
        run.question_lost += not any(question in (c.get("content") or "") for c in chats)
        if request.tokens > trace.window:
            run.overflow = i
            raise Overflow(f"request {i}: {request.tokens} tokens over the window")
        run.model_calls += 1
        step = i - run.follow_up_sent           # the pause before the follow-up took a call
        if step == trace.follow_up_at and not run.follow_up_sent or step >= len(trace.steps):
            reply = AIMessage(content="Done for now.")
        else:
            s = trace.steps[step]
            reply = AIMessage(content=f"Step {step + 1}: {s.tool}.", tool_calls=[
                {"id": f"call_{step + 1:03d}", "name": s.tool, "args": json.loads(s.arguments)}])
        return ChatResult(generations=[ChatGeneration(message=reply)])


_HUMAN = '<message type="human">'


class SummaryModel(BaseChatModel):
    """The stub summary model: every human message of the prompt, verbatim (LangChain writes
    them as ``<message type="human">...</message>``); counts its calls and its prompts'
    tokens into ``run``."""

    run: Any

    @property
    def _llm_type(self) -> str:
        return "kit-summary"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        prompt = "\n".join(m.content if isinstance(m.content, str) else "" for m in messages)
        self.run.summariser_calls += 1
        self.run.summariser_tokens += cl100k_tokens(prompt)
        kept, start = [], prompt.find(_HUMAN)
        while start >= 0:                       # every <message type="human">...</message>
            end = prompt.find("</message>", start)
            kept.append(prompt[start + len(_HUMAN):end if end >= 0 else None])
            start = prompt.find(_HUMAN, end) if end >= 0 else -1
        text = "\n".join(kept) or "The agent called tools."
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def _tools(trace: AgentTrace, run: AgentRun) -> list:
    def result(name):
        def call(**kwargs) -> str:
            step = int(run.tool_calls)
            run.tool_calls += 1
            return trace.steps[step].result
        call.__name__ = name
        return call
    return [StructuredTool.from_function(result(name), name=name, description=about,
                                         args_schema={"type": "object", "properties": {}})
            for name, about in trace.tools.items()]


def run_langchain(kind: str, options: dict, trace: AgentTrace, ledger: Ledger,
                  label: str = "") -> AgentRun:
    """One configuration over ``trace``: ``kind`` "summarization" or "editing", ``options``
    the middleware's (or the edit's) keyword arguments."""
    run = AgentRun(label, trace)
    run.follow_up_sent, run.tool_calls = 0, 0

    def counter(messages) -> int:
        return sum(ledger.size(as_chat(m))[1] for m in messages) + REPLY_PRIMING_TOKENS

    model = ScriptModel(trace=trace, run=run, ledger=ledger,
                        tool_text=ledger.size({"role": "system", "content": trace.tool_text()}))
    if kind == "summarization":
        middleware = SummarizationMiddleware(SummaryModel(run=run), token_counter=counter,
                                             **options)
    else:
        middleware = ContextEditingMiddleware(edits=[ClearToolUsesEdit(**options)],
                                              token_counter=counter)
    agent = create_agent(model, tools=_tools(trace, run), system_prompt=trace.system,
                         middleware=[middleware])
    limit = {"recursion_limit": 4 * len(trace.steps) + 20}
    messages = [HumanMessage(trace.task)]
    try:
        state = agent.invoke({"messages": messages}, config=limit)
        run.follow_up_sent = 1
        state = agent.invoke({"messages": [*state["messages"], HumanMessage(trace.follow_up)]},
                             config=limit)
        final = state["messages"]
    except Overflow:
        final = []
    run.final = "\n".join(as_chat(m)["content"] for m in final)
    run.facts_kept = tuple(f for f in trace.facts if f in run.final)
    return run
