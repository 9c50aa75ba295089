"""The lesson-08 recall_at_k checker accepts the right answers and rejects the typical
wrong ones."""
from __future__ import annotations

import pytest

from kit.checks import recall as checks
from kit.checks.recall import check_recall_at_k, eval_row


# -- recall_at_k(rows, k) --------------------------------------------------------------------
def recall_at_k(rows, k):
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    hits = []
    for row in rows:
        if row.gold_chunk_id is None:
            continue
        accepted = {row.gold_chunk_id, *row.also_correct}
        hits.append(any(i in accepted for i in row.chunk_ids[:k]))
    return sum(hits) / len(hits) if hits else None


def recall_by_rank(rows, k):                       # right too: hit_rank is over all ids
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    gold = [r for r in rows if r.gold_chunk_id is not None]
    return sum(r.hit_rank is not None and r.hit_rank <= k for r in gold) / len(gold) if gold else None


def recall_ignores_k(rows, k):
    if k < 1:
        raise ValueError(k)
    gold = [r for r in rows if r.gold_chunk_id is not None]
    return sum(bool(r.retrieved_gold) for r in gold) / len(gold) if gold else None


def recall_over_all_rows(rows, k):
    if k < 1:
        raise ValueError(k)
    if not any(r.gold_chunk_id for r in rows):
        return None
    hits = sum(any(i in {r.gold_chunk_id, *r.also_correct} for i in r.chunk_ids[:k])
               for r in rows if r.gold_chunk_id)
    return hits / len(rows)


def recall_gold_only(rows, k):
    if k < 1:
        raise ValueError(k)
    gold = [r for r in rows if r.gold_chunk_id is not None]
    return sum(r.gold_chunk_id in r.chunk_ids[:k] for r in gold) / len(gold) if gold else None


def recall_counts_each_id(rows, k):
    if k < 1:
        raise ValueError(k)
    gold = [r for r in rows if r.gold_chunk_id is not None]
    hits = sum(i in {r.gold_chunk_id, *r.also_correct} for r in gold for i in r.chunk_ids[:k])
    return hits / len(gold) if gold else None


def recall_by_gold_rank(rows, k):                  # gold_rank is the gold id's own rank
    if k < 1:
        raise ValueError(k)
    gold = [r for r in rows if r.gold_chunk_id is not None]
    return sum(r.gold_rank is not None and r.gold_rank <= k for r in gold) / len(gold) if gold else None


def recall_also_past_k(rows, k):
    if k < 1:
        raise ValueError(k)
    gold = [r for r in rows if r.gold_chunk_id is not None]
    hits = sum(r.gold_chunk_id in r.chunk_ids[:k] or any(a in r.chunk_ids for a in r.also_correct)
               for r in gold)
    return hits / len(gold) if gold else None


def recall_zero_when_no_gold(rows, k):
    value = recall_at_k(rows, k)
    return 0.0 if value is None else value


def recall_divides_by_zero(rows, k):
    if k < 1:
        raise ValueError(k)
    gold = [r for r in rows if r.gold_chunk_id is not None]
    return sum(any(i in {r.gold_chunk_id, *r.also_correct} for i in r.chunk_ids[:k]) for r in gold) / len(gold)


def recall_no_k_check(rows, k):
    gold = [r for r in rows if r.gold_chunk_id is not None]
    hits = sum(any(i in {r.gold_chunk_id, *r.also_correct} for i in r.chunk_ids[:k]) for r in gold)
    return hits / len(gold) if gold else None


def recall_rounded(rows, k):
    value = recall_at_k(rows, k)
    return None if value is None else round(value, 2)


def recall_stub(rows, k):
    raise NotImplementedError("Exercise: write your answer here")


@pytest.mark.parametrize("right", [recall_at_k, recall_by_rank])
def test_recall_at_k_right_answers_pass(right, passes):
    passes(check_recall_at_k, right, "recall_at_k")


@pytest.mark.parametrize("wrong, hint", [
    (recall_ignores_k, "only the first k ids count"),
    (recall_over_all_rows, "divide by the rows that HAVE a gold chunk"),
    (recall_gold_only, "an also-correct id in the top k is a hit too"),
    (recall_by_gold_rank, "an also-correct id in the top k is a hit too"),
    (recall_counts_each_id, "count each row once"),
    (recall_also_past_k, "also-correct ids count only within the first k too"),
    (recall_zero_when_no_gold, "should return None (nothing to measure), got 0.0"),
    (recall_divides_by_zero, "ZeroDivisionError"),
    (recall_no_k_check, "instead of raising ValueError"),
    (recall_rounded, "do not round"),
    (recall_stub, "not written yet"),
])
def test_recall_at_k_wrong_answers_fail(wrong, hint, rejects):
    rejects(check_recall_at_k, wrong, hint)


def test_recall_cases_agree_with_the_harness():
    """The checker's reference recall is the harness's: evaluate() on the same rows."""
    from types import SimpleNamespace

    from kit.rag.evaluate import evaluate

    class Replay:                                   # a bot that retrieves what a row says
        def __init__(self, rows):
            self.by_question, self.sessions = {r.question: r for r in rows}, {}

        def ask(self, session, question):
            row = self.by_question[question]
            return SimpleNamespace(answer="a [1].", query=question, chunk_ids=row.chunk_ids,
                                   citations=[{"chunk_id": "x"}])

    for rows, k, _ in checks._RECALL_CASES:
        cases = [{"question": r.question, "gold_chunk_id": r.gold_chunk_id,
                  "also_correct": list(r.also_correct)} for r in rows]
        report = evaluate(Replay(rows), cases, None, k=k)
        assert report.recall == pytest.approx(checks._recall(rows, k)), (rows, k)


def test_eval_row_matches_the_harness_fields():
    row = eval_row(("a", "b", "c"), "c", ("b",))
    assert (row.retrieved_gold, row.hit_rank, row.gold_rank, row.also_correct) == (True, 2, 3, ("b",))
    assert eval_row(("a",), None).retrieved_gold is None
