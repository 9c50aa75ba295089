"""Benchmark: memories on facts that change, split by split, against the fact memory's targets.

Moves, new jobs, a new allergy, a cancelled order, a reversed preference: the held-out and
development templates side by side, then each later split ("blind", "blind-2" ...; every
one was written by someone who never read the extractor, measured once with the extractor
of its day, then read: development data since; docs/fact_memory.md has each split's story
and its one measurement).

Builds ``--conversations`` seeded conversations of each split
(:func:`kit.synthetic_changes.changing_set`, each over 3 x the budget long), feeds each
into every policy of :data:`kit.change_eval.POLICIES` at ``--budget`` tokens
(cl100k_base) and prints one row per split and policy: current values answerable and
stale, values as of a date answerable, histories whole, abstentions right, never-changed
facts answerable (all in %), the mean context size; then the fact memory's targets on
the held-out half; then, for each split of ``--splits`` beyond those two (every later split
by default; "" for none), its own table and the fact memory's figures beside the held-out
ones, with whether each meets its bound; with two splits or more, the fact memory's figures
on them pooled (every question of every split counted once) against the targets. With few conversations a figure moves in large
steps (one question of 20 is 5 points). Stub models only: deterministic, offline, no timings.

Usage: python benchmarks/fact_memory.py [--conversations 20] [--budget 2000]
       [--splits blind,blind-2,...]
"""
from __future__ import annotations

import argparse
from dataclasses import replace

from kit.change_eval import change_table, check_change_targets, run_changes
from kit.synthetic_changes import SPLITS, changing_set
from kit.trace import Table

_MAIN = ("development", "held-out")      # the first table's splits


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=20,
                        help="conversations per split (>= 1)")
    parser.add_argument("--budget", type=int, default=2000, help="token budget (cl100k_base)")
    parser.add_argument("--splits", default=",".join(s for s in SPLITS if s not in _MAIN),
                        help="comma-separated extra splits, printed after the held-out and "
                             "development ones (default: every other split; '' for none)")
    args = parser.parse_args(argv)
    extra = list(dict.fromkeys(s.strip() for s in args.splits.split(",") if s.strip()))
    if args.conversations < 1:           # named as the option, before anything runs
        parser.error(f"--conversations must be >= 1, got {args.conversations}")
    bad = [s for s in extra if s not in SPLITS or s in _MAIN]
    if bad:
        others = ", ".join(s for s in SPLITS if s not in _MAIN)
        parser.error(f"--splits: {bad[0]!r} is not one of {others}")
    try:
        conversations = [c for split in _MAIN for c in changing_set(args.conversations, split)]
        results = run_changes(conversations, args.budget)
        more = {split: run_changes(changing_set(args.conversations, split), args.budget)
                for split in extra}
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    print(change_table(results, f"Facts that change: {args.conversations} conversations per "
                                f"template half, budget {args.budget} tokens"))
    print()
    rows = [[target, "-" if figure is None else f"{100 * figure:.0f}",
             f"{'<=' if 'stale' in target else '>='} {100 * bound:.0f}", "yes" if met else "NO"]
            for target, figure, bound, met in check_change_targets(results)]
    print(Table(["target (fact memory, held-out)", "figure %", "bound %", "met"], rows))
    held = check_change_targets(results)
    for split, got in more.items():
        print()
        print(change_table(got, f"The same on the {split} templates: {args.conversations} "
                                f"conversations, budget {args.budget} tokens"))
        print()
        print(Table(["fact memory", "bound %", "held-out %", f"{split} %", f"met on {split}"],
                    [[target, f"{'<=' if 'stale' in target else '>='} {100 * bound:.0f}",
                      _pct(figure), _pct(other), "yes" if met else "NO"]
                     for (target, figure, bound, _), (_, other, _, met)
                     in zip(held, check_change_targets(got, split=split))]))
    if len(more) > 1:               # the splits together: a figure of more questions
        name = "pooled: " + ", ".join(more)
        pooled = [replace(r, split=name) for got in more.values() for r in got]
        print()
        print(Table([f"fact memory, {name}", "figure %", "bound %", "met"],
                    [[target, f"{100 * figure:.1f}",
                      f"{'<=' if 'stale' in target else '>='} {100 * bound:.0f}",
                      "yes" if met else "NO"]
                     for target, figure, bound, met in check_change_targets(pooled, split=name)]))


def _pct(figure: float | None) -> str:
    return "-" if figure is None else f"{100 * figure:.0f}"


if __name__ == "__main__":
    main()
