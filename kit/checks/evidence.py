"""Checker for lesson 06 (long-term memory), exercise 2: merge a session into stored counts.

:func:`check_merge_counts`: the exercise ``merge_counts(old, session_id,
turn_labels)``. ``old`` maps a label to ``{"turns": int, "sessions": [ids]}`` (the
stored counts, JSON-ready); ``turn_labels`` is one list of labels per turn of the
new session, oldest first. Return a *new* dict: each label's ``turns`` grows by the
number of this session's turns that show it (a label repeated inside one turn counts
once) and ``session_id`` is appended to its ``sessions`` once; labels the session
does not show are kept as they were. Keys: the old labels in their order, then the
new labels in the order they first appear (so the stored JSON is the same on every
run). Raise ValueError if ``session_id`` is already in ``old`` (its turns would be
counted twice). ``old`` must not change, not even its inner dicts and lists. Same
counts as :func:`kit.longterm.merge_profiles`.

The checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

import copy
from collections.abc import Callable

from kit.checks import call_learner, expect, passed
from kit.longterm import distil_profile, sample_sessions

__all__ = ["check_merge_counts"]


def _merge(old: dict, session_id: str, turn_labels: list[list[str]]) -> dict:
    """The reference merge."""
    if any(session_id in entry["sessions"] for entry in old.values()):
        raise ValueError(f"session {session_id!r} is already counted")
    merged = {label: {"turns": e["turns"], "sessions": list(e["sessions"])}
              for label, e in old.items()}
    for labels in turn_labels:
        for label in dict.fromkeys(labels):
            entry = merged.setdefault(label, {"turns": 0, "sessions": []})
            entry["turns"] += 1
            if session_id not in entry["sessions"]:
                entry["sessions"].append(session_id)
    return merged


def _c(turns: int, *sessions: str) -> dict:
    return {"turns": turns, "sessions": list(sessions)}


_MANY = ["joins", "locks", "caching", "react", "indexes", "queues", "retries", "auth",
         "tests", "logging"]

# (old, session_id, turn_labels, why)
_MERGE_CASES = [
    ({}, "s1", [["a"], ["a", "b"], []], "a first session: a in 2 turns, b in 1"),
    ({}, "s1", [["a", "a"], ["b"]], "a label repeated inside one turn counts once"),
    ({"a": _c(1, "s1")}, "s2", [["a"]], "a seen once in each of two sessions: 2 turns, "
                                       "2 sessions (stable only after the merge)"),
    ({"a": _c(1, "s1")}, "s2", [["a"], ["a"]], "two turns of one session: turns grow by "
                                               "2, the session is listed once"),
    ({"x": _c(2, "s1")}, "s2", [["y"]], "a label the new session does not show is kept "
                                        "as it was"),
    ({"b": _c(1, "s1"), "a": _c(3, "s1")}, "s2", [["d", "c"], ["a"]],
     "old labels keep their order; new ones follow in first-seen order"),
    ({"a": _c(2, "s1", "s2")}, "s3", [], "a session without labels changes no count"),
    ({}, "s1", [_MANY[:5], _MANY[3:]], "ten new labels, in the order they first appear"),
    ({"a": _c(4, "s1", "s2"), "b": _c(1, "s2")}, "s3", [["b", "c", "b"], ["c"], ["a"]],
     "several labels, old and new, with a repeat inside a turn"),
]


def _merge_label(old: dict, session_id: str, turn_labels: list) -> str:
    text = f"merge_counts({old!r}, {session_id!r}, {turn_labels!r})"
    return text if len(text) <= 160 else text[:157] + "..."


def _merge_hint(got: dict, old: dict, session_id: str, turn_labels: list) -> str:
    want = _merge(old, session_id, turn_labels)
    if got == want:
        return ("the counts are right but the keys are in another order: keep the old "
                "labels in their order, then add new labels in the order they first "
                "appear (not sorted, not in set order, which changes between runs)")
    missing = [label for label in old if label not in got]
    if missing:
        return (f"the label(s) {missing} of the old counts are gone: labels the new session "
                f"does not show stay as they were")
    for label, entry in got.items():
        if not (isinstance(entry, dict) and set(entry) == {"turns", "sessions"}):
            return f"each value is a dict with exactly 'turns' and 'sessions', got {label!r}: {entry!r:.60}"
        right = want.get(label)
        if right is None:
            return f"{label!r} is not a label of the old counts or of the session"
        if not isinstance(entry["sessions"], list):
            return f"sessions is a list of ids (JSON-ready), got {type(entry['sessions']).__name__}"
        if entry["sessions"].count(session_id) > 1:
            return (f"{label!r} lists {session_id!r} {entry['sessions'].count(session_id)} "
                    f"times: append the session id once per session, not once per turn")
        if label in old and entry["sessions"] == [session_id]:
            return (f"{label!r} lost its earlier sessions: add the new counts to the old "
                    f"ones. Stability across sessions needs the totals, not the newest "
                    f"session alone")
        if entry["turns"] > right["turns"]:
            return (f"{label!r} has {entry['turns']} turns, should be {right['turns']}: a "
                    f"label repeated inside one turn counts once (dict.fromkeys(labels) "
                    f"drops repeats and keeps the order)")
        if entry["turns"] != right["turns"]:
            return (f"{label!r} has {entry['turns']} turns, should be {right['turns']}: old "
                    f"turns plus the turns of this session that show it")
        if entry["sessions"] != right["sessions"]:
            return f"{label!r} should list the sessions {right['sessions']}, got {entry['sessions']}"
    return "compare your result with the expected one above, label by label"


def _call_merge(fn: Callable, old: dict, session_id: str, turn_labels: list,
                label: str, expected: tuple[type[BaseException], ...] = ()) -> object:
    """Call the learner's merge on deep copies; CheckFailed if it changed ``old``."""
    given_old, given_labels = copy.deepcopy(old), copy.deepcopy(turn_labels)
    got = call_learner(fn, given_old, session_id, given_labels, name="merge_counts",
                       shown=label, expected=expected)
    if given_old != old:
        shallow = (list(given_old) == list(old))
        expect(False, f"{label} changed `old` in place: it became {given_old!r:.200}. "
                      + ("dict(old) and old.copy() copy only the outer dict: the inner "
                         "dicts and their sessions lists are still old's. Build new ones: "
                         "{'turns': n, 'sessions': [*entry['sessions'], session_id]}"
                         if shallow else "Build and return a new dict instead."))
    expect(given_labels == turn_labels,
           f"{label} changed turn_labels in place: it became {given_labels!r:.120}")
    return got


def _check_one_merge(fn: Callable, old: dict, session_id: str, turn_labels: list,
                     why: str) -> dict:
    label = _merge_label(old, session_id, turn_labels)
    got = _call_merge(fn, old, session_id, turn_labels, label)
    want = _merge(old, session_id, turn_labels)
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    expect(isinstance(got, dict), f"{label} should return a dict, got {got!r:.100}{missing}")
    expect(got == want and list(got) == list(want),
           f"{label} should return {want!r:.300}, got {got!r:.300}. Why: {why}. Hint: "
           f"{_merge_hint(got, old, session_id, turn_labels)}.")
    return got


def _stable(counts: dict, min_support: int) -> list[str]:
    return [label for label, e in counts.items()
            if e["turns"] >= min_support or len(e["sessions"]) >= 2]


def check_merge_counts(merge_counts: Callable[[dict, str, list[list[str]]], dict]) -> None:
    """Check ``merge_counts(old, session_id, turn_labels)``; print one pass line or raise
    CheckFailed.

    Rejects: counting a label twice when it is repeated inside one turn, replacing the
    old counts with the new session's (stability from one session only), dropping
    labels the new session does not show, listing a session once per turn, keys sorted
    or in set order, changing ``old`` (also through a shallow copy that shares the
    inner dicts and lists), returning ``old`` itself, and merging a session twice
    without a ValueError. Then merges the weaknesses of the sample sessions s1, s2, s3
    and compares counts and stable labels with :func:`kit.longterm.merge_profiles`.
    """
    cases = 0
    for old, session_id, turn_labels, why in _MERGE_CASES:
        _check_one_merge(merge_counts, old, session_id, turn_labels, why)
        cases += 1
    old = {"a": _c(2, "s1")}
    label = _merge_label(old, "s1", [["a"]])
    try:
        got = _call_merge(merge_counts, old, "s1", [["a"]], label, expected=(ValueError,))
    except ValueError:
        pass
    else:
        expect(False, f"{label} returned {got!r:.100}: session 's1' is already counted in "
                      f"old, so merging it again would count its turns twice. Raise "
                      f"ValueError naming the session instead.")
    cases += 1
    for old in ({}, {"a": _c(1, "s1")}):
        label = _merge_label(old, "s2", [])
        got = call_learner(merge_counts, old, "s2", [], name="merge_counts", shown=label)
        expect(got is not old, f"{label} returned the dict `old` itself: return a new dict "
                               f"(the caller stores it next to the old one)")
        cases += 1
    counts: dict = {}
    profile = None
    for session in sample_sessions():
        labels = [list(t.weaknesses) for t in session.turns]
        counts = _check_one_merge(merge_counts, counts, session.session_id, labels,
                                  f"the weaknesses of sample session {session.session_id}")
        profile = distil_profile(session, previous=profile).profile
        kit = {e.label: _c(e.turns, *e.sessions) for e in profile.weaknesses}
        expect(counts == kit, f"after {session.session_id} your counts {counts!r:.200} "
                              f"differ from kit.longterm's {kit!r:.200}")
        expect(sorted(_stable(counts, 2)) == sorted(profile.stable_weaknesses),
               f"after {session.session_id} your counts make {sorted(_stable(counts, 2))} "
               f"stable, kit.longterm {sorted(profile.stable_weaknesses)}")
        cases += 1
    passed("merge_counts", cases)
