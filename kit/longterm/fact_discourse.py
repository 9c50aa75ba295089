"""What a sentence is doing: the discourse principles of the rule-based fact extractor.

:mod:`kit.longterm.fact_scope` decides whether a word is the speaker's and is denied;
these helpers decide what kind of event a sentence tells, or what it leans on across a
sentence boundary. Each is a principle of English, not a sentence shape, and each runs in
time linear in the sentence's length:

7. **Events that are not changes** (:func:`journey`, :func:`daily_departure`,
   :func:`distant_future`): "from Bergen to Oslo" is a move only when the sentence tells
   a move; with a word of travel ("flying", "a trip", "visiting") it is a journey and the
   home stays where it was. Leaving a workplace at a time of day ("I left the office early
   today", "left Acme Labs at six") is going home, not quitting. A change set at a far-off
   time ("next year", "eventually", "one day") is a plan, not yet a fact; a near one ("on
   Monday I start at ...") is an arrangement, told as done.
8. **Questions** (:func:`asked_change`): a change inside a question is asked about, not
   done ("Cancel #4411?", "Quit Acme Labs? Never."): its object is neither stated nor
   denied, unless the question embeds a statement ("Did I tell you I quit?") or
   presupposes one ("Do you mind me playing the cello?"). A question put to the
   listener may be answered by the next sentence ("Could you check the menu for
   sesame? I'm allergic.", "Have you tried kefir? I could drink it all day."): its
   allergen or preference is the speaker's when that sentence says so, undenied.
9. **Shouting** (:func:`recased`): a sentence written in capitals ("I LIVE IN LISBON"),
   or a word in one ("We moved to OSLO"), is read in ordinary case: a word English
   knows is lower case, one it does not know (a place, a surname) or an organisation's
   ("LABS", and the word before it) keeps a capital, so names are found as in any other
   sentence.
10. **Cataphora** (:func:`names_ahead`): a name with no cue word of its own takes the
   attribute of the next sentence when that sentence names the agent or the move and no
   name of its own ("Biscuit chewed another lead. I love my dog, but honestly.", "Did I
   tell you about Ana? She's my sister.", "Writing this from my new kitchen in Oslo! The
   move went fine."): a name not after a place's preposition for an agent's cue word, a
   place after "in" or "to" for a word of moving; not when that sentence is negated or
   its cue only wished ("Ana called. I'd love a dog.").
11. **Anaphora of a number** (:func:`bind_unnumbered`): an undoing that names no order
   number ("I cancelled it", "killed the order") after a turn named one ("Order #52?
   Gone. I cancelled it.") undoes that number, the nearest before it: one retraction,
   not a second one of an unnamed order.
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import replace

from kit.longterm.fact_lexicon import (AGENT_NAMES, CUES, DISTANT_FUTURE, EMBEDDING_VERBS,
                                       ORGANISATIONS, PREFERENCES)
from kit.longterm.fact_scope import Markers, clauses, denying_negation

__all__ = ["ALLERGY_ITSELF", "DISLIKE", "ME", "answered", "asked_change", "bind_unnumbered",
           "daily_departure", "distant_future", "journey", "names_ahead", "recased",
           "stated_ahead"]

# the speaker; a word of the allergy itself; a dislike (shared with fact_rules)
ME = re.compile(r"\b(?:i|me|my|mine|myself|we|us|our|ours)\b|\bi'|\belse\s+who\b", re.I)
ALLERGY_ITSELF = re.compile(r"\b(?:allerg\w*|react\w*|intoleran\w*|outgr\w*|gr[eo]w\w*\s+out)",
                            re.I)
DISLIKE = re.compile(r"\b(?:hat(?:e|es|ed|ing)|dislik(?:e|es|ed|ing)|detest(?:s|ed|ing)?|"
                     r"loath(?:e|es|ed|ing)|despis(?:e|es|ed|ing)|abhor(?:s|red)?)\b", re.I)

_TRAVEL = re.compile(
    r"\b(?:fl(?:y|ying|ies|ew|own)|flights?|driv(?:e|ing|es)|drove|trains?|buses|bus|ferry|"
    r"trips?|travel\w*|visit\w*|holidays?|vacation\w*|journey\w*|commut\w*|layover|"
    r"conference|road\s*trip|heading|headed|touring|sightseeing|tickets?|boarding|"
    r"return\s+flight|round\s+trip|get(?:ting)?\s+away|weekend\s+away)\b", re.I)
_MOVING = re.compile(r"\b(?:mov(?:e|ed|es|ing)|relocat\w*|emigrat\w*|settl\w*|live[sd]?|"
                     r"living|home|flat|apartment|house|lease|rent\w*|address|unpack\w*|"
                     r"packed\s+up|for\s+good|box(?:es)?|van|truck|removals?|movers|keys)\b",
                     re.I)


def journey(sentence: str) -> bool:
    """True if the sentence tells a journey, not a move: a word of travel and no word
    of living or moving ("I'm flying from Bergen to Oslo"; not "we drove everything to
    our new flat in Oslo")."""
    return _TRAVEL.search(sentence) is not None and _MOVING.search(sentence) is None


_DAILY = re.compile(r"\s+(?:\S+\s+){0,3}?(?:early|late|on\s+time|at\s+(?:\d|noon|lunch|"
                    r"midday|five|six|seven|eight)|for\s+(?:the\s+day|lunch|the\s+night|"
                    r"the\s+weekend|a\s+bit)|after\s+work|tonight|this\s+(?:morning|"
                    r"afternoon|evening))\b", re.I)
_LEFT = re.compile(r"left|leav(?:e|es|ing)", re.I)


def daily_departure(sentence: str, verb: re.Match) -> bool:
    """True if ``verb`` leaves a place for the day, not for good: "left" or "leave"
    followed within a few words by a time of day ("I left Acme Labs early today",
    "leaving the office at six")."""
    return _LEFT.fullmatch(verb.group()) is not None and _DAILY.match(
        sentence, verb.end()) is not None


_DISTANT = re.compile(r"\b(?:" + DISTANT_FUTURE + r")\b", re.I)


def distant_future(sentence: str, start: int, end: int) -> bool:
    """True if ``sentence[start:end]`` (a clause) is set at a far-off time ("We're moving
    to Oslo next year", "eventually I'll quit")."""
    return _DISTANT.search(sentence, start, end) is not None


_EMBEDS = re.compile(r"\b(?:" + EMBEDDING_VERBS + r")\s+(?:you\s+|u\s+)?(?:that\s+)?"
                     r"(?:i|we)\b", re.I)


def asked_change(sentence: str, question: bool) -> bool:
    """True if a change in this sentence is asked about, not done: the sentence is a
    question (``question``: it ends with "?") that embeds no statement of the speaker's
    ("Cancel #4411?"; not "Did I tell you I cancelled #4411?")."""
    return question and _EMBEDS.search(sentence) is None


_CAPS_WORD = re.compile(r"[A-Z][A-Z'\-]+")
_LOWER = re.compile(r"[a-z]")
_ORGANISATION_CAPS = {w.upper() for w in ORGANISATIONS}


@functools.lru_cache(maxsize=4096)
def _known(word: str) -> bool:
    from lemminflect import getAllLemmas       # loaded on first use
    return bool(getAllLemmas(word))


def recased(sentence: str) -> str:
    """The sentence in ordinary case where it is written in capitals. In a sentence all
    in capitals (no lower-case letter) a word English knows goes to lower case ("I"
    stays); in any sentence, a word in capitals that English does not know, or an
    organisation's last word and the word before it, gets one capital ("LISBON" ->
    "Lisbon", "NIMBUS LABS" -> "Nimbus Labs"); words of three letters or fewer that
    English does not know stay as they are ("OMG", "NYC"). The length is kept, so
    positions do not move."""
    shouting = _LOWER.search(sentence) is None
    words = list(_CAPS_WORD.finditer(sentence))
    if not words:
        return sentence
    out, last = [], 0
    for n, m in enumerate(words):
        word = m.group()
        after = words[n + 1].group() if n + 1 < len(words) else ""
        core = word.split("'")[0].lower()
        if word in _ORGANISATION_CAPS or (after in _ORGANISATION_CAPS
                                          and sentence[m.end():words[n + 1].start()] == " "):
            new = word.capitalize()
        elif _known(core) or core in {"i", "im", "ive"}:
            new = word.lower() if shouting else word
        elif len(core) <= 3:
            new = word
        else:
            new = word.capitalize()
        out += [sentence[last:m.start()], new if len(new) == len(word) else word]
        last = m.end()
    out.append(sentence[last:])
    text = "".join(out)
    return re.sub(r"\bi(?=\b|')", "I", text) if shouting else text


_AGENT_CUE = {a: re.compile(r"\b(?:" + CUES[a].replace(" ", "|") + r")\b", re.I)
              for a in AGENT_NAMES}
_MOVE_WORD = re.compile(r"\b(?:the\s+move|mov(?:e|ed|ing)|relocat\w*|unpack\w*|movers|"
                        r"moving\s+day|settl(?:ed|ing)\s+in|boxes|packing|removal\s+van)\b",
                        re.I)
_PLACE_BEFORE = re.compile(r"\b(?:in|to|into)\s+(?:the\s+)?$", re.I)


def names_ahead(sentence: str, before: str, names: list[tuple[int, str]]
                ) -> list[tuple[str, str, int]]:
    """``(attribute, name, cue position)`` for the names of the sentence ``before`` that
    had no attribute (``names``: their positions there and text) and that this
    ``sentence``, with a cue word and no name of its own, names (principle 10): the first
    such name not after a place's preposition takes the agent of this sentence's cue
    word ("my dog", "my sister"); a name after "in" or "to" takes the home city when this
    sentence tells the move."""
    people = [(p, n) for p, n in names if not _PLACE_BEFORE.search(before, max(0, p - 10), p)
              and n.rsplit(" ", 1)[-1] not in ORGANISATIONS]
    for attribute, cue in _AGENT_CUE.items():
        found = cue.search(sentence)
        if found and people:
            return [(attribute, people[0][1], found.start())]
    move = _MOVE_WORD.search(sentence)
    if move:
        for p, name in reversed(names):
            if _PLACE_BEFORE.search(before, max(0, p - 10), p) and \
                    name.rsplit(" ", 1)[-1] not in ORGANISATIONS:
                return [("home city", name, move.start())]
    return []


def stated_ahead(sentence: str, before: str, names: list[tuple[int, str]]
                 ) -> list[tuple[int, str, str, bool]]:
    """``(position, attribute, name, denied)`` of the names of the sentence ``before``
    that this one's cue word names (principle 10, :func:`names_ahead`), stated, when this
    sentence is real and not negated ("I'd love a dog", "the move isn't done" name
    nothing)."""
    markers, found = Markers(sentence), []
    for attribute, name, cue in names_ahead(sentence, before, names):
        if not (markers.hypothetical(cue, 0) or denying_negation(sentence, 0, len(sentence))
                is not None
                or (attribute not in AGENT_NAMES and markers.owner_is_other(cue))):
            found.append((0, attribute, name, False))
    return found


def answered(sentence: str, asked: list[tuple[int, str, str, bool]]
             ) -> list[tuple[int, str, str, bool]]:
    """The values of a question to the listener (``asked``: ``(position, attribute,
    value, denied)``) that this sentence answers about the
    speaker ("Could you check the menu for sesame? I'm allergic.", "Have you tried
    kefir? I could drink it all day."): an allergen when it says "allergic" undenied, a
    preference when the speaker takes it up by "it" or "them" with no dislike."""
    if not ME.search(sentence):
        return []
    ends, negations = clauses(sentence)

    def undenied(m: re.Match | None) -> bool:         # in a clause with no denial of its own
        return m is not None and negations[bisect.bisect_left(ends, m.start())] < 0

    allergic = undenied(ALLERGY_ITSELF.search(sentence))
    taken = undenied(re.search(r"\b(?:it|them)\b", sentence, re.I)) and not DISLIKE.search(
        sentence)
    return [(p, a, v, False) for p, a, v, no in asked if not no and (
        (a == "allergy" and allergic) or (a in PREFERENCES and taken))]


def bind_unnumbered(found: list) -> list:
    """``found`` (candidates, in the turn's order) with each undone order of no number
    bound to the nearest order number named before it in the turn (principle 11)."""
    bound: list = []
    named = -1                                   # the last numbered order's index in bound
    for c in found:
        if c.attribute == "open order" and c.negated and not c.value and named >= 0:
            bound[named] = replace(bound[named], negated=True)
            continue
        if c.attribute == "open order" and c.value:
            named = len(bound)
        bound.append(c)
    return bound
