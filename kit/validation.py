"""Argument checks shared by the whole kit: each public entry point checks an argument
once, here, and the error names the argument and the bad value.

The exercise checkers are something else (:mod:`kit.checks`); these only guard the
kit's own functions and classes.
"""
from __future__ import annotations

import math

__all__ = ["check_int", "check_budget", "check_seconds", "check_weight", "check_flag"]


def check_int(name: str, value: object, minimum: int) -> int:
    """Return ``value`` if it is an int >= ``minimum`` (a bool is not an int here); else
    raise TypeError or ValueError naming ``name`` and the value."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}: {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def check_budget(budget: object) -> int:
    """Return ``budget`` if it is an int > 0 (in a measure's unit); else raise naming it."""
    return check_int("budget", budget, 1)


def check_weight(name: str, value: object) -> float:
    """Return ``value`` as a float if it is a finite number >= 0 (a weight, a rate, a
    constant of a formula); else raise ValueError naming ``name`` and the value."""
    problem = isinstance(value, bool) or not isinstance(value, (int, float)) \
        or not value >= 0 or value == math.inf
    if not problem:
        try:
            return float(value)
        except OverflowError:                # an int no float can hold
            pass
    raise ValueError(f"{name} must be a finite number >= 0, got {value!r:.60}")


def check_flag(name: str, value: object) -> bool:
    """Return ``value`` if it is True or False; else raise TypeError naming ``name``."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r:.60}")
    return value


def check_seconds(name: str, value: object) -> float | None:
    """Return ``value`` (seconds) as a float if it is None or a finite number > 0; else
    raise TypeError/ValueError naming ``name`` and the value."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number of seconds or None, got "
                        f"{type(value).__name__}: {value!r:.60}")
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{name} must be > 0 seconds and finite, got {value!r}")
    return float(value)
