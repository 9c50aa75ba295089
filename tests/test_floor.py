"""The floor every benchmark ratio is taken against: count once, running total."""
import pytest

from kit.floor import FloorMemory
from kit.tokens import CallCounter, count_words


def test_the_floor_measures_each_message_once_and_keeps_a_running_total():
    counter = CallCounter(count_words)
    floor = FloorMemory(counter)
    for text in ("one two", "three", "four five six"):
        floor.add("user", text)
        floor.context()
    assert (floor.size, counter.calls) == (6, 3)
    assert floor.context() == "user: one two\nuser: three\nuser: four five six"
    assert floor.messages()[1] == {"role": "user", "content": "three"}


def test_with_a_budget_the_oldest_go_while_over_it():
    floor = FloorMemory(count_words, budget=4)
    for text in ("one two", "three", "four five"):
        floor.add("user", text)
    assert floor.size == 3 and floor.context() == "user: three\nuser: four five"
    floor.add("assistant", "a b c d e")                # bigger than the budget: all go
    assert (floor.size, floor.context()) == (0, "")


@pytest.mark.parametrize("budget, error", [(0, ValueError), ("10", TypeError), (True, TypeError)])
def test_a_bad_budget_is_refused(budget, error):
    with pytest.raises(error, match="budget"):
        FloorMemory(count_words, budget=budget)


def test_rendered_it_counts_each_line_as_shown_and_stays_within_the_budget():
    counter = CallCounter(count_words)
    floor = FloorMemory(counter, budget=5, count="rendered")
    for text in ("one two", "three", "four five"):
        floor.add("user", text)                    # "user: " 1 word, "\n" none: 3, 2, 3
    assert (floor.size, floor.context()) == (5, "user: three\nuser: four five")
    assert count_words(floor.context()) <= 5
    assert counter.calls == 3 + 2                  # each text once, the label and break once
    with pytest.raises(ValueError, match="count must be 'text' or 'rendered', got 'billed'"):
        FloorMemory(count_words, count="billed")
