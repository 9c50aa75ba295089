"""What a word of a turn is about: the scope principles of the rule-based fact extractor.

:mod:`kit.longterm.fact_rules` finds values and their attributes; these helpers decide
whether the speaker states them. Each is a principle of English, not a sentence shape,
and each runs in time linear in the sentence's length (markers are found in one pass
and looked up by position; any look-around is bounded):

1. **Negation scope** (:func:`denying_negation`): a negation denies only when it
   governs the link between the speaker and a value. Not when it governs an attitude
   or an intensifier (``NEGATED_ATTITUDES``: "can't believe", "couldn't be happier",
   "never been happier", "not bad"), a doubt ("wasn't sure about"), a failure ("hasn't
   let me down") or a change ("I wouldn't swap Lisbon for anywhere", "no way I'm
   quitting": not leaving is staying), nor when its subject is another agent
   (``AGENTS``: "the dog wouldn't come out", "she never calls"), nor in a clause set at
   an earlier time the sentence reverses (``EARLIER``: "at first", "a year ago"). A
   clause ends before "and" that opens a negated verb phrase of its own.
2. **Names** (:func:`ordinary_word`): a capitalised word that opens a sentence or a
   clause is a name only if English does not know it as anything but a noun: "Really",
   "Honestly", "Sunny", "Took" are not names, "Biscuit" and "Lisbon" may be; nor a verb
   before no verb ("Say hi to Rex", "Left work late": :func:`imperative`). The part of
   speech comes from the lemma dictionary of the ``lemminflect`` package (offline).
3. **Stored values** (a change that names only the old value) are read in
   :mod:`kit.longterm.fact_rules`, from the facts the memory hands it.
4. **Discourse** (:func:`refers_back`): a sentence with no value of its own that denies
   ("Not happening anymore.", "It's not happening.") or undoes a pronoun ("I pulled
   it.", "It's history.") is about the values of the sentence before.
5. **Whose fact** (:class:`Markers`): a value is the speaker's unless the last subject
   before it in its sentence is another agent ("my friend said she lives in Paris",
   "my boss, Sarah, loves espresso", "my sister lives in Leeds"); values said under a
   condition, a wish or a possibility (``HYPOTHETICAL``: "If I moved to Berlin", "I
   might move to Oslo") are not stated, except a preference (``PREFERENCES``: "if I
   could drink one thing, it'd be chai"); a yes/no question ("Should I move to
   Oslo?") states nothing but what it embeds ("Did I tell you I moved to Lisbon?") or
   presupposes ("Do you mind me playing the cello?"). What the speaker did not expect did
   happen: "I never thought I'd end up in Oslo" states Oslo.
   The name of an agent (``AGENT_NAMES``: the sister, the dog) is exempt: "she" and
   "he" are that agent.

The clauses of a sentence and the objects of change verbs (:func:`clauses`,
:func:`object_of`), which these principles read, are here too.
"""
from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable

from kit.longterm.fact_lexicon import (AGENTS, CANCEL_VERBS, CHANGE_VERBS, EARLIER,
                                       EMBEDDING_VERBS,
                                       HYPOTHETICAL, LEAVE_VERBS, NEGATED_ATTITUDES,
                                       QUESTION_OPENERS, SUBJECT_CHANGES)

__all__ = ["NEGATION", "UNREAL", "Markers", "asks", "clause", "clauses", "denying_negation",
           "first_word", "imperative", "known_word", "object_of", "ordinary_word", "refers_back"]

NEGATION = re.compile(r"\b(?:not(?!\s+(?:sure|only|just)\b)|never(?!\s+mind)|no\s+longer|no\s+way|"
                      r"no\s+more|any\s*more)\b|n't\b", re.I)
_FILLER = (r"(?:even|really|quite|ever|just|possibly|still|be|been|have|to|stop|honestly|"
           r"always|gets?|got|getting)")
_ATTITUDE = re.compile(r"\s*(?:" + _FILLER + r"\s+){0,3}(?:" + NEGATED_ATTITUDES + "|"
                       + CHANGE_VERBS + r")\b", re.I)
_AUX = (r"(?:ca|wo|ai|sha|do|does|did|is|are|was|were|has|have|had|would|could|should|will|"
        r"can|must|might|just|still|really|even|ever|'s|'d|'ll|'re)")
_AGENT_BEFORE = re.compile(r"\b(?:" + AGENTS + r")(?:'s|'d|'ll|'re)?(?:\s+" + _AUX + r")*\s*"
                           + _AUX + r"?$", re.I)
_WINDOW = 40                    # characters looked at before a negation for its subject
# a negation of a degree compares, it does not deny: "I don't play the cello as much as I'd
# like", "not often enough", "not that much"
_DEGREE = re.compile(r"\s+(?:[\w']+\s+){0,4}?(?:as\s+(?:much|often|well|many|good|regularly)|"
                     r"(?:often|much|well)\s+enough|that\s+(?:much|often|well)|very\s+(?:much|"
                     r"often|well))\b", re.I)


def denying_negation(sentence: str, start: int, end: int) -> re.Match | None:
    """The first negation of ``sentence[start:end]`` that denies (principle 1), or None."""
    for no in NEGATION.finditer(sentence, start, end):
        if _ATTITUDE.match(sentence, no.end()):
            continue                                     # "can't believe", "not bad"
        if _AGENT_BEFORE.search(sentence, max(start, no.start() - _WINDOW), no.start()):
            continue                                     # "he wouldn't", "the dog never"
        if _DEGREE.match(sentence, no.end(), end):
            continue                                     # "I don't play it as much as ..."
        return no
    return None


_PASSIVE = re.compile(r"(?:\b(?:is|was|are|were|be|been|being|got|gets|get)|'s)\s+(?:now\s+|"
                      r"just\s+|been\s+)?$", re.I)
_SUBJECT = re.compile(SUBJECT_CHANGES, re.I)
_PRONOUN = re.compile(r"\s*(?:it|them|that|this)\b", re.I)
UNREAL = re.compile(r"\b(?:not|never(?!\s+mind)|no\s+longer|no\s+way|if|unless|can|could|might|may|"
                     r"almost|nearly|"
                     r"would|should|will|shall|maybe|perhaps|in\s+case|wants?\s+to|"
                     r"thinking\s+(?:of|about)|"
                     r"plan(?:s|ning)?\s+to|going\s+to|tr(?:y|ies|ied|ying)\s+to)\b|n't\b|'ll\b",
                     re.I)
_TURN_BACK = re.compile(r"\b(?:without|refuse|resist|deny|help|wait|beat|imagine|enough|" +
                        CANCEL_VERBS + "|" + LEAVE_VERBS + r")\b", re.I)
# clauses end at punctuation, before "but", and before "and" that opens a negated verb
# phrase of its own ("waking up in Oslo and not hearing the trams": the negation is the
# hearing's, not the living's)
# ... and before a clause of purpose, whose negation is an outcome avoided ("wrote #52 down
# so I don't lose it", "in order not to forget"; not a result: "so I don't live there any
# more")
_CLAUSE_END = re.compile(r"[,;:()\u2013\u2014]|\s-\s|\s(?=(?:but|though|although|whereas)\b)|"
                         r"\s(?=(?:so|in\s+order)\s+(?:that\s+)?(?:(?:i|we)\s+(?:do|wo|ca|"
                         r"would|could)n't|(?:i|we)\s+never|as\s+not|not)\b"
                         r"(?![^,;.]{0,60}\bany\s*(?:more|longer)\b))|\s(?=lest\b)|"
                         r"\s(?=(?:and|yet)\s+(?:(?:i|i'm|we|we're|it|it's|still|just|even|"
                         r"really|honestly|now|so)\s+){0,2}(?:not|never|no\s+longer|"
                         r"(?:do|does|did|ca|can|could|wo|would|is|was|are|were|have|has|had)"
                         r"n't)\b)", re.I)
_OBJECT_WORD = re.compile(r"\S+")
# a determiner or a pronoun between a value and "is over", "is done": the subject is another
# noun phrase ("I've moved to Oslo now that the move is done")
_ANOTHER_NOUN = re.compile(r"\b(?:the|a|an|my|your|his|her|their|our|its|this|that|i|we|you|he|"
                           r"she|they|it)\b", re.I)
_EARLIER = re.compile(r"\b(?:" + EARLIER + r")\b", re.I)
_OBJECT_STOP = {"and", "but", "then", "so", "to", "for", "into", "because", "when", "while",
                "or", "i", "i'm", "i've", "we", "we're", "we've", "she", "he", "they", "who"}
_ADJECTIVE = re.compile(r"old|former|previous|ex", re.I)   # before their noun, never passive
_OBJECT_WORDS = 5               # at most this many words between a change verb and its object


def clauses(sentence: str) -> tuple[list[int], list[int]]:
    """``(clause ends, negations)``: where the negation that denies in each clause is
    (:func:`denying_negation`; -1 for none): one that no later
    negative word of the clause turns back, in a clause not set at an earlier time that
    the sentence then reverses (``EARLIER``: "I wasn't sure about Oslo at first, but
    ...")."""
    ends = [m.start() for m in _CLAUSE_END.finditer(sentence)] + [len(sentence)]
    negations, start = [], 0
    for end in ends:
        no = None if _EARLIER.search(sentence, start, end) else denying_negation(
            sentence, start, end)                   # "I wasn't sure about X at first"
        negations.append(no.start() if no is not None and _TURN_BACK.search(
            sentence, no.end(), end) is None else -1)
        start = end + 1
    return ends, negations


def clause(ends: list[int], position: int) -> tuple[int, int]:
    """``(start, end)`` of the clause holding ``position``."""
    c = bisect.bisect_left(ends, position)
    return (ends[c - 1] + 1 if c else 0), ends[c]


def object_of(sentence: str, verb: re.Match, starts: list[int], clause: tuple[int, int]
            ) -> int | None:
    """Index (in ``starts``, the values' positions) of the value a change verb ends, or
    None: its subject ("matcha is history"), a pronoun's antecedent, a value inside the
    verb ("put my cello down"), the first value in the next few words, or in the
    passive the value before the verb (never for an adjective: "Oslo's old town")."""
    before = bisect.bisect_left(starts, verb.start()) - 1
    if _SUBJECT.match(verb.group()):      # the subject: no other noun phrase between
        return before if before >= 0 and starts[before] >= clause[0] and not _ANOTHER_NOUN.search(
            sentence, starts[before] + 1, verb.start()) else None
    if _PRONOUN.match(sentence, verb.end()) or re.search(r"\s(?:it|them)\s", verb.group()):
        return before if before >= 0 else None
    if before + 1 < len(starts) and starts[before + 1] < verb.end():
        return before + 1                         # inside the verb: "put my cello down"
    limit = clause[1]
    for n, word in enumerate(_OBJECT_WORD.finditer(sentence, verb.end(), clause[1])):
        if n > _OBJECT_WORDS or word.group().lower().strip("'\"") in _OBJECT_STOP:
            limit = word.start()
            break
    i = bisect.bisect_left(starts, verb.end())
    if i < len(starts) and starts[i] < limit:
        return i
    if not _ADJECTIVE.fullmatch(verb.group()) and _PASSIVE.search(
            sentence, max(clause[0], verb.start() - 20), verb.start()):   # not "Oslo's old town"
        return before if before >= 0 and starts[before] >= clause[0] else None
    return None


@functools.lru_cache(maxsize=4096)
def ordinary_word(word: str) -> bool:
    """True if English knows ``word`` (case ignored) only as something other than a
    noun (an adverb, an adjective, a verb): "Really", "Sunny", "Took" (principle 2)."""
    from lemminflect import getAllLemmas       # loaded on first use (about 0.5 s)
    kinds = getAllLemmas(word.lower())
    return bool(kinds) and "NOUN" not in kinds and "PROPN" not in kinds


@functools.lru_cache(maxsize=4096)
def known_word(word: str) -> bool:
    """True if English knows ``word`` (case ignored) as any part of speech: "Dinner",
    "Biscuit"; not "Lisbon", "Ingrid"."""
    from lemminflect import getAllLemmas
    return bool(getAllLemmas(word.lower()))


@functools.lru_cache(maxsize=4096)
def imperative(word: str, following: str) -> bool:
    """True if ``word``, opening a sentence before the word ``following``, is a verb with
    no subject of its own: English knows it as a verb and the next word is not a verb's
    inflected form or an auxiliary ("Say hi to Rex", "Walk Rex", "Left work late"; not
    "Waffles chewed", "Pickles is"): an imperative or a dropped "I", not a name
    (principle 2)."""
    from lemminflect import getAllLemmas
    if not following or "VERB" not in getAllLemmas(word.lower()):
        return False
    low = following.lower()
    kinds = getAllLemmas(low)
    return "AUX" not in kinds and not any(lemma != low for lemma in kinds.get("VERB", ()))


_MARKER = re.compile(
    r"(?P<agent>\b(?:my|our|his|her|their|the|a|an)\s+(?:\w+\s+)?(?:" + AGENTS +
    r")(?:'s)?\b(?!\s+(?:(?:here|there|back\s+home)\s+)?(?:at|from|in|of|with|for|and|"
    r"or|to|on|about|by)\b)"                 # "my neighbours (here) in Oslo": a noun phrase
    r"|\b(?:he|she|they)\b|(?<!guess\s)\bwho\b)"   # not "her", "their"; "guess who" is me
    r"|(?P<me>\b(?:i|me|my|mine|myself|we|us|our|ours)\b|\bhere(?=\s+in\b))"  # here: mine
    r"|(?P<unreal>\b(?:" + HYPOTHETICAL.replace("may|", "(?-i:may)|") + r")\b"
    r"(?!\s+say\b))", re.I)                                 # "I'd say Bergen is home" states


# a role the speaker filled by joining: "I joined a band, they needed someone who plays the
# oboe", "signed up for a choir short of people who sing ..., so here I am" (principle 5)
_JOINED = re.compile(r"\b(?:i|we)(?:'ve|'d|\s+have|\s+had)?\s+(?:(?:just|recently|finally|"
                     r"also)\s+)?(?:joined|signed\s+up|enrolled|auditioned)\b|"
                     r"\bhere\s+i\s+am\b", re.I)
# ... and "else" counts the speaker in: "anyone else who works at Acme Labs?" (I do)
_ROLE = re.compile(r"\b(?:someone|somebody|people|anyone|anybody|players?|members?)\s+"
                   r"(else\s+)?who$", re.I)


# an invitation: the listener's visit to a place where the speaker offers a home is no
# condition on the place, it is where the speaker lives ("If you're ever passing through
# Oslo, there's a sofa at my flat")
_INVITED = re.compile(r"\bif(?=\s+you(?:'re|\s+are)?\s+(?:ever\s+)?(?:come|coming|pass|passing|"
                      r"in|around|visit|visiting|through|over|up|down|find\s+yourself)\b"
                      r"[^.!?]{0,80}?\b(?:my|our)\s+(?:place|flat|house|home|apartment|sofa|"
                      r"couch|spare\s+room|door)\b)", re.I)


# what the speaker did not expect did happen: the "would" after it is no wish
_SURPRISE = re.compile(r"\b(?:never|not|didn't|did\s+not)\s+(?:(?:have|ever|once|really)\s+)?"
                       r"(?:thought|imagined|expected|guessed|dreamed|dreamt|believed|pictured)"
                       r"\s+(?:that\s+)?(?:i|we)(?:'d|\s+would|\s+could)", re.I)


def _inside(spans: list[tuple[int, int]], position: int) -> bool:
    """True if ``position`` lies in one of ``spans`` (sorted, not overlapping)."""
    i = bisect.bisect_right(spans, (position, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= position < spans[i][1]


class Markers:
    """The subjects and the hypothetical words of one sentence, found once; then
    :meth:`owner_is_other` and :meth:`hypothetical` look a value's position up."""

    def __init__(self, sentence: str) -> None:
        self.subjects: list[tuple[int, bool]] = []       # (end, another agent's)
        self.unreal: list[int] = []
        joined = _JOINED.search(sentence) is not None
        for m in _MARKER.finditer(sentence):
            if m.group("unreal"):
                self.unreal.append(m.start())
            else:                  # "I joined a band short of someone who plays": my role
                role = _ROLE.search(sentence, max(0, m.start() - 15), m.end())
                role = role is not None and (joined or role.group(1) is not None)
                self.subjects.append((m.end(), m.group("agent") is not None and not role))
        self._ends = [e for e, _ in self.subjects]
        # "I never thought I'd end up in Oslo", "If you're ever in Oslo, my sofa's yours":
        # each pattern's spans do not overlap, so a bisection per word (linear, not the
        # product of spans and words)
        for pattern in (_SURPRISE, _INVITED):
            spans = [m.span() for m in pattern.finditer(sentence)]
            self.unreal = [u for u in self.unreal if not _inside(spans, u)]
        first = re.match(r"\s*(?:if|unless)\s+(?:i|we)\b", sentence, re.I)
        self.conditional = first is not None       # "If I moved to Berlin, I'd miss ..."

    def subject_end(self, position: int) -> int:
        """Where the last subject before ``position`` ends (-1 for none)."""
        i = bisect.bisect_right(self._ends, position) - 1
        return self._ends[i] if i >= 0 else -1

    def owner_is_other(self, position: int) -> bool:
        """True if the last subject before ``position`` is another agent."""
        i = bisect.bisect_right(self._ends, position) - 1
        return i >= 0 and self.subjects[i][1]

    def hypothetical(self, position: int, clause_start: int) -> bool:
        """True if a condition, wish or possibility comes before ``position`` in its
        clause, or the sentence opens with "if I" or "if we"."""
        i = bisect.bisect_left(self.unreal, position) - 1
        return self.conditional or (i >= 0 and self.unreal[i] >= clause_start)


_EMBEDDED = re.compile(r"\b(?:" + EMBEDDING_VERBS + r")\s+(?:you\s+|u\s+)?(?:that\s+)?"
                       r"(?:i|we)\b"
                       r"|\b(?:me|my|us|our)\s+\w+ing\b"   # "mind me playing": presupposed
                       r"|\belse\s+who\b"        # "anyone else who works at ...": I do
                       # a clause of time, cause or fact under the question is presupposed:
                       # "Do they mind when I play the cello?", "Is it odd that I'd pick chai?"
                       r"|\b(?:when|whenever|while|because|since|that)\s+(?:i|we)\b"
                       r"(?!\s+(?:should|could|might|may|ought|must|will|shall)\b)", re.I)
_FIRST_WORD = re.compile(r"\s*([\w']+)")
# discourse markers before a question's auxiliary ("Oh, by the way: could you ...?")
_LEAD = re.compile(r"\s*(?:(?:oh|so|hey|well|ok|okay|also|btw|anyway|quick\s+question|"
                   r"by\s+the\s+way|honestly|actually|um|hmm|news\s+from\s+me|and|but|"
                   r"seriously|listen|look|random\s+question|question)\b[\s,:;!\u2013\u2014-]*)*",
                   re.I)


def first_word(sentence: str) -> int:
    """Where the sentence's first word after its discourse markers ("Oh, by the way:",
    "So,") is: a question's auxiliary opens there."""
    return _LEAD.match(sentence).end()


def asks(sentence: str, question: bool) -> int | None:
    """For a yes/no question (``question``: it ends with "?" and opens with an
    auxiliary): the position from which it states something ("Did I tell you I moved
    ...", or what a gerund of the speaker's presupposes: "Do you mind me playing the
    cello?"), or len(sentence) when it states nothing. None for any other sentence."""
    first = _FIRST_WORD.match(sentence, first_word(sentence))
    if not question or first is None or first.group(1).lower() not in QUESTION_OPENERS:
        return None
    embedded = _EMBEDDED.search(sentence)
    return len(sentence) if embedded is None else embedded.end()


_BACK_NEGATION = re.compile(
    r"\s*(?:(?:no|nope|nah|well|so|oh|sadly|actually|yeah|and|but|honestly|yep)\W+)*"
    r"(?:(?:it|that|this)(?:'s|\s+is|\s+was|\s+will)?\s+)?(?:not|no\s+longer|never|isn't|"
    r"wasn't|won't|ain't)(?:\s+(?:really|even|so|actually|going\s+to|gonna|be))?"
    r"(?:\s*$|\s+(?:(?:happen|go|com|arriv|proceed|continu|ship)ing(?!\s+anywhere)|"  # staying
    r"any\s*more|any\s+longer|"
    r"longer|now|again|these\s+days|the\s+case|"
    r"true|a\s+thing|an\s+option|on|off|for\s+(?:me|us)|(?:my|our)\s+thing|needed|wanted|"
    r"valid|open)\b)", re.I)
_BACK_SUBJECT = re.compile(r"\b(?:it|that|this)(?:'s|\s+is|\s+was)\s+(?:now\s+)?(?:all\s+)?"
                           r"(?:history|gone|done|over|finished|off|cancell?ed|dead)\b", re.I)
_CHANGE_PRONOUN = re.compile(r"\b(?:(?:" + CHANGE_VERBS + r")\s+(?:it|that|them|this)\b|"
                             r"\w+\s+(?:it|them)\s+(?:up|off|back)\b)", re.I)


def refers_back(sentence: str, real: Callable[[int], bool]) -> bool:
    """True if a sentence with no value of its own denies or undoes the values of the
    sentence before (principle 4): it opens with a denying negation with no subject but
    "it"/"that" and no object of its own, only an event's participle (happening, going,
    coming, arriving, ...) or a word of time ("Not happening anymore.", "It's not going
    ahead."; not "Not much news.", "Not complaining.", "Not working today."), says "it's
    history/over", or a real change
    verb takes a pronoun ("I pulled it"). ``real(position)``: the change at that
    position is not negated or only possible."""
    opening = _BACK_NEGATION.match(sentence)
    if opening is not None and denying_negation(sentence, opening.start(), len(sentence)):
        return True
    if _BACK_SUBJECT.search(sentence):
        return True
    return any(real(m.start()) for m in _CHANGE_PRONOUN.finditer(sentence))
