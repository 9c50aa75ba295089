"""The drill framework: the scored rubric, the clock, loading an answer, the command line."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import kit.drills as drills_module
from kit.checks import CheckFailed, expect
from kit.drills import CATEGORIES, Drill, check_drill, elapsed_text, load_answer, run

ROOT = Path(__file__).resolve().parents[1]


def double_ok(fn):
    expect(fn(2) == 4, "double(2) should be 4, got something else. Hint: return 2 * x.")
    return 1


def double_edges(fn):
    expect(fn(0) == 0, "double(0) should be 0. Why: zero is a boundary. Hint: no special case.")
    return 1


FAKE = Drill(name="double", title="Double a number", minutes=5, symbol="double",
             notebook="99_double", rubric={"edge cases": double_edges, "correctness": double_ok},
             talking_points=("say why 0 is an edge case",))


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(drills_module, "drills", lambda: [FAKE])
    monkeypatch.setattr(drills_module, "_PRISTINE", {})   # the patch above is not tampering
    return FAKE


def test_the_rubric_is_scored_in_category_order_and_is_deterministic(fake):
    report = run("double", lambda x: 2 * x if x else 1)
    assert [row[0] for row in report.rows] == ["correctness", "edge cases"]
    assert report.score == (1, 2) and not report.passed
    text = report.text()
    assert text == run("double", lambda x: 2 * x if x else 1).text()
    lines = text.splitlines()
    assert lines[0] == "Drill double: Double a number (5 min)"
    assert lines[1].split() == ["correctness", "PASS", "1", "case"]
    assert lines[2].split()[:3] == ["edge", "cases", "FAIL"] and "double(0) should be 0" in lines[2]
    assert "score: 1/2" in lines and "  [ ] say why 0 is an edge case" in lines


def test_check_drill_prints_the_rubric_and_raises_unless_every_category_passes(fake, capsys):
    assert check_drill("double", lambda x: 2 * x).passed
    out = capsys.readouterr().out
    assert "score: 2/2" in out and "time taken" not in out
    with pytest.raises(CheckFailed, match="drill double: 0/2 rubric categories pass"):
        check_drill("double", lambda x: x + 1, started=0.0)
    assert "time taken: " in capsys.readouterr().out


def test_a_stub_fails_every_category(fake):
    def stub(x):
        raise NotImplementedError("Exercise: write your answer here")
    report = run("double", stub)
    assert report.score == (0, 2)
    assert "not written yet" in report.rows[0][2] or "NotImplementedError" in report.rows[0][2]


def test_elapsed_text():
    assert elapsed_text(None) == ""
    assert elapsed_text(100.0, now=100.0 + 12 * 60 + 4.4) == "time taken: 12 min 04 s"
    assert elapsed_text(100.0, now=50.0) == "time taken: 0 min 00 s"


def test_a_drill_refuses_unknown_categories():
    with pytest.raises(ValueError, match="rubric categories must be some of"):
        Drill("x", "x", 1, "x", "00_x", {"speed": double_ok})
    assert CATEGORIES == ("correctness", "failure safety", "edge cases", "complexity")


def test_unknown_drill_names_the_known_ones(fake):
    with pytest.raises(ValueError, match="no drill 'nope'; the drills: double"):
        run("nope", None)


def test_load_answer(fake, tmp_path):
    good = tmp_path / "answer.py"
    good.write_text("def double(x):\n    return 2 * x\n")
    assert load_answer("double", good)(3) == 6
    with pytest.raises(FileNotFoundError):
        load_answer("double", tmp_path / "missing.py")
    other = tmp_path / "other.py"
    other.write_text("def triple(x):\n    return 3 * x\n")
    with pytest.raises(ValueError, match="defines no double"):
        load_answer("double", other)


def cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "kit", "drill", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_the_command_line_lists_the_drills_and_refuses_bad_input(tmp_path):
    listed = cli("--list")
    assert listed.returncode == 0
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert names == [d.name for d in drills_module.drills()]
    bad = cli("no-such-drill", str(tmp_path / "x.py"))
    assert bad.returncode == 2 and "no drill 'no-such-drill'" in bad.stderr


def test_start_copies_the_starter_and_the_check_reports_the_time(tmp_path):
    drill = drills_module.drills()[0]
    target = tmp_path / "mine.py"
    started = cli(drill.name, str(target), "--start")
    assert started.returncode == 0, started.stderr
    assert target.read_text() == (ROOT / "notebooks" / "drills" / f"{drill.notebook}.py").read_text()
    assert isinstance(json.loads((tmp_path / f".{drill.name}.started").read_text()), float)
    checked = cli(drill.name, str(target))
    assert checked.returncode == 1                       # the starter fails its drill
    assert "score: 0/" in checked.stdout and "time taken: " in checked.stdout


def test_a_report_shows_briefly(fake):
    assert repr(run("double", lambda x: 2 * x)) == "Report(double: 2/2)"


def test_an_answer_that_patches_its_checker_or_is_the_kits_own_class_fails():
    import kit.checks.token_window as checker
    from kit.memory import TokenWindow
    drill = drills_module.get("token-window")
    assert run(drill.name, TokenWindow).passed                 # the kit's class is right...
    kit_own = drills_module.candidate_report(drill.name, TokenWindow)
    assert kit_own.score == (0, 4) and "the kit's own kit.memory.window.TokenWindow" in \
        kit_own.rows[0][2]                                     # ...but not the candidate's

    class Mine(TokenWindow):
        pass
    assert drills_module.candidate_report(drill.name, Mine).score == (0, 4)
    original = checker.TokenWindow
    try:
        checker.TokenWindow = lambda *args: None          # what a cheating answer might do
        rows = run(drill.name, lambda *args: None).rows
    finally:
        checker.TokenWindow = original
    assert all("kit.checks.token_window.TokenWindow was changed" in d for _, ok, d in rows)


def test_load_answer_registers_the_module_so_dataclasses_work(tmp_path):
    answer = tmp_path / "dc.py"
    answer.write_text("from __future__ import annotations\nfrom dataclasses import dataclass\n"
                      "@dataclass\nclass TokenWindow:\n    budget: int\n")
    assert load_answer("token-window", answer)(3).budget == 3
    notebook = tmp_path / "answer.ipynb"
    notebook.write_text("{}")
    with pytest.raises(ValueError, match="is not a .py file"):
        load_answer("token-window", notebook)


@pytest.mark.parametrize("body, message", [
    ("import sys\nclass TokenWindow:\n    def __init__(self, *args):\n        sys.exit(0)\n",
     "ended before its verdict (exit code 0"),
    ("import os\nclass TokenWindow:\n    def __init__(self, *args):\n        os._exit(0)\n",
     "ended before its verdict"),
    ("class TokenWindow:\n    def __init__(self, *args):\n        while True:\n            pass\n",
     "did not finish within 3 s"),
    ("print('score: 4/4')\nfrom kit.memory import TokenWindow as K\nclass TokenWindow(K):\n"
     "    pass\n", "the kit's own kit.memory.window.TokenWindow"),
    ("import kit.checks.token_window as c\nclass TokenWindow:\n    pass\n"
     "c.TokenWindow = TokenWindow\n", "was changed while your answer ran"),
    ("class TokenWindow:\n  def f(self):\n pass\n", "does not import: IndentationError"),
])
def test_the_command_line_never_passes_an_answer_that_exits_hangs_or_cheats(tmp_path, body,
                                                                             message):
    answer = tmp_path / "answer.py"
    answer.write_text(body)
    # only the answer that loops is meant to time out: the others get time enough that a
    # busy machine, slow to start the child and import the kit, never cuts them off
    timeout = "3" if "while True" in body else "120"
    done = cli("token-window", str(answer), "--timeout", timeout)
    assert done.returncode == 1, (done.stdout[-500:], done.stderr[-500:])
    assert message in " ".join((done.stdout + done.stderr).split())   # lines are wrapped


def test_the_command_line_refuses_a_notebook_and_a_folder_to_start_in(tmp_path):
    notebook = tmp_path / "answer.ipynb"
    notebook.write_text("{}")
    done = cli("token-window", str(notebook))
    assert done.returncode == 2 and "is not a .py file" in done.stderr
    done = cli("token-window", str(tmp_path), "--start")
    assert done.returncode == 2 and "is a folder" in done.stderr


def test_a_cache_a_kit_module_fills_lazily_is_not_tampering(fake, monkeypatch):
    import kit.ranking.bm25 as turn_index
    monkeypatch.setattr(drills_module, "_PRISTINE", drills_module._kit_globals())
    monkeypatch.setattr(turn_index, "_STOPWORDS", frozenset({"a"}))   # data, set on first use
    assert drills_module._tampered() == ""
    monkeypatch.setattr(turn_index, "recall_tokenize", lambda text: [])   # a function
    assert drills_module._tampered() == "kit.ranking.bm25.recall_tokenize"


def test_a_terminal_user_reads_the_spec_and_one_hint_at_a_time():
    """`--spec` prints the spec with its worked examples; `--hint N` prints hint N alone;
    `--list` points at the learner's copies in work/drills/."""
    for drill in drills_module.drills():
        spec = drills_module.spec_text(drill.name)
        assert spec.startswith("# Drill ") and drill.title in spec and "<details>" not in spec
        hints = [drills_module.hint_text(drill.name, level) for level in (1, 2, 3)]
        assert [h.split(" ", 2)[:2] for h in hints] == [["Hint", "1"], ["Hint", "2"],
                                                       ["Hint", "3"]]
        assert hints[1].split("\n\n", 1)[1] not in hints[0]
    with pytest.raises(ValueError, match="not 4"):
        drills_module.hint_text("token-window", 4)
    shown = cli("summary-memory", "--hint", "1")
    assert shown.returncode == 0 and shown.stdout.startswith("Hint 1") \
        and "Hint 2" not in shown.stdout.split("\n", 1)[1], shown.stdout
    listed = cli("--list").stdout
    assert "work/drills/01_token_window.ipynb" in listed and "notebooks/" not in listed
