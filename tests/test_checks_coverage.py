"""The lesson-09 checker of evidence_coverage accepts right answers and rejects the typical
wrong ones."""
from __future__ import annotations

import pytest

from kit.checks.coverage import check_evidence_coverage, reference_coverage
from kit.locomo import Question


def evidence_coverage(turn_ids, questions, contexts):
    if len(contexts) != len(questions):
        raise ValueError(f"{len(contexts)} contexts for {len(questions)} questions")
    number = {dia_id: n for n, dia_id in enumerate(turn_ids, start=1)}
    groups = {"1-4": []}
    for q, numbers in zip(questions, contexts):
        keys = [q.category] + (["1-4"] if q.category != 5 else [])
        for key in keys:
            groups.setdefault(key, [])
        if q.evidence:
            found = [number[e] in numbers for e in q.evidence]
            for key in keys:
                groups[key].append((all(found), any(found)))
    return {key: {"all": sum(a for a, _ in rated) / len(rated) if rated else None,
                  "any": sum(b for _, b in rated) / len(rated) if rated else None,
                  "rated": len(rated)} for key, rated in groups.items()}


def evidence_coverage_by_counts(turn_ids, questions, contexts):   # right too, other shape
    if len(contexts) != len(questions):
        raise ValueError("lengths differ")
    out = {}
    for key in sorted({q.category for q in questions}) + ["1-4"]:
        members = [(q, set(c)) for q, c in zip(questions, contexts)
                   if (q.category == key if key != "1-4" else q.category in (1, 2, 3, 4))
                   and q.evidence]
        hits_all = sum(all(turn_ids.index(e) + 1 in c for e in q.evidence) for q, c in members)
        hits_any = sum(any(turn_ids.index(e) + 1 in c for e in q.evidence) for q, c in members)
        n = len(members)
        out[key] = {"all": hits_all / n if n else None, "any": hits_any / n if n else None,
                    "rated": n}
    return out


def _wrong(**mistake):
    def answer(turn_ids, questions, contexts):
        if len(contexts) != len(questions):
            raise ValueError("lengths differ")
        return reference_coverage(turn_ids, questions, contexts, **mistake)
    return answer


def coverage_no_length_check(turn_ids, questions, contexts):
    return reference_coverage(turn_ids, questions, contexts)


def coverage_without_pooled_key(turn_ids, questions, contexts):
    result = evidence_coverage(turn_ids, questions, contexts)
    result.pop("1-4")
    return result


def coverage_sorts_contexts(turn_ids, questions, contexts):
    for c in contexts:
        if isinstance(c, list):
            c.sort()
    questions.sort(key=lambda q: q.category)      # mutates the caller's list
    return evidence_coverage(turn_ids, questions, contexts)


def coverage_stub(turn_ids, questions, contexts):
    raise NotImplementedError("Exercise: write your answer here")


@pytest.mark.parametrize("right", [evidence_coverage, evidence_coverage_by_counts])
def test_right_answers_pass(right, passes):
    passes(check_evidence_coverage, right, "evidence_coverage")


@pytest.mark.parametrize("wrong, hint", [
    (_wrong(start=0), "message numbers are 1-based"),
    (_wrong(any_as_all=True), '"all" means every evidence turn'),
    (_wrong(adversarial_in=True), 'keep it out of "1-4"'),
    (_wrong(unrated_as=True), "a question without evidence is not rated"),
    (_wrong(unrated_as=False), "divide by the questions that HAVE evidence"),
    (_wrong(empty=0.0), "return None"),
    (coverage_without_pooled_key, 'plus "1-4", always'),
])
def test_typical_mistakes_are_named(wrong, hint, rejects):
    rejects(check_evidence_coverage, wrong, hint)


def test_changing_the_inputs_is_rejected(rejects):
    rejects(check_evidence_coverage, coverage_sorts_contexts, "changed its input in place")


def test_lengths_that_differ_must_raise(rejects):
    rejects(check_evidence_coverage, coverage_no_length_check, "ValueError", "zip()")


def test_the_stub_is_rejected(rejects):
    rejects(check_evidence_coverage, coverage_stub, "not written yet")


def test_reference_on_a_hand_computed_case():
    ids = ["D1:1", "D1:2", "D1:3", "D2:1"]
    questions = [Question("a", "x", ("D1:1", "D2:1"), 1), Question("b", "y", ("D1:3",), 4),
                 Question("c", None, ("D1:2",), 5), Question("d", "z", (), 3)]
    contexts = [{1}, {3}, {2}, {1, 2, 3, 4}]
    got = reference_coverage(ids, questions, contexts)
    assert got == {"1-4": {"all": 0.5, "any": 1.0, "rated": 2},
                   1: {"all": 0.0, "any": 1.0, "rated": 1},
                   4: {"all": 1.0, "any": 1.0, "rated": 1},
                   5: {"all": 1.0, "any": 1.0, "rated": 1},
                   3: {"all": None, "any": None, "rated": 0}}
