"""Which mistake a failed check may name: only one that behaves as the learner's answer did.

A whole-mechanism checker stops at the first case where the learner's answer differs from
the kit's, and its message says what the case did and what was expected (the *head*),
then why that matters and a hint. A hint that guesses the cause from the failing step alone
can blame a mistake the learner did not make. So :func:`judge` runs the checker on every
wrong answer registered for the mechanism in :mod:`kit.mistakes` (once per process: the
checkers are deterministic) and keeps the learner's hint only when a registered mistake
fails at the same step with the same observed outputs (the same head, the answer's own
name aside): that mistake passed every earlier case exactly as the learner's answer did and
gives the same output on the failing one. When several registered mistakes do, the box
names them all. When none does, the box is neutral: the head, then ``Rule:`` and the rule
of the spec that the case breaks (the first of the checker's ``rules`` whose pattern is in
the head), without guessing a cause.

Messages without a ``Why:`` part (an answer not written yet, a missing method, a crash of
the answer's own code with the call that raised), and failures a checker marks
``observed = True`` (a test double called the wrong way, say), are left as they are: they
report what the answer did and guess no cause.

    check_token_window = judged("token window", RULES, "the spec above")(_all_parts)
"""
from __future__ import annotations

import contextlib
import functools
import io
import re
from collections.abc import Callable, Sequence

from kit.checks import CheckFailed

__all__ = ["judge", "judged", "matching", "split", "answer_name", "blamed", "NEUTRAL"]

SPEC_RULES = "the rules of the spec above the exercise"   # the rule when none matches
NEUTRAL = "Rule:"                        # what a neutral box puts before the rule it states
_SEEN: dict[tuple, str | None] = {}      # (check, mechanism, mistake) -> its normalised head
_ANSWER = "<answer>"


def split(message: str) -> tuple[str, str, str]:
    """``(head, why, hint)`` of a checker's message (the last " Why: " and " Hint: " parts,
    as the failure box splits them); empty strings for the parts it has not."""
    head, hint = (message.rsplit(" Hint: ", 1) + [""])[:2] if " Hint: " in message \
        else (message, "")
    head, why = (head.rsplit(" Why: ", 1) + [""])[:2] if " Why: " in head else (head, "")
    return head.strip(), why.strip(), hint.strip()


def answer_name(answer: object) -> str:
    """The name a checker uses for ``answer`` in its messages."""
    return getattr(answer, "__name__", "") or ""


def _normal(head: str, name: str) -> str:
    """``head`` with the answer's own name replaced, so two answers compare by behaviour."""
    if name and len(name) > 1:
        head = re.sub(rf"(?<![\w.]){re.escape(name)}(?!\w)", _ANSWER, head)
    return head


def _head_of(check: Callable, mechanism: str, wrong: object) -> str | None:
    """The normalised head of ``check(wrong.answer)``'s failure, None if it passes."""
    key = (getattr(check, "__module__", ""), getattr(check, "__qualname__", repr(check)),
           mechanism, wrong.name)
    if key not in _SEEN:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                check(wrong.answer)
        except CheckFailed as failure:
            _SEEN[key] = _normal(split(str(failure))[0], answer_name(wrong.answer))
        except Exception as error:                        # noqa: BLE001 (a crash differs)
            _SEEN[key] = f"crashed: {type(error).__name__}"
        else:
            _SEEN[key] = None
    return _SEEN[key]


def _registered(mechanisms: Sequence[str]) -> list:
    from kit.mistakes import mistakes                     # same layer; loaded on a failure
    return [wrong for mechanism in mechanisms for wrong in mistakes(mechanism)]


def matching(check: Callable, mechanisms: Sequence[str], answer: object, head: str) -> list:
    """The registered mistakes whose failure under ``check`` has the learner's ``head``."""
    want = _normal(head, answer_name(answer))
    return [wrong for wrong in _registered(mechanisms)
            if wrong.answer is answer or _head_of(check, wrong.mechanism, wrong) == want]


def _rule(head: str, rules: Sequence[tuple[str, str]], default: str) -> str:
    for pattern, rule in rules:
        if re.search(pattern, head):
            return rule
    return default


def _message(check: Callable, mechanisms: Sequence[str], rules: Sequence[tuple[str, str]],
             default: str, answer: object, text: str) -> str:
    head, why, hint = split(text)
    if not why:             # not written yet, a missing method, or the answer's own crash
        return text
    found = matching(check, mechanisms, answer, head)
    if found and all(wrong.hint in text for wrong in found):
        return text             # the very message each of them gets
    if len(found) == 1:
        wrong = found[0]
        return f"{head} Why: {why} Hint: {wrong.hint} ({wrong.what.rstrip('.')})."
    if found:       # several mistakes give these very outputs: name each, guess none
        named = "; or ".join(f"{w.what.rstrip('.')} ({w.hint})" for w in found)
        return f"{head} Why: {why} Hint: {len(found)} mistakes give exactly this: {named}."
    rule = _rule(head, rules, default).rstrip(".")
    return f"{head} {NEUTRAL} {rule}."   # (a rule may quote a hint: it states, not guesses)


def judge(check: Callable, answer: object, mechanisms: str | Sequence[str],
          rules: Sequence[tuple[str, str]] = (), default: str = SPEC_RULES):
    """``check(answer)``; on :class:`CheckFailed`, the same exception re-raised with its
    hint kept only if a registered mistake of ``mechanisms`` reproduces the failure (see the
    module's docstring), else a neutral message stating the rule (``rules``: ``(regex,
    rule)`` pairs tried in order on the head; ``default`` when none is found)."""
    names = (mechanisms,) if isinstance(mechanisms, str) else tuple(mechanisms)
    try:
        return check(answer)
    except CheckFailed as failure:
        if not getattr(failure, "observed", False):
            failure.args = (_message(check, names, rules, default, answer, str(failure)),)
        raise


def judged(mechanisms: str | Sequence[str], rules: Sequence[tuple[str, str]] = (),
           default: str = SPEC_RULES) -> Callable[[Callable], Callable]:
    """Decorator: the check, run through :func:`judge`; the undecorated one is ``.raw``."""
    def wrap(check: Callable) -> Callable:
        @functools.wraps(check)
        def judged_check(answer: object):
            return judge(check, answer, mechanisms, rules, default)
        judged_check.raw = check
        return judged_check
    return wrap


def blamed(message: str, mechanisms: str | Sequence[str]) -> list[str]:
    """The names of the registered mistakes of ``mechanisms`` whose hint the message gives
    after its head (in its ``Why:`` or ``Hint:`` part): what a test of the rule reads."""
    from kit.mistakes import mistakes
    head, why, hint = split(message)
    tail = f"{why} {hint}"
    names = (mechanisms,) if isinstance(mechanisms, str) else tuple(mechanisms)
    return [w.name for m in names for w in mistakes(m) if w.hint in tail]
