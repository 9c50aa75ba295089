"""Long conversations with annotated questions, and a loader for LoCoMo files.

A :class:`LongConversation` is two named speakers talking over many dated sessions
(:class:`LongTurn`), plus questions (:class:`Question`) that each name the turns
holding their answer (``evidence``). It is the input of the memory-policy evaluator
(:mod:`kit.memory_eval`); :mod:`kit.synthetic` generates one, :func:`load_locomo`
reads one released by LoCoMo (Maharana et al., "Evaluating Very Long-Term
Conversational Memory of LLM Agents", ACL 2024; ``snap-research/locomo``).

The LoCoMo format, as read here (one conversation per file):

- ``speaker_a``, ``speaker_b``: the two names. speaker_a plays the "user" role,
  speaker_b the "assistant" (:meth:`LongConversation.role_of`).
- ``session_N`` (N from 1): a list of turns ``{"speaker", "dia_id", "text"}``;
  ``session_N_date_time``: when session N took place (``"1:56 pm on 8 May, 2023"``).
  A date may exist without its session (kept in ``session_dates``); a session
  without a date is an error.
- A turn that shares a photo carries ``blip_caption`` (and ``img_url``). The caption
  is appended to the text as ``" [shares a photo: <caption>]"``: some questions are
  about what a photo showed, and LoCoMo's own baselines give the model the caption
  too. Pass ``captions=False`` to read the bare text.
- ``qa``: ``{"question", "answer", "evidence": ["D1:3", ...], "category"}``;
  categories 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial
  (no answer in the conversation; ``adversarial_answer`` is the tempting wrong one).
  Numeric answers (``2022``) become strings; surrounding spaces are stripped.
- The released ``locomo10.json`` nests the speakers and sessions under
  ``conversation`` next to ``qa`` and ``sample_id``; that layout is read too.

Annotation slips are repaired, not fatal, so every file of the public release loads.
Those of the release, all in ``evidence`` lists (:data:`REPAIR_KINDS` names them): an
item holding several ids (``"D8:6; D9:17"``, ``"D9:1 D4:4 D4:6"``) is split, an extra
colon (``"D:11:26"``) and leading zeros (``"D30:05"``, also in a turn's ``dia_id``) are
read as ``"D11:26"`` and ``"D30:5"``, a bare ``"D"`` is dropped, an id given twice is
kept once, and an id that names no turn (``"D10:19"`` where session 10 is shorter)
moves to the question's ``missing_evidence``. Each repair is counted by kind in
``LongConversation.repairs`` and described in ``LongConversation.notes``.

Anything else that does not fit raises :class:`LocomoFormatError` naming the file and
the field, including what a memory would refuse later (:mod:`kit.messages`): a speaker
name or a date that is not one line (or a name with a colon), text (a caption and an
answer too) that is not valid Unicode, a ``sample_id`` that is not a str; and what
JSON readers disagree on: a key given twice in one object, a number
longer than 100 characters (LoCoMo's are years and counts; Python refuses to convert
ints past 4,300 digits), a float that overflows, ``NaN`` and ``Infinity``. A UTF-8 byte
order mark is skipped. Nothing is ever downloaded.

Where the files are: LoCoMo is not part of this repository. :func:`data_dir` names the
folder the kit reads (``$LOCOMO_DIR`` if set, else ``data/locomo/`` at the repository
root, which git ignores), :func:`conversation_files` lists the ``.json`` files there (the
release's ``locomo10.json``, or one file per conversation such as ``26.json``), and
:func:`how_to_get` says in one line where the data comes from and how to get it.
"""
from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from kit.messages import check_label, check_text

__all__ = ["LongTurn", "Question", "LongConversation", "LocomoFormatError", "CATEGORIES",
           "REPAIR_KINDS",
           "LOCOMO_ENV", "LOCOMO_URL", "data_dir", "how_to_get", "conversation_files",
           "same_conversation", "load_locomo", "load_locomo_all", "load_locomo_dir"]

LOCOMO_ENV = "LOCOMO_DIR"                 # environment variable naming the data folder
LOCOMO_URL = "https://github.com/snap-research/locomo"   # the public release
_ROOT = Path(__file__).resolve().parents[1]              # the folder that holds kit/

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
REPAIR_KINDS = {                          # kind -> the slip it repairs (LongConversation.repairs)
    "several_ids": "an evidence item holding several ids ('D8:6; D9:17', 'D9:1 D4:4'): split",
    "extra_colon": "an extra colon ('D:11:26'): read as D11:26",
    "leading_zero": "leading zeros ('D30:05'; in evidence, a dia_id or a session key): "
                    "read as D30:5",
    "stray_separator": "one id with spaces or a separator around it (' D1:3;'): stripped",
    "bare_d": "a bare 'D' in evidence: dropped",
    "repeated": "an id given twice in one question's evidence: kept once",
    "no_turn": "an evidence id that names no turn: dropped, kept in missing_evidence",
}
_MAX_DIGITS = 9                           # of a session or turn number
_MAX_NUMBER = 100                         # characters of a JSON number
_NUMBER = rf"(\d{{1,{_MAX_DIGITS}}})"
_DIA_ID = re.compile(f"D{_NUMBER}:{_NUMBER}")
_EVIDENCE = re.compile(f"D(:?){_NUMBER}:{_NUMBER}")     # "D:11:26": an extra colon
_SEPARATORS = re.compile(r"[;,\s]+")
_SESSION = re.compile(r"session_(\d+)")
_SESSION_DATE = re.compile(r"session_(\d+)_date_time")


@dataclass(frozen=True)
class LongTurn:
    """One turn: ``dia_id`` ("D<session>:<n>"), who said it, the text, its session
    number (from 1) and that session's date (as written, e.g. "1:56 pm on 8 May, 2023")."""

    dia_id: str
    speaker: str
    text: str
    session: int
    date: str


@dataclass(frozen=True)
class Question:
    """A question about the conversation.

    ``answer``: the expected answer (None for most adversarial questions);
    ``evidence``: dia ids of the turns that hold the answer, each naming a turn of the
    conversation (may be empty: some open-domain questions have none); ``category``:
    1-5, see :data:`CATEGORIES`; ``adversarial_answer``: for category 5, the wrong
    answer the question tempts; ``missing_evidence``: annotated ids that name no turn.
    """

    question: str
    answer: str | None
    evidence: tuple[str, ...]
    category: int
    adversarial_answer: str | None = None
    missing_evidence: tuple[str, ...] = ()

    @property
    def adversarial(self) -> bool:
        return self.category == 5


@dataclass(frozen=True)
class LongConversation:
    """Two speakers, their turns in order, the questions and the session dates.

    ``speakers``: (speaker_a, speaker_b); ``session_dates``: session number -> date,
    possibly for sessions without turns; ``notes``: annotation slips the loader
    repaired or recorded, one line each; ``repairs``: kind (see :data:`REPAIR_KINDS`) ->
    how many slips of that kind the loader repaired, only kinds that occurred
    (``{}`` for a clean file or a conversation built by hand).

    Raises ValueError if a turn's speaker is not one of the two, a speaker name or a
    date is not one line (or a name holds a colon), a text is not valid Unicode, a dia
    id repeats, or a question's evidence names no turn.
    """

    name: str
    speakers: tuple[str, str]
    turns: tuple[LongTurn, ...]
    questions: tuple[Question, ...]
    session_dates: dict[int, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    repairs: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.speakers) != 2 or self.speakers[0] == self.speakers[1]:
            raise ValueError(f"speakers must be two different names, got {self.speakers!r}")
        for speaker in self.speakers:
            check_label("speaker", speaker)
        for turn in self.turns:
            if turn.speaker not in self.speakers:
                raise ValueError(f"turn {turn.dia_id}: speaker {turn.speaker!r} is not one of "
                                 f"{self.speakers}")
            if not isinstance(turn.text, str):
                raise TypeError(f"turn {turn.dia_id}: text must be a str, got {turn.text!r:.60}")
            try:                          # what a memory's add() would refuse mid-run
                check_label("when", turn.date)
                check_text("text", turn.text)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"turn {turn.dia_id}: {exc}") from None
        if len(self._index) != len(self.turns):
            ids = [t.dia_id for t in self.turns]
            twice = next(i for i in ids if ids.count(i) > 1)
            raise ValueError(f"dia id {twice!r} names more than one turn")
        for i, q in enumerate(self.questions):
            unknown = [e for e in q.evidence if e not in self._index]
            if unknown:
                raise ValueError(f"question {i} ({q.question!r:.50}): evidence {unknown} names "
                                 f"no turn; list such ids in missing_evidence")

    @cached_property
    def _index(self) -> dict[str, int]:
        return {turn.dia_id: i for i, turn in enumerate(self.turns)}

    def turn(self, dia_id: str) -> LongTurn:
        """The turn with this dia id. Raises KeyError naming it."""
        if dia_id not in self._index:
            raise KeyError(f"no turn {dia_id!r} in conversation {self.name!r}")
        return self.turns[self._index[dia_id]]

    def position(self, dia_id: str) -> int:
        """The turn's 1-based position in the conversation: its message number when
        the turns are added to a fresh memory in order. Raises KeyError."""
        self.turn(dia_id)
        return self._index[dia_id] + 1

    def role_of(self, speaker: str) -> str:
        """"user" for speaker_a, "assistant" for speaker_b. Raises ValueError otherwise."""
        if speaker not in self.speakers:
            raise ValueError(f"{speaker!r} is not a speaker of {self.name!r} {self.speakers}")
        return "user" if speaker == self.speakers[0] else "assistant"

    @property
    def sessions(self) -> tuple[int, ...]:
        """Numbers of the sessions that have turns, in order."""
        return tuple(sorted({t.session for t in self.turns}))

    @property
    def missing_evidence(self) -> dict[int, tuple[str, ...]]:
        """Question index -> annotated evidence ids that name no turn."""
        return {i: q.missing_evidence for i, q in enumerate(self.questions) if q.missing_evidence}

    def __repr__(self) -> str:
        return (f"LongConversation({self.name!r}, speakers={self.speakers}, turns={len(self.turns)}, "
                f"sessions={len(self.sessions)}, questions={len(self.questions)})")


class LocomoFormatError(ValueError):
    """A LoCoMo file does not fit the format; the message names the file and the field."""


# -- reading ------------------------------------------------------------------------
class _Reader:
    """Reads one conversation object; every error names ``where`` (file and prefix)."""

    def __init__(self, where: str, captions: bool) -> None:
        self.where, self.captions = where, captions
        self.notes: list[str] = []
        self.repairs: Counter[str] = Counter()

    def fail(self, fld: str, problem: str) -> LocomoFormatError:
        return LocomoFormatError(f"{self.where}: {fld}: {problem}")

    def text(self, obj: dict, key: str, fld: str) -> str:
        if key not in obj:
            raise self.fail(fld, "missing")
        if not isinstance(obj[key], str):
            raise self.fail(fld, f"expected a string, got {obj[key]!r:.60}")
        return self.checked(check_text, fld, obj[key])

    def checked(self, check, fld: str, value: str) -> str:
        """``value`` if ``check`` (from :mod:`kit.messages`) accepts it, else the
        format error naming the field: what a memory would refuse is refused here."""
        try:
            return check(fld, value)
        except ValueError as exc:
            raise self.fail(fld, str(exc)) from None

    def conversation(self, data: object, name: str) -> LongConversation:
        if not isinstance(data, dict):
            raise self.fail("top level", f"expected a JSON object, got {type(data).__name__}")
        body, prefix = data, ""
        if isinstance(data.get("conversation"), dict):       # the locomo10.json layout
            body, prefix = data["conversation"], "conversation."
            if "sample_id" in data:
                name = self.text(data, "sample_id", "sample_id")
        speakers = (self.text(body, "speaker_a", prefix + "speaker_a"),
                    self.text(body, "speaker_b", prefix + "speaker_b"))
        if speakers[0] == speakers[1] or not all(s.strip() for s in speakers):
            raise self.fail(prefix + "speaker_a/speaker_b",
                            f"expected two different non-empty names, got {speakers!r}")
        for key, speaker in zip(("speaker_a", "speaker_b"), speakers):
            self.checked(lambda fld, v: check_label("speaker", v), prefix + key, speaker)
        dates = {n: self.checked(lambda fld, v: check_label("when", v), prefix + k,
                                 self.text(body, k, prefix + k))
                 for n, k in self.numbered(body, _SESSION_DATE, prefix).items()}
        turns: list[LongTurn] = []
        for n, key in sorted(self.numbered(body, _SESSION, prefix).items()):
            turns += self.session(body[key], n, dates, speakers, prefix)
        seen: dict[str, str] = {}
        for t in turns:
            if t.dia_id in seen:
                raise self.fail(f"{prefix}session_{t.session}",
                                f"dia_id {t.dia_id!r} already used in {seen[t.dia_id]}")
            seen[t.dia_id] = f"session_{t.session}"
        if "qa" not in data:
            raise self.fail("qa", "missing")
        if not isinstance(data["qa"], list):
            raise self.fail("qa", f"expected a list of questions, got {type(data['qa']).__name__}")
        questions = tuple(self.question(q, i, seen) for i, q in enumerate(data["qa"]))
        repairs = {kind: self.repairs[kind] for kind in REPAIR_KINDS if self.repairs[kind]}
        return LongConversation(name, speakers, tuple(turns), questions, dates, tuple(self.notes),
                                repairs)

    def numbered(self, body: dict, pattern: re.Pattern, prefix: str) -> dict[int, str]:
        """Session number -> key, for the keys of ``body`` that ``pattern`` matches."""
        keys: dict[int, str] = {}
        for key in body:
            if not (m := pattern.fullmatch(key)):
                continue
            fld = prefix + (key if len(key) <= 40 else key[:40] + "...")
            if len(m.group(1)) > _MAX_DIGITS:
                raise self.fail(fld, f"a session number of {len(m.group(1))} digits (at most "
                                f"{_MAX_DIGITS})")
            n = int(m.group(1))
            if n in keys:
                raise self.fail(fld, f"names session {n} again, after {keys[n]}")
            if str(n) != m.group(1):
                self.notes.append(f"{fld}: read as session {n}")
                self.repairs["leading_zero"] += 1
            keys[n] = key
        return keys

    def session(self, items: object, n: int, dates: dict[int, str], speakers: tuple[str, str],
                prefix: str) -> list[LongTurn]:
        fld = f"{prefix}session_{n}"
        if not isinstance(items, list):
            raise self.fail(fld, f"expected a list of turns, got {type(items).__name__}")
        if items and n not in dates:
            raise self.fail(f"{fld}_date_time", f"missing (session_{n} has {len(items)} turns)")
        turns = []
        for j, item in enumerate(items):
            where = f"{fld}[{j}]"
            if not isinstance(item, dict):
                raise self.fail(where, f"expected a turn object, got {item!r:.60}")
            speaker = self.text(item, "speaker", f"{where}.speaker")
            if speaker not in speakers:
                raise self.fail(f"{where}.speaker", f"{speaker!r} is neither speaker_a nor "
                                f"speaker_b {speakers}")
            dia_id = self.text(item, "dia_id", f"{where}.dia_id")
            if not (m := _DIA_ID.fullmatch(dia_id)):
                raise self.fail(f"{where}.dia_id", f"expected an id like 'D{n}:{j + 1}', "
                                f"got {dia_id!r:.60}")
            if (plain := f"D{int(m.group(1))}:{int(m.group(2))}") != dia_id:
                self.notes.append(f"{where}.dia_id: {dia_id!r} read as {plain}")
                self.repairs["leading_zero"] += 1
                dia_id = plain
            text = self.text(item, "text", f"{where}.text")
            caption = item.get("blip_caption")
            if isinstance(caption, str):
                self.checked(check_text, f"{where}.blip_caption", caption)
            if self.captions and isinstance(caption, str) and caption.strip():
                text = f"{text} [shares a photo: {caption.strip()}]"
            turns.append(LongTurn(dia_id, speaker, text, n, dates[n]))
        return turns

    def question(self, item: object, i: int, turns: dict[str, str]) -> Question:
        where = f"qa[{i}]"
        if not isinstance(item, dict):
            raise self.fail(where, f"expected a question object, got {item!r:.60}")
        question = self.text(item, "question", f"{where}.question")
        category = item.get("category")
        if isinstance(category, bool) or not isinstance(category, int) or category not in CATEGORIES:
            raise self.fail(f"{where}.category", f"expected an int 1-5, got {category!r}")
        answer = self.answer(item, "answer", f"{where}.answer")
        if answer is None and category != 5:
            raise self.fail(f"{where}.answer", f"missing (category {category} needs an answer)")
        adversarial = self.answer(item, "adversarial_answer", f"{where}.adversarial_answer")
        evidence = item.get("evidence")
        if not isinstance(evidence, list):
            raise self.fail(f"{where}.evidence", f"expected a list of dia ids like 'D1:3', "
                            f"got {evidence!r:.60}")
        ids: list[str] = []
        for k, raw in enumerate(evidence):
            ids += self.evidence_item(raw, f"{where}.evidence[{k}]")
        if repeated := [e for e, times in Counter(ids).items() if times > 1]:
            self.notes.append(f"{where}.evidence: {', '.join(repeated)} repeated (kept once)")
            self.repairs["repeated"] += len(ids) - len(set(ids))
            ids = list(dict.fromkeys(ids))                  # drop repeats, keep order
        missing = tuple(e for e in ids if e not in turns)
        if missing:
            self.notes.append(f"{where}.evidence: {', '.join(missing)} names no turn "
                              f"(kept in missing_evidence)")
            self.repairs["no_turn"] += len(missing)
        return Question(question, answer, tuple(e for e in ids if e in turns), category,
                        adversarial, missing)

    def answer(self, item: dict, key: str, fld: str) -> str | None:
        value = item.get(key)
        if isinstance(value, str):
            value = self.checked(check_text, fld, value)
        if value is None or isinstance(value, str):
            return value.strip() if value else value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        raise self.fail(fld, f"expected a string or a number, got {value!r:.60}")

    def evidence_item(self, raw: object, fld: str) -> list[str]:
        """The dia ids one evidence string names, its slips repaired and counted."""
        if not isinstance(raw, str):
            raise self.fail(fld, f"expected a dia id like 'D1:3', got {raw!r:.60}")
        parts = [p for p in _SEPARATORS.split(raw) if p]
        if not parts:
            raise self.fail(fld, f"expected a dia id like 'D1:3', got {raw!r:.60}")
        ids = [i for p in parts if (i := self.evidence_id(p, raw, fld))]
        if len(parts) > 1:
            self.repairs["several_ids"] += 1
        elif parts != [raw]:
            self.repairs["stray_separator"] += 1
        if not ids:
            self.notes.append(f"{fld}: {raw!r} dropped (a bare D names no turn)")
        elif ids != [raw]:
            self.notes.append(f"{fld}: {raw!r} read as {', '.join(ids)}")
        return ids

    def evidence_id(self, part: str, raw: str, fld: str) -> str | None:
        """``part`` of the evidence string ``raw`` as a plain dia id; None for a bare D."""
        if part == "D":
            self.repairs["bare_d"] += 1
            return None
        if not (m := _EVIDENCE.fullmatch(part)):
            raise self.fail(fld, f"expected a dia id like 'D1:3', got {raw!r:.60}")
        plain = f"D{int(m.group(2))}:{int(m.group(3))}"
        if m.group(1):
            self.repairs["extra_colon"] += 1
        if f"D{m.group(2)}:{m.group(3)}" != plain:
            self.repairs["leading_zero"] += 1
        return plain


class _Refused:
    """Stands in for a JSON value the loader refuses; found after parsing, by its path."""

    __slots__ = ("problem",)

    def __init__(self, problem: str) -> None:
        self.problem = problem


def _parse(f) -> tuple[object, bool]:
    """The JSON in ``f``, and whether it holds a value the loader refuses (a key given
    twice, a number past :data:`_MAX_NUMBER` characters or a float's range, NaN or
    Infinity), each replaced by a :class:`_Refused`, since json's hooks do not know
    where they are."""
    refused: list[_Refused] = []

    def refuse(problem: str) -> _Refused:
        refused.append(_Refused(problem))
        return refused[-1]

    def number(kind):
        def parse(literal: str):
            if len(literal) > _MAX_NUMBER:      # int() is quadratic; it refuses 4,301 digits
                return refuse(f"a number of {len(literal)} characters (at most {_MAX_NUMBER})")
            value = kind(literal)
            return refuse(f"{literal} does not fit a float") if math.isinf(value) else value
        return parse

    def pairs(items: list[tuple[str, object]]) -> dict:
        obj = dict(items)
        if len(obj) < len(items):
            seen: set[str] = set()
            twice = next(k for k, _ in items if k in seen or seen.add(k))
            obj[twice] = refuse("given twice in one object (JSON keys must be unique)")
        return obj

    data = json.load(f, parse_int=number(int), parse_float=number(float),
                     parse_constant=lambda name: refuse(f"{name} is not standard JSON"),
                     object_pairs_hook=pairs)
    return data, bool(refused)


def _first_refused(data: object) -> tuple[tuple[str | int, ...], str]:
    """The path (keys and indices) of the first :class:`_Refused` in document order, and
    its problem. Memory: one iterator and one path entry per level of nesting."""
    if isinstance(data, _Refused):
        return (), data.problem
    path: list[str | int] = []              # the keys down to the object stack[-1] walks
    stack = [_children(data)]               # no recursion: JSON nests deep
    while stack:
        for key, value in stack[-1]:
            if isinstance(value, _Refused):
                return (*path, key), value.problem
            if isinstance(value, (dict, list)):
                path.append(key)
                stack.append(_children(value))
                break
        else:                               # this object is done: back to its parent
            stack.pop()
            if path:
                path.pop()
    raise AssertionError("no refused value")


def _children(value: dict | list):
    """(key, value) pairs of a JSON object, (index, value) of an array, one at a time."""
    return iter(value.items()) if isinstance(value, dict) else enumerate(value)


def _field(path: tuple[str | int, ...]) -> str:
    """``("qa", 3, "answer")`` -> ``"qa[3].answer"``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            key = part if part.isprintable() and len(part) <= 40 else repr(part[:40])
            out += f".{key}" if out else key
    return out or "top level"


def _read_json(path: Path) -> object:
    try:
        with open(path, encoding="utf-8-sig") as f:        # a byte order mark is skipped
            data, refused = _parse(f)
    except PermissionError as exc:
        raise PermissionError(f"cannot read the LoCoMo file {path}: "
                              f"{exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise LocomoFormatError(f"{path.name}: not JSON ({exc})") from exc
    except RecursionError:
        raise LocomoFormatError(f"{path.name}: not JSON a loader can read (nested too "
                                f"deep)") from None
    except UnicodeDecodeError as exc:
        raise LocomoFormatError(f"{path.name}: not UTF-8 text ({exc})") from exc
    if not refused:
        return data
    where, problem = _first_refused(data)
    if isinstance(data, list) and where:                    # name it as load_locomo_all does
        raise LocomoFormatError(f"{path.name}[{where[0]}]: {_field(where[1:])}: {problem}")
    raise LocomoFormatError(f"{path.name}: {_field(where)}: {problem}")


def load_locomo_all(path: str | Path, captions: bool = True) -> list[LongConversation]:
    """Every conversation in one file: a single object, or a list of them as in the
    released ``locomo10.json`` (named by their ``sample_id``).

    Raises FileNotFoundError for a missing file, PermissionError ("cannot read the LoCoMo
    file <path>: ...") for one that cannot be read, and :class:`LocomoFormatError` naming
    the file and field for anything malformed.
    """
    path = Path(path)
    data = _read_json(path)
    if isinstance(data, list):
        return [_Reader(f"{path.name}[{i}]", captions).conversation(item, f"{path.stem}[{i}]")
                for i, item in enumerate(data)]
    return [_Reader(path.name, captions).conversation(data, path.stem)]


def load_locomo(path: str | Path, captions: bool = True) -> LongConversation:
    """The one conversation in a LoCoMo file, named after the file (``26.json`` -> "26")
    or its ``sample_id``. ``captions``: append photo captions to the text (see above).

    Raises FileNotFoundError, PermissionError (as :func:`load_locomo_all`), and
    :class:`LocomoFormatError` for malformed input or a file holding several conversations
    (use :func:`load_locomo_all` for those).
    """
    conversations = load_locomo_all(path, captions)
    if len(conversations) != 1:
        raise LocomoFormatError(f"{Path(path).name}: top level: holds {len(conversations)} "
                                f"conversations; read it with load_locomo_all")
    return conversations[0]


def data_dir() -> Path:
    """The folder the kit reads LoCoMo files from, as an absolute path.

    ``$LOCOMO_DIR`` if that environment variable is set and not blank (``~`` expanded; a
    relative path is read from the current directory, so prefer an absolute one: a
    notebook's kernel runs in the notebook's folder). Otherwise ``data/locomo`` under the
    folder that holds the ``kit`` package: the repository root for the editable install
    the README describes. The folder is neither created nor checked; see
    :func:`conversation_files` and :func:`how_to_get`.
    """
    value = os.environ.get(LOCOMO_ENV, "").strip()
    folder = Path(value).expanduser() if value else _ROOT / "data" / "locomo"
    return folder.resolve()


def how_to_get(folder: str | Path | None = None) -> str:
    """One line: where LoCoMo comes from and how to get it into ``folder`` (default
    :func:`data_dir`). Used by every "no data" message of the kit, the tests and lesson 09.
    If ``folder`` is a file, the line says so instead (and, when ``$LOCOMO_DIR`` named it,
    that the variable must name a folder).
    """
    folder = data_dir() if folder is None else Path(folder)
    if folder.is_file():
        holder = f"the folder that holds the LoCoMo .json files (such as {folder.parent})."
        if os.environ.get(LOCOMO_ENV, "").strip() and folder.resolve() == data_dir():
            return (f"{LOCOMO_ENV} must name a folder, but it names the file {folder}: set it "
                    f"to {holder}")
        return f"{folder} is a file, not a folder: name {holder}"
    return (f"LoCoMo (Maharana et al., ACL 2024) is not part of this repository: save "
            f"data/locomo10.json from its public release, {LOCOMO_URL}, in {folder} (unzip "
            f"data/locomo10.zip there if the release holds that), or set {LOCOMO_ENV} to a "
            f"folder that holds it.")


def conversation_files(directory: str | Path | None = None) -> list[Path]:
    """The ``*.json`` files of ``directory`` (default :func:`data_dir`), sorted by file
    name: the release's ``locomo10.json`` (a list of ten conversations), one file per
    conversation (``26.json``), or both. Other files are ignored. An empty list when the
    folder does not exist or holds no ``.json`` file; no file is read or checked here.
    Raises PermissionError ("cannot read the LoCoMo folder <folder>: ...") if the folder
    exists but cannot be listed.
    """
    directory = data_dir() if directory is None else Path(directory)
    if not directory.is_dir():
        return []
    try:
        with os.scandir(directory) as entries:
            names = [e.name for e in entries if e.name.endswith(".json") and e.is_file()]
    except PermissionError as exc:
        raise PermissionError(f"cannot read the LoCoMo folder {directory}: "
                              f"{exc.strerror}") from exc
    return [directory / name for name in sorted(names)]


def _short(name: str) -> str:
    return name[len("conv-"):] if name.startswith("conv-") else name


def same_conversation(name: str, wanted: str) -> bool:
    """Whether a conversation called ``name`` is the one called ``wanted``, where a file's
    name (``26``, from ``26.json``) and the release's ``sample_id`` (``conv-26``) are two
    names of the same conversation."""
    return _short(str(name)) == _short(str(wanted))


def load_locomo_dir(directory: str | Path | None = None, captions: bool = True, *,
                    only: list[str] | tuple[str, ...] | None = None) -> list[LongConversation]:
    """All conversations in the ``*.json`` files of ``directory`` (default
    :func:`data_dir`), file by file in name order, each file's in its own order.

    ``only``: a list or tuple of names (str) of the conversations to keep, returned in
    that order; ``"26"`` matches both ``26`` (from ``26.json``) and ``conv-26`` (the
    release's ``sample_id``), see :func:`same_conversation`. ``captions``: as in
    :func:`load_locomo`.

    Raises TypeError if ``only`` is not a list or tuple of str; ValueError if it names a
    conversation twice (``"26"`` and ``"conv-26"`` count as the same), or if the folder
    holds a conversation more than once, ``only`` or not (say ``26.json`` next to the release's
    ``locomo10.json``: the message names the files; keep one); FileNotFoundError if the
    folder does not exist or holds no ``.json`` file (the message ends with
    :func:`how_to_get`'s line), or holds none of a conversation ``only`` names (the
    message says which it holds); PermissionError naming the folder or the file that
    cannot be read; :class:`LocomoFormatError` for the first malformed file.
    """
    if only is not None:
        if not isinstance(only, (list, tuple)) or not all(isinstance(n, str) for n in only):
            raise TypeError(f"only must be a list or tuple of names (str), got {only!r:.80}")
        first: dict[str, int] = {}               # short name -> where only first gives it
        for i, wanted in enumerate(only):
            j = first.setdefault(_short(wanted), i)
            if j != i:
                earlier = only[j]
                spelled = f" (as {earlier!r} and {wanted!r})" if earlier != wanted else ""
                raise ValueError(f"only names the conversation {wanted!r} twice{spelled}")
    directory = data_dir() if directory is None else Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"no LoCoMo folder at {directory}. {how_to_get(directory)}")
    files = conversation_files(directory)
    if not files:
        raise FileNotFoundError(f"no .json files in {directory}. {how_to_get(directory)}")
    held = [(f, c) for f in files for c in load_locomo_all(f, captions)]
    places: dict[str, list] = {}                 # short name -> where it is (a dict: linear)
    for f, c in held:
        places.setdefault(_short(c.name), []).append((f, c))
    for short, found in places.items():          # one conversation in two files: refuse
        if len(found) > 1:
            where = ", ".join(f"{f.name} (as {c.name})" for f, c in found)
            raise ValueError(f"conversation {short!r} is in {len(found)} places in "
                             f"{directory}: {where}; keep only one of them there, or it "
                             f"would be counted twice")
    if only is None:
        return [c for _, c in held]
    picked = []
    for wanted in only:
        if _short(wanted) not in places:
            have = ", ".join(c.name for _, c in held)
            raise FileNotFoundError(f"no LoCoMo conversation {wanted!r} in {directory} (it "
                                    f"holds {have})")
        picked.append(places[_short(wanted)][0][1])
    return picked
