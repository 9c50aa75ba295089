"""The lesson-02 checkers accept the right answers and reject the typical wrong ones."""
from __future__ import annotations

import pytest

from kit.checks import CheckFailed
from kit.checks.window import check_fit_budget, check_window


# -- window(messages, max_messages) ------------------------------------------------
def window(messages, max_messages):
    if max_messages < 1:
        raise ValueError(f"max_messages must be >= 1, got {max_messages}")
    kept = messages[-max_messages:]
    cut = len(kept) < len(messages)
    while cut and kept[0][0] == "assistant" and any(role == "user" for role, _ in kept):
        kept = kept[1:]
    return kept


def window_drops_one_orphan(messages, max_messages):  # `if` instead of `while`
    if max_messages < 1:
        raise ValueError(f"max_messages must be >= 1, got {max_messages}")
    kept = messages[-max_messages:]
    if len(kept) < len(messages) and kept[0][0] == "assistant" and any(
            role == "user" for role, _ in kept):
        kept = kept[1:]
    return kept


def _orphan_rule(kept, cut):
    while cut and kept and kept[0][0] == "assistant" and any(r == "user" for r, _ in kept):
        kept = kept[1:]
    return kept


def window_minus_one(messages, max_messages):        # keeps one message too few
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    kept = messages[-(max_messages - 1):] if max_messages > 1 else []
    return _orphan_rule(kept, len(kept) < len(messages))


def window_plus_one(messages, max_messages):         # keeps one message too many
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    kept = messages[-(max_messages + 1):]
    return _orphan_rule(kept, len(kept) < len(messages))


def window_mutating(messages, max_messages):         # deletes from the caller's list
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    cut = len(messages) > max_messages
    del messages[:-max_messages]
    return _orphan_rule(list(messages), cut)


def window_keeps_orphan(messages, max_messages):     # forgets the orphan rule
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    return messages[-max_messages:]


def window_drops_greeting(messages, max_messages):   # applies the rule even when nothing was cut
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    return _orphan_rule(messages[-max_messages:], True)


def window_drops_lone_reply(messages, max_messages):  # drops a leading reply with no user after it
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    kept = messages[-max_messages:]
    if len(kept) < len(messages) and kept and kept[0][0] == "assistant":
        kept = kept[1:]
    return kept


def window_no_value_error(messages, max_messages):   # messages[-0:] is the whole list
    kept = messages[-max_messages:]
    return _orphan_rule(kept, len(kept) < len(messages))


def window_returns_input(messages, max_messages):    # aliasing: the same list back
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    if len(messages) <= max_messages:
        return messages
    return window(messages, max_messages)


def window_returns_tuple(messages, max_messages):
    return tuple(window(messages, max_messages))


def stub(*args):
    raise NotImplementedError("Exercise: write your answer here")


def test_window_accepts_the_right_answer(capsys):
    check_window(window)
    out = capsys.readouterr().out
    assert out.startswith("PASS window:") and out.count("\n") == 1


@pytest.mark.parametrize("wrong, hint", [
    (window_minus_one, "off by one"),
    (window_plus_one, "at most"),
    (window_mutating, "changed its input"),
    (window_keeps_orphan, "drop that reply"),
    (window_drops_one_orphan, "a while, not an if"),
    (window_drops_greeting, "nothing was cut"),
    (window_drops_lone_reply, "only when a user message follows"),
    (window_no_value_error, "ValueError"),
    (window_returns_input, "new list"),
    (window_returns_tuple, "return a list"),
    (stub, "not written yet"),
])
def test_window_rejects_wrong_answers(wrong, hint, capsys):
    with pytest.raises(CheckFailed, match=hint):
        check_window(wrong)
    assert "PASS" not in capsys.readouterr().out


# -- fit_budget(sizes, budget) -----------------------------------------------------
def fit_budget(sizes, budget):
    total, count = 0, 0
    for size in reversed(sizes):
        if total + size > budget:
            break
        total += size
        count += 1
    return count


def fit_budget_strict(sizes, budget):                # < instead of <=: misses exact fits
    total = count = 0
    for size in reversed(sizes):
        if total + size >= budget:
            break
        total, count = total + size, count + 1
    return count


def fit_budget_greedy(sizes, budget):                # skips a big one, keeps older small ones
    total = count = 0
    for size in reversed(sizes):
        if total + size <= budget:
            total, count = total + size, count + 1
    return count


def fit_budget_from_oldest(sizes, budget):           # walks the wrong way
    total = count = 0
    for size in sizes:
        if total + size > budget:
            break
        total, count = total + size, count + 1
    return count


def fit_budget_mutating(sizes, budget):              # pops the oldest off the caller's list
    while sizes and sum(sizes) > budget:
        sizes.pop(0)
    return len(sizes)


def fit_budget_counts_overflow(sizes, budget):       # off by one: counts the message that broke it
    total = count = 0
    for size in reversed(sizes):
        total, count = total + size, count + 1
        if total > budget:
            break
    return count


def fit_budget_returns_float(sizes, budget):
    return float(fit_budget(sizes, budget))


def test_fit_budget_accepts_the_right_answer(capsys):
    check_fit_budget(fit_budget)
    out = capsys.readouterr().out
    assert out.startswith("PASS fit_budget:") and out.count("\n") == 1


@pytest.mark.parametrize("wrong, hint", [
    (fit_budget_strict, "<="),
    (fit_budget_greedy, "contiguous"),
    (fit_budget_from_oldest, "newest"),
    (fit_budget_mutating, "changed its input"),
    (fit_budget_counts_overflow, "should return"),
    (fit_budget_returns_float, "should return an int"),
    (stub, "not written yet"),
])
def test_fit_budget_rejects_wrong_answers(wrong, hint, capsys):
    with pytest.raises(CheckFailed, match=hint):
        check_fit_budget(wrong)
    assert "PASS" not in capsys.readouterr().out


# -- hardening: a learner's own exception names the case, never a bare traceback -------
def window_asserts(messages, max_messages):          # assert instead of raise ValueError
    assert max_messages >= 1
    kept = messages[-max_messages:]
    return _orphan_rule(kept, len(kept) < len(messages))


def window_type_error(messages, max_messages):       # the wrong exception type
    if max_messages < 1:
        raise TypeError("max_messages must be >= 1")
    return window(messages, max_messages)


def window_first_role(messages, max_messages):       # messages[0] on an empty conversation
    if messages[0][0] not in ("user", "assistant"):
        raise ValueError("unknown role")
    return window(messages, max_messages)


def window_none_when_roomy(messages, max_messages):  # a path without a return
    if len(messages) == 3 and max_messages == 5:
        return None
    return window(messages, max_messages)


@pytest.mark.parametrize("wrong, hints", [
    (window_asserts, ["window(4 messages, max_messages=0) raised AssertionError",
                      "should raise ValueError", "an assert"]),
    (window_type_error, ["window(4 messages, max_messages=0) raised TypeError: "
                         "max_messages must be >= 1", "should raise ValueError"]),
    (window_first_role, ["window(0 messages (none), max_messages=3) raised IndexError: "
                         "list index out of range"]),
    (window_none_when_roomy, ["max_messages=5) should return a list, got NoneType"]),
])
def test_window_errors_name_the_case(wrong, hints, capsys):
    with pytest.raises(CheckFailed) as failure:
        check_window(wrong)
    assert type(failure.value) is CheckFailed             # not a bare AssertionError
    for hint in hints:
        assert hint in str(failure.value)
    assert "PASS" not in capsys.readouterr().out


def fit_budget_newest_first(sizes, budget):          # sizes[-1] on an empty list
    if sizes[-1] > budget:
        return 0
    return fit_budget(sizes, budget)


def test_fit_budget_error_names_the_case(capsys):
    with pytest.raises(CheckFailed,
                       match=r"fit_budget\(\[\], 10\) raised IndexError: list index out of range"):
        check_fit_budget(fit_budget_newest_first)
    assert "PASS" not in capsys.readouterr().out
