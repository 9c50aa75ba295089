"""A structured summary: what happened so far, and what is still open.

    {"summary": "Candidate explained cache-aside; scored 7/10 ...",
     "open_points": ["Has not said how the cache is invalidated"]}

A plain running summary records what was said and tends to forget what is still
unresolved. Asking the model for two fields, ``summary`` and ``open_points``, keeps the
open questions visible; parsing and validating the reply turns a malformed answer into
a clear ``ValueError`` that a caller can catch and answer with a rule-based fallback.

Source: the FEMentor write-up (mock-interview context: older turns folded into
``{summary, open_points}``, capped at about 900 characters).

- :class:`StructuredSummary`: the frozen value, with :meth:`~StructuredSummary.render`
  (the text placed in a context) and :meth:`~StructuredSummary.to_json`.
- :func:`parse_structured_summary`: the model's reply -> a validated value;
  :func:`load_json_reply` and :func:`decode_json` decode JSON strictly (a key given
  twice in one object is an error, not "the last one wins").
- :data:`STRUCTURED_SUMMARY_PROMPT`: instructions asking for exactly that JSON.
- :func:`structured_stub`: a deterministic offline prompt model that answers it.
- :func:`cap_structured`: enforce a character cap, deterministically, shortening the
  summary before it drops an open point.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from kit.prompts import parse_summary_prompt

__all__ = ["StructuredSummary", "parse_structured_summary", "load_json_reply", "decode_json",
           "STRUCTURED_SUMMARY_PROMPT",
           "OPEN_POINTS_TITLE", "structured_stub", "cap_structured", "ELLIPSIS",
           "MIN_CAP_CHARS", "MIN_SUMMARY_SHARE"]

OPEN_POINTS_TITLE = "Open points:"
ELLIPSIS = "…"
MIN_CAP_CHARS = 10
MIN_SUMMARY_SHARE = 0.5    # of the cap, kept for the summary before open points are dropped

STRUCTURED_SUMMARY_PROMPT = (
    "You maintain the summary of the earlier part of a conversation. Rewrite the current "
    "summary so that it also covers the new turns, and reply with exactly one JSON object "
    "and nothing else:\n"
    '{"summary": "<non-empty string>", "open_points": ["<string>", ...]}\n'
    "In summary keep every fact, exactly as written: names, numbers, ids, scores, "
    "decisions, stated constraints, strengths and weaknesses. Drop greetings and small "
    "talk. In open_points list every question that is still unanswered and every item "
    "left to follow up, oldest first; remove a point once it has been answered. Use an "
    "empty list when nothing is open."
)

_FENCE = re.compile(r"\A```(?:json)?[ \t]*\n(.*)\n[ \t]*```\Z", re.DOTALL | re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


@dataclass(frozen=True)
class StructuredSummary:
    """A summary of earlier turns plus the points still open.

    ``summary``: non-empty str, stored as one line (runs of whitespace, line breaks
    included, become one space), so that no text in it can pass for the
    ``Open points:`` title or a section title of the context it is placed in;
    ``open_points``: tuple of non-empty one-line strs, oldest first (a list is accepted
    and stored as a tuple). Raises TypeError/ValueError naming the bad field.
    """

    summary: str
    open_points: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.summary, str):
            raise TypeError(f"summary must be a str, got {type(self.summary).__name__}: "
                            f"{self.summary!r:.60}")
        if not self.summary.strip():
            raise ValueError(f"summary must not be empty, got {self.summary!r}")
        object.__setattr__(self, "summary", " ".join(self.summary.split()))
        if isinstance(self.open_points, (str, bytes)) or not isinstance(self.open_points,
                                                                         (list, tuple)):
            raise TypeError(f"open_points must be a list or tuple of str, got "
                            f"{type(self.open_points).__name__}: {self.open_points!r:.60}")
        for i, point in enumerate(self.open_points):
            if not isinstance(point, str):
                raise TypeError(f"open_points[{i}] must be a str, got "
                                f"{type(point).__name__}: {point!r:.60}")
            if not point.strip() or len(point.splitlines()) != 1:
                raise ValueError(f"open_points[{i}] must be one non-empty line, got {point!r:.60}")
        object.__setattr__(self, "open_points", tuple(self.open_points))

    def render(self) -> str:
        """The text placed in a context: the summary (one line), then one ``- point``
        line per open point under ``Open points:`` (that part is left out when nothing
        is open)."""
        if not self.open_points:
            return self.summary
        points = "\n".join(f"- {p}" for p in self.open_points)
        return f"{self.summary}\n{OPEN_POINTS_TITLE}\n{points}"

    @property
    def chars(self) -> int:
        """Length of :meth:`render`, in characters (what :func:`cap_structured` caps)."""
        return len(self.render())

    def to_json(self) -> str:
        """``{"summary": ..., "open_points": [...]}`` as one JSON line (non-ASCII kept);
        :func:`parse_structured_summary` reads it back to an equal value."""
        return json.dumps({"summary": self.summary, "open_points": list(self.open_points)},
                          ensure_ascii=False)


class _KeyTwice(ValueError):
    """A JSON object gave the same key twice (raised by :func:`_unique_keys`)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise _KeyTwice(key)
        seen.add(key)
    return dict(pairs)


def decode_json(text: str, what: str = "the text") -> object:
    """``json.loads(text)``, strictly: a key given twice in one object (at any depth) is
    an error, where ``json.loads`` would silently keep the last value (the same rule as
    :func:`kit.rag.judge.parse_verdict`).

    ``what`` names the text in the errors ("the reply", "the profile"). Raises
    ValueError "<what> is not valid JSON (<reason> at character <n>)", "<what> gives the
    key 'k' twice", "<what> holds a number too long to read" (an integer of more than
    ``sys.get_int_max_str_digits()`` digits, 4300 by default) or "<what> is JSON nested
    too deep to read".
    """
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} is not valid JSON ({exc.msg} at character {exc.pos})") from None
    except _KeyTwice as exc:
        raise ValueError(f"{what} gives the key {exc.args[0]!r} twice") from None
    except ValueError:          # int(): more digits than sys.get_int_max_str_digits()
        raise ValueError(f"{what} holds a number too long to read") from None
    except RecursionError:
        raise ValueError(f"{what} is JSON nested too deep to read") from None


def load_json_reply(text: str) -> object:
    """Decode a model's JSON reply: the JSON alone or inside a Markdown fence (three
    backticks, optionally ``json``), with whitespace around; nothing else may surround it.

    Raises TypeError for a non-str ``text``, ValueError (saying what is wrong and how the
    reply began) for text that is not valid JSON, gives a key twice in one object, or is
    nested too deep to read (see :func:`decode_json`).
    """
    if not isinstance(text, str):
        raise TypeError(f"the reply must be a str, got {type(text).__name__}: {text!r:.60}")
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        return decode_json(body, "the reply")
    except ValueError as exc:
        raise ValueError(f"{exc}; it began {text.strip()[:60]!r}") from None


def parse_structured_summary(text: str) -> StructuredSummary:
    """Parse and validate a model's reply into a :class:`StructuredSummary`.

    Accepts the JSON object alone or inside a Markdown fence (three backticks, optionally
    ``json``), with whitespace around. Whitespace inside the summary and inside each open
    point is collapsed to single spaces (each is one line), so the value's
    :meth:`~StructuredSummary.to_json` parses back to an equal value and its
    :meth:`~StructuredSummary.render` text reads back (as :func:`structured_stub` does)
    to the same summary and points. Raises TypeError for a non-str ``text`` and
    ValueError naming the problem for: text that is not one JSON object, a key given
    twice, a missing or unknown field, a summary that is not a str or is empty,
    ``open_points`` that is not a list, or an open point that is not a non-empty str.
    """
    data = load_json_reply(text)
    if not isinstance(data, dict):
        raise ValueError(f"the reply must be a JSON object with summary and open_points, "
                         f"got a JSON {type(data).__name__}: {text.strip()[:60]!r}")
    missing = [k for k in ("summary", "open_points") if k not in data]
    if missing:
        raise ValueError(f"the reply is missing the field(s) {', '.join(missing)}; "
                         f"it has {sorted(data)}")
    unknown = sorted(set(data) - {"summary", "open_points"})
    if unknown:
        raise ValueError(f"the reply has unknown field(s) {unknown}; expected only "
                         f"summary and open_points")
    summary, points = data["summary"], data["open_points"]
    if not isinstance(summary, str):
        raise ValueError(f"summary must be a string, got {type(summary).__name__}: {summary!r:.60}")
    if not summary.strip():
        raise ValueError(f"summary must not be empty, got {summary!r}")
    if not isinstance(points, list):
        raise ValueError(f"open_points must be a list of strings, got "
                         f"{type(points).__name__}: {points!r:.60}")
    clean = []
    for i, point in enumerate(points):
        if not isinstance(point, str):
            raise ValueError(f"open_points[{i}] must be a string, got "
                             f"{type(point).__name__}: {point!r:.60}")
        if not point.strip():
            raise ValueError(f"open_points[{i}] must not be empty, got {point!r}")
        clean.append(" ".join(point.split()))
    return StructuredSummary(summary.strip(), tuple(clean))


# -- a deterministic stub model ------------------------------------------------------

_UNRESOLVED = ("open question", "unanswered", "not sure", "still need", "follow up",
               "follow-up", "todo", "to be decided", "tbd", "not yet")
_SMALL_TALK = {"hi", "hello", "hey", "thanks", "thank", "you", "ok", "okay", "great",
               "sounds", "good", "sure", "bye", "there", "cheers", "perfect", "nice",
               "cool", "got", "it", "that", "helps", "welcome", "you're", "so", "much"}


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def _is_small_talk(sentence: str) -> bool:
    words = [w.strip(".,!?;:'\"").lower() for w in sentence.split()]
    return all(w in _SMALL_TALK for w in words if w)


def _previous(summary_text: str) -> tuple[str, list[str]]:
    """Read back a previous summary given as JSON, as :meth:`render` text, or plain."""
    if not summary_text:
        return "", []
    try:
        prev = parse_structured_summary(summary_text)
        return prev.summary, list(prev.open_points)
    except ValueError:
        pass
    head, sep, tail = summary_text.partition(f"\n{OPEN_POINTS_TITLE}\n")
    if sep:
        points = [line[2:].strip() for line in tail.splitlines() if line.startswith("- ")]
        return head.strip(), [p for p in points if p]
    return summary_text.strip(), []


def structured_stub(prompt: str) -> str:
    """A deterministic prompt model that answers :data:`STRUCTURED_SUMMARY_PROMPT`.

    Reads the layout of :func:`kit.memory.summary.build_summary_prompt` (via
    :func:`kit.llm.parse_summary_prompt`); the current summary may be JSON, the
    :meth:`StructuredSummary.render` text, or plain text. Rules, per sentence of the
    new turns, oldest first:

    - a question in the *last* turn (nobody has replied yet), or a sentence with an
      unresolved marker ("not sure", "still need", "follow up", "TODO", ...) becomes an
      open point (duplicates skipped);
    - small talk ("Thanks!", "Sounds good.") is dropped;
    - every other sentence is kept verbatim in the summary, after the previous one.

    Previous open points are carried over; the stub never closes one (a real model
    would). Returns valid JSON (:meth:`StructuredSummary.to_json`); "(no facts yet)" is
    the summary when nothing is kept. Raises ValueError for a prompt without the
    "Current summary:" / "New turns:" layout. Keeps every fact, so it does not cap:
    apply :func:`cap_structured` to its result.
    """
    summary_text, contents = parse_summary_prompt(prompt)
    summary, points = _previous(summary_text)
    listed = set(points)
    kept: list[str] = []
    for index, content in enumerate(contents):
        last = index == len(contents) - 1
        for sentence in _sentences(content):
            lowered = sentence.lower()
            if (last and sentence.endswith("?")) or any(m in lowered for m in _UNRESOLVED):
                if sentence not in listed:
                    points.append(sentence)
                    listed.add(sentence)
            elif not _is_small_talk(sentence):
                kept.append(sentence)
    text = " ".join(([summary] if summary else []) + kept) or "(no facts yet)"
    return StructuredSummary(text, tuple(points)).to_json()


# -- the character cap ---------------------------------------------------------------

def _shorten(summary: str, limit: int) -> str:
    """The longest run of whole leading sentences of ``summary`` within ``limit``
    characters; if not even the first sentence fits, its leading words (or, if no word
    fits, characters) plus an ellipsis."""
    ends = [m.start() for m in _SENTENCE_END.finditer(summary)] + [len(summary)]
    fitting = [end for end in ends if end <= limit]
    if fitting:
        return summary[:fitting[-1]]
    room = limit - len(ELLIPSIS)
    words, length = [], -1                    # length of " ".join(words)
    for word in summary.split():
        if length + 1 + len(word) > room:
            break
        words.append(word)
        length += 1 + len(word)
    return (" ".join(words) or summary.strip()[:room]) + ELLIPSIS


def _points_chars(points: tuple[str, ...]) -> int:
    """Characters the open points add to :meth:`StructuredSummary.render` (0 if none):
    the title line, then one ``- point`` line each."""
    return len(OPEN_POINTS_TITLE) + 1 + sum(len(p) + 3 for p in points) if points else 0


def cap_structured(s: StructuredSummary, cap_chars: int,
                   min_summary_share: float = MIN_SUMMARY_SHARE) -> StructuredSummary:
    """Return ``s`` with ``s.render()`` at most ``cap_chars`` characters.

    Open points are protected: they are what the summary must not forget. The rule,
    deterministic:

    1. the summary is guaranteed ``ceil(min_summary_share * cap_chars)`` characters (or
       its whole length, if shorter): its *minimum share*;
    2. open points are kept unless they alone do not fit in the rest of the cap; only
       then are they dropped, oldest first, until they fit (the newest unresolved
       points are kept longest);
    3. the summary is shortened to the room the kept points leave: to its longest run
       of whole *leading* sentences that fits (sentences end at ``.``, ``!``, ``?`` or
       ``…`` followed by whitespace), so the earliest established facts survive; if
       not even the first sentence fits, it is cut at a word boundary (characters if
       no word fits) and ends with "…".

    With the default share of 0.5, the open points may use up to half of the cap.
    Returns ``s`` itself when it already fits; never changes ``s``. Raises TypeError for
    a non-:class:`StructuredSummary`, TypeError/ValueError unless ``cap_chars`` is an
    int >= :data:`MIN_CAP_CHARS` (10) and unless ``min_summary_share`` is a number with
    ``0 < min_summary_share <= 1``.
    """
    if not isinstance(s, StructuredSummary):
        raise TypeError(f"s must be a StructuredSummary, got {type(s).__name__}: {s!r:.60}")
    if isinstance(cap_chars, bool) or not isinstance(cap_chars, int):
        raise TypeError(f"cap_chars must be an int, got {type(cap_chars).__name__}: {cap_chars!r}")
    if cap_chars < MIN_CAP_CHARS:
        raise ValueError(f"cap_chars must be >= {MIN_CAP_CHARS}, got {cap_chars}")
    if isinstance(min_summary_share, bool) or not isinstance(min_summary_share, (int, float)):
        raise TypeError(f"min_summary_share must be a number, got "
                        f"{type(min_summary_share).__name__}: {min_summary_share!r}")
    if not 0 < min_summary_share <= 1:
        raise ValueError(f"min_summary_share must be > 0 and <= 1, got {min_summary_share}")
    if s.chars <= cap_chars:
        return s
    reserved = min(len(s.summary), math.ceil(min_summary_share * cap_chars))
    points, drop, used = s.open_points, 0, _points_chars(s.open_points)
    while drop < len(points) and used > cap_chars - reserved:
        used -= len(points[drop]) + 3                         # drop the oldest
        drop += 1
    points = points[drop:]
    room = cap_chars - _points_chars(points)
    summary = s.summary if len(s.summary) <= room else _shorten(s.summary, room)
    return StructuredSummary(summary, points)
