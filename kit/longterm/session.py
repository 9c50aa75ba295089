"""The record of a mock interview: scored turns grouped into sessions.

Source: the FEMentor write-up (a mock interview keeps each turn's question, answer, score
and weaknesses; long-term memory is distilled from them after the session).

- :class:`InterviewTurn`: one question, the candidate's answer, the interviewer's
  score (an int from 0 to 10) and the weaknesses and strengths it showed.
- :class:`InterviewSession`: an id, an optional target role, and its turns in order.
- :func:`render_turn`: the verbatim text of one turn, as it goes into a context.

Weaknesses and strengths are short *labels* ("cache invalidation"): they are counted
across turns and sessions, so they are normalised on the way in (lower case, single
spaces, duplicates within one turn dropped). The topic is kept as written (single
spaces). Neither can fake the layout of :func:`render_turn`: a topic may not contain
"|" (it separates the fields of a turn's header line), a label may not contain ";" (it
separates the labels of a line); both are refused with an error naming the value.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kit.messages import indent_continuation

__all__ = ["InterviewTurn", "InterviewSession", "MAX_SCORE", "normalise_label", "render_turn", "as_turns",
           "turn_to_dict", "turn_from_dict"]

MAX_SCORE = 10


def _one_line(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}: {value!r:.60}")
    text = " ".join(value.split())
    if not text or len(value.strip().splitlines()) != 1:
        raise ValueError(f"{name} must be one non-empty line, got {value!r:.60}")
    return text


def _text(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}: {value!r:.60}")
    if not value.strip():
        raise ValueError(f"{name} must not be empty, got {value!r}")
    return value.strip()


def normalise_label(label: object, name: str = "label") -> str:
    """A weakness or strength label in its counted form: one line, lower case, single
    spaces, no ";" (the separator of labels in :func:`render_turn`). Raises
    TypeError/ValueError naming ``name`` and the value."""
    text = _one_line(name, label)
    if ";" in text:
        raise ValueError(f"{name} must not contain ';' (it separates labels), got {label!r:.60}")
    return text.lower()


def _topic(value: object) -> str:
    text = _one_line("topic", value)
    if "|" in text:
        raise ValueError(f"topic must not contain '|' (it separates the fields of a turn's "
                         f"header line), got {value!r:.60}")
    return text


def _labels(name: str, labels: object) -> tuple[str, ...]:
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple of str, got "
                        f"{type(labels).__name__}: {labels!r:.60}")
    clean = [normalise_label(label, f"{name}[{i}]") for i, label in enumerate(labels)]
    return tuple(dict.fromkeys(clean))             # drop repeats, keep first-seen order


@dataclass(frozen=True)
class InterviewTurn:
    """One scored question and answer.

    ``question``, ``answer``: non-empty str (stripped); ``score``: int from 0 to
    :data:`MAX_SCORE` (10); ``weaknesses``, ``strengths``: labels (list or tuple of
    one-line str without ";", stored normalised as a tuple); ``topic``: one-line str
    without "|", such as "SQL indexes". Raises TypeError/ValueError naming the field and
    the bad value.
    """

    question: str
    answer: str
    score: int
    weaknesses: tuple[str, ...]
    strengths: tuple[str, ...]
    topic: str

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "question", _text("question", self.question))
        set_(self, "answer", _text("answer", self.answer))
        if isinstance(self.score, bool) or not isinstance(self.score, int):
            raise TypeError(f"score must be an int from 0 to {MAX_SCORE}, got "
                            f"{type(self.score).__name__}: {self.score!r}")
        if not 0 <= self.score <= MAX_SCORE:
            raise ValueError(f"score must be from 0 to {MAX_SCORE}, got {self.score}")
        set_(self, "weaknesses", _labels("weaknesses", self.weaknesses))
        set_(self, "strengths", _labels("strengths", self.strengths))
        set_(self, "topic", _topic(self.topic))


@dataclass(frozen=True)
class InterviewSession:
    """A mock interview: ``session_id`` (one-line str), ``turns`` (a non-empty list or
    tuple of :class:`InterviewTurn`, oldest first, stored as a tuple) and
    ``target_role`` (one-line str such as "full-stack engineer", or "" if none).
    Raises TypeError/ValueError naming the bad value."""

    session_id: str
    turns: tuple[InterviewTurn, ...]
    target_role: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "session_id", _one_line("session_id", self.session_id))
        if isinstance(self.turns, (str, bytes)) or not isinstance(self.turns, (list, tuple)):
            raise TypeError(f"turns must be a list or tuple of InterviewTurn, got "
                            f"{type(self.turns).__name__}: {self.turns!r:.60}")
        if not self.turns:
            raise ValueError(f"session {self.session_id!r} has no turns")
        for i, turn in enumerate(self.turns):
            if not isinstance(turn, InterviewTurn):
                raise TypeError(f"turns[{i}] must be an InterviewTurn, got "
                                f"{type(turn).__name__}: {turn!r:.60}")
        object.__setattr__(self, "turns", tuple(self.turns))
        role = self.target_role
        object.__setattr__(self, "target_role",
                           "" if role == "" else _one_line("target_role", role))


def render_turn(turn: InterviewTurn, number: int) -> str:
    """The verbatim text of turn ``number`` (1-based) as it goes into a context::

        Turn 3 | SQL indexes | score 4/10
        Q: ...
        A: ...
        Weaknesses: composite index column order
        Strengths: knows B-trees

    The weaknesses and strengths lines are left out when empty; further lines of a
    question or answer are indented by two spaces (so they cannot pass for a header).
    """
    lines = [f"Turn {number} | {turn.topic} | score {turn.score}/{MAX_SCORE}",
             f"Q: {indent_continuation(turn.question)}",
             f"A: {indent_continuation(turn.answer)}"]
    if turn.weaknesses:
        lines.append("Weaknesses: " + "; ".join(turn.weaknesses))
    if turn.strengths:
        lines.append("Strengths: " + "; ".join(turn.strengths))
    return "\n".join(lines)


def turn_to_dict(turn: InterviewTurn, number: int | None = None) -> dict:
    """The turn as plain JSON-ready data (with its 1-based ``number`` if given)."""
    data = {"number": number} if number is not None else {}
    data.update(topic=turn.topic, question=turn.question, answer=turn.answer,
                score=turn.score, weaknesses=list(turn.weaknesses),
                strengths=list(turn.strengths))
    return data


def turn_from_dict(data: object) -> InterviewTurn:
    """Read a turn written by :func:`turn_to_dict` (``number`` is ignored). Raises
    TypeError/ValueError naming a missing field or a bad value."""
    if not isinstance(data, dict):
        raise TypeError(f"a turn must be a dict, got {type(data).__name__}: {data!r:.60}")
    fields = ("question", "answer", "score", "weaknesses", "strengths", "topic")
    missing = [f for f in fields if f not in data]
    if missing:
        raise ValueError(f"the turn is missing the field(s) {', '.join(missing)}")
    return InterviewTurn(*(data[f] for f in fields))


def as_turns(turns: InterviewSession | Sequence[InterviewTurn]) -> tuple[InterviewTurn, ...]:
    """The turns of a session, or a sequence of turns checked one by one."""
    if isinstance(turns, InterviewSession):
        return turns.turns
    if isinstance(turns, (str, bytes)) or not isinstance(turns, Sequence):
        raise TypeError(f"turns must be an InterviewSession or a sequence of InterviewTurn, "
                        f"got {type(turns).__name__}: {turns!r:.60}")
    for i, turn in enumerate(turns):
        if not isinstance(turn, InterviewTurn):
            raise TypeError(f"turns[{i}] must be an InterviewTurn, got "
                            f"{type(turn).__name__}: {turn!r:.60}")
    return tuple(turns)
