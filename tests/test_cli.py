"""Tests of the command line, ``python -m kit``: in-process (fast) and in a subprocess
with an empty tiktoken cache and the network switched off (the workshop laptop)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kit.__main__ import main
from kit.tokens import get_encoding

ROOT = Path(__file__).resolve().parents[1]

# Runs ``python -m kit ARGS`` after making every connection attempt fail.
OFFLINE_KIT = """
import runpy, socket, sys
def offline(*args, **kwargs):
    raise OSError("network disabled by the test")
socket.socket.connect = offline
socket.create_connection = offline
socket.getaddrinfo = offline
sys.argv = ["kit"] + sys.argv[1:]
runpy.run_module("kit", run_name="__main__", alter_sys=True)
"""

TRACE_ROWS = [  # (message, turns, size (words), compaction?) from the summary-memory lesson
    ["1", "1", "7", "no: 7 <= 20"],
    ["2", "2", "11", "no: 11 <= 20"],
    ["3", "3", "19", "no: 19 <= 20"],
    ["4", "4", "26", "yes: turns 1-2 folded into the summary"],
]
FINAL_CONTEXT = [
    "Summary of earlier conversation:",
    "I need a laptop under Rs 60000; For coding or gaming?",
    "user: Coding, and it must weigh under 1.5 kg",
    "assistant: Try the Zenbook 14 at Rs 57990",
]


def run_kit(*args, cache):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TIKTOKEN_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", OFFLINE_KIT, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def check_trace_output(out):
    rows = [line.split(None, 4)[1:] for line in out.splitlines()
            if line.startswith("message ")]
    assert rows == TRACE_ROWS
    lines = out.splitlines()
    start = lines.index("Final context:") + 1
    end = next(i for i, line in enumerate(lines) if "summary words" in line)
    assert [line for line in lines[start:end] if line.strip()] == FINAL_CONTEXT
    assert lines[end].startswith("11 summary words + 15 verbatim words = 26 words")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "tiktoken-cache"
    folder.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(folder))
    return folder


# --- in process ---------------------------------------------------------------------------

@pytest.mark.parametrize("extra", [[], ["--encoding", "o200k_base"], ["--encoding", "gpt-4"]])
def test_tokens_prints_the_count(capsys, cache, extra):
    assert main(["tokens", "hello world", *extra]) == 0
    assert capsys.readouterr().out == "2\n"


def test_tokens_counts_with_the_chosen_encoding(capsys, cache):
    text = "我需要一台笔记本电脑🙂🚀"
    for encoding in ("cl100k_base", "o200k_base", "gpt-4o"):
        main(["tokens", text, "--encoding", encoding])
        expected = len(get_encoding(encoding).encode(text))
        assert capsys.readouterr().out == f"{expected}\n"
    assert len(get_encoding("cl100k_base").encode(text)) != len(
        get_encoding("o200k_base").encode(text))


def test_tokens_with_an_unknown_model_warns_and_uses_cl100k(capsys, cache):
    with pytest.warns(UserWarning, match="'no-such-model'"):
        main(["tokens", "Rs 57990", "--encoding", "no-such-model"])
    assert capsys.readouterr().out == "4\n"


def test_trace_laptop_prints_the_seed_trace(capsys):
    assert main(["trace", "laptop"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Laptop trace: budget 20 words, keep_recent=2\n")
    check_trace_output(out)
    assert "(budget 20: keep_recent wins)" in out


@pytest.mark.parametrize("argv", [[], ["bogus"], ["trace"], ["trace", "bicycle"], ["tokens"]])
def test_bad_command_lines_exit_with_usage_error(capsys, argv):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert "usage: python -m kit" in capsys.readouterr().err


# --- subprocess: empty cache, no network -------------------------------------------------------

@pytest.mark.parametrize("extra", [[], ["--encoding", "o200k_base"]])
def test_cli_tokens_offline_with_an_empty_cache(tmp_path, extra):
    done = run_kit("tokens", "hello world", *extra, cache=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "2\n", "")
    assert len(os.listdir(tmp_path)) == 1                 # the encoding file was seeded


def test_cli_trace_laptop_offline(tmp_path):
    done = run_kit("trace", "laptop", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    check_trace_output(done.stdout)


def test_cli_unknown_subcommand_fails(tmp_path):
    done = run_kit("bogus", cache=tmp_path)
    assert done.returncode == 2
    assert "invalid choice: 'bogus'" in done.stderr
    assert done.stdout == ""


def test_cli_refuses_an_empty_cache_setting_and_says_how_to_fix_it():
    done = run_kit("tokens", "x", cache="")          # "" would make tiktoken download
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("python -m kit: error: TIKTOKEN_CACHE_DIR is set to an empty string")
    assert "Traceback" not in done.stderr
    assert "Fix: unset it or point it at a folder" in done.stderr
    assert "network disabled by the test" not in done.stderr     # refused before any fetch


# --- trace cod: the "and for COD?" example of the end-to-end chatbot lesson ----------------

PREPAID_Q = "How long do prepaid refunds take?"
COD_ROWS = [  # turn, question, query sent, rewrite, retrieved, model calls, cited, guardrail
    ["1", PREPAID_Q, PREPAID_Q, "first turn: no history, raw question", "c1, c2", "1", "c1",
     "passed: cites [1] -> c1"],
    ["2", "and for COD?", "cash-on-delivery refund", "rewritten", "c2", "2", "c2",
     "passed: cites [1] -> c2"],
]
NO_REWRITE_ROWS = [
    ["1", PREPAID_Q, PREPAID_Q, "rewrite off: raw question", "c1, c2", "1", "c1",
     "passed: cites [1] -> c1"],
    ["2", "and for COD?", "and for COD?", "rewrite off: raw question", "(none)", "0", "(none)",
     "refused: nothing retrieved"],
]


def check_cod_output(out):
    lines = out.splitlines()
    split = lines.index("Without the rewrite: the raw questions go to retrieval")
    with_rewrite, without = lines[:split], lines[split:]

    def rows(part):
        return [re.split(r"\s{2,}", line) for line in part if re.match(r"[12]  ", line)]

    assert rows(with_rewrite) == COD_ROWS
    assert rows(without) == NO_REWRITE_ROWS
    assert with_rewrite.count("turn 1 answer: Prepaid refunds take 5 working days [1].") == 1
    assert "turn 2 answer: They are paid as store credit [1]." in with_rewrite
    assert "turn 2 answer: I could not answer that from our help articles." in without
    assert ("latency: 2 turns recorded under 'turn' (timings vary by machine, not printed)"
            in with_rewrite)
    assert "(ms)" not in out


def test_trace_cod_prints_the_seed_trace(capsys):
    assert main(["trace", "cod"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("COD trace: keyword retriever, scripted model, summary memory "
                          "(budget 500)\n")
    check_cod_output(out)
    assert main(["trace", "cod"]) == 0
    assert capsys.readouterr().out == out                 # no timings: the same every run


def test_cli_trace_cod_offline(tmp_path):
    done = run_kit("trace", "cod", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    check_cod_output(done.stdout)
