"""Compaction triggers: budget with hysteresis (target), message count, age (the
context-handling post)."""
import pytest

from kit.conversations import LAPTOP_TURNS, replay, shopping_chat
from kit.llm import ScriptedLLM, fact_listing_summariser, prompt_following_summariser
from kit.memory import Firing, OverBudget, RobustSummaryMemory, TooManyTurns, TooOld
from kit.tokens import approx_tokens, count_words


def options_only(summariser, *args, **options):
    """The production memory with its safe defaults (a summary cap, the fact check)
    switched off: these tests are about one option each."""
    options.setdefault("summary_cap", None)
    options.setdefault("fact_check", False)
    return RobustSummaryMemory(summariser, *args, **options)



class FakeClock:
    """A clock the test moves by hand: ``clock.now = 120``."""

    def __init__(self, now: float = 0.0) -> None:
        self.now, self.calls = now, 0

    def __call__(self) -> float:
        self.calls += 1
        return self.now


def pairs_kept_whole(memory):
    """No compaction split a question from its reply: every fold ends before a user turn."""
    by_number = {}
    for event in memory.trace:
        by_number[event.message] = event.role
    for event in memory.trace:
        if event.compacted:
            after = event.moved[-1] + 1
            if after in by_number and by_number[after] != "user":
                return False
    return True


# -- budget and hysteresis -------------------------------------------------------------
def compactions(target, n=200, budget=120):
    memory = options_only(prompt_following_summariser, budget=budget, keep_recent=2,
                           target=target, measure=approx_tokens)
    replay(memory, shopping_chat(n))
    return memory


def test_hysteresis_lowers_the_number_of_compactions():
    plain = compactions(target=120)          # target == budget: fold just enough
    wide = compactions(target=90)
    wider = compactions(target=60)
    assert (plain.compactions, wide.compactions, wider.compactions) == (96, 48, 32)
    assert wider.compactions < wide.compactions < plain.compactions
    # the summary-memory lesson's default folds all but keep_recent: the widest hysteresis
    assert compactions(target=None).compactions == 32
    for memory in (plain, wide, wider):
        assert pairs_kept_whole(memory)
        assert "88412" in memory.summary and "peanuts" in memory.summary


def test_target_folds_the_fewest_turns_that_reach_it():
    memory = compactions(target=60, n=11)
    event = memory.trace[-1]
    assert event.compacted and event.moved == (1, 2, 3, 4, 5, 6)
    assert event.size_before == 126 and event.trigger.startswith("over budget (126 > 120 tokens)")
    assert event.note == ("over budget (126 > 120 tokens), folding down to the target of 60 "
                          "tokens: turns 1-6 folded into the summary")
    # the fewest: folding 1-4 would have left more than 60 tokens, folding 1-6 does not
    sizes = [approx_tokens(text) for _, text in shopping_chat(11)]
    assert event.size_before - sum(sizes[:4]) > 60 >= event.size_before - sum(sizes[:6])


def test_default_budget_trigger_keeps_the_seed_trace():
    memory = options_only(fact_listing_summariser, budget=20, keep_recent=2,
                           measure=count_words)
    events = replay(memory, LAPTOP_TURNS)
    assert events[-1].trigger == "over budget" and events[-1].summariser == "model"
    assert events[-1].note == ("turns 1-2 folded into the summary; still over budget: "
                               "keep_recent=2 wins")
    assert [e.trigger for e in events[:3]] == ["", "", ""]


def test_target_cannot_fold_into_keep_recent_or_split_a_pair():
    memory = options_only(ScriptedLLM(["S"]), budget=20, keep_recent=2, target=0,
                           measure=count_words)
    replay(memory, LAPTOP_TURNS)
    assert memory.trace[-1].moved == (1, 2)
    assert [m.number for m in memory.turns] == [3, 4]


# -- message count ---------------------------------------------------------------------
def test_message_count_trigger():
    memory = options_only(fact_listing_summariser, budget=1000, keep_recent=2,
                           max_messages=6, measure=count_words)
    events = replay(memory, shopping_chat(12))
    fired = [e for e in events if e.compacted]
    assert [(e.message, e.moved) for e in fired] == [(7, (1, 2, 3, 4)), (11, (5, 6, 7, 8))]
    assert fired[0].trigger == "7 verbatim turns > max_messages=6"
    assert fired[0].note == "7 verbatim turns > max_messages=6: turns 1-4 folded into the summary"
    assert len(memory.turns) == 4 and memory.size < 1000


# -- age, on a fake clock --------------------------------------------------------------
def test_age_trigger_with_a_fake_clock():
    clock = FakeClock()
    memory = options_only(fact_listing_summariser, budget=1000, keep_recent=2,
                           max_age=60, clock=clock, measure=count_words)
    for i, (role, text) in enumerate(shopping_chat(6)):
        clock.now = 10 * i                    # messages at 0, 10, ..., 50 s
        memory.add(role, text)
    assert memory.compactions == 0 and clock.calls == 6
    clock.now = 75                            # messages 1 and 2 are now over 60 s old
    event = memory.add("user", "Anything else?")
    assert event.compacted and event.moved == (1, 2)
    assert event.trigger == "message 1 is 75 s old > max_age=60 s"
    assert event.note == "message 1 is 75 s old > max_age=60 s: turns 1-2 folded into the summary"
    assert sorted(memory.added_at) == [3, 4, 5, 6, 7]


def test_age_trigger_folds_a_stale_question_with_its_reply():
    clock = FakeClock()
    memory = options_only(fact_listing_summariser, budget=1000, keep_recent=2,
                           max_age=60, clock=clock, measure=count_words)
    replay(memory, shopping_chat(4))          # all at t=0
    clock.now = 30
    replay(memory, shopping_chat(6)[4:])      # messages 5-6 at t=30
    clock.now = 61                            # 1-4 are stale, 5-6 are not
    event = memory.add("user", "And the price?")
    assert event.moved == (1, 2, 3, 4) and [m.number for m in memory.turns] == [5, 6, 7]


def test_age_trigger_ignores_turns_inside_keep_recent():
    clock = FakeClock()
    memory = options_only(fact_listing_summariser, budget=1000, keep_recent=2,
                           max_age=60, clock=clock, measure=count_words)
    replay(memory, shopping_chat(2))
    clock.now = 1000                          # old, but both are the keep_recent turns
    assert memory.plan_compaction() is None
    assert memory.check_triggers(clock()) == []


def test_no_clock_calls_without_max_age():
    clock = FakeClock()
    memory = options_only(fact_listing_summariser, budget=30, keep_recent=2, clock=clock, measure=approx_tokens)
    replay(memory, shopping_chat(20))
    assert clock.calls == 0 and memory.added_at == {}


# -- the trigger objects -----------------------------------------------------------------
def test_trigger_objects_answer_with_a_firing():
    memory = options_only(fact_listing_summariser, budget=1000, keep_recent=2,
                           measure=count_words)
    replay(memory, LAPTOP_TURNS)              # 26 words, 4 turns
    assert OverBudget(30).check(memory, None) is None
    assert OverBudget(20).check(memory, None) == Firing("over budget", 4, quiet=True)
    assert OverBudget(20, target=15).check(memory, None).fold == 2      # 26-7-4 = 15
    assert TooManyTurns(4).check(memory, None) is None
    assert TooManyTurns(3).check(memory, None) == Firing(
        "4 verbatim turns > max_messages=3", 4)
    assert TooOld(5).check(memory, None) is None                        # no clock reading


def test_custom_trigger_can_be_added():
    class EveryFourth:
        def check(self, memory, now):
            return Firing("every 4th", len(memory.turns)) if memory.added % 4 == 0 else None

    memory = options_only(fact_listing_summariser, budget=1000, keep_recent=2, measure=approx_tokens)
    memory.triggers.append(EveryFourth())
    events = replay(memory, shopping_chat(8))
    assert [e.message for e in events if e.compacted] == [4, 8]
    assert events[3].note == "every 4th: turns 1-2 folded into the summary"


@pytest.mark.parametrize("kwargs, error, text", [
    ({"target": 21}, ValueError, "target must be <= budget \\(20\\), got 21"),
    ({"target": -1}, ValueError, "target must be >= 0, got -1"),
    ({"target": 2.5}, TypeError, "target must be an int"),
    ({"max_messages": 2}, ValueError, "max_messages must be > keep_recent \\(2\\).*got 2"),
    ({"max_messages": 0}, ValueError, "max_messages must be >= 1, got 0"),
    ({"max_age": 0}, ValueError, "max_age must be > 0 seconds and finite, got 0"),
    ({"max_age": float("inf")}, ValueError, "got inf"),
    ({"max_age": "60"}, TypeError, "max_age must be a number of seconds or None, got str"),
    ({"clock": 5}, TypeError, "clock must be callable"),
])
def test_bad_trigger_arguments(kwargs, error, text):
    with pytest.raises(error, match=text):
        options_only(fact_listing_summariser, budget=20, keep_recent=2, measure=count_words,
                      **kwargs)


def test_a_clock_that_returns_no_number_fails_the_add_but_keeps_the_message():
    from kit.memory import CompactionError

    memory = options_only(fact_listing_summariser, budget=100, keep_recent=2, max_age=5,
                           clock=lambda: "noon", measure=approx_tokens)
    with pytest.raises(CompactionError, match="clock must return seconds"):
        memory.add("user", "hi")
    assert len(memory.turns) == 1 and memory.summary == ""


# -- the "still over budget" note names the real cause -------------------------------
def test_a_target_fold_whose_summary_outgrew_its_turns_blames_the_summary():
    memory = options_only(prompt_following_summariser, budget=120, keep_recent=2, target=90, measure=approx_tokens)
    event = replay(memory, shopping_chat(11))[-1]
    replaced = sum(approx_tokens(text) for _, text in shopping_chat(2))   # turns 1-2, no summary
    assert event.compacted and event.moved == (1, 2)
    assert event.size_after > event.size_before > 120                    # the fold made it worse
    assert memory.summary_tokens > replaced
    assert event.note.endswith(f"turns 1-2 folded into the summary; still over budget: the new "
                               f"summary ({memory.summary_tokens} tokens) is larger than the "
                               f"summary and turns it replaced ({replaced} tokens)")


def test_a_target_fold_whose_summary_grew_past_the_hysteresis_says_so():
    turns = [("user" if i % 2 else "assistant", f"w{i} x{i} y{i}") for i in range(1, 9)]
    memory = options_only(ScriptedLLM(["one two three four five six"]), budget=20,
                           keep_recent=2, target=18, measure=count_words)
    event = replay(memory, turns[:7])[-1]              # 21 words > 20: fold 1-2 (6 words)
    assert event.compacted and event.moved == (1, 2) and event.size_after == 21
    assert "keep_recent" not in event.note
    assert event.note.endswith("still over budget: the summary grew by 6 words, more than "
                               "the 2 words between the target (18) and the budget (20)")

