"""Benchmark: which planted facts each memory still holds after a long conversation.

Replays the shopping chat (an order id, an allergy and a budget stated in message 1,
never repeated) into every strategy of :data:`kit.retention.STRATEGIES` with the same
token budget, and prints one row per (strategy, messages): the facts still in the
context, the ones lost, the context size in tokens (approx_tokens), the summariser
calls and the tokens sent to the summariser. Stub models only: deterministic, no
network, no timings.

Usage: python benchmarks/fact_retention.py [--lengths 50 200] [--budget 200]
"""
from __future__ import annotations

import argparse

from kit.conversations import PLANTED_FACTS
from kit.retention import DEFAULT_BUDGET, KEEP_RECENT, STRATEGIES, retention, retention_table
from progress import progress              # benchmarks/progress.py: tqdm on stderr


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[50, 200],
                        help="conversation lengths in messages (each >= 2)")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET,
                        help="token budget of every memory (approx_tokens)")
    args = parser.parse_args(argv)
    try:
        rows = [row for name, strategy in progress(list(STRATEGIES.items()), "memories")
                for row in retention({name: strategy}, lengths=args.lengths,
                                     budget=args.budget)]
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    print(retention_table(rows, f"Fact retention: {len(PLANTED_FACTS)} facts planted in "
                                f"message 1, budget {args.budget} tokens, "
                                f"keep_recent={KEEP_RECENT}"))


if __name__ == "__main__":
    main()
