"""Long-term memory: a candidate profile with counted evidence, merged across sessions.

Source: the FEMentor write-up (after a session, distil stable strengths, stable weaknesses,
project signals, role-fit signals and recommended focus; the structured data is the source
of truth, a Markdown file only a view).

Stability is *computed, not guessed*: a profile keeps every strength and weakness label
it has seen as :class:`Evidence` (in how many turns, in which sessions). A label is
**stable** when it was seen in at least ``min_support`` turns (default 2) or in two or
more sessions; the rest are one-off observations, kept so that a later session can
make them stable. :func:`merge_profiles` adds the counts, so a weakness seen once in
each of two sessions becomes stable after the merge.

- :class:`Evidence`, :class:`Profile` (``to_dict``/``from_dict``, ``to_json``/``from_json``)
- :func:`count_evidence`: the labels of one session, counted.
- :func:`merge_profiles`: old + new, deterministic.
- :func:`profile_markdown`: a readable view, never read back.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

from kit.longterm.session import InterviewSession, _one_line, normalise_label
from kit.structured import decode_json
from kit.validation import check_int

__all__ = ["Evidence", "Profile", "count_evidence", "merge_profiles", "profile_markdown",
           "PROFILE_VERSION", "DEFAULT_MIN_SUPPORT", "MAX_SIGNALS"]

PROFILE_VERSION = 1
DEFAULT_MIN_SUPPORT = 2
MAX_SIGNALS = 8            # project and role-fit signals kept after a merge (newest)


def _strings(name: str, values: object) -> tuple[str, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple of str, got "
                        f"{type(values).__name__}: {values!r:.60}")
    return tuple(_one_line(f"{name}[{i}]", v) for i, v in enumerate(values))


@dataclass(frozen=True)
class Evidence:
    """One label and how often it was seen: ``turns`` (int >= 1, turns that showed it)
    and ``sessions`` (ids of the sessions it was seen in, first-seen order, no repeats,
    at most ``turns`` of them). Raises TypeError/ValueError naming the bad value."""

    label: str
    turns: int
    sessions: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", normalise_label(self.label))
        check_int(f"turns of {self.label!r}", self.turns, 1)
        sessions = _strings(f"sessions of {self.label!r}", self.sessions)
        if not sessions or len(set(sessions)) != len(sessions):
            raise ValueError(f"sessions of {self.label!r} must be distinct ids, at least one, "
                             f"got {list(sessions)}")
        if len(sessions) > self.turns:
            raise ValueError(f"{self.label!r} is seen in {len(sessions)} sessions but only "
                             f"{self.turns} turns")
        object.__setattr__(self, "sessions", sessions)

    def is_stable(self, min_support: int) -> bool:
        """Seen in >= ``min_support`` turns, or in two or more sessions."""
        return self.turns >= min_support or len(self.sessions) >= 2

    def describe(self) -> str:
        """``"label (3 turns, 2 sessions, last in s2)"``."""
        t, s = self.turns, len(self.sessions)
        return (f"{self.label} ({t} turn{'s' * (t > 1)}, {s} session{'s' * (s > 1)}, "
                f"last in {self.sessions[-1]})")


def _evidence_tuple(name: str, items: object) -> tuple[Evidence, ...]:
    if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple of Evidence, got {items!r:.60}")
    for i, item in enumerate(items):
        if not isinstance(item, Evidence):
            raise TypeError(f"{name}[{i}] must be Evidence, got {type(item).__name__}: {item!r:.60}")
    seen = Counter(e.label for e in items)                 # one pass, not one per label
    repeated = sorted(label for label, n in seen.items() if n > 1)
    if repeated:
        raise ValueError(f"{name} lists {repeated} more than once")
    # canonical order: most turns, then most sessions, then the label
    return tuple(sorted(items, key=lambda e: (-e.turns, -len(e.sessions), e.label)))


@dataclass(frozen=True)
class Profile:
    """What the kit remembers about a candidate across sessions.

    ``strengths``, ``weaknesses``: every label seen, as :class:`Evidence` (stored in a
    canonical order: most turns first, then most sessions, then label); the stable
    ones are the properties :attr:`stable_strengths` / :attr:`stable_weaknesses`.
    ``project_signals``, ``role_fit_signals``, ``recommended_focus``: one-line strs
    from the distiller (model or rules). ``sessions``: ids merged in, oldest first;
    every evidence session must be one of them. ``min_support``: int >= 1.
    Raises TypeError/ValueError naming the bad value.
    """

    strengths: tuple[Evidence, ...]
    weaknesses: tuple[Evidence, ...]
    project_signals: tuple[str, ...] = ()
    role_fit_signals: tuple[str, ...] = ()
    recommended_focus: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()
    min_support: int = DEFAULT_MIN_SUPPORT

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        check_int("min_support", self.min_support, 1)
        sessions = _strings("sessions", self.sessions)
        if len(set(sessions)) != len(sessions):
            raise ValueError(f"sessions must be distinct, got {list(sessions)}")
        set_(self, "sessions", sessions)
        for name in ("strengths", "weaknesses"):
            items = _evidence_tuple(name, getattr(self, name))
            for e in items:
                unknown = [s for s in e.sessions if s not in sessions]
                if unknown:
                    raise ValueError(f"{name} {e.label!r} names session(s) {unknown} that are "
                                     f"not in the profile's sessions {list(sessions)}")
            set_(self, name, items)
        for name in ("project_signals", "role_fit_signals", "recommended_focus"):
            set_(self, name, _strings(name, getattr(self, name)))

    @property
    def stable_strengths(self) -> tuple[str, ...]:
        """Labels of the strengths that are stable (see :meth:`Evidence.is_stable`)."""
        return tuple(e.label for e in self.strengths if e.is_stable(self.min_support))

    @property
    def stable_weaknesses(self) -> tuple[str, ...]:
        """Labels of the weaknesses that are stable (see :meth:`Evidence.is_stable`)."""
        return tuple(e.label for e in self.weaknesses if e.is_stable(self.min_support))

    def to_dict(self) -> dict:
        """Plain JSON-ready data with a ``version``; :meth:`from_dict` reads it back."""
        def ev(items):
            return [{"label": e.label, "turns": e.turns, "sessions": list(e.sessions)}
                    for e in items]
        return {"version": PROFILE_VERSION, "min_support": self.min_support,
                "sessions": list(self.sessions), "strengths": ev(self.strengths),
                "weaknesses": ev(self.weaknesses),
                "project_signals": list(self.project_signals),
                "role_fit_signals": list(self.role_fit_signals),
                "recommended_focus": list(self.recommended_focus)}

    @classmethod
    def from_dict(cls, data: object) -> Profile:
        """Read :meth:`to_dict` data. Raises TypeError/ValueError naming a wrong version,
        a missing or unknown field, or a bad value."""
        if not isinstance(data, dict):
            raise TypeError(f"a profile must be a dict, got {type(data).__name__}: {data!r:.60}")
        if data.get("version") != PROFILE_VERSION:
            raise ValueError(f"profile version must be {PROFILE_VERSION}, got {data.get('version')!r}")
        fields = {"version", "min_support", "sessions", "strengths", "weaknesses",
                  "project_signals", "role_fit_signals", "recommended_focus"}
        missing, unknown = sorted(fields - set(data)), sorted(set(data) - fields)
        if missing or unknown:
            raise ValueError(f"profile fields: missing {missing}, unknown {unknown}")

        def ev(name):
            items = data[name]
            if not isinstance(items, list):
                raise TypeError(f"{name} must be a list, got {type(items).__name__}")
            out = []
            for i, item in enumerate(items):
                if not isinstance(item, dict) or set(item) != {"label", "turns", "sessions"}:
                    raise ValueError(f"{name}[{i}] must have exactly label, turns and "
                                     f"sessions, got {item!r:.80}")
                out.append(Evidence(item["label"], item["turns"], _strings(
                    f"{name}[{i}].sessions", item["sessions"])))
            return tuple(out)
        return cls(ev("strengths"), ev("weaknesses"), data["project_signals"],
                   data["role_fit_signals"], data["recommended_focus"], data["sessions"],
                   data["min_support"])

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON text (non-ASCII kept)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    @classmethod
    def from_json(cls, text: str) -> Profile:
        """Read :meth:`to_json` text; raises ValueError for invalid JSON, a key given twice
        in one object, or JSON nested too deep to read (:func:`kit.structured.decode_json`)."""
        return cls.from_dict(decode_json(text, "the profile"))


def count_evidence(session: InterviewSession) -> tuple[tuple[Evidence, ...], tuple[Evidence, ...]]:
    """(strengths, weaknesses) of one session: for each label, in how many of its turns it
    was seen. Raises TypeError for a non-:class:`InterviewSession`."""
    if not isinstance(session, InterviewSession):
        raise TypeError(f"session must be an InterviewSession, got {type(session).__name__}")

    def count(field):
        seen: dict[str, int] = {}
        for turn in session.turns:
            for label in getattr(turn, field):
                seen[label] = seen.get(label, 0) + 1
        return tuple(Evidence(label, n, (session.session_id,)) for label, n in seen.items())
    return count("strengths"), count("weaknesses")


def _merge_evidence(old: tuple[Evidence, ...], new: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    merged = {e.label: e for e in old}
    for e in new:
        before = merged.get(e.label)
        merged[e.label] = e if before is None else Evidence(
            e.label, before.turns + e.turns,
            before.sessions + tuple(s for s in e.sessions if s not in before.sessions))
    return tuple(merged.values())


def _newest(old: tuple[str, ...], new: tuple[str, ...], keep: int) -> tuple[str, ...]:
    seen = tuple(dict.fromkeys(reversed(old + new)))          # the newest copy of each
    return tuple(reversed(seen[:keep]))


def merge_profiles(old: Profile | None, new: Profile, max_signals: int = MAX_SIGNALS) -> Profile:
    """The profile after adding ``new`` (usually one session) to ``old``; ``old=None``
    returns ``new``. Neither input changes.

    Evidence is added label by label (turns summed, sessions joined), so stability is
    recomputed from the totals. Project and role-fit signals: both lists, repeats
    dropped, the newest ``max_signals`` kept, oldest first. ``recommended_focus`` comes
    from ``new``: advice is about the next step. Raises ValueError if the two share a
    session (it would be counted twice) or differ in ``min_support``; TypeError for a
    non-:class:`Profile`.
    """
    if not isinstance(new, Profile) or not (old is None or isinstance(old, Profile)):
        raise TypeError(f"merge_profiles takes (Profile or None, Profile), got "
                        f"({type(old).__name__}, {type(new).__name__})")
    check_int("max_signals", max_signals, 1)
    if old is None:
        return new
    shared = [s for s in new.sessions if s in old.sessions]
    if shared:
        raise ValueError(f"session(s) {shared} are already in the old profile; merging them "
                         f"again would count their turns twice")
    if old.min_support != new.min_support:
        raise ValueError(f"min_support differs: old {old.min_support}, new {new.min_support}")
    return Profile(_merge_evidence(old.strengths, new.strengths),
                   _merge_evidence(old.weaknesses, new.weaknesses),
                   _newest(old.project_signals, new.project_signals, max_signals),
                   _newest(old.role_fit_signals, new.role_fit_signals, max_signals),
                   new.recommended_focus, old.sessions + new.sessions, old.min_support)


def profile_markdown(profile: Profile) -> str:
    """A Markdown view of ``profile`` for people (a log, not the source of truth)."""
    if not isinstance(profile, Profile):
        raise TypeError(f"profile must be a Profile, got {type(profile).__name__}")
    k = profile.min_support

    def bullets(lines):
        return [f"- {line}" for line in lines] or ["- (none yet)"]
    one_off = [f"{kind}: {e.describe()}" for kind, items in
               (("strength", profile.strengths), ("weakness", profile.weaknesses))
               for e in items if not e.is_stable(k)]
    out = [f"# Candidate profile: {len(profile.sessions)} session(s) "
           f"({', '.join(profile.sessions) or 'none'})", "",
           f"Stable = seen in >= {k} turns or in 2+ sessions.", ""]
    for title, lines in (
            ("Stable strengths", [e.describe() for e in profile.strengths if e.is_stable(k)]),
            ("Stable weaknesses", [e.describe() for e in profile.weaknesses if e.is_stable(k)]),
            ("Not yet stable", one_off),
            ("Project signals", profile.project_signals),
            ("Role-fit signals", profile.role_fit_signals),
            ("Recommended focus", profile.recommended_focus)):
        out += [f"## {title}", *bullets(lines), ""]
    return "\n".join(out).rstrip() + "\n"
