"""Benchmark: cost of adding a message to each memory at 100, 1,000, 2,000 and 10,000
messages, against the floor.

The first rows are the floor (:class:`kit.floor.FloorMemory`: measure each message
once, keep a running total; nothing else), timed in the same run. Prints one row per
(memory, messages): microseconds per add (best of --repeat runs, garbage collector
paused as in ``timeit``), that time as a multiple of the floor's at the same length,
tokenizer calls per add, and the context size in tokens (cl100k_base) at the end. The
last lines are the per-add time ratio between 10,000 and 100 messages of the token
window and the summary memory: near 1 means adding costs the same late in a
conversation as early on, because every message is measured once and sizes are
running totals.

Usage: python benchmarks/memory_add.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import gc
import time

from kit.conversations import shopping_chat
from kit.floor import FloorMemory
from kit.llm import prompt_following_summariser
from kit.memory import FullHistory, SlidingWindow, SummaryMemory, TokenWindow
from kit.tokens import CallCounter, tiktoken_counter
from kit.trace import Table
from progress import progress              # benchmarks/progress.py: tqdm on stderr

SIZES = (100, 1_000, 2_000, 10_000)
FLOOR = "floor (count once, running total)"
MEMORIES = {
    FLOOR: lambda m: FloorMemory(m),
    "full history": lambda m: FullHistory(m),
    "sliding window (6 messages)": lambda m: SlidingWindow(6, m),
    "token window (500 tokens)": lambda m: TokenWindow(500, m),
    "summary memory (500 tokens, keep_recent=4)":
        lambda m: SummaryMemory(prompt_following_summariser, budget=500, keep_recent=4, measure=m),
}


def run(factory, turns, measure) -> tuple[float, int, int]:
    """Seconds for all adds, tokenizer calls, final context size.

    The garbage collector is paused while timing, as ``timeit`` does: its full passes
    scan every object alive (10,000 trace events, say) and would charge the memory
    for the interpreter's bookkeeping.
    """
    counter = CallCounter(measure)
    memory = factory(counter)
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for role, text in turns:
            memory.add(role, text)
        seconds = time.perf_counter() - start
    finally:
        gc.enable()
    return seconds, counter.calls, memory.size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell; the best is shown")
    args = parser.parse_args()
    measure = tiktoken_counter("cl100k_base")
    chat = shopping_chat(max(SIZES))
    rows, per_add = [], {}
    cells = [(name, factory, n) for name, factory in MEMORIES.items() for n in SIZES]
    for name, factory, n in progress(cells, "memory_add cells"):
        results = [run(factory, chat[:n], measure) for _ in range(args.repeat)]
        seconds, calls, size = min(results)
        per_add[name, n] = seconds / n * 1e6
        rows.append([name, f"{n:,}", f"{per_add[name, n]:.1f}",
                     f"{per_add[name, n] / per_add[FLOOR, n]:.2f}", f"{calls / n:.2f}", size])
    print(Table(["memory", "messages", "us per add", "x floor", "tokenizer calls per add",
                 "context (tokens)"], rows))
    for name in ("token window (500 tokens)", "summary memory (500 tokens, keep_recent=4)"):
        ratio = per_add[name, SIZES[-1]] / per_add[name, SIZES[0]]
        print(f"{name}: per-add time ratio {SIZES[-1]}/{SIZES[0]} turns: {ratio:.2f}")


if __name__ == "__main__":
    main()
