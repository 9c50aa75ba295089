"""Tool-result clearing: replace old tool results by a short placeholder (lesson 11).

The providers' answer to an agent's window filling with tool output (Anthropic's context
editing, the ``clear_tool_uses`` strategy; LangChain's ``ClearToolUsesEdit``): once the
context passes a ``trigger``, the oldest tool results are replaced by a placeholder that
says what was cleared. The call stays, and so does the result message (with the
placeholder as its content), so every call keeps its result: the pair invariant holds.
User messages are never cleared, so the live question stays.

The options (:class:`ClearToolResults`), each a lesson of its own:

- ``trigger`` (tokens): clear only when the context is over it;
- ``keep``: the newest ``keep`` tool results are never cleared (the model is working on
  them);
- ``clear_at_least`` (tokens): once triggered, clear at least this much (oldest first).
  With 0, clearing stops as soon as the context is back under the trigger, and the next
  result pushes it over again: it fires at every step, and every firing rewrites the
  prompt from the cleared result on, so the prompt cache (:mod:`kit.agent.cache`) hardly
  ever hits. With a few tens of thousands it fires now and then;
- ``exclude``: tool names whose results are never cleared (a tool whose output the agent
  cannot fetch again);
- ``placeholder``: the text put in, with ``{name}`` and ``{tokens}`` (the tool's name and
  the cleared result's size); it is measured and counted like any message.

:func:`plan_clearing` is pure: messages in, the replacements out; the context manager
(:class:`kit.agent.context.AgentContext`) commits them.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from kit.messages import Message
from kit.validation import check_int

__all__ = ["ClearToolResults", "plan_clearing", "placeholder", "PLACEHOLDER"]

PLACEHOLDER = "[cleared: {name} result, {tokens} tokens; call the tool again if you need it]"


def placeholder(name: str, tokens: int, template: str = PLACEHOLDER) -> str:
    """The text a cleared result of tool ``name``, ``tokens`` long (in the measure's unit),
    is replaced by: ``template`` with ``{name}`` and ``{tokens}`` (written 1,234) filled in."""
    return template.replace("{name}", name).replace("{tokens}", f"{tokens:,}")


@dataclass(frozen=True)
class ClearToolResults:
    """When and how much to clear: ``trigger``, ``clear_at_least`` (tokens, ints >= 0),
    ``keep`` (tool results, int >= 0), ``exclude`` (tool names), ``placeholder`` (a str
    starting with ``"[cleared"``, see the module docstring). Raises TypeError/ValueError
    naming a bad option."""

    trigger: int = 100_000
    keep: int = 3
    clear_at_least: int = 0
    exclude: tuple = ()
    placeholder: str = PLACEHOLDER

    def __post_init__(self) -> None:
        check_int("trigger", self.trigger, 0)
        check_int("keep", self.keep, 0)
        check_int("clear_at_least", self.clear_at_least, 0)
        if isinstance(self.exclude, str) or not all(isinstance(n, str) for n in self.exclude):
            raise TypeError(f"exclude must be a tuple of tool names, got {self.exclude!r:.60}")
        object.__setattr__(self, "exclude", tuple(self.exclude))
        if not isinstance(self.placeholder, str) or not self.placeholder.startswith("[cleared"):
            raise ValueError(f"placeholder must be a str starting with '[cleared', got "
                             f"{self.placeholder!r:.60}")

    def text(self, name: str, tokens: int) -> str:
        """The placeholder for a result of tool ``name`` that was ``tokens`` long."""
        return placeholder(name, tokens, self.placeholder)


def plan_clearing(turns: Sequence[Message], size: int, rule: ClearToolResults,
                  names: Mapping[str, str], cleared: set,
                  make: Callable[[Message, str], Message]) -> list[tuple[int, Message]]:
    """The results to clear now, as ``(index in turns, placeholder message)``, oldest first.

    ``turns``: the context's messages (a result's ``tokens`` is its size); ``size``: the
    context's size, in the same unit; ``names``: call id -> tool name; ``cleared``: the
    call ids already cleared (skipped); ``make(message, text)``: the placeholder message,
    sized. Nothing when ``size <= rule.trigger``. Else the oldest results that are not
    among the newest ``keep``, not excluded, not cleared yet, until at least
    ``clear_at_least`` was saved and the context is back under the trigger (or none is
    left). ``turns`` is not changed.
    """
    if size <= rule.trigger:
        return []
    results = [i for i, m in enumerate(turns) if m.role == "tool"]
    candidates = results[:len(results) - rule.keep] if rule.keep else results
    plan, saved = [], 0
    for i in candidates:
        message = turns[i]
        name = names.get(message.call_id, "")
        if message.call_id in cleared or name in rule.exclude:
            continue
        placeholder = make(message, rule.text(name, message.tokens))
        plan.append((i, placeholder))
        saved += message.tokens - placeholder.tokens
        if saved >= rule.clear_at_least and size - saved <= rule.trigger:
            break
    return plan
