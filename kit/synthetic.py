"""A deterministic synthetic long conversation with LoCoMo-style questions.

:func:`synthetic_conversation` builds a :class:`~kit.locomo.LongConversation` between
two friends, Maya (speaker_a, the "user") and Leo (speaker_b), over dated sessions
a few days to two weeks apart. Most turns are small talk; a few state a fact once,
and the questions ask about those facts after the whole conversation, with the same
categories as LoCoMo (:data:`kit.locomo.CATEGORIES`; open-domain, 3, is absent):

- 4 single-hop: a fact stated once ("My sister's name is Ingrid.") -> "What is Maya's
  sister's name?", answer "Ingrid", evidence that turn. A fact updated later ("I just
  moved to Lisbon!", sessions later "We moved again, we live in Tallinn now.") gives
  "Where does Maya live now?", answer the new value, evidence the update.
- 2 temporal: "When did Maya move to Tallinn?", answer the date of the session it was
  said in ("14 March, 2023"); the turn itself holds no date, only its session does.
- 1 multi-hop: two facts in different sessions ("My cousin is Ravi." ... "Ravi got a
  job as a pharmacist.") -> "What job did Maya's cousin get?": it needs both turns; the
  answer is in the second.
- 5 adversarial: a single-hop question about the *other* speaker ("What is Leo's
  sister's name?"), which was never said: ``answer`` None, ``adversarial_answer`` the
  tempting value, evidence the turn it can be confused with (as in LoCoMo).

Every fact value is drawn once, without replacement, from pools that share no words
with the small talk, so a value appears only in its own turns (the tests check this).
Same arguments, same conversation. The structure follows the LoCoMo question types
(Maharana et al., ACL 2024); the texts are the kit's own.
"""
from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from kit.locomo import LongConversation, LongTurn, Question

__all__ = ["synthetic_conversation", "SPEAKERS", "SINGLE_FACTS", "UPDATES", "CHAINS"]

SPEAKERS = ("Maya", "Leo")
_START = datetime.date(2023, 1, 9)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")

# Value pools: proper nouns and rare words, none a substring of the small talk or of another.
_POOLS = {
    "name": ["Ingrid", "Ravi", "Tomasz", "Odile", "Kwame", "Svetlana", "Bartholomew", "Yuki",
             "Florentyna", "Ezekiel", "Marisol", "Lachlan", "Thandiwe", "Oksana", "Desmond",
             "Rosalind"],
    "city": ["Lisbon", "Tallinn", "Valparaiso", "Ljubljana", "Hobart", "Bergen", "Cusco",
             "Timbuktu", "Reykjavik", "Zanzibar", "Tbilisi", "Marrakesh", "Winnipeg", "Adelaide",
             "Gdansk", "Nagasaki"],
    "job": ["pharmacist", "glassblower", "cartographer", "locksmith", "veterinarian",
            "beekeeper", "stenographer", "sommelier"],
    "company": ["Brightwater Labs", "Quillfeather Press", "Ironbark Robotics",
                "Saltmarsh Foods", "Copperleaf Studios", "Northgate Clinic"],
    "book": ["Middlemarch", "Dune", "Rebecca", "Beloved", "Ulysses", "Kokoro"],
    "band": ["The Velvet Otters", "The Paper Comets", "The Rusty Lanterns", "The Mild Ferns"],
    "instrument": ["cello", "bassoon", "ukulele", "harpsichord"],
    "pet": ["Biscuit", "Pumpernickel", "Juniper", "Mochi"],
    "dish": ["moussaka", "ratatouille", "bibimbap", "pierogi"],
    "sport": ["badminton", "lacrosse", "curling", "fencing"],
    "language": ["Portuguese", "Icelandic", "Swahili", "Georgian"],
    "car": ["Volvo", "Citroen", "Skoda", "Subaru"],
    "colour": ["turquoise", "magenta", "saffron", "lilac"],
    "allergen": ["shellfish", "sesame", "hazelnuts", "kiwis"],
    "class": ["pottery", "salsa", "origami", "calligraphy", "archery", "woodcarving"],
}

# (pool, statement, question): single-hop facts; each goes to one speaker only, so the
# same question about the other speaker is adversarial.
SINGLE_FACTS = [
    ("name", "My sister's name is {v}.", "What is {s}'s sister's name?"),
    ("city", "I grew up in {v}, believe it or not.", "Where did {s} grow up?"),
    ("instrument", "I've been learning to play the {v}.", "Which instrument is {s} learning?"),
    ("pet", "Our dog is called {v}.", "What is the name of {s}'s dog?"),
    ("book", "My favourite book is {v}, I reread it every year.", "What is {s}'s favourite book?"),
    ("dish", "My favourite dish is {v}.", "What is {s}'s favourite dish?"),
    ("sport", "I play {v} every Sunday morning.", "Which sport does {s} play on Sundays?"),
    ("language", "I'm learning {v} in the evenings.", "Which language is {s} learning?"),
    ("car", "I still drive my old {v}.", "What car does {s} drive?"),
    ("colour", "My favourite colour is {v}.", "What is {s}'s favourite colour?"),
    ("allergen", "I'm allergic to {v}, so I have to be careful.", "What is {s} allergic to?"),
    ("job", "I work as a {v}.", "What does {s} do for a living?"),
]

# (pool, first statement, update, question about now, "when" question): stated, then
# changed in a later session.
UPDATES = [
    ("city", "I just moved to {v}!", "We moved again, we live in {v} now.",
     "Where does {s} live now?", "When did {s} move to {v}?"),
    ("company", "I started a new job at {v} today.", "I left my old job, I'm at {v} now.",
     "Where does {s} work now?", "When did {s} start working at {v}?"),
    ("class", "I signed up for {v} classes this week.", "I switched from my old classes to {v}.",
     "Which classes does {s} take now?", "When did {s} sign up for {v} classes?"),
]

# (pool a, pool b, first statement, second statement, question): a multi-hop pair.
CHAINS = [
    ("name", "city", "My best friend is called {a}.", "{a} just moved to {b}.",
     "Which city did {s}'s best friend move to?"),
    ("name", "job", "My cousin is {a}.", "{a} got a job as a {b}.",
     "What job did {s}'s cousin get?"),
    ("name", "book", "My old teacher is {a}.", "{a} lent me a copy of {b}.",
     "Which book did {s}'s old teacher lend {s}?"),
    ("band", "city", "I joined a band called {a}.", "{a} have a gig in {b} next month.",
     "Where does {s}'s band have a gig next month?"),
]

_OPENERS = ["Hi {o}! How have you been?", "Hey {o}, good to hear from you!",
            "Hello {o}, long time no talk!", "Hi {o}, do you have a minute to chat?"]
_SMALL_TALK = [
    "How was your week?", "The weather has been lovely lately.", "I finally slept well last night.",
    "Work has been busy but fine.", "I tried a new coffee shop yesterday and it was decent.",
    "Did you watch anything good recently?", "I've been trying to go for more walks after lunch.",
    "Honestly, I just need a quiet weekend.", "That sounds great!", "Oh really? Tell me more.",
    "Ha, that made me laugh.", "I know what you mean.", "Same here, to be honest.",
    "We should meet up soon, it has been too long.", "I cooked something simple for dinner.",
    "Fair enough!", "That's good to hear.", "I spent the evening tidying up the flat.",
    "Not much news on my side.", "Thanks for asking!", "It has been a long day.",
    "I'm glad things are going well for you.", "Let's catch up properly next time.",
    "I read a few pages before bed, then fell asleep.", "The traffic this morning was awful.",
    "I keep meaning to call my parents more often.", "My phone battery dies so fast these days.",
    "We had a power cut on Tuesday, which was fun.", "I've been drinking far too much coffee.",
    "The neighbours are renovating again, so it's noisy.", "I finally fixed the leaking tap.",
    "I'm trying to be better about going to bed early.", "It rained the whole afternoon here.",
    "That must have been a relief.", "Wow, that's a lot to deal with.", "Good for you!",
    "I hope the rest of your week is calmer.", "Take care of yourself, seriously.",
]
_LEADS = ["", "Guess what? ", "Oh, by the way: ", "News from me: "]


@dataclass
class _Statement:
    speaker: str
    text: str
    dia_id: str = ""     # filled when placed


def _check(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}: {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _date_text(day: datetime.date, minute: int) -> str:
    hour = minute // 60
    clock = f"{(hour - 1) % 12 + 1}:{minute % 60:02d} {'am' if hour < 12 else 'pm'}"
    return f"{clock} on {day.day} {_MONTHS[day.month - 1]}, {day.year}"


def _day_of(date: str) -> str:
    """The day part of a session date: "1:56 pm on 8 May, 2023" -> "8 May, 2023"."""
    return date.split(" on ", 1)[1]


def synthetic_conversation(sessions: int = 20, turns_per_session: int = 20,
                           seed: int = 0) -> LongConversation:
    """A synthetic :class:`~kit.locomo.LongConversation` (see the module docstring).

    ``sessions``: int >= 2; ``turns_per_session``: int >= 4, Maya speaks first in each
    session; about one turn in eight states a fact (at most 2 x (12 + 4 + 3) facts, so
    longer conversations add small talk, not questions). Names it "synthetic".
    Same arguments, same conversation. Raises TypeError / ValueError naming a bad value.
    """
    _check("sessions", sessions, 2)
    _check("turns_per_session", turns_per_session, 4)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int (same seed, same conversation), got {seed!r}")
    rng = random.Random(seed)
    pools = {k: rng.sample(v, len(v)) for k, v in _POOLS.items()}

    day, dates = _START, {}
    for n in range(1, sessions + 1):
        dates[n] = _date_text(day, rng.randrange(8 * 60, 22 * 60))
        day += datetime.timedelta(days=rng.randint(4, 16))

    # Fact turns a session can hold; a pair needs two sessions, first before second.
    free = {n: max(1, turns_per_session // 8) for n in dates}
    placed: dict[int, list[_Statement]] = {n: [] for n in dates}

    def place(*statements: _Statement) -> bool:
        open_ = [n for n in dates if free[n] > 0]
        if len(open_) < len(statements):
            return False
        chosen = sorted(rng.sample(open_, len(statements)))
        for n, statement in zip(chosen, statements):
            free[n] -= 1
            placed[n].append(statement)
        return True

    built = []
    for kind, speaker, pool_names, template in _plan(rng):
        if any(len(pools[p]) < pool_names.count(p) for p in pool_names):
            continue                                      # this pool is used up
        values = [pools[p].pop() for p in pool_names]
        statements = [_Statement(speaker, text) for text in _texts(kind, template, values)]
        if place(*statements):
            built.append((kind, speaker, template, values, statements))

    turns = _fill(rng, dates, placed, turns_per_session)
    day_of = {t.dia_id: _day_of(t.date) for t in turns}
    questions, singles = [], 0
    for kind, speaker, template, values, statements in built:
        other = SPEAKERS[1 - SPEAKERS.index(speaker)]
        ids = tuple(s.dia_id for s in statements)
        if kind == "single":
            questions.append(Question(template[2].format(s=speaker), values[0], ids, 4))
            if singles % 3 == 0:                          # every third fact: adversarial too
                questions.append(Question(template[2].format(s=other), None, ids, 5, values[0]))
            singles += 1
        elif kind == "update":
            questions.append(Question(template[3].format(s=speaker), values[1], ids[1:], 4))
            for value, dia_id in zip(values, ids):
                questions.append(Question(template[4].format(s=speaker, v=value),
                                          day_of[dia_id], (dia_id,), 2))
        else:
            questions.append(Question(template[4].format(s=speaker), values[1], ids, 1))
    order = {t.dia_id: i for i, t in enumerate(turns)}
    questions.sort(key=lambda q: (q.category, order[q.evidence[0]]))
    return LongConversation("synthetic", SPEAKERS, tuple(turns), tuple(questions), dates)


def _plan(rng: random.Random) -> list[tuple]:
    """Which facts to state, interleaved so that every kind appears even when there is
    room for only a few: (kind, speaker, pool names, template)."""
    singles = [("single", SPEAKERS[i % 2], (t[0],), t)
               for i, t in enumerate(rng.sample(SINGLE_FACTS, len(SINGLE_FACTS)))]
    updates = [("update", s, (t[0], t[0]), t) for t in UPDATES for s in SPEAKERS]
    chains = [("chain", s, (t[0], t[1]), t) for t in CHAINS for s in SPEAKERS]
    for group in (updates, chains):
        rng.shuffle(group)
    plan = []
    while singles or updates or chains:
        for group, take in ((chains, 1), (updates, 1), (singles, 2)):
            plan += group[:take]
            del group[:take]
    return plan


def _texts(kind: str, template: tuple, values: list[str]) -> list[str]:
    """The statement(s) of one planned fact, in the order they are said."""
    if kind == "single":
        return [template[1].format(v=values[0])]
    if kind == "update":
        return [template[1].format(v=values[0]), template[2].format(v=values[1])]
    return [template[2].format(a=values[0]), template[3].format(a=values[0], b=values[1])]


def _fill(rng: random.Random, dates: dict[int, str], placed: dict[int, list[_Statement]],
          per_session: int) -> list[LongTurn]:
    """Lay out every session: Maya at even positions, Leo at odd ones; fact turns at
    random positions of their speaker (with a little small talk after), one to three
    sentences of small talk everywhere else."""
    turns = []
    for n, date in dates.items():
        slots: dict[int, _Statement] = {}
        for statement in placed[n]:
            parity = SPEAKERS.index(statement.speaker)
            options = [p for p in range(1, per_session) if p % 2 == parity and p not in slots]
            slots[rng.choice(options)] = statement
        for p in range(per_session):
            speaker, other = SPEAKERS[p % 2], SPEAKERS[1 - p % 2]
            dia_id = f"D{n}:{p + 1}"
            if p in slots:
                slots[p].dia_id = dia_id
                tail = rng.sample(_SMALL_TALK, rng.randint(0, 1))
                text = " ".join([rng.choice(_LEADS) + slots[p].text, *tail])
            elif p == 0:
                text = " ".join([rng.choice(_OPENERS).format(o=other),
                                 *rng.sample(_SMALL_TALK, rng.randint(0, 2))])
            else:
                text = " ".join(rng.sample(_SMALL_TALK, rng.randint(1, 3)))
            turns.append(LongTurn(dia_id, speaker, text, n, date))
    return turns
