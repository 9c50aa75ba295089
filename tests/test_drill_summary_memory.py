"""Drill 02, summary-memory (kit.drills.summary_memory): listed, fails on its starter,
passes on its model solution, rejects the registered wrong answers of "summary memory"
with their hints (each in the category it belongs to), gives a deterministic rubric, and
runs from the command line on a .py file."""
from __future__ import annotations

import subprocess
import sys

import pytest

from kit.checks import CheckFailed
from kit.checks import summary_memory as checker
from kit.drills import CATEGORIES, check_drill, drills, load_answer, run
from kit.drills.summary_memory import DRILL
from kit.memory import SummaryMemory
from kit.mistakes import mistakes
from kit.mistakes.summary import _Sound

import drill_notebooks  # tests/drill_notebooks.py
from drill_notebooks import ROOT

def exercise_source(learner: bool = False) -> str:
    return drill_notebooks.exercise_source(DRILL, learner)


def answer(learner: bool = False):
    return drill_notebooks.answer(DRILL, learner)


def kit_memory(summariser, budget, keep_recent, measure, system=None):
    return SummaryMemory(summariser, budget, keep_recent, measure, system=system)


def test_the_drill_is_listed():
    assert DRILL in drills()
    assert (DRILL.name, DRILL.title, DRILL.minutes, DRILL.symbol, DRILL.notebook,
            DRILL.mechanism) == ("summary-memory", "Summary memory from a spec", 30,
                                 "SummaryMemory", "02_summary_memory", "summary memory")
    assert tuple(DRILL.rubric) == CATEGORIES


def test_the_model_solution_passes_every_category():
    report = run(DRILL.name, answer())
    assert report.passed, report.text()
    assert [(c, ok, d) for c, ok, d in report.rows] == [
        ("correctness", True, "56 cases"), ("failure safety", True, "62 cases"),
        ("edge cases", True, "100 cases"), ("complexity", True, "1 case")]


@pytest.mark.parametrize("right", [kit_memory, _Sound], ids=["kit", "sound"])
def test_other_right_designs_pass(right):
    assert run(DRILL.name, right).passed


def test_the_parts_add_up_to_the_lesson_check(capsys):
    total = sum(part(kit_memory) for part in checker.PARTS)
    checker.check_summary_memory(kit_memory)
    assert total == 219
    assert capsys.readouterr().out == f"PASS summary memory: {total} cases correct\n"
    assert set(checker.PARTS) == set(checker.RUBRIC.values())


WRONG = mistakes(DRILL.mechanism)


@pytest.mark.parametrize("name, category", [
    ("removes-before-summarising", "failure safety"),
    ("swallows-summariser-error", "failure safety"),
    ("hides-summariser-error", "failure safety"), ("slices-keep-recent", "edge cases"),
    ("orphans-reply", "edge cases"), ("compacts-under-budget", "edge cases"),
    ("compacts-at-budget", "edge cases"), ("recounts-every-add", "complexity"),
    ("summary-not-counted", "correctness"), ("resummarises-transcript", "correctness"),
    ("overwrites-summary", "correctness"), ("ignores-measure", "correctness"),
    ("summary-only-in-context", "correctness"), ("budget-beats-keep-recent", "edge cases"),
    ("size-measures-on-read", "complexity"), ("messages-share-dicts", "failure safety")])
def test_mistakes_fail_the_category_they_belong_to(name, category):
    wrong = next(m for m in WRONG if m.name == name)
    rows = {c: (ok, detail) for c, ok, detail in run(DRILL.name, wrong.answer).rows}
    assert not rows[category][0] and wrong.hint in rows[category][1], rows[category]


@pytest.mark.parametrize("name", ["removes-before-summarising", "slices-keep-recent",
                                  "recounts-every-add"])
def test_a_mistake_of_one_kind_passes_the_other_categories(name):
    wrong = next(m for m in WRONG if m.name == name)
    failing = [c for c, ok, _ in run(DRILL.name, wrong.answer).rows if not ok]
    assert len(failing) == 1 and failing != ["correctness"], failing


def test_complexity_counts_the_summariser_calls():
    wrong = next(m.answer for m in WRONG if m.name == "compacts-under-budget")
    rows = {c: (ok, d) for c, ok, d in run(DRILL.name, wrong).rows}
    assert not rows["complexity"][0]
    assert "called the summariser" in rows["complexity"][1]
    assert "the kit's SummaryMemory" in rows["complexity"][1]


def test_check_drill_prints_the_rubric_then_raises(capsys):
    wrong = next(m.answer for m in WRONG if m.name == "swallows-summariser-error")
    with pytest.raises(CheckFailed, match="3/4 rubric categories pass"):
        check_drill(DRILL.name, wrong, started=None)
    out = capsys.readouterr().out
    assert out.startswith(f"Drill {DRILL.name}: ") and "failure safety  FAIL" in out
    assert "score: 3/4" in out
    report = check_drill(DRILL.name, answer(), started=0.0)
    assert report.passed and "time taken: " in capsys.readouterr().out


def test_load_answer_and_the_command_line(tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    source = exercise_source()
    good.write_text(source, encoding="utf-8")
    assert "split = max(len(self.turns) - self.keep_recent, 0)" in source
    bad.write_text(source.replace("split = max(len(self.turns) - self.keep_recent, 0)",
                                  "split = len(self.turns[:-self.keep_recent])"),
                   encoding="utf-8")
    assert load_answer(DRILL.name, good).__name__ == DRILL.symbol
    for path, code in ((good, 0), (bad, 1)):
        done = subprocess.run([sys.executable, "-m", "kit", "drill", DRILL.name, str(path)],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert done.returncode == code, done.stdout + done.stderr
        assert f"Drill {DRILL.name}: " in done.stdout and "score: " in done.stdout
    assert "edge cases      FAIL" in done.stdout
