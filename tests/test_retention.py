"""The fact-retention harness: windows and a careless summary lose the planted facts,
a preserving summary and the extractive summary keep them, at 50 and 200 messages; every
memory, the careless summary included, fits the budget."""
import pytest

from kit.conversations import PLANTED_FACTS, facts_in, replay, shopping_chat
from kit.llm import prompt_following_summariser
from kit.memory import (CARELESS_PROMPT, SUMMARY_PROMPT, FullHistory, SlidingWindow,
                        build_summary_prompt)
from kit.messages import make_message
from kit.retention import (CARELESS_WORDS, DEFAULT_BUDGET, KEEP_RECENT, STRATEGIES,
                           RetentionRow, retention, retention_table, summary_stub)
from kit.tokens import approx_tokens, count_words

ALL = tuple(PLANTED_FACTS)          # ("order id", "allergy", "budget")


@pytest.fixture(scope="module")
def rows():
    return retention()


def test_which_facts_each_strategy_keeps(rows):
    kept = {(r.strategy, r.messages): r.kept for r in rows}
    assert kept == {
        ("sliding window (6 messages)", 50): (), ("sliding window (6 messages)", 200): (),
        ("token window", 50): (), ("token window", 200): (),
        ("careless summary", 50): (), ("careless summary", 200): (),
        ("preserving summary", 50): ALL, ("preserving summary", 200): ALL,
        ("extractive summary", 50): ALL, ("extractive summary", 200): ALL,
    }
    for r in rows:
        assert r.total == 3 and set(r.kept) | set(r.lost) == set(ALL)


def test_rows_come_in_strategy_order_then_length(rows):
    assert [(r.strategy, r.messages) for r in rows] == [
        (name, n) for name in STRATEGIES for n in (50, 200)]


def test_model_calls_only_for_summaries_and_every_memory_fits_the_budget(rows):
    for r in rows:
        summarises = "summary" in r.strategy
        assert (r.model_calls > 0) == summarises and (r.summariser_tokens > 0) == summarises
        assert r.context_tokens <= DEFAULT_BUDGET, r
    token_window = [r.context_tokens for r in rows if r.strategy == "token window"]
    assert all(DEFAULT_BUDGET - 20 < size <= DEFAULT_BUDGET for size in token_window)


def test_the_careless_summary_stays_short_and_costs_what_a_fitting_summary_costs(rows):
    memory = STRATEGIES["careless summary"](DEFAULT_BUDGET)
    replay(memory, shopping_chat(200))
    assert 0 < count_words(memory.summary) <= CARELESS_WORDS
    assert facts_in(memory.summary) == {name: False for name in PLANTED_FACTS}
    calls = {(r.strategy, r.messages): r.model_calls for r in rows}
    assert calls["careless summary", 200] == memory.compactions
    assert calls["careless summary", 200] <= calls["preserving summary", 200]


def test_one_stub_model_only_the_prompt_differs():
    turns = [make_message(role, text, approx_tokens, n)
             for n, (role, text) in enumerate(shopping_chat(40), 1)]
    keeping = build_summary_prompt("", turns, SUMMARY_PROMPT)
    assert summary_stub(keeping) == prompt_following_summariser(keeping)   # never cut
    assert count_words(summary_stub(keeping)) > CARELESS_WORDS
    careless = build_summary_prompt("", turns, CARELESS_PROMPT)
    assert summary_stub(careless) == prompt_following_summariser(careless,
                                                                 max_words=CARELESS_WORDS)
    assert count_words(summary_stub(careless)) == CARELESS_WORDS
    assert STRATEGIES["careless summary"](DEFAULT_BUDGET).summariser is summary_stub
    assert STRATEGIES["preserving summary"](DEFAULT_BUDGET).summariser is summary_stub
    assert STRATEGIES["careless summary"](DEFAULT_BUDGET).keep_recent == KEEP_RECENT


def test_deterministic(rows):
    assert retention() == rows


def test_any_strategies_lengths_and_budget():
    found = retention({"full history": lambda budget: FullHistory(),
                       "window of 2": lambda budget: SlidingWindow(2)}, lengths=(2, 4))
    assert [(r.strategy, r.messages, r.kept) for r in found] == [
        ("full history", 2, ALL), ("full history", 4, ALL),
        ("window of 2", 2, ALL), ("window of 2", 4, ())]
    assert found[0] == RetentionRow("full history", 2, ALL, (), found[0].context_tokens, 0, 0)


def test_the_table(rows):
    table = retention_table(rows, "retention")
    assert table.columns == ["strategy", "messages", "facts kept", "lost", "context (tokens)",
                             "model calls", "summariser prompts (tokens)"]
    assert table.title == "retention" and len(table.rows) == 10
    assert table.rows[0][:4] == ["sliding window (6 messages)", 50, "0/3",
                                 "order id, allergy, budget"]
    assert table.rows[-1][:4] == ["extractive summary", 200, "3/3", "-"]


@pytest.mark.parametrize("kwargs, error, words", [
    ({"budget": 0}, ValueError, "budget must be >= 1, got 0"),
    ({"budget": "200"}, TypeError, "budget must be an int, got str: '200'"),
    ({"lengths": (50, 1)}, ValueError, "length must be >= 2, got 1"),
    ({"strategies": {}}, ValueError, "strategies must name at least one memory, got {}"),
    ({"strategies": {"odd": lambda budget: "memory"}}, TypeError,
     "strategy 'odd' must build a kit.memory.Memory, got 'memory'"),
])
def test_bad_arguments_are_named(kwargs, error, words):
    with pytest.raises(error, match=words):
        retention(**{"lengths": (4,), **kwargs})
