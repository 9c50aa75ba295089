"""Candidate facts from a turn: a rule-based extractor, and a model extractor with it as fallback.

:func:`extract_by_rules` reads a turn sentence by sentence (linear in its length):

- **values**: a word of an attribute's word list (:data:`ATTRIBUTES`: an allergen, a
  drink, an instrument, a car: the attribute is the list's), an order number
  (``#4411``), or the last run of capitalised words of a sentence that holds a cue
  word of a name-valued attribute ("moved", "live" for the home city; "job", "work"
  for the employer; "sister"; "dog");
- **denial**: a value is denied ("no longer", "not", "n't", "cancelled", "gone off",
  "stopped", "gave up") when a denial word is in its clause (clauses end at , ; : and
  the sentence's end);
- the subject is the turn's speaker (or "user").

It is a heuristic made for the kit's synthetic conversations (:mod:`kit.synthetic_changes`),
written on their development templates only; their held-out templates measure how far
it carries. :func:`extract_with_model` asks a model for a JSON list of candidates
(:data:`EXTRACT_PROMPT`) and falls back on the rules when the reply is unusable;
:func:`extractor_stub` is an offline model that answers with the rules' result.
"""
from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable

from kit.longterm.facts import Candidate

__all__ = ["ATTRIBUTES", "EXTRACT_PROMPT", "extract_by_rules", "extract_with_model",
           "extractor_stub", "parse_candidates"]

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
# name-valued attributes and their cue words, tried in this order
_NAME_CUES = (
    ("sister's name", re.compile(r"\bsister\b", re.I)),
    ("dog's name", re.compile(r"\b(?:dog|puppy)\b", re.I)),
    ("employer", re.compile(r"\b(?:job|work|works|working|hired|employer|joined|offer)\b", re.I)),
    ("home city", re.compile(r"\b(?:live|lives|living|moved|moving|relocated|based|home|"
                             r"settled|flat)\b", re.I)),
)
_WORDS = {word.lower(): attribute for attribute, (_, words) in ATTRIBUTES.items() if words
          for word in words}
_CANONICAL = {word.lower(): word for _, words in ATTRIBUTES.values() if words for word in words}
_WORD = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _WORDS), key=len, reverse=True))
                   + r")\b", re.I)
_ORDER = re.compile(r"#[0-9]{3,8}\b")
_NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*\b")
_DENIAL = re.compile(r"\b(?:no longer|not|never|cancel(?:l?ed)?|gone off|stopped|gave up)\b|n't\b",
                     re.I)
_SENTENCE = re.compile(r"[^.!?]+")
_CLAUSE_END = re.compile(r"[,;:]")
_NOT_NAMES = {"I", "My", "We", "Our", "The", "And", "But", "So", "Home", "Life", "New",
              "Guess", "Oh", "News", "Honestly", "Hi", "Hey", "Hello", "Work", "It", "That",
              "This", "These", "Turns", "January", "February", "March", "April", "May", "June",
              "July", "August", "September", "October", "November", "December", "Monday",
              "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
EXTRACT_PROMPT = ("List the facts the speaker states or denies about themselves in the "
                  "turn below, as a JSON list of objects {\"attribute\", \"value\", "
                  "\"negated\"}; attributes: " + ", ".join(ATTRIBUTES) + ".\n")


def _denials(sentence: str) -> Callable[[int], bool]:
    """``position -> True if a denial word is in the clause that holds it``: the clauses
    and their denials are found once per sentence, a position's clause by bisection."""
    ends = [m.start() for m in _CLAUSE_END.finditer(sentence)] + [len(sentence)]
    starts = [0] + [end + 1 for end in ends[:-1]]
    denied = [_DENIAL.search(sentence, a, b) is not None for a, b in zip(starts, ends)]
    return lambda position: denied[bisect.bisect_right(ends, position)]


def _name(sentence: str, stop: set[str]) -> tuple[str, int] | None:
    """The last capitalised run of the sentence, its leading common words and speakers
    (``stop``) left out: ``(name, position)``, or None."""
    found = None
    for match in _NAME.finditer(sentence):
        words, start, i = match.group().split(" "), match.start(), 0
        while i < len(words) and words[i] in stop:
            start += len(words[i]) + 1
            i += 1
        if i < len(words):
            found = (" ".join(words[i:]), start)
    return found


def extract_by_rules(text: str, speaker: str = "user", *, source: tuple[int, ...] = (),
                     when: str = "", speakers: tuple[str, ...] = ()) -> list[Candidate]:
    """Candidate facts of one turn (see the module docstring), in the order they are
    said. ``speaker``: the subject; ``source``: the turn's message numbers; ``when``:
    its ISO date; ``speakers``: names never taken as values. Raises TypeError for a
    ``text`` that is not a str."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    stop, found = _NOT_NAMES | set(speakers) | {speaker}, []

    for match in _SENTENCE.finditer(text):
        sentence = match.group()
        denied = _denials(sentence)

        def put(attribute: str, value: str, start: int) -> None:
            found.append(Candidate(speaker, attribute, value, denied(start),
                                   ATTRIBUTES[attribute][0], source, when))

        for hit in _WORD.finditer(sentence):
            attribute = _WORDS[hit.group().lower()]
            put(attribute, _CANONICAL[hit.group().lower()], hit.start())
        for hit in _ORDER.finditer(sentence):
            put("open order", hit.group(), hit.start())
        attribute = next((a for a, cue in _NAME_CUES if cue.search(sentence)), None)
        name = _name(sentence, stop) if attribute else None
        if name is not None:
            put(attribute, name[0], name[1])
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
