"""Latency metrics: named timings in milliseconds, with count, p50, p95 and max.

    metrics = Metrics()
    with metrics.timer("retrieval"):
        chunks = retriever.search(query, 5)
    metrics.record("turn", 12.5)           # or record a figure you measured yourself
    metrics.report("turn")                 # LatencyReport(name='turn', count=1, ...)
    metrics.table()                        # one row per name (kit.trace.Table)

Percentiles use the **nearest-rank** method: the p-th percentile of n sorted values is
the value at rank ``ceil(p / 100 * n)`` (1-based). It is always one of the recorded
values (no interpolation), so p50 of [10, 20, 30, 40] is 20 and p95 of fewer than 20
values is the maximum. Simple to explain and to check by hand; for dashboards with
millions of values a streaming sketch (t-digest, HDR histogram) replaces it.

One :class:`Metrics` may be shared by threads: every read and write holds a lock.
The clock is injectable (``clock``: a function returning seconds, like
``time.perf_counter``), so tests pass a fake clock and never time real code (the "metrics
tracking" of the end-to-end chatbot lesson).
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from kit.trace import Table

__all__ = ["Metrics", "LatencyReport", "percentile"]


def percentile(values: Iterable[float], p: float) -> float:
    """The nearest-rank ``p``-th percentile (0 < p <= 100) of ``values``.

    Raises ValueError for no values or p outside (0, 100].
    """
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p <= 100:
        raise ValueError(f"p must be a number in (0, 100], got {p!r}")
    rank = math.ceil(p / 100 * len(ordered))
    return ordered[rank - 1]


@dataclass(frozen=True)
class LatencyReport:
    """Summary of one name's timings: ``count`` (recorded values), ``p50_ms``,
    ``p95_ms`` (nearest rank) and ``max_ms``, all in milliseconds."""

    name: str
    count: int
    p50_ms: float
    p95_ms: float
    max_ms: float


class Metrics:
    """Named timings in milliseconds; thread-safe.

    ``clock``: ``() -> float`` seconds (default ``time.perf_counter``), used by
    :meth:`timer` only. Raises TypeError for a clock that is not callable.
    """

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        if not callable(clock):
            raise TypeError(f"clock must be callable () -> seconds, got {clock!r}")
        self.clock = clock
        self._timings: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def record(self, name: str, ms: float) -> None:
        """Record one timing ``ms`` (milliseconds, finite, >= 0) under ``name``.

        Raises ValueError for an empty name or a negative, infinite or NaN value,
        TypeError for a non-str name or a non-number value; nothing is recorded then.
        """
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"name must be a non-empty str, got {name!r}")
        if isinstance(ms, bool) or not isinstance(ms, (int, float)):
            raise TypeError(f"ms must be a number of milliseconds, got {type(ms).__name__}: {ms!r}")
        if not math.isfinite(ms) or ms < 0:
            raise ValueError(f"ms must be a finite number >= 0, got {ms!r} for {name!r}")
        with self._lock:
            self._timings.setdefault(name, []).append(float(ms))

    @contextmanager
    def timer(self, name: str) -> Iterator[None]:
        """Time the ``with`` block with ``clock`` and record it under ``name``.

        Records even if the block raises (a failed step took time too).
        """
        start = self.clock()
        try:
            yield
        finally:
            self.record(name, (self.clock() - start) * 1000)

    def names(self) -> list[str]:
        """Recorded names, in first-recorded order."""
        with self._lock:
            return list(self._timings)

    def values(self, name: str) -> list[float]:
        """A copy of the timings of ``name`` (ms, recording order). KeyError if unknown."""
        with self._lock:
            if name not in self._timings:
                raise KeyError(f"no timings named {name!r}; recorded: {list(self._timings)}")
            return list(self._timings[name])

    def count(self, name: str) -> int:
        """How many timings ``name`` has (0 if none)."""
        with self._lock:
            return len(self._timings.get(name, ()))

    def report(self, name: str) -> LatencyReport:
        """count, p50, p95 (nearest rank) and max of ``name``. KeyError if unknown."""
        values = self.values(name)
        return LatencyReport(name, len(values), percentile(values, 50),
                             percentile(values, 95), max(values))

    def table(self, digits: int = 1) -> Table:
        """One row per name: count, p50, p95, max, in ms rounded to ``digits``."""
        rows = []
        for name in self.names():
            r = self.report(name)
            rows.append([name, r.count, round(r.p50_ms, digits), round(r.p95_ms, digits),
                         round(r.max_ms, digits)])
        return Table(["name", "count", "p50 (ms)", "p95 (ms)", "max (ms)"], rows, "Latency")

    def __repr__(self) -> str:
        with self._lock:
            counts = ", ".join(f"{k}: {len(v)}" for k, v in self._timings.items())
        return f"Metrics({counts})"
