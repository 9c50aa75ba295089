"""kit.memory.budget: one token budget split between parts, with a report of what was cut."""
import random

import pytest

from kit.conversations import LAPTOP_TURNS
from kit.llm import fact_listing_summariser
from kit.memory import (FullHistory, Part, SlidingWindow, SummaryMemory, TokenWindow,
                        allocate)
from kit.messages import render
from kit.tokens import count_words
from kit.trace import Table


# -- worked examples ----------------------------------------------------------------
def test_a_hand_example_with_groups_overhead_and_a_window():
    parts = [Part("system", (3,), priority=9, minimum=1, why="never cut"),
             Part("recalled", (5, 9, 4, 20), priority=2, overhead=3, groups=("a", "b", "a", "c"),
                  group_costs={"a": 2, "b": 2, "c": 2}),
             Part("recent", (8, 7, 5), priority=1, minimum=1, contiguous=True)]
    a = allocate(30, parts)
    # protected: 3 + 8 = 11; recalled 0: 5 + title 3 + date 2 = 10 (21); 1: 9 + 2 = 11 > 9
    # left, cut; 2: 4, date "a" already paid (25); 3: 22, cut; recent 1: 7 > 5, cut, and
    # the older 5 goes with it (a window has no holes).
    assert [p.given for p in a.parts] == [(0,), (0, 2), (0,)]
    assert [p.tokens for p in a.parts] == [3, 14, 8] and a.total == 25 and a.protected == 11
    assert [p.wanted for p in a.parts] == [3, 47, 20]
    assert [p.cut for p in a.parts] == [0, 2, 2] and not a.over_budget
    assert a.part("recalled").reason == "2 of 4 cut: no room left in the budget"
    assert "a window has no holes" in a.part("recent").reason
    assert a.note == "25 of 30 tokens used; 4 items cut"


def test_the_laptop_example_keep_recent_wins_and_says_so():
    memory = SummaryMemory(fact_listing_summariser, budget=20, keep_recent=2, measure=count_words)
    for role, text in LAPTOP_TURNS:
        memory.add(role, text)
    a = memory.allocation()
    assert (a.total, a.budget, a.over_budget) == (26, 20, True)
    assert a.note == "over budget: the protected parts alone need 26 > 20 words"
    assert [(p.name, p.wanted, p.tokens, p.cut) for p in a.parts] == [
        ("summary", 11, 11, 0), ("recent", 15, 15, 0)]
    assert "keep_recent=2" in a.part("recent").reason
    assert memory.context() == (   # exactly as lesson 03 shows it
        "Summary of earlier conversation:\nI need a laptop under Rs 60000; For coding or gaming?"
        "\n\nuser: Coding, and it must weigh under 1.5 kg\nassistant: Try the Zenbook 14 at Rs 57990")


def test_the_report_is_a_table():
    a = allocate(10, [Part("question", (4,), minimum=1), Part("turns", (3, 3, 3), priority=1)],
                 unit="words")
    table = a.table()
    assert isinstance(table, Table) and table.title == "10 of 10 words used; 1 item cut"
    assert table.columns == ["part", "wanted (words)", "given (words)", "cut (items)", "reason"]
    assert table.rows == [["question", 4, 4, 0, "protected"],
                          ["turns", 9, 6, 1, "1 of 3 cut: no room left in the budget"]]


def test_no_budget_gives_everything_and_a_cap_limits_a_part():
    parts = [Part("a", (5, 5), priority=2, cap=7), Part("b", (50,), priority=1)]
    assert allocate(None, parts).total == 55
    assert allocate(None, parts).part("a").given == (0,)           # the cap holds even so
    assert "over the part's cap of 7" in allocate(100, parts).part("a").reason


@pytest.mark.parametrize("make", [
    lambda: FullHistory(measure=count_words, system="Be brief."),
    lambda: SlidingWindow(3, measure=count_words),
    lambda: TokenWindow(12, measure=count_words, system="Be brief."),
    lambda: SummaryMemory(fact_listing_summariser, budget=20, keep_recent=2, measure=count_words),
])
def test_every_memory_builds_its_context_through_the_allocator(make):
    memory = make()
    for role, text in LAPTOP_TURNS:
        memory.add(role, text)
    a = memory.allocation()
    assert a.total == memory.size                                  # nothing of it is cut
    assert sum(p.cut for p in a.parts) == 0
    assert memory.context().endswith(render(memory.turns))
    if memory.system:
        assert memory.context().startswith("system: Be brief.\n\n")
    assert memory.context(query="what laptop?") == memory.context()


# -- properties over many random part sizes -----------------------------------------
def random_parts(rng: random.Random) -> list[Part]:
    parts = []
    for k in range(rng.randint(1, 5)):
        n = rng.randint(0, 6)
        sizes = tuple(rng.randint(0, 12) for _ in range(n))
        groups = tuple(rng.choice("xyz") for _ in range(n)) if rng.random() < 0.5 else ()
        parts.append(Part(f"p{k}", sizes, priority=rng.randint(0, 3),
                          minimum=rng.randint(0, min(n, 2)) if rng.random() < 0.6 else 0,
                          cap=rng.choice([None, None, rng.randint(0, 30)]),
                          contiguous=rng.random() < 0.3, overhead=rng.choice([0, 0, 2]),
                          groups=groups, group_costs={"x": 1, "y": 3} if groups else {}))
    return parts


def full_cost(part: Part, i: int) -> int:
    group = part.group_costs.get(part.groups[i], 0) if part.groups else 0
    return part.sizes[i] + part.overhead + group


def spent(part: Part, given) -> int:
    if not given:
        return 0
    groups = {part.groups[i] for i in given} if part.groups else set()
    return part.overhead + sum(part.sizes[i] for i in given) + sum(
        part.group_costs.get(g, 0) for g in groups)


CASES = [(random_parts(random.Random(seed)), random.Random(seed + 1).randint(0, 60))
         for seed in range(600)]


def test_properties_over_many_random_part_sizes():
    for parts, budget in CASES:
        check_properties(parts, budget)


def check_properties(parts, budget):
    a = allocate(budget, parts)
    protected = sum(spent(p, range(p.minimum)) for p in parts)
    # never over budget, unless the protected items alone are; then only they go in
    assert a.protected == protected
    assert a.over_budget == (protected > budget)
    assert a.total <= budget or (a.over_budget and a.total == protected)
    order = sorted(range(len(parts)), key=lambda k: -parts[k].priority)   # filling order
    for k, (part, result) in enumerate(zip(parts, a.parts)):
        given = result.given
        assert set(range(part.minimum)) <= set(given)                 # protected: never cut
        assert result.tokens == spent(part, given)                    # the report adds up
        assert result.cut == len(part.sizes) - len(given)             # cuts are reported
        assert (result.cut > 0) == ("cut" in result.reason)
        assert result.wanted == spent(part, range(len(part.sizes)))
        if part.contiguous:
            assert given == tuple(range(len(given)))                  # no holes
        if part.cap is not None and result.tokens > part.cap:
            assert len(given) == part.minimum                          # only protected items
        if a.over_budget:
            assert len(given) == part.minimum
            continue
        # lowest priority cut first: a cut item could not fit even if every part filled
        # after this one (lower priority, or equal and later) gave its tokens back
        later = sum(a.parts[j].tokens - spent(parts[j], range(parts[j].minimum))
                    for j in order[order.index(k) + 1:])
        room = budget - a.total + later
        for i in set(range(len(part.sizes))) - set(given):
            if part.cap is None and not part.contiguous:
                mine_after = spent(part, given) - spent(part, [g for g in given if g < i])
                assert full_cost(part, i) > room + mine_after
    assert sum(p.tokens for p in a.parts) == a.total


def test_deterministic_and_pure():
    for parts, budget in CASES:
        before = [(p.sizes, p.minimum) for p in parts]
        assert allocate(budget, parts) == allocate(budget, list(parts))
        assert [(p.sizes, p.minimum) for p in parts] == before


def test_priority_decides_who_is_cut():
    parts = [Part("low", (6,), priority=0), Part("high", (6,), priority=5)]
    a = allocate(8, parts)
    assert (a.part("high").given, a.part("low").given) == ((0,), ())
    assert allocate(8, parts[::-1]) .part("high").given == (0,)


# -- errors --------------------------------------------------------------------------
@pytest.mark.parametrize("call, error, message", [
    (lambda: allocate(-1, []), ValueError, "budget must be an int >= 0, got -1"),
    (lambda: allocate(True, []), ValueError, "budget must be an int >= 0, got True"),
    (lambda: allocate(5, [Part("a", (1,)), Part("a", (2,))]), ValueError, "repeated: a"),
    (lambda: allocate(5, ["a"]), TypeError, "Part objects"),
    (lambda: Part("a", (1, -2)), ValueError, "size of item 1 must be an int >= 0, got -2"),
    (lambda: Part("a", (1,), minimum=2), ValueError, "minimum 2 is more than its 1 items"),
    (lambda: Part("a", (1,), groups=("x", "y")), ValueError, "2 groups for 1 items"),
    (lambda: Part("a", (1,), cap=-1), ValueError, "cap must be an int >= 0"),
    (lambda: allocate(5, [Part("a", (1,))]).part("b"), KeyError, "no part 'b'"),
])
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("call, error, message", [
    (lambda: Part("a", (1,), priority=float("nan")), TypeError,
     "part 'a': priority must be an int, got nan"),
    (lambda: Part("a", (1,), priority=None), TypeError, "part 'a': priority must be an int, got None"),
    (lambda: Part("a", (1,), priority=True), TypeError, "part 'a': priority must be an int, got True"),
    (lambda: Part("a", (1,), contiguous="no"), TypeError,
     "part 'a': contiguous must be True or False, got 'no'"),
    (lambda: Part(None, (1,)), TypeError, "part name must be a non-empty str, got None"),
    (lambda: Part(" ", (1,)), TypeError, "part name must be a non-empty str, got ' '"),
    (lambda: Part("a", None), TypeError, "part 'a': sizes must be a sequence of ints, got None"),
    (lambda: Part("a", (1,), group_costs=None), TypeError,
     "part 'a': group_costs must be a mapping, got None"),
])
def test_a_part_that_would_mislead_the_allocator_is_refused(call, error, message):
    # a NaN priority used to make the order depend on the list (not deterministic), a
    # truthy string 'no' made a part contiguous, None failed deep inside allocate()
    with pytest.raises(error, match=message):
        call()
