"""Benchmark: single-pass vs map-reduce summarization of 10 to 100,000 memory items.

For each number of items, one row per strategy: the largest prompt (tokens, chars / 4 as
:func:`kit.tokens.approx_tokens` counts them), model calls, levels, wall time (ms) and
whether every prompt fits the window. A single pass whose prompt is over the window is
not sent: its row shows the size it would have had and "no (over window, not sent)".
The model is the deterministic stub :func:`kit.hierarchical.first_sentence_summariser`;
items are generated from a fixed seed, so every figure but the time repeats exactly.

Usage: python benchmarks/hierarchical.py [--sizes 10 100 1000] [--window 4096] [--batch-size 50]
"""
from __future__ import annotations

import argparse
import random
import time

from kit.hierarchical import (MemoryItem, WindowExceededError, first_sentence_summariser,
                              hierarchical_summary)
from kit.trace import Table

SIZES = (10, 100, 1_000, 10_000, 100_000)
PEOPLE = ("Asha", "Ben", "Chen", "Dara", "Eli", "Farah", "Goran", "Hana")
FACTS = ("prefers window seats", "is allergic to peanuts", "paid invoice {n}",
         "asked for a refund on order {n}", "moved the meeting to day {n}",
         "set a budget of {n} euros", "wants the report by day {n}", "changed plan to tier {n}")
DETAILS = ("It was confirmed by email.", "The agent noted it twice.",
           "No follow-up is needed.", "Check again next week.")


def generate_items(count: int, seed: int = 3) -> list[MemoryItem]:
    """``count`` memory items of two sentences each, the same for the same seed."""
    rng = random.Random(seed)
    return [MemoryItem(f"m{i}", f"{rng.choice(PEOPLE)} "
                       f"{rng.choice(FACTS).format(n=rng.randrange(1000, 10000))}. "
                       f"{rng.choice(DETAILS)}")
            for i in range(1, count + 1)]


def run(items, depth: str, window: int, batch_size: int) -> list[object]:
    """One table row (without the item count) for ``depth`` on ``items``."""
    start = time.perf_counter()
    try:
        result = hierarchical_summary(items, first_sentence_summariser, window=window,
                                      batch_size=batch_size, depth=depth)
    except WindowExceededError as error:
        ms = (time.perf_counter() - start) * 1e3
        return [f"{error.tokens:,}", 0, 0, f"{ms:.1f}", "no (over window, not sent)"]
    ms = (time.perf_counter() - start) * 1e3
    fits = "yes" if result.largest_prompt_tokens <= window and not result.truncated else "no"
    return [f"{result.largest_prompt_tokens:,}", result.calls, len(result.levels),
            f"{ms:.1f}", fits]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES),
                        help="numbers of items (default: %(default)s)")
    parser.add_argument("--window", type=int, default=4096,
                        help="context window in tokens (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=50,
                        help="max items per batch (default: %(default)s)")
    args = parser.parse_args(argv)
    every = generate_items(max(args.sizes))
    rows = []
    for n in args.sizes:
        for label, depth in (("single pass", "single"), ("map-reduce", "hierarchical")):
            rows.append([f"{n:,}", label] + run(every[:n], depth, args.window, args.batch_size))
    print(Table(["items", "strategy", "largest prompt (tokens)", "model calls", "levels",
                 "time (ms)", "fits window"], rows))
    print(f"window {args.window:,} tokens, batch size {args.batch_size}")


if __name__ == "__main__":
    main()
