"""The drill framework: the scored rubric, the clock, loading an answer, the command line."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import kit.drills as drills_module
from kit.checks import CheckFailed, expect
from kit.drills import CATEGORIES, Drill, Report, check_drill, elapsed_text, load_answer, run

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
