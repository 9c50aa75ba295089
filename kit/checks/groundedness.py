"""Checkers for lesson 08, exercises 2 and 3 (evaluating the RAG chatbot): judged
groundedness, from one judge reply to the score over many answers.

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
:class:`kit.checks.CheckFailed` naming the case and the likely mistake. Exercise 1
(recall@k) is in :mod:`kit.checks.recall`.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from kit.checks import (CheckFailed, call_learner, call_pure, expect, is_number, passed,
                        same_number, show_call)

__all__ = ["check_parse_verdict", "check_aggregate_groundedness"]


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
    if 0.0 in judged and truthy and same_number(score, sum(truthy) / len(truthy)):
        return ("`if v` drops the 0.0 verdicts too (0.0 is falsy): keep the judged ones "
                "with `v is not None`")
    if score is None and sum(judged) == 0:
        if got.get("judged") == 0:
            return ("`if v` drops the 0.0 verdicts too (0.0 is falsy): keep the judged ones "
                    "with `v is not None`")
        return ("a mean of 0.0 is a score: `mean or None` turns it into None; test "
                "`if judged` (the list), not the mean")
    if None in verdicts and same_number(score, as_zero):
        return ("an unjudged answer counted as 0 (or you divided by every answer): the mean "
                "is over judged answers only, sum(judged) / len(judged). Counting unjudged "
                "as 0 blames the generator for the judge's failures")
    if None in verdicts and same_number(score, as_one):
        return ("an unjudged answer counted as grounded: the mean is over judged answers "
                "only. Counting unjudged as 1 hides a broken judge behind a good score")
    if is_number(score) and abs(score - _aggregate(verdicts)["groundedness"]) < 0.01:
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
        expect(same_number(got["groundedness"], score),
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
