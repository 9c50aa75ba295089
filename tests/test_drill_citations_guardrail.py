"""Drill 05, citations-guardrail (kit.drills.citations_guardrail): listed, fails on its
starter, passes on its model solution, rejects the registered wrong answers of "citations
and guardrail" with their hints, counts steps (not time) for its complexity row, gives a
deterministic rubric, and runs from the command line on a .py file."""
from __future__ import annotations

import subprocess
import sys

import pytest

from kit.checks import CheckFailed
from kit.drills import CATEGORIES, check_drill, drills, load_answer, run
from kit.drills.citations_guardrail import DRILL, count_steps, expected_answer
from kit.mistakes import mistakes
from kit.rag import REFUSAL, Chunk

import drill_notebooks  # tests/drill_notebooks.py
from drill_notebooks import ROOT

def exercise_source(learner: bool = False) -> str:
    return drill_notebooks.exercise_source(DRILL, learner)


def answer(learner: bool = False):
    return drill_notebooks.answer(DRILL, learner)


def test_the_drill_is_listed():
    assert DRILL in drills()
    assert (DRILL.name, DRILL.title, DRILL.minutes, DRILL.symbol, DRILL.notebook,
            DRILL.mechanism) == ("citations-guardrail", "Citation parser and guardrail", 15,
                                 "guarded_answer", "05_citations_guardrail",
                                 "citations and guardrail")
    assert tuple(DRILL.rubric) == CATEGORIES


def test_the_model_solution_passes_every_category():
    report = run(DRILL.name, answer())
    assert report.passed, report.text()
    assert report.score == (4, 4)


def test_the_worked_examples():
    chunks = [Chunk("c1", "Prepaid refunds take 5 working days.", "refunds.md"),
              Chunk("c2", "Cash-on-delivery refunds are paid as store credit.", "refunds.md")]
    draft = "Prepaid refunds take 5 days [1]. COD refunds are store credit [2, 1]."
    for guarded in (answer(), expected_answer):
        assert guarded(draft, chunks) == (draft, ["c1", "c2"])
        assert guarded("Five days [1], store credit [3].", chunks) == (REFUSAL, [])


WRONG = mistakes("citations and guardrail")


@pytest.mark.parametrize("wrong", WRONG, ids=[m.name for m in WRONG])
def test_each_wrong_answer_fails_a_category_with_its_hint(wrong):
    report = run(DRILL.name, wrong.answer)
    failed = [detail for _, ok, detail in report.rows if not ok]
    assert failed, f"{wrong.name} passed every category"
    assert any(wrong.hint in detail for detail in failed), (wrong.hint, failed)


def test_complexity_counts_steps_not_time():
    model, rescans = answer(), next(m.answer for m in WRONG
                                    if m.name == "rescans-at-each-bracket")
    chunks = [Chunk("c1", "a", "a.md"), Chunk("c2", "b", "b.md")]
    small, _ = count_steps(model, "[" * 2_000, chunks)
    big, result = count_steps(model, "[" * 20_000, chunks)
    assert big <= 12 * small + 100 and result == (REFUSAL, [])
    assert count_steps(model, "[" * 2_000, chunks)[0] == small          # deterministic
    short, _ = count_steps(rescans, "[" * 200, chunks)
    longer, _ = count_steps(rescans, "[" * 2_000, chunks)
    assert longer > 50 * short                                            # quadratic shows
    with pytest.raises(CheckFailed, match="not written yet"):
        count_steps(answer(learner=True), "[1]", chunks)


def test_the_rubric_text_is_deterministic():
    for candidate in (answer(), WRONG[0].answer, answer(learner=True)):
        assert run(DRILL.name, candidate).text() == run(DRILL.name, candidate).text()


def test_check_drill_prints_the_rubric_then_raises(capsys):
    with pytest.raises(CheckFailed, match="rubric categories pass"):
        check_drill(DRILL.name, WRONG[0].answer, started=0.0)
    out = capsys.readouterr().out
    assert out.startswith(f"Drill {DRILL.name}: {DRILL.title}")
    assert "FAIL" in out and "time taken:" in out
    assert check_drill(DRILL.name, answer()).passed
    assert "score: 4/4" in capsys.readouterr().out


def test_load_answer_and_the_command_line(tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(exercise_source(), encoding="utf-8")
    bad.write_text(exercise_source(learner=True), encoding="utf-8")
    assert run(DRILL.name, load_answer(DRILL.name, good)).passed
    for path, code in ((good, 0), (bad, 1)):
        done = subprocess.run([sys.executable, "-m", "kit", "drill", DRILL.name, str(path)],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == code, done.stdout + done.stderr
        assert f"Drill {DRILL.name}" in done.stdout


def newest_first(draft, chunks):
    """Wrong, and not registered: the cited ids newest first."""
    answer, ids = expected_answer(draft, chunks)
    return answer, list(reversed(ids))


def test_an_unregistered_mistake_gets_the_rule_and_no_other_mistakes_hint():
    from kit.checks.hints import blamed
    rows = {c: (ok, detail) for c, ok, detail in run(DRILL.name, newest_first).rows}
    ok, detail = rows["correctness"]
    assert not ok and "Rule: " in detail and "Hint:" not in detail, detail
    assert blamed(detail, DRILL.mechanism) == [], detail


# -- a second right design, and the classes the cases once missed (issue 23) -----------------
def scanning_answer(draft, chunks):
    """A hand scanner, no regex: one index that only moves forward; a group is '[', whole
    numbers with a comma between each two (spaces around them), ']'."""
    numbers, i, n = [], 0, len(draft)

    def spaces(j):
        while j < n and draft[j] == " ":
            j += 1
        return j

    while i < n:
        if draft[i] != "[":
            i += 1
            continue
        j, group = spaces(i + 1), []
        while True:
            start = j
            while j < n and draft[j].isdecimal():
                j += 1
            if j == start:
                break
            digits = draft[start:j].lstrip("0") or "0"
            group.append(int(digits) if len(digits) <= 9 else 10 ** 9)
            j = spaces(j)
            if j < n and draft[j] == ",":
                j = spaces(j + 1)
                continue
            if j < n and draft[j] == "]":
                numbers += group
                j += 1
            break
        i = max(j, i + 1)
    ids = []
    for number in numbers:
        if not 1 <= number <= len(chunks):
            return REFUSAL, []
        if chunks[number - 1].id not in ids:
            ids.append(chunks[number - 1].id)
    return (draft.strip(), ids) if ids and draft.strip() else (REFUSAL, [])


@pytest.mark.parametrize("right", [scanning_answer, expected_answer],
                         ids=["hand-scanner", "kit-parser"])
def test_other_right_designs_pass_every_category(right):
    report = run(DRILL.name, right)
    assert report.passed, report.text()


def test_a_bracket_that_is_no_group_is_text():
    chunks = [Chunk("c1", "a", "a.md"), Chunk("c2", "b", "b.md")]
    for draft in ("Store credit [2,].", "See [,1] and [1 2] and [1,,2]."):
        assert expected_answer(draft, chunks) == (REFUSAL, [])
    loose = next(m.answer for m in WRONG if m.name == "loose-group")
    assert loose("Store credit [2,].", chunks) == ("Store credit [2,].", ["c2"])


def cached_by_draft():
    """Keeps each draft's answer and returns it for the same draft with other chunks."""
    cache = {}

    def guarded_answer(draft, chunks):
        if draft not in cache:
            cache[draft] = expected_answer(draft, chunks)
        return cache[draft]
    return guarded_answer


def test_a_list_kept_across_calls_is_caught_and_the_run_repeats():
    shared = next(m for m in WRONG if m.name == "shared-ids-list")
    first, second = run(DRILL.name, shared.answer), run(DRILL.name, shared.answer)
    assert first.text() == second.text() and not first.passed
    failed = {c: d for c, ok, d in first.rows if not ok}
    assert "failure safety" in failed and shared.hint in failed["failure safety"]
    assert shared.answer("No citation.", []) == (REFUSAL, [])    # put back after each run


def test_an_answer_cached_by_draft_gets_no_other_mistakes_hint():
    from kit.checks.hints import blamed
    report = run(DRILL.name, cached_by_draft())
    failed = [d for _, ok, d in report.rows if not ok]
    assert failed and all(blamed(d, DRILL.mechanism) == [] for d in failed), failed
