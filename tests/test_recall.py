"""kit.memory.recall: recent turns plus older turns recalled from the transcript."""
import math
import re

import pytest

from kit.llm import FailingLLM, fact_listing_summariser
from kit.locomo import LongConversation, LongTurn, Question
from kit.memory import (CompactionError, RecallMemory, RecallSearch, TurnIndex, light_stem,
                        recall_tokenize)
from kit.memory.recall import RECALLED_TITLE, RECENT_TITLE
from kit.memory.recall_plan import date_line
from kit.memory_eval import evaluate
from kit.persistence import attach_store, restore
from kit.store import TranscriptStore
from kit.tokens import CallCounter, count_words

FACT = "My locker code at the climbing gym is 4417."
TOPICS = ["weather", "coffee", "traffic", "movies", "gardening", "football", "bread",
          "trains", "music", "laundry", "podcasts", "puzzles", "soup", "bicycles"]


def bare(**options) -> TurnIndex:
    """BM25 over the text alone: no speaker, session date or resolved time indexed."""
    return TurnIndex(index_speaker=False, index_date=False, resolve_dates=False, **options)


def direct(index: TurnIndex | None = None) -> RecallSearch:
    """The direct search alone: no two-stage search, query split, neighbours or
    embedding model (these tests pin the BM25 path)."""
    return RecallSearch(index, sessions=0, split=False, neighbours=False, embedder=None)


def date(session: int) -> str:
    return f"10:00 am on {session} March, 2023"


def chat(n: int = 320) -> list[tuple[str, str, str, str]]:
    """``n`` turns of (role, speaker, text, when): the fact at turn 1, then small talk,
    ten turns a session. Deterministic."""
    turns = [("user", "Ann", FACT, date(1))]
    for i in range(2, n + 1):
        role, speaker = ("user", "Ann") if i % 2 else ("assistant", "Bob")
        topic, other = TOPICS[i % len(TOPICS)], TOPICS[(i * 5) % len(TOPICS)]
        turns.append((role, speaker, f"Turn {i}: some thoughts on {topic} and {other} today.",
                      date(1 + (i - 1) // 10)))
    return turns


def fill(memory, turns):
    for role, speaker, text, when in turns:
        memory.add(role, text, speaker=speaker, when=when)
    return memory


def recalled_block(context: str) -> list[str]:
    block = next(b for b in context.split("\n\n") if b.startswith(RECALLED_TITLE))
    return block.splitlines()[1:]


# -- the fact from 300 turns ago --------------------------------------------------------
def test_a_fact_stated_once_300_turns_ago_comes_back():
    memory = fill(RecallMemory(200, measure=count_words), chat(320))
    assert memory.added == 320 and memory.turns[0].number > 300     # far out of the window
    assert FACT not in memory.context("")                          # nothing asked, nothing recalled
    context = memory.context("What is Ann's locker code at the gym?")
    assert recalled_block(context)[:2] == ["[1 March, 2023]", f"Ann: {FACT}"]   # the day
    assert memory.context_numbers("What is Ann's locker code at the gym?")[0] == 1


def test_without_a_query_the_newest_user_message_is_the_query():
    memory = fill(RecallMemory(200, measure=count_words), chat(320))
    memory.add("user", "Remind me, what was my locker code?", speaker="Ann", when=date(40))
    assert f"Ann: {FACT}" in recalled_block(memory.context())
    assert memory.plan().query == "Remind me, what was my locker code?"
    assert memory.allocation().given("question") == ()              # already a recent turn


# -- the shape of the context -----------------------------------------------------------
QUERIES = ["What is Ann's locker code?", "What did Bob say about soup and bread?",
           "trains", "Tell me about football, music and podcasts", "nothing matches zzz"]


@pytest.mark.parametrize("budget", [60, 120, 300])
@pytest.mark.parametrize("query", QUERIES)
def test_speaker_and_date_on_every_line_in_time_order(budget, query):
    turns = chat(200)
    memory = fill(RecallMemory(budget, measure=count_words), turns)
    context = memory.context(query)
    numbers = memory.context_numbers(query)
    assert list(numbers) == sorted(numbers)                         # time order
    # context_numbers matches the text: rebuild the text from the numbers
    lines = [line for line in context.splitlines()
             if line and line not in (RECALLED_TITLE, RECENT_TITLE) and not line.startswith("[")]
    expected = [f"{turns[n - 1][1]}: {turns[n - 1][2]}" for n in numbers]
    assert lines == expected
    # every turn line sits under the date line of its own session
    current = None
    for line in context.splitlines():
        if line.startswith("["):
            current = line[1:-1]
        elif line and line not in (RECALLED_TITLE, RECENT_TITLE):
            number = int(re.search(r"Turn (\d+):", line).group(1)) if "Turn" in line else 1
            assert f"[{current}]" == date_line(turns[number - 1][3])    # "[1 March 2023]"
            assert line.split(":")[0] in ("Ann", "Bob")


@pytest.mark.parametrize("budget, keep_recent, recent, reserve", [
    (40, 2, 10, 0), (80, 0, 0, 5), (150, 4, 60, 20), (500, 2, None, 0), (25, 6, 25, 0)])
def test_the_budget_is_never_exceeded_unless_the_protected_parts_are(budget, keep_recent,
                                                                     recent, reserve):
    memory = RecallMemory(budget, measure=count_words, keep_recent=keep_recent, recent=recent,
                          reserve=reserve)
    for k, (role, speaker, text, when) in enumerate(chat(150)):
        memory.add(role, text, speaker=speaker, when=when)
        if k % 7:
            continue
        for query in QUERIES + [None]:
            a = memory.allocation(query)
            asked = count_words(query) if query is not None else 0
            used = count_words(memory.context(query)) + asked + reserve
            assert used == a.total                                   # each piece measured once
            assert used <= budget or a.over_budget


def test_protected_parts_over_the_budget_are_reported():
    memory = fill(RecallMemory(10, measure=count_words, keep_recent=2, recent=10), chat(20))
    a = memory.allocation("What is the locker code?")
    assert a.over_budget and a.note.startswith("over budget: the protected parts alone need")
    assert memory.recalled("What is the locker code?") == []
    assert len(memory.context_numbers("What is the locker code?")) == 2    # keep_recent wins


def test_the_allocation_table_says_what_was_cut():
    memory = fill(RecallMemory(120, measure=count_words), chat(100))
    table = memory.allocation("soup and bread").table()
    assert table.column("part") == ["question", "recalled", "recent"]
    question, recalled, recent = table.rows
    assert question[1:4] == [3, 3, 0] and question[4].startswith("protected")
    # the recalled turns may use what the question and the recent window leave
    assert recalled[2] <= 120 - 3 - recent[2] and recalled[3] > 0
    assert recalled[4] == (f"{recalled[3]} of {len(memory.index.search('soup and bread', memory.turns[0].number))} "
                           f"cut (best match first): over the part's cap of {120 - 3 - recent[1]}")
    assert recent[1] == recent[2] and table.title.endswith(f"{recalled[3]} items cut")


# -- counting once, incrementally ------------------------------------------------------
def test_each_turn_is_measured_and_tokenised_once():
    counter = CallCounter(count_words)
    memory = fill(RecallMemory(200, measure=counter, search=direct()), chat(120))
    assert counter.calls == 2 * 120                       # each text, and each line as sent
    assert memory.index.tokenized == 120
    for query in QUERIES:
        memory.context(query)
    asked = counter.calls - 240 - len(QUERIES)             # beyond the turns and the queries
    assert 0 < asked <= 2 + 12 + 1                         # 2 titles, 12 date lines, "\n"
    for query in QUERIES:                                  # again: only the queries are measured
        before = counter.calls
        memory.context(query)
        memory.context_numbers(query)                      # the same plan, not searched again
        assert counter.calls == before + 1
    assert memory.index.tokenized == 120 + len(QUERIES)    # asked again: the scores are kept
    memory.add("user", "One more turn about trains")           # an add clears them
    memory.context("trains")
    assert memory.index.tokenized == 121 + len(QUERIES) + 1


# -- summary ---------------------------------------------------------------------------
def test_with_a_summariser_the_turns_leaving_the_window_are_folded():
    memory = fill(RecallMemory(300, measure=count_words, recent=60,
                               summariser=fact_listing_summariser), chat(60))
    assert memory.compactions >= 1 and "Summary of earlier conversation:" in memory.context("x")
    block = f"Summary of earlier conversation:\n{memory.summary}"
    assert memory.allocation("x").part("summary").tokens == count_words(block)
    assert f"Ann: {FACT}" in recalled_block(memory.context("the locker code"))


def test_a_failing_summariser_keeps_every_turn():
    memory = fill(RecallMemory(300, measure=count_words, recent=40,
                               summariser=FailingLLM()), chat(3))
    before = list(memory.turns)
    with pytest.raises(CompactionError):
        fill(memory, chat(12)[3:])
    assert memory.turns[:len(before)] == before and memory.summary == ""
    assert memory.trace[-1].action == "failed" and memory.compactions == 0


# -- the transcript store -----------------------------------------------------------------
def test_restart_round_trip_with_the_store(tmp_path):
    path, query = tmp_path / "chat.db", "What is Ann's locker code?"
    with TranscriptStore(path) as store:
        memory = attach_store(RecallMemory(150, measure=count_words), store, "ann")
        fill(memory, chat(90))
        assert memory.archive == {}                     # old turns are read from the store
        context, numbers = memory.context(query), memory.context_numbers(query)
        assert f"Ann: {FACT}" in context
    with TranscriptStore(path) as store:
        again = restore(RecallMemory(150, measure=count_words), store, "ann")
        assert (again.context(query), again.context_numbers(query)) == (context, numbers)
        assert len(again.index) == 90 and again.added == 90
        assert store.pick("ann", [1])[0].speaker == "Ann"
        fill(again, chat(92)[90:])                      # and it goes on
        assert store.count("ann") == 92


def test_the_same_context_with_or_without_a_store():
    with TranscriptStore() as store:
        stored = fill(attach_store(RecallMemory(150, measure=count_words), store, "s"), chat(80))
        own = fill(RecallMemory(150, measure=count_words), chat(80))
        for query in QUERIES:
            assert stored.context(query) == own.context(query)


# -- retrieval details ------------------------------------------------------------------
def test_light_stem_and_tokenizer():
    assert {light_stem(w) for w in ("painted", "painting", "paints", "paint")} == {"paint"}
    assert [light_stem(w) for w in ("camped", "running", "stories", "boxes", "fall", "2023")] == [
        "camp", "run", "story", "box", "fall", "2023"]
    assert recall_tokenize("What has Melanie painted?") == ["melanie", "paint"]


def test_a_hit_lends_score_to_its_neighbours_and_a_named_speaker_is_boosted():
    turns = [(1, "Where did you go camping?", "Bob"), (2, "At the beach, lovely.", "Ann"),
             (3, "I camped once too.", "Bob"), (4, "Nice weather today", "Ann")]
    plain, index = bare(spread=(0, 0), speaker_boost=0), bare(spread=(0.25, 0.5),
                                                              speaker_boost=0.5)
    plain.extend(turns)
    index.extend(turns)
    raw, scores = plain.scores("camping"), index.scores("camping")
    assert set(raw) == {1, 3}                                  # "camping", "camped" meet
    assert scores == pytest.approx({1: raw[1], 2: 0.5 * raw[1] + 0.25 * raw[3], 3: raw[3],
                                    4: 0.5 * raw[3]})
    boosted = index.scores("camping for Ann?")                 # Ann's turns * 1.5
    assert boosted == pytest.approx({1: raw[1], 2: 1.5 * scores[2], 3: raw[3],
                                     4: 1.5 * scores[4]})
    with pytest.raises(ValueError, match="increasing ints; got 4 after 4"):
        index.add(4, "again", "Ann")


HOBBY = [(1, "My new hobby is pottery.", "Ann"), (2, "Cool.", "Bob"),
         (3, "I made a clay bowl at the pottery studio.", "Ann"), (4, "Weather is grey.", "Bob"),
         (5, "The studio kiln fired my clay vase.", "Ann"), (6, "Traffic was bad.", "Bob")]


def bo1(mean: float, tf: int = 1) -> float:
    """Bo1's weight of a term seen ``tf`` times in the feedback turns, ``mean`` times per turn."""
    return tf * math.log2((1 + mean) / mean) + math.log2(1 + mean)


def test_feedback_adds_the_most_informative_words_of_the_best_turns():
    question = "What hobby does Ann have?"                     # terms: hobby, ann
    off, index, one = (bare(spread=(0, 0), speaker_boost=0, feedback=f)
                       for f in ((0, 0), (3, 10), (3, 1)))
    for i in (off, index, one):
        i.extend(HOBBY)
    assert off.query_weights(question) == {"hobby": 1.0, "ann": 1.0}
    assert set(off.scores(question)) == {1}
    # only turn 1 matches, so it is the feedback: new, hobby (1 of 6 turns each), pottery
    # (2 of 6); new and hobby tie at the top, so pottery gets bo1(2/6) / bo1(1/6) = 0.80
    assert index.query_weights(question) == pytest.approx(
        {"hobby": 1 + 1, "ann": 1, "new": 1, "pottery": bo1(2 / 6) / bo1(1 / 6)})
    assert set(index.scores(question)) == {1, 3}               # turn 3 has no word of the question
    assert one.query_weights(question) == {"hobby": 2.0, "ann": 1.0}   # ties: alphabetical
    assert index.tokenized == len(HOBBY) + 2                   # a query is tokenised once
    assert (index.like().feedback, len(index.like())) == ((3, 10), 0)
    for bad in ((3,), (-1, 10), (3, 1.5), [3, 10], (True, 10)):
        with pytest.raises(ValueError, match=re.escape(f"feedback must be a pair of ints >= 0 "
                                                       f"(turns, terms), got {bad!r}")):
            TurnIndex(feedback=bad)


def test_with_feedback_recall_memory_brings_back_a_turn_without_the_questions_words():
    def numbers(index):
        # keep_recent=0: with 1, Ann's turn 5 (the newest user message) would stay verbatim
        memory = RecallMemory(40, measure=count_words, keep_recent=0, recent=4,
                              search=direct(index))
        for number, text, speaker in HOBBY:
            memory.add(("user", "assistant")[speaker == "Bob"], text, speaker=speaker)
        return memory.context_numbers("What hobby does Ann have?")
    # 40 words hold the question (5), the recent turn 6 (4), the title (5) and up to 26
    # words of recalled lines: room for turns 1-4 (6 + 2 + 10 + 4), so what is missing
    # was not found. Turn 2 and turn 4 are the replies after a hit (spread).
    assert numbers(bare(feedback=(0, 0))) == (1, 2, 6)
    assert numbers(bare()) == (1, 2, 3, 4, 6)


def test_fuse_recent_uses_the_recent_turns_too():
    turns = chat(100) + [("user", "Ann", "Let us talk about the climbing gym again.", date(11)),
                         ("assistant", "Bob", "Sure, what about it?", date(11)),
                         ("user", "Ann", "What was the number?", date(11))]
    plain = fill(RecallMemory(120, measure=count_words, keep_recent=4, search=direct(bare())),
                 turns)
    fused = fill(RecallMemory(120, measure=count_words, keep_recent=4, fuse_recent=True,
                              search=direct(bare())), turns)
    assert 1 not in plain.context_numbers() and 1 in fused.context_numbers()


def test_the_evaluator_checks_it_by_number():
    turns = tuple(LongTurn(f"D{1 + (i - 1) // 10}:{1 + (i - 1) % 10}", s, text, 1 + (i - 1) // 10, w)
                  for i, (_, s, text, w) in enumerate(chat(120), start=1))
    conv = LongConversation("lockers", ("Ann", "Bob"), turns,
                            (Question("What is Ann's locker code?", "4417", ("D1:1",), 4),),
                            {s: date(s) for s in range(1, 13)})
    run = evaluate(conv, lambda m: RecallMemory(100, measure=m), measure=count_words)
    assert (run.rule, run.rendering) == ("numbers", "keywords")
    assert run.results[0].found == ("D1:1",) and run.results[0].answer_present


@pytest.mark.parametrize("kwargs, error, message", [
    ({"budget": 0}, ValueError, "budget must be >= 1, got 0"),
    ({"keep_recent": -1}, ValueError, "keep_recent must be >= 0, got -1"),
    ({"recent": 300}, ValueError, "recent must be <= budget"),
    ({"reserve": 200}, ValueError, "reserve must be < budget"),
    ({"summariser": "model"}, TypeError, "summariser must be callable"),
    ({"summary_cap": 500}, ValueError, "summary_cap must be < budget"),
    ({"fuse_recent": 1}, TypeError, "fuse_recent must be True or False"),
    ({"system": "x " * 200}, ValueError, "leave no room"),
])
def test_bad_arguments_are_named(kwargs, error, message):
    with pytest.raises(error, match=message):
        RecallMemory(**{"budget": 200, "measure": count_words, **kwargs})


def test_a_bad_query_is_named():
    memory = fill(RecallMemory(100, measure=count_words), chat(5))
    with pytest.raises(TypeError, match="query must be a str or None, got int"):
        memory.context(5)
