"""The lesson-02 checkers accept the right answers and reject the typical wrong ones."""
from __future__ import annotations

import pytest

from kit.checks import CheckFailed, role_turns
from kit.checks import window as checks
from kit.checks.window import check_fit_budget, check_window
from kit.memory import SlidingWindow
from kit.tokens import count_words


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


def window_drops_while_longer_than_one(messages, max_messages):  # "never empty" read literally
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    kept = list(messages[-max_messages:])
    if len(messages) > max_messages:
        while len(kept) > 1 and kept[0][0] == "assistant":
            kept.pop(0)
    return kept


def window_first_user_else_last(messages, max_messages):  # no user left: keep only the newest
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    kept = list(messages[-max_messages:])
    if len(messages) > max_messages and kept and kept[0][0] == "assistant":
        users = [i for i, (role, _) in enumerate(kept) if role == "user"]
        kept = kept[users[0]:] if users else kept[-1:]
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


def test_window_accepts_the_right_answer(passes):
    passes(check_window, window, "window")


@pytest.mark.parametrize("wrong, hint", [
    (window_minus_one, "off by one"),
    (window_plus_one, "at most"),
    (window_mutating, "changed its input"),
    (window_keeps_orphan, "drop that reply"),
    (window_drops_one_orphan, "a while, not an if"),
    (window_drops_greeting, "nothing was cut"),
    (window_drops_lone_reply, "only when a user message follows"),
    (window_drops_while_longer_than_one, "only when a user message follows"),
    (window_first_user_else_last, "only when a user message follows"),
    (window_no_value_error, "ValueError"),
    (window_returns_input, "new list"),
    (window_returns_tuple, "return a list"),
    (stub, "not written yet"),
])
def test_window_rejects_wrong_answers(wrong, hint, rejects):
    rejects(check_window, wrong, hint)


def test_replies_with_no_user_after_them_stay():
    """Two replies and no user message after them: the checker wants both, as the kit keeps."""
    with pytest.raises(CheckFailed) as failure:
        check_window(window_drops_while_longer_than_one)
    assert str(failure.value).startswith(
        "window(3 messages u a a, max_messages=2) should return messages 2-3 (a a), got "
        "message 3 (a).")
    memory = SlidingWindow(2, count_words)
    for role, text in role_turns("uaa"):
        memory.add(role, text)
    assert [(m.role, m.content) for m in memory.turns] == role_turns("uaa")[1:]


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


def fit_budget_stops_when_full(sizes, budget):      # stops once the total reaches the budget
    total = count = 0
    for size in reversed(sizes):
        if total >= budget or total + size > budget:
            break
        total, count = total + size, count + 1
    return count


def fit_budget_zero_shortcut(sizes, budget):        # `if budget <= 0: return 0`
    if budget <= 0:
        return 0
    return fit_budget(sizes, budget)


def fit_budget_stops_at_empty(sizes, budget):       # a size-0 message ends the history
    total = count = 0
    for size in reversed(sizes):
        if not size or total + size > budget:
            break
        total, count = total + size, count + 1
    return count


def fit_budget_stops_at_zero_left(sizes, budget):   # stops when the remainder hits 0
    left = budget
    count = 0
    for size in reversed(sizes):
        left -= size
        if left < 0:
            break
        count += 1
        if left == 0:
            break
    return count


def fit_budget_returns_float(sizes, budget):
    return float(fit_budget(sizes, budget))


def test_fit_budget_accepts_the_right_answer(passes):
    passes(check_fit_budget, fit_budget, "fit_budget")


@pytest.mark.parametrize("wrong, hint", [
    (fit_budget_strict, "<="),
    (fit_budget_greedy, "contiguous"),
    (fit_budget_from_oldest, "newest"),
    (fit_budget_mutating, "changed its input"),
    (fit_budget_counts_overflow, "should return"),
    (fit_budget_returns_float, "should return an int"),
    (fit_budget_stops_when_full, "fit_budget([7, 0, 3], budget=3) should return 2, got 1."),
    (fit_budget_zero_shortcut, "fit_budget([0, 0], budget=0) should return 2, got 0."),
    (fit_budget_stops_at_empty, "do not treat size 0 as the end"),
    (fit_budget_stops_at_zero_left, "do not stop when the total reaches the budget"),
    (stub, "not written yet"),
])
def test_fit_budget_rejects_wrong_answers(wrong, hint, rejects):
    rejects(check_fit_budget, wrong, hint)


def _largest_fitting_suffix(sizes, budget):
    """The exercise's definition, by brute force: the largest k whose newest k fit."""
    return max(k for k in range(len(sizes) + 1) if sum(sizes[len(sizes) - k:]) <= budget)


def test_budget_cases_agree_with_the_definition():
    for sizes, budget, want, _ in checks._BUDGET_CASES:
        assert budget >= 0 and _largest_fitting_suffix(sizes, budget) == want, (sizes, budget)
    assert ([7, 0, 3], 3, 2) in [case[:3] for case in checks._BUDGET_CASES]
    assert ([0, 0], 0, 2) in [case[:3] for case in checks._BUDGET_CASES]


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
def test_window_errors_name_the_case(wrong, hints, rejects):
    rejects(check_window, wrong, *hints)


def fit_budget_newest_first(sizes, budget):          # sizes[-1] on an empty list
    if sizes[-1] > budget:
        return 0
    return fit_budget(sizes, budget)


def test_fit_budget_error_names_the_case(capsys):
    with pytest.raises(CheckFailed,
                       match=r"fit_budget\(\[\], 10\) raised IndexError: list index out of range"):
        check_fit_budget(fit_budget_newest_first)
    assert "PASS" not in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (fit_budget_stops_when_full, "do not stop when the total reaches the budget"),
    (fit_budget_zero_shortcut, "a budget of 0 is valid"),
])
def test_fit_budget_zero_token_mistakes_get_their_hint(wrong, hint, rejects):
    rejects(check_fit_budget, wrong, hint)


def test_the_kits_fit_budget_is_the_exercise_answer(passes):
    from kit.memory.window import fit_budget
    passes(check_fit_budget, fit_budget, "fit_budget")
