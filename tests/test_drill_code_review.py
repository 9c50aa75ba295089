"""Drill 06, code-review (kit.drills.code_review): listed, shows the buggy source from the
module, fails on its starter, passes on its model solution, rejects the buggy class and
each one-bug variant ("fixed four of five") with their hints, gives a deterministic rubric,
and runs from the command line on a .py file."""
from __future__ import annotations

import subprocess
import sys

import pytest

from kit.checks import CheckFailed
from kit.drills import CATEGORIES, check_drill, drills, load_answer, run
from kit.drills.code_review import DRILL
from kit.mistakes import mistakes
from kit.mistakes.review import BUGS, BuggyMemory, ReviewedReference

import drill_notebooks  # tests/drill_notebooks.py
from drill_notebooks import ROOT, lessons, notebook_of

NOTEBOOK = notebook_of(DRILL)


def exercise_source(learner: bool = False) -> str:
    return drill_notebooks.exercise_source(DRILL, learner)


def answer(learner: bool = False):
    return drill_notebooks.answer(DRILL, learner)


def test_the_drill_is_listed():
    assert DRILL in drills()
    assert (DRILL.name, DRILL.title, DRILL.minutes, DRILL.symbol, DRILL.notebook,
            DRILL.mechanism) == ("code-review", "Code review: find and fix the bugs", 20,
                                 "ReviewedMemory", "06_code_review", "code review")
    assert tuple(DRILL.rubric) == CATEGORIES


def test_the_notebook_prints_the_buggy_source_from_its_one_module():
    cells = lessons.read(NOTEBOOK).cells
    assert "inspect.getsource(BuggyMemory)" in cells[2].source      # one source of truth
    assert "class BuggyMemory" not in "".join(c.source for c in cells)


@pytest.mark.parametrize("fixed", ["model", "reference"])
def test_the_fixed_class_passes_every_category(fixed):
    report = run(DRILL.name, answer() if fixed == "model" else ReviewedReference)
    assert report.passed, report.text()


WRONG = mistakes("code review")


def test_the_buggy_class_and_five_one_bug_variants_are_registered():
    answers = [m.answer for m in WRONG]
    assert answers[0] is BuggyMemory and answers[1:] == list(BUGS) and len(BUGS) == 5


@pytest.mark.parametrize("wrong", WRONG, ids=[m.name for m in WRONG])
def test_each_wrong_answer_fails_a_category_with_its_hint(wrong):
    report = run(DRILL.name, wrong.answer)
    failed = [detail for _, ok, detail in report.rows if not ok]
    assert failed, f"{wrong.name} passed every category"
    assert any(wrong.hint in detail for detail in failed), (wrong.hint, failed)


def test_the_buggy_class_fails_every_category():
    assert run(DRILL.name, BuggyMemory).score == (0, 4)


def test_the_rubric_text_is_deterministic():
    for candidate in (answer(), BUGS[3], answer(learner=True)):
        assert run(DRILL.name, candidate).text() == run(DRILL.name, candidate).text()


def test_check_drill_prints_the_rubric_then_raises(capsys):
    with pytest.raises(CheckFailed, match="rubric categories pass"):
        check_drill(DRILL.name, BUGS[3], started=0.0)
    out = capsys.readouterr().out
    assert out.startswith(f"Drill {DRILL.name}: {DRILL.title}")
    assert "overwritten instead of updated" in " ".join(out.split()) and "time taken:" in out
    assert "PASS summary memory" not in out           # the checker's own line stays out
    assert check_drill(DRILL.name, answer()).passed


def test_load_answer_and_the_command_line(tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(exercise_source(), encoding="utf-8")
    bad.write_text("from kit.mistakes.review import BuggyMemory as ReviewedMemory\n",
                   encoding="utf-8")
    assert run(DRILL.name, load_answer(DRILL.name, good)).passed
    for path, code in ((good, 0), (bad, 1)):
        done = subprocess.run([sys.executable, "-m", "kit", "drill", DRILL.name, str(path)],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == code, done.stdout + done.stderr
