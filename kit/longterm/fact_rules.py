"""Candidate facts from a turn: a rule-based extractor, and a model extractor with it as fallback.

:func:`extract_by_rules` reads a turn sentence by sentence, in time linear in its length,
from small lexicons of general language, not from sentence shapes (the words may come in
any order):

- **values**: a word of an attribute's value list (:data:`ATTRIBUTES`: an allergen, a
  drink, an instrument, a car make), an order number (``#4411``), or a capitalised name
  (not a common sentence opener, :data:`COMMON_WORDS`) in a sentence holding a word of a
  name-valued attribute (:data:`CUES`: "live", "moved", "flat" for the home city; "job",
  "hired", "notice", "company" for the employer; "sister"; "dog"): the name takes the
  attribute of the cue word nearest to it, so "My sister and I moved to Lisbon" gives a
  home city, not a sister's name; one name per attribute and sentence, the last one not
  denied (an earlier one is the value being left);
- **denial**, of two kinds. A *negation* ("not", "n't", "never", "no longer", "no more",
  "anymore") denies the values of its clause (clauses end at , ; : and before "but",
  "though"), unless a second negative after it turns it back ("can't start the day
  without", "couldn't resist"). A *change verb* (:data:`CHANGE_VERBS`: cancel, call off,
  scrap, drop, return, send back, refund, quit, leave, resign, give up, go off, stop,
  used to, instead of, switch from, goodbye ...) denies its object: the first value at
  most five words after it in the clause, before any "and", "to", "for" or new subject;
  in the passive ("#4411 is cancelled") the value before it in the clause; with a
  pronoun object ("call it off") the nearest value before it in the sentence. A change
  verb under a negation changes nothing ("I haven't cancelled it");
- an **allergy** is denied only when the denial is about the allergy itself ("no longer
  allergic", "outgrew"): "I can't eat sesame any more" states the allergy;
- the subject is the turn's speaker (or "user").

It is a heuristic: it reads what its lexicons name. It was first written against the
development templates of :mod:`kit.synthetic_changes`, then rewritten on general
principles after the blind templates showed what it missed (so those are development
data now); the ``blind-2`` templates measure how far it carries. :func:`extract_with_model`
asks a model for a JSON list of candidates (:data:`EXTRACT_PROMPT`) and falls back on
the rules when the reply is unusable; :func:`extractor_stub` is an offline model that
answers with the rules' result.
"""
from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from dataclasses import replace

from kit.longterm.facts import Candidate

__all__ = ["ATTRIBUTES", "CANCEL_VERBS", "CHANGE_VERBS", "COMMON_WORDS", "CUES", "EXTRACT_PROMPT",
           "ORGANISATIONS", "extract_by_rules", "extract_with_model", "extractor_stub", "parse_candidates"]

# attribute -> (holds many values at once, word list or None for a capitalised name)
ATTRIBUTES = {
    "home city": (False, None),
    "employer": (False, None),
    "sister's name": (False, None),
    "dog's name": (False, None),
    "allergy": (True, ("shellfish", "sesame", "hazelnuts", "kiwis", "peanuts", "penicillin",
                       "latex", "strawberries")),
    "favourite drink": (False, ("matcha", "kombucha", "chai", "espresso", "lemonade", "kefir",
                                "horchata", "cocoa")),
    "instrument": (False, ("cello", "bassoon", "ukulele", "harpsichord", "oboe", "banjo")),
    "car": (False, ("Volvo", "Citroen", "Skoda", "Subaru")),
    "open order": (True, None),
}
# name-valued attribute -> the words (with their inflections) that say a name is its value
CUES = {
    "sister's name": "sister sisters sis",
    "dog's name": "dog dogs doggy puppy puppies pup pooch",
    "employer": "job jobs work works worked working workplace employer employers employed "
                "employee employment hire hires hired hiring join joins joined joining offer "
                "offered company companies firm firms boss manager colleague colleagues "
                "coworker coworkers office notice resign resigned resigning quit quitting "
                "career position role contract salary payroll promoted promotion interview "
                "internship onboarding shift shifts fired first.day first.week last.day started.at "
                "starting.at start.at signed.with laid.off analyst engineer developer designer "
                "nurse teacher accountant consultant editor researcher scientist lawyer "
                "architect programmer intern clerk cashier jumped.ship taken.on day.one",
    "home city": "live lives lived living life.in home house flat apartment move moves moved "
                 "moving mover movers relocate relocates relocated relocating relocation "
                 "settle settles settled settling based neighbourhood neighborhood neighbours "
                 "neighbors address resident rent rents rented renting lease landlord unpack "
                 "unpacked unpacking hometown emigrated new.place put.down.roots packed.up",
}
# last words that make a name an organisation's (so an employer, never a city or a pet)
ORGANISATIONS = set("""
Labs Lab Laboratories Press Robotics Foods Studios Studio Clinic Analytics Bank Inc Ltd LLC
Group Corp Corporation Company Co Industries Systems Solutions Technologies Tech Partners
Associates Consulting Media Software Hospital University College School Agency Holdings
Capital Ventures Bakery Cafe Restaurant Motors Airlines Pharma Health Energy Logistics
Networks Games Publishing Records Insurance Finance Design Works Foundation Institute
""".split())
# verbs (and phrases) that undo a purchase: an order number in their sentence is undone
CANCEL_VERBS = (
    r"cancel(?:s|led|ed|ling|ing)?|cancellation|call(?:s|ed|ing)?\s+(?:it\s+|them\s+)?off|"
    r"scrap(?:s|ped|ping)?|drop(?:s|ped|ping)?(?!\s+(?:by|in)\b)|"
    r"return(?:s|ed|ing)?(?!\s+(?:to|from|home)\b)|"
    r"(?:send|sends|sent|sending|take|took|taking)\s+(?:\S+\s+){0,3}?back|"
    r"(?:went|go|goes|going|gone)\s+back|money\s+back|refund(?:s|ed|ing)?|"
    r"withdr[ae]w|backed\s+out\s+of|pulled\s+the\s+plug\s+on|ditch(?:ed|ing)?|nix(?:ed|ing)?")
# verbs (and phrases) that end or undo what their object names
CHANGE_VERBS = CANCEL_VERBS + (
    r"|quit(?:s|ting)?|left|leav(?:e|es|ing)|resign(?:s|ed|ing)?(?:\s+from)?|"
    r"hand(?:s|ed|ing)?\s+in\s+(?:my\s+|her\s+|his\s+)?notice(?:\s+at)?|last\s+day\s+at|"
    r"(?:gave|give|given|giving)\s+up(?:\s+on)?|(?:gone|went|go|going)\s+(?:\w+\s+)?off|"
    r"(?:am|'m|is|are|'re)\s+off|"
    r"stop(?:s|ped|ping)?|used\s+to|instead\s+of|rather\s+than|in\s+place\s+of|"
    r"switch(?:ed|ing)?\s+(?:away\s+)?from|swap(?:s|ped|ping)?|trad(?:e|es|ed|ing)|"
    r"replac(?:e|es|ed|ing)(?!\s+(?:by|with)\b)|old|former|previous|ex|"
    r"moved\s+(?:away\s+from|out\s+of|on\s+from)|(?:said\s+)?goodbye(?:\s+to)?|farewell(?:\s+to)?|"
    r"(?:tired|sick|bored)\s+of|fed\s+up\s+with|done\s+with|outgr(?:ew|own)|"
    r"gr(?:ew|own)\s+out\s+of")
# sentence openers and other capitalised words that are never a name
COMMON_WORDS = set("""
I I'm I've My Me Mine We We're We've Our Us You Your He She His Her They Their It Its The A An
This That These Those There Here Some Any No Not Yes Yeah Nope Okay Ok OK And But So Or Then
Also Just Still Finally Anyway Anyhow Well Oh Ah Ugh Yay Wow Hey Hi Hello Guess News Update
Quick Big Little Good Great Bad Sad Happy Honestly Actually Basically Seriously Luckily Sadly
Apparently Officially Surprisingly Weirdly Obviously Today Tonight Yesterday Tomorrow Last Next
Now Soon Since After Before When Where What Why How Who Which If As At In On For From To With
Of By About Into Turns Had Have Has Got Get Went Did Do Does Was Were Is Are Am Been Said
Talked Took Started Ended Changed Practised Practiced Can Can't Could Would Should Will Must
Might Spent Made Found Let Life Home New Old Work Job Sister Dog Mom Mum Dad Doctor Boxes
Everything Nothing Something Never Always Thanks Sorry Please Fun Long Short Ended Bought
Placed Ordered Dear Also Plus Even Only Maybe Perhaps First Second Third Another Other Every
Most Much Many Own Such Same Whole Live Moved Moving Living Still Loving Love Missing Miss
January February March April May June July August September October November December
Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mr Mrs Ms Dr Fair Tell Take Ha Haha
Lol Cheers Congrats Congratulations Nice Cool Sure Right True Exactly Absolutely Definitely
""".split())
EXTRACT_PROMPT = ("List the facts the speaker states or denies about themselves in the "
                  "turn below, as a JSON list of objects {\"attribute\", \"value\", "
                  "\"negated\"}; attributes: " + ", ".join(ATTRIBUTES) + ".\n")


def _alternation(words) -> str:
    return "|".join(sorted((re.escape(w).replace(r"\.", r"\s+") for w in words), key=len,
                           reverse=True))


_WORDS = {word.lower(): attribute for attribute, (_, words) in ATTRIBUTES.items() if words
          for word in words}
_CANONICAL = {word.lower(): word for _, words in ATTRIBUTES.values() if words for word in words}
_WORD = re.compile(r"\b(?:" + _alternation(_WORDS) + r")\b", re.I)
_CUE_OF = {" ".join(w.split(".")): a for a, words in CUES.items() for w in words.split()}
_CUE = re.compile(r"\b(?:" + _alternation(w.replace(" ", ".") for w in _CUE_OF) + r")\b", re.I)
_CHANGE = re.compile(r"\b(?:" + CHANGE_VERBS + r")\b", re.I)
_CANCEL = re.compile(r"\b(?:" + CANCEL_VERBS + r")\b", re.I)
_PASSIVE = re.compile(r"(?:\b(?:is|was|are|were|be|been|being|got|gets|get)|'s)\s+(?:now\s+|"
                      r"just\s+|been\s+)?$", re.I)
_PRONOUN = re.compile(r"\s*(?:it|them|that|this)\b", re.I)
_NEGATION = re.compile(r"\b(?:not(?!\s+(?:sure|only|just)\b)|never(?!\s+mind)|no\s+longer|no\s+more|any\s*more)\b|n't\b",
                       re.I)
_UNREAL = re.compile(r"\b(?:not|never(?!\s+mind)|no\s+longer|if|unless|can|could|might|may|would|should|"
                     r"will|shall|maybe|perhaps|in\s+case|wants?\s+to|thinking\s+(?:of|about)|"
                     r"plan(?:s|ning)?\s+to|going\s+to|try(?:ing)?\s+to)\b|n't\b|'ll\b", re.I)
_ORDER_WORD = re.compile(r"\b(?:orders?|purchases?|deliver(?:y|ies))\b", re.I)
_TURN_BACK = re.compile(r"\b(?:without|refuse|resist|deny|help|wait|beat|imagine|" +
                        CHANGE_VERBS + r")\b", re.I)
_ALLERGY_ITSELF = re.compile(r"\b(?:allerg\w*|react\w*|intoleran\w*|outgr\w*|gr[eo]w\w*\s+out)",
                             re.I)
_ELLIPSIS = re.compile(r"\s*(?:(?:no|nope|nah)\W+)?(?:not|no)\s+(?:any\s*more|any\s*longer|"
                      r"longer|more|now|these\s+days)\s*", re.I)
_AT = re.compile(r"\b(?:at|for|with|by|joined)\s+(?:the\s+)?$", re.I)
_ORDER = re.compile(r"#[0-9]{3,8}\b")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b")
_SENTENCE = re.compile(r"[^.!?]+")
_CLAUSE_END = re.compile(r"[,;:()\u2013\u2014]|\s-\s|\s(?=(?:but|though|although|whereas)\b)",
                         re.I)
_OBJECT_WORD = re.compile(r"\S+")
_OBJECT_STOP = {"and", "but", "then", "so", "to", "for", "into", "because", "when", "while",
                "or", "i", "i'm", "i've", "we", "we're", "we've", "she", "he", "they", "who"}
_OBJECT_WORDS = 5               # at most this many words between a change verb and its object


def _clauses(sentence: str) -> tuple[list[int], list[bool]]:
    """``(clause ends, negated)``: a clause is negated by a negation that no later
    negative word of the clause turns back."""
    ends = [m.start() for m in _CLAUSE_END.finditer(sentence)] + [len(sentence)]
    negated, start = [], 0
    for end in ends:
        no = _NEGATION.search(sentence, start, end)
        negated.append(no is not None and _TURN_BACK.search(sentence, no.end(), end) is None)
        start = end + 1
    return ends, negated


def _clause(ends: list[int], position: int) -> tuple[int, int]:
    """``(start, end)`` of the clause holding ``position``."""
    c = bisect.bisect_left(ends, position)
    return (ends[c - 1] + 1 if c else 0), ends[c]


def _object(sentence: str, verb: re.Match, starts: list[int], clause: tuple[int, int]
            ) -> int | None:
    """Index (in ``starts``) of the value a change verb ends, or None (see the module
    docstring): a pronoun's antecedent, the first value in the next few words, or in the
    passive the value before the verb."""
    if _PRONOUN.match(sentence, verb.end()) or re.search(r"\s(?:it|them)\s", verb.group()):
        i = bisect.bisect_left(starts, verb.start()) - 1
        return i if i >= 0 else None
    limit = clause[1]
    for n, word in enumerate(_OBJECT_WORD.finditer(sentence, verb.end(), clause[1])):
        if n > _OBJECT_WORDS or word.group().lower().strip("'\"") in _OBJECT_STOP:
            limit = word.start()
            break
    i = bisect.bisect_left(starts, verb.end())
    if i < len(starts) and starts[i] < limit:
        return i
    if _PASSIVE.search(sentence, max(clause[0], verb.start() - 20), verb.start()):
        i = bisect.bisect_left(starts, verb.start()) - 1
        return i if i >= 0 and starts[i] >= clause[0] else None
    return None


def _names(sentence: str, stop: set[str]) -> list[tuple[str, int]]:
    """Every capitalised run of the sentence, its leading common words, cue words and
    speakers (``stop``) left out: ``(name, position)`` in order."""
    found = []
    for match in _NAME.finditer(sentence):
        words, start, i = match.group().split(" "), match.start(), 0
        while i < len(words) and (words[i] in stop or words[i].lower() in _CUE_OF):
            start += len(words[i]) + 1
            i += 1
        if i < len(words) and words[i].lower() not in _WORDS:
            found.append((" ".join(words[i:]), start))
    return found


def _sentence(sentence: str, stop: set[str], topic: str | None
              ) -> tuple[list[tuple[int, str, str, bool]], str | None]:
    """``(position, attribute, value, denied)`` of one sentence, in order, and the
    attribute of its last cue word. ``topic``: the previous sentence's, the attribute of
    the names of a sentence with no cue word ("Got a new job! I'm at Oakridge Bank.")."""
    values = [(m.start(), _WORDS[m.group().lower()], _CANONICAL[m.group().lower()])
              for m in _WORD.finditer(sentence)]
    values += [(m.start(), "open order", m.group()) for m in _ORDER.finditer(sentence)]
    cues = [(m.start(), _CUE_OF[" ".join(m.group().lower().split())])
            for m in _CUE.finditer(sentence)]
    where = [p for p, _ in cues]
    for name, p in _names(sentence, stop):
        if name.rsplit(" ", 1)[-1] in ORGANISATIONS and (cues or topic or _AT.search(
                sentence, max(0, p - 6), p)):
            values.append((p, "employer", name))
        elif cues:
            i = bisect.bisect_left(where, p)
            near = min((c for c in (i - 1, i) if 0 <= c < len(cues)),
                       key=lambda c: abs(where[c] - p))
            values.append((p, cues[near][1], name))
        elif topic is not None and sentence[:p].strip():   # not the first word: "Fair enough!"
            values.append((p, topic, name))
    values.sort()
    ends, negated = _clauses(sentence)
    clause_of = [bisect.bisect_left(ends, p) for p, _, _ in values]
    denied = [negated[c] for c in clause_of]
    starts = [p for p, _, _ in values]
    unreal: dict[int, int] = {}        # clause -> where its first negation or "if", "might" is

    def real(position: int) -> bool:   # a change at ``position`` is not "I haven't", "I might"
        c = bisect.bisect_left(ends, position)
        if c not in unreal:
            start, end = _clause(ends, position)
            found = _UNREAL.search(sentence, start, end)
            unreal[c] = end if found is None else found.start()
        return position <= unreal[c]

    for verb in _CHANGE.finditer(sentence):
        if real(verb.start()):
            i = _object(sentence, verb, starts, _clause(ends, verb.start()))
            if i is not None:
                denied[i] = True
    cancelled = any(real(m.start()) for m in _CANCEL.finditer(sentence))
    if cancelled and "open order" not in [a for _, a, _ in values] and _ORDER_WORD.search(sentence):
        values.append((len(sentence), "open order", ""))     # "I cancelled my order"
        denied.append(True)
        clause_of.append(len(ends) - 1)
    out, itself = [], {}
    for (p, attribute, value), no, c in zip(values, denied, clause_of):
        no = no or (cancelled and attribute == "open order")
        if no and attribute == "allergy":   # avoiding an allergen states the allergy
            if c not in itself:
                itself[c] = _ALLERGY_ITSELF.search(sentence, *_clause(ends, p)) is not None
            no = itself[c]
        out.append((p, attribute, value, no))
    keep = {}                  # name-valued: the last value not denied, else the last denied
    for k, (_, attribute, _, no) in enumerate(out):
        if ATTRIBUTES[attribute][1] is None and attribute != "open order":
            if attribute not in keep or not no or out[keep[attribute]][3]:
                keep[attribute] = k
    return [v for k, v in enumerate(out)
            if ATTRIBUTES[v[1]][1] is not None or v[1] == "open order" or keep[v[1]] == k
            ], (cues[-1][1] if cues else None)


def extract_by_rules(text: str, speaker: str = "user", *, source: tuple[int, ...] = (),
                     when: str = "", speakers: tuple[str, ...] = ()) -> list[Candidate]:
    """Candidate facts of one turn (see the module docstring), in the order they are
    said. ``speaker``: the subject; ``source``: the turn's message numbers; ``when``:
    its ISO date; ``speakers``: names never taken as values. Raises TypeError for a
    ``text`` that is not a str."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    stop, found, topic, last = COMMON_WORDS | set(speakers) | {speaker}, [], None, 0
    for match in _SENTENCE.finditer(text):
        said, topic = _sentence(match.group(), stop, topic)
        if not said and _ELLIPSIS.fullmatch(match.group()):      # "Matcha? Not anymore."
            found[last:] = [replace(c, negated=True) for c in found[last:]]
            continue
        last = len(found)
        for _, attribute, value, denied in said:
            found.append(Candidate(speaker, attribute, value, denied, ATTRIBUTES[attribute][0],
                                   source, when))
    return found


def parse_candidates(reply: object, speaker: str, source: tuple[int, ...] = (),
                     when: str = "") -> list[Candidate]:
    """A model's JSON list of ``{"attribute", "value", "negated"}`` as candidates.
    Raises ValueError for a reply that is not such a list (an unknown attribute, a
    value that is not a str)."""
    try:
        items = json.loads(reply) if isinstance(reply, str) else None
    except ValueError as exc:
        raise ValueError(f"the extractor's reply is not JSON: {reply!r:.60}") from exc
    if not isinstance(items, list):
        raise ValueError(f"the extractor's reply must be a JSON list, got {reply!r:.60}")
    found = []
    for item in items:
        if (not isinstance(item, dict) or item.get("attribute") not in ATTRIBUTES
                or not isinstance(item.get("value"), str)):
            raise ValueError(f"not a candidate fact: {item!r:.60}")
        attribute = item["attribute"]
        found.append(Candidate(speaker, attribute, item["value"], bool(item.get("negated")),
                               ATTRIBUTES[attribute][0], source, when))
    return found


def extractor_stub(prompt: str) -> str:
    """An offline extractor model: the rules' candidates of the prompt's last line (the
    turn, as "Speaker: text"), as the JSON :func:`parse_candidates` reads."""
    turn = prompt.rsplit("\n", 1)[-1]
    speaker, _, text = turn.partition(": ")
    return json.dumps([{"attribute": c.attribute, "value": c.value, "negated": c.negated}
                       for c in extract_by_rules(text, speaker)])


def extract_with_model(model: Callable[[str], str], text: str, speaker: str = "user", *,
                       source: tuple[int, ...] = (), when: str = "",
                       speakers: tuple[str, ...] = ()) -> tuple[list[Candidate], bool]:
    """``(candidates, by_model)``: the model's candidates for the turn, or the rules'
    (``by_model`` False) when the model raises or its reply is not a list of them."""
    try:
        reply = model(EXTRACT_PROMPT + f"{speaker}: {' '.join(text.split())}")
        return parse_candidates(reply, speaker, source, when), True
    except Exception:                          # a failed model: the rules extract
        return extract_by_rules(text, speaker, source=source, when=when, speakers=speakers), False
