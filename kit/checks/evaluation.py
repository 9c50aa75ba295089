"""Checkers for lesson 08 (evaluating the RAG chatbot): recall@k and judged groundedness.

- :func:`check_recall_at_k`: the exercise ``recall_at_k(rows, k)``. ``rows`` are
  :class:`kit.rag.evaluate.EvalRow` objects (``report.rows``): ``chunk_ids`` the
  retrieved ids, best first; ``gold_chunk_id`` a str, or None for a question the
  documents cannot answer; ``also_correct`` ids of near-duplicates that count as the
  gold. ``k`` is a cut-off in chunks, an int >= 1 (else ValueError). Return the share
  of rows *with* a gold chunk whose gold id or one of its also-correct ids is among
  ``chunk_ids[:k]`` (a float in [0, 1], each row counted once), or None when no row has
  a gold chunk. Same value as ``evaluate(..., k=k).recall``.
- :func:`check_parse_verdict`: the exercise ``parse_verdict(text)``. After stripping
  white space, and one markdown code fence (first line ```` ``` ```` or
  ```` ```json ````, last line ```` ``` ````) if the reply is wrapped in one, the reply
  must be exactly one JSON object whose ``"grounded"`` key holds a JSON boolean: return
  1.0 for true, 0.0 for false (floats). Anything else is unjudged, None: prose,
  ``yes``, bare ``true``, ``"grounded": "yes"`` or ``1``, JSON with text around it, a
  reply that is not a str. Never raises. Same result as
  :func:`kit.rag.judge.parse_verdict` on the replies checked here.
- :func:`check_aggregate_groundedness`: the exercise ``aggregate_groundedness(verdicts)``.
  ``verdicts``: a list of 1.0, 0.0 or None (unjudged), one per answer. Return
  ``{"groundedness": mean of the judged verdicts or None if none was judged,
  "judged": int, "unjudged": int}``; ValueError naming any other value; the list is
  not changed.

Each checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from kit.checks import CheckFailed, call_learner, call_pure, expect, passed, show_call
from kit.rag.chatbot import Chatbot
from kit.rag.documents import load_corpus
from kit.rag.evaluate import EvalRow, evaluate
from kit.rag.goldset import load_eval_set
from kit.rag.retrieval import BM25Retriever
from kit.rag.stub_models import QuotingModel

__all__ = ["check_recall_at_k", "check_parse_verdict", "check_aggregate_groundedness", "eval_row"]


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


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same(got: object, want: float | None) -> bool:
    if want is None or got is None:
        return got is want
    return _is_number(got) and math.isclose(got, want, abs_tol=1e-9)


# -- exercise 1: recall_at_k(rows, k) ------------------------------------------------------

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
        if not _same(wrong, want) and _same(got, wrong):
            return hint
    if _is_number(got) and want is not None and abs(got - want) < 0.01:
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
        expect(_is_number(got),
               f"{label} should return a number (a share between 0 and 1), got {got!r:.80}")
        expect(_same(got, want), f"{label} should be {want:.4g}, got {got!r:.80} ({why}). "
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
        expect(_same(got, want), f"{label} should be {want:.4g} (evaluate(..., k={k}).recall), "
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


# -- exercise 2: parse_verdict(text) -------------------------------------------------------

_STRICT = ("only a JSON boolean counts: check isinstance(data['grounded'], bool) (a bool, "
           "not an int: isinstance(1, int) is True, and bool('false') is True)")
_PROSE = ("prose is no verdict: parse the whole reply with json.loads and return None if "
          "it fails; never search the text for a word or a pattern")
_FENCE = "is read inside the fence: strip the first line (``` or ```json) and the last (```)"
# (reply, expected, hint when the answer differs). Order matters: the typical mistakes
# (guessing from prose, a truthy non-boolean) come before the fence, so an answer that
# makes one of them and also ignores fences is told about the mistake, not the fence.
_VERDICT_CASES: list[tuple[object, float | None, str]] = [
    ('{"grounded": true, "reason": "every claim is in [1]"}', 1.0, "a grounded verdict is 1.0"),
    ('{"grounded": false, "reason": "[2] says nothing about fees"}', 0.0,
     "an ungrounded verdict is 0.0, a score, not None"),
    ('  {"grounded": true}\n', 1.0, "strip white space around the reply first"),
    ('{"reason": "all in [1]", "grounded": false}', 0.0, "the key order does not matter"),
    ("yes", None, _PROSE),
    ("no", None, _PROSE),
    ("Grounded.", None, _PROSE),
    ("The answer looks mostly grounded to me.", None, _PROSE),
    ('Verdict: {"grounded": true}', None,
     "text around the JSON makes the reply unjudged: the judge did not follow the format"),
    ('{"grounded": true} Although [2] is only partly relevant.', None,
     "text around the JSON makes the reply unjudged: the judge did not follow the format"),
    ('{"grounded": "yes"}', None, _STRICT),
    ('{"grounded": "true"}', None, _STRICT),
    ('{"grounded": "false"}', None, _STRICT),
    ('{"grounded": 1}', None, _STRICT),
    ('{"grounded": 0}', None, _STRICT),
    ('{"grounded": null, "reason": "cannot tell"}', None, _STRICT),
    ('{"verdict": true}', None, "no \"grounded\" key: unjudged (data.get('grounded'))"),
    ("true", None, "a bare JSON true is not a verdict object: check isinstance(data, dict)"),
    ('[{"grounded": true}]', None, "a list is not a verdict object: check isinstance(data, dict)"),
    ('```json\n{"grounded": false}\n```', 0.0, f"a reply wrapped in a ```json fence {_FENCE}"),
    ('```\n{"grounded": true, "reason": "ok"}\n```', 1.0,
     f"a reply wrapped in a plain ``` fence {_FENCE}"),
    ('{"grounded": true}\n{"grounded": false}', None,
     "two verdicts in one reply are no verdict: json.loads of the whole reply fails"),
    ('```json\n{"grounded": true}\n```\nHope this helps!', None,
     "text after the fence makes the reply unjudged"),
    ("{'grounded': True}", None, "a Python dict repr is not JSON: unjudged"),
    ("", None, "an empty reply is unjudged"),
    ("   \n", None, "a blank reply is unjudged"),
    (None, None, "a reply that is not a str is unjudged: check isinstance(text, str) first"),
    (b'{"grounded": true}', None,
     "bytes are not a str (json.loads would accept them): check isinstance(text, str) first"),
    (1.0, None, "a reply that is not a str is unjudged: check isinstance(text, str) first"),
]


def _verdict_hint(got: object, want: float | None, hint: str) -> str:
    """The case's hint, unless the answer's value points at another mistake: a wrong
    score where None was expected is a guess or a loose type check (the case's hint);
    a wrong score for a real verdict means the value was misread, not the fence."""
    if want is not None and got is not None and got != want:
        return (f"the verdict here is {'true' if want else 'false'}, read as "
                f"float(data['grounded']) from a JSON boolean; do not guess it from the text")
    return hint


def check_parse_verdict(parse_verdict: Callable[[object], float | None]) -> None:
    """Check ``parse_verdict(text)``; print one pass line or raise CheckFailed.

    Rejects: raising on prose, guessing a verdict from words ("yes", "grounded"),
    accepting a bare ``true``, a string, int or null value, text around the JSON, a
    second object, a Python repr, bytes or other non-str replies; not stripping white
    space or the code fence; returning True/False instead of 1.0/0.0.
    """
    for reply, want, hint in _VERDICT_CASES:
        label = show_call("parse_verdict", (reply,))
        got = call_learner(parse_verdict, reply, name="parse_verdict", shown=label,
                           hint=f"parse_verdict must never raise: a reply it cannot read is "
                                f"unjudged (None), so catch the json error (ValueError) and "
                                f"return None. Here: {hint}")
        if want is not None and got == want and type(got) is not float:
            raise CheckFailed(f"{label} should return the float {want}, got {got!r}: return "
                              f"float(data['grounded']), so a verdict is a score a mean can "
                              f"use and a table prints as {want}")
        hint = _verdict_hint(got, want, hint)
        if want is None:
            expect(got is None,
                   f"{label} should be None (unjudged), got {got!r:.60}. Hint: {hint}.")
        else:
            expect(got == want, f"{label} should be {want}, got {got!r:.60}. Hint: {hint}.")
    passed("parse_verdict", len(_VERDICT_CASES))


# -- exercise 3: aggregate_groundedness(verdicts) -----------------------------------------------

def _aggregate(verdicts: Sequence[float | None]) -> dict:
    judged = [v for v in verdicts if v is not None]
    return {"groundedness": sum(judged) / len(judged) if judged else None,
            "judged": len(judged), "unjudged": len(verdicts) - len(judged)}


_AGGREGATE_CASES: list[tuple[list, str]] = [
    ([1.0, 0.0, None, 1.0], "one unjudged answer among four"),
    ([1.0, 1.0, None, None, 1.0], "two unjudged answers, every judged one grounded"),
    ([0.0, 0.0, 1.0], "two ungrounded answers, none unjudged"),
    ([0.0, None], "the only judged answer is ungrounded: groundedness 0.0, not None"),
    ([1.0], "one grounded answer"),
    ([None, 0.0, None, 0.0, 1.0, None, 1.0, 1.0], "three unjudged among eight"),
    ([None, None], "nothing was judged"),
    ([], "no answers at all"),
]


def _aggregate_hint(got: dict, verdicts: list) -> str:
    score = got.get("groundedness")
    judged = [v for v in verdicts if v is not None]
    as_zero = sum(judged) / len(verdicts) if verdicts else None
    as_one = (sum(judged) + verdicts.count(None)) / len(verdicts) if verdicts else None
    truthy = [v for v in verdicts if v]
    if not judged:
        return ("nothing was judged, so there is no score: return None (a 0 would read as "
                "'every answer ungrounded', and n/a is what the report prints)")
    if 0.0 in judged and truthy and _same(score, sum(truthy) / len(truthy)):
        return ("`if v` drops the 0.0 verdicts too (0.0 is falsy): keep the judged ones "
                "with `v is not None`")
    if score is None and sum(judged) == 0:
        if got.get("judged") == 0:
            return ("`if v` drops the 0.0 verdicts too (0.0 is falsy): keep the judged ones "
                    "with `v is not None`")
        return ("a mean of 0.0 is a score: `mean or None` turns it into None; test "
                "`if judged` (the list), not the mean")
    if None in verdicts and _same(score, as_zero):
        return ("an unjudged answer counted as 0 (or you divided by every answer): the mean "
                "is over judged answers only, sum(judged) / len(judged). Counting unjudged "
                "as 0 blames the generator for the judge's failures")
    if None in verdicts and _same(score, as_one):
        return ("an unjudged answer counted as grounded: the mean is over judged answers "
                "only. Counting unjudged as 1 hides a broken judge behind a good score")
    if _is_number(score) and abs(score - _aggregate(verdicts)["groundedness"]) < 0.01:
        return "do not round: return the exact mean (round only when you print it)"
    return ("judged = [v for v in verdicts if v is not None]; "
            "groundedness = sum(judged) / len(judged)")


def check_aggregate_groundedness(aggregate_groundedness: Callable[[list], dict]) -> None:
    """Check ``aggregate_groundedness(verdicts)``; print one pass line or raise CheckFailed.

    Rejects: unjudged counted as 0 or as 1, dividing by every answer, dropping 0.0
    verdicts with ``if v``, a number (or an error) when nothing was judged, None for a
    mean of 0.0, wrong counts, rounding, mutating the list, accepting a value other than
    1.0, 0.0 or None without a ValueError that names it. Also 200 random lists.
    """
    cases = 0
    rng = random.Random(8)
    randoms = [([rng.choice([1.0, 0.0, None]) for _ in range(rng.randint(0, 12))], "a random list")
               for _ in range(200)]
    for verdicts, why in _AGGREGATE_CASES + randoms:
        label = show_call("aggregate_groundedness", (verdicts,))
        nothing = ("nothing was judged, so there is no mean: return None for groundedness "
                   "instead of dividing by zero" if all(v is None for v in verdicts) else "")
        got = call_pure(aggregate_groundedness, verdicts, name="aggregate_groundedness",
                        shown=label, hint=nothing)
        want = _aggregate(verdicts)
        expect(isinstance(got, dict) and set(want) <= set(got),
               f"{label} should return a dict with the keys 'groundedness', 'judged' and "
               f"'unjudged', got {got!r:.100}")
        score = want["groundedness"]
        shown = "None" if score is None else f"{score:.4g}"
        expect(_same(got["groundedness"], score),
               f"{label}: groundedness should be {shown}, got "
               f"{got['groundedness']!r:.60} ({why}). Hint: {_aggregate_hint(got, verdicts)}.")
        expect((got["judged"], got["unjudged"]) == (want["judged"], want["unjudged"]),
               f"{label}: judged should be {want['judged']} and unjudged {want['unjudged']}, "
               f"got {got['judged']!r} and {got['unjudged']!r} ({why}); None is unjudged, "
               f"1.0 and 0.0 are both judged")
        cases += 1
    for bad in (["yes"], [1.0, 0.5], [None, "grounded", 0.0]):
        value = next(v for v in bad if v is not None and v not in (0.0, 1.0))
        label = show_call("aggregate_groundedness", (bad,))
        try:
            got = call_pure(aggregate_groundedness, bad, name="aggregate_groundedness",
                            shown=label, expected=(ValueError,),
                            hint=f"{value!r} is not a verdict: check that every value is 1.0, "
                                 f"0.0 or None first and raise ValueError naming the bad one")
        except ValueError as exc:
            expect(str(value) in str(exc),
                   f"{label} raised ValueError({str(exc)!r:.80}), which does not name the bad "
                   f"value {value!r}: say which value is wrong, e.g. f\"verdict {{i}} must be "
                   f"1.0, 0.0 or None, got {{v!r}}\"")
            cases += 1
            continue
        raise CheckFailed(f"{label} returned {got!r:.80} instead of raising ValueError: "
                          f"{value!r} is not a verdict (a judge reply that slipped through "
                          f"unparsed, or a graded score). Check every value is 1.0, 0.0 or "
                          f"None first, and name the bad one in the error.")
    passed("aggregate_groundedness", cases)
