"""After a session: distil a :class:`~kit.longterm.profile.Profile`, by model or by rules.

Source: the FEMentor write-up (long-term memory is written in the retrospective after the
session, as structured data, with a rule-based fallback when the model fails).

Division of labour: code counts, the model writes. Which strengths and weaknesses are
stable is computed from counted :class:`~kit.longterm.profile.Evidence`; the model is
shown those counts and asked only for what needs judgement, as JSON::

    {"project_signals": [...], "role_fit_signals": [...], "recommended_focus": [...]}

:func:`distil_profile` validates that reply (:func:`parse_distil_reply`). If the model
raises, returns a non-str or returns malformed JSON, :func:`rule_based_signals` gives
a simpler result (no project signals: rules cannot judge them; role fit as topic
averages; focus = stable weaknesses), and the :class:`Distillation` says which ran.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from kit.llm import PromptModel
from kit.longterm.overflow import FOLLOW_UP_BELOW
from kit.longterm.profile import DEFAULT_MIN_SUPPORT, Profile, count_evidence, merge_profiles
from kit.longterm.session import MAX_SCORE, InterviewSession, _one_line, turn_to_dict
from kit.structured import load_json_reply
from kit.validation import check_int

__all__ = ["DISTIL_PROMPT", "SESSION_MARKER", "SIGNAL_FIELDS", "MAX_ITEMS", "PROJECT_CUES",
           "build_distil_prompt", "parse_distil_reply", "distil_stub", "rule_based_signals",
           "Distillation", "distil_profile"]

SESSION_MARKER = "Session (JSON):"
SIGNAL_FIELDS = ("project_signals", "role_fit_signals", "recommended_focus")
MAX_ITEMS = 5              # at most this many items per field in a model's reply
STRONG_FROM = 7            # topic average (out of 10) from which a role-fit signal is a strength
PROJECT_CUES = ("in my last project", "at my last job", "in production", "we built", "i built",
                "we migrated", "i migrated", "we shipped", "i led", "our team")

DISTIL_PROMPT = (
    "You write the long-term memory of a candidate after a mock technical interview. The "
    "strengths and weaknesses below were counted by code and marked stable or not; do not "
    "recount them. Reply with exactly one JSON object and nothing else:\n"
    '{"project_signals": ["..."], "role_fit_signals": ["..."], "recommended_focus": ["..."]}\n'
    f"At most {MAX_ITEMS} one-line strings per list. project_signals: evidence of hands-on "
    "project work, citing session and turn. role_fit_signals: what the answers say about "
    "fit for the target role. recommended_focus: priorities for the next practice, stable "
    "weaknesses first."
)


def build_distil_prompt(session: InterviewSession, evidence: Profile,
                        instructions: str = DISTIL_PROMPT) -> str:
    """``instructions``, a blank line, :data:`SESSION_MARKER`, then one JSON object:
    session_id, target_role, min_support, the session's turns (numbered), and the
    weaknesses and strengths counted over every session so far (``evidence``: the
    previous profile merged with this session), each with ``turns``, ``sessions``,
    ``last_seen`` and ``stable``."""
    def ev(items):
        return [{"label": e.label, "turns": e.turns, "sessions": len(e.sessions),
                 "last_seen": e.sessions[-1], "stable": e.is_stable(evidence.min_support)}
                for e in items]
    payload = {"session_id": session.session_id, "target_role": session.target_role,
               "min_support": evidence.min_support,
               "turns": [turn_to_dict(t, i + 1) for i, t in enumerate(session.turns)],
               "weaknesses": ev(evidence.weaknesses), "strengths": ev(evidence.strengths)}
    return f"{instructions}\n\n{SESSION_MARKER}\n{json.dumps(payload, ensure_ascii=False, indent=1)}"


def parse_distil_reply(text: str) -> dict[str, tuple[str, ...]]:
    """Validate a distiller's reply: one JSON object (a fenced one too) with exactly the
    keys :data:`SIGNAL_FIELDS`, each a list of at most :data:`MAX_ITEMS` one-line strs.
    Returns ``{field: tuple of str}``. Raises ValueError naming the problem."""
    data = load_json_reply(text)
    if not isinstance(data, dict):
        raise ValueError(f"the reply must be a JSON object, got a JSON {type(data).__name__}")
    missing = [k for k in SIGNAL_FIELDS if k not in data]
    unknown = sorted(set(data) - set(SIGNAL_FIELDS))
    if missing or unknown:
        raise ValueError(f"the reply must have exactly {', '.join(SIGNAL_FIELDS)}; "
                         f"missing {missing}, unknown {unknown}")
    out = {}
    for key in SIGNAL_FIELDS:
        items = data[key]
        if not isinstance(items, list):
            raise ValueError(f"{key} must be a list of strings, got {type(items).__name__}: "
                             f"{items!r:.60}")
        if len(items) > MAX_ITEMS:
            raise ValueError(f"{key} has {len(items)} items, at most {MAX_ITEMS} allowed")
        try:
            out[key] = tuple(_one_line(f"{key}[{i}]", item) for i, item in enumerate(items))
        except TypeError as exc:
            raise ValueError(str(exc)) from None
    return out


def _topic_averages(turns) -> dict[str, tuple[float, int]]:
    scores: dict[str, list[int]] = {}
    for t in turns:
        scores.setdefault(t["topic"], []).append(t["score"])
    return {topic: (sum(s) / len(s), len(s)) for topic, s in scores.items()}


def distil_stub(prompt: str) -> str:
    """A deterministic prompt model answering :data:`DISTIL_PROMPT` (for offline lessons).

    project_signals: every answer sentence with a project cue (:data:`PROJECT_CUES`, e.g.
    "we built"), cited as "<session> turn n (topic): <sentence>"; role_fit_signals: per
    topic, "<session>: strong" from an average of 7/10, "gap" below 6/10, else "solid",
    for the target role; recommended_focus: the stable weaknesses (those seen in this
    session first, then most turns), then the session's weakest topic if there is room. At most :data:`MAX_ITEMS` each. Raises
    ValueError for another prompt.
    """
    head, sep, body = prompt.partition(f"\n{SESSION_MARKER}\n")
    try:
        data = json.loads(body) if sep else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        raise ValueError(f"not a distil prompt (needs {SESSION_MARKER!r} and a JSON object)")
    sid, role = data["session_id"], data["target_role"] or "the target role"
    projects = []
    for t in data["turns"]:
        for sentence in t["answer"].replace("! ", ". ").split(". "):
            if any(cue in sentence.lower() for cue in PROJECT_CUES):
                projects.append(f"{sid} turn {t['number']} ({t['topic']}): "
                                f"{' '.join(sentence.split()).rstrip('.')}.")
    averages = _topic_averages(data["turns"])
    fit = []
    for topic, (avg, n) in averages.items():
        verdict = ("strong" if avg >= STRONG_FROM else
                   "gap" if avg < FOLLOW_UP_BELOW else "solid")
        fit.append(f"{sid}: {verdict} for {role} on {topic} "
                   f"(avg {avg:.1f}/{MAX_SCORE}, {n} turn{'s' * (n > 1)})")
    stable = sorted((w for w in data["weaknesses"] if w["stable"]),
                    key=lambda w: (w["last_seen"] != sid, -w["turns"], w["label"]))
    focus = [f"Practise {w['label']}: weak in {w['turns']} turns over {w['sessions']} "
             f"session{'s' * (w['sessions'] > 1)}, last in {w['last_seen']}" for w in stable]
    weakest = min(averages, key=lambda topic: (averages[topic][0], topic)) if averages else None
    if weakest and len(focus) < MAX_ITEMS:
        focus.append(f"Redo a {weakest} question from scratch")
    reply = {"project_signals": projects[:MAX_ITEMS], "role_fit_signals": fit[:MAX_ITEMS],
             "recommended_focus": focus[:MAX_ITEMS]}
    return json.dumps(reply, ensure_ascii=False)


def rule_based_signals(session: InterviewSession, evidence: Profile) -> dict[str, tuple[str, ...]]:
    """The fallback, simpler than a model: no project signals; role fit as "<session>
    <topic>: avg x/10 over n turns"; focus = the labels of the stable weaknesses in
    ``evidence`` (its canonical order), or, if none, the weaknesses (else the topic) of
    the session's lowest-scored turn. At most :data:`MAX_ITEMS` each."""
    averages = _topic_averages([turn_to_dict(t) for t in session.turns])
    fit = tuple(f"{session.session_id} {topic}: avg {avg:.1f}/{MAX_SCORE} over {n} "
                f"turn{'s' * (n > 1)}" for topic, (avg, n) in averages.items())
    focus = evidence.stable_weaknesses
    if not focus:
        lowest = min(session.turns, key=lambda t: t.score)
        focus = lowest.weaknesses or (lowest.topic,)
    return {"project_signals": (), "role_fit_signals": fit[:MAX_ITEMS],
            "recommended_focus": focus[:MAX_ITEMS]}


@dataclass(frozen=True)
class Distillation:
    """What :func:`distil_profile` produced. ``profile``: the previous profile with this
    session merged in (what to store); ``session_profile``: this session alone;
    ``distiller``: "model" or "rules"; ``fallback_reason``: why the rules ran ("" when
    the model did)."""

    profile: Profile
    session_profile: Profile
    distiller: str
    fallback_reason: str = ""


def distil_profile(session: InterviewSession, model: PromptModel | None = None,
                   previous: Profile | None = None, min_support: int = DEFAULT_MIN_SUPPORT,
                   instructions: str = DISTIL_PROMPT) -> Distillation:
    """After ``session``: count its evidence, merge it into ``previous`` and ask for the
    signals with the totals in view.

    ``model``: a prompt model ``str -> str`` answering :data:`DISTIL_PROMPT`, or None
    for the rules; called at most once. ``previous``: the stored profile (None for a
    first session). ``min_support``: int >= 1, turns needed for a label to be stable;
    must equal ``previous.min_support``. A model that raises, returns a non-str or a
    reply :func:`parse_distil_reply` rejects is replaced by :func:`rule_based_signals`.
    Raises TypeError/ValueError only for bad arguments (including a session already in
    ``previous``); ``previous`` is never changed.
    """
    if not isinstance(session, InterviewSession):
        raise TypeError(f"session must be an InterviewSession, got {type(session).__name__}")
    check_int("min_support", min_support, 1)
    if model is not None and not callable(model):
        raise TypeError(f"model must be callable str -> str or None, got {model!r:.60}")
    strengths, weaknesses = count_evidence(session)
    bare = Profile(strengths, weaknesses, sessions=(session.session_id,),
                   min_support=min_support)
    evidence = merge_profiles(previous, bare)        # totals so far; checks the arguments
    if model is None:
        signals = rule_based_signals(session, evidence)
        ran, reason = "rules", "no model given"
    else:
        try:
            reply = model(build_distil_prompt(session, evidence, instructions))
            if not isinstance(reply, str):
                raise TypeError(f"the model returned {type(reply).__name__}, not str")
            signals, ran, reason = parse_distil_reply(reply), "model", ""
        except Exception as exc:       # the retrospective must not fail with the model
            signals, ran = rule_based_signals(session, evidence), "rules"
            reason = f"{type(exc).__name__}: {exc}"
    this = Profile(strengths, weaknesses, signals["project_signals"],
                   signals["role_fit_signals"], signals["recommended_focus"],
                   (session.session_id,), min_support)
    return Distillation(merge_profiles(previous, this), this, ran, reason)
