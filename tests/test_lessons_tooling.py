"""Unit tests of tools/lessons.py on small in-memory and throwaway notebooks."""
import json
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
    learner = lessons.learner_version(notebook(executed("print('out')", tags=["nbval-skip"])))
    cell = learner.cells[0]
    assert cell.outputs == [] and cell.execution_count is None
    assert cell.metadata["tags"] == ["nbval-skip"]


def test_check_cells_are_tagged_raises_exception_for_learners_only():
    nb = notebook(executed("check(f)", tags=["check"]), executed("x = 1", tags=["exercise"]))
    learner = lessons.learner_version(nb)
    assert learner.cells[0].metadata["tags"] == ["check", "raises-exception"]
    assert learner.cells[1].metadata["tags"] == ["exercise"]
    assert nb.cells[0].metadata["tags"] == ["check"]          # the solution is not changed
    assert lessons.learner_version(learner) == learner         # tagged once


def test_named_lesson_says_where_its_solution_is():
    nb = notebook(new_markdown_cell("# Lesson 3\n\nGoal."), executed("x = 1"))
    learner = lessons.learner_version(nb, "03_summary_memory.ipynb")
    first = learner.cells[0].source
    assert first.startswith("# Lesson 3\n\nGoal.\n\n")
    assert "`solutions/03_summary_memory.ipynb`" in first and "make reset LESSON=03" in first
    assert lessons.learner_version(learner, "03_summary_memory.ipynb") == learner
    assert lessons.learner_version(nb).cells[0].source == "# Lesson 3\n\nGoal."


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
    monkeypatch.setattr(lessons, "WORK", tmp_path / "work")
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
    (repo / "notebooks" / "99_removed.ipynb").write_text(lessons.render(notebook()), encoding="utf-8")
    capsys.readouterr()
    assert lessons.main(["generate"]) == 0
    assert "deleted notebooks/99_removed.ipynb" in capsys.readouterr().out
    assert sorted(p.name for p in (repo / "notebooks").iterdir()) == [
        ".generated.json", "01_demo.ipynb"]
    learner = repo / "notebooks" / "01_demo.ipynb"
    assert learner.read_text(encoding="utf-8") == lessons.render(
        lessons.learner_version(solved, "01_demo.ipynb"))
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
    assert "no single lesson '02_missing' in solutions/ (lessons: none)" in capsys.readouterr().err


def test_command_line_exit_code(tmp_path):
    """The script runs as `python tools/lessons.py` and exits 1 on drift."""
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "lessons.py", tmp_path / "tools")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "01_orphan.ipynb").write_text("{}", encoding="utf-8")
    result = subprocess.run([sys.executable, "tools/lessons.py", "check"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "delete: notebooks/01_orphan.ipynb" in result.stderr


WIDGET = "application/vnd.jupyter.widget-view+json"


def test_static_widget_outputs_keep_the_picture_and_drop_the_live_view():
    cell = executed("explorer()")
    cell.outputs = [new_output("execute_result", data={
        WIDGET: {"model_id": "abc", "version_major": 2, "version_minor": 0},
        "image/png": "iVBOR", "text/plain": "VBox(children=...)"}, execution_count=1)]
    nb = notebook(cell, executed("print(1)"))
    lessons.static_widget_outputs(nb)
    assert set(nb.cells[0].outputs[0].data) == {"image/png", "text/plain"}
    assert nb.cells[1].outputs[0].text == "out\n"


def worked(repo, name="01_demo.ipynb"):
    """notebooks/<name> with an answer and an output in it, as a learner would save it."""
    nb = lessons.learner_version(notebook(executed(EXERCISE, tags=["exercise"])))
    nb.cells[0].source = EXERCISE.replace("### BEGIN SOLUTION\n", "").replace("### END SOLUTION\n", "")
    nb.cells[0].execution_count = 1
    (repo / "notebooks").mkdir(exist_ok=True)
    (repo / "notebooks" / name).write_text(lessons.render(nb), encoding="utf-8")
    return repo / "notebooks" / name


@pytest.mark.parametrize("change", ["answer", "outputs", "count", "unreadable", "none"])
def test_holds_learner_work(repo, change):
    nb = lessons.learner_version(notebook(executed(EXERCISE, tags=["exercise"]), executed("1")))
    if change == "answer":
        nb.cells[0].source = "def count_words(text):\n    return len(text.split())\n"
    elif change == "outputs":
        nb.cells[1].outputs = [new_output("stream", name="stdout", text="1\n")]
    elif change == "count":
        nb.cells[1].execution_count = 3
    path = repo / "x.ipynb"
    path.write_text("{not json" if change == "unreadable" else lessons.render(nb), encoding="utf-8")
    assert lessons.holds_learner_work(path) is (change != "none")


def test_generate_refuses_to_overwrite_work_unless_forced(repo, capsys):
    write_lesson(repo, new_code_cell(EXERCISE, metadata={"tags": ["exercise"]}))
    path = worked(repo)
    before = path.read_text(encoding="utf-8")
    assert lessons.main(["generate"]) == 1
    err = capsys.readouterr().err
    assert "01_demo.ipynb" in err and "work/mine-01_demo.ipynb" in err and "FORCE=1" in err
    assert path.read_text(encoding="utf-8") == before
    (repo / "solutions" / "01_demo.ipynb").unlink()          # a delete is refused too
    assert lessons.main(["generate"]) == 1 and path.read_text(encoding="utf-8") == before
    assert lessons.main(["generate", "--force"]) == 0 and not path.exists()


@pytest.mark.parametrize("edit", ["a note", "half an answer", "a space"])
def test_any_change_to_a_generated_notebook_is_kept(repo, capsys, edit):
    """With the manifest, a change that leaves the stub in place is work too."""
    write_lesson(repo, new_markdown_cell("# Demo"), new_code_cell(EXERCISE, metadata={"tags": ["exercise"]}))
    assert lessons.main(["generate"]) == 0
    path = repo / "notebooks" / "01_demo.ipynb"
    nb = lessons.read(path)
    if edit == "a note":
        nb.cells.append(new_markdown_cell("MY NOTES: ask about keep_recent"))
    elif edit == "half an answer":
        nb.cells[1].source = nb.cells[1].source.replace("    raise", "    words = text.split()\n    raise")
    text = lessons.render(nb) + (" " if edit == "a space" else "")
    path.write_text(text, encoding="utf-8")
    write_lesson(repo, new_markdown_cell("# Demo, revised"),
                 new_code_cell(EXERCISE, metadata={"tags": ["exercise"]}))
    assert lessons.main(["generate"]) == 1 and "changed since it was generated" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == text


def test_generate_leaves_other_files_in_notebooks_alone_and_check_sees_the_manifest(repo, capsys):
    write_lesson(repo, new_code_cell("x = 1"))
    (repo / "notebooks").mkdir()
    for name in ("Untitled.ipynb", "my notes.ipynb"):
        (repo / "notebooks" / name).write_text("{}", encoding="utf-8")
    assert lessons.main(["generate"]) == 0
    assert (repo / "notebooks" / "Untitled.ipynb").exists()
    assert (repo / "notebooks" / "my notes.ipynb").exists()
    assert lessons.main(["check"]) == 0
    (repo / "notebooks" / ".generated.json").unlink()
    assert lessons.main(["check"]) == 1 and "notebooks/.generated.json" in capsys.readouterr().err


def test_workspace_copies_missing_lessons_and_never_overwrites(repo, capsys):
    (repo / "notebooks").mkdir()
    for name in ("01_a.ipynb", "02_b.ipynb"):
        (repo / "notebooks" / name).write_text(lessons.render(notebook(executed("x = 1"))))
    work = repo / "work"
    assert lessons.workspace() == ["01_a.ipynb", "02_b.ipynb"]
    copy = lessons.read(work / "01_a.ipynb")
    assert copy.metadata.language_info == lessons.kernel_language_info()
    assert copy.metadata.language_info["version"] == "{0}.{1}.{2}".format(*sys.version_info)
    (work / "01_a.ipynb").write_text("my answers", encoding="utf-8")
    (work / "02_b.ipynb").unlink()
    assert lessons.main(["workspace"]) == 0
    assert "copied 02_b.ipynb" in capsys.readouterr().out
    assert (work / "01_a.ipynb").read_text(encoding="utf-8") == "my answers"
    assert lessons.main(["workspace"]) == 0
    assert "your copies are unchanged" in capsys.readouterr().out


def test_reset_restores_one_lesson_and_keeps_every_changed_copy(repo, capsys):
    (repo / "notebooks").mkdir()
    for name in ("01_a.ipynb", "02_b.ipynb"):
        (repo / "notebooks" / name).write_text(lessons.render(notebook(executed("x = 1"))))
    lessons.workspace()
    work = repo / "work"
    fresh = (work / "01_a.ipynb").read_text(encoding="utf-8")
    for name in ("01_a.ipynb", "02_b.ipynb"):
        (work / name).write_text("my answers", encoding="utf-8")
    assert lessons.main(["reset", "1"]) == 0                    # "1" is lesson 01
    assert "your previous copy is work/backups/01_a-1.ipynb" in capsys.readouterr().out
    assert (work / "01_a.ipynb").read_text(encoding="utf-8") == fresh
    assert (work / "backups" / "01_a-1.ipynb").read_text(encoding="utf-8") == "my answers"
    assert (work / "02_b.ipynb").read_text(encoding="utf-8") == "my answers"
    assert lessons.main(["reset", "01"]) == 0                   # untouched: no new backup
    assert "it had no changes" in capsys.readouterr().out
    (work / "01_a.ipynb").write_text("second try", encoding="utf-8")
    assert lessons.main(["reset", "01_a"]) == 0
    assert "work/backups/01_a-2.ipynb" in capsys.readouterr().out
    assert sorted(p.name for p in (work / "backups").iterdir()) == ["01_a-1.ipynb", "01_a-2.ipynb"]
    assert (work / "backups" / "01_a-1.ipynb").read_text(encoding="utf-8") == "my answers"
    assert (work / "backups" / "01_a-2.ipynb").read_text(encoding="utf-8") == "second try"
    (work / "02_b.ipynb").unlink()
    assert lessons.main(["reset", "02"]) == 0 and "created work/02_b" in capsys.readouterr().out


@pytest.mark.parametrize("names, message", [
    ([], "name the lesson"), (["07"], "no single lesson '07' in notebooks/"),
    (["01", "09_nope"], "no single lesson '09_nope' in notebooks/ (lessons: 01_a)"),
    (["../01_a.json"], "no single lesson '../01_a.json'")])
def test_reset_refuses_unknown_lessons_and_changes_nothing(repo, capsys, names, message):
    (repo / "notebooks").mkdir()
    (repo / "notebooks" / "01_a.ipynb").write_text(lessons.render(notebook(executed("x = 1"))))
    (repo / "work").mkdir()
    (repo / "work" / "01_a.ipynb").write_text("my answers", encoding="utf-8")
    assert lessons.main(["reset", *names]) == 1
    assert message in capsys.readouterr().err
    assert (repo / "work" / "01_a.ipynb").read_text(encoding="utf-8") == "my answers"
    assert not (repo / "work" / "backups").exists()


@pytest.mark.parametrize("dest, message", [
    ("", "--dest is blank"), ("solutions", "inside solutions/"),
    ("notebooks/sub", "inside notebooks/"), ("afile", "is a file")])
def test_the_learner_folder_is_never_a_checked_one_or_a_file(repo, capsys, dest, message):
    (repo / "notebooks").mkdir()
    (repo / "notebooks" / "01_a.ipynb").write_text(lessons.render(notebook(executed("x = 1"))))
    (repo / "afile").write_text("x", encoding="utf-8")
    for command in (["workspace"], ["reset", "01"]):
        assert lessons.main([*command, "--dest", str(repo / dest) if dest else ""]) == 1
        assert message in capsys.readouterr().err
    assert sorted(p.name for p in (repo / "solutions").iterdir()) == []
    assert sorted(p.name for p in (repo / "notebooks").iterdir()) == ["01_a.ipynb"]


def test_links_and_folders_in_work_are_not_written_through(repo, capsys):
    (repo / "notebooks").mkdir()
    for name in ("01_a.ipynb", "02_b.ipynb"):
        (repo / "notebooks" / name).write_text(lessons.render(notebook(executed("x = 1"))))
    (repo / "work").mkdir()
    outside = repo / "outside.ipynb"
    outside.write_text("precious", encoding="utf-8")
    (repo / "work" / "01_a.ipynb").symlink_to(outside)
    (repo / "work" / "02_b.ipynb").symlink_to(repo / "missing.ipynb")     # dangling
    assert lessons.workspace() == [] and not (repo / "missing.ipynb").exists()
    assert lessons.main(["reset", "01"]) == 0
    assert outside.read_text(encoding="utf-8") == "precious"
    assert not (repo / "work" / "01_a.ipynb").is_symlink()
    (repo / "work" / "02_b.ipynb").unlink()
    (repo / "work" / "02_b.ipynb").mkdir()
    before = (repo / "work" / "01_a.ipynb").read_text(encoding="utf-8")
    (repo / "work" / "01_a.ipynb").write_text("answers", encoding="utf-8")
    assert lessons.main(["reset", "01", "02"]) == 1              # checked before any write
    assert "work/02_b.ipynb is a folder" in capsys.readouterr().err
    assert (repo / "work" / "01_a.ipynb").read_text(encoding="utf-8") == "answers"
    assert before != "answers"


def test_a_corrupt_lesson_is_a_clear_error_and_nothing_is_copied(repo, capsys):
    (repo / "notebooks").mkdir()
    (repo / "notebooks" / "01_a.ipynb").write_text(lessons.render(notebook(executed("x = 1"))))
    (repo / "notebooks" / "02_b.ipynb").write_text("{not json", encoding="utf-8")
    assert lessons.main(["workspace"]) == 1
    assert capsys.readouterr().err.startswith("error: ") and not (repo / "work").exists()


def test_coalesce_streams_merges_adjacent_prints_of_one_stream():
    cell = executed("print('a')")
    cell.outputs = [new_output("stream", name="stdout", text="PASS x"),
                    new_output("stream", name="stdout", text="\n"),
                    new_output("stream", name="stderr", text="warn\n"),
                    new_output("stream", name="stdout", text="b\n")]
    nb = notebook(cell)
    lessons.coalesce_streams(nb)
    assert [(o.name, o.text) for o in nb.cells[0].outputs] == [
        ("stdout", "PASS x\n"), ("stderr", "warn\n"), ("stdout", "b\n")]


def test_the_lab_of_the_environment_does_not_ask_about_news(tmp_path):
    """`workspace` (run by make lab, the commands without make, conda and Binder) writes
    the news setting into the environment's own JupyterLab settings, keeping others."""
    settings = tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}')
    assert lessons.quiet_lab(tmp_path) == settings
    written = json.loads(settings.read_text())
    assert written["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    assert written["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}


@pytest.mark.parametrize("failure", ["Kernel died before replying to kernel_info",
                                     "Kernel didn't respond in 30 seconds"])
def test_a_kernel_that_fails_to_answer_is_started_again(monkeypatch, failure):
    """lessons.run starts the kernel again when it died before replying (a port taken
    between jupyter_client's choice and the kernel's bind) or never answered, each try
    waiting KERNEL_STARTUP seconds, up to KERNEL_STARTS tries; any other error is raised."""
    import nbformat
    from nbclient import NotebookClient
    execute, waits = NotebookClient.execute, []

    def flaky(self, **kwargs):
        waits.append(self.startup_timeout)
        if len(waits) < lessons.KERNEL_STARTS:
            raise RuntimeError(failure)
        return execute(self, **kwargs)

    monkeypatch.setattr(NotebookClient, "execute", flaky)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    done = lessons.run(nb, ROOT)
    assert waits == [lessons.KERNEL_STARTUP] * lessons.KERNEL_STARTS
    assert done.cells[0].outputs[0].text == "42\n"

    def hopeless(self, **kwargs):
        waits.append(self.startup_timeout)
        raise RuntimeError(failure)

    waits.clear()
    monkeypatch.setattr(NotebookClient, "execute", hopeless)
    with pytest.raises(RuntimeError, match=failure.split(" in ")[0]):
        lessons.run(nb, ROOT)
    assert len(waits) == lessons.KERNEL_STARTS

    def broken(self, **kwargs):
        waits.append(self.startup_timeout)
        raise RuntimeError("something else")

    waits.clear()
    monkeypatch.setattr(NotebookClient, "execute", broken)
    with pytest.raises(RuntimeError, match="something else"):
        lessons.run(nb, ROOT)
    assert len(waits) == 1


def test_test_kernels_keep_their_ipython_state_to_themselves():
    """A kernel of lessons.run (and under pytest every kernel, nbval's too: conftest.py)
    reads an IPython directory of its own, not the learner's (their startup files cannot
    change a lesson's output), with history kept in memory (kernels side by side share no
    history database)."""
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os\nip = get_ipython()\n"
        "print(ip.history_manager.hist_file, ip.profile_dir.location.startswith("
        "os.environ['IPYTHONDIR']), os.environ['IPYTHONDIR'] != os.path.expanduser('~/.ipython'))")])
    assert lessons.run(nb, ROOT).cells[0].outputs[0].text == ":memory: True True\n"


@pytest.mark.parametrize("given", [None, "", "mine"])
def test_run_gives_the_kernel_a_quiet_ipython_dir_unless_one_is_set(monkeypatch, tmp_path,
                                                                   given):
    """IPYTHONDIR unset, or set empty (IPython would take "" as ".", the notebook's
    folder, and write its profile and history there): the kernel gets a quiet folder of
    its own, there while it runs and gone after; a user's IPYTHONDIR is honoured."""
    from nbclient import NotebookClient
    if given is None:
        monkeypatch.delenv("IPYTHONDIR", raising=False)
    else:
        monkeypatch.setenv("IPYTHONDIR", str(tmp_path / given) if given else "")
    seen = []

    def execute(self, env):
        folder = Path(env["IPYTHONDIR"])
        seen.append((folder, (folder / "profile_default" / "ipython_config.py").exists()))
        return self.nb

    monkeypatch.setattr(NotebookClient, "execute", execute)
    lessons.run(new_notebook(cells=[new_code_cell("1")]), tmp_path)
    (folder, quiet), = seen
    if given:
        assert folder == tmp_path / given and not quiet
    else:
        assert quiet and folder.is_absolute() and not folder.exists()
