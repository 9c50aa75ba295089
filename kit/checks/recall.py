"""Checker for lesson 08, exercise 1 (evaluating the RAG chatbot): recall@k from the
evaluation rows.

:func:`check_recall_at_k` checks ``recall_at_k(rows, k)``. ``rows`` are
:class:`kit.rag.evaluate.EvalRow` objects (``report.rows``): ``chunk_ids`` the
retrieved ids, best first; ``gold_chunk_id`` a str, or None for a question the
documents cannot answer; ``also_correct`` ids of near-duplicates that count as the
gold. ``k`` is a cut-off in chunks, an int >= 1 (else ValueError). Return the share
of rows *with* a gold chunk whose gold id or one of its also-correct ids is among
``chunk_ids[:k]`` (a float in [0, 1], each row counted once), or None when no row has
a gold chunk. Same value as ``evaluate(..., k=k).recall``.

:func:`eval_row` builds the rows the checker (and its tests) use. The checker prints one
pass line (:func:`kit.checks.passed`) or raises :class:`kit.checks.CheckFailed` naming
the case and the likely mistake. Exercises 2 and 3 (judged groundedness) are in
:mod:`kit.checks.groundedness`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from kit.checks import CheckFailed, call_pure, expect, is_number, passed, same_number
from kit.rag.chatbot import Chatbot
from kit.rag.documents import load_corpus
from kit.rag.evaluate import EvalRow, evaluate
from kit.rag.goldset import load_eval_set
from kit.rag.retrieval import BM25Retriever
from kit.rag.stub_models import QuotingModel

__all__ = ["check_recall_at_k", "eval_row"]


def eval_row(chunk_ids: Sequence[str], gold: str | None, also: Sequence[str] = (),
             case: int = 0) -> EvalRow:
    """An :class:`EvalRow` as :func:`kit.rag.evaluate.evaluate` builds it with ``k=None``
    (``retrieved_gold`` over every retrieved id); the answer fields are placeholders."""
    accepted = (gold, *also) if gold is not None else ()
    return EvalRow(case=case, session=f"eval-{case}", question=f"question {case}",
                   answer="an answer [1].", query=f"question {case}", chunk_ids=tuple(chunk_ids),
                   gold_chunk_id=gold,
                   retrieved_gold=any(i in accepted for i in chunk_ids) if accepted else None,
                   cited_gold=None, refused=False, groundedness=1.0, also_correct=tuple(also))


def _recall(rows: Sequence[EvalRow], k: int | None, *, also: bool = True, skip: bool = True,
            also_anywhere: bool = False, per_id: bool = False) -> float | None:
    """Recall@k, right (defaults) or with one typical mistake switched on: ignoring
    ``also_correct``, dividing by every row, looking for also-correct ids past k, counting
    a row once per accepted id (``k=None`` ignores k)."""
    counted = [r for r in rows if r.gold_chunk_id is not None] if skip else list(rows)
    if not counted:
        return None
    hits = 0
    for r in counted:
        if r.gold_chunk_id is None:
            continue
        top, extra = r.chunk_ids[:k], r.also_correct if also else ()
        if per_id:
            hits += sum(i in (r.gold_chunk_id, *extra) for i in top)
        else:
            where = r.chunk_ids if also_anywhere else top
            hits += r.gold_chunk_id in top or any(a in where for a in extra)
    return hits / len(counted)


def _rows(*specs: tuple) -> list[EvalRow]:
    return [eval_row(*spec, case=i) for i, spec in enumerate(specs)]


IDS = ("a", "b", "c", "d", "e", "f")
# (rows, k, why): each set of rows tells one typical mistake from the right answer
_RECALL_CASES = [
    (_rows((IDS, "a"), (IDS, "c"), (IDS, "z"), (IDS, "b")), 1, "gold at ranks 1, 3, missing, 2"),
    (_rows((IDS, "a"), (IDS, "c"), (IDS, "z"), (IDS, "b")), 2, "gold at ranks 1, 3, missing, 2"),
    (_rows((IDS, "a"), (IDS, "c"), (IDS, "z"), (IDS, "b")), 3, "gold at ranks 1, 3, missing, 2"),
    (_rows((IDS, "a"), (IDS, "c"), (IDS, "z"), (IDS, "b")), 10,
     "k larger than the list: every id counts"),
    (_rows((IDS, "a"), (IDS, None), (IDS, "e"), (IDS, None)), 2,
     "two rows have no gold chunk (questions the documents cannot answer): skip them"),
    (_rows((IDS, "d", ("a",)), (IDS, "c"), (IDS, "e")), 1,
     "row 0's gold is at rank 4 but its also-correct near-duplicate is at rank 1: a hit"),
    (_rows((IDS, "a", ("b",)), (IDS, "b", ("a", "c")), (IDS, "z")), 3,
     "rows 0 and 1 have the gold and an also-correct id in the top 3: each row counts once"),
    (_rows((IDS, "z", ("f",)), (IDS, "a"), (IDS, "z", ("e",)), (IDS, "e"), (IDS, "y")), 3,
     "the also-correct ids of rows 0 and 2 are at ranks 6 and 5, past k=3: misses"),
    (_rows(((), "a"), (("b",), "b"), (IDS, "z")), 1, "nothing retrieved for row 0: a miss"),
]


def _recall_hint(got: object, rows: list[EvalRow], k: int) -> str:
    """The likely mistake behind a wrong recall."""
    mistakes = [
        (_recall(rows, None), "only the first k ids count: look at row.chunk_ids[:k] (row."
                              "retrieved_gold was measured at the run's k, not at yours)"),
        (_recall(rows, k, skip=False), "divide by the rows that HAVE a gold chunk: a row "
                                       "with gold_chunk_id None is skipped, not a miss"),
        (_recall(rows, k, also=False), "an also-correct id in the top k is a hit too: accept "
                                       "{row.gold_chunk_id, *row.also_correct}"),
        (_recall(rows, k, per_id=True), "count each row once (a hit or not), however many "
                                        "accepted ids are in its top k"),
        (_recall(rows, k, also_anywhere=True), "also-correct ids count only within the first "
                                               "k too"),
    ]
    want = _recall(rows, k)
    for wrong, hint in mistakes:
        if not same_number(wrong, want) and same_number(got, wrong):
            return hint
    if is_number(got) and want is not None and abs(got - want) < 0.01:
        return "do not round: return the exact share (round only when you print it)"
    return ("for each row with a gold chunk, hit = any accepted id in row.chunk_ids[:k]; "
            "return hits / (rows with a gold chunk)")


def _show_rows(rows: list[EvalRow]) -> str:
    parts = []
    for r in rows:
        also = f" (also {', '.join(r.also_correct)})" if r.also_correct else ""
        parts.append(f"[{' '.join(r.chunk_ids) or '-'}] gold {r.gold_chunk_id}{also}")
    return "; ".join(parts)


def check_recall_at_k(recall_at_k: Callable[[Sequence[EvalRow], int], float | None]) -> None:
    """Check ``recall_at_k(rows, k)``; print one pass line or raise CheckFailed.

    Rejects: ignoring ``k`` (or using ``row.retrieved_gold``), dividing by every row
    (no-gold rows included), ignoring ``also_correct``, counting a row once per accepted
    id, counting also-correct ids past ``k``, rounding, returning 0 (or raising) instead
    of None when no row has a gold chunk, accepting ``k`` < 1. Also compares with
    ``kit.rag.evaluate.evaluate(..., k=k).recall`` on the shipped gold set.
    """
    cases = 0
    for rows, k, why in _RECALL_CASES:
        label = f"recall_at_k({len(rows)} rows: {_show_rows(rows)}, k={k})"
        got = call_pure(recall_at_k, rows, k, name="recall_at_k", shown=label)
        want = _recall(rows, k)
        expect(is_number(got),
               f"{label} should return a number (a share between 0 and 1), got {got!r:.80}")
        expect(same_number(got, want),
               f"{label} should be {want:.4g}, got {got!r:.80} ({why}). "
               f"Hint: {_recall_hint(got, rows, k)}.")
        cases += 1
    for rows in (_rows((IDS, None), (("a",), None)), []):
        label = f"recall_at_k({len(rows)} rows, none with a gold chunk, k=3)"
        got = call_pure(recall_at_k, rows, 3, name="recall_at_k", shown=label,
                        hint="With no gold chunk there is nothing to measure: return None "
                             "before dividing (a ZeroDivisionError means you divided by 0)")
        expect(got is None, f"{label} should return None (nothing to measure), got {got!r}. "
                            f"A recall of 0 would say retrieval failed every time; None says "
                            f"no case could tell, and a report prints it as n/a.")
        cases += 1
    rows = _rows((IDS, "a"), (IDS, "c"))
    for k in (0, -1):
        label = f"recall_at_k(2 rows, k={k})"
        try:
            got = call_pure(recall_at_k, rows, k, name="recall_at_k", shown=label,
                            expected=(ValueError,))
        except ValueError:
            cases += 1
            continue
        sliced = "empty" if k == 0 else "all but the last id"
        raise CheckFailed(f"{label} returned {got!r} instead of raising ValueError. k counts "
                          f"chunks, so recall@{k} means nothing, and a silent number would look "
                          f"like a result (chunk_ids[:{k}] is {sliced}): "
                          f"raise ValueError(f\"k must be >= 1, got {{k}}\").")
    for k, rows, want in _gold_set_cases():
        label = f"recall_at_k(the {len(rows)} BM25 rows of the shipped gold set, k={k})"
        got = call_pure(recall_at_k, rows, k, name="recall_at_k", shown=label)
        expect(same_number(got, want),
               f"{label} should be {want:.4g} (evaluate(..., k={k}).recall), "
               f"got {got!r:.80}. Hint: {_recall_hint(got, rows, k)}.")
        cases += 1
    passed("recall_at_k", cases)


def _gold_set_cases() -> list[tuple[int, list[EvalRow], float]]:
    """(k, rows of one BM25 run at top_k=10 with k=None, the harness's recall@k)."""
    corpus, questions = load_corpus(), load_eval_set().questions
    rows = list(evaluate(Chatbot(BM25Retriever(corpus), QuotingModel(), top_k=10), questions,
                         None).rows)
    return [(k, rows, evaluate(Chatbot(BM25Retriever(corpus), QuotingModel(), top_k=10),
                               questions, None, k=k).recall) for k in (1, 2, 5)]
