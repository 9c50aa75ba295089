"""Unit tests of kit/hierarchical/: map-reduce summarization within a context window.

Every run is wrapped in :class:`Recorder`, which measures each prompt the summariser
receives with the run's own measure, so "no prompt is over the window" is checked on
what was actually sent, not on what the module reports.
"""
import random
import re
from itertools import chain

import pytest

import kit.hierarchical
from kit.hierarchical import (HIERARCHY_PROMPT, ITEMS_HEADER, SUMMARIES_HEADER, MemoryItem,
                              ShrinkingStub, Summary, WindowExceededError, build_batch_prompt,
                              first_sentence_summariser, hierarchical_summary,
                              pack_in_order, parse_batch_prompt, plan_batches, reduce_rounds,
                              reduce_until_fits, sample_items)
from kit.llm import CountingLLM, FailingLLM, ScriptedLLM
from kit.tokens import CallCounter, approx_tokens, cl100k_tokens, count_words, tiktoken_counter

SEVEN = [("m1", "Asha prefers window seats. She said so twice."),
         ("m2", "Ben is allergic to peanuts. Noted by the agent."),
         ("m3", "Chen paid invoice 4411. It cleared on Monday."),
         ("m4", "Dara moved the meeting to day 12. Nobody objected."),
         ("m5", "Eli set a budget of 900 euros. It is firm."),
         ("m6", "Farah wants the report by day 20. Draft first."),
         ("m7", "Goran changed plan to tier 3. Effective now.")]


class Recorder:
    """Wraps a summariser; keeps every prompt and its size in ``measure``."""

    def __init__(self, model, measure=cl100k_tokens):
        self.model, self.measure = model, measure
        self.prompts, self.sizes = [], []

    def __call__(self, prompt):
        self.prompts.append(prompt)
        self.sizes.append(self.measure(prompt))
        return self.model(prompt)


def head_size(measure, level=1):
    return measure(build_batch_prompt([], level))


def generated(count, seed=0):
    rng = random.Random(seed)
    words = "alpha beta gamma delta order 42 refund seat budget 7 day report".split()
    return [(f"i{n}", f"{' '.join(rng.choices(words, k=rng.randint(1, 8)))}. "
                      f"{' '.join(rng.choices(words, k=rng.randint(1, 6)))}.")
            for n in range(count)]


def assert_coverage(result, ids):
    """Every complete level covers every item once, in order; the tree links agree; a
    summary above level 1 is carried exactly when it has one child, and then it is that
    child unchanged, made without a call."""
    for level in result.levels:
        assert list(chain.from_iterable(s.source_ids for s in level)) == ids
    assert list(chain.from_iterable(s.children for s in result.levels[0])) == ids
    for lower, upper in zip(result.levels, result.levels[1:]):
        assert list(chain.from_iterable(s.children for s in upper)) == [s.id for s in lower]
        by_id = {s.id: s for s in lower}
        for summary in upper:
            assert summary.source_ids == tuple(chain.from_iterable(
                by_id[c].source_ids for c in summary.children))
            assert summary.carried == (len(summary.children) == 1)
            if summary.carried:
                child = by_id[summary.children[0]]
                assert (summary.text, summary.tokens, summary.prompt_tokens) == (
                    child.text, child.tokens, 0)
    assert not any(s.carried for s in result.levels[0])
    assert result.calls == sum(not s.carried for s in result.summaries)


# --- the worked example: 7 items, batch_size 3 ------------------------------------------

def test_seven_items_in_batches_of_three_then_one_reduce_call():
    model = Recorder(first_sentence_summariser)
    result = hierarchical_summary(SEVEN, model, batch_size=3, window=1000)
    level1, level2 = result.levels
    assert [s.id for s in level1] == ["L1.1", "L1.2", "L1.3"]
    assert [s.children for s in level1] == [("m1", "m2", "m3"), ("m4", "m5", "m6"), ("m7",)]
    assert [s.text for s in level1] == [
        "Asha prefers window seats. Ben is allergic to peanuts. Chen paid invoice 4411.",
        "Dara moved the meeting to day 12. Eli set a budget of 900 euros. "
        "Farah wants the report by day 20.",
        "Goran changed plan to tier 3."]
    assert level2 == (Summary(2, "Asha prefers window seats. Dara moved the meeting to day 12. "
                                 "Goran changed plan to tier 3.",
                              ("m1", "m2", "m3", "m4", "m5", "m6", "m7"),
                              cl100k_tokens(result.summary), "L2.1", ("L1.1", "L1.2", "L1.3"),
                              model.sizes[3]),)
    assert result.summary == level2[0].text and not result.truncated and result.reason == ""
    assert result.calls == 4 and len(model.prompts) == 4
    assert model.prompts[0] == (f"{HIERARCHY_PROMPT}\n\n{ITEMS_HEADER}\n[m1] {SEVEN[0][1]}\n"
                                f"[m2] {SEVEN[1][1]}\n[m3] {SEVEN[2][1]}")
    assert model.prompts[3] == (f"{HIERARCHY_PROMPT}\n\n{SUMMARIES_HEADER}\n"
                                + "\n".join(f"[{s.id}] {s.text}" for s in level1))
    assert result.largest_prompt_tokens == max(model.sizes)
    assert [s.prompt_tokens for s in result.summaries] == model.sizes


def test_scripted_llm_replies_become_the_summaries():
    model = ScriptedLLM(["A.", "B.", "C.", "all of it."])
    result = hierarchical_summary(SEVEN, model, batch_size=3, window=1000)
    assert [s.text for s in result.summaries] == ["A.", "B.", "C.", "all of it."]
    assert "[m7] Goran" in model.prompts[2] and "[L1.2] B." in model.prompts[3]


def test_memory_items_and_pairs_give_the_same_result():
    pairs = hierarchical_summary(SEVEN, first_sentence_summariser, batch_size=3, window=1000)
    items = hierarchical_summary((MemoryItem(i, t) for i, t in SEVEN),
                                 first_sentence_summariser, batch_size=3, window=1000)
    assert pairs == items


def test_result_table_has_one_row_per_summary():
    result = hierarchical_summary(SEVEN, first_sentence_summariser, batch_size=3, window=1000)
    table = result.table()
    assert table.column("summary") == ["L1.1", "L1.2", "L1.3", "L2.1"]
    assert table.column("summarises") == ["m1 .. m3 (3)", "m4 .. m6 (3)", "m7",
                                          "L1.1 .. L1.3 (3)"]
    assert table.column("items covered") == [3, 3, 1, 7]
    assert table.column("size (tokens)") == [s.tokens for s in result.summaries]
    assert table.column("model call") == ["yes"] * 4


# --- a lone summary is carried up, without a call ---------------------------------------

def test_a_lone_summary_is_carried_up_unchanged_without_a_call():
    # 5 items in pairs: L1.3 (m5) is alone at level 2, so L2.2 carries it; level 3 merges
    model = Recorder(first_sentence_summariser)
    result = hierarchical_summary(SEVEN[:5], model, batch_size=2, window=1000)
    assert [[s.id for s in level] for level in result.levels] == [
        ["L1.1", "L1.2", "L1.3"], ["L2.1", "L2.2"], ["L3.1"]]
    l13, l22 = result.levels[0][2], result.levels[1][1]
    assert l22 == Summary(2, "Eli set a budget of 900 euros.", ("m5",), l13.tokens, "L2.2",
                          ("L1.3",), 0, carried=True)
    assert l13.text == l22.text and not l13.carried and l13.children == ("m5",)
    assert result.calls == 5 == len(model.prompts) and result.carried == 1
    # the calls, in order: three map batches, one reduce of L1.1 + L1.2, then level 3
    assert [parse_batch_prompt(p) for p in model.prompts][3:] == [
        [("L1.1", "Asha prefers window seats. Ben is allergic to peanuts."),
         ("L1.2", "Chen paid invoice 4411. Dara moved the meeting to day 12.")],
        [("L2.1", "Asha prefers window seats. Chen paid invoice 4411."),
         ("L2.2", "Eli set a budget of 900 euros.")]]
    assert result.summary == "Asha prefers window seats. Eli set a budget of 900 euros."
    assert result.largest_prompt_tokens == max(model.sizes)
    assert result.table().column("model call") == ["yes"] * 4 + ["no, carried", "yes"]
    assert_coverage(result, [i for i, _ in SEVEN[:5]])


def test_a_lone_item_is_still_summarised():
    model = Recorder(ShrinkingStub(0.5))
    result = hierarchical_summary(SEVEN[:1], model, window=1000)
    assert result.calls == 1 and not result.levels[0][0].carried
    assert result.summary == "Asha prefers window seats."


def test_carrying_saves_exactly_the_lone_batches():
    # 7 items, batch_size 2: 4 -> 2 -> 1, no lone summary; 6 items: 3 -> 2 (one carried)
    # -> 1; 13 items: 7 -> 4 (L2.4 carries L1.7) -> 2 -> 1
    runs = {n: hierarchical_summary(generated(n, seed=1), ShrinkingStub(0.5), batch_size=2,
                                    window=1000) for n in (7, 6, 13)}
    assert {n: [len(level) for level in r.levels] for n, r in runs.items()} == {
        7: [4, 2, 1], 6: [3, 2, 1], 13: [7, 4, 2, 1]}
    assert {n: (r.calls, r.carried) for n, r in runs.items()} == {
        7: (7, 0), 6: (5, 1), 13: (13, 1)}
    assert runs[13].levels[1][3].children == ("L1.7",) and runs[13].levels[1][3].carried


# --- batching by count and by tokens ----------------------------------------------------

def test_plan_batches_by_count():
    assert plan_batches([1] * 7, room=100, batch_size=3) == [(0, 3), (3, 6), (6, 7)]


def test_plan_batches_by_tokens():
    # 4+4 fits 10, +4 would not; 4+4, +9 would not; 9+1 is exactly 10
    assert plan_batches([4, 4, 4, 4, 9, 1], room=10, batch_size=50) == [(0, 2), (2, 4), (4, 6)]


def test_plan_batches_refuses_an_entry_larger_than_the_room():
    with pytest.raises(ValueError, match="entry 1 needs 11, more than the room of 10"):
        plan_batches([3, 11], room=10, batch_size=5)


def test_batches_close_on_tokens_before_batch_size():
    # count_words: each line "[mN] a b c" is 4 words, estimated 5 with its line break
    items = [(f"m{n}", "a b c") for n in range(1, 6)]
    model = Recorder(ShrinkingStub(0.5), count_words)
    window = head_size(count_words) + 10
    result = hierarchical_summary(items, model, window=window, batch_size=50, measure=count_words)
    assert [s.children for s in result.levels[0]] == [("m1", "m2"), ("m3", "m4"), ("m5",)]
    assert model.sizes[:3] == [window - 2, window - 2, window - 6]
    assert max(model.sizes) <= window and result.unit == "words"


def test_a_prompt_measured_over_the_window_shrinks_its_batch():
    # each line break costs 3 here, but the estimate allows 1: the packer must re-measure
    def measure(text):
        return len(text) // 4 + 3 * text.count("\n")

    items = generated(60, seed=5)
    model = Recorder(first_sentence_summariser, measure)
    window = head_size(measure) + 80
    result = hierarchical_summary(items, model, window=window, batch_size=50, measure=measure)
    assert max(model.sizes) <= window
    room = window - head_size(measure)
    estimated = plan_batches([measure(f"[{i}] {t}") + 1 for i, t in items], room, 50)
    assert len(result.levels[0]) > len(estimated)       # some batches were shrunk
    assert_coverage(result, [i for i, _ in items])


def test_each_item_and_summary_is_measured_once():
    measure = CallCounter(approx_tokens)
    items = generated(500, seed=2)
    result = hierarchical_summary(items, first_sentence_summariser, window=300, batch_size=20,
                                  measure=measure)
    summaries, top = len(result.summaries), len(result.levels[-1])
    # 2 headers checked up front, 1 header per level, each item's line, each prompt once,
    # each summary's text, and the line of each summary that goes on to the next level;
    # plus at most one probe per batch whose next entry might still fit exactly
    base = 2 + len(result.levels) + len(items) + result.calls + summaries + summaries - top
    assert base <= measure.calls <= base + result.calls, (base, measure.calls)


# --- depth: single vs hierarchical -------------------------------------------------------

def test_single_pass_sends_one_prompt_with_every_item_whatever_the_batch_size():
    model = Recorder(first_sentence_summariser)
    result = hierarchical_summary(SEVEN, model, batch_size=2, window=1000, depth="single")
    assert model.prompts == [build_batch_prompt(SEVEN)]
    assert result.calls == 1 and len(result.levels) == 1
    assert result.levels[0][0].children == tuple(i for i, _ in SEVEN)
    assert result.summary == " ".join(t.split(". ")[0] + "." for _, t in SEVEN)


def test_single_pass_over_the_window_is_refused_and_never_sent():
    model = ScriptedLLM([])
    size = cl100k_tokens(build_batch_prompt(SEVEN))
    with pytest.raises(WindowExceededError, match=rf"7 items has {size} tokens, more than the "
                                                  rf"window of {size - 1}") as error:
        hierarchical_summary(SEVEN, model, window=size - 1, depth="single")
    assert (error.value.tokens, error.value.window) == (size, size - 1)
    assert model.calls == 0
    assert hierarchical_summary(SEVEN, first_sentence_summariser, window=size,
                                depth="single").calls == 1


def test_hierarchical_with_everything_in_one_batch_is_one_call():
    result = hierarchical_summary(SEVEN, first_sentence_summariser, window=1000)
    assert result.calls == 1 and len(result.levels) == 1 and not result.truncated


# --- never a prompt over the window -----------------------------------------------------

@pytest.mark.parametrize("count", [1, 2, 7, 50, 333])
@pytest.mark.parametrize("window", [120, 300, 1000])
@pytest.mark.parametrize("batch_size", [2, 5, 50])
@pytest.mark.parametrize("stub", ["halving", "first sentence"])
def test_no_prompt_exceeds_the_window(count, window, batch_size, stub):
    items = generated(count, seed=count)
    model = Recorder(ShrinkingStub(0.5) if stub == "halving" else first_sentence_summariser)
    result = hierarchical_summary(items, model, window=window, batch_size=batch_size)
    assert max(model.sizes) <= window
    assert result.largest_prompt_tokens == max(model.sizes) and result.calls == len(model.sizes)
    if stub == "halving":
        assert not result.truncated and len(result.levels[-1]) == 1
    else:   # once every summary is one sentence, keeping first sentences no longer shrinks
        assert result.truncated == result.reason.startswith("no progress") == (
            len(result.levels[-1]) > 1)
    assert all(len(s.children) <= batch_size for s in result.summaries)
    assert_coverage(result, [i for i, _ in items])


@pytest.mark.parametrize("measure", [count_words, tiktoken_counter("cl100k_base")],
                         ids=["words", "tiktoken"])
def test_no_prompt_exceeds_the_window_in_other_measures(measure):
    items = generated(200, seed=9)
    model = Recorder(ShrinkingStub(0.3), measure)
    window = head_size(measure, 2) + 60
    result = hierarchical_summary(items, model, window=window, batch_size=20, measure=measure)
    assert max(model.sizes) <= window and not result.truncated
    assert_coverage(result, [i for i, _ in items])


# --- termination when the summariser does not shrink ------------------------------------

def test_non_shrinking_summariser_stops_flagged_with_nothing_dropped():
    # a line "[mN] word x 10" is 11 words, 12 with its break: 5 items fill a room of 60;
    # a level-1 summary keeps all 50 words, so two never fit one prompt (2 x 52 > 60)
    items = [(f"m{n}", " ".join(["word"] * 10)) for n in range(20)]
    model = Recorder(ShrinkingStub(1.0), count_words)       # keeps every word
    assert head_size(count_words, 1) == head_size(count_words, 2)
    window = head_size(count_words) + 60
    result = hierarchical_summary(items, model, window=window, batch_size=10, measure=count_words)
    assert result.truncated and len(result.levels) == 1
    assert [s.children for s in result.levels[0]] == [tuple(f"m{n}" for n in range(k, k + 5))
                                                      for k in (0, 5, 10, 15)]
    assert result.reason == ("no progress: level 2 would hold each of the 4 level-1 summaries "
                             "in a batch of its own")
    assert result.calls == 4 == len(model.prompts) and max(model.sizes) <= window
    assert result.summary == "\n\n".join(s.text for s in result.levels[0])
    assert count_words(result.summary) == 200                  # every word is still there
    assert_coverage(result, [i for i, _ in items])


@pytest.mark.parametrize("grow, reason", [
    (lambda p: p, "no progress: level 2 would hold each of the 3 level-1 summaries in a batch"),
    (lambda p: p + " " + p, r"no progress: summary L1.1 alone needs a prompt of \d+ tokens, "
                            r"more than the window of 400"),
], ids=["echoes its prompt", "doubles its prompt"])
def test_growing_summariser_stops_before_sending_an_oversized_prompt(grow, reason):
    model = Recorder(grow)
    result = hierarchical_summary(generated(30), model, window=400, batch_size=10)
    assert result.truncated and re.match(reason, result.reason)
    assert result.calls == 3 and len(result.levels) == 1
    assert max(model.sizes) <= 400 and result.calls == len(model.prompts)
    assert_coverage(result, [i for i, _ in generated(30)])


def test_carried_summaries_do_not_count_as_progress():
    # 3 summaries that no two fit together: level 2 would carry each of them, so the
    # run stops before it (no level of copies, no call)
    items = [(f"m{n}", " ".join(["word"] * 10)) for n in range(15)]
    model = Recorder(ShrinkingStub(1.0), count_words)
    window = head_size(count_words) + 60
    result = hierarchical_summary(items, model, window=window, batch_size=10, measure=count_words)
    assert [len(level) for level in result.levels] == [3] and result.carried == 0
    assert result.reason.startswith("no progress: level 2 would hold each of the 3")


def test_max_rounds_stops_with_the_top_level_flagged():
    result = hierarchical_summary(SEVEN, first_sentence_summariser, batch_size=2, window=1000,
                                  max_rounds=2)
    assert [len(level) for level in result.levels] == [4, 2]
    assert result.truncated and result.reason == "max_rounds=2 reached with 2 summaries left"
    assert result.summary == "\n\n".join(s.text for s in result.levels[1])
    full = hierarchical_summary(SEVEN, first_sentence_summariser, batch_size=2, window=1000)
    assert [len(level) for level in full.levels] == [4, 2, 1] and not full.truncated


# --- the reduce loop: kit.hierarchical.reduce ------------------------------------------

def tag(batch):
    """A summarise_batch that writes the tree: ["a", "b"] -> "(a+b)"."""
    return "(" + "+".join(batch) + ")"


def test_pack_in_order_is_greedy_and_asks_fits_once_per_entry_after_the_first():
    asked = []

    def fits(batch):
        asked.append(list(batch))
        return sum(batch) <= 10

    assert pack_in_order([6, 3, 2, 7, 4, 1, 5], fits) == [[6, 3], [2, 7], [4, 1, 5]]
    assert len(asked) == 6 and asked[0] == [6, 3] and asked[1] == [6, 3, 2]
    assert pack_in_order([], fits) == [] and pack_in_order([99], fits) == [[99]]


def test_reduce_until_fits_makes_the_lesson_tree_with_s7_carried():
    calls, seven = [], [f"s{i}" for i in range(1, 8)]
    summaries = list(seven)
    got = reduce_until_fits(summaries, lambda b: calls.append(b) or tag(b),
                            lambda b: len(b) <= 3, 5)
    assert got == ["((s1+s2+s3)+(s4+s5+s6)+s7)"]
    assert calls == [["s1", "s2", "s3"], ["s4", "s5", "s6"], ["(s1+s2+s3)", "(s4+s5+s6)", "s7"]]
    assert summaries == seven


@pytest.mark.parametrize("max_rounds, left", [(1, ["(s1+s2+s3)", "(s4+s5+s6)", "s7"]),
                                              (2, ["((s1+s2+s3)+(s4+s5+s6)+s7)"])])
def test_reduce_until_fits_stops_after_max_rounds(max_rounds, left):
    assert reduce_until_fits([f"s{i}" for i in range(1, 8)], tag, lambda b: len(b) <= 3,
                             max_rounds) == left


def test_reduce_until_fits_stops_before_a_round_without_progress():
    # "concat" does not shrink: 4 x 5 words -> 2 x 10 words, then no two fit 12 words
    words = lambda b: sum(len(s.split()) for s in b) <= 12           # noqa: E731
    summaries = [" ".join([f"a{i}"] * 5) for i in range(1, 5)]
    calls = []
    got = reduce_until_fits(summaries, lambda b: calls.append(b) or " ".join(b), words, 1000)
    assert [len(s.split()) for s in got] == [10, 10] and len(calls) == 2
    one = ["only"]
    assert reduce_until_fits(one, tag, words, 5) == one and reduce_until_fits(one, tag, words,
                                                                              5) is not one


def test_reduce_rounds_yields_each_level_and_what_it_raises_propagates():
    levels = list(reduce_rounds(list("abcde"), lambda level: pack_in_order(
        level, lambda b: len(b) <= 2), tag, 10))
    assert levels == [["(a+b)", "(c+d)", "e"], ["((a+b)+(c+d))", "e"], ["(((a+b)+(c+d))+e)"]]
    assert list(reduce_rounds(["x"], None, None, 3)) == []               # nothing to reduce
    made = []

    def fail_on_second_round(batch):
        if made:
            raise TimeoutError("model timed out")
        made.append(tag(batch))
        return made[-1]

    rounds = reduce_rounds(list("abc"), lambda level: [list(level[:2]), *map(list, level[2:])],
                           fail_on_second_round, 5, carry=lambda batch: batch[0].upper())
    assert next(rounds) == ["(a+b)", "C"]                 # carry(batch) moved "c" up
    with pytest.raises(TimeoutError):
        next(rounds)


def test_hierarchical_summary_runs_the_kits_reduce_loop(monkeypatch):
    seen = []

    def spy(level, pack, merge, max_rounds, carry):
        seen.append((len(level), max_rounds))
        yield from reduce_rounds(level, pack, merge, max_rounds, carry)

    monkeypatch.setattr(kit.hierarchical.mapreduce, "reduce_rounds", spy)
    result = hierarchical_summary(SEVEN, first_sentence_summariser, batch_size=3, window=1000,
                                  max_rounds=4)
    assert seen == [(3, 3)]                        # the 3 level-1 summaries, 4 levels - the map
    assert [len(level) for level in result.levels] == [3, 1] and result.calls == 4


# --- models from kit.llm ----------------------------------------------------------------

def test_counting_llm_sees_every_call():
    model = CountingLLM(first_sentence_summariser)
    result = hierarchical_summary(generated(100), model, window=300, batch_size=10)
    assert model.calls == result.calls > 10


def test_a_failing_model_propagates_its_error():
    model = FailingLLM(first_sentence_summariser, fail_on={2})
    with pytest.raises(TimeoutError, match="model timed out"):
        hierarchical_summary(SEVEN, model, batch_size=3, window=1000)
    assert model.calls == 2


@pytest.mark.parametrize("reply", ["", "   ", None, 42])
def test_an_empty_or_non_str_reply_is_refused_naming_the_summary(reply):
    replies = iter(["fine.", reply])
    with pytest.raises(ValueError, match="for L1.2; a summary must be a non-empty str"):
        hierarchical_summary(SEVEN, lambda prompt: next(replies), batch_size=3, window=1000)


# --- bad input --------------------------------------------------------------------------

@pytest.mark.parametrize("items, error, message", [
    ([], ValueError, "items is empty: nothing to summarise"),
    ([("a", "x."), ("b", "y."), ("a", "z.")], ValueError, "duplicate id 'a' at items 0 and 2"),
    ([("a]", "x.")], ValueError, r"item 0 has id 'a\]'"),
    ([("", "x.")], ValueError, "item 0 has id ''"),
    ([("a\nb", "x.")], ValueError, r"item 0 has id 'a\\nb'"),
    ([("a", "  ")], ValueError, "item 'a' has empty text"),
    ("some text", TypeError, "not one string"),
    ([("a", "x.", "extra")], TypeError, "item 0 must be a MemoryItem or an"),
    ([(1, "x.")], TypeError, "item 0 needs a str id and text"),
])
def test_bad_items_are_refused_naming_them(items, error, message):
    with pytest.raises(error, match=message):
        hierarchical_summary(items, first_sentence_summariser)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"window": 0}, ValueError, "window must be >= 1, got 0"),
    ({"batch_size": 1}, ValueError, "batch_size must be >= 2, got 1"),
    ({"batch_size": True}, TypeError, "batch_size must be an int, got bool"),
    ({"max_rounds": 0}, ValueError, "max_rounds must be >= 1, got 0"),
    ({"depth": "deep"}, ValueError, "depth must be one of single, hierarchical; got 'deep'"),
    ({"instructions": " "}, ValueError, "instructions must be a non-empty str"),
    ({"measure": None}, TypeError, "measure must be callable"),
])
def test_bad_arguments_are_refused_naming_them(kwargs, error, message):
    with pytest.raises(error, match=message):
        hierarchical_summary(SEVEN, first_sentence_summariser, **kwargs)


def test_a_summariser_that_is_not_callable_is_refused():
    with pytest.raises(TypeError, match="summariser must be callable"):
        hierarchical_summary(SEVEN, "gpt")


def test_a_window_too_small_for_the_instructions_is_refused():
    head = head_size(approx_tokens)
    with pytest.raises(WindowExceededError, match=f"take {head} tokens, leaving no room in a "
                                                  f"window of {head}"):
        hierarchical_summary(SEVEN, first_sentence_summariser, window=head)


def test_an_item_too_large_for_any_prompt_is_refused_before_any_call():
    items = SEVEN + [("huge", "word " * 400)]
    model = ScriptedLLM([])
    with pytest.raises(WindowExceededError, match=r"item 'huge' alone needs a prompt of \d+ "
                                                  r"tokens, more than the window of 300") as error:
        hierarchical_summary(items, model, window=300, batch_size=3)
    assert error.value.tokens > 300 and model.calls == 0


# --- the prompt layout and the stubs ----------------------------------------------------

def test_prompt_round_trips_and_text_cannot_fake_an_entry():
    entries = [("m1", "line one\n[m9] not an entry"), ("m2", "two")]
    prompt = build_batch_prompt(entries)
    assert prompt.endswith("[m1] line one\n  [m9] not an entry\n[m2] two")
    assert parse_batch_prompt(prompt) == entries
    assert parse_batch_prompt(build_batch_prompt(entries, level=2)) == entries


def test_parse_refuses_a_prompt_without_a_header():
    with pytest.raises(ValueError, match="not a batch prompt"):
        parse_batch_prompt("Summarise this: [m1] hello")


def test_first_sentence_summariser_keeps_each_entry_first_sentence():
    prompt = build_batch_prompt([("a", "Version 1.5 is out! Upgrade soon."),
                                 ("b", "no full stop here"), ("c", "Is it late? Yes.")])
    assert first_sentence_summariser(prompt) == "Version 1.5 is out! no full stop here Is it late?"


def test_shrinking_stub_keeps_a_share_of_the_words():
    stub = ShrinkingStub(0.5)
    assert stub(build_batch_prompt([("a", "one two three"), ("b", "four five")])) == "one two three"
    assert stub.calls == 1


@pytest.mark.parametrize("ratio", [0, 1.5, -1, "half", True])
def test_shrinking_stub_refuses_a_bad_ratio(ratio):
    with pytest.raises(ValueError, match="ratio must be a number in"):
        ShrinkingStub(ratio)


# --- the sample items -------------------------------------------------------------------

def test_sample_items_are_deterministic_with_unique_ids():
    items = sample_items(500)
    assert items == sample_items(500) and items == sample_items(500, seed=0)
    assert [item.id for item in items] == [f"m{n}" for n in range(1, 501)]
    assert len({item.text for item in items}) > 400      # varied, not one text repeated
    assert items[0] == MemoryItem("m1", "Goran wants the report by day 1663. "
                                        "No follow-up is needed.")
    assert sample_items(500, seed=1) != items
    assert sample_items(40) == items[:40] and sample_items(0) == []


def test_sample_items_are_two_sentences_of_11_to_16_tokens():
    items = sample_items(1000, seed=7)
    assert all(item.text.count(". ") == 1 and item.text.endswith(".") for item in items)
    sizes = [approx_tokens(item.text) for item in items]
    assert (min(sizes), max(sizes)) == (11, 16)


@pytest.mark.parametrize("n, error, message", [
    (-1, ValueError, "n must be >= 0, got -1"),
    (2.5, TypeError, "n must be an int, got float"),
    (True, TypeError, "n must be an int, got bool"),
])
def test_sample_items_refuses_a_bad_count(n, error, message):
    with pytest.raises(error, match=message):
        sample_items(n)


def test_every_public_name_is_importable_from_the_package():
    namespace = {}
    exec("from kit.hierarchical import *", namespace)
    # the names of the one-module kit.hierarchical, before it became a package
    before = {"MemoryItem", "Summary", "HierarchyResult", "WindowExceededError", "DEPTHS",
              "HIERARCHY_PROMPT", "ITEMS_HEADER", "SUMMARIES_HEADER", "as_items",
              "build_batch_prompt", "parse_batch_prompt", "plan_batches",
              "hierarchical_summary", "first_sentence_summariser", "ShrinkingStub"}
    assert set(kit.hierarchical.__all__) == before | {"sample_items", "pack_in_order",
                                                      "reduce_rounds", "reduce_until_fits"}
    assert set(kit.hierarchical.__all__) <= set(namespace)
    assert namespace["hierarchical_summary"] is hierarchical_summary
