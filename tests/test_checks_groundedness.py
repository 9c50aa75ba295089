"""The lesson-08 parse_verdict and aggregate_groundedness checkers accept the right answers
and reject the typical wrong ones."""
from __future__ import annotations

import json
import re

import pytest

from kit.checks import groundedness as checks
from kit.checks.groundedness import check_aggregate_groundedness, check_parse_verdict
from kit.checks.recall import eval_row
from kit.rag.judge import parse_verdict as kit_parse_verdict


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
