"""RobustSummaryMemory, production-grade: compute-then-commit steps, failures at any compaction,
fallback, timeout, structured summaries, the summary cap, and rebuilding from source."""
import threading

import pytest

from kit.conversations import LAPTOP_TURNS, facts_in, replay, shopping_chat
from kit.extractive import make_extractive_summariser, split_sentences
from kit.llm import FailingLLM, ScriptedLLM, fact_listing_summariser
from kit.memory import (SHORTEN_PROMPT, CompactionError, SummariserFailed, RobustSummaryMemory,
                        SummaryUpdate, fold_spans, resummarise)
from kit.messages import make_message
from kit.prompts import parse_summary_prompt
from kit.structured import STRUCTURED_SUMMARY_PROMPT, StructuredSummary
from kit.tokens import approx_tokens, count_words


def options_only(summariser, *args, **options):
    """The production memory with its safe defaults (a summary cap, the fact check)
    switched off: these tests are about one option each."""
    options.setdefault("summary_cap", None)
    options.setdefault("fact_check", False)
    return RobustSummaryMemory(summariser, *args, **options)



def snapshot(memory):
    return (memory.summary, memory.summary_tokens, list(memory.turns), memory.turn_tokens,
            memory.compactions, memory.folded, memory.structured, memory.added,
            len(memory.trace))


def laptop(summariser, **kwargs):
    kwargs.setdefault("budget", 20)
    return options_only(summariser, keep_recent=2, measure=count_words, **kwargs)


def echo(prefix):
    """A stub summariser: ``prefix`` + the fact-listing summary."""
    return lambda prompt: prefix + fact_listing_summariser(prompt)


# -- the three steps -----------------------------------------------------------------------
def test_plan_compute_commit_by_hand_equals_add():
    memory = laptop(FailingLLM(fact_listing_summariser, fail_on={1}))
    replay(memory, LAPTOP_TURNS[:3])
    with pytest.raises(CompactionError):
        memory.add(*LAPTOP_TURNS[3])
    old, recent = memory.plan_compaction()
    assert [m.number for m in old] == [1, 2] and [m.number for m in recent] == [3, 4]
    before = snapshot(memory)
    update = memory.compute_summary(memory.summary, old)
    assert snapshot(memory) == before                       # compute changes nothing
    assert update == SummaryUpdate("I need a laptop under Rs 60000; For coding or gaming?",
                                   11, "model", "")
    fields = memory.commit_compaction(update, old, recent)
    assert fields == {"action": "compacted", "moved": (1, 2), "summariser": "model",
                      "trigger": "", "note": "turns 1-2 folded into the summary; still over "
                                             "budget: keep_recent=2 wins"}
    reference = laptop(fact_listing_summariser)
    replay(reference, LAPTOP_TURNS)
    assert memory.context() == reference.context() and memory.size == reference.size
    assert memory.folded == reference.folded == (1, 2)


def test_commit_keeps_turns_added_after_the_plan():
    memory = laptop(fact_listing_summariser, budget=100)
    replay(memory, LAPTOP_TURNS)
    old, recent = memory.turns[:2], memory.turns[2:]
    update = memory.compute_summary("", old)
    memory.add("user", "And the battery?")                  # arrives while the model ran
    memory.commit_compaction(update, old, recent)
    assert [m.number for m in memory.turns] == [3, 4, 5]
    assert memory.turn_tokens == sum(m.tokens for m in memory.turns)


def test_a_stale_plan_changes_nothing():
    memory = laptop(fact_listing_summariser, budget=100)
    replay(memory, LAPTOP_TURNS)
    old, recent = memory.turns[:2], memory.turns[2:]
    update = memory.compute_summary("", old)
    memory.commit_compaction(update, old, recent)
    before = snapshot(memory)
    with pytest.raises(RuntimeError, match="stale compaction plan.*messages 1-4"):
        memory.commit_compaction(update, old, recent)
    with pytest.raises(TypeError, match="update must be a SummaryUpdate"):
        memory.commit_compaction("new summary", [], memory.turns)
    assert snapshot(memory) == before


# -- nothing lost when any compaction fails ------------------------------------------------
CHAT = shopping_chat(60)


def reference_run():
    memory = options_only(fact_listing_summariser, budget=150, keep_recent=2, measure=approx_tokens)
    replay(memory, CHAT)
    return memory


N_COMPACTIONS = reference_run().compactions


def test_the_chat_has_many_compactions():
    assert N_COMPACTIONS == 24


@pytest.mark.parametrize("failing_call", range(1, N_COMPACTIONS + 1))
def test_no_turn_lost_whichever_compaction_fails(failing_call):
    model = FailingLLM(fact_listing_summariser, fail_on={failing_call})
    memory = options_only(model, budget=150, keep_recent=2, measure=approx_tokens)
    failed_plan = None
    for role, text in CHAT + [("user", "One more thing?")]:   # a compaction after any failure
        try:
            memory.add(role, text)
        except CompactionError as error:
            assert isinstance(error.__cause__, TimeoutError) and failed_plan is None
            failed_plan = [m.number for m in memory.plan_compaction()[0]]
    assert failed_plan is not None
    # every message is folded into the summary or verbatim, never both, never neither
    verbatim = [m.number for m in memory.turns]
    assert sorted(memory.folded + tuple(verbatim)) == list(range(1, 62))
    assert list(memory.folded) == list(range(1, len(memory.folded) + 1))
    for number in memory.folded:
        assert CHAT[number - 1][1] in memory.summary
    # the next compaction after the failure folded the larger span, from the same start
    failed_at = next(i for i, e in enumerate(memory.trace) if e.action == "failed")
    recovery = next(e for e in memory.trace[failed_at + 1:] if e.compacted)
    assert recovery.moved[0] == failed_plan[0]
    assert set(failed_plan) <= set(recovery.moved)


# -- fallback ------------------------------------------------------------------------------
@pytest.mark.parametrize("model, error", [
    (FailingLLM(error=TimeoutError("model timed out")), "TimeoutError: model timed out"),
    (lambda prompt: None, "TypeError: summariser must return str, got NoneType"),
    (lambda prompt: "  ", "ValueError: the summariser returned an empty summary"),
])
def test_fallback_writes_the_summary_when_the_model_fails(model, error):
    memory = laptop(model, fallback=echo("[fallback] "))
    events = replay(memory, LAPTOP_TURNS)
    assert memory.summary == "[fallback] I need a laptop under Rs 60000; For coding or gaming?"
    assert events[-1].compacted and events[-1].summariser == "fallback"
    assert events[-1].note.startswith("turns 1-2 folded into the summary; summarised by the "
                                      f"fallback: the model failed ({error}")


def test_the_model_wins_when_it_answers():
    fallback = ScriptedLLM([])
    memory = laptop(fact_listing_summariser, fallback=fallback)
    events = replay(memory, LAPTOP_TURNS)
    assert events[-1].summariser == "model" and fallback.calls == 0


def test_model_and_fallback_both_failing_loses_nothing():
    memory = laptop(FailingLLM(), fallback=FailingLLM(error=ValueError("no rules matched")))
    replay(memory, LAPTOP_TURNS[:3])
    before = snapshot(memory)
    with pytest.raises(CompactionError, match="the model failed .*TimeoutError.* and so did "
                                              "the fallback .*no rules matched") as raised:
        memory.add(*LAPTOP_TURNS[3])
    cause = raised.value.__cause__
    assert isinstance(cause, SummariserFailed)
    assert isinstance(cause.errors["model"], TimeoutError)
    assert isinstance(cause.errors["fallback"], ValueError)
    assert memory.summary == before[0] and memory.turns == before[2] + [memory.turns[-1]]
    assert memory.trace[-1].action == "failed" and memory.folded == ()


def test_interrupt_in_the_model_skips_the_fallback():
    fallback = ScriptedLLM(["never"])
    memory = laptop(FailingLLM(error=KeyboardInterrupt()), fallback=fallback)
    replay(memory, LAPTOP_TURNS[:3])
    with pytest.raises(KeyboardInterrupt):
        memory.add(*LAPTOP_TURNS[3])
    assert fallback.calls == 0 and len(memory.turns) == 4


# -- timeout -------------------------------------------------------------------------------
def blocked_summariser():
    """A summariser that waits until the test sets its ``release`` event."""
    release, entered = threading.Event(), threading.Event()

    def model(prompt):
        entered.set()
        release.wait()
        return "late summary"

    return model, release, entered


def test_timeout_counts_as_a_failure_and_the_fallback_answers():
    model, release, entered = blocked_summariser()
    try:
        # the timeout also bounds the fallback's call: 1 s, so a busy machine never makes
        # the quick fallback miss it (the blocked model costs one wait: its slot stays busy)
        memory = laptop(model, fallback=echo("[fallback] "), timeout=1)
        events = replay(memory, LAPTOP_TURNS)
        assert entered.is_set()
        assert events[-1].summariser == "fallback"
        assert "TimeoutError: the summariser did not answer within 1 s" in events[-1].note
        assert memory.summary.startswith("[fallback] I need a laptop")
    finally:
        release.set()


def test_timeout_without_fallback_raises_and_keeps_everything():
    model, release, _ = blocked_summariser()
    try:
        memory = laptop(model, timeout=0.05)
        replay(memory, LAPTOP_TURNS[:3])
        with pytest.raises(CompactionError, match="did not answer within 0.05 s") as raised:
            memory.add(*LAPTOP_TURNS[3])
        assert isinstance(raised.value.__cause__, TimeoutError)
        assert memory.summary == "" and [m.number for m in memory.turns] == [1, 2, 3, 4]
    finally:
        release.set()


def test_with_a_timeout_a_prompt_model_still_answers_and_raises_on_the_worker():
    memory = laptop(fact_listing_summariser, timeout=5)
    replay(memory, LAPTOP_TURNS)
    assert memory.summary == "I need a laptop under Rs 60000; For coding or gaming?"
    failing = laptop(FailingLLM(error=ValueError("bad gateway")), timeout=5)
    replay(failing, LAPTOP_TURNS[:3])
    with pytest.raises(CompactionError, match="bad gateway") as raised:
        failing.add(*LAPTOP_TURNS[3])
    assert isinstance(raised.value.__cause__, ValueError)
    interrupted = laptop(FailingLLM(error=KeyboardInterrupt()), timeout=5)
    replay(interrupted, LAPTOP_TURNS[:3])
    with pytest.raises(KeyboardInterrupt):
        interrupted.add(*LAPTOP_TURNS[3])


# -- structured summary (the FEMentor write-up) --------------------------------------------
def test_structured_summary_is_parsed_and_rendered():
    model = ScriptedLLM(['{"summary": "Wants a laptop under Rs 60000.", '
                         '"open_points": ["coding or gaming?"]}'])
    memory = laptop(model, structured=True)
    event = replay(memory, LAPTOP_TURNS)[-1]
    assert model.prompts[0].startswith(STRUCTURED_SUMMARY_PROMPT)
    assert memory.structured == StructuredSummary("Wants a laptop under Rs 60000.",
                                                  ("coding or gaming?",))
    assert memory.summary == memory.structured.render() == (
        "Wants a laptop under Rs 60000.\nOpen points:\n- coding or gaming?")
    assert memory.summary_tokens == 12 and event.summariser == "model"
    assert memory.context().startswith("Summary of earlier conversation:\nWants a laptop "
                                       "under Rs 60000.\n  Open points:\n  - coding or gaming?")


def test_malformed_json_without_fallback_loses_nothing():
    memory = laptop(ScriptedLLM(["Sure! Here is the summary: laptop, Rs 60000"]),
                    structured=True)
    replay(memory, LAPTOP_TURNS[:3])
    with pytest.raises(CompactionError, match="not valid JSON") as raised:
        memory.add(*LAPTOP_TURNS[3])
    assert isinstance(raised.value.__cause__, ValueError)
    assert memory.structured is None and memory.summary == "" and len(memory.turns) == 4


def test_malformed_json_falls_back_and_open_points_carry_over():
    model = ScriptedLLM(['{"summary": "Wants a laptop under Rs 60000.", '
                         '"open_points": ["coding or gaming?"]}',
                         '{"summary": "missing its open points"}'])
    memory = options_only(model, budget=20, keep_recent=2, measure=count_words,
                           structured=True, fallback=lambda prompt: "Laptop, Rs 60000, 1.5 kg")
    events = replay(memory, LAPTOP_TURNS + [("user", "Backlit keyboard?"),
                                            ("assistant", "Yes it is")])
    second = [e for e in events if e.compacted][1]
    assert second.summariser == "fallback" and "missing the field(s) open_points" in second.note
    assert memory.structured == StructuredSummary("Laptop, Rs 60000, 1.5 kg",
                                                  ("coding or gaming?",))


OPEN = '{"summary": "Wants a laptop under Rs 60000.", "open_points": ["Is order 88412 insured?"]}'


def test_a_plain_text_fallback_never_copies_an_open_point_into_the_summary():
    # the open point carries a fact (an id), so the extractive rules would keep it if
    # they saw it; they see the summary field alone, and the point is carried over apart
    seen = ScriptedLLM(["[user] Coding, and it must weigh under 1.5 kg"])
    memory = options_only(FailingLLM(ScriptedLLM([OPEN]), fail_on={2}), budget=20,
                           keep_recent=2, measure=count_words, structured=True, fallback=seen)
    replay(memory, LAPTOP_TURNS + [("user", "Backlit keyboard?"), ("assistant", "Yes it is")])
    assert parse_summary_prompt(seen.prompts[0])[0] == "Wants a laptop under Rs 60000."
    assert memory.structured == StructuredSummary(
        "[user] Coding, and it must weigh under 1.5 kg", ("Is order 88412 insured?",))
    assert memory.summary.count("88412") == 1


def test_the_extractive_fallback_keeps_the_open_point_once():
    memory = options_only(FailingLLM(ScriptedLLM([OPEN]), fail_on={2}), budget=20,
                           keep_recent=2, measure=count_words, structured=True,
                           fallback=make_extractive_summariser(cap=30, measure=count_words))
    replay(memory, LAPTOP_TURNS + [("user", "Backlit keyboard?"), ("assistant", "Yes it is")])
    assert memory.trace[-1].summariser == "fallback"
    assert memory.structured.open_points == ("Is order 88412 insured?",)
    assert memory.structured.summary == (     # one line, as StructuredSummary stores it
        "Wants a laptop under Rs 60000. [user] Coding, and it must weigh under 1.5 kg "
        "[assistant] Try the Zenbook 14 at Rs 57990")
    assert memory.summary.count("Is order 88412 insured?") == 1
    # the next fallback reads the one-line summary back sentence by sentence, tags kept
    assert split_sentences(memory.structured.summary) == [
        "Wants a laptop under Rs 60000.", "[user] Coding, and it must weigh under 1.5 kg",
        "[assistant] Try the Zenbook 14 at Rs 57990"]


def test_a_json_fallback_cannot_close_a_point_it_did_not_see():
    fallback = ScriptedLLM(['{"summary": "Laptop, Rs 60000.", "open_points": ["Weight?"]}'])
    memory = options_only(FailingLLM(ScriptedLLM([OPEN]), fail_on={2}), budget=20,
                           keep_recent=2, measure=count_words, structured=True,
                           fallback=fallback)
    replay(memory, LAPTOP_TURNS + [("user", "Backlit keyboard?"), ("assistant", "Yes it is")])
    assert parse_summary_prompt(fallback.prompts[0])[0] == "Wants a laptop under Rs 60000."
    assert memory.structured == StructuredSummary("Laptop, Rs 60000.",
                                                  ("Is order 88412 insured?", "Weight?"))


def test_a_fallback_shortening_its_summary_sees_the_summary_field_alone():
    long_text = "laptop under Rs 60000 for coding, must weigh under 1.5 kg, Zenbook 14 at Rs 57990"
    fallback = ScriptedLLM([long_text, "laptop, Rs 60000, 1.5 kg"])
    memory = options_only(FailingLLM(ScriptedLLM([OPEN]), fail_on={2}), budget=30,
                           keep_recent=2, measure=count_words, structured=True,
                           fallback=fallback, summary_cap=14)
    replay(memory, LAPTOP_TURNS + [("user", "Backlit keyboard? " * 4), ("assistant", "Yes it is")])
    assert parse_summary_prompt(fallback.prompts[1]) == (long_text, [])     # no open points
    assert memory.structured == StructuredSummary("laptop, Rs 60000, 1.5 kg",
                                                  ("Is order 88412 insured?",))
    assert "re-summarised to 12 words" in memory.trace[-1].note     # the points count too


# -- the summary cap -----------------------------------------------------------------------
LONG = "order 88412 budget Rs 60000 allergic to peanuts wants a light laptop for coding"


def test_summary_over_its_cap_is_re_summarised():
    model = ScriptedLLM([LONG, "order 88412, Rs 60000, peanuts"])
    memory = laptop(model, summary_cap=8)
    event = replay(memory, LAPTOP_TURNS)[-1]
    assert memory.summary == "order 88412, Rs 60000, peanuts" and memory.summary_tokens == 5
    assert model.prompts[1].startswith(SHORTEN_PROMPT)
    assert parse_summary_prompt(model.prompts[1]) == (LONG, [])
    assert event.note == ("turns 1-2 folded into the summary; the summary (14 words) was over "
                          "its cap of 8 words; re-summarised to 5 words")
    assert memory.size == 5 + 15


def test_summary_still_over_its_cap_is_truncated_and_flagged():
    model = ScriptedLLM([LONG, LONG + " and more"])
    memory = laptop(model, summary_cap=8)
    event = replay(memory, LAPTOP_TURNS)[-1]
    assert memory.summary == "order 88412 budget Rs 60000 allergic to …"
    assert memory.summary_tokens == 8 == count_words(memory.summary)
    assert "re-summarised to 16 words; TRUNCATED to 8 words: the end of the summary was " \
           "cut, facts there are lost" in event.note


def test_failed_re_summarise_is_noted_then_truncated():
    memory = laptop(FailingLLM(ScriptedLLM([LONG]), fail_on={2}), summary_cap=8)
    event = replay(memory, LAPTOP_TURNS)[-1]
    assert "re-summarising failed (TimeoutError: model timed out); TRUNCATED to 8" in event.note
    assert memory.summary.startswith("order 88412 budget")


def test_structured_truncation_keeps_open_points():
    reply = ('{"summary": "' + LONG + '", "open_points": ["weight limit?"]}')
    memory = options_only(ScriptedLLM([reply, reply]), budget=40, keep_recent=0,
                           measure=count_words, structured=True, summary_cap=12)
    replay(memory, [("user", " ".join(["word"] * 30)), ("assistant", " ".join(["ok"] * 12))])
    assert memory.structured.open_points == ("weight limit?",)
    assert memory.structured.summary == "order 88412 budget Rs 60000 allergic …"
    assert memory.summary_tokens == count_words(memory.summary) <= 12


def test_summary_within_its_cap_costs_no_extra_call():
    model = ScriptedLLM(["short"])
    memory = laptop(model, summary_cap=8)
    replay(memory, LAPTOP_TURNS)
    assert model.calls == 1 and memory.summary == "short"


# -- rebuild from the raw transcript, and drift ---------------------------------------------
def source_turns(n):
    return [make_message(role, text, approx_tokens, i + 1)
            for i, (role, text) in enumerate(shopping_chat(n))]


def test_fold_spans_keeps_pairs_and_the_limit():
    turns = source_turns(20)
    spans = fold_spans(turns, 40)
    assert [m for part in spans for m in part] == turns
    assert [[m.number for m in part][::len(part) - 1] for part in spans] == [
        [1, 2], [3, 4], [5, 8], [9, 12], [13, 14], [15, 16], [17, 20]]   # greedy, whole pairs
    for part in spans:
        assert part[0].role == "user" and part[-1].role == "assistant"
        assert sum(m.tokens for m in part) <= 40 or len(part) == 2
    assert [len(p) for p in fold_spans(turns[:5], 1)] == [2, 2, 1]   # pairs over the limit


def test_rebuild_summary_from_source_changes_nothing():
    memory = options_only(fact_listing_summariser, budget=60, keep_recent=2, measure=approx_tokens)
    replay(memory, shopping_chat(30))
    before = snapshot(memory)
    turns = [m for m in source_turns(30) if m.number in memory.folded]
    update = memory.rebuild_summary(turns)
    assert snapshot(memory) == before
    assert update.text == memory.summary                    # the stub keeps every fact
    n_spans = len(fold_spans(turns, 60))
    assert update.note == f"rebuilt from messages 1-{turns[-1].number} in {n_spans} folds"
    memory.replace_summary(update)
    assert memory.summary == update.text and memory.summary_tokens == update.tokens


def lossy(prompt):
    """A re-summariser that drops the first word holding a digit on every pass."""
    summary, new = parse_summary_prompt(prompt)
    text = "; ".join([summary] + new) if summary else "; ".join(new)
    words = text.split()
    digits = [i for i, w in enumerate(words) if any(c.isdigit() for c in w)]
    return " ".join(w for i, w in enumerate(words) if not digits or i != digits[0])


def test_resummarised_summary_drifts_but_a_rebuild_does_not():
    memory = options_only(fact_listing_summariser, budget=60, keep_recent=2, measure=approx_tokens)
    replay(memory, shopping_chat(30))
    passes = resummarise(memory.summary, lossy, 4)
    kept = [sum(facts_in(s).values()) for s in [memory.summary] + passes]
    assert kept == [3, 3, 3, 2, 1]       # the order id and budget are stated twice
    rebuilt = memory.rebuild_summary([m for m in source_turns(30) if m.number in memory.folded])
    assert all(facts_in(rebuilt.text).values())
    assert resummarise("x", lossy, 0) == []


# -- bad arguments ---------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, error, text", [
    ({"fallback": "rules"}, TypeError, "fallback must be callable str -> str or None, got 'rules'"),
    ({"timeout": 0}, ValueError, "timeout must be > 0 seconds and finite, got 0"),
    ({"timeout": -1.5}, ValueError, "got -1.5"),
    ({"timeout": True}, TypeError, "timeout must be a number of seconds or None, got bool"),
    ({"structured": "yes"}, TypeError, "structured must be True or False, got 'yes'"),
    ({"summary_cap": 20}, ValueError, "summary_cap must be < budget \\(20\\), got 20"),
    ({"summary_cap": 0}, ValueError, "summary_cap must be >= 1, got 0"),
    ({"summary_cap": 5.0}, TypeError, "summary_cap must be an int"),
])
def test_bad_options_raise_naming_the_value(kwargs, error, text):
    with pytest.raises(error, match=text):
        laptop(fact_listing_summariser, **kwargs)


@pytest.mark.parametrize("turns, error, text", [
    ([], ValueError, "at least one turn, got none"),
    ("user: hi", TypeError, "turns must be a list of Message"),
    ([("user", "hi")], TypeError, "turns must be kit.messages.Message objects"),
])
def test_bad_rebuild_input_raises_and_changes_nothing(turns, error, text):
    memory = laptop(fact_listing_summariser)
    replay(memory, LAPTOP_TURNS)
    before = snapshot(memory)
    with pytest.raises(error, match=text):
        memory.rebuild_summary(turns)
    with pytest.raises(TypeError, match="update must be a SummaryUpdate"):
        memory.replace_summary("a summary")
    assert snapshot(memory) == before


def test_bad_resummarise_times():
    with pytest.raises(ValueError, match="times must be >= 0, got -1"):
        resummarise("s", lossy, -1)


def test_compaction_table_shows_trigger_and_summariser():
    from kit.trace import compaction_table

    memory = laptop(FailingLLM(fact_listing_summariser, fail_on={1}),
                    fallback=echo("[fb] "), max_messages=3)
    replay(memory, LAPTOP_TURNS)
    table = compaction_table(memory.trace, "laptop")
    assert table.columns[5] == "size (words)"
    assert table.rows == [[4, "compacted", "1-2", "over budget; 4 verbatim turns > max_messages=3",
                           "fallback", 26, 12 + 15, memory.trace[-1].note]]
    assert memory.trace[-1].note.startswith("4 verbatim turns > max_messages=3: turns 1-2 "
                                            "folded into the summary; summarised by the fallback")


def test_a_summary_of_one_long_word_is_cut_inside_it():
    # a language written without spaces makes every sentence one "word": a summary that
    # is one word over the cap is cut by characters, not kept whole over it
    word = "x" * 40
    memory = options_only(ScriptedLLM([word, word]), budget=60, keep_recent=0,
                           measure=lambda s: len(s), summary_cap=10)
    event = replay(memory, [("user", "y" * 30), ("assistant", "z" * 31)])[-1]
    assert memory.summary == "x" * 8 + " …" and memory.summary_tokens == 10
    assert event.note.endswith("re-summarised to 40 tokens; TRUNCATED to 10 tokens: the end "
                               "of the summary was cut, facts there are lost")


def test_a_summary_that_cannot_be_cut_is_flagged_over_the_cap():
    memory = options_only(ScriptedLLM(["x", "x"]), budget=60, keep_recent=0,
                           measure=lambda s: 5 * len(s), summary_cap=4)
    event = replay(memory, [("user", "y" * 6), ("assistant", "z" * 7)])[-1]
    assert memory.summary == "x" and memory.summary_tokens == 5
    assert event.note.endswith("re-summarised to 5 tokens; it could not be cut (a single "
                               "character): still over the cap")
