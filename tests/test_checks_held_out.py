"""The lesson-09 checker of leave_one_out accepts right answers and rejects the
registered wrong ones, each with its own hint."""
from __future__ import annotations

import pytest

from kit.ablation import leave_one_out as kit_leave_one_out
from kit.checks import CheckFailed
from kit.checks.held_out import check_leave_one_out
from kit.mistakes import mistakes

NAME = "leave-one-out"


def by_loops(scores):
    """The lesson's answer: a loop per conversation, the mean of the others."""
    lengths = {len(v) for v in scores.values()}
    if len(lengths) != 1 or min(lengths) < 2:
        raise ValueError(f"need one score per conversation, at least 2: {lengths}")
    n, folds = lengths.pop(), []
    for held in range(n):
        best, best_mean = None, None
        for setting, values in scores.items():
            mean = sum(v for i, v in enumerate(values) if i != held) / (n - 1)
            if best_mean is None or mean > best_mean:         # strict: a tie keeps the first
                best, best_mean = setting, mean
        folds.append((best, scores[best][held]))
    return folds


def by_sorting(scores):
    """Right too, another shape: a stable sort on the mean of the others, lists out."""
    if len({len(v) for v in scores.values()}) != 1:
        raise ValueError("lengths differ")
    n = len(next(iter(scores.values())))
    if n < 2:
        raise ValueError("one conversation")
    total = {s: sum(v) for s, v in scores.items()}
    out = []
    for held in range(n):
        ranked = sorted(scores, key=lambda s: -(total[s] - scores[s][held]) / (n - 1))
        out.append([ranked[0], scores[ranked[0]][held]])
    return out


def with_fractions(scores):
    """Right, with exact fractions for scores."""
    from fractions import Fraction
    return [(s, Fraction(v)) for s, v in kit_leave_one_out(scores)]


def alphabetical_ties(scores):
    """Wrong: a tie goes to the setting first in alphabetical order."""
    return kit_leave_one_out(dict(sorted(scores.items())))


def only_shorter_lists_refused(scores):
    """Wrong: a score list longer than the first one is not refused."""
    first = len(next(iter(scores.values())))
    if first < 2 or any(len(v) < first for v in scores.values()):
        raise ValueError("lengths")
    return kit_leave_one_out({k: v[:first] for k, v in scores.items()})


@pytest.mark.parametrize("wrong, hint", [(alphabetical_ties, "keep the setting listed first"),
                                         (only_shorter_lists_refused, "differ in length")],
                         ids=["alphabetical-ties", "only-shorter-lists-refused"])
def test_wrong_answers_the_registry_does_not_list_are_rejected_too(wrong, hint, rejects):
    rejects(check_leave_one_out, wrong, hint)


@pytest.mark.parametrize("answer", [by_loops, by_sorting, kit_leave_one_out, with_fractions],
                         ids=["loops", "sorting", "kit", "fractions"])
def test_correct_answers_pass(answer, passes):
    passes(check_leave_one_out, answer, "leave_one_out")


@pytest.mark.parametrize("wrong", mistakes(NAME), ids=lambda m: m.name)
def test_each_registered_mistake_is_rejected_with_its_hint(wrong, rejects):
    rejects(check_leave_one_out, wrong.answer, wrong.hint)


@pytest.mark.parametrize("wrong", mistakes(NAME), ids=lambda m: m.name)
def test_no_other_mistakes_hint_shows_up(wrong):
    with pytest.raises(CheckFailed) as failure:
        check_leave_one_out(wrong.answer)
    others = [m.name for m in mistakes(NAME) if m is not wrong and m.hint in str(failure.value)]
    assert not others, (wrong.name, others)


def test_the_registry_holds_the_typical_mistakes():
    assert {m.name for m in mistakes(NAME)} == {
        "peeks-at-held-out", "best-on-held-out", "last-of-ties", "reports-tuning-score",
        "no-length-check"}


def test_a_stub_and_an_answer_that_changes_its_input_are_rejected(rejects):
    def stub(scores):
        raise NotImplementedError

    def sorts_in_place(scores):
        for values in scores.values():
            values.sort()
        return kit_leave_one_out(scores)
    rejects(check_leave_one_out, stub, "is not written yet")
    rejects(check_leave_one_out, sorts_in_place, "changed its input in place")


def test_the_kits_leave_one_out_refuses_what_it_cannot_score():
    # fold 0 is chosen on conversation 1 (a: 0.7 beats b: 0.6), fold 1 on conversation 0
    assert kit_leave_one_out({"a": [0.5, 0.7], "b": [0.6, 0.6]}) == [("a", 0.5), ("b", 0.6)]
    for bad in ({}, {"a": [0.5]}, {"a": [0.5, 0.6], "b": [0.7]}):
        with pytest.raises(ValueError, match="one score per conversation"):
            kit_leave_one_out(bad)
