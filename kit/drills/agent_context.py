"""Drill 08: a context manager for an agent loop, from a blank page in 30 minutes.

The candidate writes ``AgentMemory(budget, measure, system=None, *, trigger, keep,
clear_at_least)`` with the agent protocol (``add(role, content, tool_calls=None,
call_id=None)``, ``messages()``, ``context()``, ``size``): old tool results cleared past a
trigger (never the newest ``keep``, at least ``clear_at_least`` at a time, the placeholder
counted), the budget kept by dropping whole groups (never a call without its results, never
the live question), a message that can never fit refused with nothing changed, each message
measured once. The rubric is lesson 11's checker split into its parts
(:mod:`kit.checks.agent_context`); the wrong answers it is tested against are those of
:mod:`kit.mistakes.agent`.
"""
from __future__ import annotations

from kit.checks.agent_context import RUBRIC
from kit.drills import Drill

__all__ = ["DRILL"]

DRILL = Drill(
    name="agent-context",
    title="A context manager for an agent loop",
    minutes=30,
    symbol="AgentMemory",
    notebook="08_agent_context",
    rubric=dict(RUBRIC),
    talking_points=(
        "The pair invariant: a tool result right after its call, every call answered before "
        "the next message; clear by replacing content, drop a call with all its results.",
        "Clear only over the trigger, oldest first, never the newest keep; stop once at least "
        "clear_at_least is saved and the size is under the trigger.",
        "clear_at_least is for the prompt cache: clearing at every step rewrites the prefix "
        "every step, and the cache never hits.",
        "The placeholder is a message: count its size; each message is measured once, size is "
        "a running total.",
        "The live question (the newest user message) is never cleared or dropped; a message "
        "that can never fit is refused before anything changes.",
        "An add is all or nothing: plan the clearing (measure every placeholder) before "
        "changing anything, and take the message back if the measure fails.",
    ),
    mechanism="agent context",
)
