"""Memory policies side by side: every strategy at every token budget on long conversations.

The benchmark of lesson 09 (``benchmarks/memory_policy.py`` is a thin command line
over this module). For each conversation, each token budget and each strategy, a
fresh memory is fed the whole conversation and asked every question through the
memory-policy evaluator (:func:`kit.memory_eval.evaluate`); one
:class:`~kit.memory_eval.CachedMeasure` is shared by all runs, so each turn is
tokenised once however many memories see it.

The strategies (:data:`STRATEGIES`; ``budget`` in the measure's unit, tokens by default):

- **sliding window**: :class:`~kit.memory.TokenWindow` ``(budget, count="rendered")``,
  the newest turns that fit, speaker labels counted. A window by tokens, not by
  messages: at a budget that is the fair comparison.
- **summary**: :class:`~kit.memory.SummaryMemory` ``(summariser, budget,
  keep_recent=6, count="rendered")`` with the extractive summariser of :mod:`kit.extractive`
  (:func:`~kit.extractive.make_extractive_summariser`, capped at a quarter of the
  budget): a deterministic stub that keeps fact-bearing sentences verbatim, so a
  fact kept is a fact findable. No real model is called.
- **BM25**: plain BM25 over the turns' text and nothing else:
  :class:`~kit.memory.RecallMemory` with no recent turns (``keep_recent=0``,
  ``recent=0``), an index without the conversation parts (no speaker, date or
  resolved time indexed, ``spread=(0, 0)``, ``speaker_boost=0``, ``feedback=(0, 0)``;
  its tokenizer still drops stopwords and folds endings), no query split and no
  embedding model: the retrieval baseline.
- **recall**: :class:`~kit.memory.RecallMemory` ``(budget)`` with its defaults:
  recent turns plus older turns recalled by :class:`~kit.memory.RecallSearch` (BM25
  with the speaker, the session date and resolved relative times indexed, spread,
  speaker boost, pseudo-relevance feedback, the query split, and the packaged MiniLM
  fused by RRF when the ``semantic`` extra is installed; what each part adds is
  measured by :mod:`kit.ablation`). Another embedder (``embedder=None``: none) or a
  decomposition model given to the benchmark goes to the recall strategies
  (``search=``).
- **recall + RRF**: the same, its ranking fused by reciprocal rank fusion with a
  query made of the recent turns (``fuse_recent=True``).
- **hybrid**: recall memory with a running summary as well (``summariser=`` the
  same extractive stub, a quarter of the budget): summary + recalled + recent turns.

Reading the table. Evidence is found by message number for recall memories (they
report ``context_numbers``) and by text for the others (see :mod:`kit.memory_eval`):
a summary that rewrites or tags a turn does not count as holding it, so for the
summary, answer-present % is the fairer figure. Context sizes are measured on the
context text as sent; every strategy counts what it renders (labels, titles, date
lines) against its budget (``count="rendered"``, :mod:`kit.sizing`), so "within
budget" means what would be sent.

:func:`policy_table` prints one row per run; :func:`target_table` sets the targets
beside the results (on each LoCoMo conversation at 2,000 tokens: all-evidence
coverage of recall memory >= 80 % over categories 1-4, >= 40 % on multi-hop and
>= 85 % on temporal questions). Wall time per run is measured with an injectable
``clock``: a figure for the benchmark's table, never for a test.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from kit.extractive import make_extractive_summariser
from kit.locomo import CATEGORIES, LongConversation
from kit.memory import (RecallMemory, RecallSearch, SharedScores, SummaryMemory, TokenWindow,
                        TurnIndex)
from kit.memory_eval import CachedMeasure, MemoryFactory, evaluate
from kit.memory_scores import EvalRun
from kit.tokens import Measure
from kit.trace import Table
from kit.validation import check_budget

__all__ = ["STRATEGIES", "BUDGETS", "Target", "TARGETS", "TARGET_BUDGET", "TARGET_STRATEGY",
           "BESIDE", "PolicyRun", "TargetCheck", "strategy_factories", "pick_strategies",
           "run_policy_benchmark", "policy_table", "check_targets", "target_table",
           "seconds_by_conversation"]

STRATEGIES = {
    "sliding window": "TokenWindow(budget, count='rendered'): the newest turns that fit",
    "summary": "SummaryMemory(count='rendered'), extractive summariser capped at budget // 4, "
               "keep_recent=6",
    "BM25": "plain BM25 over the turns' text: RecallMemory without recent turns or the "
            "conversation parts",
    "recall": "RecallMemory(budget): recent turns + turns recalled by RecallSearch",
    "recall + RRF": "RecallMemory(budget, fuse_recent=True): ranking fused with the recent turns",
    "hybrid": "RecallMemory with a running summary (extractive, budget // 4)",
}
BUDGETS = (1000, 2000, 4000, 8000)          # in the measure's unit (tokens)
TARGET_BUDGET, TARGET_STRATEGY = 2000, "recall"
BESIDE = ("sliding window", "BM25")           # shown next to recall memory in target_table


@dataclass(frozen=True)
class Target:
    """A floor on all-evidence coverage: ``label``, the question ``categories`` it is
    over, ``minimum`` as a fraction 0-1."""

    label: str
    categories: tuple[int, ...]
    minimum: float


TARGETS = (Target("all evidence, categories 1-4", (1, 2, 3, 4), 0.80),
           Target("all evidence, multi-hop", (1,), 0.40),
           Target("all evidence, temporal", (2,), 0.85))


@dataclass(frozen=True)
class PolicyRun:
    """One strategy at one ``budget`` on one conversation: the evaluator's ``run``
    (its ``memory`` is the strategy name) and the wall time it took, in ``seconds``."""

    strategy: str
    budget: int
    run: EvalRun
    seconds: float


@dataclass(frozen=True)
class TargetCheck:
    """One target on one conversation: the recall memory's ``value`` (fraction 0-1, None
    when no question of those categories has evidence), ``met`` (None likewise) and the
    same coverage of the :data:`BESIDE` strategies (name -> value, None if not run)."""

    conversation: str
    target: Target
    value: float | None
    met: bool | None
    beside: dict[str, float | None]


def pick_strategies(names: Iterable[str] | None = None) -> list[str]:
    """The strategy names, checked and spelled as in :data:`STRATEGIES` (matched without
    regard to case or surrounding spaces); None: all of them, in their order.
    Raises ValueError naming an unknown or repeated name, or for an empty list."""
    if names is None:
        return list(STRATEGIES)
    if isinstance(names, str):
        names = [names]
    known = {n.lower(): n for n in STRATEGIES}
    picked = []
    for name in names:
        spelled = known.get(str(name).strip().lower())
        if spelled is None:
            raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
        if spelled in picked:
            raise ValueError(f"strategy {spelled!r} is named twice")
        picked.append(spelled)
    if not picked:
        raise ValueError("strategies is empty: name at least one of " + ", ".join(STRATEGIES))
    return picked


def _factory(name: str, budget: int, search: dict, shared: SharedScores | None) -> MemoryFactory:
    """``measure -> fresh memory`` for strategy ``name`` at ``budget``; ``search``:
    RecallSearch keywords for the recall strategies (a real ``embedder`` or
    ``decompose`` model); ``shared``: score arrays shared by their indexes."""
    def summariser(measure: Measure):
        return make_extractive_summariser(max(1, budget // 4), measure)

    def recall(measure: Measure, **options):
        return RecallMemory(budget, measure, search=RecallSearch(TurnIndex(shared=shared),
                                                                 **search), **options)

    builders: dict[str, Callable[[Measure], object]] = {
        "sliding window": lambda m: TokenWindow(budget, m, count="rendered"),
        "summary": lambda m: SummaryMemory(summariser(m), budget, 6, m, count="rendered"),
        "BM25": lambda m: RecallMemory(budget, m, keep_recent=0, recent=0, search=RecallSearch(
            TurnIndex(spread=(0.0, 0.0), speaker_boost=0.0, feedback=(0, 0),
                      index_speaker=False, index_date=False, resolve_dates=False,
                      shared=shared),
            split=False, embedder=None)),
        "recall": lambda m: recall(m),
        "recall + RRF": lambda m: recall(m, fuse_recent=True),
        "hybrid": lambda m: recall(m, summariser=summariser(m)),
    }
    build = builders[name]

    def factory(measure: Measure) -> object:
        return build(measure)
    factory.__name__ = f"{name} at {budget}"
    return factory


def strategy_factories(budget: int, names: Iterable[str] | None = None, *,
                       search: dict | None = None,
                       shared: SharedScores | None = None) -> dict[str, MemoryFactory]:
    """Strategy name -> factory ``measure -> fresh memory`` at ``budget`` (int >= 1, in
    the measure's unit), for :func:`kit.memory_eval.evaluate_all`. ``names``: which
    strategies (default all, see :func:`pick_strategies`); ``search``: RecallSearch
    keywords for the recall strategies (``embedder=``, ``decompose=``: a real model;
    checked by RecallSearch); ``shared``: a :class:`~kit.memory.SharedScores` the
    recall strategies' indexes share (the same turns, scored once for all of them).
    Raises TypeError / ValueError naming a bad budget, strategy or search option."""
    budget, search = check_budget(budget), dict(search or {})
    RecallSearch(**search)                       # checked once, here
    TurnIndex(shared=shared)
    return {name: _factory(name, budget, search, shared) for name in pick_strategies(names)}


def run_policy_benchmark(conversations: Iterable[LongConversation],
                         budgets: Sequence[int] = BUDGETS,
                         strategies: Iterable[str] | None = None, *,
                         measure: CachedMeasure | Measure | None = None,
                         clock: Callable[[], float] = time.perf_counter,
                         search: dict | None = None, check: int = 0) -> list[PolicyRun]:
    """Evaluate every strategy at every budget on every conversation.

    Runs come conversation by conversation, then budget by budget (in the order given),
    then strategy by strategy. ``measure``: a :class:`CachedMeasure` to share (pass one
    to read its ``calls`` afterwards), or a measure to cache (default tiktoken
    ``cl100k_base``); ``clock``: seconds, read before and after each run; ``search``:
    RecallSearch keywords for the recall strategies (see :func:`strategy_factories`);
    ``check``: loads per run whose context size is re-counted by the memory's own rule
    (:func:`kit.memory_eval.evaluate`'s check mode; 0: none). The recall strategies'
    indexes share one :class:`~kit.memory.SharedScores`: a question is scored once per
    index content and settings, whatever the budget.
    Returns a list of :class:`PolicyRun`. Raises ValueError for no conversations, no
    budgets or a repeated budget, TypeError for budgets that are not a list of ints,
    and as :func:`strategy_factories` and :func:`kit.memory_eval.evaluate` do; nothing
    runs before the arguments are checked.
    """
    conversations = list(conversations)
    if not conversations:
        raise ValueError("conversations is empty: nothing to evaluate")
    if isinstance(budgets, (str, int)):
        raise TypeError(f"budgets must be a list of ints, got {budgets!r:.60}")
    budgets = [check_budget(b) for b in budgets]
    if not budgets:
        raise ValueError(f"budgets must name at least one budget, got {budgets!r}")
    twice = sorted({b for b in budgets if budgets.count(b) > 1})
    if twice:
        raise ValueError(f"budgets repeated: {twice}")
    names = pick_strategies(strategies)
    cache = measure if isinstance(measure, CachedMeasure) else CachedMeasure(measure)
    shared, results = SharedScores(), []        # one conversation's turns, scored once
    for conversation in conversations:
        for budget in budgets:
            for name, factory in strategy_factories(budget, names, search=search,
                                                    shared=shared).items():
                start = clock()
                run = evaluate(conversation, factory, name, measure=cache, check=check)
                results.append(PolicyRun(name, budget, run, clock() - start))
    return results


# -- tables ---------------------------------------------------------------------------
def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def policy_table(results: Sequence[PolicyRun], *, times: bool = True, title: str = "") -> Table:
    """One row per run: conversation, strategy, budget; over categories 1-4 the
    question count and all-evidence coverage %, then by category (multi-hop, temporal,
    open-domain only when some conversation has such questions, single-hop);
    any-evidence % and answer-present % over 1-4; adversarial questions (category 5)
    apart: their count and the share whose tempting turn is in the context; mean
    context size over all questions; model and tokenizer calls; with ``times``, the
    wall time in ms. Percentages have one decimal; "-" when there is nothing to rate."""
    results = list(results)
    unit = results[0].run.unit if results else "tokens"
    present = {q.category for r in results for q in r.run.results}
    categories = [c for c in (1, 2, 3, 4) if c != 3 or 3 in present]
    columns = (["conversation", "strategy", f"budget ({unit})", "questions 1-4", "all 1-4 %"]
               + [f"{CATEGORIES[c]} %" for c in categories]
               + ["any 1-4 %", "answer 1-4 %", "adversarial", "adv. any %", f"context ({unit})",
                  "model calls", "tokenizer calls"] + (["time (ms)"] if times else []))
    rows = []
    for r in results:
        main, adversarial = r.run.score([1, 2, 3, 4]), r.run.score([5])
        everything = r.run.score([1, 2, 3, 4, 5])
        rows.append([r.run.conversation, r.strategy, f"{r.budget:,}", main.questions,
                     _pct(main.all_evidence),
                     *(_pct(r.run.score([c]).all_evidence) for c in categories),
                     _pct(main.any_evidence), _pct(main.answer_present), adversarial.questions,
                     _pct(adversarial.any_evidence), f"{round(everything.context_tokens):,}",
                     r.run.model_calls, r.run.tokenizer_calls]
                    + ([f"{1000 * r.seconds:,.0f}"] if times else []))
    return Table(columns, rows, title)


def check_targets(results: Sequence[PolicyRun], budget: int = TARGET_BUDGET,
                  strategy: str = TARGET_STRATEGY,
                  targets: Sequence[Target] = TARGETS) -> list[TargetCheck]:
    """Each target on each conversation that has a run of ``strategy`` at ``budget``
    (conversation order, then target order); [] when there is none."""
    found = {(r.run.conversation, r.strategy, r.budget): r.run for r in results}
    conversations = list(dict.fromkeys(r.run.conversation for r in results))
    checks = []
    for name in conversations:
        run = found.get((name, strategy, budget))
        if run is None:
            continue
        for target in targets:
            value = run.score(target.categories).all_evidence
            beside = {}
            for other in BESIDE:
                other_run = found.get((name, other, budget))
                beside[other] = (None if other_run is None
                                 else other_run.score(target.categories).all_evidence)
            checks.append(TargetCheck(name, target, value,
                                      None if value is None else value >= target.minimum,
                                      beside))
    return checks


def target_table(results: Sequence[PolicyRun], budget: int = TARGET_BUDGET,
                 strategy: str = TARGET_STRATEGY) -> Table:
    """:func:`check_targets` as a table: conversation, target, the strategy's coverage %,
    met (yes / no / -), and the :data:`BESIDE` strategies' coverage % ("-" if not run)."""
    rows = [[c.conversation, c.target.label, f">= {100 * c.target.minimum:.0f}",
             _pct(c.value), "-" if c.met is None else ("yes" if c.met else "no"),
             *(_pct(c.beside[o]) for o in BESIDE)]
            for c in check_targets(results, budget, strategy)]
    return Table(["conversation", "target", "target %", f"{strategy} %", "met",
                  *(f"{o} %" for o in BESIDE)], rows,
                 f"Targets at {budget:,} tokens ({strategy} memory)")


def seconds_by_conversation(results: Sequence[PolicyRun]) -> dict[str, float]:
    """Conversation -> wall time of all its runs, in seconds (in the order run)."""
    totals: dict[str, float] = {}
    for r in results:
        totals[r.run.conversation] = totals.get(r.run.conversation, 0.0) + r.seconds
    return totals
