"""Drill 09, fact-memory (kit.drills.fact_memory): listed, fails on its starter, passes on
its model solution, rejects the registered wrong answers of "fact memory" with their hints,
gives a deterministic rubric, and runs from the command line on a .py file."""
from __future__ import annotations

import subprocess
import sys

import pytest

from kit.checks import CheckFailed
from kit.checks import fact_memory as checker
from kit.drills import CATEGORIES, check_drill, drills, load_answer, run
from kit.drills.fact_memory import DRILL
from kit.longterm.facts import FactTable
from kit.mistakes import mistakes

import drill_notebooks  # tests/drill_notebooks.py
from drill_notebooks import ROOT


def answer(learner: bool = False):
    return drill_notebooks.answer(DRILL, learner)


def test_the_drill_is_listed():
    assert DRILL in drills()
    assert (DRILL.name, DRILL.minutes, DRILL.symbol, DRILL.notebook, DRILL.mechanism) == (
        "fact-memory", 30, "FactWriter", "09_fact_memory", "fact memory")
    assert tuple(DRILL.rubric) == CATEGORIES


def test_the_model_solution_passes_and_the_starter_fails():
    report = run(DRILL.name, answer())
    assert report.passed, report.text()
    assert [(c, ok, d) for c, ok, d in report.rows] == [
        ("correctness", True, "5 cases"), ("failure safety", True, "4 cases"),
        ("edge cases", True, "8 cases"), ("complexity", True, "2 cases")]
    assert run(DRILL.name, answer(learner=True)).score == (0, 4)


def test_the_parts_add_up_to_the_lesson_check(capsys):
    total = sum(part(FactTable) for part in checker.PARTS)
    checker.check_fact_writer(FactTable)
    assert capsys.readouterr().out == f"PASS FactWriter: {total} cases correct\n"


@pytest.mark.parametrize("wrong", mistakes(DRILL.mechanism), ids=lambda m: m.name)
def test_every_mistake_fails_the_rubric_with_its_hint(wrong):
    rows = run(DRILL.name, wrong.answer).rows
    failing = [detail for _, ok, detail in rows if not ok]
    assert failing and any(wrong.hint in detail for detail in failing), rows


def test_check_drill_prints_the_rubric_then_raises(capsys):
    wrong = next(m.answer for m in mistakes(DRILL.mechanism) if m.name == "malformed-half-written")
    with pytest.raises(CheckFailed, match="rubric categories pass"):
        check_drill(DRILL.name, wrong, started=None)
    out = capsys.readouterr().out
    assert out.startswith(f"Drill {DRILL.name}: ") and "failure safety  FAIL" in out


def test_load_answer_and_the_command_line(tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    source = drill_notebooks.exercise_source(DRILL)
    good.write_text(source, encoding="utf-8")
    assert "closed_by=candidate.source" in source
    bad.write_text(source.replace("closed_by=candidate.source", "closed_by=()"), encoding="utf-8")
    assert load_answer(DRILL.name, good).__name__ == DRILL.symbol
    for path, code in ((good, 0), (bad, 1)):
        done = subprocess.run([sys.executable, "-m", "kit", "drill", DRILL.name, str(path)],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert done.returncode == code, done.stdout + done.stderr
        assert "score: " in done.stdout
    assert "correctness     FAIL" in done.stdout
