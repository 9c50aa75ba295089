"""The instructor's guide and the cheat sheets stay true to the code and the lessons.

- the guide's common-mistakes block is the one `tools/guide.py` generates from
  `kit.mistakes` (`check` exits 0), and `check` notices a mistake removed from a copy;
- every lesson has a section in the guide and a cheat sheet;
- the figures the cheat sheets quote are in the lessons: every number of a sheet's
  "Numbers to remember" appears in its solution notebook, and the worked traces quoted for
  the laptop (03), the COD chatbot (07), the hysteresis run (04), the carried-up run and the
  characters / 4 overflow (05) are what the saved outputs show.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "instructor_guide.md"
SHEETS = ROOT / "docs" / "cheatsheets"
TOOL = ROOT / "tools" / "guide.py"
LESSONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
BEGIN, END = "<!-- mistakes:begin -->", "<!-- mistakes:end -->"


def run_tool(*args: str) -> subprocess.CompletedProcess:
    """``tools/guide.py ARGS`` run in this process (its ``main``), as a finished process:
    exit code, standard output and error. One test runs the real command line."""
    sys.path.insert(0, str(TOOL.parent))
    import guide
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = guide.main(list(args))
        except SystemExit as exit:
            code = exit.code
    return subprocess.CompletedProcess([str(TOOL), *args], code, out.getvalue(), err.getvalue())


def notebook_text(path: Path, outputs_only: bool = False) -> str:
    """The sources (unless outputs_only) and the text outputs of a notebook, joined."""
    parts = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if not outputs_only:
            parts.append("".join(cell["source"]))
        for out in cell.get("outputs", []):
            if "text" in out:
                parts.append("".join(out["text"]))
            parts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def section(markdown: str, heading: str) -> str:
    """The text under `## heading` up to the next `## ` heading."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", markdown, re.M | re.S)
    assert match, f"no '## {heading}' section"
    return match.group(1)


def test_lessons_found():
    assert len(LESSONS) == 12


# ---------------------------------------------------------------- the mistakes block

def test_guide_mistakes_in_sync_with_the_registry():
    done = run_tool("check")
    assert done.returncode == 0, done.stderr


def test_every_mechanism_has_a_lesson():
    sys.path.insert(0, str(TOOL.parent))
    import guide
    from kit.mistakes import mechanisms
    assert set(mechanisms()) <= set(guide.LESSON_OF), "add the mechanism to LESSON_OF"


def test_every_registered_mistake_is_listed():
    from kit.mistakes import mistakes
    block = GUIDE.read_text(encoding="utf-8").split(BEGIN)[1].split(END)[0]
    for m in mistakes():
        assert f"- **{m.name}**: {m.what.rstrip('.')}" in block, m.name


def test_check_fails_when_a_mistake_is_removed(tmp_path):
    text = GUIDE.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(BEGIN))
    removed = next(i for i in range(start, len(lines)) if lines[i].startswith("- **"))
    copy = tmp_path / "guide.md"
    copy.write_text("".join(lines[:removed] + lines[removed + 1:]), encoding="utf-8")
    done = run_tool("check", "--guide", str(copy))
    assert done.returncode == 1
    assert "python tools/guide.py write" in done.stderr
    assert "missing:" in done.stderr and lines[removed].strip() in done.stderr
    assert run_tool("write", "--guide", str(copy)).returncode == 0     # the fix fixes it
    assert run_tool("check", "--guide", str(copy)).returncode == 0


def test_check_fails_on_a_stale_line_and_without_markers(tmp_path):
    copy = tmp_path / "guide.md"
    shutil.copyfile(GUIDE, copy)
    text = copy.read_text(encoding="utf-8")
    copy.write_text(text.replace(END, "- **made-up**: nobody wrote this — it is stale\n" + END),
                    encoding="utf-8")
    done = run_tool("check", "--guide", str(copy))
    assert done.returncode == 1 and "stale:" in done.stderr
    copy.write_text(text.replace(BEGIN, ""), encoding="utf-8")
    assert run_tool("check", "--guide", str(copy)).returncode == 1


def test_mistakes_command_is_deterministic():
    first = subprocess.run([sys.executable, str(TOOL), "mistakes"], capture_output=True,
                           text=True, cwd=ROOT, timeout=120)       # the real command line
    second = run_tool("mistakes")
    assert first.returncode == 0 and first.stdout == second.stdout
    assert first.stdout.index("### token window") < first.stdout.index("### chatbot turn")


def test_sections_of_a_notebook():
    sys.path.insert(0, str(TOOL.parent))
    import guide
    import lessons
    titles = [title for title, _ in guide.sections(lessons.read(ROOT / "solutions" /
                                                                 "07_rag_chatbot.ipynb"))]
    assert titles[0] == "setup" and titles[-1] == "Exercises"
    assert "11. Two messages for one session at once" in titles
    titles = [title for title, _ in guide.sections(lessons.read(LESSONS[0]))]
    assert "1. Four ways to count a text" in titles          # "## 1 · ..." headings too


# ---------------------------------------------------------------- one page per lesson

@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_every_lesson_has_a_guide_section_and_a_cheat_sheet(lesson):
    guide_text = GUIDE.read_text(encoding="utf-8")
    assert re.search(rf"^### .*\(`{lesson.stem}`\)$", guide_text, re.M), lesson.stem
    sheet = SHEETS / f"{lesson.stem}.md"
    assert sheet.is_file(), f"no cheat sheet {sheet.relative_to(ROOT)}"
    text = sheet.read_text(encoding="utf-8")
    for heading in ("The mechanism", "Invariants", "Numbers to remember", "30-second answers"):
        section(text, heading)
    assert len(text.splitlines()) <= 90, "about one printed page"


def test_no_cheat_sheet_without_a_lesson():
    assert sorted(p.stem for p in SHEETS.glob("*.md")) == [p.stem for p in LESSONS]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_cheat_sheet_numbers_are_in_the_lesson(lesson):
    numbers = section((SHEETS / f"{lesson.stem}.md").read_text(encoding="utf-8"),
                      "Numbers to remember")
    source = notebook_text(lesson).replace(",", "")
    for number in re.findall(r"\d[\d,.]*\d|\d", numbers):
        number = number.replace(",", "")
        assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d]|\.\d)", source), (
            f"{lesson.stem}: the cheat sheet quotes {number}, which the lesson never shows")


# ---------------------------------------------------------------- the worked traces

def test_laptop_trace_figures():
    outputs = notebook_text(ROOT / "solutions" / "03_summary_memory.ipynb", outputs_only=True)
    sizes = re.findall(r"^message (\d)\s+\d\s+(\d+)\s+", outputs, re.M)[:4]
    assert sizes == [("1", "7"), ("2", "11"), ("3", "19"), ("4", "26")]
    assert "message 4     4      26            yes: turns 1-2 folded" in outputs
    assert "11 summary words + 15 verbatim words = 26 words" in outputs
    for text in (GUIDE.read_text(encoding="utf-8"),
                 (SHEETS / "03_summary_memory.md").read_text(encoding="utf-8")):
        assert "7, 11, 19, 26" in text and "11 summary + 15 verbatim" in text.replace(
            "words + 15 verbatim words", "+ 15 verbatim").replace(
            "11 summary words", "11 summary")


def test_cod_trace_figures():
    outputs = notebook_text(ROOT / "solutions" / "07_rag_chatbot.ipynb", outputs_only=True)
    row = r"How long do prepaid refunds take\?\s+How long do prepaid refunds take\?\s+.*?"
    assert re.search(r"^1\s+" + row + r"c1, c2\s+1\s+c1\s+passed", outputs, re.M)
    assert re.search(r"^2\s+and for COD\?\s+cash-on-delivery refund\s+rewritten\s+c2\s+2\s+"
                     r"c2\s+passed", outputs, re.M)
    assert re.search(r"^2\s+and for COD\?\s+and for COD\?\s+rewrite off: raw question\s+"
                     r"\(none\)\s+0\s+\(none\)\s+refused: nothing retrieved", outputs, re.M)
    sheet = (SHEETS / "07_rag_chatbot.md").read_text(encoding="utf-8")
    for quoted in ("retrieves c1, c2, 1 model call, cites c1", '"cash-on-delivery refund"',
                   "retrieves c2, 2 model calls, cites c2", "retrieves nothing, 0 model calls"):
        assert quoted in " ".join(sheet.split()), quoted


def test_hysteresis_figures():
    outputs = notebook_text(ROOT / "solutions" / "04_robust_summary_memory.ipynb",
                            outputs_only=True)
    assert re.search(r"^120\s+96\s+14812\s+107\s+3$", outputs, re.M)
    assert re.search(r"^60\s+32\s+6428\s+88\s+3$", outputs, re.M)
    assert "96 → 32 compactions" in GUIDE.read_text(encoding="utf-8")
    sheet = " ".join((SHEETS / "04_robust_summary_memory.md").read_text(encoding="utf-8").split())
    assert "`target=120` compacts 96 times (14812" in sheet and "`target=60` 32 times (6428)" in sheet


def test_carried_up_figures():
    outputs = notebook_text(ROOT / "solutions" / "05_hierarchical_summarisation.ipynb",
                            outputs_only=True)
    assert re.search(r"^window=118\s+L1\.1\s+m1, m2\s+2\s+97\s+119\s+118$", outputs, re.M)
    assert re.search(r"^2\s+L2\.2\s+L1\.3\s+3\s+\d+\s+no, carried$", outputs, re.M)
    assert re.search(r"^3\s+L3\.1\s+L2\.1 \.\. L2\.2 \(2\)\s+7\s+\d+\s+yes$", outputs, re.M)
    assert "model calls: 5, carried up: 1" in outputs
    assert re.search(r"^approx_tokens\s+L1\.1\s+m1, .*, m7\s+114\s+265\s+150\s+no: 115 over$",
                     outputs, re.M)
    sheet = " ".join((SHEETS / "05_hierarchical_summarisation.md").read_text(
        encoding="utf-8").split())
    assert "Window 118: batches m1-m2, m3-m4, m5-m7; `L2.2` is `L1.3` carried up: 5 calls" in sheet
    assert "114 \"tokens\" that the tokenizer counts as 265" in sheet


def test_recall_figure():
    outputs = notebook_text(ROOT / "solutions" / "08_rag_evaluation.ipynb", outputs_only=True)
    assert "recall@5                    0.944 (34 of 36)" in outputs
    assert "recall@5 0.944 (34 of 36)" in (SHEETS / "08_rag_evaluation.md").read_text(
        encoding="utf-8")


def test_markers_quoted_in_prose_do_not_count_and_a_second_block_is_refused(tmp_path):
    copy = tmp_path / "guide.md"
    text = GUIDE.read_text(encoding="utf-8")
    quoted = f"The list sits between `{BEGIN}` and `{END}`.\n\n" + text
    copy.write_text(quoted, encoding="utf-8")
    assert run_tool("check", "--guide", str(copy)).returncode == 0
    assert run_tool("write", "--guide", str(copy)).returncode == 0
    assert copy.read_text(encoding="utf-8") == quoted          # nothing was cut
    copy.write_text(text + f"\n{BEGIN}\n- **old**: a stale block\n{END}\n", encoding="utf-8")
    for command in ("check", "write"):
        done = run_tool(command, "--guide", str(copy))
        assert done.returncode == 1 and "exactly one line" in done.stdout + done.stderr
