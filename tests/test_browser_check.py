"""Unit tests of the pure parts of tools/browser_check.py (no browser, no JupyterLab)."""
import contextlib
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import browser_check as bc  # noqa: E402

HINT = "✗ Check failed in check_window\n  window is not written yet: replace the line"


@pytest.fixture
def lessons(tmp_path):
    for name in ("01_tokens", "02_window", "03_summary", "notes"):
        (tmp_path / f"{name}.ipynb").write_text("{}")
    return tmp_path


def cell(prompt="[1]:", errors=(), images=0, code=True):
    return {"code": code, "prompt": prompt, "errors": list(errors), "images": images}


def test_importing_needs_no_playwright():
    code = ("import sys; sys.path.insert(0, 'tools'); import browser_check; "
            "assert 'playwright' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_resolve_names_defaults_to_every_lesson_in_order(lessons):
    assert bc.resolve_names([], lessons) == ["01_tokens", "02_window", "03_summary"]


@pytest.mark.parametrize("name", ["03", "3", "03_summary", "03_summary.ipynb",
                                  "notebooks/03_summary.ipynb"])
def test_resolve_names_accepts_numbers_stems_and_files(lessons, name):
    assert bc.resolve_names([name], lessons) == ["03_summary"]


@pytest.mark.parametrize("name", ["04", "summary", "notes"])
def test_resolve_names_rejects_unknown_lessons(lessons, name):
    with pytest.raises(ValueError, match="01_tokens, 02_window, 03_summary"):
        bc.resolve_names([name], lessons)


def test_resolve_names_finds_the_real_lessons():
    assert bc.resolve_names(["03"]) == ["03_summary_memory"]


def test_parse_args_defaults_and_options(tmp_path):
    args = bc.parse_args([])
    assert args.names == [] and args.screenshots == ROOT / "build" / "browser"
    args = bc.parse_args(["01", "03_summary_memory", "--screenshots", str(tmp_path)])
    assert args.names == ["01", "03_summary_memory"] and args.screenshots == tmp_path


def test_cell_tags_and_png_cells():
    nb = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ""},
        {"cell_type": "code", "metadata": {"tags": ["check", "raises-exception"]},
         "outputs": [{"output_type": "error"}]},
        {"cell_type": "code", "metadata": {},
         "outputs": [{"output_type": "stream", "text": "x"},
                     {"output_type": "display_data", "data": {"image/png": "iVBO"}}]},
    ]}
    assert bc.cell_tags(nb) == [[], ["check", "raises-exception"], []]
    assert bc.png_cells(nb) == {2}


def test_hint_box_rule():
    assert bc.hint_box_problems(HINT) == []
    assert bc.hint_box_problems("x\n" * 20 + "Check failed") == ["has 21 lines (at most 20)"]
    traceback = ("Traceback (most recent call last):\n  File \".venv/lib/python3.12/"
                 "site-packages/kit/checks/window.py\", line 3\nNotImplementedError")
    assert bc.hint_box_problems(traceback) == [
        "lacks 'Check failed'", "shows 'Traceback'", "shows 'kit/checks'",
        "shows 'site-packages'"]


def test_judge_passes_a_good_run():
    tags = [[], [], ["check"], []]
    cells = [cell(code=False, prompt=""), cell("[1]:", images=1), cell("[2]:", [HINT]),
             cell("[3]:")]
    assert bc.judge(tags, {1}, cells) == []


def test_judge_reports_each_problem_with_its_cell_number():
    tags = [[], ["check"], ["check"], [], []]
    cells = [cell("[1]:", ["Traceback\nNameError: name 'x' is not defined"]),
             cell("[2]:"), cell("[3]:", ["Traceback (most recent call last):\nValueError"]),
             cell("[4]:"), cell("[ ]:")]
    assert bc.judge(tags, {3}, cells) == [
        "cells not run: 4",
        "cell 0 shows an error: NameError: name 'x' is not defined",
        "check cell 1 shows no error",
        "check cell 2 lacks 'Check failed', shows 'Traceback'",
        "cell 3 shows no plot image",
    ]


def test_judge_does_not_blame_a_check_cell_that_never_ran():
    assert bc.judge([["check"]], set(), [cell("[ ]:")]) == ["cells not run: 0"]


def test_judge_needs_one_page_cell_per_file_cell():
    assert bc.judge([[], []], set(), [cell()]) == ["the page shows 1 cells, the file has 2"]


def test_outside_requests_names_other_hosts_only():
    base = "http://127.0.0.1:8888"
    urls = [f"{base}/lab", "ws://127.0.0.1:8888/api/kernels/1/channels", "data:image/png,x",
            "https://fonts.example.org/a.css", "https://fonts.example.org/b.css",
            "http://127.0.0.1:9999/x"]
    assert bc.outside_requests(urls, base) == ["127.0.0.1:9999", "fonts.example.org"]


def test_missing_tools_exit_2_with_install_hints(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("CHROMIUM", str(tmp_path / "no-chromium"))
    assert bc.main(["01"]) == 2
    err = capsys.readouterr().err
    assert "apt-get install -y chromium" in err and "CHROMIUM" in err


def test_unknown_lesson_exits_2(capsys):
    assert bc.main(["99"]) == 2
    assert "no single lesson '99'" in capsys.readouterr().err


def test_resolve_names_drops_repeats_keeping_order(lessons):
    assert bc.resolve_names(["03", "01", "03_summary", "01"], lessons) == ["03_summary",
                                                                          "01_tokens"]


def test_a_directory_is_not_a_chromium_binary(monkeypatch, tmp_path):
    monkeypatch.setenv("CHROMIUM", str(tmp_path))
    found = bc.find_tools()
    assert isinstance(found, str) and f"Chromium not found at {tmp_path}" in found


def test_screenshots_at_an_existing_file_exits_2(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(bc, "find_tools", lambda: ("chromium", None))
    monkeypatch.setattr(bc, "run_lessons", lambda *a: pytest.fail("ran the lessons"))
    shots = tmp_path / "shots.png"
    shots.write_text("not a folder")
    assert bc.main(["01", "--screenshots", str(shots)]) == 2
    assert capsys.readouterr().err == (f"error: --screenshots {shots}: cannot make the "
                                       f"screenshot folder (it is a file, not a folder)\n")
    assert bc.main(["01", "--screenshots", str(shots / "sub")]) == 2    # below a file
    assert f"Not a directory: {shots / 'sub'}" in capsys.readouterr().err


class Unhandled(Exception):
    """SIGTERM reached the test's own handler: the code under test installed none."""


@pytest.fixture
def guard():
    """A SIGTERM handler for the test, so a missing one fails the test, not pytest."""
    def unhandled(signum, frame):
        raise Unhandled("SIGTERM was not handled")
    previous = signal.signal(signal.SIGTERM, unhandled)
    yield unhandled
    signal.signal(signal.SIGTERM, previous)


def test_sigterm_raises_terminated_inside_and_restores_the_old_handler(guard):
    before = signal.getsignal(signal.SIGTERM)
    with bc.stop_on_sigterm():
        assert signal.getsignal(signal.SIGTERM) is not before
        with pytest.raises(bc.Terminated):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)                       # the handler raises before this ends
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN   # once is enough
    assert signal.getsignal(signal.SIGTERM) is before


def test_sigterm_during_a_run_stops_the_lab(monkeypatch, capsys, tmp_path, guard):
    """No browser, no JupyterLab: a stand-in lab process, and a browser launch that gets
    SIGTERM (as from a CI timeout); the lab must be gone and the exit code 143."""
    labs = []

    def fake_lab(root, port, token):
        labs.append(subprocess.Popen(["sleep", "60"], start_new_session=True))
        return labs[-1]

    class Chromium:
        def launch(self, **kwargs):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)

    @contextlib.contextmanager
    def fake_playwright():
        yield types.SimpleNamespace(chromium=Chromium())

    monkeypatch.setattr(bc, "make_workspace", lambda root: None)
    monkeypatch.setattr(bc, "start_lab", fake_lab)
    monkeypatch.setattr(bc, "find_tools", lambda: ("chromium", fake_playwright))
    before = signal.getsignal(signal.SIGTERM)
    try:
        assert bc.main(["01", "--screenshots", str(tmp_path)]) == 143
        assert labs and labs[0].poll() is not None          # the lab was stopped
    finally:
        for lab in labs:                                    # even if the test failed
            bc.stop_lab(lab)
    assert "terminated; JupyterLab stopped" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGTERM) is before
