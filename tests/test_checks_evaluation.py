"""The lesson-08 checkers accept the right answers and reject the typical wrong ones."""
from __future__ import annotations

import json
import re

import pytest

from kit.checks import evaluation as checks
from kit.checks.evaluation import (check_aggregate_groundedness, check_parse_verdict,
                                   check_recall_at_k, eval_row)
from kit.rag.judge import parse_verdict as kit_parse_verdict


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


# -- parse_verdict(text) ---------------------------------------------------------------------
def parse_verdict(text):
    if not isinstance(text, str):
        return None
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*\n(.*)\n\s*```", body, re.DOTALL)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("grounded"), bool):
        return None
    return float(data["grounded"])


def verdict_raises_on_prose(text):
    data = json.loads(text.strip().removeprefix("```json").removeprefix("```").removesuffix("```"))
    return float(data["grounded"]) if isinstance(data, dict) and isinstance(data.get("grounded"), bool) else None


def verdict_yes_is_grounded(text):
    if isinstance(text, str) and text.strip().lower().rstrip(".") in ("yes", "grounded"):
        return 1.0
    return parse_verdict(text)


def _unfenced(text):
    fenced = re.fullmatch(r"```(?:json)?\s*\n(.*)\n\s*```", text.strip(), re.DOTALL)
    return fenced.group(1) if fenced else text.strip()


def verdict_truthy_value(text):                  # bool("false") is True, 1 counts
    if not isinstance(text, str):
        return None
    try:
        data = json.loads(_unfenced(text))
    except ValueError:
        return None
    if isinstance(data, dict) and data.get("grounded") is not None:
        return float(bool(data["grounded"]))
    return None


def verdict_int_is_bool(text):                   # isinstance(1, int) accepts 1 and 0
    value = parse_verdict(text)
    if value is None and isinstance(text, str):
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if isinstance(data, dict) and isinstance(data.get("grounded"), int):
            return float(data["grounded"])
    return value


def verdict_bare_true(text):
    if isinstance(text, str) and text.strip() in ("true", "false"):
        return float(text.strip() == "true")
    return parse_verdict(text)


def verdict_regex_search(text):                  # finds the verdict inside prose
    if not isinstance(text, str):
        return None
    found = re.search(r'"grounded"\s*:\s*(true|false)', text)
    return None if not found else float(found.group(1) == "true")


def verdict_extracts_braces(text):               # cuts the first {...} out of the reply
    if not isinstance(text, str) or "{" not in text:
        return None
    return parse_verdict(text[text.index("{"):text.rindex("}") + 1])


def verdict_no_fence(text):
    if not isinstance(text, str):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("grounded"), bool):
        return None
    return float(data["grounded"])


def verdict_returns_bool(text):
    value = parse_verdict(text)
    return None if value is None else bool(value)


def verdict_accepts_bytes(text):
    if isinstance(text, bytes):
        text = text.decode()
    return parse_verdict(text)


def verdict_unguarded_type(text):                # json.loads(None) raises TypeError
    try:
        data = json.loads(_unfenced(text) if isinstance(text, str) else text)
    except ValueError:
        return None
    return float(data["grounded"]) if isinstance(data, dict) and isinstance(data.get("grounded"), bool) else None


def verdict_ungrounded_is_none(text):            # 0.0 confused with "no verdict"
    value = parse_verdict(text)
    return value or None


def verdict_stub(text):
    raise NotImplementedError("Exercise: write your answer here")


# typical mistakes made together with ignoring the fence: the hint names the mistake
def verdict_truthy_no_fence(text):               # "yes", 1 and "false" all count as a verdict
    try:
        data = json.loads(text.strip())
    except (TypeError, ValueError):
        return None
    if isinstance(data, dict) and "grounded" in data:
        return float(bool(data["grounded"]))
    return None


def verdict_yes_no_no_fence(text):               # reads a verdict out of prose
    if isinstance(text, str) and text.strip().lower() in ("yes", "no"):
        return float(text.strip().lower() == "yes")
    return verdict_no_fence(text)


def verdict_int_no_fence(text):                  # isinstance(1, int), and no fence
    if not isinstance(text, str):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("grounded"), int):
        return float(data["grounded"])
    return None


def verdict_guesses_from_words(text):            # a "false" verdict read as grounded
    value = parse_verdict(text)
    return 1.0 if value is not None and "grounded" in text else value


def test_parse_verdict_right_answer_passes(passes):
    passes(check_parse_verdict, parse_verdict, "parse_verdict")


def test_the_kit_parse_verdict_passes_too(passes):
    passes(check_parse_verdict, kit_parse_verdict, "parse_verdict")


@pytest.mark.parametrize("wrong, hint", [
    (verdict_raises_on_prose, "must never raise"),
    (verdict_yes_is_grounded, "prose is no verdict"),
    (verdict_truthy_value, "only a JSON boolean counts"),
    (verdict_int_is_bool, "isinstance(1, int) is True"),
    (verdict_bare_true, "a bare JSON true is not a verdict object"),
    (verdict_regex_search, "text around the JSON makes the reply unjudged"),
    (verdict_extracts_braces, "text around the JSON makes the reply unjudged"),
    (verdict_no_fence, "read inside the fence"),
    (verdict_returns_bool, "should return the float 1.0, got True"),
    (verdict_accepts_bytes, "bytes are not a str"),
    (verdict_unguarded_type, "not a str is unjudged"),
    (verdict_ungrounded_is_none, "an ungrounded verdict is 0.0"),
    (verdict_stub, "not written yet"),
    (verdict_truthy_no_fence, "only a JSON boolean counts"),
    (verdict_yes_no_no_fence, "prose is no verdict"),
    (verdict_int_no_fence, "isinstance(1, int) is True"),
    (verdict_guesses_from_words, "the verdict here is false, read as float"),
])
def test_parse_verdict_wrong_answers_fail(wrong, hint, rejects):
    rejects(check_parse_verdict, wrong, hint)


def test_verdict_cases_agree_with_the_kit():
    for reply, want, _ in checks._VERDICT_CASES:
        assert kit_parse_verdict(reply) == want, reply


# -- aggregate_groundedness(verdicts) --------------------------------------------------------
def aggregate_groundedness(verdicts):
    for i, v in enumerate(verdicts):
        if v is not None and v not in (0.0, 1.0):
            raise ValueError(f"verdict {i} must be 1.0, 0.0 or None, got {v!r}")
    judged = [v for v in verdicts if v is not None]
    return {"groundedness": sum(judged) / len(judged) if judged else None,
            "judged": len(judged), "unjudged": len(verdicts) - len(judged)}


def _checked(verdicts):
    for v in verdicts:
        if v is not None and v not in (0.0, 1.0):
            raise ValueError(f"bad verdict {v!r}")


def aggregate_unjudged_as_zero(verdicts):
    _checked(verdicts)
    scores = [0.0 if v is None else v for v in verdicts]
    judged = sum(v is not None for v in verdicts)
    return {"groundedness": sum(scores) / len(scores) if judged else None,
            "judged": judged, "unjudged": len(verdicts) - judged}


def aggregate_unjudged_as_one(verdicts):
    _checked(verdicts)
    scores = [1.0 if v is None else v for v in verdicts]
    judged = sum(v is not None for v in verdicts)
    return {"groundedness": sum(scores) / len(scores) if judged else None,
            "judged": judged, "unjudged": len(verdicts) - judged}


def aggregate_over_all_rows(verdicts):
    _checked(verdicts)
    judged = [v for v in verdicts if v is not None]
    return {"groundedness": sum(judged) / len(verdicts) if judged else None,
            "judged": len(judged), "unjudged": len(verdicts) - len(judged)}


def aggregate_truthy_filter(verdicts):           # `if v` drops 0.0 too
    _checked(verdicts)
    judged = [v for v in verdicts if v]
    return {"groundedness": sum(judged) / len(judged) if judged else None,
            "judged": len(judged), "unjudged": len(verdicts) - len(judged)}


def aggregate_zero_when_none_judged(verdicts):
    result = aggregate_groundedness(verdicts)
    return {**result, "groundedness": result["groundedness"] or 0.0}


def aggregate_mean_or_none(verdicts):             # a mean of 0.0 becomes None
    result = aggregate_groundedness(verdicts)
    return {**result, "groundedness": result["groundedness"] or None}


def aggregate_divides_by_zero(verdicts):
    _checked(verdicts)
    judged = [v for v in verdicts if v is not None]
    return {"groundedness": sum(judged) / len(judged), "judged": len(judged),
            "unjudged": len(verdicts) - len(judged)}


def aggregate_wrong_counts(verdicts):             # unjudged counted as judged
    result = aggregate_groundedness(verdicts)
    return {**result, "judged": len(verdicts), "unjudged": 0}


def aggregate_mutates(verdicts):
    _checked(verdicts)
    while None in verdicts:
        verdicts.remove(None)
    return {"groundedness": sum(verdicts) / len(verdicts) if verdicts else None,
            "judged": len(verdicts), "unjudged": 0}


def aggregate_no_validation(verdicts):
    judged = [v for v in verdicts if v is not None]
    try:
        score = sum(judged) / len(judged) if judged else None
    except TypeError:
        score = None
    return {"groundedness": score, "judged": len(judged), "unjudged": len(verdicts) - len(judged)}


def aggregate_vague_error(verdicts):
    if any(v is not None and v not in (0.0, 1.0) for v in verdicts):
        raise ValueError("bad input")
    return aggregate_groundedness(verdicts)


def aggregate_rounded(verdicts):
    result = aggregate_groundedness(verdicts)
    score = result["groundedness"]
    return {**result, "groundedness": None if score is None else round(score, 2)}


def aggregate_stub(verdicts):
    raise NotImplementedError("Exercise: write your answer here")


def test_aggregate_right_answer_passes(passes):
    passes(check_aggregate_groundedness, aggregate_groundedness, "aggregate_groundedness")


@pytest.mark.parametrize("wrong, hint", [
    (aggregate_unjudged_as_zero, "counted as 0"),
    (aggregate_unjudged_as_one, "counted as grounded"),
    (aggregate_over_all_rows, "divided by every answer"),
    (aggregate_truthy_filter, "`if v` drops the 0.0 verdicts"),
    (aggregate_zero_when_none_judged, "nothing was judged, so there is no score"),
    (aggregate_mean_or_none, "`mean or None`"),
    (aggregate_divides_by_zero, "ZeroDivisionError"),
    (aggregate_wrong_counts, "judged should be 3 and unjudged 1"),
    (aggregate_mutates, "changed its input in place"),
    (aggregate_no_validation, "instead of raising ValueError"),
    (aggregate_vague_error, "does not name the bad value"),
    (aggregate_rounded, "do not round"),
    (aggregate_stub, "not written yet"),
])
def test_aggregate_wrong_answers_fail(wrong, hint, rejects):
    rejects(check_aggregate_groundedness, wrong, hint)


def test_aggregate_agrees_with_the_harness_report():
    """The checker's reference mean is EvalReport.groundedness over the same verdicts."""
    from dataclasses import replace

    from kit.rag.evaluate import EvalReport

    for verdicts, _ in checks._AGGREGATE_CASES:
        rows = tuple(replace(eval_row(("a",), "a", case=i), groundedness=v)
                     for i, v in enumerate(verdicts))
        report = EvalReport(rows, None)
        want = checks._aggregate(verdicts)
        assert (report.groundedness, report.judged, report.unjudged) == (
            want["groundedness"], want["judged"], want["unjudged"]), verdicts
