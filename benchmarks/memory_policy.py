"""Benchmark: how much of what each question needs is still in the context, per memory policy.

Runs the sliding window (by tokens), summary, plain BM25, recall, recall + RRF and
hybrid (summary + recall) memories at token budgets 1,000 / 2,000 / 4,000 / 8,000 on
every conversation in a folder of LoCoMo files (``--data``), or on the kit's
synthetic long conversation (the default), and prints one row per run: all-evidence
coverage % over categories 1-4 and by category, any-evidence % and answer-present %,
adversarial questions (category 5) apart, mean context tokens, model calls, tokenizer
calls and wall time. Then the issue's targets (recall memory at 2,000 tokens) beside
the results, and the total time per conversation. The strategies, the measures and
the targets are in :mod:`kit.policy_bench`; the summariser is the extractive stub of
:mod:`kit.extractive` (no model is called). Timing uses ``time.perf_counter``: figures
vary with the machine and its load, coverage does not.

LoCoMo is not part of the repository (:func:`kit.locomo.how_to_get` says where to get
it): ``--data`` alone reads the folder :func:`kit.locomo.data_dir` names (``$LOCOMO_DIR``,
else ``data/locomo/`` at the repository root), ``--data DIR`` reads DIR, and
``--conversations 26,30`` keeps those conversations (``26`` also matches the release's
``conv-26``).

With ``--ablation``, then recall memory's parts one at a time (:mod:`kit.ablation`):
each part's gain in all-evidence coverage, with a 95 % confidence interval (paired
bootstrap over questions), at every budget, pooled over the conversations. With
``--cv`` (two conversations or more), leave-one-conversation-out cross-validation of
which search parts are on, at every budget: chosen on the others, scored on the one
left out, beside the defaults.

Context sizes are the ones each memory reports under its own counting rule (its
``context_size``: nothing is tokenised again); ``--check N`` (default 5) re-counts N
loads of every run from the texts with the memory's rule and stops on any
disagreement.

Recall memory's dense retriever: by default the memory's own (the packaged
all-MiniLM-L6-v2 fused with BM25 when the ``semantic`` extra is installed, else none);
``--embedder`` sets it (``semantic``: the packaged model, run offline by
:class:`kit.ranking.dense.OnnxEmbedder` on ``--threads`` threads, needs the extra;
``auto``: that model when installed, else none; ``none``: BM25 and its parts alone;
``static``: a word-piece table distilled from that
model, :class:`kit.ranking.static_embedder.StaticEmbedder`, no model run per text;
``hashing``: the deterministic stand-in of
:mod:`kit.ranking.dense`, no model; ``openai``: an OpenAI-compatible ``/embeddings``
endpoint configured from the environment, ``KIT_LLM_BASE_URL``, ``KIT_LLM_API_KEY``,
``KIT_EMBEDDING_MODEL``; ``module:name``: a callable ``texts -> vectors`` you
provide), fused with the weight ``--dense-weight`` (default 1: plain RRF, the rule
stated before any measurement), and ``--llm`` a model that splits each question into sub-questions
(``openai``: the chat endpoint of :mod:`kit.openai_compat`, configured from the
environment; ``module:name``: a prompt model ``str -> str``).

With an embedder named by ``--embedder``, the benchmark first runs every strategy
without any (``embedder=None``), then with it, cold (a model and cache of its own: no
embedding kept from an earlier run), and prints the two times side by side: the recall
strategies share one embedding per turn text and per question
(:class:`kit.ranking.dense.CachedEmbedder`), the questions embedded up front in
batches.

Usage: python benchmarks/memory_policy.py [--data [DIR]] [--conversations 26,30]
       [--budgets 1000,2000,4000,8000] [--strategies "sliding window,BM25,recall"]
       [--ablation] [--cv] [--check 5]
       [--embedder semantic|auto|none|static|hashing|openai|module:name] [--threads 2]
       [--dense-weight 1]
       [--llm openai|module:name]
       [--sessions 20 --turns-per-session 20 --seed 0]   (synthetic conversation)
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from kit.ablation import ablation_table, cross_validate, cv_table, run_ablation
from kit.locomo import data_dir, load_locomo_dir
from kit.memory import CompactionError
from kit.memory_eval import CachedMeasure
from kit.policy_bench import (BUDGETS, STRATEGIES, TARGET_BUDGET, TARGET_STRATEGY,
                              pick_strategies, policy_table, run_policy_benchmark,
                              seconds_by_conversation, target_table)
from kit.synthetic import synthetic_conversation
from progress import progress              # benchmarks/progress.py: tqdm on stderr


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="?", const=data_dir(), default=None, metavar="DIR",
                        help=f"read the LoCoMo .json files of DIR; alone, of {data_dir()} "
                             f"($LOCOMO_DIR, else data/locomo/ at the repository root); "
                             f"without it, the synthetic conversation")
    parser.add_argument("--conversations", default=None, metavar="NAMES",
                        help="with --data: only these conversations, comma-separated "
                             "(e.g. 26,30; default all)")
    parser.add_argument("--budgets", default=",".join(str(b) for b in BUDGETS),
                        help="token budgets, comma-separated (default 1000,2000,4000,8000)")
    parser.add_argument("--strategies", default=",".join(STRATEGIES),
                        help=f"comma-separated, any of: {', '.join(STRATEGIES)} (default all)")
    parser.add_argument("--sessions", type=int, default=20, help="synthetic: sessions (default 20)")
    parser.add_argument("--turns-per-session", type=int, default=20,
                        help="synthetic: turns per session (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="synthetic: seed (default 0)")
    parser.add_argument("--ablation", action="store_true",
                        help="also print each recall part's gain with a 95%% CI")
    parser.add_argument("--cv", action="store_true",
                        help="also print leave-one-conversation-out cross-validation")
    parser.add_argument("--check", type=int, default=5, metavar="N",
                        help="re-count N loads per run with the memory's own counting rule "
                             "and stop on any disagreement (default 5; 0: none)")
    parser.add_argument("--embedder", default=None, metavar="SPEC",
                        help="recall's dense retriever: semantic (the packaged model, timed "
                             "against none), auto, none, static, hashing, openai or "
                             "module:name (default: the memory's own, the packaged model "
                             "when installed)")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                        metavar="N", help="the packaged model's threads (default 2, or 1 on "
                                          "one core; the vectors do not depend on it)")
    parser.add_argument("--dense-weight", type=float, default=1.0, metavar="W",
                        help="the dense ranking's weight in the fusion (default 1)")
    parser.add_argument("--llm", default=None, metavar="SPEC",
                        help="a model splitting questions for recall: openai or module:name")
    return parser.parse_args(argv)


def load_object(spec: str, what: str):
    """The object ``module:name`` names (ValueError naming the spec otherwise)."""
    module, _, name = spec.partition(":")
    if not module or not name:
        raise ValueError(f"--{what} must be {'hashing, ' if what == 'embedder' else ''}"
                         f"openai or module:name, got {spec!r}")
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"--{what} {spec!r}: {exc}") from None
    if not callable(found):
        raise ValueError(f"--{what} {spec!r} is not callable")
    return found


class Watched:
    """A model given on the command line, its calls and failures counted (a failing
    model never stops recall: the search goes on without it, so the benchmark says how
    often that happened)."""

    def __init__(self, model, flag: str) -> None:
        self.model, self.flag, self.calls, self.failed = model, flag, 0, 0

    def __call__(self, arg):
        self.calls += 1
        try:
            reply = self.model(arg)
        except Exception:
            self.failed += 1
            raise
        if self.flag == "--llm" and (not isinstance(reply, str) or not reply.strip()):
            self.failed += 1                  # the search falls back on its own split
        return reply

    def report(self) -> str:
        what = ("the rule-based split was used instead" if self.flag == "--llm"
                else "recall went on with BM25 alone")
        return (f"{self.flag}: {self.calls:,} calls, {self.failed:,} failed"
                + (f" ({what})" if self.failed else ""))


def search_options(args: argparse.Namespace) -> dict:
    """RecallSearch keywords from ``--embedder`` and ``--llm``, each model watched."""
    options = {}
    if args.threads < 1:
        raise ValueError(f"--threads must be >= 1, got {args.threads}")
    if args.embedder in ("semantic", "auto"):
        from kit.ranking.dense import (INSTALL_HINT, CachedEmbedder, ModelUnavailable,
                                       OnnxEmbedder, semantic_available)
        if semantic_available():                    # a model and a cache of its own: cold
            options["embedder"] = CachedEmbedder(OnnxEmbedder(threads=args.threads))
        elif args.embedder == "semantic":
            raise ModelUnavailable(f"--embedder semantic needs the embedding runtime and "
                                   f"model: {INSTALL_HINT}")
    elif args.embedder == "none":
        return {"embedder": None}
    elif args.embedder == "static":
        from kit.ranking.dense import CachedEmbedder, OnnxEmbedder
        from kit.ranking.static_embedder import StaticEmbedder
        options["embedder"] = CachedEmbedder(StaticEmbedder(OnnxEmbedder(threads=args.threads)))
    elif args.embedder == "hashing":
        from kit.ranking.dense import HashingEmbedder
        options["embedder"] = HashingEmbedder()
    elif args.embedder == "openai":
        from kit.openai_compat import OpenAICompatibleEmbedder
        options["embedder"] = OpenAICompatibleEmbedder()
    elif args.embedder is not None:
        options["embedder"] = load_object(args.embedder, "embedder")
    if args.llm == "openai":
        from kit.openai_compat import OpenAICompatibleModel
        options["decompose"] = OpenAICompatibleModel()
    elif args.llm is not None:
        options["decompose"] = load_object(args.llm, "llm")
    for key, flag in (("embedder", "--embedder"), ("decompose", "--llm")):
        if options.get(key) is not None:
            options[key] = Watched(options[key], flag)
    if args.dense_weight != 1.0:
        options["dense_weight"] = args.dense_weight
    return options


SEARCHED = ("recall", "recall + RRF", "hybrid")      # the strategies given the embedder


def prefetch(embedder: Watched, conversations) -> None:
    """Embed every question, then every turn as recall memory embeds it
    (:func:`kit.memory.recall_search.dense_text`), one call per conversation each, when
    the embedder keeps what it embeds (a :class:`~kit.ranking.dense.CachedEmbedder`):
    batches of 64 instead of one text per question. Run on a thread of its own while
    the strategies that do not use the model run (the runtime releases the GIL); a
    failure here is left to the memories, which embed what is missing themselves."""
    from kit.memory.recall_search import dense_text
    from kit.memory_eval import render_turn
    from kit.ranking.dense import CachedEmbedder
    if isinstance(embedder.model, CachedEmbedder):
        for conversation in conversations:
            embedder.model([q.question for q in conversation.questions])
            embedder.model([dense_text(t.speaker, render_turn(t, True)[0])
                            for t in conversation.turns])


def run_all(conversations, budgets, strategies, measure, options, check, ahead: bool):
    """Every strategy at every budget, conversation by conversation, in the table's order.
    With ``ahead`` (a model given), the model embeds the questions and turns on a thread
    of its own while the strategies that do not use it run, then the recall strategies
    run."""
    order = {name: i for i, name in enumerate(strategies)}
    pool = ThreadPoolExecutor(1) if ahead else None
    if pool is not None:
        pending = pool.submit(prefetch, options["embedder"], conversations)
    results = []
    for batch in progress([[c] for c in conversations] or [[]], "conversations"):
        groups = ([[s for s in strategies if s not in SEARCHED],
                   [s for s in strategies if s in SEARCHED]] if ahead else [strategies])
        runs = [run for group in groups if group
                for run in run_policy_benchmark(batch, budgets, group, measure=measure,
                                                search=options, check=check)]
        runs.sort(key=lambda r: (budgets.index(r.budget), order[r.strategy]))
        results += runs
    if pool is not None:
        pending.exception()                     # waited for; its failure left to the memories
        pool.shutdown()
    return results


def time_table(without: float, with_model: float, embedder) -> str:
    """The benchmark's time without and with the embedder, side by side (the run with it
    started cold: its cache held nothing)."""
    texts = getattr(embedder, "__len__", None)
    held = f"; {len(embedder):,} distinct texts embedded" if texts else ""
    return (f"time, every strategy and budget: without the embedder {without:.2f} s, with it "
            f"{with_model:.2f} s (cold{held}): {with_model / max(without, 1e-9):.1f}x")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    except ValueError:
        print(f"--budgets must be comma-separated integers, got {args.budgets!r}", file=sys.stderr)
        return 2
    try:
        strategies = pick_strategies(s for s in args.strategies.split(",") if s.strip())
        if args.conversations is not None and args.data is None:
            raise ValueError("--conversations needs --data (it picks LoCoMo conversations)")
        only = (None if args.conversations is None else
                [n.strip() for n in args.conversations.split(",") if n.strip()])
        conversations = (load_locomo_dir(args.data, only=only) if args.data is not None else
                         [synthetic_conversation(args.sessions, args.turns_per_session,
                                                 args.seed)])
        if args.cv and len(conversations) < 2:
            raise ValueError(f"--cv needs two conversations or more, got {len(conversations)}")
        options = search_options(args)
    except (OSError, ValueError, TypeError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        without, timed = None, options.get("embedder") is not None
        if timed:                                   # the floor: the same runs, no model
            start = time.perf_counter()
            run_policy_benchmark(conversations, budgets, strategies, measure=CachedMeasure(),
                                 search={"embedder": None}, check=args.check)
            without = time.perf_counter() - start
        measure = CachedMeasure()                   # one tokenizer cache for every run
        start = time.perf_counter()
        results = run_all(conversations, budgets, strategies, measure, options, args.check,
                          timed)
    except (ValueError, TypeError, RuntimeError, OSError, CompactionError) as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    total = time.perf_counter() - start

    print(policy_table(results))
    print()
    if TARGET_BUDGET in budgets and TARGET_STRATEGY in strategies:
        print(target_table(results))
        if args.data is None:
            print("(the targets are set for LoCoMo conversations; on the synthetic one they "
                  "are shown for comparison)")
    else:
        print(f"targets not checked: they need budget {TARGET_BUDGET} and strategy "
              f"{TARGET_STRATEGY!r}")
    print()
    turns = sum(len(c.turns) for c in conversations)
    for name, seconds in seconds_by_conversation(results).items():
        print(f"conversation {name}: {len(strategies)} strategies x {len(budgets)} budgets "
              f"in {seconds:.2f} s")
    print(f"total {total:.2f} s for {len(results)} runs on {turns:,} turns; tokenizer calls "
          f"in all: {measure.calls:,} (each distinct text measured once: {len(measure.cache):,} "
          f"texts cached)")
    if without is not None:
        print(time_table(without, total, options["embedder"].model))
    reported = sum(r.run.sizes == "memory" for r in results)
    print(f"context sizes: reported by the memories in {reported} of {len(results)} runs "
          f"(the others measured); {sum(r.run.checked for r in results):,} loads re-counted "
          f"by the memories' own rules, all agreeing")
    names = ", ".join(c.name for c in conversations)
    try:
        if args.ablation:
            print()
            print(ablation_table(run_ablation(conversations, budgets, options=options,
                                              measure=measure), options,
                                 f"Recall memory, one part switched at a time (pooled over "
                                 f"{names}; gain = with - without, points, 95% "
                                 f"paired-bootstrap CI)"))
        if args.cv:
            print()
            print(cv_table(cross_validate(conversations, budgets, measure=measure,
                                          options=options),
                           "Which search parts are on, chosen on the other conversations and "
                           "scored on the one left out"))
    except (ValueError, TypeError, RuntimeError, OSError, CompactionError) as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    for model in options.values():
        if isinstance(model, Watched):
            print(model.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
