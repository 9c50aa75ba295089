"""Drill 07, system-design (kit.drills.system_design): a written drill. Listed; the stub
and an empty design fail; the model design passes; a design missing any one area fails the
category of that area naming it; deterministic; runs from the command line."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from kit.checks import CheckFailed
from kit.drills import CATEGORIES, check_drill, drills, load_answer, run
from kit.drills.system_design import DRILL, IDEAS, missing_ideas

import drill_notebooks  # tests/drill_notebooks.py
from drill_notebooks import ROOT, lessons, notebook_of


NOTEBOOK = notebook_of(DRILL)


def exercise_source(learner: bool = False) -> str:
    return drill_notebooks.exercise_source(DRILL, learner)


def design(learner: bool = False):
    return drill_notebooks.answer(DRILL, learner)


def test_the_drill_is_listed():
    assert DRILL in drills()
    assert (DRILL.name, DRILL.title, DRILL.minutes, DRILL.symbol, DRILL.notebook) == (
        "system-design", "System design: serve the chatbot to many users", 30, "DESIGN",
        "07_system_design")
    assert tuple(DRILL.rubric) == CATEGORIES
    assert {idea.category for idea in IDEAS} == set(CATEGORIES)


def test_the_notebook_says_the_check_is_coarse():
    first = lessons.read(NOTEBOOK).cells[0].source
    assert "coarse self-check" in first and "talking points" in first


@pytest.mark.parametrize("stub", ["learner", "", "   ", None])
def test_the_starter_and_an_empty_design_fail_every_category(stub):
    text = design(learner=True) if stub == "learner" else stub
    report = run(DRILL.name, text)
    assert [ok for _, ok, _ in report.rows] == [False] * len(CATEGORIES)


def test_the_learner_stub_is_a_string_that_says_not_written_yet():
    text = design(learner=True)
    assert isinstance(text, str) and "NotImplementedError" in text
    assert "not written yet" in run(DRILL.name, text).rows[0][2]


def test_the_model_design_passes_every_category():
    report = run(DRILL.name, design())
    assert report.passed, report.text()
    assert not missing_ideas(design())


def _without(text: str, idea) -> str:
    """``text`` with every keyword of one group of ``idea`` blanked out."""
    for word in idea.groups[-1] if idea.name.startswith("the transcript") else idea.groups[0]:
        text = re.sub(word, "xx", text, flags=re.IGNORECASE)
    return text


@pytest.mark.parametrize("idea", IDEAS, ids=[idea.name for idea in IDEAS])
def test_a_design_missing_one_area_fails_that_category_naming_it(idea):
    text = _without(design(), idea)
    assert idea in missing_ideas(text)
    report = run(DRILL.name, text)
    failed = {category: detail for category, ok, detail in report.rows if not ok}
    assert idea.category in failed and idea.name in failed[idea.category]
    assert "coarse keyword check" in failed[idea.category]


def test_the_rubric_text_is_deterministic():
    for text in (design(), "", _without(design(), IDEAS[0])):
        assert run(DRILL.name, text).text() == run(DRILL.name, text).text()


def test_check_drill_prints_the_rubric_then_raises(capsys):
    with pytest.raises(CheckFailed, match="rubric categories pass"):
        check_drill(DRILL.name, "Use Redis and retry on errors.", started=0.0)
    out = capsys.readouterr().out
    assert "FAIL" in out and "Say it out loud" in out and "time taken:" in out
    assert check_drill(DRILL.name, design()).passed


def test_load_answer_and_the_command_line(tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(exercise_source(), encoding="utf-8")
    bad.write_text(exercise_source(learner=True), encoding="utf-8")
    assert load_answer(DRILL.name, good) == design()
    for path, code in ((good, 0), (bad, 1)):
        done = subprocess.run([sys.executable, "-m", "kit", "drill", DRILL.name, str(path)],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == code, done.stdout + done.stderr
