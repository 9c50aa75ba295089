"""Exercise checkers: each prints one pass line or raises :class:`CheckFailed` with a hint.

A checker takes the learner's function, runs it on cases with known answers and
watches for the usual mistakes (off by one, mutating the input, work done in the
wrong order). One module per concept:

- :mod:`kit.checks.cost`: lesson 01 (tokens and the cost of full history);
- :mod:`kit.checks.window` and :mod:`kit.checks.token_window`: lesson 02 (sliding windows;
  the whole token-budget window class);
- :mod:`kit.checks.summary`, :mod:`kit.checks.compaction` and
  :mod:`kit.checks.summary_memory`: lesson 03 (summary memory; the whole class).
- :mod:`kit.checks.fallback` and :mod:`kit.checks.hysteresis`: lesson 04 (robust summary
  memory: a compaction with a fallback, and how far to fold with hysteresis).
- :mod:`kit.checks.batching`, :mod:`kit.checks.hierarchy` and :mod:`kit.checks.map_reduce`:
  lesson 05 (hierarchical summarisation: packing items into batches, the reduce loop and
  when it stops, the whole map-reduce).
- :mod:`kit.checks.verbatim` and :mod:`kit.checks.evidence`: lesson 06 (long-term
  memory: the verbatim split by a character budget, the profile merge across sessions).
- :mod:`kit.checks.rag` and :mod:`kit.checks.chatbot_turn`: lesson 07 (the RAG chatbot:
  citation markers, the query-rewrite fallback, the whole turn).
- :mod:`kit.checks.recall` and :mod:`kit.checks.groundedness`: lesson 08 (evaluating the
  RAG chatbot: recall@k from the rows; strict verdict parsing, groundedness over judged
  answers only).
- :mod:`kit.checks.coverage` and :mod:`kit.checks.allocation`: lesson 09 (how good is your
  memory: evidence coverage by category, a tiny token-budget allocator).
- :mod:`kit.checks.lease`: lesson 10 (from notebook to service: the fencing rule, the
  whole lease store).
- :mod:`kit.checks.agent_context`: lesson 11 (context for agents: how many tool results to
  clear, the whole context manager for an agent loop).

A failed check shows in a notebook as a short box (:meth:`CheckFailed._render_traceback_`):
the check, what went wrong and the hint, and the line of the learner's code that raised,
never the checker's own source.

The whole-mechanism checkers see the learner's object only through the protocol of
:mod:`kit.checks.protocol`; the wrong answers they are tested against live in
:mod:`kit.mistakes`. :mod:`kit.checks.hints` decides what a failure box may say: a
registered mistake's hint only when that mistake gives the learner's very outputs up to the
failing case, else the rule of the spec that the case breaks.

Helpers here: :func:`call_learner` (calls the learner's function and turns the stub's
NotImplementedError, or any exception a checker does not expect, into a
:class:`CheckFailed` that shows the call), :func:`call_pure` (the same on deep copies,
and fails if the input was mutated), :func:`expect`, :func:`passed`,
:func:`role_turns` / :func:`show_turns` to build and describe small conversations, and
:func:`is_number` / :func:`same_number` to compare a learner's score with the expected one.
"""
from __future__ import annotations

import copy
import linecache
import math
import os
import re
import sysconfig
import textwrap
from collections.abc import Callable
from pathlib import Path

from kit.messages import Message, make_message, span
from kit.tokens import count_words

__all__ = ["CheckFailed", "failure_box", "safe_text", "expect", "call_learner", "call_pure", "passed", "show_call",
           "Turns", "role_turns", "show_turns", "as_messages", "is_number", "same_number"]

_ARGS_WIDTH = 120       # characters of the arguments shown in a failure message
_BOX_WIDTH = 88         # characters per line of the failure box
_BOX_LINES = 16         # lines of the message the box shows at most
_DETAIL_WIDTH = 300     # characters of a learner's exception text quoted in a message
_KIT = str(Path(__file__).resolve().parents[1]) + os.sep      # the kit package's folder
_LIBRARIES = tuple(str(Path(sysconfig.get_paths()[key]).resolve()) + os.sep
                   for key in ("stdlib", "purelib", "platlib"))
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")
_RED, _BOLD, _PLAIN = "\x1b[1;31m", "\x1b[1m", "\x1b[0m"


class CheckFailed(AssertionError):
    """The learner's answer is wrong; the message says which case and gives a hint."""

    def _render_traceback_(self) -> list[str]:
        """The lines IPython shows instead of a traceback (see :func:`failure_box`); if
        the box cannot be drawn, the plain message, never an error of its own."""
        try:
            return failure_box(self)
        except Exception:                                  # noqa: BLE001
            return ["✗ Check failed", "  " + safe_text(self, _BOX_WIDTH * _BOX_LINES)]


def safe_text(value: object, width: int = _DETAIL_WIDTH) -> str:
    """``str(value)`` made safe to show: control characters and terminal escapes removed,
    cut to ``width`` characters ("..." marks the cut); a value whose ``str`` raises is
    named by its type."""
    try:
        text = str(value)
    except Exception:                                      # noqa: BLE001
        text = f"<a {type(value).__name__} that cannot be printed>"
    text = _CONTROL.sub("", text)
    return text if len(text) <= width else text[:width - 3] + "..."


def _frames(tb) -> list:
    """The frames of a traceback, outermost first."""
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame.f_code, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def _learner_line(exc: BaseException | None) -> str | None:
    """``line N: <source>`` of the innermost frame of ``exc`` outside kit and the
    installed libraries (the learner's cell), or None."""
    if exc is None or isinstance(exc, NotImplementedError):
        return None
    for code, lineno in reversed(_frames(exc.__traceback__)):
        try:
            path = code.co_filename if code.co_filename.startswith("<") \
                else str(Path(code.co_filename).resolve())
        except (OSError, RuntimeError):                    # a link loop, say
            path = code.co_filename
        if not path.startswith((_KIT, *_LIBRARIES)):
            source = safe_text(linecache.getline(code.co_filename, lineno).strip(), 60)
            return f"line {lineno}{f' of {code.co_name}' if code.co_name != '<module>' else ''}" \
                   + (f": {source}" if source else "")
    return None


def _paragraphs(message: str) -> list[str]:
    """The message's lines, with its own "Why:" and "Hint:" parts (the last ones: text
    quoted earlier, from the learner's exception say, is never split) on lines of their
    own."""
    head, _, hint = message.rpartition(" Hint: ") if " Hint: " in message else (message, "", "")
    head, _, why = head.rpartition(" Why: ") if " Why: " in head else (head, "", "")
    head, _, rule = head.rpartition(" Rule: ") if " Rule: " in head else (head, "", "")
    lines = [line for line in head.splitlines() if line.strip()]
    return (lines + ([f"Rule: {rule}"] if rule else []) + ([f"Why: {why}"] if why else [])
            + ([f"Hint: {hint}"] if hint else []))


def failure_box(exc: CheckFailed, width: int = _BOX_WIDTH) -> list[str]:
    """A failed check as a few short lines: a title naming the check, the message
    (its "Rule:", "Why:" and "Hint:" on lines of their own, wrapped to ``width`` characters, at
    most 16 lines) and, when the learner's code raised, the line of it that did. No
    checker source, no control characters."""
    checks = [code.co_name for code, _ in _frames(exc.__traceback__)
              if code.co_filename.startswith(str(Path(__file__).parent))
              and code.co_name.startswith("check_")]
    title = f"{_RED}✗ Check failed{_PLAIN}" + (f" in {_BOLD}{checks[0]}{_PLAIN}" if checks else "")
    body = []
    for paragraph in _paragraphs(safe_text(exc, width * _BOX_LINES).strip()):
        label, _, rest = paragraph.partition(": ")
        if label in ("Rule", "Why", "Hint"):
            paragraph = f"{_BOLD}{label}:{_PLAIN} {rest}"
        body += textwrap.wrap(paragraph, width - 2, initial_indent="  ",
                              subsequent_indent="    ") or [""]
    if len(body) > _BOX_LINES:
        body = body[:_BOX_LINES - 1] + ["  ..."]
    raised = _learner_line(exc.__cause__)
    if raised:
        body.append(f"  {_BOLD}Your code raised it at{_PLAIN} {raised[:width - 26]}")
    return [title, *body]


def expect(condition: bool, hint: str) -> None:
    """Raise :class:`CheckFailed` with ``hint`` unless ``condition`` holds."""
    if not condition:
        raise CheckFailed(hint)


def show_call(name: str, args: tuple) -> str:
    """The call as the learner would write it, e.g. ``window([('user', 'hi')], 0)``.

    The arguments are cut to about 120 characters (``...`` marks the cut).
    """
    text = ", ".join(repr(arg) for arg in args)
    if len(text) > _ARGS_WIDTH:
        text = text[:_ARGS_WIDTH - 3] + "..."
    return f"{name}({text})"


def call_learner(fn: Callable, *args, name: str = "your function", shown: str | None = None,
                 expected: tuple[type[BaseException], ...] = (), hint: str = ""):
    """Call ``fn(*args)`` (the very objects given: no copies) and return its result.

    Raises CheckFailed if ``fn`` is not callable or is still the exercise stub
    (NotImplementedError). An exception of a type in ``expected`` propagates unchanged
    (for checks that want a ValueError, say), as does a CheckFailed raised by a
    checker's own test double. Any other exception becomes a CheckFailed naming the
    call (``shown``, else ``name`` with the arguments), the exception and ``hint``
    (a default one if empty); the original stays chained as its cause, so the
    failure box shows the learner's line that raised.
    """
    if not callable(fn):
        raise CheckFailed(f"{name} should be a function, got {fn!r:.80}")
    try:
        return fn(*args)
    except NotImplementedError as exc:
        raise CheckFailed(f"{name} is not written yet: replace the `raise "
                          f"NotImplementedError` line with your answer") from exc
    except CheckFailed:
        raise
    except expected:
        raise
    except Exception as exc:
        call = shown if shown is not None else show_call(name, args)
        text = safe_text(exc).replace("\n", " ")
        detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        advice = hint or "Run that call yourself to see the whole traceback"
        raise CheckFailed(f"{call} raised {detail}. Hint: {advice.rstrip('.')}.") from exc


def call_pure(fn: Callable, *args, name: str = "your function", shown: str | None = None,
              expected: tuple[type[BaseException], ...] = (), hint: str = ""):
    """Call ``fn(*args)`` on deep copies of ``args``; return its result.

    Raises CheckFailed if ``fn`` is still the exercise stub (NotImplementedError), if
    it raised an exception not in ``expected`` (see :func:`call_learner`), or if it
    changed any of its arguments in place.
    """
    given = copy.deepcopy(args)
    result = call_learner(fn, *given, name=name, shown=shown or show_call(name, args),
                          expected=expected, hint=hint)
    expect(given == args, f"{name} changed its input in place: {args!r:.120} became "
                          f"{given!r:.120}. Build and return a new value instead.")
    return result


def passed(name: str, cases: int) -> None:
    """Print the one pass line of a check cell."""
    print(f"PASS {name}: {cases} cases correct")


Turns = list[tuple[str, str]]   # (role, text) pairs, as the exercises use them


def role_turns(roles: str) -> Turns:
    """"uaua" -> [("user", "message 1"), ("assistant", "message 2"), ...]."""
    names = {"u": "user", "a": "assistant"}
    return [(names[r], f"message {i}") for i, r in enumerate(roles, start=1)]


def show_turns(part: object, turns: Turns) -> str:
    """A result as "messages 3-6 (u a u a)" when it is made of ``turns``' messages."""
    if isinstance(part, list) and all(t in turns for t in part):
        if not part:
            return "no messages []"
        roles = " ".join(role[0] for role, _ in part)
        numbers = [turns.index(t) + 1 for t in part]
        return f"message{'s' * (len(numbers) > 1)} {span(numbers)} ({roles})"
    return f"{part!r:.100}"


def as_messages(turns: Turns) -> list[Message]:
    """(role, text) pairs -> :class:`~kit.messages.Message` objects numbered from 1,
    measured in words."""
    return [make_message(role, text, count_words, i) for i, (role, text) in enumerate(turns, 1)]


def is_number(value: object) -> bool:
    """True for an int or float that is not a bool (``True`` is an int in Python)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def same_number(got: object, want: float | None) -> bool:
    """``got`` equals the expected score ``want`` (within 1e-9), or both are None."""
    if want is None or got is None:
        return got is want
    return is_number(got) and math.isclose(got, want, abs_tol=1e-9)
