"""Checkers for lesson 06 (long-term memory): the verbatim split and the profile merge.

- :func:`check_split_by_char_budget`: exercise 1, ``split_by_char_budget(turn_texts,
  budget_chars, separator_chars)``. ``turn_texts`` is a list of str, the rendered
  turns oldest first; ``budget_chars`` (int >= 0) and ``separator_chars`` (int >= 0,
  the characters between two neighbouring verbatim turns: 2 for a blank line) are in
  characters. Return ``(overflow, verbatim)``, two *new* lists with ``overflow +
  verbatim == turn_texts``: ``verbatim`` is the longest run of *newest* turns whose
  size ``sum(len(t)) + separator_chars * (len(verbatim) - 1)`` is at most
  ``budget_chars``. Walk newest first and stop at the first turn that does not fit
  (never skip it to keep an older one). A newest turn that alone is over the budget
  goes to ``overflow`` like the rest (it is summarised, never dropped). Same rule as
  :func:`kit.longterm.build_interview_context`. The input must not change.
- :func:`check_merge_counts`: exercise 2, ``merge_counts(old, session_id,
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

Each checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

import copy
import random
from collections.abc import Callable

from kit.checks import call_learner, call_pure, expect, passed
from kit.longterm import (build_interview_context, distil_profile, render_turn,
                          sample_sessions)

__all__ = ["check_split_by_char_budget", "check_merge_counts"]

SEPARATOR = "\n\n"            # what build_interview_context puts between verbatim turns
# budgets (characters) for the comparison with build_interview_context on session s1: around
# the turn sizes (499 newest, 1828 for turns 3-6, 2208 for turns 2-6)
S1_BUDGETS = (300, 499, 1000, 1827, 1828, 2200, 2207, 2208, 3000)


# -- exercise 1: split_by_char_budget -------------------------------------------------------

def _size(texts: list[str], sep: int) -> int:
    return sum(len(t) for t in texts) + sep * max(len(texts) - 1, 0)


def _split(texts: list[str], budget: int, sep: int) -> tuple[list[str], list[str]]:
    """The reference: newest first, stop at the first turn that does not fit."""
    used, kept = 0, 0
    for text in reversed(texts):
        cost = len(text) + (sep if kept else 0)
        if used + cost > budget:
            break
        used, kept = used + cost, kept + 1
    return texts[:len(texts) - kept], texts[len(texts) - kept:]


def _oldest_first(texts, budget, sep):
    used, kept = 0, 0
    for text in texts:
        cost = len(text) + (sep if kept else 0)
        if used + cost > budget:
            break
        used, kept = used + cost, kept + 1
    return texts[kept:], texts[:kept]


def _skipping(texts, budget, sep):               # `continue` instead of `break`
    used, chosen = 0, []
    for i in range(len(texts) - 1, -1, -1):
        cost = len(texts[i]) + (sep if chosen else 0)
        if used + cost <= budget:
            used += cost
            chosen.insert(0, i)
    return ([t for i, t in enumerate(texts) if i not in chosen], [texts[i] for i in chosen])


def _strict(texts, budget, sep):                 # `<` where `<=` is meant
    return _split(texts, budget - 1, sep) if budget > 0 else (list(texts), [])


def _sep_per_turn(texts, budget, sep):           # n separators for n turns
    used, kept = 0, 0
    for text in reversed(texts):
        if used + len(text) + sep > budget:
            break
        used, kept = used + len(text) + sep, kept + 1
    return texts[:len(texts) - kept], texts[len(texts) - kept:]


_VARIANTS = (
    (_oldest_first, "you kept the oldest turns that fit. Walk newest first: the turn in "
                    "progress needs word-for-word fidelity, old turns can be summarised"),
    (_skipping, "you skipped a turn that did not fit and went on to keep an older one. "
                "Stop at the first turn that does not fit (break, not continue): verbatim "
                "must be a contiguous run of the newest turns"),
    (_strict, "a run of exactly budget_chars characters fits: compare with <=, not < "
              "(off by one at the budget)"),
    (lambda t, b, s: _split(t, b, 0), "count the separator_chars between neighbouring "
                                      "verbatim turns"),
    (_sep_per_turn, "n verbatim turns have n - 1 separators between them, not n: the "
                    "first turn kept adds no separator"),
)


def _split_hint(got: tuple[list, list], texts: list[str], budget: int, sep: int) -> str:
    """Name the likely mistake behind a wrong (but well-formed) split."""
    overflow, verbatim = got
    want = _split(texts, budget, sep)
    for variant, hint in _VARIANTS:
        if got == variant(texts, budget, sep) != want:
            return hint
    if overflow + verbatim != texts:
        if texts and len(overflow) + len(verbatim) == len(texts) - 1 and texts[-1] not in got[0] + got[1]:
            return ("the newest turn is missing from both lists. A turn too big for the "
                    "budget is not dropped: it goes to overflow, to be summarised, so that "
                    "overflow + verbatim is always every turn")
        if overflow == want[0] and verbatim == want[1][::-1]:
            return "verbatim is newest first: return it oldest first (reverse it back)"
        return ("overflow + verbatim must be every turn, in order: verbatim is a run of "
                "the newest turns and overflow is everything before it")
    if len(verbatim) == 1 and not want[1] and _size(verbatim, sep) > budget:
        return ("the newest turn alone is larger than the budget; keeping it verbatim "
                "breaks the budget. Put it in overflow too (verbatim is empty)")
    if _size(verbatim, sep) > budget:
        return (f"verbatim holds {_size(verbatim, sep)} characters (separators included), "
                f"more than the budget")
    return ("walk newest first, adding len(text) plus separator_chars for every turn "
            "after the first; stop at the first turn that would go over budget_chars")


def _label(texts: list[str], budget: int, sep: int) -> str:
    sizes = ", ".join(str(len(t)) for t in texts) or "none"
    return (f"split_by_char_budget({len(texts)} turns of {sizes} characters, "
            f"budget_chars={budget}, separator_chars={sep})")


def _show(part: list, texts: list[str]) -> str:
    """A part of the result as the 1-based numbers of its turns: "turns [2, 3]"."""
    if not part:
        return "[]"
    if all(t in texts for t in part):
        return f"turns {[texts.index(t) + 1 for t in part]}"
    return f"{part!r:.80}"


def _texts(lengths: list[int]) -> list[str]:
    """Distinct texts of the given lengths: "A...", "B...", ..."""
    return [chr(ord("A") + i % 26) * n if n else "" for i, n in enumerate(lengths)]


# (turn lengths in characters, budget_chars, separator_chars, verbatim turns, why)
_SPLIT_CASES = [
    ([5, 7, 3], 20, 2, 3, "5 + 7 + 3 + 2 separators of 2 = 19 <= 20: every turn fits"),
    ([5, 7, 3], 12, 2, 2, "3 + 2 + 7 = 12: a run of exactly the budget fits"),
    ([5, 7, 3], 11, 2, 1, "3 + 2 + 7 = 12 > 11: only the newest turn fits"),
    ([4, 4, 4], 12, 0, 3, "no separators: 4 + 4 + 4 = 12 fits"),
    ([4, 4, 4], 12, 1, 2, "4 + 1 + 4 + 1 + 4 = 14 > 12: the separators count"),
    ([4, 4, 4], 14, 1, 3, "4 + 1 + 4 + 1 + 4 = 14: three turns have two separators"),
    ([3, 3, 8], 8, 0, 1, "the newest turn (8) fills the budget: the two older turns "
                         "are summarised, however small"),
    ([1, 9, 2], 5, 0, 1, "turn 2 (9) does not fit: stop there, even though turn 1 (1) "
                         "would"),
    ([2, 2, 9], 8, 2, 0, "the newest turn alone (9) is over the budget: every turn "
                         "overflows, none is dropped"),
    ([6], 6, 2, 1, "one turn of exactly the budget fits"),
    ([6], 5, 2, 0, "one turn over the budget overflows"),
    ([1, 1], 0, 0, 0, "a budget of 0 keeps nothing verbatim"),
    ([], 10, 2, 0, "no turns: both lists empty"),
]


def _check_one_split(fn: Callable, texts: list[str], budget: int, sep: int, why: str,
                     want: tuple[list[str], list[str]] | None = None) -> None:
    label = _label(texts, budget, sep)
    got = call_pure(fn, texts, budget, sep, name="split_by_char_budget", shown=label)
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    expect(isinstance(got, tuple) and len(got) == 2,
           f"{label} should return a tuple (overflow, verbatim), got {got!r:.100}{missing}")
    expect(all(isinstance(part, list) for part in got),
           f"{label} should return two lists, got {type(got[0]).__name__} and "
           f"{type(got[1]).__name__}")
    want = want or _split(texts, budget, sep)
    expect(got == want,
           f"{label} should return overflow={_show(want[0], texts)}, verbatim="
           f"{_show(want[1], texts)}; got overflow={_show(got[0], texts)}, verbatim="
           f"{_show(got[1], texts)}. Why: {why}. Hint: {_split_hint(got, texts, budget, sep)}.")


def check_split_by_char_budget(split_by_char_budget: Callable[[list[str], int, int],
                                                              tuple[list[str], list[str]]]) -> None:
    """Check ``split_by_char_budget(turn_texts, budget_chars, separator_chars)``; print one
    pass line or raise CheckFailed.

    Rejects: oldest-first selection, ignoring the separators or counting one per turn,
    ``<`` instead of ``<=`` at the budget, skipping a turn that does not fit to keep an
    older one, dropping (or keeping verbatim) a newest turn larger than the budget,
    verbatim returned newest first, mutating the input, and returning the input list
    itself. Also compares with :func:`kit.longterm.build_interview_context` on session
    ``s1`` (its rendered turns, a blank line between them) and with the rule on 200
    random cases.
    """
    cases = 0
    for lengths, budget, sep, _, why in _SPLIT_CASES:
        _check_one_split(split_by_char_budget, _texts(lengths), budget, sep, why)
        cases += 1
    s1 = sample_sessions()[0]
    blocks = [render_turn(t, i) for i, t in enumerate(s1.turns, start=1)]
    for budget in S1_BUDGETS:
        ctx = build_interview_context(s1, budget_chars=budget)
        split = len(ctx.overflow)
        _check_one_split(split_by_char_budget, blocks, budget, len(SEPARATOR),
                         f"build_interview_context keeps turns {list(ctx.verbatim_numbers)} "
                         f"of session s1 verbatim", (blocks[:split], blocks[split:]))
        cases += 1
    rng = random.Random(6)
    for _ in range(200):
        lengths = [rng.randint(1, 9) for _ in range(rng.randint(0, 7))]
        _check_one_split(split_by_char_budget, _texts(lengths), rng.randint(0, 30),
                         rng.randint(0, 3), "the same rule as build_interview_context")
        cases += 1
    for lengths, budget in (([2, 2], 100), ([2, 2], 0), ([], 5)):
        texts = _texts(lengths)
        label = _label(texts, budget, 2)
        # No copy here: the check is about the identity of the list passed in.
        got = call_learner(split_by_char_budget, texts, budget, 2,
                           name="split_by_char_budget", shown=label)
        expect(isinstance(got, tuple) and len(got) == 2
               and got[0] is not texts and got[1] is not texts,
               f"{label} returned the input list itself: return new lists (slices), so "
               f"that a later change to one cannot change the other")
        cases += 1
    passed("split_by_char_budget", cases)


# -- exercise 2: merge_counts ------------------------------------------------------------------

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
                      f"ValueError naming the session instead")
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
