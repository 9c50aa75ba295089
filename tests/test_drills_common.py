"""What every drill promises, checked for each: its notebook's layout, its starter fails
every rubric category as "not written yet",
its model solution passes them all, the rubric text is the same on every run, and every
wrong answer the registry holds for its mechanism (at least five) fails a category with
its hint."""
import pytest

from kit.drills import drills, run
from kit.mistakes import mistakes

import drill_notebooks  # tests/drill_notebooks.py

DRILLS = drills()
WRONG = [(drill, wrong) for drill in DRILLS if drill.mechanism
         for wrong in mistakes(drill.mechanism)]


def test_there_are_at_least_six_drills_each_with_a_notebook_and_a_starter():
    assert len(DRILLS) >= 6
    for drill in DRILLS:
        assert drill_notebooks.notebook_of(drill).is_file(), drill.name
        assert (drill_notebooks.ROOT / "notebooks" / "drills" / f"{drill.notebook}.py").is_file()


@pytest.mark.parametrize("drill", DRILLS, ids=[d.name for d in DRILLS])
def test_the_notebook_has_the_drill_layout(drill):
    """Title with the time box, start_drill, the hint ladder, the exercise, the check cell,
    the follow-ups with 4-6 answers to reveal (code review also prints its buggy source)."""
    cells = drill_notebooks.lessons.read(drill_notebooks.notebook_of(drill)).cells
    kinds = [(c.cell_type, c.metadata.get("tags", [])) for c in cells]
    extra = [("code", [])] if drill.name == "code-review" else []
    assert kinds == [("markdown", []), ("code", []), *extra, ("markdown", []),
                     ("code", ["exercise"]), ("code", ["check"]), ("markdown", [])]
    number = drill.notebook.split("_", 1)[0]
    assert cells[0].source.startswith(f"# Drill {number} · {drill.title} ({drill.minutes} min)")
    assert f'start_drill("{drill.name}")' in cells[1].source
    hints = cells[2 + len(extra)].source
    assert all(f"Hint {n} · {step}" in hints
               for n, step in ((1, "nudge"), (2, "approach"), (3, "pseudo-code")))
    assert cells[-2].source == f'check_drill("{drill.name}", {drill.symbol}, started)'
    assert cells[-1].source.startswith("## Follow-ups")
    assert 4 <= cells[-1].source.count("<details>") <= 6


@pytest.mark.parametrize("drill", DRILLS, ids=[d.name for d in DRILLS])
def test_the_starter_fails_the_model_passes_and_the_rubric_is_deterministic(drill):
    starter, model = drill_notebooks.answer(drill, learner=True), drill_notebooks.answer(drill)
    failed = run(drill.name, starter)
    assert failed.score == (0, len(drill.rubric)), failed.text()
    assert all("not written yet" in detail for _, _, detail in failed.rows), failed.text()
    passed = run(drill.name, model)
    assert passed.passed, passed.text()
    assert run(drill.name, starter).text() == failed.text()
    assert run(drill.name, model).text() == passed.text()


@pytest.mark.parametrize("drill", [d for d in DRILLS if d.mechanism],
                         ids=[d.name for d in DRILLS if d.mechanism])
def test_at_least_five_wrong_answers_are_registered(drill):
    assert len(mistakes(drill.mechanism)) >= 5


@pytest.mark.parametrize("drill, wrong", WRONG, ids=[f"{d.name}:{w.name}" for d, w in WRONG])
def test_each_registered_wrong_answer_fails_a_category_with_its_hint(drill, wrong):
    report = run(drill.name, wrong.answer)
    failing = [detail for _, ok, detail in report.rows if not ok]
    assert failing and not report.passed
    assert any(wrong.hint in detail for detail in failing), (wrong.hint, failing)
    assert run(drill.name, wrong.answer).text() == report.text()      # deterministic
