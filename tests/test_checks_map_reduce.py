"""The lesson-05 whole-mechanism checker (kit.checks.map_reduce) accepts right answers of
different designs and rejects every registered wrong one ("map-reduce") with its hint.

The right answers here differ in how they pack (measuring every candidate prompt, or
estimating each line once as the kit does), in how they reduce (a while loop, the kit's
own reduce_until_fits on (label, text, ids) entries, recursion) and in their labels. That
they all pass pins the checker's cases as free of ties (a prompt of exactly `window`
tokens where a batch closes), where the two packing rules would disagree.
"""
from __future__ import annotations

import itertools
import time
from pathlib import Path

import nbformat
import pytest

from kit.checks import CheckFailed
from kit.checks import map_reduce as checker
from kit.checks.map_reduce import check_map_reduce, words_and_breaks
from kit.hierarchical import (build_batch_prompt, hierarchical_summary, plan_batches,
                              reduce_until_fits)
from kit.mistakes import mistakes
from kit.mistakes.mapreduce import summarises_a_lone_summary

LESSON = Path(__file__).resolve().parents[1] / "solutions" / "05_hierarchical_summarisation.ipynb"


# -- right answers -----------------------------------------------------------------------
def lesson_answer():
    """The lesson's own reference answer: its exercise cell, run as it stands."""
    nb = nbformat.read(LESSON, as_version=4)
    source = next(cell.source for cell in nb.cells if cell.cell_type == "code"
                  and "exercise" in cell.metadata.get("tags", [])
                  and "def map_reduce(" in cell.source)
    namespace = {"build_batch_prompt": build_batch_prompt}
    exec(compile(source, str(LESSON), "exec"), namespace)
    return namespace["map_reduce"]


def kit_answer(items, summarise, window, measure, batch_size, max_rounds):
    """The kit's own function, behind a thin adapter (keywords in, top pairs out)."""
    result = hierarchical_summary(items, summarise, window=window, batch_size=batch_size,
                                  max_rounds=max_rounds, measure=measure)
    return [(s.text, list(s.source_ids)) for s in result.levels[-1]]


def estimates_with_the_kits_loop(items, summarise, window, measure, batch_size, max_rounds):
    """Sizes estimated once per line (+1 for its line break), plan_batches for the map,
    the kit's reduce_until_fits for the rounds; labels S1, S2, ... across levels."""
    head = measure(build_batch_prompt([], 1))
    names = (f"S{n}" for n in itertools.count(1))

    def size(label, text):
        return measure(f"[{label}] {text}") + 1

    def merge(batch, level):
        prompt = build_batch_prompt([(label, text) for label, text, _, _ in batch], level)
        return next(names), summarise(prompt), [i for *_, ids, _ in batch for i in ids], 0

    sizes = [size(i, text) for i, text in items]
    for i, s in enumerate(sizes):
        if s > window - head:
            raise ValueError(f"item {items[i][0]} is too large: {s} > {window - head}")
    level1 = [merge([(i, text, [i], 0) for i, text in items[a:b]], 1)
              for a, b in plan_batches(sizes, window - head, batch_size)]
    level1 = [(label, text, ids, size(label, text)) for label, text, ids, _ in level1]

    def merge_up(batch):
        label, text, ids, _ = merge(batch, 2)
        return label, text, ids, size(label, text)

    top = reduce_until_fits(level1, merge_up, lambda batch: len(batch) <= batch_size and
                            sum(e[3] for e in batch) <= window - head, max_rounds - 1)
    return [(text, tuple(ids)) for _, text, ids, _ in top]


def recursive(items, summarise, window, measure, batch_size, max_rounds):
    """Exact prompt sizes; one recursive function per round; labels r<round>-<n>."""
    def prompt(batch, level):
        return build_batch_prompt([(label, text) for label, text, _ in batch], level)

    def pack(entries, level):
        batches = []
        for entry in entries:
            bigger = batches[-1] + [entry] if batches else None
            if bigger and len(bigger) <= batch_size and measure(prompt(bigger, level)) <= window:
                batches[-1] = bigger
            else:
                batches.append([entry])
        return batches

    def rounds(entries, level):
        batches = pack(entries, level)
        if level == 1:
            alone = [b[0][0] for b in batches if measure(prompt(b, 1)) > window]
            if alone:
                raise ValueError(f"items {alone} do not fit a prompt of {window} tokens")
        elif len(entries) == 1 or len(batches) == len(entries) or level > max_rounds:
            return entries
        up = [b[0] if len(b) == 1 and level > 1 else
              (f"r{level}-{n}", summarise(prompt(b, level)), sum((e[2] for e in b), []))
              for n, b in enumerate(batches, 1)]
        return rounds(up, level + 1)

    return [(text, ids) for _, text, ids in rounds([(i, t, [i]) for i, t in items], 1)]


def map_reduce_stub(items, summarise, window, measure, batch_size, max_rounds):
    raise NotImplementedError("Exercise: write your answer here")


@pytest.mark.parametrize("answer", [lesson_answer(), kit_answer, recursive],
                         ids=["lesson", "kit", "recursive"])
def test_right_answers_pass(answer, passes):
    passes(check_map_reduce, answer, "map_reduce")


def test_the_check_is_fast():
    start = time.process_time()          # CPU time: a busy machine does not add to it
    check_map_reduce(kit_answer)
    assert time.process_time() - start < 2


# -- wrong answers -----------------------------------------------------------------------
MAP_REDUCE = mistakes("map-reduce")


def test_at_least_five_mistakes_are_registered():
    assert len(MAP_REDUCE) >= 5
    assert {"no-round-limit", "batches-by-count", "ids-dropped-at-level-2",
            "stops-one-round-early", "re-summarises-the-top",
            "drops-the-last-partial-batch"} <= {m.name for m in MAP_REDUCE}


@pytest.mark.parametrize("wrong", MAP_REDUCE, ids=[m.name for m in MAP_REDUCE])
def test_every_registered_mistake_is_rejected_with_its_hint(wrong, rejects):
    rejects(check_map_reduce, wrong.answer, wrong.hint)


def test_no_round_limit_is_stopped_by_a_budget_not_a_hang(rejects):
    wrong = next(m.answer for m in MAP_REDUCE if m.name == "no-round-limit")
    start = time.process_time()          # CPU time: a busy machine does not add to it
    rejects(check_map_reduce, wrong, "a summariser that does not shrink",
            f"measure was called {checker.MEASURE_LIMIT:,} times and the loop goes on",
            "after max_rounds rounds")
    assert time.process_time() - start < 5


def test_an_unbounded_loop_that_calls_the_model_hits_the_call_budget(rejects):
    def calls_forever(items, summarise, window, measure, batch_size, max_rounds):
        a, b = summarise(build_batch_prompt(items[:2])), summarise(build_batch_prompt(items[2:4]))
        while True:                                 # merges the same two, round after round
            a = summarise(build_batch_prompt([("x", a), ("y", b)], 2))

    rejects(check_map_reduce, calls_forever, f"summarise was called {checker.CALL_LIMIT} times")


def test_the_stub_is_not_written_yet(rejects):
    rejects(check_map_reduce, map_reduce_stub, "map_reduce is not written yet")


def test_a_failure_caught_by_the_learner_is_still_reported(rejects):
    def swallows(*args):
        try:
            return summarises_a_lone_summary(*args)
        except Exception:
            return []

    rejects(check_map_reduce, swallows, "carry a lone summary up")


def test_changing_the_items_or_returning_another_shape_is_rejected(rejects):
    def clears(items, *args):
        result = kit_answer(list(items), *args)
        items.clear()
        return result

    def text_only(*args):
        return kit_answer(*args)[0][0]

    def ids_as_a_string(*args):
        return [(text, ",".join(ids)) for text, ids in kit_answer(*args)]

    rejects(check_map_reduce, clears, "changed the items list in place")
    rejects(check_map_reduce, text_only, "should return a list of (summary, source_ids) pairs")
    rejects(check_map_reduce, ids_as_a_string, "should return a list of (summary, source_ids)")


def test_an_unknown_text_and_a_count_over_batch_size_are_named(rejects):
    def strips_the_ids(items, summarise, window, measure, batch_size, max_rounds):
        return kit_answer([(i, t.upper()) for i, t in items], summarise, window, measure,
                          batch_size, max_rounds)

    def one_prompt_per_pair_of_batches(items, summarise, window, measure, batch_size,
                                       max_rounds):
        return kit_answer(items, summarise, window, measure, batch_size + 1, max_rounds)

    rejects(check_map_reduce, strips_the_ids, "neither an item's text nor a summary")
    rejects(check_map_reduce, one_prompt_per_pair_of_batches, "more than batch_size=3")


def test_a_vague_error_for_the_oversize_item_is_rejected(rejects):
    def vague(items, *args):
        if any(len(text.split()) > 60 for _, text in items):
            raise ValueError("an item is too large")
        return kit_answer(items, *args)

    rejects(check_map_reduce, vague, "raised ValueError('an item is too large')",
            "name the item, 'm8'")


# -- the cases ---------------------------------------------------------------------------
def kit_runs():
    return [(case, hierarchical_summary(case.items, checker._Summariser(case),
                                        window=case.window, batch_size=case.batch_size,
                                        max_rounds=case.max_rounds, measure=words_and_breaks))
            for case in checker._CASES]


def test_the_cases_end_each_way_and_carry_and_close_on_the_window():
    ends, carried, on_window = set(), False, False
    for case, result in kit_runs():
        if result.calls == 1:
            ends.add("one call")
        elif not result.truncated:
            ends.add("done")
        elif result.reason.startswith("max_rounds"):
            ends.add("max_rounds")
        elif len(result.levels) == 1:
            ends.add("no progress after the map")
        else:
            ends.add("no progress later")
        carried |= result.carried > 0
        on_window |= any(len(s.children) < case.batch_size for s in result.levels[0][:-1])
    assert ends == {"one call", "done", "max_rounds", "no progress after the map",
                    "no progress later"}
    assert carried and on_window


def test_the_worked_example_is_the_lessons():
    case, result = kit_runs()[0]
    assert [[s.id for s in level] for level in result.levels] == [["L1.1", "L1.2", "L1.3"],
                                                                 ["L2.1"]]
    assert result.calls == 4 and [s.children for s in result.levels[0]] == [
        ("m1", "m2", "m3"), ("m4", "m5", "m6"), ("m7",)]


def test_the_oversize_case_is_refused_by_the_kit_before_any_call():
    case = checker._OVERSIZE
    model = checker._Summariser(case)
    with pytest.raises(ValueError, match="item 'm8' alone needs a prompt"):
        hierarchical_summary(case.items, model, window=case.window,
                             batch_size=case.batch_size, measure=words_and_breaks)
    assert model.prompts == []


def test_the_measure_counts_words_and_line_breaks():
    assert words_and_breaks("a b\nc") == 4 and words_and_breaks("") == 0
    with pytest.raises(CheckFailed, match="measure takes one str"):
        checker._Measure("case")(["a"])


# -- the exact window rule, and wrong answers that are not in the registry --------------
def test_a_prompt_of_exactly_the_window_fits_below_at_and_above():
    """The kit's packer and the checker agree: at window 81 one prompt is exactly 81."""
    from kit.checks.map_reduce import _sample, words_and_breaks
    from kit.hierarchical import ShrinkingStub, hierarchical_summary
    calls = {w: hierarchical_summary(_sample(12, 3), ShrinkingStub(0.5), window=w,
                                     batch_size=50, max_rounds=10, measure=words_and_breaks)
             for w in (80, 81, 82)}
    assert calls[81].largest_prompt_tokens == 81
    assert [r.calls for r in calls.values()] == [11, 9, 9]


def ids_newest_first(items, summarise, window, measure, batch_size, max_rounds):
    return [(text, list(reversed(ids))) for text, ids in
            kit_answer(items, summarise, window, measure, batch_size, max_rounds)]


@pytest.mark.parametrize("wrong", [estimates_with_the_kits_loop,
                                   ids_newest_first],
                         ids=["estimates + kit loop", "ids newest first"])
def test_an_unregistered_mistake_gets_no_other_mistakes_hint(wrong, rejects):
    """The estimates (one token more per line) close a batch before an exact fit: the
    box states the rule or names only what reproduces the outputs exactly."""
    from kit.checks.hints import blamed
    message = str(rejects(check_map_reduce, wrong))
    assert "Rule: " in message or blamed(message, "map-reduce") in (["packs-below-window"],
                                                                     []), message
