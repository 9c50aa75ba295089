"""The lesson-04 safe_compact checker accepts the right answers and rejects the typical
wrong ones."""
from __future__ import annotations

import pytest

from kit.checks.fallback import check_safe_compact
from kit.memory import build_summary_prompt, split_for_compaction


# -- safe_compact(summary, turns, keep_recent, model, fallback) ---------------------------
def usable(reply):
    return isinstance(reply, str) and bool(reply.strip())


def safe_compact(summary, turns, keep_recent, model, fallback):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, list(turns), ""
    prompt = build_summary_prompt(summary, old)
    try:
        reply = model(prompt)
        if not usable(reply):
            raise ValueError(f"the model returned no summary: {reply!r}")
        return reply, recent, "model"
    except Exception:
        reply = fallback(prompt)                  # its own failure propagates
        if not usable(reply):
            raise ValueError(f"the fallback returned no summary: {reply!r}") from None
        return reply, recent, "fallback"


def safe_compact_loop(summary, turns, keep_recent, model, fallback):   # another right answer
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, list(turns), ""
    prompt = build_summary_prompt(summary, old)
    errors = []
    for who, summariser in (("model", model), ("fallback", fallback)):
        try:
            reply = summariser(prompt)
        except Exception as exc:
            errors.append(exc)
            continue
        if usable(reply):
            return reply, recent, who
        errors.append(ValueError(f"{who} returned {reply!r}"))
    raise RuntimeError(f"both summarisers failed: {errors}") from errors[-1]


def commits_before_the_call(summary, turns, keep_recent, model, fallback):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, list(turns), ""
    del turns[:len(old)]                          # committed before the model returned
    return safe_compact(summary, old + turns, keep_recent, model, fallback)


def mutates_after_success(summary, turns, keep_recent, model, fallback):
    result = safe_compact(summary, list(turns), keep_recent, model, fallback)
    turns[:] = result[1]
    return result


def fallback_first(summary, turns, keep_recent, model, fallback):
    return safe_compact(summary, turns, keep_recent, fallback, model)


def calls_both(summary, turns, keep_recent, model, fallback):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, list(turns), ""
    prompt = build_summary_prompt(summary, old)
    backup = fallback(prompt)                     # "just in case"
    try:
        reply = model(prompt)
        if usable(reply):
            return reply, recent, "model"
    except Exception:
        pass
    return backup, recent, "fallback"


def catches_only_timeouts(summary, turns, keep_recent, model, fallback):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, list(turns), ""
    prompt = build_summary_prompt(summary, old)
    try:
        reply = model(prompt)
    except TimeoutError:
        return fallback(prompt), recent, "fallback"
    if not usable(reply):
        return fallback(prompt), recent, "fallback"
    return reply, recent, "model"


def accepts_empty_replies(summary, turns, keep_recent, model, fallback):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, list(turns), ""
    prompt = build_summary_prompt(summary, old)
    try:
        return model(prompt), recent, "model"
    except Exception:
        return fallback(prompt), recent, "fallback"


def swallows_both(summary, turns, keep_recent, model, fallback):
    try:
        return safe_compact(summary, turns, keep_recent, model, fallback)
    except Exception:
        return "", split_for_compaction(turns, keep_recent)[1], "fallback"


def keeps_everything_silently(summary, turns, keep_recent, model, fallback):
    try:
        return safe_compact(summary, turns, keep_recent, model, fallback)
    except Exception:
        return summary, list(turns), ""


def fallback_without_summary(summary, turns, keep_recent, model, fallback):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, list(turns), ""
    try:
        reply = model(build_summary_prompt(summary, old))
        if usable(reply):
            return reply, recent, "model"
    except Exception:
        pass
    reply = fallback(build_summary_prompt("", old))   # the previous summary is dropped
    if not usable(reply):
        raise ValueError("no summary")
    return reply, recent, "fallback"


def retries_the_model(summary, turns, keep_recent, model, fallback):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, list(turns), ""
    prompt = build_summary_prompt(summary, old)
    for _ in range(2):
        try:
            reply = model(prompt)
            if usable(reply):
                return reply, recent, "model"
        except Exception:
            pass
    reply = fallback(prompt)
    if not usable(reply):
        raise ValueError("no summary")
    return reply, recent, "fallback"


def always_says_model(summary, turns, keep_recent, model, fallback):
    new, recent, who = safe_compact(summary, turns, keep_recent, model, fallback)
    return new, recent, "model" if who else ""


def no_move_back(summary, turns, keep_recent, model, fallback):
    split = max(len(turns) - keep_recent, 0)
    old, recent = list(turns[:split]), list(turns[split:])
    if not old:
        return summary, list(turns), ""
    prompt = build_summary_prompt(summary, old)
    try:
        reply = model(prompt)
        if usable(reply):
            return reply, recent, "model"
    except Exception:
        pass
    reply = fallback(prompt)
    if not usable(reply):
        raise ValueError("no summary")
    return reply, recent, "fallback"


def calls_when_nothing_is_old(summary, turns, keep_recent, model, fallback):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        try:
            model(build_summary_prompt(summary, old))
        except Exception:
            pass
        return summary, list(turns), ""
    return safe_compact(summary, turns, keep_recent, model, fallback)


def returns_input_list(summary, turns, keep_recent, model, fallback):
    result = safe_compact(summary, turns, keep_recent, model, fallback)
    return (summary, turns, "") if result[2] == "" else result


def buggy_on_failure(summary, turns, keep_recent, model, fallback):
    try:
        return safe_compact(summary, turns, keep_recent, model, fallback)
    except ValueError:
        return undefined_name   # noqa: F821  (a NameError, not the failure)


def safe_compact_stub(summary, turns, keep_recent, model, fallback):
    raise NotImplementedError("Exercise: write your answer here")


@pytest.mark.parametrize("answer", [safe_compact, safe_compact_loop])
def test_safe_compact_right_answers_pass(passes, answer):
    passes(check_safe_compact, answer, "safe_compact")


@pytest.mark.parametrize("wrong, hints", [
    (commits_before_the_call, ["had already changed when model was called",
                               "Compute first, commit after"]),
    (mutates_after_success, ["changed the turns list in place"]),
    (fallback_first, ["called the fallback but never the model"]),
    (calls_both, ["called the fallback although the model answered"]),
    (catches_only_timeouts, ["escape and never called the fallback",
                             "not only TimeoutError"]),
    (accepts_empty_replies, ["took the model's reply '' as the summary",
                             "an empty summary: that is a failure too"]),
    (swallows_both, ["returned ('', [messages 5-6], 'fallback') instead of raising",
                     "Swallowing both failures", "loses the old span"]),
    (keeps_everything_silently, ["returned ('order 88412', [messages 1-6], '') instead of "
                                 "raising", "Swallowing both failures"]),
    (fallback_without_summary, ["give the fallback the same prompt"]),
    (retries_the_model, ["called the model 2 times"]),
    (always_says_model, ["who wrote the summary: 'fallback', got 'model'"]),
    (no_move_back, ["the model's prompt should be build_summary_prompt",
                    "split_for_compaction"]),
    (calls_when_nothing_is_old, ["called a summariser although nothing is old"]),
    (returns_input_list, ["returned the input list itself"]),
    (buggy_on_failure, ["raised NameError", "looks like a bug in your code"]),
    (safe_compact_stub, ["not written yet"]),
])
def test_safe_compact_wrong_answers_are_rejected(rejects, wrong, hints):
    rejects(check_safe_compact, wrong, *hints)


def test_a_none_reply_must_be_checked_before_use(rejects):
    def strips_blindly(summary, turns, keep_recent, model, fallback):
        old, recent = split_for_compaction(turns, keep_recent)
        if not old:
            return summary, list(turns), ""
        prompt = build_summary_prompt(summary, old)
        try:
            reply = model(prompt)
        except Exception:
            return fallback(prompt), recent, "fallback"
        if not reply.strip():                     # AttributeError on None
            return fallback(prompt), recent, "fallback"
        return reply, recent, "model"

    rejects(check_safe_compact, strips_blindly, "The model returned None",
            "isinstance(reply, str)")


def test_calling_a_model_with_two_arguments_is_named(rejects):
    def two_args(summary, turns, keep_recent, model, fallback):
        old, recent = split_for_compaction(turns, keep_recent)
        if not old:
            return summary, list(turns), ""
        try:
            return model("Summarise.", build_summary_prompt(summary, old)), recent, "model"
        except Exception:
            return fallback(build_summary_prompt(summary, old)), recent, "fallback"

    rejects(check_safe_compact, two_args, "called model('Summarise.'",
            "call it with one argument")
