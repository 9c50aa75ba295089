"""kit.memory.background: compaction on a worker thread, gated by threading.Event
(no sleeps, no timing asserts: a gate's wait has a generous limit only so that a bug
fails the test instead of hanging it)."""
import asyncio
import threading

import pytest

from kit.llm import fact_listing_summariser
from kit.memory import CompactionError, SummaryMemory
from kit.memory.background import BACKGROUND_ROLE, BackgroundSummaryMemory
from kit.persistence import attach_store, restore
from kit.prompts import parse_summary_prompt
from kit.store import TranscriptStore
from kit.tokens import count_words


def options_only(summariser, *args, **options):
    """The production memory with its safe defaults (a summary cap, the fact check)
    switched off: these tests are about one option each."""
    options.setdefault("summary_cap", None)
    options.setdefault("fact_check", False)
    return BackgroundSummaryMemory(summariser, *args, **options)


LIMIT = 30   # seconds; never reached unless the code under test is broken
TURNS = [("user", f"question {i} order {88400 + i}") if i % 2 else
         ("assistant", f"answer {i} amount {i * 100}") for i in range(1, 21)]   # 4 words


class GatedSummariser:
    """The fact-listing stub behind gates: each call announces itself on ``entered``
    and waits for ``release``. Counts calls and how many run at once."""

    def __init__(self, fail_on=()):
        self.entered, self.release = threading.Event(), threading.Event()
        self.fail_on, self.calls, self.active, self.max_active = set(fail_on), 0, 0, 0
        self.prompts = []
        self._lock = threading.Lock()

    def __call__(self, prompt):
        with self._lock:
            self.calls += 1
            call = self.calls
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            self.prompts.append(prompt)
        try:
            self.entered.set()
            assert self.release.wait(LIMIT), "the test never released the summariser"
            if call in self.fail_on:
                raise TimeoutError(f"summariser timed out on call {call}")
            return fact_listing_summariser(prompt)
        finally:
            with self._lock:
                self.active -= 1


def make(summariser, **kwargs):
    kwargs = {"budget": 12, "keep_recent": 2, "measure": count_words, **kwargs}
    return options_only(summariser, **kwargs)


def workers(memory):
    return [t for t in threading.enumerate()
            if t.name == f"kit-compaction-{id(memory):x}" and t.is_alive()]


def folded(memory):
    return [n for e in memory.trace if e.compacted for n in e.moved]


def assert_every_turn_once(memory, turns):
    """Each message is either folded (and its text is in the summary) or verbatim,
    never both, never neither; the summary holds exactly the folded texts."""
    gone, kept = folded(memory), [m.number for m in memory.turns]
    assert sorted(gone + kept) == list(range(1, len(turns) + 1))
    assert memory.summary == "; ".join(turns[n - 1][1] for n in gone)
    assert [m.content for m in memory.turns] == [turns[n - 1][1] for n in kept]
    for _, text in turns:
        assert memory.context().count(text) == 1, text


def test_add_returns_before_the_summariser_and_later_turns_are_kept():
    model = GatedSummariser()
    memory = make(model)
    for role, text in TURNS[:4]:                       # 4 words each: over 12 at message 4
        memory.add(role, text)
    assert model.entered.wait(LIMIT)
    assert memory.pending and memory.summary == "" and len(memory) == 4
    assert memory.trace[-1].note == "over budget: compaction started in the background"
    for role, text in TURNS[4:10]:                     # added while the model is blocked
        event = memory.add(role, text)
        assert event.note == "over budget: the running background compaction will plan again"
    assert len(memory) == 10 and model.calls == 1 and len(workers(memory)) == 1
    model.release.set()
    assert memory.wait(LIMIT) and not memory.pending and workers(memory) == []
    assert_every_turn_once(memory, TURNS[:10])
    # the first call saw only the planned turns 1-2, not what arrived meanwhile
    assert parse_summary_prompt(model.prompts[0])[1] == [TURNS[0][1], TURNS[1][1]]
    assert model.max_active == 1 and memory.last_error is None
    assert folded(memory)[:2] == [1, 2] and memory.compactions == model.calls >= 2
    background = [e for e in memory.trace if e.role == BACKGROUND_ROLE]
    assert [e.compacted for e in background] == [True] * model.calls
    assert {e.trigger for e in background} == {"over budget"}
    assert background[0].note.startswith("background compaction: turns 1-2 folded")


def test_same_result_as_the_synchronous_memory_when_waited_for():
    model = GatedSummariser()
    model.release.set()
    memory, reference = make(model), SummaryMemory(fact_listing_summariser, budget=12,
                                                   keep_recent=2, measure=count_words)
    for role, text in TURNS:
        memory.add(role, text)
        memory.wait()
        reference.add(role, text)
    assert (memory.context(), memory.size, memory.turns, memory.summary) == \
        (reference.context(), reference.size, reference.turns, reference.summary)


def test_at_most_one_compaction_runs_per_memory():
    model = GatedSummariser()
    memory = make(model, budget=6)
    for role, text in TURNS:                           # every add is over budget
        memory.add(role, text)
        assert len(workers(memory)) <= 1 and model.active <= 1
    assert model.entered.wait(LIMIT) and model.calls == 1   # the one worker is blocked
    model.release.set()
    memory.wait(LIMIT)
    assert model.max_active == 1
    assert_every_turn_once(memory, TURNS)


def test_a_failing_background_compaction_loses_nothing_and_the_next_add_retries():
    model = GatedSummariser(fail_on={1})
    model.release.set()
    memory = make(model)
    for role, text in TURNS[:4]:
        memory.add(role, text)
    assert memory.wait(LIMIT)
    assert isinstance(memory.last_error, TimeoutError) and memory.summary == ""
    assert [m.content for m in memory.turns] == [t for _, t in TURNS[:4]]
    failed = memory.trace[-1]
    assert failed.action == "failed" and failed.role == BACKGROUND_ROLE
    assert "turns 1-2 failed (TimeoutError: summariser timed out on call 1)" in failed.note
    with pytest.raises(CompactionError, match="every turn was kept") as error:
        memory.flush()
    assert error.value.event is failed and error.value.__cause__ is memory.last_error
    memory.add(*TURNS[4])                              # the next add retries
    memory.flush()
    assert memory.last_error is None and model.calls == 2
    assert parse_summary_prompt(model.prompts[1])[1] == [t for _, t in TURNS[:2]]
    assert_every_turn_once(memory, TURNS[:5])


def test_compact_in_background_and_async_retry_after_a_failure():
    model = GatedSummariser(fail_on={1})
    model.release.set()
    memory = make(model)
    for role, text in TURNS[:4]:
        memory.add(role, text)
    memory.wait(LIMIT)
    assert memory.last_error is not None
    asyncio.run(memory.compact_async())
    assert memory.last_error is None and folded(memory) == [1, 2]
    assert memory.compact_in_background() is False      # nothing due any more
    assert_every_turn_once(memory, TURNS[:4])


def test_adds_from_several_threads_all_arrive_once():
    model = GatedSummariser()
    model.release.set()
    memory = make(model, budget=20)
    texts = [[f"t{k}x{i} word" for i in range(30)] for k in range(3)]

    def talk(k):
        for text in texts[k]:
            memory.add("user", text)

    threads = [threading.Thread(target=talk, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    memory.flush()
    assert memory.added == 90 and model.max_active == 1
    for text in (t for group in texts for t in group):
        assert memory.context().count(text) == 1, text
    assert sorted(folded(memory) + [m.number for m in memory.turns]) == list(range(1, 91))


def test_wait_from_inside_the_summariser_is_refused():
    seen = []

    def summariser(prompt):
        try:
            memory.wait()
        except RuntimeError as exc:
            seen.append(str(exc))
        return fact_listing_summariser(prompt)

    memory = make(summariser)
    for role, text in TURNS[:4]:
        memory.add(role, text)
    memory.flush()
    assert seen and "would wait forever" in seen[0]


def test_with_a_store_a_restart_mid_compaction_loses_nothing(tmp_path):
    path = tmp_path / "chat.db"
    model = GatedSummariser()
    with TranscriptStore(path) as store:
        memory = make(model)
        attach_store(memory, store, "s")
        for role, text in TURNS[:6]:
            memory.add(role, text)
        assert model.entered.wait(LIMIT) and memory.pending
        # the process "dies" now: a new store object and memory see every turn, verbatim
        with TranscriptStore(path) as other:
            crashed = restore(make(fact_listing_summariser), other, "s")
            assert crashed.summary == "" and crashed.added == 6
            assert [m.content for m in crashed.turns] == [t for _, t in TURNS[:6]]
        model.release.set()
        memory.flush()
        assert store.load_state("s")["summary"] == memory.summary != ""
        assert store.count("s") == memory.added == 6
    with TranscriptStore(path) as store:
        after = restore(make(fact_listing_summariser), store, "s")
        assert (after.context(), after.turns, after.summary, after.size, after.added) == \
            (memory.context(), memory.turns, memory.summary, memory.size, memory.added)


def test_speaker_and_date_pass_through_and_the_summary_keeps_who_said_it():
    model = GatedSummariser()
    model.release.set()
    memory = make(model)
    reference = SummaryMemory(fact_listing_summariser, budget=12, keep_recent=2,
                              measure=count_words)
    for i, (role, text) in enumerate(TURNS[:6]):
        speaker, when = ("Ann", "Bob")[i % 2], f"{i + 1} May, 2023"   # one-word date
        memory.add(role, text, speaker=speaker, when=when)
        memory.wait(LIMIT)
        reference.add(role, text, speaker=speaker, when=when)
    assert [(m.speaker, m.when) for m in memory.turns] == [("Ann", "5 May, 2023"),
                                                            ("Bob", "6 May, 2023")]
    # the folded turns reach the summariser with their speaker in the text
    assert memory.summary.startswith("Ann: question 1 order 88401; Bob: answer 2 amount 200")
    assert memory.context().endswith("Ann: question 5 order 88405\nBob: answer 6 amount 600")
    # query is taken and ignored, as by every memory that does not retrieve
    assert memory.context(query="order?") == memory.context() == reference.context()
    assert memory.messages(query="order?") == memory.messages() == reference.messages()
    assert memory.messages()[-1] == {"role": "assistant", "content": "Bob: answer 6 amount 600"}


def test_a_bad_speaker_is_refused_and_nothing_changes():
    memory = make(GatedSummariser())
    memory.add("user", "hello there", speaker="Ann")
    before = (list(memory.turns), memory.added, len(memory.trace))
    with pytest.raises(ValueError, match="speaker"):
        memory.add("assistant", "hi", speaker="Bob: forged")
    with pytest.raises(TypeError, match="when"):
        memory.add("assistant", "hi", when=3)
    assert (list(memory.turns), memory.added, len(memory.trace)) == before and not memory.pending


def test_the_evaluator_feeds_speakers_as_keywords():
    from kit.locomo import LongConversation, LongTurn, Question
    from kit.memory_eval import CachedMeasure, evaluate
    turns = (LongTurn("D1:1", "Ann", "I adopted a cat named Miso.", 1, "2 May, 2023"),
             LongTurn("D1:2", "Bob", "Lovely name!", 1, "2 May, 2023"))
    conv = LongConversation("pets", ("Ann", "Bob"), turns,
                            (Question("What is Ann's cat called?", "Miso", ("D1:1",), 4),),
                            {1: "2 May, 2023"})
    run = evaluate(conv, lambda m: make(GatedSummariser(), budget=50, measure=m),
                   measure=CachedMeasure(count_words))
    assert run.rendering == "keywords"
    assert [(q.found, q.answer_present) for q in run.results] == [(("D1:1",), True)]


def test_a_commit_still_over_budget_because_of_turns_added_meanwhile_says_so():
    entered, release = threading.Event(), threading.Event()

    def short(prompt):
        entered.set()
        assert release.wait(LIMIT), "the test never released the summariser"
        return "orders"

    memory = make(short)
    for role, text in TURNS[:4]:                       # 16 words > 12: the plan folds 1-2
        memory.add(role, text)
    assert entered.wait(LIMIT)
    for role, text in TURNS[4:8]:                      # arrive while the model runs
        memory.add(role, text)
    release.set()
    assert memory.wait(LIMIT)
    first = next(e for e in memory.trace if e.role == BACKGROUND_ROLE)
    # without 5-8 the commit fits: 1 word of summary + turns 3-4 (8 words) <= 12
    assert first.moved == (1, 2) and first.size_after > 12
    assert first.note == ("background compaction: turns 1-2 folded into the summary; still "
                          "over budget: messages 5-8 arrived while the summariser ran")


def test_wait_from_inside_a_summariser_run_with_a_timeout_is_refused_too():
    # with timeout= the model runs on its own thread, started by the worker: wait() must
    # still see that it would wait for itself (it used to block until the timeout)
    seen = []

    def summariser(prompt):
        try:
            seen.append(memory.wait(timeout=LIMIT))
        except RuntimeError as exc:
            seen.append(str(exc))
        return fact_listing_summariser(prompt)

    memory = make(summariser, timeout=LIMIT)
    for role, text in TURNS[:4]:
        memory.add(role, text)
    memory.flush()
    assert seen and "would wait forever" in seen[0]
    assert memory.last_error is None and memory.summary != ""
