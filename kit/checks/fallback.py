"""Checker for lesson 04, exercise 1 (robust summary memory): a compaction with a
fallback summariser.

:func:`check_safe_compact` checks ``safe_compact(summary, turns, keep_recent,
model, fallback)``. ``turns`` is a list of :class:`kit.messages.Message`; ``model``
and ``fallback`` are prompt models ``str -> str``. Split with
:func:`kit.memory.split_for_compaction`. Nothing old: return ``(summary,
list(turns), "")`` without calling either. Else call ``model(prompt)`` once with
``prompt = build_summary_prompt(summary, old)``; if it raises any ``Exception`` or
returns anything but a non-blank str, call ``fallback(prompt)`` once with the same
prompt. Return ``(reply, recent, "model")`` or ``(reply, recent, "fallback")``. If
the fallback fails too (raises, or a non-str or blank reply), raise: the fallback's
own exception, or one of yours (ValueError, TypeError, RuntimeError, or any
exception chained from the failures); never return. ``turns`` never changes, not
even before a model call returned (compute first, commit after).

The checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake. Exercise 2
(how far to fold) is in :mod:`kit.checks.hysteresis`.
"""
from __future__ import annotations

import copy
from collections.abc import Callable

from kit.checks import CheckFailed, as_messages, call_learner, expect, passed
from kit.memory import build_summary_prompt
from kit.messages import Message, span

__all__ = ["check_safe_compact"]


def _brief(value: object) -> str:
    """A short, complete description of a result for a failure message: a list of
    messages as their numbers, a long str cut with its length, a tuple item by item."""
    if isinstance(value, tuple):
        return "(" + ", ".join(_brief(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list) and all(isinstance(m, Message) for m in value):
        return f"[messages {span([m.number for m in value])}]" if value else "[] (no messages)"
    if isinstance(value, str) and len(value) > 40:
        return f"{value[:37]!r}... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Double:
    """A model for the checker: answers ``reply`` or raises a new ``error`` (a class) on
    every call; records the prompts, its own exceptions, a wrong call (``misuse``) and
    whether the turns list given to the learner had changed when it was called."""

    def __init__(self, who: str, label: str, reply: object = None,
                 error: type[Exception] | None = None, watched: list | None = None,
                 original: list | None = None) -> None:
        self.who, self.label, self.reply, self.error = who, label, reply, error
        self.watched, self.original = watched, original
        self.prompts: list[str] = []
        self.errors: list[Exception] = []
        self.misuse: CheckFailed | None = None
        self.mutated_before = False

    def __call__(self, *args: object, **kwargs: object) -> str:
        if len(args) != 1 or kwargs or not isinstance(args[0], str):
            shown = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
            self.misuse = CheckFailed(
                f"{self.label} called {self.who}({shown[:100]}). A summariser is a prompt "
                f"model str -> str: call it with one argument, build_summary_prompt(summary, old).")
            raise self.misuse
        self.prompts.append(args[0])
        if self.watched is not None and self.watched != self.original:
            self.mutated_before = True
        if self.error is not None:
            self.errors.append(self.error(f"{self.who} failed on call {len(self.prompts)}"))
            raise self.errors[-1]
        return self.reply  # type: ignore[return-value]

    @property
    def calls(self) -> int:
        return len(self.prompts)


_CHAT = [
    ("user", "My order 88412 arrived damaged"),
    ("assistant", "Sorry! A refund or a replacement?"),
    ("user", "A replacement, and I am allergic to peanuts"),
    ("assistant", "Noted: no peanuts in the new box"),
    ("user", "Can it arrive by 6 May?"),
    ("assistant", "Yes, it will arrive by 6 May"),
    ("user", "Thanks"),
]

_OK, _FALLBACK_OK = "model summary v1", "rule-based summary"
# model behaviour / fallback behaviour: ("reply", value) or ("raise", exception class)
_SAFE_CASES = [
    # (summary, n turns, keep_recent, n old, model, fallback, who, why)
    ("", 4, 2, 2, ("reply", _OK), ("reply", _FALLBACK_OK), "model",
     "the model answered: its reply is the new summary and the fallback is not called"),
    ("order 88412", 6, 2, 4, ("reply", _OK), ("reply", _FALLBACK_OK), "model",
     "the model answered: fold turns 1-4 into the previous summary"),
    ("order 88412", 5, 2, 2, ("reply", _OK), ("reply", _FALLBACK_OK), "model",
     "recent would start with a reply: the split moves back to its question"),
    ("order 88412", 6, 2, 4, ("raise", TimeoutError), ("reply", _FALLBACK_OK), "fallback",
     "the model timed out: the fallback writes the summary from the same prompt"),
    ("order 88412", 6, 4, 2, ("raise", ConnectionError), ("reply", _FALLBACK_OK), "fallback",
     "the model failed with ConnectionError: any Exception is a failure, not only a timeout"),
    ("order 88412", 4, 0, 4, ("raise", ValueError), ("reply", _FALLBACK_OK), "fallback",
     "the model raised ValueError: any Exception is a failure"),
    ("order 88412", 6, 2, 4, ("reply", ""), ("reply", _FALLBACK_OK), "fallback",
     "the model returned an empty summary: that is a failure too"),
    ("order 88412", 6, 2, 4, ("reply", "   "), ("reply", _FALLBACK_OK), "fallback",
     "the model returned a blank summary: that is a failure too"),
    ("", 6, 2, 4, ("reply", None), ("reply", _FALLBACK_OK), "fallback",
     "the model returned None, not a str: that is a failure too"),
    ("order 88412", 6, 2, 4, ("raise", TimeoutError), ("raise", ValueError), None,
     "both failed: raise, so the caller keeps its summary and turns and retries later"),
    ("order 88412", 6, 2, 4, ("raise", TimeoutError), ("reply", ""), None,
     "the model failed and the fallback returned an empty summary: raise, never commit "
     "an empty summary"),
    ("", 4, 2, 2, ("reply", ""), ("reply", None), None,
     "the model returned '' and the fallback None: raise"),
    ("order 88412", 2, 2, 0, ("raise", TimeoutError), ("raise", TimeoutError), "",
     "nothing is older than keep_recent: no model call at all"),
    ("order 88412", 3, 2, 0, ("raise", TimeoutError), ("raise", TimeoutError), "",
     "u a u with keep_recent=2: the split moves back to message 1, nothing is old"),
    ("order 88412", 0, 0, 0, ("raise", TimeoutError), ("raise", TimeoutError), "",
     "no turns: no model call"),
]


def _label(summary: str, turns: list[Message], keep_recent: int, model: tuple,
           fallback: tuple) -> str:
    def how(behaviour: tuple) -> str:
        kind, value = behaviour
        return f"raises {value.__name__}" if kind == "raise" else f"returns {value!r}"
    roles = " ".join(m.role[0] for m in turns) or "(none)"
    return (f"safe_compact({summary!r}, {len(turns)} turns {roles}, keep_recent={keep_recent}) "
            f"with a model that {how(model)} and a fallback that {how(fallback)}")


def _double(who: str, behaviour: tuple, label: str, watched: list, original: list) -> _Double:
    kind, value = behaviour
    if kind == "raise":
        return _Double(who, label, error=value, watched=watched, original=original)
    return _Double(who, label, reply=value, watched=watched, original=original)


def _chain(exc: BaseException | None) -> list[BaseException]:
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def _mutation_hint(label: str, doubles: list[_Double], given: list, turns: list) -> None:
    for double in doubles:
        expect(not double.mutated_before,
               f"{label}: the turns list had already changed when {double.who} was called. "
               f"Compute first, commit after: never touch the state before the model call "
               f"returned, or a timeout loses the turns you removed.")
    expect(given == turns,
           f"{label} changed the turns list in place (it now holds {len(given)} turns). "
           f"A pure function returns the new state and leaves its input alone; the caller "
           f"commits only after the call succeeded.")


def _check_safe_case(safe_compact: Callable, case: tuple) -> None:
    summary, n, keep_recent, n_old, model_how, fallback_how, who, why = case
    turns = as_messages(_CHAT[:n])
    old, recent = turns[:n_old], turns[n_old:]
    label = _label(summary, turns, keep_recent, model_how, fallback_how)
    given = copy.deepcopy(turns)
    model = _double("model", model_how, label, given, turns)
    fallback = _double("fallback", fallback_how, label, given, turns)
    doubles = [model, fallback]
    try:
        got = call_learner(safe_compact, summary, given, keep_recent, model, fallback,
                           name="safe_compact", shown=label, expected=(Exception,))
    except CheckFailed:
        raise
    except Exception as exc:
        for double in doubles:
            if double.misuse is not None:
                raise CheckFailed(str(double.misuse)) from None
        _mutation_hint(label, doubles, given, turns)
        if who is None:
            mine = any(e in _chain(exc) for d in doubles for e in d.errors)
            expect(mine or isinstance(exc, (ValueError, TypeError, RuntimeError)),
                   f"{label} raised {type(exc).__name__}: {exc}. Both summarisers failed, so "
                   f"raising is right, but this looks like a bug in your code, not the "
                   f"failure: let the fallback's error propagate, or raise ValueError.")
            _expect_calls(label, model, fallback, old, summary, who, why)
            return
        if exc in model.errors and fallback.calls == 0:
            raise CheckFailed(
                f"{label} let the model's {type(exc).__name__} escape and never called the "
                f"fallback ({why}). Catch every Exception from the model (`except "
                f"Exception:`), not only TimeoutError: a summariser can fail in many ways.")
        if model_how[0] == "reply" and fallback.calls == 0:
            raise CheckFailed(
                f"{label} raised {type(exc).__name__}: {exc}. The model returned "
                f"{model_how[1]!r}, which is a failure too: check that the reply is a "
                f"non-blank str (isinstance(reply, str) and reply.strip()) and, if not, call "
                f"the fallback.") from exc
        if exc in fallback.errors:
            raise CheckFailed(f"{label} called the fallback, which failed, but {why}.")
        raise CheckFailed(f"{label} raised {type(exc).__name__}: {exc}; {why}. Run that case "
                          f"yourself to see the whole traceback.") from exc
    for double in doubles:
        if double.misuse is not None:
            raise CheckFailed(str(double.misuse)) from None
    _mutation_hint(label, doubles, given, turns)
    if who is None:
        lost = (isinstance(got, tuple) and len(got) == 3 and isinstance(got[1], list)
                and len(got[1]) < len(turns))
        raise CheckFailed(
            f"{label} returned {_brief(got)} instead of raising ({why}). "
            + ("Returning only the recent turns loses the old span: nothing holds them any "
               "more. " if lost else "")
            + "Swallowing both failures hides the outage; an empty or unchanged summary "
              "would be committed as if all went well. Let the error propagate.")
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    expect(isinstance(got, tuple) and len(got) == 3,
           f"{label} should return a tuple (new_summary, recent, who), got {_brief(got)}{missing}")
    new_summary, kept, by = got
    _expect_calls(label, model, fallback, old, summary, who, why)
    expect(isinstance(kept, list),
           f"{label}: recent should be a list of turns, got {type(kept).__name__}")
    if not old:
        expect(got == (summary, turns, ""),
               f"{label}: nothing is old, so return (summary, list(turns), ''); got "
               f"{_brief(got)}")
        expect(kept is not given,
               f"{label} returned the input list itself as recent: return a new list, "
               f"list(turns)")
        return
    want_summary = _OK if who == "model" else _FALLBACK_OK
    expect(new_summary == want_summary,
           f"{label}: the new summary should be the {who}'s reply {want_summary!r}, got "
           f"{new_summary!r:.80} ({why})")
    expect(kept == recent,
           f"{label}: recent should be messages {[m.number for m in recent]}, got "
           f"{[getattr(m, 'number', m) for m in kept]!r:.100}")
    expect(by == who,
           f"{label}: the third item says who wrote the summary: {who!r}, got {by!r:.40}. "
           f"The trace needs it to tell a model summary from a fallback one.")


def _expect_calls(label: str, model: _Double, fallback: _Double, old: list[Message],
                  summary: str, who: str | None, why: str) -> None:
    if not old:
        expect(model.calls == 0 and fallback.calls == 0,
               f"{label} called a summariser although nothing is old ({why}). Return "
               f"(summary, list(turns), '') without a model call.")
        return
    prompt = build_summary_prompt(summary, old)
    expect(model.calls > 0 or fallback.calls == 0,
           f"{label} called the fallback but never the model. The model comes first; the "
           f"fallback only answers when the model failed (its rule-based summary is worse).")
    expect(model.calls == 1,
           f"{label} called the model {model.calls} times; call it exactly once (no retry "
           f"inside a compaction: the user waits through every attempt)")
    expect(model.prompts[0] == prompt,
           f"{label}: the model's prompt should be build_summary_prompt(summary, old) with "
           f"the old messages {[m.number for m in old]}. Split with "
           f"kit.memory.split_for_compaction(turns, keep_recent).")
    if who == "model":
        expect(fallback.calls == 0,
               f"{label} called the fallback although the model answered ({why}). The "
               f"fallback is for failures only: its rule-based summary is worse.")
        return
    expect(fallback.calls > 0 or model.error is not None,
           f"{label} took the model's reply {model.reply!r} as the summary and never called "
           f"the fallback ({why}). Check the reply: anything but a non-blank str "
           f"(isinstance(reply, str) and reply.strip()) is a failure, and an empty summary "
           f"committed would wipe the running summary.")
    expect(fallback.calls == 1,
           f"{label} called the fallback {fallback.calls} times; after the model failed, "
           f"call it exactly once ({why})")
    expect(fallback.prompts[0] == prompt,
           f"{label}: give the fallback the same prompt as the model, "
           f"build_summary_prompt(summary, old): it must fold the old turns into the "
           f"previous summary, or what was summarised before is lost")


def check_safe_compact(safe_compact: Callable[..., tuple[str, list[Message], str]]) -> None:
    """Check ``safe_compact(summary, turns, keep_recent, model, fallback)``; print one
    pass line or raise CheckFailed.

    Rejects: changing ``turns`` (before the model call returned, or at all), calling the
    fallback when the model answered, catching only TimeoutError, accepting an empty,
    blank or non-str reply, giving the fallback another prompt, retrying the model,
    swallowing both failures (returning an empty or unchanged summary, or only the
    recent turns, which loses the old span), a wrong ``who``, calling a model when
    nothing is old, and returning the input list itself.
    """
    for case in _SAFE_CASES:
        _check_safe_case(safe_compact, case)
    passed("safe_compact", len(_SAFE_CASES))
