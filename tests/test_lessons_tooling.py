"""Unit tests of tools/lessons.py on small in-memory and throwaway notebooks."""
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import lessons  # noqa: E402

STUB = 'raise NotImplementedError("Exercise: write your answer here")'

EXERCISE = '''\
def count_words(text):
    """Number of words in `text` (words)."""
    ### BEGIN SOLUTION
    words = text.split()
    return len(words)
    ### END SOLUTION
'''


def notebook(*cells):
    """A small solution notebook with fixed cell ids (so renders are comparable)."""
    nb = new_notebook(cells=list(cells))
    for index, cell in enumerate(nb.cells):
        cell.id = f"cell-{index}"
    nb.metadata["kernelspec"] = dict(lessons.KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.7"}
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    return nb


def executed(source, tags=(), text="out\n"):
    """A code cell as if run: execution count 1 and one stdout output."""
    cell = new_code_cell(source, execution_count=1, metadata={"tags": list(tags)})
    cell.outputs = [new_output("stream", name="stdout", text=text)]
    return cell


def test_solution_block_becomes_stub_at_begin_indentation():
    learner = lessons.learner_version(notebook(executed(EXERCISE, tags=["exercise"])))
    assert learner.cells[0].source == (
        "def count_words(text):\n"
        '    """Number of words in `text` (words)."""\n'
        f"    {STUB}\n"
    )


def test_solution_text_is_gone():
    source = lessons.learner_version(notebook(executed(EXERCISE))).cells[0].source
    assert "SOLUTION" not in source and "text.split()" not in source


def test_top_level_block_and_source_without_trailing_newline():
    source = "x = 1\n### BEGIN SOLUTION\ny = x + 1\n### END SOLUTION"
    learner = lessons.learner_version(notebook(executed(source)))
    assert learner.cells[0].source == f"x = 1\n{STUB}"


def test_two_blocks_in_one_cell():
    source = "  ### BEGIN SOLUTION\na\n  ### END SOLUTION\nb\n\t### BEGIN SOLUTION\nc\n\t### END SOLUTION\n"
    assert lessons.replace_solutions(source, "S") == "  S\nb\n\tS\n"


def test_outputs_and_execution_counts_cleared_and_tags_kept():
    learner = lessons.learner_version(notebook(executed("print('out')", tags=["check"])))
    cell = learner.cells[0]
    assert cell.outputs == [] and cell.execution_count is None
    assert cell.metadata["tags"] == ["check"]


def test_markdown_solution_block():
    text = "Why is it quadratic?\n\n### BEGIN SOLUTION\nBecause we recount.\n### END SOLUTION\n"
    learner = lessons.learner_version(notebook(new_markdown_cell(text)))
    assert learner.cells[0].source == "Why is it quadratic?\n\n_Write your answer here._\n"


def test_cell_without_markers_is_unchanged_apart_from_outputs():
    markdown = new_markdown_cell("## Summary\n\n- counts are kept, not recomputed")
    code = executed("for i in range(3):\n    print(i)\n")
    learner = lessons.learner_version(notebook(markdown, code))
    assert learner.cells[0] == markdown
    assert learner.cells[1].source == code.source
    assert learner.cells[1].metadata == code.metadata


def test_notebook_metadata_normalised_and_input_not_mutated():
    nb = notebook(executed(EXERCISE))
    learner = lessons.learner_version(nb)
    assert "widgets" not in learner.metadata
    assert learner.metadata["language_info"] == {"name": "python"}
    assert learner.metadata["kernelspec"]["name"] == "python3"
    assert "widgets" in nb.metadata and "BEGIN SOLUTION" in nb.cells[0].source


def test_cell_timing_metadata_dropped():
    cell = executed("1 + 1")
    cell.metadata["execution"] = {"iopub.status.busy": "2024-01-01T00:00:00Z"}
    assert "execution" not in lessons.learner_version(notebook(cell)).cells[0].metadata


def test_idempotent():
    once = lessons.learner_version(notebook(executed(EXERCISE), executed("print(1)")))
    assert lessons.learner_version(once) == once


def test_render_is_deterministic_sorted_and_ends_with_newline():
    nb = notebook(executed(EXERCISE, tags=["exercise"]), new_markdown_cell("## Exercises"))
    first = lessons.render(lessons.learner_version(nb))
    assert first == lessons.render(lessons.learner_version(nb))
    assert first.endswith("}\n") and not first.endswith("\n\n")
    assert first.index('"cells"') < first.index('"metadata": {\n  "kernelspec"') < first.index('"nbformat"')
    assert nbformat.reads(first, as_version=4) == lessons.learner_version(nb)


@pytest.mark.parametrize("source, message", [
    ("### BEGIN SOLUTION\nx = 1\n", "without '### END SOLUTION'"),
    ("x = 1\n### END SOLUTION\n", "line 2: '### END SOLUTION' without"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n", "line 2:"),
])
def test_malformed_markers_name_the_cell(source, message):
    nb = notebook(new_markdown_cell("# Title"), executed(source))
    with pytest.raises(ValueError, match="cell 1: ") as info:
        lessons.learner_version(nb)
    assert message in str(info.value)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A throwaway repository root with an empty solutions/; the tool is pointed at it."""
    (tmp_path / "solutions").mkdir()
    monkeypatch.setattr(lessons, "ROOT", tmp_path)
    monkeypatch.setattr(lessons, "SOLUTIONS", tmp_path / "solutions")
    monkeypatch.setattr(lessons, "NOTEBOOKS", tmp_path / "notebooks")
    return tmp_path


def write_lesson(repo, *cells, name="01_demo.ipynb"):
    """Write a solution notebook made of `cells` (not yet executed); return its path."""
    path = repo / "solutions" / name
    path.write_text(lessons.render(new_notebook(cells=list(cells))), encoding="utf-8")
    return path


def test_execute_generate_check_round_trip(repo, capsys):
    path = write_lesson(
        repo,
        new_code_cell("import os\nprint(os.path.basename(os.getcwd()))"),
        new_code_cell(EXERCISE, metadata={"tags": ["exercise"]}),
        new_code_cell("1 / 0", metadata={"tags": ["raises-exception"]}),
        new_code_cell("count_words('a b c')", metadata={"tags": ["check"]}),
    )
    assert lessons.main(["execute", "01_demo"]) == 0
    solved = lessons.read(path)
    assert [cell.execution_count for cell in solved.cells] == [1, 2, 3, 4]
    assert solved.cells[0].outputs[0].text == "solutions\n"  # cwd is solutions/
    assert solved.cells[2].outputs[0].ename == "ZeroDivisionError"
    assert solved.cells[3].outputs[0].data["text/plain"] == "3"
    assert solved.cells[1].metadata == {"tags": ["exercise"]}
    assert solved.metadata.kernelspec.name == "python3"

    assert lessons.main(["check"]) == 1  # notebooks/ not generated yet
    (repo / "notebooks").mkdir()
    (repo / "notebooks" / "99_removed.ipynb").write_text("{}", encoding="utf-8")
    capsys.readouterr()
    assert lessons.main(["generate"]) == 0
    assert "deleted notebooks/99_removed.ipynb" in capsys.readouterr().out
    assert [p.name for p in (repo / "notebooks").iterdir()] == ["01_demo.ipynb"]
    learner = repo / "notebooks" / "01_demo.ipynb"
    assert learner.read_text(encoding="utf-8") == lessons.render(lessons.learner_version(solved))
    assert lessons.main(["check"]) == 0 and "OK" in capsys.readouterr().out

    learner.write_text(learner.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert lessons.main(["check"]) == 1
    assert "update: notebooks/01_demo.ipynb" in capsys.readouterr().err


def test_execute_fails_loudly_naming_notebook_and_cell(repo, capsys):
    path = write_lesson(repo, new_code_cell("x = 1"), new_code_cell("undefined_name"))
    before = path.read_text(encoding="utf-8")
    assert lessons.main(["execute"]) == 1
    err = capsys.readouterr().err
    assert "solutions/01_demo.ipynb: cell 1 failed" in err and "NameError" in err
    assert path.read_text(encoding="utf-8") == before


def test_execute_unknown_lesson_name(repo, capsys):
    assert lessons.main(["execute", "02_missing"]) == 1
    assert "solutions/02_missing.ipynb does not exist" in capsys.readouterr().err


def test_command_line_exit_code(tmp_path):
    """The script runs as `python tools/lessons.py` and exits 1 on drift."""
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "lessons.py", tmp_path / "tools")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "01_orphan.ipynb").write_text("{}", encoding="utf-8")
    result = subprocess.run([sys.executable, "tools/lessons.py", "check"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "delete: notebooks/01_orphan.ipynb" in result.stderr
