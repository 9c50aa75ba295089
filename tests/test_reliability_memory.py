"""The reliability invariants of the memories (the reliability issue): what counts against
a budget, recovery after a summariser outage, the fact-survival check, the default
summary cap, one model call in flight, and a chatbot history that never opens with an
orphaned reply. Each test failed on the code before that work."""
from __future__ import annotations

import random
import threading

import pytest

from kit.conversations import PLANTED_FACTS, shopping_chat
from kit.extractive import make_extractive_summariser
from kit.llm import ScriptedLLM, fact_listing_summariser
from kit.memory import (CompactionError, RecallMemory, RobustSummaryMemory, SlidingWindow,
                        SummaryMemory, TokenWindow)
from kit.memory.facts import facts_in, missing_facts
from kit.messages import make_message
from kit.prompts import parse_summary_prompt
from kit.rag.chatbot import _history
from kit.reliability import KINDS, FaultyModel, run
from kit.tokens import cl100k_tokens, count_chat_tokens, count_words


def _chat(seed: int, n: int = 60) -> list[tuple[str, str, str | None]]:
    """A seeded chat with speakers on some turns and multi-line texts on others."""
    rng = random.Random(seed)
    out = []
    for role, text in shopping_chat(n, seed=seed):
        if rng.random() < 0.2:
            text += "\nSecond line: order ORD-77, £12.50."
        if rng.random() < 0.2:
            text = rng.choice(["5 items", "42", "  indented", "😀 ok", "价格是多少？", "'quoted'"]) + text
        out.append((role, text, rng.choice([None, "Ann", "Bob"])))
    return out


def _memories(count: str) -> list:
    system = "You are a shop assistant."
    return [SlidingWindow(6, system=system, count=count),
            TokenWindow(300, system=system, count=count),
            SummaryMemory(fact_listing_summariser, 300, 4, system=system, count=count),
            RobustSummaryMemory(fact_listing_summariser, 300, 4, system=system, count=count)]


# -- what counts against a budget ---------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_billed_size_is_what_the_request_is_billed(seed):
    for memory in _memories("billed"):
        for role, text, speaker in _chat(seed):
            memory.add(role, text, speaker=speaker)
            assert memory.size == count_chat_tokens(memory.messages(), measure=cl100k_tokens), \
                memory.name


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rendered_size_never_undercounts_the_context(seed):
    for memory in _memories("rendered"):
        for role, text, speaker in _chat(seed):
            memory.add(role, text, speaker=speaker)
            assert memory.size >= cl100k_tokens(memory.context()), memory.name
        assert memory.size <= 1.2 * cl100k_tokens(memory.context()) + 40, memory.name


def test_the_billed_allocation_reports_the_reply_priming():
    memory = TokenWindow(100, count="billed")
    memory.add("user", "Hello there")
    allocation = memory.allocation()
    assert allocation.total == memory.size and allocation.part("overhead").tokens == 3


def test_the_summary_title_counts_when_rendered():
    text = SummaryMemory(fact_listing_summariser, 40, 2, measure=count_words)
    shown = SummaryMemory(fact_listing_summariser, 40, 2, measure=count_words, count="rendered")
    for memory in (text, shown):
        for role, content in shopping_chat(12):
            memory.add(role, content)
    assert text.summary and shown.summary
    title = "Summary of earlier conversation:"
    assert shown.summary_tokens == count_words(f"{title}\n{shown.summary}")
    assert text.summary_tokens == count_words(text.summary)
    assert shown.size == count_words(shown.context())      # words: the sizes add up exactly


@pytest.mark.parametrize("bad", ["tokens", "", None, 3])
def test_an_unknown_count_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="count must be one of 'text', 'rendered', 'billed'"):
        TokenWindow(100, count=bad)


def test_a_session_saved_with_one_count_is_not_restored_with_another(tmp_path):
    from kit.persistence import attach_store, restore
    from kit.store import StoreError, TranscriptStore
    store = TranscriptStore(tmp_path / "chat.db")
    memory = TokenWindow(200, count="billed")
    attach_store(memory, store, "s1")
    for role, text in shopping_chat(6):
        memory.add(role, text)
    with pytest.raises(StoreError, match="count='billed'"):
        restore(TokenWindow(200), store, "s1")
    again = restore(TokenWindow(200, count="billed"), store, "s1")
    assert again.size == memory.size


# -- recovery after an outage, bounded cost during it --------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_back_within_budget_soon_after_a_long_outage_without_a_fallback(kind):
    row = run(kind, "outage", outage=300, messages=500, fallback=False)
    assert row["lost"] == 0
    # at most the back-off's longest wait (64 messages), then a few bounded folds
    assert row["recovered_after"] is not None and row["recovered_after"] <= 64 + 16
    assert not row["over_budget_at_end"]


def test_the_model_is_backed_off_during_an_outage():
    row = run("summary memory", "outage", outage=1000, messages=1100, fallback=False)
    # without back-off the model is called on each of the 1,000 messages of the outage
    assert row["faults"] <= 40
    assert row["prompt_kb"] < 2 * 1100 * 0.1 + 200


def test_a_fold_is_bounded_so_the_prompt_fits_the_models_window():
    model = FaultyModel(make_extractive_summariser(100, cl100k_tokens), "outage", window=1200)
    memory = RobustSummaryMemory(model, 300, 4, backoff=0)
    model.down = True
    for role, text in shopping_chat(200):
        try:
            memory.add(role, text)
        except CompactionError:
            pass
    model.down = False
    for role, text in shopping_chat(10, seed=5):
        memory.add(role, text)
    assert memory.size <= memory.budget
    assert "the fold was capped at fold_budget=600 tokens" in " ".join(e.note for e in memory.trace)


# -- a summary must prove it kept the facts ----------------------------------------------
def _dropping(fact: str):
    def summarise(prompt: str) -> str:
        return fact_listing_summariser(prompt).replace(fact, "an order")
    return summarise


def test_a_summary_that_drops_a_fact_is_repaired_and_the_trace_says_so():
    memory = RobustSummaryMemory(_dropping("88412"), 60, 2, measure=count_words, summary_cap=None)
    events = [memory.add(role, text) for role, text in shopping_chat(12)]
    assert "88412" in memory.summary
    assert any("fact check: 1 fact put back (88412)" in e.note for e in events)


@pytest.mark.parametrize("kind", KINDS)
def test_junk_replies_lose_no_turn(kind):
    row = run(kind, "junk", rate=0.3, messages=600)
    assert row["faults"] >= 3 and row["lost"] == 0


def test_junk_never_replaces_the_summary_even_without_a_fallback():
    junk = "I'm sorry, I can't help with that."
    memory = RobustSummaryMemory(ScriptedLLM([junk] * 50), 60, 2, measure=count_words)
    for role, text in shopping_chat(14):
        memory.add(role, text)
    context = memory.context()
    assert all(fact in context for fact in PLANTED_FACTS.values())
    assert junk not in memory.summary


def test_the_lesson_core_has_no_fact_check_and_loses_the_facts():
    junk = "I'm sorry, I can't help with that."
    memory = SummaryMemory(ScriptedLLM([junk] * 50), 60, 2, measure=count_words)
    for role, text in shopping_chat(14):
        memory.add(role, text)
    assert memory.summary == junk and "88412" not in memory.context()


def test_the_fact_check_can_be_switched_off():
    junk = "I'm sorry, I can't help with that."
    memory = RobustSummaryMemory(ScriptedLLM([junk] * 50), 60, 2, measure=count_words,
                                 fact_check=False)
    for role, text in shopping_chat(14):
        memory.add(role, text)
    assert memory.summary == junk


def test_facts_are_numbers_ids_and_names_not_sentence_openers():
    assert facts_in("Hi, my order ORD-1234 for the Zenbook is $1,299.50. Thanks Priya.") == {
        "ORD-1234", "1234", "1299.5", "ORD", "Zenbook", "Priya"}
    # list markers, Title Case headings and interjections are no facts; accents are letters
    assert facts_in("assistant: Steps:\n  1. open the lid\n  2. Call Ravi at 10:30") == {
        "10", "30", "Ravi"}
    assert facts_in("Here Is What I Found: Great, Sure, José paid 1,299.50 in München.") == {
        "José", "1299.5", "München"}
    assert missing_facts(["paid $1,299.50"], "paid 1299.5 dollars") == ([], 1)
    missing, needed = missing_facts(["user: order 88412 from Pune"], "Order 88412, from pune.")
    assert (missing, needed) == (["Pune"], 2)


def test_a_reply_about_something_else_is_rejected_when_the_turns_hold_no_fact():
    junk = "I'm sorry, I can't help with that. Is there anything else you would like to know?"
    memory = RobustSummaryMemory(ScriptedLLM([junk] * 10), 20, 2, measure=count_words,
                                 summary_cap=15)
    chat = [("user", "please remember that i am allergic to peanuts and i am vegan"),
            ("assistant", "understood, no peanuts and vegan only"),
            ("user", "also my budget is tight, keep it cheap"),
            ("assistant", "noted, cheap options only")]
    for role, text in chat:
        memory.add(role, text)
    assert memory.compactions and junk not in memory.summary
    assert "peanuts" in memory.summary


def test_a_shortened_summary_that_loses_the_facts_is_not_used():
    from kit.prompts import SHORTEN_PROMPT

    def model(prompt):
        if prompt.startswith(SHORTEN_PROMPT):
            return "The user is shopping."
        return fact_listing_summariser(prompt) + " " + "More detail. " * 30

    memory = RobustSummaryMemory(model, 60, 2, measure=count_words)
    for role, text in shopping_chat(10):
        memory.add(role, text)
    assert "88412" in memory.summary
    assert any("re-summarising failed (LostFacts" in e.note for e in memory.trace)


@pytest.mark.parametrize("reply", ["...", "\u200b", "\x00", "\ud83d summary"])
def test_an_empty_looking_or_broken_summary_is_refused(reply):
    memory = RobustSummaryMemory(ScriptedLLM([reply] * 5), 30, 2, measure=count_words,
                                 fallback=fact_listing_summariser)
    for role, text in shopping_chat(8):
        memory.add(role, text)
    assert memory.compactions and reply not in memory.summary
    assert all(e.summariser == "fallback" for e in memory.trace if e.compacted)


# -- the default summary cap ---------------------------------------------------------------
def test_by_default_the_summary_alone_never_overflows_the_budget():
    long = " ".join(["word"] * 500)
    memory = RobustSummaryMemory(ScriptedLLM([long] * 40), 100, 2, measure=count_words,
                                 fact_check=False)
    for role, text in shopping_chat(30):
        memory.add(role, text)
        assert memory.summary_tokens <= 100 - sum(m.tokens for m in memory.turns) or (
            not memory.trace[-1].compacted)
    assert memory.summary_cap == "auto"


def _never_shortens(prompt: str) -> str:
    """A summariser that keeps every word it is given: the old summary and each new turn."""
    summary, turns = parse_summary_prompt(prompt)
    return " ".join([summary, *turns]).strip()


def _ten_words(n: int) -> list[tuple[str, str]]:
    return [("user" if i % 2 == 0 else "assistant",
             " ".join(f"w{i}x{j}" for j in range(10))) for i in range(n)]


@pytest.mark.parametrize("budget, keep_recent", [(60, 0), (60, 2), (100, 4)])
def test_the_default_cap_leaves_room_for_the_turns_the_split_keeps(budget, keep_recent):
    """A field case: budget 60 words, 10-word turns, a summariser that never shortens. A cap
    of three quarters of the room (45 words) plus the up to keep_recent + 1 turns the split
    keeps (a reply keeps its question) stayed over budget after every add; the cap now
    leaves room for the turns that stay and the next message, so once the backlog is
    folded the memory is within budget after every add."""
    memory = RobustSummaryMemory(_never_shortens, budget, keep_recent, measure=count_words,
                                 fact_check=False)
    for number, (role, text) in enumerate(_ten_words(40), start=1):
        memory.add(role, text)
        if memory.compactions:
            assert memory.size <= budget, (number, memory.size, memory.summary_tokens)
    assert memory.compactions >= 10


def test_a_cap_given_as_a_number_is_kept_and_auto_falls_back_where_the_turns_fill_the_room():
    fixed = RobustSummaryMemory(_never_shortens, 60, 2, measure=count_words, summary_cap=20)
    assert fixed.current_cap() == 20
    memory = RobustSummaryMemory(_never_shortens, 60, 2, measure=count_words)
    assert memory.current_cap() == 60                    # no turns: the whole room

    def add(role, words, number):
        memory.turns.append(make_message(role, " ".join(["x"] * words), count_words, number))
        memory.turn_tokens += words

    add("user", 10, 1), add("assistant", 10, 2), add("user", 10, 3)
    assert memory.current_cap() == 60 - 30               # a2 u3 kept, a2 with its question u1;
    add("assistant", 10, 4), add("user", 10, 5)          # a next reply would free u1 a2: no reserve
    assert memory.current_cap() == 60 - 30               # a4 u5 kept, a4 with u3
    add("assistant", 10, 6)                              # u5 a6 kept; a next question u7 keeps
    assert memory.current_cap() == 60 - 20 - 10          # them all: room for one more question
    add("user", 10, 7), add("assistant", 25, 8)          # u7 a8 kept: 35 words, and room for a
    assert memory.current_cap() == 60 - 35 - 10          # question as large as u7
    add("user", 20, 9), add("assistant", 30, 10)         # u9 a10 kept: 50 words, no room to
    assert memory.current_cap() == 60 - 50               # reserve 20 more: the reserve is dropped
    add("user", 10, 11), add("assistant", 50, 12)        # u11 a12 kept: 60 words, no room at all
    assert memory.current_cap() == 45                    # three quarters: keep_recent wins


# -- one model call in flight ----------------------------------------------------------------
def test_a_hung_summariser_costs_one_thread_not_one_per_compaction():
    release = threading.Event()

    def hung(prompt: str) -> str:
        release.wait()
        return "never"

    # the timeout also bounds each fallback call: 0.5 s, so a busy machine never makes the
    # quick fallback miss it; the hung model costs one wait (then its slot stays busy)
    memory = RobustSummaryMemory(hung, 60, 2, measure=count_words, timeout=0.5,
                                 fallback=fact_listing_summariser)
    before = threading.active_count()
    try:
        for role, text in shopping_chat(200):
            memory.add(role, text)
        assert memory.compactions > 20
        assert threading.active_count() - before <= 1
    finally:
        release.set()


def test_a_call_that_answered_frees_its_slot_while_its_thread_is_still_exiting():
    """Python 3.13 keeps a worker thread alive a little longer after its target returns;
    a call that has answered must not count as running. The thread is held here, after
    the answer is handed over, until the next compaction has run."""
    finished, exiting = threading.Event(), threading.Event()

    def hold_after_answer(frame, event, arg):
        if event == "return" and frame.f_code.co_name == "work":
            exiting.set()
            finished.wait(5)

    memory = RobustSummaryMemory(fact_listing_summariser, 60, 2, measure=count_words,
                                 timeout=5)
    threading.setprofile(hold_after_answer)
    try:
        turns = iter(shopping_chat(40))
        while memory.compactions == 0:
            memory.add(*next(turns))
        assert exiting.wait(5)                  # the first call's thread has not exited
        threading.setprofile(None)
        assert len(memory.slots) == 0
        first = memory.compactions
        while memory.compactions == first:      # the next compaction calls the model again
            memory.add(*next(turns))
        assert [e.summariser for e in memory.trace if e.action == "compacted"] == ["model"] * 2
    finally:
        threading.setprofile(None)
        finished.set()


# -- the live question is never evicted by a memory with keep_recent >= 1 ------------------
def _tool_loop(memory) -> None:
    memory.add("user", "Find me a laptop under Rs 60000.")
    for i in range(6):                              # a tool loop: replies, no question
        memory.add("assistant", f"Step {i}: " + " ".join(["result"] * 25))


@pytest.mark.parametrize("make", [
    lambda: SummaryMemory(fact_listing_summariser, 60, 2, measure=count_words),
    lambda: RobustSummaryMemory(fact_listing_summariser, 60, 2, measure=count_words),
    lambda: RecallMemory(60, measure=count_words, keep_recent=1, recent=30),
    lambda: RecallMemory(60, measure=count_words, keep_recent=2, recent=30,
                         summariser=fact_listing_summariser),
], ids=["core", "production", "recall", "recall with summary"])
def test_the_newest_user_message_stays_through_a_tool_loop(make):
    memory = make()
    memory.add("user", "Hi.")
    memory.add("assistant", "Hello!")
    _tool_loop(memory)
    assert [m.content for m in memory.turns if m.role == "user"] == [
        "Find me a laptop under Rs 60000."]
    assert "Find me a laptop under Rs 60000." in memory.context()


def test_a_background_summariser_cannot_add_to_its_own_memory():
    from kit.memory import BackgroundSummaryMemory
    errors = []

    def summariser(prompt):
        try:
            memory.add("user", "sneaky")
        except RuntimeError as exc:
            errors.append(str(exc))
        return fact_listing_summariser(prompt)

    memory = BackgroundSummaryMemory(summariser, 30, 2, measure=count_words)
    for role, text in shopping_chat(10):
        memory.add(role, text)
    memory.flush()
    assert errors and "own background compaction" in errors[0]
    assert memory.added == 10


# -- the chatbot's history never opens with an orphaned reply ---------------------------------
def test_the_history_a_chatbot_hands_on_never_opens_with_an_orphaned_reply():
    memory = TokenWindow(30, measure=count_words)
    memory.add("user", "What is the delivery time?")
    memory.add("assistant", " ".join(["Delivery"] + ["takes"] * 24))
    memory.add("assistant", "Anything else I can do?")
    assert memory.turns[0].role == "assistant" and memory.turns[0].number > 1
    history = _history(memory)
    assert not history.startswith("assistant:")
    assert history == ""                     # no user message left: nothing to hand on


def test_a_reply_too_big_for_a_billed_memory_changes_nothing():
    from kit.rag.chatbot import Chatbot
    from kit.rag.documents import seed_chunks
    from kit.rag.retrieval import KeywordRetriever
    question = "How long do prepaid refunds take?"
    reply = "Prepaid refunds take 5 working days [1]. " + "Really. " * 20
    budget = 1 + max(cl100k_tokens(question), cl100k_tokens(reply.replace("[1]", "[c1]"))) + 3
    bot = Chatbot(KeywordRetriever(seed_chunks(), min_len=4), lambda system, user: reply,
                  memory_factory=lambda: TokenWindow(budget, count="billed"), rewrite=False)
    with pytest.raises(ValueError, match="nothing was saved"):
        bot.ask("s", question)
    assert bot.memory("s").turns == []


def test_an_opening_greeting_stays_in_the_history():
    memory = TokenWindow(30, measure=count_words)
    memory.add("assistant", "Hello! How can I help?")
    assert _history(memory) == "assistant: Hello! How can I help?"


def test_two_threads_never_both_start_a_call_of_one_hung_model():
    """Claiming a model's slot is one step: of two compactions that reach a hung model at
    the same moment, one starts the call and the other is refused at once."""
    from kit.memory.compaction import CallSlots, call_model
    entered, release, start = [], threading.Event(), threading.Barrier(2)

    def hung(prompt):
        entered.append(prompt)
        release.wait(10)
        return "late"

    slots, outcomes = CallSlots(), []

    def compact(name):
        start.wait()
        try:
            outcomes.append(call_model(hung, name, 0.2, slots))
        except TimeoutError as error:
            outcomes.append(str(error))

    threads = [threading.Thread(target=compact, args=(n,)) for n in ("a", "b")]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert len(entered) == 1 and len(slots) == 1
        assert sorted(o.split(";")[0] for o in outcomes) == [
            "the summariser did not answer within 0.2 s",
            "the summariser is still running a call that timed out"]
    finally:
        release.set()


def test_a_call_whose_thread_could_not_start_frees_its_slot(monkeypatch):
    from kit.memory.compaction import CallSlots, call_model
    slots = CallSlots()

    def refuse(self):
        raise RuntimeError("can't start new thread")

    with monkeypatch.context() as patch:
        patch.setattr(threading.Thread, "start", refuse)
        with pytest.raises(RuntimeError, match="can't start new thread"):
            call_model(str.upper, "a", 1, slots)
    assert not slots.busy(str.upper) and call_model(str.upper, "b", 5, slots) == "B"


def test_the_default_cap_is_at_least_one_unit():
    memory = RobustSummaryMemory(_never_shortens, 10, 2, measure=count_words,
                                 system=" ".join(["rule"] * 9))
    assert memory.current_cap() == 1
