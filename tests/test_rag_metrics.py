"""Latency metrics: nearest-rank percentiles, injectable clock, reports (the end-to-end
chatbot lesson)."""
import math

import pytest

from kit.rag.metrics import LatencyReport, Metrics, percentile


class FakeClock:
    """Returns the given times (seconds) in order."""

    def __init__(self, *times):
        self.times = list(times)

    def __call__(self):
        return self.times.pop(0)


@pytest.mark.parametrize("values, p, expected", [
    ([10, 20, 30, 40], 50, 20),           # rank ceil(2.0) = 2
    ([10, 20, 30, 40], 95, 40),           # rank ceil(3.8) = 4
    ([40, 10, 30, 20], 25, 10),           # sorted first; rank 1
    ([7], 50, 7), ([7], 95, 7),
    (list(range(1, 101)), 50, 50),
    (list(range(1, 101)), 95, 95),
    (list(range(1, 101)), 100, 100),
    (list(range(1, 20)), 95, 19),         # fewer than 20 values: p95 is the max
    (list(range(1, 21)), 95, 19),         # 20 values: rank 19
])
def test_percentile_nearest_rank(values, p, expected):
    assert percentile(values, p) == expected


@pytest.mark.parametrize("values, p, match", [
    ([], 50, "no values"), ([1], 0, "p must be"), ([1], 101, "p must be"), ([1], "50", "p must be"),
])
def test_percentile_bad_input(values, p, match):
    with pytest.raises(ValueError, match=match):
        percentile(values, p)


def test_report_count_p50_p95_max():
    metrics = Metrics()
    for ms in (120, 80, 100, 300, 90):
        metrics.record("turn", ms)
    assert metrics.report("turn") == LatencyReport("turn", 5, 100.0, 300.0, 300.0)
    assert metrics.count("turn") == 5 and metrics.count("other") == 0


def test_names_are_kept_apart_and_reported_in_a_table():
    metrics = Metrics()
    metrics.record("retrieval", 2.25)
    metrics.record("turn", 10)
    metrics.record("turn", 30)
    table = metrics.table()
    assert table.columns == ["name", "count", "p50 (ms)", "p95 (ms)", "max (ms)"]
    assert table.rows == [["retrieval", 1, 2.2, 2.2, 2.2], ["turn", 2, 10.0, 30.0, 30.0]]
    assert metrics.names() == ["retrieval", "turn"]


def test_timer_uses_the_injected_clock():
    metrics = Metrics(clock=FakeClock(1.0, 1.25, 5.0, 5.5))
    with metrics.timer("turn"):
        pass
    with pytest.raises(RuntimeError):
        with metrics.timer("turn"):          # a failed block is timed too
            raise RuntimeError("boom")
    assert metrics.values("turn") == [250.0, 500.0]


def test_values_is_a_copy():
    metrics = Metrics()
    metrics.record("turn", 1)
    metrics.values("turn").append(99)
    assert metrics.values("turn") == [1.0]


def test_unknown_name_is_a_key_error_naming_it():
    metrics = Metrics()
    metrics.record("turn", 1)
    with pytest.raises(KeyError, match="'chat'.*\\['turn'\\]"):
        metrics.report("chat")


@pytest.mark.parametrize("name, ms, error", [
    ("turn", -1, ValueError), ("turn", math.inf, ValueError), ("turn", math.nan, ValueError),
    ("turn", "5", TypeError), ("turn", True, TypeError), ("", 5, ValueError), (None, 5, ValueError),
])
def test_bad_records_are_refused_and_nothing_is_recorded(name, ms, error):
    metrics = Metrics()
    with pytest.raises(error):
        metrics.record(name, ms)
    assert metrics.names() == []


def test_clock_must_be_callable():
    with pytest.raises(TypeError, match="clock must be callable"):
        Metrics(clock=0.0)
