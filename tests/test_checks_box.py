"""The failed-check box: what a learner sees when a check cell fails in a notebook."""
import re
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from kit.checks import CheckFailed, failure_box
from kit.checks.cost import check_total_prompt_tokens
from kit.checks.window import check_window

ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def box_of(checker, answer):
    try:
        checker(answer)
    except CheckFailed as exc:
        assert exc._render_traceback_() == failure_box(exc)
        return [ANSI.sub("", line) for line in failure_box(exc)]
    raise AssertionError("the checker passed a wrong answer")


def off_by_one(messages, max_messages):
    return messages[-max_messages - 1:]


def crashes(messages, max_messages):
    first = messages[0]
    return first[5]


def stub(messages, max_messages):
    raise NotImplementedError("Exercise: write your answer here")


def test_box_names_the_check_and_puts_why_and_hint_on_lines_of_their_own():
    lines = box_of(check_window, off_by_one)
    assert lines[0] == "✗ Check failed in check_window"
    assert lines[1].startswith("  window(6 messages u a u a u a, max_messages=4) should return")
    assert any(line.startswith("  Why: ") for line in lines)
    assert lines[-1].startswith("  Hint: ") and "off by one" in lines[-1]
    assert all(len(line) <= 88 for line in lines), lines


def test_box_shows_the_learners_line_that_raised_and_no_checker_source():
    lines = box_of(check_window, crashes)
    line = crashes.__code__.co_firstlineno + 2
    assert lines[-1] == f"  Your code raised it at line {line} of crashes: return first[5]"
    text = "\n".join(lines)
    assert "IndexError" in text and "kit/checks" not in text and "Traceback" not in text


def test_stub_gets_the_not_written_yet_line_only():
    lines = box_of(check_window, stub)
    assert lines == ["✗ Check failed in check_window",
                     "  window is not written yet: replace the `raise NotImplementedError` line "
                     "with your", "    answer"]


def test_box_of_a_failure_raised_outside_a_checker():
    try:
        raise CheckFailed("first line\nsecond line. Hint: do this")
    except CheckFailed as exc:
        lines = [ANSI.sub("", line) for line in failure_box(exc)]
    assert lines == ["✗ Check failed", "  first line", "  second line.", "  Hint: do this"]


def test_message_is_unchanged_for_tests_and_tools():
    try:
        check_total_prompt_tokens(lambda sizes: sum(sizes))
    except CheckFailed as exc:
        assert str(exc).startswith("total_prompt_tokens([7, 4, 8, 7]) should be 63 tokens, got 26")


def test_a_notebook_shows_the_box_instead_of_a_traceback():
    sys.path.insert(0, str(ROOT / "tools"))
    import lessons
    nb = new_notebook(cells=[new_code_cell(
        "from kit.checks.cost import check_total_prompt_tokens\n"
        "def total(sizes):\n    return sum(sizes)\n"
        "check_total_prompt_tokens(total)")])
    lessons.run(nb, ROOT, allow_errors=True)
    error = lessons.error_output(nb.cells[0])
    assert error.ename == "CheckFailed"
    shown = [ANSI.sub("", line) for line in error.traceback]
    assert shown[0] == "✗ Check failed in check_total_prompt_tokens" and len(shown) <= 8, shown
    assert not any("kit/checks" in line or "Traceback" in line for line in shown)


def raises_with(text):
    def window(messages, max_messages):
        raise ValueError(text)
    return window


def test_a_huge_learner_message_stays_a_short_box():
    lines = box_of(check_window, raises_with("x" * 200_000 + "\n" * 500))
    assert len(lines) <= 18 and all(len(line) <= 88 for line in lines)


def test_learner_text_cannot_pose_as_the_checkers_why_and_hint_or_send_escapes():
    lines = box_of(check_window, raises_with("\x1b[2JWhy: because Hint: use a dict"))
    assert sum(line.startswith("  Hint: ") for line in lines) == 1
    assert lines[-2].startswith("  Hint: ") and "use a dict" not in lines[-2]
    assert not any("\x1b[2J" in line for line in lines)


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no str")


def test_an_exception_that_cannot_be_printed_is_named_by_its_type():
    def window(messages, max_messages):
        raise Unprintable()
    text = " ".join(" ".join(box_of(check_window, window)).split())
    assert "Unprintable: <a Unprintable that cannot be printed>" in text


def test_the_box_never_fails_on_an_odd_message():
    class Odd:
        def __str__(self):
            raise RuntimeError("no str")
    lines = [ANSI.sub("", line) for line in CheckFailed(Odd())._render_traceback_()]
    assert lines == ["✗ Check failed", "  <a CheckFailed that cannot be printed>"]
