"""The patterns of the rule-based extractor's later rules (:mod:`kit.longterm.fact_rules`
reads them as ``pat.NAME``): whose a value is, which name is a value, what a negation or a
change reaches. Each is a small regular expression of general English, stated in the
comment above it and in ``docs/fact_memory.md``; each looks at a bounded window or is
searched once per sentence, so the extractor stays linear in a turn's length.
"""
from __future__ import annotations

import re

from kit.longterm.fact_lexicon import AGENTS, CAPITALS, SMALL_LETTERS

__all__ = ["ACTS", "ALONE", "APPOSITION", "BARE_UNDO", "BRANCH", "CLAUSE_OPENS", "COMPARED",
           "NAMED", "NAME_WORD", "NO_CUE", "no_cue", "NOW", "ORDER_DENIED", "OTHERS_POSSESSION",
           "OTHER_AGENT", "PART_OF_TOWN", "PLACE", "REGION", "SOMEONE_ORDERED",
           "THEIR_ALLERGY", "THEIR_ORDER", "UNDOES_ONLY"]

# a cue word that names no fact of the speaker's: a job title after a possessive is another
# person's job ("my teacher says", "her piano teacher"; searched ending at the cue's end),
# "living" in a compound noun is a room ("the living room"; matched at the cue), and
# joining a group of leisure is no job ("joined a choir", "joined an amateur group")
NO_CUE = re.compile(r"\b(?:my|our|your|his|her|their)\s+(?:\w+\s+)?(?:analyst|engineer|"
                    r"developer|designer|nurse|teacher|accountant|consultant|editor|"
                    r"researcher|scientist|lawyer|architect|programmer|clerk|cashier)$|"
                    r"living\s+rooms?\b|join(?:s|ed|ing)?\s+(?:[\w-]+\s+){0,3}(?:band|"
                    r"orchestra|choir|ensemble|club|gym|quartet|trio|class|amateur)\b", re.I)


def no_cue(sentence: str, start: int, end: int) -> bool:
    """True if the cue word at ``sentence[start:end]`` names no fact of the speaker's
    (:data:`NO_CUE`): bounded windows, so linear over a sentence's cues."""
    return bool(NO_CUE.match(sentence, start) or NO_CUE.search(sentence, max(0, start - 24), end))


# another's order: "her order", "Leo's order" (not "it's order", "mine's order": my one is)
THEIR_ORDER = re.compile(r"\b(?:(?i:his|her|their)|(?!(?:It|That|This|What|Here|There|Who|"
                         r"Where|Order|Number|Mine)'s)[A-Z][a-z]+'s|(?i:friend|sister|brother|mum|"
                         r"mom|dad|partner|husband|wife|boss|colleague|neighbou?r|flatmate|"
                         r"roommate)'s)\s+(?:\w+\s+)?(?i:orders?|purchases?)\b")
# the second term of a comparison of preference is the one not preferred: "kefir over
# matcha", "more than matcha", "I prefer kefir to matcha"
COMPARED = re.compile(r"(?:\bover|\b(?:more|better|rather|sooner)\b[^,;:.]{0,30}?\bthan|"
                      r"\bprefer\w*\s+\S+\s+to)\s+"
                      r"(?:(?:my|the|any|good|old|plain|boring|usual)\s+){0,2}$", re.I)
# a negation denies an order only when it is about the order itself: its coming, the need
# for it ("#4411 isn't coming", "don't need #4411 any more"), not its tracking or delivery
ORDER_DENIED = re.compile(r"\b(?:com|happen|arriv|go|ship|need|want|proceed)\w*\b|"
                          r"\b(?:any\s*more|no\s+more|any\s+longer|no\s+longer|after\s+all|"
                          r"valid|on|open|real|mine)\b", re.I)
# a verb that only undoes a purchase (cancel, forget, return) cures no allergy
UNDOES_ONLY = re.compile(r"\b(?:cancel\w*|forg[eo]t\w*|return\w*|refund\w*|scrap\w*|"
                         r"drop\w*|ditch\w*|abandon\w*)\b", re.I)
# a sentence that is only a change, its subject and object left out, is about the sentence
# before: "#4411? Cancelled.", "Matcha? Gone."
BARE_UNDO = re.compile(r"\s*(?:(?:all|totally|completely|officially|just|now|long)\s+)?"
                       r"(?:cancell?ed|refunded|returned|scrapped|gone|history|dead|"
                       r"ditched|dropped)\s*", re.I)
# another's possession before an agent's cue word: "my sister's dog", "her dog", "Tom's sister"
OTHERS_POSSESSION = re.compile(
    r"(?:\b(?:his|her|their|your)|\b(?!(?:it|he|she|that|what|who|there|here|where|how|let|"
    r"this|one|everyone)'s\b)([\w-]+)'s)\s+(?:(?!(?:my|our)\b)[\w-]+\s+){0,2}$", re.I)
# a city before "office", "team", "branch": a place of the company, not the company
BRANCH = re.compile(r"\s+(?:office|offices|branch|team|site|campus|headquarters|hq)\b", re.I)
# someone else bought the order: "Leo ordered #9999", "she bought it, #9999"
SOMEONE_ORDERED = re.compile(r"\b(he|she|they|[A-Z][a-z]+)\s+(?:just\s+|also\s+)?(?:ordered|"
                             r"bought|placed|purchased)\b")
# a name opening a clause after a stored value was left takes its attribute: "Bergen is
# behind us, Oslo ahead"
CLAUSE_OPENS = re.compile(r"(?:,|\band|\bbut|\bso)\s+$", re.I)
# another agent's noun right before a name: the name is that agent's ("her husband Mark")
OTHER_AGENT = re.compile(r"\b(" + AGENTS + r")(?:\s+(?:called|named))?,?\s+$", re.I)
# ... or a name said with "now" in its clause: "We're Oslo folks now, not Bergen folks"
NOW = re.compile(r"\b(?:now|these\s+days|nowadays|from\s+now\s+on)\b", re.I)
# a negated verb of action right after a value: the value acts, its link to the speaker
# is not denied (not "be", "feel", "seem": "Oslo doesn't feel like home")
ACTS = re.compile(r"(?:'s)?\s+(?:(?:really|just|still|even|honestly)\s+)?(?:(?:do|does|did|has|"
                  r"have|had|can|could|will|would|wo|ca)n't|(?:does|did|has|will|would)\s+not|"
                  r"never)"
                  r"\s+(?!(?:be|been|feel|felt|seem|seemed|look|looked|suit|feels|seems|looks|"
                  r"suits|is|was)\b)[a-z]+", re.I)
# a name after "named" or "called": an agent's name, not a place
NAMED = re.compile(r"\b(?:nam(?:ed|e)|call(?:ed)?)\s+(?:(?:him|her|it|them|the\s+\w+)\s+)?$", re.I)
# a name, then ", my (adjectives) cue": the cue after the comma is the name's
APPOSITION = re.compile(r"(?:'s)?\s*[,(]\s*(?:my|our|the|a|his|her)\s+(?:[\w-]+\s+){0,3}")
NAME_WORD = re.compile(r"\bname(?:'s|\s+is|\s+was)?\s*$", re.I)     # "his name isn't Rex"
# the other agent is the allergic one: "my sister is allergic to", "he has an allergy to"
THEIR_ALLERGY = re.compile(r"\b(?:is|was|are|'s|has|have|had|gets?|got|reacts?|reacted)\s+"
                           r"(?:\w+\s+)?(?:allergic|an?\s+(?:\w+\s+)?allergy|intolerant)", re.I)
# a name after a place's preposition is a place: a home city or nothing, never a person's,
# a pet's or (without an organisation word) a company's
PLACE = re.compile(r"\b(?:in|near|outside|around|based\s+in)\s+(?:the\s+)?$", re.I)
PART_OF_TOWN = re.compile(r"\s+(?:neighbou?rhood|district|area|quarter|suburb|side|borough|"
                          r"street|road|avenue|park)\b", re.I)
# a place after a place and a comma is its region: "Oslo, Norway"
REGION = re.compile(f"([{CAPITALS}][{SMALL_LETTERS}]+),\\s+$")
# a name that is the whole sentence, or with "it is", "now": the answer the sentence
# before asked for ("Guess where we live now? Oslo!", "Moved! Oslo it is.")
ALONE = re.compile(f"[{CAPITALS}][{SMALL_LETTERS}]+(?:[ -][{CAPITALS}][{SMALL_LETTERS}]+)*"
                   r"(?:\s+(?:it\s+is|it's|now|baby|here\s+we\s+come|for\s+the\s+win))?\s*")
