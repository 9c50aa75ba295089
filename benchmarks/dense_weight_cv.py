"""Benchmark: recall memory's embedding model on the two shared LoCoMo conversations.

Three things, all on LoCoMo conversations 26 and 30 (``--data``, default the folder
:func:`kit.locomo.data_dir` names) at 1,000 / 2,000 / 4,000 / 8,000 tokens:

1. **Pooled all-evidence coverage** (categories 1-4, and multi-hop) of recall memory
   with its defaults, with the packaged MiniLM (on by default when the ``semantic``
   extra is installed) and without it (``embedder=None``).
2. **The ablation rows** (:mod:`kit.ablation`): the model's gain, switched off, and the
   static table's (:class:`kit.ranking.static_embedder.StaticEmbedder`, distilled from
   the same model, measured against no model), with paired-bootstrap 95 % intervals.
3. **The fusion weight, cross-validated between the two conversations**: the weight of
   the dense ranking in the RRF fusion (``dense_weight``; the question's BM25 ranking
   weighs 1) taken from a grid fixed before looking (0.5, 1, 2: half, the stated rule,
   double), chosen on one conversation and scored on the other
   (:func:`kit.ablation.leave_one_out`). The kit keeps the stated 1 unless the held-out
   scores clearly say otherwise (docs/embeddings.md states the rule).

Needs the ``semantic`` extra. Usage: python benchmarks/dense_weight_cv.py [--data DIR]
[--budgets 1000,2000,4000,8000] [--no-static]
"""
from __future__ import annotations

import argparse
import sys

from kit.ablation import (FULL, MODEL, STATIC, _outcomes, ablation_table, leave_one_out,
                          recall_factory, run_ablation)
from kit.locomo import data_dir, load_locomo_dir
from kit.memory_eval import CachedMeasure, evaluate
from kit.ranking.dense import CachedEmbedder, semantic_available
from kit.trace import Table

WEIGHTS = (0.5, 1.0, 2.0)           # fixed before any measurement: half, the rule, double


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, metavar="DIR")
    parser.add_argument("--budgets", default="1000,2000,4000,8000")
    parser.add_argument("--no-static", action="store_true", help="skip the static table's row")
    args = parser.parse_args(argv)
    if not semantic_available():
        print('error: needs the semantic extra: pip install -e ".[semantic]"', file=sys.stderr)
        return 2
    budgets = [int(b) for b in args.budgets.split(",")]
    conversations = load_locomo_dir(args.data or data_dir(), only=["26", "30"])
    measure = CachedMeasure()
    static = None
    if not args.no_static:
        from kit.ranking.static_embedder import StaticEmbedder
        static = CachedEmbedder(StaticEmbedder())
    runs = run_ablation(conversations, budgets, [STATIC] if static is not None else [MODEL],
                        measure=measure, static=static)
    by = {}
    for r in runs:
        by.setdefault((r.variant, r.budget), []).append(r.run)
    rows = []
    for budget in budgets:
        row = [f"{budget:,}"]
        for cats in ((1, 2, 3, 4), (1,)):
            for variant in (MODEL, FULL, STATIC):
                if (variant, budget) in by:
                    row.append(f"{100 * _outcomes(by[(variant, budget)], cats).mean():.1f}")
        rows.append(row)
    columns = ["budget (tokens)", "all 1-4 %, no model", "all 1-4 %, MiniLM"]
    columns += ["all 1-4 %, static"] if static is not None else []
    columns += ["multi-hop %, no model", "multi-hop %, MiniLM"]
    columns += ["multi-hop %, static"] if static is not None else []
    print(Table(columns, rows, "Recall memory pooled over LoCoMo 26 + 30 (all evidence in "
                               "the context, %)"))
    print()
    print(ablation_table(runs, title="The model's and the static table's gains (points, "
                                     "95% paired-bootstrap CI, pooled over 26 + 30)"))
    print()
    cv_rows = []
    for budget in budgets:
        scores = {}
        for weight in WEIGHTS:
            factory = recall_factory(budget, None, {"dense_weight": weight})
            scores[weight] = [float(_outcomes([evaluate(c, factory, f"w={weight}",
                                                        measure=measure)],
                                              (1, 2, 3, 4)).mean()) for c in conversations]
        for held, (chosen, score) in enumerate(leave_one_out(scores)):
            cv_rows.append([f"{budget:,}", conversations[held].name,
                            conversations[1 - held].name,
                            " / ".join(f"{w:g}: {100 * scores[w][1 - held]:.1f}"
                                       for w in WEIGHTS),
                            f"{chosen:g}", f"{100 * score:.1f}",
                            f"{100 * scores[1.0][held]:.1f}"])
    print(Table(["budget (tokens)", "held out", "tuned on", "tuned-on % by weight",
                 "chosen weight", "held-out %", "held-out % at 1 (the rule)"], cv_rows,
                "The dense ranking's fusion weight, chosen on one conversation, scored on "
                "the other"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
