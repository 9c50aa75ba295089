"""Tests over the real lessons: drift, hygiene and an inverted run of notebooks/.

Parametrised over solutions/NN_*.ipynb; with no lessons yet the parametrised
tests collect as skipped ("got empty parameter set") and only the folder test runs.
"""
import os
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import lessons  # noqa: E402

NAMES = [path.name for path in lessons.lesson_paths(lessons.SOLUTIONS)]
# every notebook: the lessons, then the drills ("drills/01_token_window.ipynb")
EVERY = [path.relative_to(lessons.SOLUTIONS).as_posix() for path in lessons.all_paths(lessons.SOLUTIONS)]
REQUIRED_HEADINGS = ("## Summary", "## Exercises", "## Interview follow-ups")
MEMORY_ADDRESS = re.compile(r"0x[0-9a-f]{6,}")
# How a check cell fails on the stub; CheckFailed is kit.checks' AssertionError subclass.
CHECK_FAILURES = {"NotImplementedError", "AssertionError", "CheckFailed"}


def tags(cell):
    return cell.metadata.get("tags", [])


def output_texts(cell):
    """The text in a code cell's outputs: streams, text/* data, error values."""
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            yield out.text
        elif out.output_type == "error":
            yield out.evalue
        for mime, value in out.get("data", {}).items():
            if mime.startswith("text/"):
                yield value if isinstance(value, str) else "".join(value)


def learner_path(name):
    """notebooks/<name>, failing with a hint if it was not generated."""
    path = lessons.NOTEBOOKS / name
    assert path.is_file(), f"notebooks/{name} missing: run `python tools/lessons.py generate`"
    return path


def generated_text(name):
    """What `generate` writes to notebooks/<name>, from solutions/<name>."""
    return lessons.render(lessons.learner_version(lessons.read(lessons.SOLUTIONS / name), name))


def learners_copy(name):
    """True if notebooks/<name> holds a learner's answers: it differs from what the
    manifest says `generate` wrote. The tests then read the generated text instead, so a
    learner who answers and saves in notebooks/ breaks nothing. Under CI (a clean clone)
    no file is a learner's: every one must be exactly as generated."""
    path = learner_path(name)
    return not os.environ.get("CI") and lessons.holds_learner_work(path)


def learner_text(name):
    """The learner notebook's text as generated: the file, unless it holds answers."""
    return generated_text(name) if learners_copy(name) else learner_path(name).read_text(
        encoding="utf-8")


def test_solutions_folder_exists():
    assert lessons.SOLUTIONS.is_dir(), f"missing folder {lessons.SOLUTIONS}"


def test_same_lesson_names_in_both_folders():
    generated = sorted(path.relative_to(lessons.NOTEBOOKS).as_posix()
                       for path in lessons.all_paths(lessons.NOTEBOOKS))
    assert generated == sorted(EVERY), "run `python tools/lessons.py generate`"


@pytest.mark.parametrize("name", EVERY)
def test_notebook_matches_generated_version(name):
    expected = generated_text(name)
    if learners_copy(name):                 # answers saved in notebooks/: the manifest must
        assert lessons.manifest().get(name) == lessons.digest(expected), (   # still match
            f"solutions/{name} changed since notebooks/ was generated: run `make notebooks`")
        return
    assert learner_path(name).read_text(encoding="utf-8") == expected, (
        f"notebooks/{name} differs from solutions/{name}. Contributors: run `make notebooks`. "
        f"Learners: work in work/{name}, not in notebooks/ (`make lab` makes work/); "
        f"`cp notebooks/{name} work/mine-{Path(name).name}` keeps your answers, then "
        f"`git checkout notebooks/{name}`.")


@pytest.mark.parametrize("name", EVERY)
def test_solution_is_executed_in_order_in_python3(name):
    nb = lessons.read(lessons.SOLUTIONS / name)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"
    code = [(i, cell) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    unrun = [i for i, cell in code if cell.execution_count is None]
    assert not unrun, f"cells {unrun} not executed (or empty): run `python tools/lessons.py execute`"
    counts = [cell.execution_count for _, cell in code]
    assert counts == list(range(1, len(code) + 1)), f"execution counts {counts} are not 1..N"


@pytest.mark.parametrize("name", EVERY)
def test_solution_outputs_are_clean(name):
    nb = lessons.read(lessons.SOLUTIONS / name)
    for index, cell in enumerate(nb.cells):
        for text in output_texts(cell):
            found = MEMORY_ADDRESS.search(text)
            assert not found, f"cell {index}: memory address {found.group()} in output"
        error = lessons.error_output(cell)
        if "raises-exception" in tags(cell):
            assert error, f"cell {index} is tagged raises-exception but has no error output"
        else:
            assert not error, f"cell {index}: {error.ename}: {error.evalue} (not tagged raises-exception)"


@pytest.mark.parametrize("name", NAMES)
def test_solution_has_closing_sections(name):
    nb = lessons.read(lessons.SOLUTIONS / name)
    markdown = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    for heading in REQUIRED_HEADINGS:
        assert re.search(rf"^{re.escape(heading)}\s*$", markdown, re.MULTILINE), f"no {heading!r}"


@pytest.mark.parametrize("name", NAMES)
def test_exercises_have_solutions_and_checks(name):
    """At least two exercises; each has a solution block and its own later check cell."""
    nb = lessons.read(lessons.SOLUTIONS / name)
    exercises = [i for i, cell in enumerate(nb.cells) if "exercise" in tags(cell)]
    assert len(exercises) >= 2, f"{len(exercises)} cells tagged exercise, need >= 2"
    for index, cell in enumerate(nb.cells):
        marked = cell.cell_type == "code" and lessons.BEGIN in cell.source
        if "exercise" in tags(cell):
            assert marked, f"cell {index} is tagged exercise but is no code cell with {lessons.BEGIN!r}"
        elif marked:
            assert False, f"cell {index} holds {lessons.BEGIN!r} but is not tagged exercise"
    waiting = []  # exercises still waiting for a check cell
    for index, cell in enumerate(nb.cells):
        if "exercise" in tags(cell):
            waiting.append(index)
        elif "check" in tags(cell) and waiting:
            waiting.pop(0)
    assert not waiting, f"exercise cells {waiting} have no check cell after them"


@pytest.mark.parametrize("name", EVERY)
def test_no_solution_left_in_learner_notebook(name):
    text = learner_text(name)
    assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text


@pytest.mark.parametrize("name", EVERY)
def test_learner_notebook_runs_and_every_check_fails(name, monkeypatch):
    """Inverted run: all cells pass except check cells, which fail on the stubs. Run as a
    learner who has not fetched LoCoMo (its cells print how to get it; the solutions' run
    covers them with the data), which also keeps the suite within its time budget."""
    monkeypatch.delenv("LOCOMO_DIR", raising=False)
    nb = lessons.run(nbformat.reads(learner_text(name), as_version=4), learner_path(name).parent,
                     allow_errors=True)
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        error = lessons.error_output(cell)
        if "check" in tags(cell):
            if "raises-exception" not in tags(cell):
                problems.append(f"check cell {index} is not tagged raises-exception, so Run All "
                                "would stop at it")
            if error is None or error.ename not in CHECK_FAILURES:
                got = f"{error.ename}: {error.evalue}" if error else "no error"
                problems.append(f"check cell {index} should fail on the stub, got {got}")
        elif "raises-exception" in tags(cell):
            continue
        elif error is not None:
            problems.append(f"cell {index} failed: {error.ename}: {error.evalue}")
    assert not problems, "\n".join(problems)
