"""Benchmark: does recall memory slow down as the conversation grows?

The shopping chat of :func:`kit.conversations.shopping_chat` at 200, 2,000 and 10,000
messages goes into :class:`kit.memory.RecallMemory` (budget 2,000 cl100k tokens, its
defaults), its context loaded at every user turn (the newest user message is the
question), and into the floor measured in the same run (:class:`kit.floor.FloorMemory`
with the same budget, counting what it renders: count each message once, running
total, drop the oldest while over budget). Printed per length: the whole run in ms
(best of ``--repeat``, garbage collector paused as in ``timeit``) and as a multiple of
the floor's; microseconds per add and per load, measured apart; and the time per load
as a multiple of the time per load at the first length. Recall's per-load work is
array operations over the postings of the question's words and the ranked turns, plus
Python work only for the turns that go into the context, so its time per load should
grow much more slowly than the conversation.

Usage: python benchmarks/recall_load.py [--messages 200,2000,10000] [--budget 2000]
       [--repeat 3]
"""
from __future__ import annotations

import argparse
import gc
import sys
import time

from kit.conversations import shopping_chat
from kit.floor import FloorMemory
from kit.memory import RecallMemory
from kit.tokens import tiktoken_counter
from kit.trace import Table
from progress import progress              # benchmarks/progress.py: tqdm on stderr


def run(memory, turns) -> tuple[float, float, int, int]:
    """Seconds spent in adds and in loads, and how many of each."""
    clock, adds, loads, loaded = time.perf_counter, 0.0, 0.0, 0
    gc.collect()
    gc.disable()
    try:
        for role, text in turns:
            start = clock()
            memory.add(role, text)
            adds += clock() - start
            if role == "user":
                start = clock()
                memory.context()
                loads += clock() - start
                loaded += 1
    finally:
        gc.enable()
    return adds, loads, len(turns), loaded


def best(make, turns, repeat: int) -> tuple[float, float, int, int]:
    return min((run(make(), turns) for _ in range(repeat)), key=lambda r: r[0] + r[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", default="200,2000,10000",
                        help="conversation lengths, comma-separated (default 200,2000,10000)")
    parser.add_argument("--budget", type=int, default=2000, help="tokens (default 2000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell; the best is shown")
    args = parser.parse_args(argv)
    try:
        sizes = [int(n) for n in args.messages.split(",")]
    except ValueError:
        print(f"error: --messages takes numbers like 200,2000, got {args.messages!r}",
              file=sys.stderr)
        return 2
    if any(n < 2 for n in sizes) or args.budget < 100 or args.repeat < 1:
        print(f"error: --messages must be >= 2, --budget >= 100 and --repeat >= 1; got "
              f"{args.messages!r}, {args.budget}, {args.repeat}", file=sys.stderr)
        return 2
    measure = tiktoken_counter()
    rows, first_load = [], None
    for n in progress(sizes, "recall_load sizes"):
        turns = shopping_chat(n)
        floor = best(lambda: FloorMemory(measure, args.budget, count="rendered"), turns,
                     args.repeat)
        recall = best(lambda: RecallMemory(args.budget, measure), turns, args.repeat)
        for name, (adds, loads, added, loaded) in (("floor", floor), ("recall memory", recall)):
            per_load = loads / loaded * 1e6
            if name == "recall memory" and first_load is None:
                first_load = per_load
            rows.append([name, f"{n:,}", f"{(adds + loads) * 1e3:,.1f}",
                         f"{(adds + loads) / sum(floor[:2]):.2f}", f"{adds / added * 1e6:.1f}",
                         f"{per_load:.1f}",
                         f"{per_load / first_load:.2f}" if name == "recall memory" else "-"])
    print(Table(["memory", "messages", "wall (ms)", "x floor", "us per add", "us per load",
                 f"per load / per load at {sizes[0]:,}"], rows,
                f"shopping chat, budget {args.budget:,} cl100k tokens, context loaded at "
                f"every user turn"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
