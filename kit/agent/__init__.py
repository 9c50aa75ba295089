"""Context for agents (lesson 11): tool results, prompt caches and compaction in a tool loop.

One module per mechanism:

- :mod:`kit.agent.trace`: seeded traces (a task with 5 planted facts, hundreds of tool calls);
- :mod:`kit.agent.loop`: the scripted agent loop and what a run records;
- :mod:`kit.agent.pairs`: the pair invariant (no orphaned result, no dangling call);
- :mod:`kit.agent.clearing`: tool-result clearing (trigger, keep, clear_at_least, exclude);
- :mod:`kit.agent.compaction`: compaction inside the loop (a task-state summary);
- :mod:`kit.agent.context`: the context manager that applies them (:class:`AgentContext`);
- :mod:`kit.agent.cache`: a prompt-cache model with two provider profiles;
- :mod:`kit.agent.meter`: replays a run's requests through the cache and prints the bill.

Agent runs are not persisted: the transcript store (:mod:`kit.store`) keeps user and
assistant turns only.
"""
from kit.agent.cache import ANTHROPIC, ANTHROPIC_1H, OPENAI, PROFILES, CacheProfile, PromptCache
from kit.agent.clearing import ClearToolResults, plan_clearing
from kit.agent.compaction import CompactInLoop, TaskStateModel, compact_turns, task_state
from kit.agent.context import AgentContext
from kit.agent.loop import AgentRun, Ledger, ScriptedModel, run_agent
from kit.agent.meter import Bill, cached_compaction, meter, policies, run_policy
from kit.agent.pairs import pair_problems
from kit.agent.trace import FACTS, AgentTrace, long_trace, make_trace, short_trace

__all__ = ["ANTHROPIC", "ANTHROPIC_1H", "OPENAI", "PROFILES", "CacheProfile", "PromptCache",
           "ClearToolResults", "plan_clearing", "CompactInLoop", "TaskStateModel",
           "compact_turns", "task_state", "AgentContext", "AgentRun", "Ledger",
           "ScriptedModel", "run_agent", "Bill", "cached_compaction", "meter", "policies",
           "run_policy", "pair_problems", "FACTS", "AgentTrace", "long_trace", "make_trace",
           "short_trace"]
