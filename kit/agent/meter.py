"""The cache meter: replay a run's requests through a prompt cache and print the bill.

:func:`meter` takes an :class:`~kit.agent.loop.AgentRun` (every request the agent sent,
block by block) and a :class:`~kit.agent.cache.CacheProfile`, replays the requests in
order at their times through a fresh :class:`~kit.agent.cache.PromptCache`, with the
breakpoints a ``placement`` puts on each (explicit-breakpoint profiles only), and reports
tokens written, read from the cache and uncached, the hit ratio (read / all input) and the
**bill**: input tokens priced at the profile's multipliers, in input-token equivalents (1 =
one uncached input token), the context's own summariser calls included: at the uncached
price, or, for a cached summariser (``CompactInLoop(cached=True)``), replayed through the
cache among the agent's requests. Output tokens are left out: the scripted agent writes the
same replies under every policy.

:func:`policies` names the context policies the lesson and the benchmark compare, each
scaled to a trace's window; :func:`run_policy` runs one. :func:`cached_compaction` is the
benchmark's cheapest: compaction priced for the cache.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kit.agent.cache import CacheProfile, PromptCache
from kit.agent.clearing import ClearToolResults
from kit.agent.compaction import CompactInLoop
from kit.agent.context import AgentContext
from kit.agent.loop import AgentRun, Ledger, run_agent
from kit.agent.trace import AgentTrace
from kit.validation import check_int

__all__ = ["Bill", "meter", "default_breakpoints", "PLACEMENTS", "policies", "run_policy",
           "cached_compaction"]


def _last(kinds: tuple, wanted: tuple) -> int:
    return max((i for i, k in enumerate(kinds) if k in wanted), default=-1)


def default_breakpoints(kinds: tuple) -> tuple:
    """Where the meter puts breakpoints by default: after the static head (tools and
    system prompt), after the summary if there is one, and on the last block (the
    prefix moves forward with every request)."""
    marks = {_last(kinds, ("tools", "system")), _last(kinds, ("summary",)), len(kinds) - 1}
    return tuple(sorted(m for m in marks if m >= 0))


#: Breakpoint placements the lesson compares: kinds of a request -> block indices.
PLACEMENTS: dict[str, Callable[[tuple], tuple]] = {
    "none": lambda kinds: (),
    "system prompt only": lambda kinds: (_last(kinds, ("tools", "system")),),
    "last user message": lambda kinds: (_last(kinds, ("user",)),),
    "last message only": lambda kinds: (len(kinds) - 1,),
    "system, summary, last message": default_breakpoints,
}


@dataclass(frozen=True)
class Bill:
    """A run's input under one profile: ``written``, ``read``, ``uncached`` (tokens),
    ``summariser`` (tokens sent to the context's summariser: at the uncached price, or
    through the cache for a cached summariser),
    ``bill`` (input-token equivalents), ``hit_ratio`` (read / (read + written + uncached)),
    ``running`` (the bill after each request, for plots)."""

    policy: str
    profile: str
    written: int
    read: int
    uncached: int
    summariser: int
    bill: float
    hit_ratio: float
    running: tuple


def meter(run: AgentRun, profile: CacheProfile,
          placement: Callable[[tuple], tuple] = default_breakpoints) -> Bill:
    """Replay ``run``'s requests through ``profile`` (see the module docstring). A cached
    summariser's requests (``run.summariser_requests``) are replayed among them in time
    order, with the same placement, and billed like the agent's (in ``written``, ``read``
    and ``uncached``; ``summariser`` counts their tokens too); ``running`` has one entry
    per agent request."""
    cache = PromptCache(profile)
    written = read = uncached = 0
    bill, running = float(run.summariser_tokens), []
    asked = run.summariser_requests
    order = sorted([(r.time, 0, r) for r in asked] + [(r.time, 1, r) for r in run.requests],
                   key=lambda item: item[:2])
    for _, agent, request in order:
        marks = () if profile.automatic else placement(request.kinds)
        usage = cache.send(request.keys, request.sizes, request.time, marks)
        written, read, uncached = (written + usage.written, read + usage.read,
                                   uncached + usage.uncached)
        bill += usage.bill(profile)
        if agent:
            running.append(bill)
    total = written + read + uncached
    return Bill(run.policy, profile.name, written, read, uncached,
                run.summariser_tokens + sum(r.tokens for r in asked), bill,
                read / total if total else 0.0, tuple(running))


def policies(window: int) -> dict[str, Callable[[str], AgentContext]]:
    """The policies compared, scaled to a ``window`` (tokens): name -> ``system ->
    AgentContext``. Full history; a sliding window at half the window; clearing at half
    the window with ``clear_at_least`` 0 (it fires at every step) and a quarter of the
    window; compaction at 60 %, keeping 10 messages."""
    half, quarter = window // 2, window // 4
    return {
        "full history": lambda system: AgentContext(system=system),
        "sliding window": lambda system: AgentContext(system=system, window=half),
        "clearing, clear_at_least=0": lambda system: AgentContext(
            system=system, clearing=ClearToolResults(trigger=half, keep=3)),
        "clearing, clear_at_least": lambda system: AgentContext(
            system=system, clearing=ClearToolResults(trigger=half, keep=3,
                                                     clear_at_least=quarter)),
        "compaction": lambda system: AgentContext(
            system=system, compaction=CompactInLoop(trigger=window * 6 // 10, keep_recent=10)),
    }


def cached_compaction(window: int) -> Callable[[str], AgentContext]:
    """Compaction priced for a prompt cache, scaled to a ``window`` (tokens): ``system ->
    AgentContext`` folding at a tenth of the window, keeping the newest 4 messages (the
    last two calls and their results), with a cached summariser
    (``CompactInLoop(cached=True)``). Raises TypeError/ValueError for a window that is not
    an int >= 10.

    The rule, from the cache's prices: each request reads its context at ``read`` (0.1) of
    the input price, so a step costs about a tenth of the context's size; a fold costs a
    cached read of the context (its request is the agent's own plus the instruction) and
    the summary and the tail written again. Folding often with a short tail keeps every
    request small, and a task-state summary (requests verbatim, counts of calls, files)
    stays a few hundred tokens however long the run. Between two folds the prefix only
    grows (the cache's hysteresis); the breakpoints after the system prompt, after the
    summary and on the last message (:func:`default_breakpoints`) let each request read
    the last one's prefix."""
    check_int("window", window, 10)
    trigger = window // 10
    return lambda system: AgentContext(system=system, compaction=CompactInLoop(
        trigger=trigger, keep_recent=4, cached=True))


def run_policy(name: str, trace: AgentTrace, ledger: Ledger | None = None,
               steps: int | None = None) -> AgentRun:
    """Run policy ``name`` of :func:`policies` over ``trace``. Raises ValueError naming
    the known policies for another name."""
    made = policies(trace.window)
    if name not in made:
        raise ValueError(f"no policy {name!r}; the policies: {', '.join(made)}")
    return run_agent(made[name](trace.system), trace, policy=name, ledger=ledger, steps=steps)
