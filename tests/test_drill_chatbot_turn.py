"""Drill 04, chatbot turn (kit.drills.chatbot_turn): listed, fails on its starter, passes
on its model solution, rejects the registered wrong answers of "chatbot turn" with their
hints (each in the category it belongs to), gives a deterministic rubric, and runs from the
command line on a .py file."""
from __future__ import annotations

import subprocess
import sys

import pytest

from kit.checks import CheckFailed
from kit.drills import CATEGORIES, check_drill, drills, load_answer, run
from kit.drills.chatbot_turn import DRILL
from kit.mistakes import mistakes
from kit.rag import Chatbot

import drill_notebooks  # tests/drill_notebooks.py
from drill_notebooks import ROOT

def exercise_source(learner: bool = False) -> str:
    return drill_notebooks.exercise_source(DRILL, learner)


def answer(learner: bool = False):
    return drill_notebooks.answer(DRILL, learner)


def test_the_drill_is_listed():
    assert DRILL in drills()
    assert (DRILL.name, DRILL.minutes, DRILL.symbol, DRILL.mechanism) == (
        "chatbot-turn", 45, "RagChatbot", "chatbot turn")
    assert tuple(DRILL.rubric) == CATEGORIES
    assert any("recall@k" in point and "groundedness" in point
               for point in DRILL.talking_points)


@pytest.mark.parametrize("right", ["model solution", "kit Chatbot"])
def test_right_answers_pass_every_category(right):
    report = run(DRILL.name, answer() if right == "model solution" else Chatbot)
    assert report.passed, report.text()
    assert [(c, ok, d) for c, ok, d in report.rows] == [
        ("correctness", True, "11 cases"), ("failure safety", True, "11 cases"),
        ("edge cases", True, "9 cases"), ("complexity", True, "60 cases")]


WRONG = mistakes(DRILL.mechanism)


@pytest.mark.parametrize("name, category", [
    ("rewrite-without-fallback", "failure safety"), ("memory-before-model-call", "failure safety"),
    ("model-error-swallowed", "failure safety"), ("junk-rewrite-used", "edge cases"),
    ("any-marker-passes", "edge cases"), ("draft-saved-before-guardrail", "edge cases"),
    ("rewrite-on-first-turn", "complexity"), ("answer-call-with-no-chunks", "complexity"),
    ("one-memory-for-all-sessions", "correctness"), ("marker-as-index", "correctness"),
    ("rewrite-fallback-on-timeout-only", "failure safety"),
    ("search-error-swallowed", "failure safety"), ("marker-zero-passes", "edge cases"),
    ("draft-not-stripped", "edge cases"), ("result-reused", "correctness"),
    ("history-from-own-transcript", "correctness")])
def test_mistakes_fail_the_category_they_belong_to(name, category):
    wrong = next(m for m in WRONG if m.name == name)
    rows = {c: (ok, detail) for c, ok, detail in run(DRILL.name, wrong.answer).rows}
    assert not rows[category][0] and wrong.hint in rows[category][1], rows[category]


def test_extra_calls_in_the_random_conversations_are_named_as_such():
    wrong = next(m.answer for m in WRONG if m.name == "answer-call-with-no-chunks")
    detail = dict((c, d) for c, _, d in run(DRILL.name, wrong).rows)["complexity"]
    assert "ask made other model calls than the kit's run (0 rewrite + 1 answer call, " \
           "expected 0 rewrite + 0 answer call)" in detail, detail


def test_check_drill_prints_the_rubric_then_raises(capsys):
    wrong = next(m.answer for m in WRONG if m.name == "no-rewrite")
    with pytest.raises(CheckFailed, match="rubric categories pass"):
        check_drill(DRILL.name, wrong, started=None)
    out = capsys.readouterr().out
    assert out.startswith(f"Drill {DRILL.name}: ") and "FAIL" in out and "score: " in out
    report = check_drill(DRILL.name, answer(), started=0.0)
    assert report.passed and "time taken: " in capsys.readouterr().out


def test_load_answer_and_the_command_line(tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(exercise_source(), encoding="utf-8")
    wrong = exercise_source().replace("if history.strip():", "if True:")     # rewrite always
    assert wrong != exercise_source()
    bad.write_text(wrong, encoding="utf-8")
    assert load_answer(DRILL.name, good).__name__ == DRILL.symbol
    for path, code in ((good, 0), (bad, 1)):
        done = subprocess.run([sys.executable, "-m", "kit", "drill", DRILL.name, str(path)],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert done.returncode == code, done.stdout + done.stderr
        assert f"Drill {DRILL.name}: " in done.stdout and "score: " in done.stdout
