"""Wrong answers to drill 05, mechanism ``"citations and guardrail"``.

Each is a plausible ``guarded_answer(draft, chunks) -> (answer, cited_ids)``: read the
``[n]`` markers of ``draft``, map marker n to ``chunks[n - 1]``, and return
``(draft.strip(), cited ids)`` or ``(REFUSAL, [])`` (see
:mod:`kit.drills.citations_guardrail`). ``hint`` is a piece of the rubric's message for it.

They share :func:`_guard`, a correct guardrail over a list of marker numbers, so each
mistake changes one step: the pattern, the numbering, the refusal rule or the scan.
"""
from __future__ import annotations

import re

from kit.mistakes import mistake
from kit.rag.guardrail import REFUSAL

__all__ = ["ZeroBased", "PassesWithInvalidMarker", "PassesWithoutCitation", "MissesGroups",
           "CitesTwice", "SortsIds", "OneDigitOnly", "CrashesOnHugeNumber",
           "RescansAtEachBracket", "LooseGroup", "SharedIdsList"]

MECHANISM = "citations and guardrail"

_GROUP = re.compile(r"\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]")
_LIST = re.compile(r"\s*\d+(?:\s*,\s*\d+)*\s*")


def _number(digits: str) -> int:
    digits = digits.strip().lstrip("0") or "0"
    return int(digits) if len(digits) <= 9 else 10 ** 9


def _markers(draft: str, pattern: re.Pattern = _GROUP) -> list[int]:
    return [_number(d) for group in pattern.finditer(draft) for d in group.group(1).split(",")]


def _guard(draft: str, chunks, markers: list[int]) -> tuple[str, list[str]]:
    """The correct rule (not registered): refuse on any invalid marker or none valid."""
    if not draft.strip() or not markers or not all(1 <= n <= len(chunks) for n in markers):
        return REFUSAL, []
    return draft.strip(), list(dict.fromkeys(chunks[n - 1].id for n in markers))


@mistake(MECHANISM, "zero-based",
         what="maps marker n to chunks[n] and accepts 0 <= n < len(chunks)",
         why="every citation points at the next chunk, [0] passes and the last chunk can "
             "never be cited: the user is sent to the wrong source",
         hint="1-based")
def ZeroBased(draft, chunks):
    markers = _markers(draft)
    if not draft.strip() or not markers or not all(0 <= n < len(chunks) for n in markers):
        return REFUSAL, []
    return draft.strip(), list(dict.fromkeys(chunks[n].id for n in markers))


@mistake(MECHANISM, "passes-with-invalid-marker",
         what="drops the markers out of range and passes the draft if one valid marker "
              "is left",
         why="the sentence with [3] cites a chunk the model was never shown: an unsupported "
             "claim reaches the user looking cited",
         hint="names no shown chunk")
def PassesWithInvalidMarker(draft, chunks):
    return _guard(draft, chunks, [n for n in _markers(draft) if 1 <= n <= len(chunks)])


@mistake(MECHANISM, "passes-without-citation",
         what="passes a draft that has no marker at all (checks only the markers it finds)",
         why="an answer from the model's own memory, backed by no shown chunk, reaches the "
             "user: the guardrail does nothing",
         hint="no valid citation")
def PassesWithoutCitation(draft, chunks):
    markers = _markers(draft)
    if not draft.strip() or not all(1 <= n <= len(chunks) for n in markers):
        return REFUSAL, []
    return draft.strip(), list(dict.fromkeys(chunks[n - 1].id for n in markers))


@mistake(MECHANISM, "misses-groups",
         what="matches only single markers with \\[(\\d+)\\], so [1, 2] is not read",
         why="an answer cited as [1, 2] is refused, and one citing [1, 3] passes with its "
             "invalid [3] unseen",
         hint="a group like [1, 2] holds two markers")
def MissesGroups(draft, chunks):
    return _guard(draft, chunks, _markers(draft, re.compile(r"\[(\d+)\]")))


@mistake(MECHANISM, "cites-twice",
         what="lists a chunk id once per marker, repeats kept",
         why="the sources list shows the same article twice, and counts of cited chunks "
             "(for recall or a citation budget) are inflated",
         hint="cite each chunk once")
def CitesTwice(draft, chunks):
    answer, _ = _guard(draft, chunks, _markers(draft))
    if answer == REFUSAL:
        return REFUSAL, []
    return answer, [chunks[n - 1].id for n in _markers(draft)]


@mistake(MECHANISM, "sorts-ids",
         what="returns the cited ids sorted instead of in first-seen order",
         why="the sources no longer follow the answer: the first source shown is not the "
             "one the first sentence cites",
         hint="keep first-seen order")
def SortsIds(draft, chunks):
    answer, ids = _guard(draft, chunks, _markers(draft))
    return answer, sorted(ids)


@mistake(MECHANISM, "one-digit-only",
         what="matches one digit per marker (\\d instead of \\d+)",
         why="with ten or more chunks shown, [10] and [12] are not read: the answer is "
             "refused, or passes with a marker unchecked",
         hint="more than one digit")
def OneDigitOnly(draft, chunks):
    return _guard(draft, chunks, _markers(draft, re.compile(r"\[\s*(\d(?:\s*,\s*\d)*)\s*\]")))


@mistake(MECHANISM, "crashes-on-huge-number",
         what="converts every marker with int(digits), however many digits it has",
         why="a hostile answer with a marker of 5,000 digits raises ValueError (int() "
             "refuses more than 4,300 digits) and fails the turn instead of a refusal",
         hint="raised ValueError")
def CrashesOnHugeNumber(draft, chunks):
    markers = [int(d) for group in _GROUP.finditer(draft) for d in group.group(1).split(",")]
    return _guard(draft, chunks, markers)


@mistake(MECHANISM, "rescans-at-each-bracket",
         what="at each '[' walks forward character by character to the next ']', so an "
              "unclosed draft is rescanned from every bracket",
         why="quadratic: a long answer full of '[' (hostile, or a code dump) takes minutes "
             "to check and stalls the reply",
         hint="rescans the rest of the draft at each")
def RescansAtEachBracket(draft, chunks):
    markers = []
    for start, char in enumerate(draft):
        if char != "[":
            continue
        end = start + 1
        while end < len(draft) and draft[end] != "]":
            end += 1
        inside = draft[start + 1:end]
        if end < len(draft) and _LIST.fullmatch(inside):
            markers += [_number(d) for d in inside.split(",")]
    return _guard(draft, chunks, markers)


@mistake(MECHANISM, "loose-group",
         what="matches any bracket of digits, commas and spaces, \\[([\\d,\\s]+)\\], and "
              "splits it on commas and spaces, empty pieces dropped",
         why="[2,] or [1 2] in the text pass as citations: a draft the kit's parser reads "
             "as uncited reaches the user, and a stray bracket cites a chunk",
         hint="is not a marker: a group is whole numbers")
def LooseGroup(draft, chunks):
    markers = [_number(piece) for group in re.finditer(r"\[([\d,\s]+)\]", draft)
               for piece in re.split(r"[,\s]+", group.group(1)) if piece]
    return _guard(draft, chunks, markers)


_NO_IDS: list[str] = []


@mistake(MECHANISM, "shared-ids-list",
         what="returns one module-level empty list as the ids of every refusal",
         why="a caller that adds to the ids of one refusal (a fallback source, say) finds "
             "them in every later refusal: the sources shown are another answer's",
         hint="return a new list on every call")
def SharedIdsList(draft, chunks):
    answer, ids = _guard(draft, chunks, _markers(draft))
    return (REFUSAL, _NO_IDS) if answer == REFUSAL else (answer, ids)
