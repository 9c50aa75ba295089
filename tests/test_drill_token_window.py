"""Drill 01, token-window (kit.drills.token_window): listed, fails on its starter, passes on
its model solution, rejects the registered wrong answers of "token window" with their
hints (each in the category it belongs to), gives a deterministic rubric, and runs from
the command line on a .py file."""
from __future__ import annotations

import subprocess
import sys

import pytest

from kit.checks import CheckFailed
from kit.checks import token_window as checker
from kit.drills import CATEGORIES, check_drill, drills, load_answer, run
from kit.drills.token_window import DRILL
from kit.memory import TokenWindow
from kit.mistakes import mistakes

import drill_notebooks  # tests/drill_notebooks.py
from drill_notebooks import ROOT

def exercise_source(learner: bool = False) -> str:
    return drill_notebooks.exercise_source(DRILL, learner)


def answer(learner: bool = False):
    return drill_notebooks.answer(DRILL, learner)


def test_the_drill_is_listed():
    assert DRILL in drills()
    assert (DRILL.name, DRILL.title, DRILL.minutes, DRILL.symbol, DRILL.notebook,
            DRILL.mechanism) == ("token-window", "A token-budget window", 20, "TokenWindow",
                                 "01_token_window", "token window")
    assert tuple(DRILL.rubric) == CATEGORIES


def test_the_model_solution_passes_every_category():
    report = run(DRILL.name, answer())
    assert report.passed, report.text()
    assert [(c, ok, d) for c, ok, d in report.rows] == [
        ("correctness", True, "10 cases"), ("failure safety", True, "75 cases"),
        ("edge cases", True, "20 cases"), ("complexity", True, "4 cases")]


def test_the_kit_class_passes_and_the_parts_add_up_to_the_lesson_check(capsys):
    assert run(DRILL.name, TokenWindow).passed
    total = sum(part(TokenWindow) for part in checker.PARTS)
    checker.check_token_window(TokenWindow)
    assert total == 109
    assert capsys.readouterr().out == f"PASS token window: {total} cases correct\n"
    assert set(checker.PARTS) == set(checker.RUBRIC.values())


WRONG = mistakes(DRILL.mechanism)


@pytest.mark.parametrize("name, category", [
    ("recounts-every-add", "complexity"), ("measures-twice", "complexity"),
    ("size-recounts", "complexity"), ("system-not-counted", "edge cases"),
    ("evicts-at-budget", "edge cases"), ("keeps-orphan", "edge cases"),
    ("drops-one-orphan", "edge cases"), ("drops-greeting", "edge cases"),
    ("context-without-system", "edge cases"), ("accepts-oversized", "failure safety"),
    ("raises-after-evicting", "failure safety"), ("zero-slice", "failure safety"),
    ("messages-aliased", "failure safety"), ("evicts-before-append", "correctness"),
    ("size-counts-labels", "correctness"), ("orphans-only-on-eviction", "edge cases"),
    ("refused-takes-a-number", "failure safety"), ("messages-share-dicts", "failure safety")])
def test_mistakes_fail_the_category_they_belong_to(name, category):
    wrong = next(m for m in WRONG if m.name == name)
    rows = {c: (ok, detail) for c, ok, detail in run(DRILL.name, wrong.answer).rows}
    assert not rows[category][0] and wrong.hint in rows[category][1], rows[category]


@pytest.mark.parametrize("name", ["recounts-every-add", "raises-after-evicting", "accepts-oversized",
                                  "messages-aliased"])
def test_a_mistake_of_one_kind_passes_the_other_categories(name):
    """The rubric separates the kinds: a complexity, an edge-case or a failure-safety
    mistake leaves correctness passing."""
    wrong = next(m for m in WRONG if m.name == name)
    failing = [c for c, ok, _ in run(DRILL.name, wrong.answer).rows if not ok]
    assert len(failing) == 1 and failing != ["correctness"], failing


def test_check_drill_prints_the_rubric_then_raises(capsys):
    wrong = next(m.answer for m in WRONG if m.name == "accepts-oversized")
    with pytest.raises(CheckFailed, match="3/4 rubric categories pass"):
        check_drill(DRILL.name, wrong, started=None)
    out = capsys.readouterr().out
    assert out.startswith(f"Drill {DRILL.name}: ") and "failure safety  FAIL" in out
    assert "score: 3/4" in out and "time taken" not in out
    report = check_drill(DRILL.name, answer(), started=0.0)
    assert report.passed and "time taken: " in capsys.readouterr().out


def test_load_answer_and_the_command_line(tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    source = exercise_source()
    good.write_text(source, encoding="utf-8")
    assert "while self.size > self.budget:" in source
    bad.write_text(source.replace("while self.size > self.budget:",
                                  "while self.size >= self.budget:"), encoding="utf-8")
    assert load_answer(DRILL.name, good).__name__ == DRILL.symbol
    for path, code in ((good, 0), (bad, 1)):
        done = subprocess.run([sys.executable, "-m", "kit", "drill", DRILL.name, str(path)],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert done.returncode == code, done.stdout + done.stderr
        assert f"Drill {DRILL.name}: " in done.stdout and "score: " in done.stdout
    assert "edge cases      FAIL" in done.stdout
