"""Exercise checkers: each prints one pass line or raises :class:`CheckFailed` with a hint.

A checker takes the learner's function, runs it on cases with known answers and
watches for the usual mistakes (off by one, mutating the input, work done in the
wrong order). One module per concept:

- :mod:`kit.checks.cost`: lesson 01 (tokens and the cost of full history);
- :mod:`kit.checks.window`: lesson 02 (sliding windows);
- :mod:`kit.checks.summary`: lesson 03 (summary memory).

Helpers here: :func:`call_pure` (calls on deep copies and fails if the input was
mutated), :func:`expect` and :func:`passed`.
"""
from __future__ import annotations

import copy
from collections.abc import Callable

__all__ = ["CheckFailed", "expect", "call_pure", "passed"]


class CheckFailed(AssertionError):
    """The learner's answer is wrong; the message says which case and gives a hint."""


def expect(condition: bool, hint: str) -> None:
    """Raise :class:`CheckFailed` with ``hint`` unless ``condition`` holds."""
    if not condition:
        raise CheckFailed(hint)


def call_pure(fn: Callable, *args, name: str = "your function"):
    """Call ``fn(*args)`` on deep copies of ``args``; return its result.

    Raises CheckFailed if ``fn`` is still the exercise stub (NotImplementedError) or
    if it changed any of its arguments in place.
    """
    if not callable(fn):
        raise CheckFailed(f"{name} should be a function, got {fn!r}")
    given = copy.deepcopy(args)
    try:
        result = fn(*given)
    except NotImplementedError as exc:
        raise CheckFailed(f"{name} is not written yet: replace the `raise "
                          f"NotImplementedError` line with your answer") from exc
    expect(given == args, f"{name} changed its input in place: {args!r:.120} became "
                          f"{given!r:.120}. Build and return a new value instead.")
    return result


def passed(name: str, cases: int) -> None:
    """Print the one pass line of a check cell."""
    print(f"PASS {name}: {cases} cases correct")
