"""Drill 08, agent-context (kit.drills.agent_context): listed, fails on its starter, passes on
its model solution, rejects the registered wrong answers of "agent context" with their hints
(each in the category it belongs to), and runs from the command line on a .py file."""
from __future__ import annotations

import subprocess
import sys

import pytest

from kit.checks import CheckFailed
from kit.checks import agent_context as checker
from kit.drills import CATEGORIES, check_drill, drills, load_answer, run
from kit.drills.agent_context import DRILL
from kit.mistakes import mistakes

import drill_notebooks  # tests/drill_notebooks.py
from drill_notebooks import ROOT


def answer(learner: bool = False):
    return drill_notebooks.answer(DRILL, learner)


def test_the_drill_is_listed():
    assert DRILL in drills()
    assert (DRILL.name, DRILL.title, DRILL.minutes, DRILL.symbol, DRILL.notebook,
            DRILL.mechanism) == ("agent-context", "A context manager for an agent loop", 30,
                                 "AgentMemory", "08_agent_context", "agent context")
    assert tuple(DRILL.rubric) == CATEGORIES
    assert set(checker.PARTS) == set(checker.RUBRIC.values())


def test_the_model_solution_passes_and_the_starter_fails():
    report = run(DRILL.name, answer())
    assert report.passed, report.text()
    assert [(c, ok, d) for c, ok, d in report.rows] == [
        ("correctness", True, "41 cases"), ("failure safety", True, "26 cases"),
        ("edge cases", True, "39 cases"), ("complexity", True, "3 cases")]
    starter = run(DRILL.name, answer(learner=True))
    assert starter.score == (0, 4) and "not written yet" in starter.rows[0][2]


def test_the_kit_class_is_refused_as_an_answer():
    report = check_drill.__globals__["candidate_report"](DRILL.name, checker._Kit)
    assert report.score == (0, 4) and "the drill is to write it" in report.rows[0][2]


@pytest.mark.parametrize("name, category", [
    ("orphaned-result", "failure safety"), ("newest-result-cleared", "correctness"),
    ("clears-every-step", "correctness"), ("call-split-from-result", "edge cases"),
    ("question-cleared", "edge cases"), ("placeholder-uncounted", "correctness"),
    ("half-done-add", "failure safety")])
def test_mistakes_fail_the_category_they_belong_to(name, category):
    wrong = next(m for m in mistakes(DRILL.mechanism) if m.name == name)
    rows = {c: (ok, detail) for c, ok, detail in run(DRILL.name, wrong.answer).rows}
    assert not rows[category][0] and wrong.hint in rows[category][1], rows[category]


@pytest.mark.parametrize("name, category", [("clears-every-step", "correctness"),
                                            ("half-done-add", "failure safety")])
def test_a_mistake_of_one_kind_fails_one_category(name, category):
    wrong = next(m for m in mistakes(DRILL.mechanism) if m.name == name)
    assert [c for c, ok, _ in run(DRILL.name, wrong.answer).rows if not ok] == [category]


def test_check_drill_raises_and_the_command_line(tmp_path, capsys):
    wrong = next(m.answer for m in mistakes(DRILL.mechanism) if m.name == "clears-every-step")
    with pytest.raises(CheckFailed, match="3/4 rubric categories pass"):
        check_drill(DRILL.name, wrong)
    assert "correctness     FAIL" in capsys.readouterr().out
    good = tmp_path / "good.py"
    good.write_text(drill_notebooks.exercise_source(DRILL), encoding="utf-8")
    assert load_answer(DRILL.name, good).__name__ == DRILL.symbol
    done = subprocess.run([sys.executable, "-m", "kit", "drill", DRILL.name, str(good)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "score: 4/4" in done.stdout
