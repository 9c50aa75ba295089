"""Starter for the drill agent-context: write your answer, then check it with

    .venv/bin/python -m kit drill agent-context <this file>

(from the repository root; `python -m kit drill ...` with the environment active).
The spec, hints and follow-ups are in the notebook notebooks/drills/08_agent_context.ipynb (your copy: work/drills/08_agent_context.ipynb)."""

from kit.agent.clearing import placeholder


class AgentMemory:
    """An agent's context: tool-result clearing with a trigger and clear_at_least, a
    budget kept by dropping whole groups, the pair invariant and the live question kept,
    each add all or nothing."""

    def __init__(self, budget, measure, system=None, *, trigger, keep, clear_at_least):
        raise NotImplementedError("Exercise: write your answer here")

    def add(self, role, content, tool_calls=None, call_id=None):
        raise NotImplementedError("Exercise: write your answer here")

    def _plan(self):
        """Rule 1, computed: the results to clear as (item, placeholder, its size), oldest
        first, every placeholder measured before anything changes."""
        raise NotImplementedError("Exercise: write your answer here")

    def _fit(self):
        """Rule 2: drop the oldest groups while over the budget, never the question."""
        raise NotImplementedError("Exercise: write your answer here")

    def messages(self):
        raise NotImplementedError("Exercise: write your answer here")

    def context(self):
        raise NotImplementedError("Exercise: write your answer here")
