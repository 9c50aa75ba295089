"""Benchmark: single-pass vs map-reduce summarization of 10 to 100,000 memory items.

For each number of items, one row per strategy: the largest prompt (cl100k tokens, the
kit's default measure), model calls, levels, lone summaries
carried up without a call, wall time (ms) and whether every prompt fits the window. A
single pass whose prompt is over the window is not sent: its row shows the size it
would have had and "no (over window, not sent)".
The model is the deterministic stub :func:`kit.hierarchical.first_sentence_summariser`;
the items are :func:`kit.hierarchical.sample_items` (seed 0 unless ``--seed``), the
items of lesson 05, so every figure but the time repeats exactly.

Usage: python benchmarks/hierarchical.py [--sizes 10 100 1000] [--window 4096]
       [--batch-size 50] [--seed 0]
"""
from __future__ import annotations

import argparse
import time

from kit.hierarchical import (WindowExceededError, first_sentence_summariser,
                              hierarchical_summary, sample_items)
from kit.tokens import cl100k_tokens
from kit.trace import Table
from progress import progress              # benchmarks/progress.py: tqdm on stderr

SIZES = (10, 100, 1_000, 10_000, 100_000)


def run(items, depth: str, window: int, batch_size: int) -> list[object]:
    """One table row (without the item count) for ``depth`` on ``items``."""
    start = time.perf_counter()
    try:
        result = hierarchical_summary(items, first_sentence_summariser, window=window,
                                      batch_size=batch_size, depth=depth)
    except WindowExceededError as error:
        ms = (time.perf_counter() - start) * 1e3
        return [f"{error.tokens:,}", 0, 0, 0, f"{ms:.1f}", "no (over window, not sent)"]
    ms = (time.perf_counter() - start) * 1e3
    fits = "yes" if result.largest_prompt_tokens <= window and not result.truncated else "no"
    return [f"{result.largest_prompt_tokens:,}", f"{result.calls:,}", len(result.levels),
            result.carried, f"{ms:.1f}", fits]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES),
                        help="numbers of items (default: %(default)s)")
    parser.add_argument("--window", type=int, default=4096,
                        help="context window in tokens (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=50,
                        help="max items per batch (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of sample_items (default: %(default)s)")
    args = parser.parse_args(argv)
    every = sample_items(max(args.sizes), seed=args.seed)
    cl100k_tokens("warm-up")          # load the encoding here, not inside the first timed row
    rows = []
    runs = [(n, label, depth) for n in args.sizes
            for label, depth in (("single pass", "single"), ("map-reduce", "hierarchical"))]
    for n, label, depth in progress(runs, "hierarchical runs"):
        rows.append([f"{n:,}", label] + run(every[:n], depth, args.window, args.batch_size))
    print(Table(["items", "strategy", "largest prompt (tokens)", "model calls", "levels",
                 "carried (no call)", "time (ms)", "fits window"], rows))
    print(f"window {args.window:,} tokens, batch size {args.batch_size}")


if __name__ == "__main__":
    main()
