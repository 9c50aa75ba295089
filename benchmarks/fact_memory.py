"""Benchmark: memories on facts that change (moves, new jobs, a new allergy, a cancelled
order, a reversed preference), held-out and development templates side by side.

Builds ``--conversations`` seeded conversations of each template half
(:func:`kit.synthetic_changes.changing_set`, each over 3 x the budget long), feeds each
into every policy of :data:`kit.change_eval.POLICIES` at ``--budget`` tokens
(cl100k_base) and prints one row per split and policy: current values answerable and
stale, values as of a date answerable, histories whole, abstentions right, never-changed
facts answerable (all in %), the mean context size; then the fact memory's targets on
the held-out half. Stub models only: deterministic, offline, no timings.

Usage: python benchmarks/fact_memory.py [--conversations 20] [--budget 2000]
"""
from __future__ import annotations

import argparse

from kit.change_eval import change_table, check_change_targets, run_changes
from kit.synthetic_changes import SPLITS, changing_set
from kit.trace import Table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=20,
                        help="conversations per template half (>= 1)")
    parser.add_argument("--budget", type=int, default=2000, help="token budget (cl100k_base)")
    args = parser.parse_args(argv)
    try:
        conversations = [c for split in SPLITS for c in changing_set(args.conversations, split)]
        results = run_changes(conversations, args.budget)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    print(change_table(results, f"Facts that change: {args.conversations} conversations per "
                                f"template half, budget {args.budget} tokens"))
    print()
    rows = [[target, "-" if figure is None else f"{100 * figure:.0f}",
             f"{'<=' if 'stale' in target else '>='} {100 * bound:.0f}", "yes" if met else "NO"]
            for target, figure, bound, met in check_change_targets(results)]
    print(Table(["target (fact memory, held-out)", "figure %", "bound %", "met"], rows))


if __name__ == "__main__":
    main()
