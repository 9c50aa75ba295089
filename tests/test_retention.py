"""The fact-retention harness: windows and a careless summary lose the planted facts,
a preserving summary and the extractive summary keep them, at 50 and 200 messages."""
import pytest

from kit.conversations import PLANTED_FACTS
from kit.memory import FullHistory, SlidingWindow
from kit.retention import (DEFAULT_BUDGET, STRATEGIES, RetentionRow, retention,
                           retention_table)

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


def test_model_calls_only_for_summaries_and_kept_facts_fit_the_budget(rows):
    for r in rows:
        summarises = "summary" in r.strategy
        assert (r.model_calls > 0) == summarises and (r.summariser_tokens > 0) == summarises
        if r.kept:
            assert r.context_tokens <= DEFAULT_BUDGET
    token_window = [r.context_tokens for r in rows if r.strategy == "token window"]
    assert all(DEFAULT_BUDGET - 20 < size <= DEFAULT_BUDGET for size in token_window)


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
