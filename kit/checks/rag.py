"""Checkers for lesson 07 (the RAG chatbot): citation markers and the query-rewrite fallback.

(The whole turn, the lesson's third exercise, is checked by :mod:`kit.checks.chatbot_turn`.)

- :func:`check_citation_markers`: the exercise ``citation_markers(answer, n_chunks)``
  (named apart from :func:`kit.rag.citations.parse_citations`, which takes the chunks
  and returns a :class:`~kit.rag.citations.CitationResult`).
  ``answer`` is a model's reply (str), ``n_chunks`` how many numbered chunks it was
  shown (int >= 0). A marker is a whole number in square brackets: ``[1]``, each number
  of a group ``[1, 2]`` / ``[1,2]``, each bracket of ``[1][2]``. Not markers: a bracket
  glued to a letter, digit, ``_`` or ``)`` in front (indexing: ``a[0]``, ``f(x)[1]``), a
  bracket followed by ``(`` (a Markdown link ``[1](https://...)``), brackets holding
  anything but whole numbers with a comma between each two (``[x]``, ``[1-2]``, ``[^1]``,
  ``[1,]``, ``[1,,2]``, ``[2 1]``). Return ``(valid, invalid)``,
  two lists of ints: ``valid`` the marker numbers 1..n_chunks (1-based, as written, not
  chunk indexes), ``invalid`` the others (0 or past the last chunk); each number once,
  in first-seen order. Same rule as :func:`kit.rag.citations.parse_citations` on the
  answers checked here (no code spans, no bracket runs glued to a word or a link).
- :func:`check_standalone_query`: the exercise ``standalone_query(llm, history,
  question)``. ``llm`` is a chat model ``(system, user) -> str`` that may raise or reply
  with junk; ``history`` the conversation so far as text ("" or blank on the first turn).
  First turn: return ``question`` without calling the model. Otherwise call
  ``llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))`` once, check the reply
  with :func:`kit.rag.rewrite.clean_query` and return the cleaned query, or ``question``
  if the reply is rejected or the call raised any Exception. Same result as
  ``kit.rag.rewrite.rewrite_query(llm, history, question).query``.

Each checker prints one pass line (:func:`kit.checks.passed`) or raises
:class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable

from kit.checks import CheckFailed, call_learner, expect, passed, show_call
from kit.rag.citations import parse_citations
from kit.rag.documents import Chunk
from kit.rag.rewrite import REWRITE_SYSTEM, build_rewrite_prompt, clean_query

__all__ = ["check_citation_markers", "check_standalone_query"]


# -- exercise 1: citation_markers(answer, n_chunks) ----------------------------------------

# A bracket of digits, commas and spaces only, and the groups among them (one quantifier
# each: linear).
_LOOSE = re.compile(r"\[[\d\s,]*\]")
_STRICT = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")

# (answer, n_chunks, why it matters)
_CITATION_CASES = [
    ("Prepaid refunds take 5 working days [1].", 2, "one marker, one citation"),
    ("They are paid as store credit [2].", 2,
     "[2] names the 2nd (last) chunk shown: valid markers are 1..n_chunks, both ends included"),
    ("Both apply [1][2].", 2, "adjacent markers [1][2] are two citations"),
    ("Both apply [1, 2].", 2, "a group [1, 2] holds two markers"),
    ("Both apply [2,1].", 2, "a group [2,1] holds two markers, 2 seen first"),
    ("Store credit [3].", 2, "[3] names no chunk when 2 were shown: it is invalid"),
    ("Five days [0].", 2, "[0] names no chunk: markers start at 1, so [0] is invalid"),
    ("Call a[0] to read the first item.", 3, "a[0] is indexing, glued to a word: not a citation"),
    ("Compute f(x)[1] first.", 2, "f(x)[1] is indexing, glued to ')': not a citation"),
    ("Read [1](https://help.example.com/refunds).", 2,
     "[1](https://...) is a Markdown link: not a citation"),
    ("Days [2], credit [1], days again [2].", 2,
     "each marker once, in first-seen order: [2] then [1]"),
    ("See [2] and [1] and [2, 1].", 3, "each marker once, in first-seen order: [2] then [1]"),
    ("Not numbers: [x], [1-2], [^1].", 2, "[x], [1-2] and [^1] are not lists of whole numbers"),
    ("Not groups: [1,], [,2], [1,,2], [2 1]; days [1].", 2,
     "a group is whole numbers with a comma between each two: [1,], [,2], [1,,2] and [2 1] "
     "are text, only [1] is a marker"),
    ("Mixed [1], [4], [4] and [5].", 3,
     "valid and invalid apart, and each invalid marker once too, first-seen order"),
    ("Both [1][5].", 2, "adjacent markers, one valid and one invalid"),
    ("Store credit [1].", 0, "no chunks were shown: every marker is invalid"),
    ("Twelve chunks [10][12].", 11, "numbers of two digits: [10] is valid, [12] is not"),
    ("", 2, "an empty answer has no markers"),
    ("[1] The refund goes back to the card.", 1, "a marker at the very start counts"),
]


def _expected_citations(answer: str, n_chunks: int) -> tuple[list[int], list[int]]:
    """(valid, invalid) by :func:`kit.rag.citations.parse_citations`."""
    chunks = [Chunk(f"c{i}", f"chunk {i}", "help.md") for i in range(1, n_chunks + 1)]
    result = parse_citations(answer, chunks)
    return list(result.markers), list(result.invalid)


def _citation_hint(got: tuple[list, list], want: tuple[list[int], list[int]], answer: str,
                   n_chunks: int) -> str:
    """Name the likely mistake behind a wrong (valid, invalid) pair."""
    (got_valid, got_invalid), (valid, invalid) = got, want
    found, expected = set(got_valid) | set(got_invalid), set(valid) | set(invalid)
    if valid and got_valid == [n - 1 for n in valid]:
        return ("you returned 0-based chunk indexes; return the marker numbers as written "
                "([1] is 1: markers are 1-based)")
    if 0 in got_valid:
        return "[0] names no chunk: a valid marker n has 1 <= n <= n_chunks"
    if any(n > n_chunks for n in got_valid):
        return "a marker past the last chunk (n > n_chunks) is invalid, not valid"
    if n_chunks in valid and n_chunks in got_invalid:
        return ("off by one: [n_chunks] names the last chunk, so the valid range is "
                "1 <= n <= n_chunks (markers are 1-based)")
    if len(set(got_valid)) < len(got_valid) or len(set(got_invalid)) < len(got_invalid):
        return "each number once: skip a marker you have already seen"
    if sorted(got_valid) == sorted(valid) and sorted(got_invalid) == sorted(invalid):
        return "keep first-seen order: do not sort the markers"
    if found - expected:
        if "a[" in answer or ")[" in answer:
            return ("a bracket glued to a letter, digit, '_' or ')' is indexing, not a "
                    "citation: check the character before '['")
        if "](" in answer:
            return "a bracket followed by '(' is a Markdown link, not a citation"
        loose = [m.group(0) for m in _LOOSE.finditer(answer)
                 if any(c.isdigit() for c in m.group(0)) and not _STRICT.fullmatch(m.group(0))]
        if loose:
            return (f"{loose[0]} is not a marker: a group is whole numbers with a comma "
                    f"between each two (spaces allowed around them)")
        return "only whole numbers in brackets count: [x], [1-2] and [^1] are not markers"
    missing = expected - found
    if any(n >= 10 for n in missing):
        return "a marker may have more than one digit: match \\d+, not \\d"
    if missing and "," in answer:
        return ("a group like [1, 2] holds two markers: split what is inside the brackets "
                "on commas")
    if missing and "][" in answer:
        return "adjacent markers [1][2] are two citations: find every bracket, not just the first"
    if found == expected:
        return "valid means 1 <= n <= n_chunks; every other number goes to invalid"
    return ("find every bracketed group of whole numbers not glued to a word and not followed "
            "by '(', split it on commas, and sort each number into valid (1..n_chunks) or "
            "invalid, once each, in first-seen order")


def _as_pair(got: object, label: str) -> tuple[list, list]:
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    expect(isinstance(got, (tuple, list)) and len(got) == 2
           and all(isinstance(part, (list, tuple)) for part in got),
           f"{label} should return a tuple (valid, invalid) of two lists, got {got!r:.100}"
           f"{missing}")
    valid, invalid = (list(part) for part in got)
    expect(all(type(n) is int for n in valid + invalid),
           f"{label} should return marker numbers as ints, got valid={valid!r:.60}, "
           f"invalid={invalid!r:.60}: convert with int()")
    return valid, invalid


def _check_citation_case(parse: Callable, answer: str, n_chunks: int, why: str) -> None:
    label = show_call("citation_markers", (answer, n_chunks))
    got = _as_pair(call_learner(parse, answer, n_chunks, name="citation_markers", shown=label),
                   label)
    want = _expected_citations(answer, n_chunks)
    expect(got == want,
           f"{label} should return (valid={want[0]}, invalid={want[1]}); got (valid={got[0]}, "
           f"invalid={got[1]}). Why: {why}. Hint: {_citation_hint(got, want, answer, n_chunks)}.")


def _random_answer(rng: random.Random) -> str:
    """An answer of words, markers, groups, indexing, links and non-numbers, space-separated."""
    def n() -> int:
        return rng.randint(0, 6)

    makers = [
        lambda: rng.choice(["refunds", "take", "five", "days", "store", "credit", "card."]),
        lambda: f"[{n()}]", lambda: f"[{n()}].", lambda: f"[{n()}][{n()}]",
        lambda: f"[{n()}, {n()}]", lambda: f"[{n()},{n()}]", lambda: f"a[{n()}]",
        lambda: f"f(x)[{n()}]", lambda: f"[{n()}](https://help.example.com)",
        lambda: rng.choice(["[x]", "[1-2]", "[^1]"]),
    ]
    return " ".join(rng.choice(makers)() for _ in range(rng.randint(0, 8)))


def check_citation_markers(
        citation_markers: Callable[[str, int], tuple[list[int], list[int]]]) -> None:
    """Check ``citation_markers(answer, n_chunks)``; print one pass line or raise CheckFailed.

    Rejects: a pattern that finds only single ``[n]`` (groups ``[1, 2]`` missed), one
    digit only, 0-based indexes instead of marker numbers, an off-by-one valid range
    (``[n_chunks]`` invalid, or ``[0]`` valid), markers past the last chunk counted as
    valid, duplicates, sorted instead of first-seen order, indexing (``a[0]``) or links
    counted, a loose group such as [2,] or [1 2] read as markers, and anything but a pair
    of int lists. Then compares with
    :func:`kit.rag.citations.parse_citations` on 200 random answers.
    """
    cases = 0
    for answer, n_chunks, why in _CITATION_CASES:
        _check_citation_case(citation_markers, answer, n_chunks, why)
        cases += 1
    rng = random.Random(7)
    for _ in range(200):
        _check_citation_case(citation_markers, _random_answer(rng), rng.randint(0, 5),
                             "same rule as kit.rag.citations.parse_citations")
        cases += 1
    passed("citation_markers", cases)


# -- exercise 2: standalone_query(llm, history, question) ----------------------------------

HISTORY = ("user: How long do prepaid refunds take?\n"
           "assistant: Prepaid refunds take 5 working days [1].")
QUESTION = "and for COD?"
_FIRST_TURN = "first turn: no history, nothing to resolve"


class _Model:
    """A chat model double: records each ``(system, user)`` call, then replies with
    ``reply`` or raises ``error``. A call with another shape raises CheckFailed (kept in
    ``misuse`` in case the learner's code catches it)."""

    def __init__(self, reply: object = None, error: BaseException | None = None) -> None:
        self.reply, self.error = reply, error
        self.calls: list[tuple[str, str]] = []
        self.misuse: CheckFailed | None = None

    def __call__(self, *args: object, **kwargs: object) -> object:
        if len(args) != 2 or kwargs or not all(isinstance(a, str) for a in args):
            shown = ", ".join([_short(a, 40) for a in args] + [f"{k}=..." for k in kwargs])
            self.misuse = CheckFailed(
                f"standalone_query called llm({shown}). The model is a chat model: call it "
                f"with two strings, llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))")
            raise self.misuse
        self.calls.append((args[0], args[1]))  # type: ignore[arg-type]
        if self.error is not None:
            raise self.error
        return self.reply


# (history, what the model does: a reply or an exception, why it matters)
_REWRITE_CASES: list[tuple[str, object, str]] = [
    ("", "cash-on-delivery refund", _FIRST_TURN),
    ("  \n", "cash-on-delivery refund", "a blank history is no history: first turn"),
    (HISTORY, "cash-on-delivery refund", "a clean reply is the query"),
    (HISTORY, "", "an empty reply is no query: fall back to the question"),
    (HISTORY, "Sure, I can help with that!",
     "a chatty reply is no query: clean_query rejects it, fall back to the question"),
    (HISTORY, "cash-on-delivery refund\nCOD refund time",
     "a reply on two lines is rejected by clean_query: fall back to the question"),
    (HISTORY, " ".join(["refund"] * 30),
     "a 30-word reply is rejected by clean_query: fall back to the question"),
    (HISTORY, None, "a reply that is not a str is rejected: fall back to the question"),
    (HISTORY, "  \"cash-on-delivery refund\"\n",
     "clean_query strips whitespace and quotes: return its cleaned query, not the raw reply"),
    (HISTORY, "Sure! Here is the query: cash-on-delivery refund",
     "clean_query cuts the preamble off: return its cleaned query, not the raw reply"),
    (HISTORY, TimeoutError("model timed out"),
     "the model timed out: a failed helper call must not fail the turn"),
    (HISTORY, ConnectionError("endpoint unreachable"),
     "any Exception from the model falls back, not only a timeout"),
    (HISTORY, ValueError("bad response"),
     "any Exception from the model falls back, not only a timeout"),
]


def _rewrite_label(history: str, action: object) -> str:
    shown = (f"a model that raises {type(action).__name__}" if isinstance(action, BaseException)
             else f"a model replying {action!r:.50}")
    turn = "no history" if not history.strip() else "the prepaid-refund history"
    return f"standalone_query({shown}, {turn}, {QUESTION!r})"


def _check_rewrite_case(standalone_query: Callable, history: str, action: object,
                        why: str) -> None:
    label = _rewrite_label(history, action)
    model = (_Model(error=action) if isinstance(action, BaseException) else _Model(reply=action))
    hint = ("A failed rewrite must not fail the turn: wrap the model call in "
            "`try: ... except Exception:` and return the question"
            if isinstance(action, BaseException) else
            "The reply can be anything (None, empty, chatty): check it with clean_query(reply) "
            "before using it")
    got = call_learner(standalone_query, model, history, QUESTION, name="standalone_query",
                       shown=label, hint=hint)
    if model.misuse is not None:
        raise model.misuse
    want = _expected_query(action) if history.strip() else QUESTION
    if not history.strip():
        expect(not model.calls,
               f"{label} called the model. Why: {why}. Hint: on the first turn there is "
               f"nothing to resolve, so return the question without a model call (test "
               f"`history.strip()`, so a blank history counts as none).")
    else:
        expect(len(model.calls) == 1,
               f"{label} called the model {len(model.calls)} times, expected once. Hint: "
               + ("the rewrite needs one call when there is history; only the first turn "
                  "skips it" if not model.calls else "one call per turn: no retries here") + ".")
        expect(model.calls[0] == (REWRITE_SYSTEM, build_rewrite_prompt(history, QUESTION)),
               f"{label} called llm{_shorten(model.calls[0])}. Hint: call "
               f"llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question)); the model needs "
               f"the history to know what 'and for COD?' refers to.")
    expect(isinstance(got, str),
           f"{label} should return the query as a str, got {got!r:.80}")
    expect(got == want,
           f"{label} should return {want!r}, got {got!r:.80}. Why: {why}. Hint: "
           f"{_rewrite_hint(got, want, action)}.")


def _expected_query(action: object) -> str:
    if isinstance(action, BaseException):
        return QUESTION
    query, _ = clean_query(action)
    return QUESTION if query is None else query


def _short(value: object, width: int = 50) -> str:
    """repr of ``value``, a long string cut to ``width`` characters with "..." inside
    the quotes; the system prompt shows as its name."""
    if value == REWRITE_SYSTEM:
        return "REWRITE_SYSTEM"
    if isinstance(value, str) and len(value) > width:
        return repr(value[:width - 3] + "...")
    return repr(value)


def _shorten(call: tuple[str, str]) -> str:
    return f"({_short(call[0])}, {_short(call[1], 70)})"


def _rewrite_hint(got: str, want: str, action: object) -> str:
    if not got.strip():
        return "an empty query retrieves nothing: fall back to the question"
    if isinstance(action, str) and got in (action, action.strip()) and want == QUESTION:
        return ("you returned the model's reply as it came; check it with clean_query(reply) "
                "and fall back to the question when the query it returns is None")
    if isinstance(action, str) and got in (action, action.strip()):
        return "return the cleaned query (the first value clean_query returns), not the raw reply"
    if want == QUESTION:
        return "when the reply is rejected, return the question itself, unchanged"
    return "return the query clean_query returns for a usable reply"


def check_standalone_query(standalone_query: Callable[[Callable, str, str], str]) -> None:
    """Check ``standalone_query(llm, history, question)``; print one pass line or raise
    CheckFailed.

    Rejects: a model call on the first turn (or on a blank history), more than one call,
    a prompt without the history, an exception from the model that escapes (or only a
    timeout caught), the raw or chatty reply returned instead of the cleaned query or
    the question, an empty query, and a return value that is not a str.
    """
    cases = 0
    for history, action, why in _REWRITE_CASES:
        _check_rewrite_case(standalone_query, history, action, why)
        cases += 1
    passed("standalone_query", cases)
