"""Checker for lesson 03 (summary memory), exercise 1: which turns are old.

- :func:`check_split_turns`: the exercise ``split_turns(turns, keep_recent)``.
  ``turns`` is a list of ``(role, text)`` tuples, oldest first; ``keep_recent`` is an
  int >= 0, in messages. Return ``(old, recent)``, two *new* lists that together are
  ``turns``: the newest ``keep_recent`` messages stay verbatim in ``recent``; while
  ``recent`` would start with an assistant message, the split moves one message back
  (the reply keeps its question). ``keep_recent=0`` folds everything into ``old``;
  a ``keep_recent`` at least ``len(turns)`` leaves ``old`` empty. Same rule as
  :func:`kit.memory.split_for_compaction`. The input must not change.
The checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from kit.checks import (Turns, as_messages, call_learner, call_pure, expect, passed, role_turns,
                        show_turns)
from kit.memory import split_for_compaction

__all__ = ["check_split_turns"]


# (roles, keep_recent, number of messages that go to `old`, why it matters)
_SPLIT_CASES = [
    ("uaua", 2, 2, "the newest 2 start with a user message: split there"),
    ("uauaua", 4, 2, "the newest 4 start with a user message: split there"),
    ("uaua", 0, 4, "keep_recent=0 folds everything into old"),
    ("ua", 0, 2, "keep_recent=0 folds everything into old"),
    ("uauau", 2, 2, "the newest 2 start with a reply: move the split back to its question"),
    ("uaua", 1, 2, "the newest 1 is a reply: move the split back to its question"),
    ("uaaua", 3, 0, "two replies in a row: keep moving back (a while, not an if)"),
    ("uauaaua", 3, 2, "two replies in a row: keep moving back (a while, not an if)"),
    ("auau", 2, 1, "move back to the user message; the opening greeting is old"),
    ("auau", 3, 1, "the newest 3 start with a user message"),
    ("aua", 3, 0, "keep_recent equals the number of messages: nothing is old"),
    ("uaua", 4, 0, "keep_recent equals the number of messages: nothing is old"),
    ("uaua", 6, 0, "keep_recent is more than the number of messages: nothing is old"),
    ("u", 0, 1, "keep_recent=0 folds everything, even one message"),
    ("", 2, 0, "no messages: both parts empty"),
    ("", 0, 0, "no messages: both parts empty"),
]


def _kit_old(turns: Turns, keep_recent: int) -> int:
    """How many messages :func:`kit.memory.split_for_compaction` puts in ``old``."""
    return len(split_for_compaction(as_messages(turns), max(keep_recent, 0))[0])


def _split_hint(got_old: object, want: int, turns: Turns, keep_recent: int) -> str:
    """Name the likely mistake behind a wrong split."""
    if not isinstance(got_old, list):
        return "return two lists"
    got = len(got_old)
    if keep_recent == 0 and got == 0:
        return ("turns[:-0] is turns[:0], the empty list: the classic slicing trap. "
                "Compute the split index as len(turns) - keep_recent")
    naive = max(len(turns) - keep_recent, 0)
    if got == naive:
        return ("recent starts with an assistant message: move the split back while "
                "turns[split] is a reply")
    if got == naive - 1 and turns[naive - 1][0] == "assistant":
        return "recent still starts with a reply: keep moving back (a while, not an if)"
    if got in (_kit_old(turns, keep_recent - 1), _kit_old(turns, keep_recent + 1)):
        return "one message off: the split index is len(turns) - keep_recent (off by one?)"
    return ("split = len(turns) - keep_recent (at least 0); while 0 < split < len(turns) "
            "and turns[split] is an assistant message, split -= 1")


def _split_label(turns: Turns, keep_recent: int) -> str:
    roles = " ".join(role[0] for role, _ in turns) or "(none)"
    return f"split_turns({len(turns)} messages {roles}, keep_recent={keep_recent})"


def _split_parts(got: object, label: str) -> tuple[list, list]:
    """``got`` as ``(old, recent)``; CheckFailed unless it is a tuple of two lists."""
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    expect(isinstance(got, tuple) and len(got) == 2,
           f"{label} should return a tuple (old, recent), got {got!r:.100}{missing}")
    old, recent = got
    expect(isinstance(old, list) and isinstance(recent, list),
           f"{label} should return two lists, got {type(old).__name__} and "
           f"{type(recent).__name__}")
    return old, recent


def _check_split(split_turns: Callable, turns: Turns, keep_recent: int, want_old: int,
                 why: str) -> None:
    label = _split_label(turns, keep_recent)
    got = call_pure(split_turns, turns, keep_recent, name="split_turns", shown=label)
    old, recent = _split_parts(got, label)
    want = (turns[:want_old], turns[want_old:])
    expect(old + recent == turns,
           f"{label}: old + recent should be all the messages, in order; got old="
           f"{show_turns(old, turns)}, recent={show_turns(recent, turns)}")
    expect(got == want,
           f"{label} should return old={show_turns(want[0], turns)}, recent="
           f"{show_turns(want[1], turns)}; got old={show_turns(old, turns)}, recent="
           f"{show_turns(recent, turns)}. Why: {why}. Hint: "
           f"{_split_hint(old, want_old, turns, keep_recent)}.")


def check_split_turns(split_turns: Callable[[Turns, int], tuple[Turns, Turns]]) -> None:
    """Check ``split_turns(turns, keep_recent)``; print one pass line or raise CheckFailed.

    Rejects: ``turns[:-keep_recent]`` (wrong for 0), not moving the split back for a
    reply (or moving it back only once), off-by-one splits, mutating ``turns``, and
    returning the input list itself or anything but a tuple of two lists (an
    exception names the case). Also compares with
    :func:`kit.memory.split_for_compaction` on 200 random conversations.
    """
    cases = 0
    for roles, keep_recent, want_old, why in _SPLIT_CASES:
        _check_split(split_turns, role_turns(roles), keep_recent, want_old, why)
        cases += 1
    rng = random.Random(3)
    for _ in range(200):
        roles = "".join(rng.choice("ua") for _ in range(rng.randint(0, 9)))
        keep_recent = rng.randint(0, 6)
        turns = role_turns(roles)
        want_old = _kit_old(turns, keep_recent)
        _check_split(split_turns, turns, keep_recent, want_old,
                     "same rule as kit.memory.split_for_compaction")
        cases += 1
    for roles, keep_recent in (("uaua", 0), ("uaua", 2), ("uaua", 9), ("", 0)):
        turns = role_turns(roles)
        label = _split_label(turns, keep_recent)
        # No copy here: the check is about the identity of the list passed in.
        got = call_learner(split_turns, turns, keep_recent, name="split_turns", shown=label)
        old, recent = _split_parts(got, label)
        expect(old is not turns and recent is not turns,
               f"{label} returned the input list itself: return new lists (slices or "
               f"list(turns)), so that a later change to one cannot change the other")
        cases += 1
    passed("split_turns", cases)
