"""Benchmark: context policies for an agent's tool loop, over the short and the long trace.

Every policy of :func:`kit.agent.meter.policies` (full history as the baseline, a sliding
window that keeps pairs and the question, tool-result clearing with ``clear_at_least`` 0
and a quarter of the window, compaction into a task-state summary), clearing with
compaction behind it, and compaction priced for the cache (:func:`policies`), runs the
scripted agent over each trace of :mod:`kit.agent.trace` (short: 40 tool calls, a
40,000-token window; long: 400 tool calls of 200 to 4,000 tokens, a 200,000-token window).
One row per run: tokens sent (every request summed), peak request, window overflows (the
step; a request over the window ends the run), the bill under each cache profile of
:mod:`kit.agent.cache` with its hit ratio (input-token equivalents; the summariser's calls
at the uncached price, a cached summariser's through the cache; output tokens left out),
model and summariser calls, requests that broke the pair invariant or lost the live
question, planted facts in the final context, and the wall time against a floor measured in
the same run: a context that appends, measures each message once and drops its oldest
messages past half the window (pairs ignored), the least a policy that finishes must do,
driven by the same loop (so the loop's own work, measuring and checking each request, is in
both). Every policy runs once untimed first, so the shared sizes (each distinct message
measured once) are warm for every timed run.

Then the targets: 0 pair violations, 0 overflows and 0 lost questions for every managed
policy on both traces, and the 5 facts kept by the best one.

With ``--peers`` (the ``peers`` extra: ``pip install -e .[peers]``), LangChain's
``SummarizationMiddleware`` (trigger 50k, 100k, 150k tokens x keep 10, 20, 40 messages)
and ``ContextEditingMiddleware`` with ``ClearToolUsesEdit`` (trigger 50k, 100k, 150k x keep 3,
10 x clear_at_least 0, 10k, 50k), driven as :mod:`agent_context_langchain` says, over the
long trace (the grid is in tokens of its 200,000-token window), one row per configuration in
the same columns, LangChain's default marked; then, under each profile, the kit's best
policy that keeps the 5 facts (with 0 pair violations, overflows and lost questions) against
every configuration that finishes without an overflow: both bills, their ratio, by how
much; and the target's verdict per profile. About 2 minutes more.

Usage: python benchmarks/agent_context.py [--traces short long] [--repeat 1] [--peers]
"""
from __future__ import annotations

import argparse
import time

from kit.agent import (PROFILES, AgentContext, ClearToolResults, CompactInLoop, Ledger, meter,
                       run_agent)
from kit.agent.meter import cached_compaction
from kit.agent.meter import policies as lesson_policies
from kit.agent.trace import long_trace, short_trace
from kit.trace import Table
from kit.tokens import REPLY_PRIMING_TOKENS, cl100k_tokens, count_chat_tokens

TRACES = {"short": short_trace, "long": long_trace}


def policies(window: int) -> dict:
    """The lesson's policies (:func:`kit.agent.meter.policies`) and two more: clearing at a
    fifth of the window (``clear_at_least`` a tenth) with compaction at 32 % behind it, for
    when the placeholders alone fill the context; and compaction priced for the cache
    (:func:`kit.agent.meter.cached_compaction`: at a tenth of the window, a 4-message
    tail, the summariser's request read from the cache)."""
    made = dict(lesson_policies(window))
    made["clearing + compaction"] = lambda system: AgentContext(
        system=system, clearing=ClearToolResults(trigger=window // 5, keep=3,
                                                 clear_at_least=window // 10),
        compaction=CompactInLoop(trigger=window * 8 // 25, keep_recent=10))
    made["cached compaction"] = cached_compaction(window)
    return made


class FloorAgent:
    """The floor: append, measure each message once, keep a running total, drop the oldest
    messages while over ``budget`` (tokens); no pairs, no checks. The agent protocol of
    :mod:`kit.agent.loop`."""

    def __init__(self, system: str, budget: int) -> None:
        self.items = [{"role": "system", "content": system}]
        self.sizes = [count_chat_tokens(self.items) - REPLY_PRIMING_TOKENS]
        self.size, self.budget = self.sizes[0], budget

    def add(self, role, content, tool_calls=None, call_id=None):
        message = {"role": role, "content": content}
        if tool_calls:
            message["tool_calls"] = [{"id": c["id"], "type": "function", "function": {
                "name": c["name"], "arguments": c["arguments"]}} for c in tool_calls]
        if call_id:
            message["tool_call_id"] = call_id
        size = count_chat_tokens([message], measure=cl100k_tokens) - REPLY_PRIMING_TOKENS
        self.items.append(message)
        self.sizes.append(size)
        self.size += size
        while self.size > self.budget and len(self.items) > 2:
            del self.items[1]
            self.size -= self.sizes.pop(1)

    def messages(self):
        return list(self.items)

    def context(self):
        return "\n".join(f"{m['role']}: {m['content']}" for m in self.items)


def timed(make, trace, ledger, repeat: int, **options):
    """(run, best seconds of ``repeat``) of a fresh context from ``make``."""
    best, run = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        run = run_agent(make(), trace, ledger=ledger, **options)
        best = min(best, time.perf_counter() - start)
    return run, best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="+", choices=list(TRACES), default=list(TRACES))
    parser.add_argument("--repeat", type=int, default=1, help="runs per row, best time kept")
    parser.add_argument("--peers", action="store_true",
                        help="LangChain's middlewares over a grid (the peers extra)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be >= 1, got {args.repeat}")
    if args.peers:
        try:
            import agent_context_langchain as peers
        except ImportError as error:
            parser.error(f"--peers needs the peers extra (pip install -e .[peers]): {error}")
    rows, managed = [], []
    for label in args.traces:
        trace, ledger = TRACES[label](), Ledger()
        for name, make in policies(trace.window).items():     # warm the shared sizes
            run_agent(make(trace.system), trace, ledger=ledger)
        _, floor = timed(lambda: FloorAgent(trace.system, trace.window // 2), trace, ledger,
                         args.repeat, policy="floor")
        for name, make in policies(trace.window).items():
            run, seconds = timed(lambda: make(trace.system), trace, ledger, args.repeat,
                                 policy=name)
            bills = [meter(run, profile) for profile in PROFILES]
            rows.append([label, name, f"{run.sent:,}", f"{run.peak:,}",
                         0 if run.finished else f"1 (step {run.overflow})",
                         *(f"{b.bill:,.0f} ({b.hit_ratio:.0%})" for b in bills),
                         run.model_calls, run.summariser_calls, run.pair_violations,
                         run.question_lost, f"{len(run.facts_kept)}/5",
                         f"{seconds * 1e3:,.0f}", f"{seconds / floor:.2f}"])
            if name != "full history":
                managed.append((label, name, run, bills))
        rows.append([label, "floor (append, measure once, drop oldest)",
                     *["-"] * 10, f"{floor * 1e3:,.0f}", "1.00"])
    print(Table(["trace", "policy", "tokens sent", "peak (tokens)", "overflows",
                 f"bill, {PROFILES[0].name} (hits)", f"bill, {PROFILES[1].name} (hits)",
                 "model calls", "summariser calls", "pair violations", "question lost",
                 "facts kept", "time (ms)", "x floor"], rows))
    bad = [(t, n) for t, n, r, _ in managed
           if r.pair_violations or r.question_lost or not r.finished]
    print(f"target: 0 pair violations, 0 overflows, 0 lost questions for every managed "
          f"policy: {'met' if not bad else f'missed by {bad}'}")
    for label in args.traces:
        for i, profile in enumerate(PROFILES):
            best = min((r for r in managed if r[0] == label), key=lambda r: r[3][i].bill)
            print(f"{label}, {profile.name}: best policy {best[1]!r}, bill "
                  f"{best[3][i].bill:,.0f}, facts kept {len(best[2].facts_kept)}/5")
    if args.peers:
        compare(peers, managed, args.repeat)
    return 0


def compare(peers, managed: list, repeat: int) -> None:
    """LangChain's grid over the long trace, then the kit's best against it."""
    trace, ledger, rows, theirs = long_trace(), Ledger(), [], []
    for label, kind, options, default in peers.GRID:
        start = time.perf_counter()
        run = peers.run_langchain(kind, options, trace, ledger, label)
        seconds = time.perf_counter() - start
        bills = [meter(run, profile) for profile in PROFILES]
        theirs.append((label + (" (default)" if default else ""), run, bills))
        rows.append(["long", theirs[-1][0], f"{run.sent:,}", f"{run.peak:,}",
                     0 if run.finished else f"1 (step {run.overflow})",
                     *(f"{b.bill:,.0f} ({b.hit_ratio:.0%})" for b in bills),
                     run.model_calls, run.summariser_calls, run.pair_violations,
                     run.question_lost,
                     f"{len(run.facts_kept)}/5" if run.finished else "-",
                     f"{seconds * 1e3:,.0f}", "-"])
    print()
    print(Table(["trace", "LangChain configuration", "tokens sent", "peak (tokens)", "overflows",
                 f"bill, {PROFILES[0].name} (hits)", f"bill, {PROFILES[1].name} (hits)",
                 "model calls", "summariser calls", "pair violations", "question lost",
                 "facts kept", "time (ms)", "x floor"], rows))
    kit = [r for r in managed if r[0] == "long" and len(r[2].facts_kept) == 5
           and r[2].finished and not r[2].pair_violations and not r[2].question_lost]
    finished = [t for t in theirs if t[1].finished]
    print(f"{len(finished)} of {len(theirs)} LangChain configurations finish without an overflow")
    if not kit or not finished:
        print("no comparison: " + ("no kit policy keeps the 5 facts" if not kit
                                   else "no LangChain configuration finishes"))
        return
    rows, verdicts = [], []
    for i, profile in enumerate(PROFILES):
        best = min(kit, key=lambda r: r[3][i].bill)
        ours = best[3][i].bill
        for label, run, bills in sorted(finished, key=lambda t: t[2][i].bill):
            rows.append([profile.name, label, f"{bills[i].bill:,.0f}",
                         f"{len(run.facts_kept)}/5", run.question_lost,
                         f"{best[1]}: {ours:,.0f}", f"{ours / bills[i].bill:.2f}",
                         f"{1 - ours / bills[i].bill:.0%}"])
        cheapest = min(finished, key=lambda t: t[2][i].bill)
        margin = 1 - ours / cheapest[2][i].bill
        verdicts.append(
            f"target, {profile.name}: the kit's best, {best[1]!r} (5/5 facts, 0 pair "
            f"violations, 0 overflows, 0 lost questions), bills {ours:,.0f}; the cheapest "
            f"finishing LangChain configuration, {cheapest[0]}, bills "
            f"{cheapest[2][i].bill:,.0f} ({len(cheapest[1].facts_kept)}/5 facts): ratio "
            f"{ours / cheapest[2][i].bill:.2f}, {'met' if margin > 0 else 'missed'} "
            f"({abs(margin):.0%} {'less' if margin > 0 else 'more'})")
    print()
    print(Table(["cache profile", "LangChain configuration (finishes)", "its bill",
                 "its facts kept", "its question lost", "the kit's best: bill",
                 "kit / LangChain", "kit less by"], rows))
    print("\n".join(verdicts))

if __name__ == "__main__":
    raise SystemExit(main())
