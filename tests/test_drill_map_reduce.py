"""Drill 03, map-reduce (kit.drills.map_reduce): listed, fails on its starter, passes on its
model solution, rejects the registered wrong answers of "map-reduce" with their hints,
gives a deterministic rubric, and runs from the command line on a .py file."""
from __future__ import annotations

import subprocess
import sys

import pytest

from kit.checks import CheckFailed
from kit.drills import CATEGORIES, check_drill, drills, load_answer, run
from kit.drills.map_reduce import DRILL, check_empty_items
from kit.mistakes import mistakes

import drill_notebooks  # tests/drill_notebooks.py
from drill_notebooks import ROOT

def exercise_source(learner: bool = False) -> str:
    return drill_notebooks.exercise_source(DRILL, learner)


def answer(learner: bool = False):
    return drill_notebooks.answer(DRILL, learner)


def test_the_drill_is_listed():
    assert DRILL in drills()
    assert (DRILL.name, DRILL.minutes, DRILL.symbol, DRILL.mechanism) == (
        "map-reduce", 30, "map_reduce", "map-reduce")
    assert tuple(DRILL.rubric) == CATEGORIES


def test_the_model_solution_passes_every_category():
    report = run(DRILL.name, answer())
    assert report.passed, report.text()
    assert [(c, ok, d) for c, ok, d in report.rows] == [
        ("correctness", True, "3 cases"), ("failure safety", True, "5 cases"),
        ("edge cases", True, "4 cases"), ("complexity", True, "5 cases")]


WRONG = mistakes(DRILL.mechanism)


@pytest.mark.parametrize("name, category", [
    ("no-round-limit", "failure safety"), ("no-progress-check", "failure safety"),
    ("ignores-max-rounds", "failure safety"), ("batches-by-count", "complexity"),
    ("summarises-a-lone-summary", "edge cases"), ("drops-an-oversize-item", "edge cases"),
    ("packs-below-window", "complexity"), ("refuses-after-calls", "edge cases"),
    ("re-summarises-the-top", "correctness")])
def test_mistakes_fail_the_category_they_belong_to(name, category):
    wrong = next(m for m in WRONG if m.name == name)
    rows = {c: (ok, detail) for c, ok, detail in run(DRILL.name, wrong.answer).rows}
    assert not rows[category][0] and wrong.hint in rows[category][1], rows[category]


def test_the_lessons_answer_fails_only_the_empty_list():
    """The lesson's map_reduce returns [] for no items; the drill asks for a ValueError."""
    namespace: dict = {}
    source = exercise_source().replace('        raise ValueError("items is empty: nothing to '
                                       'summarise")\n', "        return []\n")
    exec(compile(source, "lesson-like", "exec"), namespace)
    rows = {c: (ok, d) for c, ok, d in run(DRILL.name, namespace["map_reduce"]).rows}
    assert [c for c, (ok, _) in rows.items() if not ok] == ["edge cases"]
    assert "should raise ValueError, got []" in rows["edge cases"][1]


def test_an_empty_list_refused_after_a_call_is_named():
    def calls_first(items, summarise, *args):
        summarise("hello")
        raise ValueError("no items")

    with pytest.raises(CheckFailed, match="after 1 call"):
        check_empty_items(calls_first)


def test_check_drill_prints_the_rubric_then_raises(capsys):
    wrong = next(m.answer for m in WRONG if m.name == "batches-by-count")
    with pytest.raises(CheckFailed, match="rubric categories pass"):
        check_drill(DRILL.name, wrong, started=None)
    out = capsys.readouterr().out
    assert out.startswith(f"Drill {DRILL.name}: ") and "FAIL" in out and "score: " in out
    report = check_drill(DRILL.name, answer(), started=0.0)
    assert report.passed and "time taken: " in capsys.readouterr().out


def test_load_answer_and_the_command_line(tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(exercise_source(), encoding="utf-8")
    bad.write_text(exercise_source().replace("level < max_rounds", "True"), encoding="utf-8")
    assert load_answer(DRILL.name, good).__name__ == DRILL.symbol
    for path, code in ((good, 0), (bad, 1)):
        done = subprocess.run([sys.executable, "-m", "kit", "drill", DRILL.name, str(path)],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert done.returncode == code, done.stdout + done.stderr
        assert f"Drill {DRILL.name}: " in done.stdout and "score: " in done.stdout
