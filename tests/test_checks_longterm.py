"""The lesson-06 checkers (kit.checks.verbatim, kit.checks.evidence) accept the right answers
and reject the typical wrong ones."""
from __future__ import annotations

import pytest

from kit.checks import CheckFailed
from kit.checks import evidence as evidence_checks
from kit.checks import verbatim as verbatim_checks
from kit.checks.evidence import check_merge_counts
from kit.checks.verbatim import check_split_by_char_budget
from kit.longterm import (build_interview_context, distil_profile, render_turn,
                          sample_sessions)


# -- split_by_char_budget(turn_texts, budget_chars, separator_chars) ---------------------------
def split(turn_texts, budget_chars, separator_chars):
    used, kept = 0, 0
    for text in reversed(turn_texts):
        cost = len(text) + (separator_chars if kept else 0)
        if used + cost > budget_chars:
            break
        used += cost
        kept += 1
    cut = len(turn_texts) - kept
    return turn_texts[:cut], turn_texts[cut:]


def split_by_sizes(turn_texts, budget_chars, separator_chars):   # another right answer
    for kept in range(len(turn_texts), -1, -1):
        recent = turn_texts[len(turn_texts) - kept:]
        if sum(map(len, recent)) + separator_chars * max(kept - 1, 0) <= budget_chars:
            return turn_texts[:len(turn_texts) - kept], recent
    raise AssertionError("unreachable: kept=0 always fits")


def split_oldest_first(turn_texts, budget_chars, separator_chars):
    used, kept = 0, 0
    for text in turn_texts:
        cost = len(text) + (separator_chars if kept else 0)
        if used + cost > budget_chars:
            break
        used += cost
        kept += 1
    return turn_texts[kept:], turn_texts[:kept]


def split_no_separators(turn_texts, budget_chars, separator_chars):
    return split(turn_texts, budget_chars, 0)


def split_separator_per_turn(turn_texts, budget_chars, separator_chars):
    used, kept = 0, 0
    for text in reversed(turn_texts):
        if used + len(text) + separator_chars > budget_chars:
            break
        used += len(text) + separator_chars
        kept += 1
    cut = len(turn_texts) - kept
    return turn_texts[:cut], turn_texts[cut:]


def split_strict(turn_texts, budget_chars, separator_chars):     # < instead of <=
    used, kept = 0, 0
    for text in reversed(turn_texts):
        cost = len(text) + (separator_chars if kept else 0)
        if used + cost >= budget_chars:
            break
        used += cost
        kept += 1
    cut = len(turn_texts) - kept
    return turn_texts[:cut], turn_texts[cut:]


def split_skips(turn_texts, budget_chars, separator_chars):      # continue instead of break
    used, overflow, verbatim = 0, [], []
    for text in reversed(turn_texts):
        cost = len(text) + (separator_chars if verbatim else 0)
        if used + cost > budget_chars:
            overflow.insert(0, text)
            continue
        used += cost
        verbatim.insert(0, text)
    return overflow, verbatim


def split_drops_big_newest(turn_texts, budget_chars, separator_chars):
    if turn_texts and len(turn_texts[-1]) > budget_chars:
        return turn_texts[:-1], []                # the newest turn vanishes
    return split(turn_texts, budget_chars, separator_chars)


def split_keeps_big_newest(turn_texts, budget_chars, separator_chars):
    if turn_texts and len(turn_texts[-1]) > budget_chars:
        return turn_texts[:-1], turn_texts[-1:]   # over budget, silently
    return split(turn_texts, budget_chars, separator_chars)


def split_newest_first(turn_texts, budget_chars, separator_chars):
    overflow, verbatim = split(turn_texts, budget_chars, separator_chars)
    return overflow, verbatim[::-1]


def split_mutating(turn_texts, budget_chars, separator_chars):
    overflow, verbatim = split(turn_texts, budget_chars, separator_chars)
    del turn_texts[:len(overflow)]                 # "the rest is summarised anyway"
    return overflow, turn_texts


def split_returns_input(turn_texts, budget_chars, separator_chars):
    overflow, verbatim = split(turn_texts, budget_chars, separator_chars)
    return overflow, (turn_texts if len(verbatim) == len(turn_texts) else verbatim)


def split_returns_counts(turn_texts, budget_chars, separator_chars):
    overflow, verbatim = split(turn_texts, budget_chars, separator_chars)
    return len(overflow), len(verbatim)


def split_stub(turn_texts, budget_chars, separator_chars):
    raise NotImplementedError("Exercise: write your answer here")


@pytest.mark.parametrize("right", [split, split_by_sizes])
def test_split_right_answers_pass(right, passes):
    passes(check_split_by_char_budget, right, "split_by_char_budget")


@pytest.mark.parametrize("wrong, hints", [
    (split_oldest_first, ["should return overflow=turns [1], verbatim=turns [2, 3]", "kept the oldest turns",
                          "Walk newest first"]),
    (split_no_separators, ["count the separator_chars"]),
    (split_separator_per_turn, ["n - 1 separators"]),
    (split_strict, ["a run of exactly the budget fits", "<=, not <"]),
    (split_skips, ["break, not continue"]),
    (split_drops_big_newest, ["newest turn is missing from both lists", "not dropped"]),
    (split_keeps_big_newest, ["newest turn alone is larger than the budget",
                              "Put it in overflow too"]),
    (split_newest_first, ["verbatim is newest first"]),
    (split_mutating, ["changed its input in place"]),
    (split_returns_input, ["returned the input list itself"]),
    (split_returns_counts, ["should return two lists, got int and int"]),
    (split_stub, ["not written yet"]),
])
def test_split_wrong_answers_fail_with_hint(wrong, hints, rejects):
    rejects(check_split_by_char_budget, wrong, *hints)


def test_split_cases_state_the_right_number_of_verbatim_turns():
    for lengths, budget, sep, n_verbatim, _ in verbatim_checks._SPLIT_CASES:
        overflow, verbatim = split(verbatim_checks._texts(lengths), budget, sep)
        assert len(verbatim) == n_verbatim, (lengths, budget, sep)
        assert len(overflow) == len(lengths) - n_verbatim


def test_split_reference_agrees_with_the_context_builder():
    s1 = sample_sessions()[0]
    blocks = [render_turn(t, i) for i, t in enumerate(s1.turns, start=1)]
    for budget in verbatim_checks.S1_BUDGETS:
        ctx = build_interview_context(s1, budget_chars=budget)
        assert split(blocks, budget, 2) == (blocks[:len(ctx.overflow)],
                                            blocks[len(ctx.overflow):]), budget
    # the budgets straddle the edges: 1828 keeps turns 3-6, 2207 too, 2208 adds turn 2
    assert len(build_interview_context(s1, budget_chars=2207).verbatim) == 4
    assert len(build_interview_context(s1, budget_chars=2208).verbatim) == 5


def test_split_cases_catch_each_trap():
    """Every wrong rule disagrees with the right one on at least one fixed case."""
    cases = [(verbatim_checks._texts(lengths), budget, sep)
             for lengths, budget, sep, _, _ in verbatim_checks._SPLIT_CASES]
    for wrong in (split_oldest_first, split_no_separators, split_separator_per_turn,
                  split_strict, split_skips, split_drops_big_newest, split_keeps_big_newest,
                  split_newest_first):
        assert any(wrong(*case) != split(*case) for case in cases), wrong.__name__


# -- merge_counts(old, session_id, turn_labels) -----------------------------------------------
def merge(old, session_id, turn_labels):
    if any(session_id in entry["sessions"] for entry in old.values()):
        raise ValueError(f"session {session_id!r} is already counted in old")
    new = {label: {"turns": e["turns"], "sessions": list(e["sessions"])}
           for label, e in old.items()}
    for labels in turn_labels:
        for label in dict.fromkeys(labels):
            entry = new.setdefault(label, {"turns": 0, "sessions": []})
            entry["turns"] += 1
            if session_id not in entry["sessions"]:
                entry["sessions"].append(session_id)
    return new


def merge_counting_first(old, session_id, turn_labels):   # another right answer
    if any(session_id in e["sessions"] for e in old.values()):
        raise ValueError(f"{session_id} merged twice")
    seen = {}
    for labels in turn_labels:
        for label in set(labels):
            seen[label] = seen.get(label, 0) + 1
    order = list(old) + [l for labels in turn_labels for l in labels if l not in old]
    new = {}
    for label in dict.fromkeys(order):
        e = old.get(label, {"turns": 0, "sessions": []})
        sessions = e["sessions"] + ([session_id] if label in seen else [])
        new[label] = {"turns": e["turns"] + seen.get(label, 0), "sessions": sessions}
    return new


def merge_counts_repeats(old, session_id, turn_labels):
    if any(session_id in e["sessions"] for e in old.values()):
        raise ValueError(session_id)
    new = {label: {"turns": e["turns"], "sessions": list(e["sessions"])}
           for label, e in old.items()}
    for labels in turn_labels:
        for label in labels:                      # a repeat inside a turn counts again
            entry = new.setdefault(label, {"turns": 0, "sessions": []})
            entry["turns"] += 1
            if session_id not in entry["sessions"]:
                entry["sessions"].append(session_id)
    return new


def merge_overwrites(old, session_id, turn_labels):      # the newest session wins
    new = {label: {"turns": e["turns"], "sessions": list(e["sessions"])}
           for label, e in old.items()}
    fresh = merge({}, session_id, turn_labels)
    new.update(fresh)
    return new


def merge_only_new_session(old, session_id, turn_labels):  # forgets what it did not see
    if any(session_id in e["sessions"] for e in old.values()):
        raise ValueError(session_id)
    full = merge(old, session_id, turn_labels)
    shown = {label for labels in turn_labels for label in labels}
    return {label: e for label, e in full.items() if label in shown}


def merge_shallow_copy(old, session_id, turn_labels):    # dict(old) shares the inner dicts
    if any(session_id in e["sessions"] for e in old.values()):
        raise ValueError(session_id)
    new = dict(old)
    for labels in turn_labels:
        for label in dict.fromkeys(labels):
            entry = new.setdefault(label, {"turns": 0, "sessions": []})
            entry["turns"] += 1
            if session_id not in entry["sessions"]:
                entry["sessions"].append(session_id)
    return new


def merge_in_place(old, session_id, turn_labels):        # updates the stored profile
    if any(session_id in e["sessions"] for e in old.values()):
        raise ValueError(session_id)
    for labels in turn_labels:
        for label in dict.fromkeys(labels):
            entry = old.setdefault(label, {"turns": 0, "sessions": []})
            entry["turns"] += 1
            if session_id not in entry["sessions"]:
                entry["sessions"].append(session_id)
    return dict(old)


def merge_sorted(old, session_id, turn_labels):
    new = merge(old, session_id, turn_labels)
    return {label: new[label] for label in sorted(new)}


def merge_set_order(old, session_id, turn_labels):       # order changes between runs
    if any(session_id in e["sessions"] for e in old.values()):
        raise ValueError(session_id)
    new = {label: {"turns": e["turns"], "sessions": list(e["sessions"])}
           for label, e in old.items()}
    everything = {label for labels in turn_labels for label in labels}
    for label in everything:
        n = sum(label in labels for labels in turn_labels)
        entry = new.setdefault(label, {"turns": 0, "sessions": []})
        entry["turns"] += n
        entry["sessions"].append(session_id)
    return new


def merge_no_guard(old, session_id, turn_labels):
    new = {label: {"turns": e["turns"], "sessions": list(e["sessions"])}
           for label, e in old.items()}
    for labels in turn_labels:
        for label in dict.fromkeys(labels):
            entry = new.setdefault(label, {"turns": 0, "sessions": []})
            entry["turns"] += 1
            if session_id not in entry["sessions"]:
                entry["sessions"].append(session_id)
    return new


def merge_session_per_turn(old, session_id, turn_labels):
    if any(session_id in e["sessions"] for e in old.values()):
        raise ValueError(session_id)
    new = {label: {"turns": e["turns"], "sessions": list(e["sessions"])}
           for label, e in old.items()}
    for labels in turn_labels:
        for label in dict.fromkeys(labels):
            entry = new.setdefault(label, {"turns": 0, "sessions": []})
            entry["turns"] += 1
            entry["sessions"].append(session_id)
    return new


def merge_returns_old(old, session_id, turn_labels):
    if not turn_labels:
        return old
    return merge(old, session_id, turn_labels)


def merge_tuple_sessions(old, session_id, turn_labels):
    new = merge(old, session_id, turn_labels)
    return {label: {"turns": e["turns"], "sessions": tuple(e["sessions"])}
            for label, e in new.items()}


def merge_stub(old, session_id, turn_labels):
    raise NotImplementedError("Exercise: write your answer here")


@pytest.mark.parametrize("right", [merge, merge_counting_first])
def test_merge_right_answers_pass(right, passes):
    passes(check_merge_counts, right, "merge_counts")


@pytest.mark.parametrize("wrong, hints", [
    (merge_counts_repeats, ["repeated inside one turn counts once", "dict.fromkeys"]),
    (merge_overwrites, ["lost its earlier sessions", "not the newest session alone"]),
    (merge_only_new_session, ["of the old counts are gone", "stay as they were"]),
    (merge_shallow_copy, ["changed `old` in place", "dict(old) and old.copy() copy only "
                                                     "the outer dict"]),
    (merge_in_place, ["changed `old` in place"]),
    (merge_sorted, ["keys are in another order", "first appear"]),
    (merge_set_order, ["keys are in another order", "set order"]),
    (merge_no_guard, ["already counted in old", "Raise ValueError naming the session instead."]),
    (merge_session_per_turn, ["lists 's1' 2 times", "once per session"]),
    (merge_returns_old, ["returned the dict `old` itself"]),
    (merge_tuple_sessions, ["sessions is a list of ids", "got tuple"]),
    (merge_stub, ["not written yet"]),
])
def test_merge_wrong_answers_fail_with_hint(wrong, hints, rejects):
    rejects(check_merge_counts, wrong, *hints)


def test_merge_reference_matches_the_kit_profile():
    counts, profile = {}, None
    for session in sample_sessions():
        counts = merge(counts, session.session_id, [list(t.weaknesses) for t in session.turns])
        profile = distil_profile(session, previous=profile).profile
        assert counts == {e.label: {"turns": e.turns, "sessions": list(e.sessions)}
                          for e in profile.weaknesses}
    assert counts["composite index column order"] == {"turns": 2, "sessions": ["s1", "s2"]}


def test_merge_cases_state_what_they_test():
    old, sid, labels, _ = evidence_checks._MERGE_CASES[1]
    assert evidence_checks._merge(old, sid, labels)["a"]["turns"] == 1        # repeat counted once
    old, sid, labels, _ = evidence_checks._MERGE_CASES[5]
    assert list(evidence_checks._merge(old, sid, labels)) == ["b", "a", "d", "c"]
    with pytest.raises(ValueError, match="already counted"):
        evidence_checks._merge({"a": {"turns": 1, "sessions": ["s1"]}}, "s1", [])


def test_a_crash_in_the_learners_merge_names_the_call():
    def crashes(old, session_id, turn_labels):
        return {label: old[label] for label in turn_labels[0]}      # KeyError on new labels

    with pytest.raises(CheckFailed, match=r"merge_counts\(\{\}, 's1', .*raised KeyError"):
        check_merge_counts(crashes)
