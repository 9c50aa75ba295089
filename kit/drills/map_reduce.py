"""Drill 03: map-reduce summarisation with bounded rounds (30 min).

The candidate writes ``map_reduce(items, summarise, window, measure, batch_size,
max_rounds)``, the signature of lesson 05's exercise 3 (the spec is in
:mod:`kit.checks.map_reduce`), plus one rule the lesson leaves open: an empty ``items``
list raises ValueError before any call, as :func:`kit.hierarchical.hierarchical_summary`
does. The rubric runs the lesson's checker in its four parts:

- **correctness**: the worked example, everything in one prompt, 40 items over three
  rounds: the top summaries, calls and rounds of the kit's run, every id at the top;
- **failure safety** (termination): a summariser that does not shrink stops as soon as a
  round would merge nothing, never loops; ``max_rounds`` stops the run with every
  summary left returned, none dropped;
- **edge cases**: a lone summary carried up, the last partial batch, one item, an item
  too large for any prompt (ValueError naming it), an empty item list;
- **complexity**: batches that close on the window: every prompt within it, the model
  calls counted equal to the kit's.
"""
from __future__ import annotations

from collections.abc import Callable

from kit.checks import CheckFailed, call_learner, expect
from kit.checks.map_reduce import (check_map_reduce_complexity, check_map_reduce_correctness,
                                   check_map_reduce_edge_cases, check_map_reduce_failure_safety,
                                   words_and_breaks)
from kit.drills import Drill

__all__ = ["DRILL", "check_empty_items"]

_EMPTY = "map_reduce([], a summariser, window=100, batch_size=3, max_rounds=10)"


def check_empty_items(map_reduce: Callable) -> int:
    """An empty ``items`` list: ValueError, and no call of ``summarise``. Returns 1."""
    prompts: list[object] = []

    def summarise(*args: object) -> str:
        prompts.append(args)
        return "a summary of nothing"

    try:
        got = call_learner(map_reduce, [], summarise, 100, words_and_breaks, 3, 10,
                           name="map_reduce", shown=_EMPTY, expected=(ValueError,))
    except ValueError:
        expect(not prompts, f"{_EMPTY} raised ValueError after {len(prompts)} call(s) of "
                            f"summarise. Hint: check the items before the first call.")
        return 1
    raise CheckFailed(f"{_EMPTY} should raise ValueError, got {got!r:.80}. Why: with no items "
                      f"there is nothing to summarise, and an empty list (or a summary of "
                      f"nothing) looks like an answer to the caller. Hint: raise ValueError for "
                      f"an empty items list before any call, as hierarchical_summary does.")


def _edge_cases(map_reduce: Callable) -> int:
    return check_map_reduce_edge_cases(map_reduce) + check_empty_items(map_reduce)


DRILL = Drill(
    name="map-reduce",
    title="Map-reduce summarisation with bounded rounds",
    minutes=30,
    symbol="map_reduce",
    notebook="03_map_reduce",
    rubric={"correctness": check_map_reduce_correctness,
            "failure safety": check_map_reduce_failure_safety,
            "edge cases": _edge_cases,
            "complexity": check_map_reduce_complexity},
    talking_points=(
        "Three stops: one summary left, max_rounds rounds (the map is round 1), or a round "
        "that would merge nothing; without the last, a summariser that does not shrink loops.",
        "Pack by the measured prompt, not by count: a prompt over the window is rejected or "
        "cut silently by a real API.",
        "A lone summary is carried up without a call; a lone item is still summarised, "
        "because it is raw text.",
        "Source ids are extended at every merge, never replaced, so each fact of the top "
        "summary traces back to its item.",
        "An item no prompt can hold is refused by name (ValueError) before any call, never "
        "dropped; stopping early returns every summary left, none dropped.",
        "Cost: about n / (batch_size - 1) model calls in all, and the depth is bounded by "
        "max_rounds.",
    ),
    mechanism="map-reduce",
)
