"""The memory-policy benchmark's kit side: strategies, runs, tables and targets."""
from collections import Counter
from dataclasses import replace

import pytest

from kit.memory import RecallMemory, SummaryMemory, TokenWindow
from kit.memory.recall import RECALLED_TITLE, RECENT_TITLE
from kit.memory_eval import CachedMeasure, evaluate, render_turn
from kit.memory_scores import EvalRun, QuestionResult
from kit.policy_bench import (BESIDE, STRATEGIES, TARGETS, PolicyRun, check_targets,
                              pick_strategies, policy_table, run_policy_benchmark,
                              seconds_by_conversation, strategy_factories, target_table)
from kit.synthetic import synthetic_conversation
from kit.tokens import approx_tokens


def feed(memory, conversation):
    for turn in conversation.turns:
        text, keywords = render_turn(turn, True)
        memory.add(conversation.role_of(turn.speaker), text, **keywords)
    return memory


# -- strategies -----------------------------------------------------------------------
def test_each_strategy_builds_the_memory_it_names_at_the_budget():
    built = {name: f(approx_tokens) for name, f in strategy_factories(1200).items()}
    assert list(built) == list(STRATEGIES) == ["sliding window", "summary", "BM25", "recall",
                                               "recall + RRF", "hybrid"]
    window, summary, bm25, recall, rrf, hybrid = built.values()
    assert type(window) is TokenWindow and window.budget == 1200
    assert type(summary) is SummaryMemory and (summary.budget, summary.keep_recent) == (1200, 6)
    assert summary.summariser.cap == 300 and summary.summariser.measure is approx_tokens
    assert all(type(m) is RecallMemory and m.budget == 1200 for m in (bm25, recall, rrf, hybrid))
    assert (bm25.keep_recent, bm25.recent, bm25.index.spread, bm25.index.speaker_boost,
            bm25.summariser, bm25.fuse_recent) == (0, 0, (0.0, 0.0), 0.0, None, False)
    default = RecallMemory(1200)
    assert (recall.keep_recent, recall.recent, recall.index.spread, recall.summariser,
            recall.fuse_recent) == (default.keep_recent, default.recent, default.index.spread,
                                    None, False)
    assert rrf.fuse_recent is True and rrf.summariser is None
    assert hybrid.summariser.cap == 300 and hybrid.fuse_recent is False
    # a factory builds a fresh memory each time
    factory = strategy_factories(1200, ["recall"])["recall"]
    assert factory(approx_tokens) is not factory(approx_tokens)


def test_strategy_names_are_matched_without_case_and_checked():
    assert pick_strategies([" bm25", "RECALL"]) == ["BM25", "recall"]
    assert pick_strategies("hybrid") == ["hybrid"]
    assert pick_strategies(None) == list(STRATEGIES)
    with pytest.raises(ValueError, match="unknown strategy 'lru'"):
        pick_strategies(["recall", "lru"])
    with pytest.raises(ValueError, match="'recall' is named twice"):
        pick_strategies(["recall", "Recall"])
    with pytest.raises(ValueError, match="strategies is empty"):
        pick_strategies([])
    with pytest.raises(ValueError, match="budget must be >= 1, got 0"):
        strategy_factories(0)
    with pytest.raises(TypeError, match="budget must be an int"):
        strategy_factories(True)


def test_plain_bm25_keeps_no_recent_turns_only_recalled_ones():
    conversation = synthetic_conversation(6, 16)
    memory = feed(strategy_factories(400, ["BM25"])["BM25"](approx_tokens), conversation)
    assert memory.turns == [] and len(memory.index) == len(conversation.turns)
    assert (memory.index.spread, memory.index.speaker_boost, memory.index.feedback) == (
        (0.0, 0.0), 0.0, (0, 0))
    question = next(q for q in conversation.questions if q.category == 4)
    context = memory.context(query=question.question)
    assert context.startswith(RECALLED_TITLE) and RECENT_TITLE not in context
    numbers = memory.context_numbers(question.question)
    assert numbers == tuple(sorted(numbers)) and set(numbers) <= set(range(1, 97))
    # the answer is said in its evidence turn only: asked by its value, BM25 finds it
    assert conversation.position(question.evidence[0]) in memory.context_numbers(question.answer)


# -- runs -----------------------------------------------------------------------------
def squares():
    """A fake clock: call n (from 0) reads n*n seconds, so run k lasts 4k + 1 s."""
    calls = iter(range(10 ** 6))
    return lambda: next(calls) ** 2


def test_runs_come_in_order_with_the_evaluators_results_and_the_clocks_times():
    conversations = [synthetic_conversation(4, 8, seed=1),
                     replace(synthetic_conversation(4, 8, seed=2), name="other")]
    names = ["sliding window", "recall", "hybrid"]
    runs = run_policy_benchmark(conversations, [300, 150], names,
                                measure=CachedMeasure(approx_tokens), clock=squares())
    assert [(r.run.conversation, r.budget, r.strategy) for r in runs] == [
        (c, b, s) for c in ("synthetic", "other") for b in (300, 150) for s in names]
    assert [r.seconds for r in runs] == [4 * k + 1 for k in range(12)]
    assert seconds_by_conversation(runs) == {"synthetic": sum(4 * k + 1 for k in range(6)),
                                             "other": sum(4 * k + 1 for k in range(6, 12))}
    for r in runs:       # each run is what the evaluator gives for that memory alone
        conversation = conversations[0 if r.run.conversation == "synthetic" else 1]
        alone = evaluate(conversation, strategy_factories(r.budget, [r.strategy])[r.strategy],
                         r.strategy, measure=CachedMeasure(approx_tokens))
        assert (r.run.memory, r.run.results, r.run.model_calls) == (
            r.strategy, alone.results, alone.model_calls)
    assert runs[2].run.model_calls > 0 and runs[0].run.model_calls == 0   # hybrid folds


def test_one_shared_cache_measures_each_turn_once():
    conversation = synthetic_conversation(4, 8)
    seen = []

    def spy(text):
        seen.append(text)
        return approx_tokens(text)
    run_policy_benchmark([conversation], [300, 150], ["sliding window", "BM25", "hybrid"],
                         measure=CachedMeasure(spy), clock=squares())
    texts = Counter(seen)
    assert all(texts[render_turn(t, True)[0]] == 1 for t in conversation.turns)


def test_bad_arguments_are_refused_before_anything_runs():
    conversation = synthetic_conversation(4, 8)
    ticks = []

    def clock():
        ticks.append(1)
        return 0.0
    for args, error, message in [
            (([], [300]), ValueError, "conversations is empty"),
            (([conversation], []), ValueError, "at least one budget"),
            (([conversation], [300, 200, 300]), ValueError, r"budgets repeated: \[300\]"),
            (([conversation], [300, -5]), ValueError, "budget must be >= 1, got -5"),
            (([conversation], 300), TypeError, "budgets must be a list of ints"),
            (([conversation], [300], ["recall", "lru"]), ValueError, "unknown strategy 'lru'")]:
        with pytest.raises(error, match=message):
            run_policy_benchmark(*args, measure=CachedMeasure(approx_tokens), clock=clock)
    assert ticks == []


# -- tables and targets: hand-made runs with known answers ----------------------------
def result(i, category, evidence, found, answer, tokens):
    return QuestionResult(i, category, f"q{i}", evidence, found, answer, tokens)


def hand_run(conversation, strategy, rows, model_calls=0, tokenizer_calls=0):
    results = tuple(result(i, *row) for i, row in enumerate(rows))
    return EvalRun(conversation, strategy, 100, results, "tokens", "numbers", "keywords",
                   model_calls, 0, tokenizer_calls, 0)


# c1: multi-hop 1 of 2 complete, temporal 1 of 1, single-hop 2 of 2: 4 of 5 = 80 %
RECALL_C1 = [(1, ("a", "b"), ("a", "b"), True, 1000), (1, ("c", "d"), ("c",), False, 1000),
             (2, ("e",), ("e",), False, 2000), (4, ("f",), ("f",), True, 1000),
             (4, ("g",), ("g",), True, 1000), (5, ("h",), ("h",), None, 3000)]
WINDOW_C1 = [(c, ev, (), False if ans is not None else None, 2000)
             for c, ev, _, ans, _ in RECALL_C1]
# c2: no multi-hop question; single-hop 1 of 2, open-domain 1 of 1 without an answer
RECALL_C2 = [(4, ("x",), ("x",), True, 500), (4, ("y",), (), False, 500),
             (3, ("z",), ("z",), None, 800)]


def policy_runs():
    return [PolicyRun("recall", 2000, hand_run("c1", "recall", RECALL_C1, 2, 9), 0.25),
            PolicyRun("sliding window", 2000, hand_run("c1", "sliding window", WINDOW_C1), 0.0),
            PolicyRun("recall", 2000, hand_run("c2", "recall", RECALL_C2), 1.5)]


def test_policy_table_rows_by_category_with_adversarial_apart():
    table = policy_table(policy_runs())
    assert table.columns == [
        "conversation", "strategy", "budget (tokens)", "questions 1-4", "all 1-4 %",
        "multi-hop %", "temporal %", "open-domain %", "single-hop %", "any 1-4 %",
        "answer 1-4 %", "adversarial", "adv. any %", "context (tokens)", "model calls",
        "tokenizer calls", "time (ms)"]
    assert table.rows == [
        ["c1", "recall", "2,000", 5, "80.0", "50.0", "100.0", "-", "100.0", "100.0", "60.0", 1,
         "100.0", "1,500", 2, 9, "250"],
        ["c1", "sliding window", "2,000", 5, "0.0", "0.0", "0.0", "-", "0.0", "0.0", "0.0", 1,
         "0.0", "2,000", 0, 0, "0"],
        ["c2", "recall", "2,000", 3, "66.7", "-", "-", "100.0", "50.0", "66.7", "50.0", 0, "-",
         "600", 0, 0, "1,500"]]
    # no open-domain question anywhere: no open-domain column; times=False: no time column
    plain = policy_table(policy_runs()[:2], times=False)
    assert "open-domain %" not in plain.columns and "time (ms)" not in plain.columns
    assert plain.rows[0][4:9] == ["80.0", "50.0", "100.0", "100.0", "100.0"]


def test_targets_are_checked_on_recall_at_2000_with_the_others_beside():
    checks = check_targets(policy_runs())
    assert [(c.conversation, c.target, c.value, c.met) for c in checks] == [
        ("c1", TARGETS[0], 0.8, True), ("c1", TARGETS[1], 0.5, True),
        ("c1", TARGETS[2], 1.0, True),
        ("c2", TARGETS[0], 2 / 3, False), ("c2", TARGETS[1], None, None),
        ("c2", TARGETS[2], None, None)]
    assert checks[0].beside == {"sliding window": 0.0, "BM25": None}
    table = target_table(policy_runs())
    assert table.columns == ["conversation", "target", "target %", "recall %", "met",
                             *(f"{o} %" for o in BESIDE)]
    assert table.rows == [
        ["c1", "all evidence, categories 1-4", ">= 80", "80.0", "yes", "0.0", "-"],
        ["c1", "all evidence, multi-hop", ">= 40", "50.0", "yes", "0.0", "-"],
        ["c1", "all evidence, temporal", ">= 85", "100.0", "yes", "0.0", "-"],
        ["c2", "all evidence, categories 1-4", ">= 80", "66.7", "no", "-", "-"],
        ["c2", "all evidence, multi-hop", ">= 40", "-", "-", "-", "-"],
        ["c2", "all evidence, temporal", ">= 85", "-", "-", "-", "-"]]
    assert check_targets(policy_runs(), budget=4000) == []
    assert check_targets(policy_runs(), strategy="hybrid") == []
