"""Drill 05: the citation parser and its guardrail, ``guarded_answer(draft, chunks)``.

The candidate writes one function: read the ``[n]`` markers of a model's draft (``[1]``,
adjacent ``[1][2]``, grouped ``[1, 2]``), map each to the numbered chunk it names
(marker n is ``chunks[n - 1]``) and refuse the draft, with :data:`kit.rag.REFUSAL`,
unless it cites at least one shown chunk and nothing else. It returns ``(answer,
cited_ids)``: ``(draft.strip(), ids of the cited chunks, each once, first-seen order)``
or ``(REFUSAL, [])``, a new list on every call (the caller may change it: the rubric adds
to every list it gets back, and the next answers must not change).

The expected answers come from the kit: :func:`kit.rag.citations.parse_citations` then
:func:`kit.rag.guardrail.check_citations`. The drill's cases stay where the drill's
simpler rule and the kit agree (no code spans, Markdown links or indexing such as
``a[0]``: the kit handles those, the follow-ups ask about them).

Rubric:

- **correctness**: the spec's cases (single, adjacent, grouped, repeats, order, numbers of
  two digits, stripping), then 200 seeded random drafts against the kit;
- **failure safety**: the guardrail refuses every unsafe draft: no citation, ``[0]``, a
  marker past the last chunk (alone or next to valid ones), no chunks shown, a blank draft;
- **edge cases**: brackets that are not markers (``[x]``, ``[1-2]``, ``[^1]``, ``[]``,
  ``[1.5]``, and groups whose commas do not each stand between two numbers, ``[1,]``,
  ``[,1]``, ``[1,,2]``, or numbers with only a space between them, ``[1 2]``), spaces
  inside a group, leading zeros, a hostile number of 5,000 digits
  (refused, no crash: ``int()`` refuses more than 4,300 digits), an unclosed ``[1``, and
  the chunks list left unchanged;
- **complexity**: counted steps, never time. The checker traces the line events of the
  candidate's own code (:func:`sys.settrace`; the standard library and this module are not
  counted) on adversarial drafts of 2,000 and 20,000 characters (``"[" * n``, ``"[1" *
  n``, ``"[1, " * n``, ``"[1]" * n``): the shorter one may take at most 50 steps per
  character, the longer one at most 12 x the steps of the shorter one (plus 100). A scanner
  that rescans the rest of the draft at each ``[`` in a Python loop fails. Not counted: work
  inside C code (a ``str.find`` from each ``[``, backtracking in the regex engine), invisible
  to a step counter: the rubric row says so, and it is a talking point, not a check.
"""
from __future__ import annotations

import os
import random
import re
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

from kit.checks import CheckFailed, call_learner, call_pure, expect
from kit.checks.hints import judged
from kit.drills import Drill
from kit.rag.citations import find_markers, parse_citations
from kit.rag.documents import Chunk
from kit.rag.guardrail import REFUSAL, check_citations

__all__ = ["DRILL", "expected_answer", "check_correctness", "check_failure_safety",
           "check_edge_cases", "check_complexity", "count_steps"]

_NAME = "guarded_answer"
_SIZES = (2_000, 20_000)        # characters of the short and the long adversarial draft
_RATIO = 12                     # the long draft may take 12 x the short one's steps (+ _SLACK)
_SLACK = 100
_PER_CHAR = 50                  # steps per character allowed on the short draft
_NO_CRASH = ("every draft gets an answer or a refusal, never an exception (a marker of "
             "5,000 digits: compare the number of digits before int())")
_HUGE = "9" * 5_000             # more digits than int() accepts (4,300 by default)
_CALLER = "<added by the caller>"   # what the rubric appends to every list it gets back
# A bracket of digits, commas and spaces only: a group when the kit's pattern matches it whole.
_LOOSE = re.compile(r"\[[\d\s,]*\]")             # one quantifier: linear
_STRICT = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")


def _chunks(n: int) -> list[Chunk]:
    return [Chunk(f"c{i}", f"chunk {i} text", f"doc{i}.md") for i in range(1, n + 1)]


def expected_answer(draft: str, chunks: list[Chunk]) -> tuple[str, list[str]]:
    """The kit's answer: ``(draft.strip(), cited ids)`` if the guardrail passes the draft,
    else ``(REFUSAL, [])``."""
    result = parse_citations(draft, chunks)
    verdict = check_citations(draft, result)
    return (verdict.answer, list(result.chunk_ids)) if verdict.passed else (REFUSAL, [])


def _label(draft: str, chunks: list[Chunk]) -> str:
    shown = repr(draft) if len(draft) <= 70 else repr(draft[:60] + "...") + f" ({len(draft)} chars)"
    ids = "no chunks" if not chunks else f"chunks {chunks[0].id}..{chunks[-1].id}" \
        if len(chunks) > 2 else f"chunks {', '.join(c.id for c in chunks)}"
    return f"{_NAME}({shown}, {ids})"


def _as_answer(got: object, label: str) -> tuple[str, list[str]]:
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    expect(isinstance(got, (tuple, list)) and len(got) == 2 and isinstance(got[0], str)
           and isinstance(got[1], (list, tuple)),
           f"{label} should return a pair (answer, cited_ids): a str and a list of chunk "
           f"ids, got {got!r:.100}{missing}")
    ids = list(got[1])
    expect(all(isinstance(i, str) for i in ids),
           f"{label} should return the cited chunks' ids (chunk.id, a str), got {ids!r:.80}")
    return got[0], ids


def _hint(got: tuple[str, list[str]], want: tuple[str, list[str]], draft: str,
          chunks: list[Chunk]) -> str:
    """Name the likely mistake behind a wrong answer."""
    result = parse_citations(draft, chunks)
    markers = find_markers(draft)
    refused, should_refuse = got[0] == REFUSAL, want[0] == REFUSAL
    if _CALLER in got[1]:
        return ("return a new list on every call: the caller added to the list an earlier "
                "call returned, and this call returned that same list")
    loose = [m.group(0) for m in _LOOSE.finditer(draft)
             if any(c.isdigit() for c in m.group(0)) and not _STRICT.fullmatch(m.group(0))]
    if loose and got != want and (got[1] or not refused):
        return (f"{loose[0]} is not a marker: a group is whole numbers with a comma between "
                f"each two of them (spaces allowed around them); an empty item, a trailing "
                f"comma or two numbers with only a space between them make the bracket text")
    if should_refuse and not refused:
        if not draft.strip():
            return "an empty or blank draft is refused"
        if result.invalid:
            bad = result.invalid[0]
            return (f"[{bad}] names no shown chunk ({len(chunks)} were shown, markers are "
                    f"1-based): a draft with any marker out of range is refused, even next "
                    f"to valid ones")
        return ("no valid citation: a draft that cites no shown chunk must be refused (the "
                "guardrail: no citation, no answer)")
    if refused and not should_refuse:
        if got[1]:
            return "a refusal returns (REFUSAL, []): no cited ids"
        if any(n >= 10 for n in markers):
            return "a marker may have more than one digit: match \\d+, not \\d"
        if "," in draft:
            return ("a group like [1, 2] holds two markers: split what is inside the "
                    "brackets on commas (spaces allowed)")
        if chunks and len(chunks) in markers:
            return (f"[{len(chunks)}] names the last chunk: valid markers are 1 <= n <= "
                    f"len(chunks) (markers are 1-based)")
        return ("this draft cites a shown chunk and nothing else: it passes. Check the "
                "pattern you match: [n], [n][m], [n, m], spaces allowed inside")
    if refused and should_refuse:
        return f"a refusal returns the text kit.rag.REFUSAL exactly ({REFUSAL!r}) and []"
    if got[0] != want[0]:
        return "a draft that passes is returned as draft.strip(), unchanged otherwise"
    got_ids, want_ids = got[1], want[1]
    zero_based = [chunks[n].id for n in dict.fromkeys(markers) if 0 <= n < len(chunks)]
    if got_ids == zero_based and got_ids != want_ids:
        return "markers are 1-based: [1] is chunks[0], [n] is chunks[n - 1]"
    if len(set(got_ids)) < len(got_ids):
        return "cite each chunk once: skip a chunk you have already cited"
    if sorted(got_ids) == sorted(want_ids):
        return "keep first-seen order: do not sort the ids"
    missing = set(want_ids) - set(got_ids)
    if missing and any(n >= 10 for n in markers):
        return "a marker may have more than one digit: match \\d+, not \\d"
    if missing and "," in draft:
        return ("a group like [1, 2] holds two markers: split what is inside the brackets "
                "on commas (spaces allowed)")
    if missing and "][" in draft:
        return "adjacent markers [1][2] are two citations: find every bracket group"
    return ("find every bracket group of whole numbers, split it on commas, map n to "
            "chunks[n - 1], each chunk once in first-seen order")


def _check_case(answer: Callable, draft: str, chunks: list[Chunk], why: str) -> None:
    label = _label(draft, chunks)
    raw = call_pure(answer, draft, chunks, name=_NAME, shown=label, hint=_NO_CRASH)
    got = _as_answer(raw, label)
    want = expected_answer(draft, chunks)
    expect(got == want,
           f"{label} should return {_show(want)}, got {_show(got)}. Why: {why}. Hint: "
           f"{_hint(got, want, draft, chunks)}.")
    if isinstance(raw[1], list):        # the caller may change what it got back
        raw[1].append(_CALLER)
        _CHANGED.append(raw[1])


_CHANGED: list[list] = []           # the lists the rubric added to, until its check ends


def _restoring(check: Callable[[Callable], int]) -> Callable[[Callable], int]:
    """``check``, then every list it added to is put back as it was (a list an answer keeps
    across calls then starts each check, and each run, as it did the first time)."""
    def restored(answer: Callable) -> int:
        try:
            return check(answer)
        finally:
            for ids in _CHANGED:
                while _CALLER in ids:
                    ids.remove(_CALLER)
            _CHANGED.clear()
    restored.__name__ = check.__name__
    restored.__qualname__ = check.__qualname__
    restored.__doc__ = check.__doc__
    restored.__module__ = check.__module__
    return restored


def _show(pair: tuple[str, list[str]]) -> str:
    text = "REFUSAL" if pair[0] == REFUSAL else repr(pair[0]) if len(pair[0]) <= 50 \
        else repr(pair[0][:47] + "...")
    return f"({text}, {pair[1]!r:.60})"


_TWO, _TWELVE = _chunks(2), _chunks(12)

# (draft, chunks, why)
_CORRECT = [
    ("Prepaid refunds take 5 working days [1].", _TWO, "one marker, [1] is the first chunk"),
    ("Cash-on-delivery refunds are store credit [2].", _TWO,
     "[2] is the second chunk, the last one shown"),
    ("Both apply [1][2].", _TWO, "adjacent markers [1][2] are two citations"),
    ("Both apply [1, 2].", _TWO, "a group [1, 2] holds two markers"),
    ("Both apply [2,1].", _TWO, "a group [2,1]: two markers, 2 seen first"),
    ("Days [2], credit [1], days again [2].", _TWO, "each chunk once, first-seen order"),
    ("See [2] and [1] and [2, 1].", _TWO, "each chunk once, first-seen order"),
    ("[1] The refund goes back to the card.", _TWO, "a marker at the very start counts"),
    ("Twelve chunks, the tenth [10] and the twelfth [12].", _TWELVE,
     "numbers of two digits: [10] and [12] are markers"),
    ("  Five days [1].\n\n", _TWO, "a draft that passes is returned stripped"),
    ("Line one [1].\nLine two [2].", _TWO, "markers on several lines"),
    ("Mixed [3][1], then [12, 7].", _TWELVE, "adjacent and grouped markers together"),
]

# (draft, chunks, why): every one is refused
_UNSAFE = [
    ("Prepaid refunds take 5 working days.", _TWO,
     "no citation: the guardrail refuses an uncited answer"),
    ("Store credit [3].", _TWO, "[3] names no chunk when 2 were shown"),
    ("Five days [0].", _TWO, "[0] names no chunk: markers start at 1"),
    ("Five days [1], store credit [3].", _TWO,
     "[3] names no shown chunk: the sentence it sits on is unsupported, so refuse the draft"),
    ("Both [1, 5].", _TWO, "a group holding a marker out of range is refused"),
    ("Both [2][13].", _TWELVE, "[13] is past the twelfth and last chunk"),
    ("Store credit [1].", [], "no chunks were shown: no marker can be valid"),
    ("", _TWO, "an empty draft has nothing to show"),
    ("   \n ", _TWO, "a blank draft has nothing to show"),
    ("See the refunds page [x].", _TWO, "[x] is not a marker: no citation"),
]

_EDGE = [
    ("Not numbers: [x], [1-2], [^1], [], [1.5]; days [1].", _TWO,
     "[x], [1-2], [^1], [] and [1.5] are not lists of whole numbers: only [1] is a marker"),
    ("Both apply [ 1 , 2 ].", _TWO, "spaces are allowed around the numbers and commas"),
    ("Five days [01].", _TWO, "[01] is marker 1 (int('01') == 1)"),
    (f"Store credit [{_HUGE}].", _TWO,
     "a hostile marker of 5,000 digits names no chunk: refuse, do not crash (int() "
     "refuses more than 4,300 digits; compare the length first)"),
    (f"Five days [{'0' * 5_000}1].", _TWO,
     "5,000 leading zeros still make marker 1: strip the zeros before you judge the length"),
    ("Five days [1", _TWO, "an unclosed [1 is no marker: no citation"),
    ("[[[1]]] five days.", _TWO, "[1] inside stray brackets is still marker 1"),
    ("Store credit [2,].", _TWO,
     "[2,] is no marker (a comma stands between two numbers): no citation, so refuse"),
    ("Not markers: [1,], [,2], [1,,2], [2 1], [ ], [,]; days [1].", _TWO,
     "a group is whole numbers with a comma between each two: [1,], [,2], [1,,2], [2 1], "
     "[ ] and [,] are text, only [1] is a marker"),
    ("Five days [1]. Store credit [2].", _TWO[:1] + _TWO[1:], "the chunks list is not changed"),
]


def _random_draft(rng: random.Random) -> str:
    """Words, markers, groups and non-numbers, space-separated (where the drill's rule and
    the kit's agree)."""
    def n() -> int:
        return rng.randint(0, 6)

    makers = [
        lambda: rng.choice(["refunds", "take", "five", "days", "store", "credit", "card."]),
        lambda: f"[{n()}]", lambda: f"[{n()}].", lambda: f"[{n()}][{n()}]",
        lambda: f"[{n()}, {n()}]", lambda: f"[{n()},{n()}]", lambda: f"[{n()}, {n()},{n()}]",
        lambda: rng.choice(["[x]", "[1-2]", "[^1]", "[]"]),
    ]
    return " ".join(rng.choice(makers)() for _ in range(rng.randint(0, 8)))


def check_correctness(answer: Callable) -> int:
    """The spec's cases, then 200 random drafts (``random.Random(5)``) against the kit."""
    for draft, chunks, why in _CORRECT:
        _check_case(answer, draft, chunks, why)
    rng = random.Random(5)
    for _ in range(200):
        _check_case(answer, _random_draft(rng), _chunks(rng.randint(0, 5)),
                    "same rule as kit.rag.parse_citations and check_citations")
    return len(_CORRECT) + 200


def check_failure_safety(answer: Callable) -> int:
    """Every unsafe draft is refused: ``(REFUSAL, [])``."""
    for draft, chunks, why in _UNSAFE:
        _check_case(answer, draft, chunks, why)
    return len(_UNSAFE)


def check_edge_cases(answer: Callable) -> int:
    """Non-markers, spaces, leading zeros, a hostile number, an unclosed bracket; the
    chunks are not changed (every case runs on copies and compares)."""
    for draft, chunks, why in _EDGE:
        _check_case(answer, draft, chunks, why)
    return len(_EDGE)


# -- complexity: counted steps --------------------------------------------------------

_HERE = str(Path(__file__).resolve())
_CHECKS = str(Path(__file__).resolve().parents[1] / "checks") + os.sep
_LIBRARIES = tuple(str(Path(sysconfig.get_paths()[key]).resolve()) + os.sep
                   for key in ("stdlib", "platstdlib"))


class _TooManySteps(BaseException):
    """Raised inside the traced code when it passes its step limit."""


def _counted(code) -> bool:
    name = code.co_filename
    if name.startswith("<frozen"):
        return False
    try:
        path = name if name.startswith("<") else str(Path(name).resolve())
    except (OSError, RuntimeError):
        path = name
    return path != _HERE and not path.startswith((_CHECKS, *_LIBRARIES))


def count_steps(fn: Callable, *args, limit: int | None = None) -> tuple[int, object]:
    """``(steps, result)`` of ``fn(*args)``: steps = line events in frames outside the
    standard library and this module (the candidate's code). Raises CheckFailed naming
    the limit when ``limit`` steps are passed (the run is stopped there)."""
    steps = [0]
    counted: dict[object, bool] = {}

    def local(frame, event, arg):
        if event == "line":
            steps[0] += 1
            if limit is not None and steps[0] > limit:
                raise _TooManySteps
        return local

    def global_(frame, event, arg):
        code = frame.f_code
        if code not in counted:
            counted[code] = _counted(code)
        return local if counted[code] else None

    previous = sys.gettrace()
    sys.settrace(global_)
    try:
        result = call_learner(fn, *args, name=_NAME, shown=f"{_NAME}(<a draft of "
                              f"{len(args[0])} characters>, chunks c1, c2)")
    except _TooManySteps:
        return steps[0], _TooManySteps
    finally:
        sys.settrace(previous)
    return steps[0], result


_WHY_LINEAR = ("a parser that rescans the rest of the draft at each '[' is quadratic, "
               "and a long hostile answer then stalls the reply.")
_HINT_LINEAR = ("one pass over the draft (re.finditer, or one index that only moves "
                "forward); never restart a scan from each '['.")

_ADVERSARIAL = [
    ("'[' * n", lambda n: "[" * n),
    ("'[1' * n", lambda n: "[1" * (n // 2)),
    ("'[1, ' * n", lambda n: "[1, " * (n // 4)),
    ("'[1]' * n", lambda n: "[1]" * (n // 3)),
]


def check_complexity(answer: Callable) -> int:
    """Counted steps on adversarial drafts of 2,000 and 20,000 characters: at most
    12 x (plus 100) for the 10 x longer draft."""
    chunks = _chunks(2)
    short, long = _SIZES
    for shown, make in _ADVERSARIAL:
        small_draft, big_draft = make(short), make(long)
        call_learner(answer, small_draft, chunks, name=_NAME)      # warm caches (re's)
        small, result = count_steps(answer, small_draft, chunks, limit=_PER_CHAR * short)
        expect(result is not _TooManySteps,
               f"{_NAME} on the adversarial draft {shown} took more than "
               f"{_PER_CHAR * short:,} counted steps at {short:,} characters ({_PER_CHAR} "
               f"per character; stopped there). Why: {_WHY_LINEAR} Hint: {_HINT_LINEAR}")
        limit = _RATIO * small + _SLACK
        big, result = count_steps(answer, big_draft, chunks, limit=limit)
        what = (f"more than {limit} (stopped there)" if result is _TooManySteps
                else f"{big}")
        expect(result is not _TooManySteps and big <= limit,
               f"{_NAME} on the adversarial draft {shown} took {small} counted steps at "
               f"{short:,} characters and {what} at {long:,}: more than {_RATIO} x for a "
               f"draft 10 x longer, so the work grows faster than the draft. Why: "
               f"{_WHY_LINEAR} Hint: {_HINT_LINEAR}")
        if shown == "'[1]' * n":
            expect(result == (big_draft, ["c1"]) or result == (big_draft, ("c1",)),
                   f"{_NAME} on {shown} with n = {long:,} should return the draft and "
                   f"['c1'], got {result!r:.80}. Hint: cite each chunk once.")
    return len(_ADVERSARIAL)


#: The rule of the spec each kind of failure breaks (stated when no registered mistake
#: gives the candidate's very answers: :mod:`kit.checks.hints`).
RULES = (
    (r"should return \(REFUSAL", "refuse, (REFUSAL, []), unless the draft cites at least one "
                                 "shown chunk and nothing else: [0] and a marker past the "
                                 "last chunk are invalid, a blank draft is refused, a "
                                 "bracket that is not a group of whole numbers is no marker; "
                                 "a new list on every call"),
    (r"should return", "a draft that passes returns (draft.strip(), the cited chunks' ids): "
                       "[n] is chunks[n - 1], [n][m] and [n, m] are two markers (a comma "
                       "between each two numbers), numbers of any length, each chunk once "
                       "in first-seen order, a new list on every call"),
    (r"steps", "one pass over the draft: the steps per character stay flat as it grows"),
)
_judged = judged("citations and guardrail", RULES, "the spec of the drill")
check_correctness = _judged(_restoring(check_correctness))
check_failure_safety = _judged(_restoring(check_failure_safety))
check_edge_cases = _judged(_restoring(check_edge_cases))
check_complexity = _judged(check_complexity)

DRILL = Drill(
    name="citations-guardrail",
    title="Citation parser and guardrail",
    minutes=15,
    symbol="guarded_answer",
    notebook="05_citations_guardrail",
    rubric={"correctness": check_correctness, "failure safety": check_failure_safety,
            "edge cases": check_edge_cases, "complexity": check_complexity},
    talking_points=(
        "Markers are 1-based: [n] is chunks[n - 1]; [0] and n > len(chunks) are invalid",
        "Refuse the whole draft on one invalid marker: its sentence is unsupported, and "
        "stripping the marker would hide that",
        "No valid citation, no answer: the guardrail checks citations, not whether the "
        "chunk supports the sentence (that is groundedness, a judge's job)",
        "One pass over the draft: a pattern without nested unbounded repeats, so a hostile "
        "'[' * 10**6 stays linear; cap the digits before int(). The complexity row counts "
        "only the Python steps of your code: a str.find or a regex search restarted from "
        "each '[' is quadratic too, and it would not show there",
        "What the parser must skip in real answers: code spans, Markdown links [1](url), "
        "indexing like a[0] (kit.rag.citations does)",
        "Store the answer with chunk ids, not [n]: the next turn numbers its chunks from 1",
    ),
    mechanism="citations and guardrail",
)
