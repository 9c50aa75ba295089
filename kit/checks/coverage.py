"""Checker for lesson 09 (how good is your memory?): evidence coverage by category.

:func:`check_evidence_coverage` checks the exercise
``evidence_coverage(turn_ids, questions, contexts)``:

- ``turn_ids``: the conversation's dia ids in the order the turns were added to the
  memory, so message number ``n`` (1-based, as :meth:`RecallMemory.context_numbers`
  reports them) is ``turn_ids[n - 1]``;
- ``questions``: :class:`kit.locomo.Question` objects (``.category`` 1-5, ``.evidence``
  a tuple of dia ids, possibly empty);
- ``contexts``: one collection of message numbers per question, the messages in the
  context that question got.

Return ``{key: {"all": share, "any": share, "rated": count}}`` with one key per category
present among the questions (ints 1-5) plus ``"1-4"``, always, pooled over categories
1-4; the adversarial category 5 never enters ``"1-4"``. ``rated``: the questions of the
group that have evidence; ``all`` / ``any``: the share of them whose every / at least
one evidence turn is in the context (floats in [0, 1]), None when ``rated`` is 0.
Questions without evidence are left out of the shares, not counted as misses or hits.
Raise ValueError when ``contexts`` and ``questions`` differ in length. Do not change the
inputs. Same figures as :meth:`kit.memory_scores.EvalRun.score` (source: LoCoMo,
Maharana et al., ACL 2024, scores memory by recall of the annotated evidence turns).

The checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from kit.checks import CheckFailed, call_pure, expect, passed
from kit.locomo import Question

__all__ = ["check_evidence_coverage", "reference_coverage"]

Coverage = dict


def reference_coverage(turn_ids: Sequence[str], questions: Sequence[Question],
                       contexts: Sequence, *, any_as_all: bool = False,
                       adversarial_in: bool = False, unrated_as: bool | None = None,
                       start: int = 1, empty: float | None = None) -> Coverage:
    """The right answer (defaults), or one typical mistake switched on: ``any_as_all``
    (all = any), ``adversarial_in`` (category 5 pooled into "1-4"), ``unrated_as``
    (a question without evidence counted as a hit, True, or a miss, False), ``start``
    (message numbers counted from 0), ``empty`` (0.0 instead of None when nothing is
    rated)."""
    number = {dia_id: n for n, dia_id in enumerate(turn_ids, start=start)}
    groups: dict = {"1-4": []}
    for q, numbers in zip(questions, contexts):
        keys = [q.category] + (["1-4"] if q.category != 5 or adversarial_in else [])
        for key in keys:
            groups.setdefault(key, [])
        if q.evidence:
            found = [number[e] in set(numbers) for e in q.evidence]
            pair = (all(found), any(found))
        elif unrated_as is not None:
            pair = (unrated_as, unrated_as)
        else:
            continue
        for key in keys:
            groups[key].append(pair)

    def share(values: list[bool]) -> float | None:
        return sum(values) / len(values) if values else empty

    return {key: {"all": share([a if not any_as_all else b for a, b in rated]),
                  "any": share([b for _, b in rated]), "rated": len(rated)}
            for key, rated in groups.items()}


def _q(category: int, *evidence: str) -> Question:
    answer = None if category == 5 else "an answer"
    return Question(f"question about {', '.join(evidence) or 'nothing'}", answer,
                    tuple(evidence), category, "a tempting answer" if category == 5 else None)


IDS = tuple(f"D{s}:{t}" for s in (1, 2) for t in range(1, 6))    # messages 1-10
# (questions, contexts, why): each case tells one typical mistake from the right answer
_CASES = [
    ([_q(4, "D1:2"), _q(4, "D2:3"), _q(4, "D1:5")], [{2}, {9}, {5, 6}],
     "three single-hop questions: D1:2 is message 2, D2:3 message 8, D1:5 message 5"),
    ([_q(1, "D1:1", "D2:4"), _q(1, "D1:3", "D2:5"), _q(4, "D2:1")], [{1, 9}, {3, 10}, set()],
     "multi-hop: the first question has only one of its two evidence turns"),
    ([_q(2, "D1:4"), _q(4, "D2:2"), _q(5, "D1:4"), _q(5, "D2:5")], [{4}, {1}, {4}, {4}],
     "two adversarial questions: reported under 5, never pooled into '1-4'"),
    ([_q(3), _q(3, "D1:3"), _q(4, "D2:2"), _q(3)], [{1, 2}, {3}, {3}, set()],
     "two open-domain questions have no evidence: they are not rated at all"),
    ([_q(4, "D1:1"), _q(4, "D2:1"), _q(1, "D1:2", "D1:3")], [{2, 7}, {1, 6}, {1, 2}],
     "each context holds the message just after (or before) an evidence turn"),
    ([_q(5, "D1:2"), _q(5, "D1:3")], [(2,), (1,)],
     "adversarial questions only: '1-4' is there, with nothing rated"),
    ([_q(4, "D1:5"), _q(1, "D1:5", "D2:1"), _q(2, "D2:5")], [(5, 6), (5, 6), (10,)],
     "contexts as tuples, evidence at the end of a session"),
]


def _close(got: object, want: float | None) -> bool:
    if want is None or got is None:
        return got is want
    return (isinstance(got, (int, float)) and not isinstance(got, bool)
            and math.isclose(got, want, abs_tol=1e-9))


def _same(got: object, want: Coverage) -> bool:
    if not isinstance(got, dict) or set(got) != set(want):
        return False
    for key, row in want.items():
        if not isinstance(got[key], dict) or set(got[key]) != {"all", "any", "rated"}:
            return False
        if not (_close(got[key]["all"], row["all"]) and _close(got[key]["any"], row["any"])
                and got[key]["rated"] == row["rated"] and type(got[key]["rated"]) is int):
            return False
    return True


_MISTAKES = [
    ({"start": 0}, "message numbers are 1-based: message n is turn_ids[n - 1], so build "
                   "{dia_id: n for n, dia_id in enumerate(turn_ids, start=1)}"),
    ({"any_as_all": True}, '"all" means every evidence turn is in the context (all(found)); '
                           'one of them is "any"'),
    ({"adversarial_in": True}, 'category 5 (adversarial) is reported under 5 only: keep it out '
                               'of "1-4" (its evidence is the tempting turn, not an answer)'),
    ({"unrated_as": True}, "a question without evidence is not rated: leave it out of the "
                           "shares (all() of an empty list is True, so it looked covered)"),
    ({"unrated_as": False}, "divide by the questions that HAVE evidence (rated), not by every "
                            "question of the group"),
    ({"empty": 0.0}, 'a group with nothing rated has no share: return None for "all" and '
                     '"any", not 0 (0 would say the memory failed every question)'),
]


def _hint(got: object, questions: list[Question], contexts: list) -> str:
    want = reference_coverage(IDS, questions, contexts)
    for options, hint in _MISTAKES:
        wrong = reference_coverage(IDS, questions, contexts, **options)
        if not _same(wrong, want) and _same(got, wrong):
            return hint
    if isinstance(got, dict) and set(got) != set(want):
        return (f"return one key per category present ({sorted(k for k in want if k != '1-4')}) "
                f"plus \"1-4\", always; got keys {sorted(map(str, got))}")
    return ('for each question with evidence: found = [number[e] in context for e in '
            'evidence]; all(found) and any(found) go to its category and, unless it is 5, '
            'to "1-4"; shares over the rated questions')


def _show(questions: list[Question], contexts: list) -> str:
    return "; ".join(f"cat {q.category} evidence [{' '.join(q.evidence) or '-'}] context "
                     f"{sorted(c)}" for q, c in zip(questions, contexts))


def _call(fn: Callable, questions: list[Question], contexts: list, label: str) -> object:
    return call_pure(fn, list(IDS), questions, contexts, name="evidence_coverage", shown=label)


def check_evidence_coverage(evidence_coverage: Callable) -> None:
    """Check ``evidence_coverage(turn_ids, questions, contexts)``; print one pass line or
    raise CheckFailed.

    Rejects: counting any as all, pooling adversarial questions into "1-4", rating
    questions without evidence (as hits or as misses), off-by-one message numbers,
    0 instead of None for nothing rated, missing keys, changing the inputs, accepting
    contexts and questions of different lengths. Then compares with the kit's evaluator
    (:func:`kit.memory_eval.evaluate`) on the synthetic conversation.
    """
    cases = 0
    for questions, contexts, why in _CASES:
        label = (f"evidence_coverage(turn_ids D1:1..D1:5 D2:1..D2:5 = messages 1-10, "
                 f"{_show(questions, contexts)})")
        got = _call(evidence_coverage, questions, contexts, label)
        want = reference_coverage(IDS, questions, contexts)
        expect(isinstance(got, dict), f"{label} should return a dict, got {got!r:.80}")
        expect(_same(got, want), f"{label} should be {want}, got {got!r:.300} ({why}). "
                                 f"Hint: {_hint(got, questions, contexts)}.")
        cases += 1
    questions, contexts = [_q(4, "D1:1"), _q(4, "D1:2")], [{1}]
    label = "evidence_coverage(turn_ids, 2 questions, 1 context)"
    try:
        got = call_pure(evidence_coverage, list(IDS), questions, contexts,
                        name="evidence_coverage", shown=label, expected=(ValueError,))
    except ValueError:
        cases += 1
    else:
        raise CheckFailed(f"{label} returned {got!r:.120} instead of raising ValueError. "
                          f"zip() stops at the shorter list, so a question would silently go "
                          f"unscored: check len(contexts) == len(questions) first.")
    cases += _check_against_evaluator(evidence_coverage)
    passed("evidence_coverage", cases)


def _check_against_evaluator(evidence_coverage: Callable) -> int:
    """The learner's figures on the synthetic conversation against the evaluator's, for
    recall memory at 300 tokens (contexts by message number). Returns the cases run."""
    from kit.memory import RecallMemory, RecallSearch
    from kit.memory_eval import evaluate
    from kit.synthetic import synthetic_conversation
    from kit.tokens import count_words

    conversation = synthetic_conversation()
    holder: dict = {}

    def factory(measure):
        holder["memory"] = RecallMemory(      # BM25 alone: the same with or without the extra
            300, measure, search=RecallSearch(embedder=None))
        return holder["memory"]

    run = evaluate(conversation, factory, "recall", measure=count_words)
    memory = holder["memory"]
    contexts = [set(memory.context_numbers(q.question)) for q in conversation.questions]
    turn_ids = [t.dia_id for t in conversation.turns]
    label = ("evidence_coverage(the synthetic conversation's 400 turn ids, its "
             f"{len(conversation.questions)} questions, recall memory's contexts at 300 words)")
    got = call_pure(evidence_coverage, turn_ids, list(conversation.questions), contexts,
                    name="evidence_coverage", shown=label)
    groups = {c: run.score([c]) for c in sorted({q.category for q in conversation.questions})}
    groups["1-4"] = run.score([1, 2, 3, 4])
    want = {key: {"all": s.all_evidence, "any": s.any_evidence, "rated": s.with_evidence}
            for key, s in groups.items()}
    expect(_same(got, want), f"{label} should match the evaluator (EvalRun.score): {want}, got "
                             f"{got!r:.300}. Hint: message n is turn_ids[n - 1]; adversarial "
                             f"questions stay out of \"1-4\".")
    return 1
