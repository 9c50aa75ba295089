"""Synthetic long conversations in which facts change, with questions about now, then and before.

:func:`changing_conversation` builds a :class:`ChangeConversation`: a
:class:`~kit.locomo.LongConversation` between Maya (the user) and Leo over dated
sessions, mostly the small talk of :mod:`kit.synthetic`, in which Maya states facts that
stay (her sister's name, her dog's name, the instrument she plays), and facts that
change (:data:`STORIES`):

- she **moves** (her home city is updated, sometimes twice; once she says the same
  city again in other words);
- she takes a **new job** (the employer is updated);
- she gets a **new allergy** (a second value beside the first: an add, not an update);
- she places an order and **cancels** it (a retraction);
- her favourite drink is **reversed** (she goes off the old one, then names a new one).

Every statement is written from phrasing templates fixed in advance, in disjoint
parts (:data:`SPLITS`): ``split="development"`` uses only the first part of
:data:`TEMPLATES` (the one the kit's extractor was first written against),
``split="held-out"`` only the second (written by the extractor's author, knowing its cue
words), ``split="blind"`` only the third (written later by someone who never read the
extractor), and ``"blind-2"`` to ``"blind-11"`` the templates of their own files
(:mod:`kit.synthetic_changes_blind2` and on), each written by another engineer who never
read the extractor, its tests, the lesson or the others' phrasings. Each blind split was
merged only after the extractor was frozen and measured once; blind to blind-8 were then
read and are development data, blind-9 to blind-11 are the blind test of the extractor as
it stands (never read since; ``docs/fact_memory.md`` tells each round). Only phrasings the
extractor's authors have never seen measure how far it carries. Questions
(:class:`ChangeQuestion`), five kinds (:data:`KINDS`):

- ``current``: the value now ("Where does Maya live now?"); both allergies for the
  allergy;
- ``unchanged``: a fact stated once and never changed;
- ``as_of``: the value on a date between two changes ("... on 14 February, 2023?");
- ``history``: every value, in order;
- ``abstention``: nothing to answer: the cancelled order, or a car never mentioned.

Each question carries the values a context must hold (``gold``), the values that would
make it wrong (``conflicting``: older values for ``current``, values of other times for
``as_of``), and for ``abstention`` the values whose presence is a wrong answer
(``forbidden``). Same arguments, same conversation. Long enough: the default 24
sessions of 20 turns are 8,600 to 9,400 tokens (cl100k), over 3 x a 2,000-token budget.
"""
from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from kit.locomo import LongConversation, LongTurn
from kit.synthetic import _LEADS, _OPENERS, _SMALL_TALK, _date_text
from kit.synthetic_changes_blind2 import BLIND2_TEMPLATES
from kit.synthetic_changes_blind3 import BLIND3_TEMPLATES
from kit.synthetic_changes_blind4 import BLIND4_TEMPLATES
from kit.synthetic_changes_blind5 import BLIND5_TEMPLATES
from kit.synthetic_changes_blind6 import BLIND6_TEMPLATES
from kit.synthetic_changes_blind7 import BLIND7_TEMPLATES
from kit.synthetic_changes_blind8 import BLIND8_TEMPLATES
from kit.synthetic_changes_blind9 import BLIND9_TEMPLATES
from kit.synthetic_changes_blind10 import BLIND10_TEMPLATES
from kit.synthetic_changes_blind11 import BLIND11_TEMPLATES
from kit.validation import check_int

__all__ = ["ChangeQuestion", "ChangeConversation", "changing_conversation", "changing_set",
           "split_templates", "KINDS", "SPLITS", "STORIES", "TEMPLATES", "VALUES"]

KINDS = ("current", "unchanged", "as_of", "history", "abstention")
_OWN_FILES = {"blind-2": BLIND2_TEMPLATES, "blind-3": BLIND3_TEMPLATES,  # splits of a file each
              "blind-4": BLIND4_TEMPLATES, "blind-5": BLIND5_TEMPLATES,
              "blind-6": BLIND6_TEMPLATES, "blind-7": BLIND7_TEMPLATES,
              "blind-8": BLIND8_TEMPLATES, "blind-9": BLIND9_TEMPLATES,
              "blind-10": BLIND10_TEMPLATES, "blind-11": BLIND11_TEMPLATES}
SPLITS = ("development", "held-out", "blind", *_OWN_FILES)
STORIES = ("move", "new job", "new allergy", "cancelled order", "preference reversed")
_START = datetime.date(2023, 1, 9)

VALUES = {
    "home city": ["Lisbon", "Tallinn", "Valparaiso", "Ljubljana", "Hobart", "Bergen", "Cusco",
                  "Tbilisi", "Marrakesh", "Winnipeg", "Adelaide", "Gdansk"],
    "employer": ["Brightwater Labs", "Quillfeather Press", "Ironbark Robotics", "Saltmarsh Foods",
                 "Copperleaf Studios", "Northgate Clinic", "Bluefin Analytics", "Oakridge Bank"],
    "sister's name": ["Ingrid", "Odile", "Svetlana", "Marisol", "Thandiwe", "Oksana"],
    "dog's name": ["Biscuit", "Pumpernickel", "Juniper", "Mochi", "Waffles", "Pickles"],
    "instrument": ["cello", "bassoon", "ukulele", "harpsichord", "oboe", "banjo"],
    "allergy": ["shellfish", "sesame", "hazelnuts", "kiwis", "peanuts", "penicillin"],
    "favourite drink": ["matcha", "kombucha", "chai", "espresso", "lemonade", "kefir"],
    "car": ["Volvo", "Citroen", "Skoda", "Subaru"],
}

# event -> (development templates, held-out templates, blind templates); {v}: the value,
# {old}: the one before
TEMPLATES = {
    "city": (["I just moved to {v}!", "I live in {v} these days.",
              "We found a flat in {v} and moved in last weekend."],
             ["I've relocated to {v}, the boxes are everywhere.", "I'm living in {v} at the moment.",
              "We're based in {v} now, it still feels new."]),
    "city again": (["I live in {v} and I really like it here."],
                   ["{v} really feels like home now."]),
    "city change": (["We moved again, we live in {v} now.", "I've left {old} and moved to {v}."],
                    ["We packed up and relocated to {v} last month.",
                     "Goodbye {old}: my new home is {v}."]),
    "job": (["I started a new job at {v} today.", "I work at {v} now."],
            ["I joined {v} this week as an analyst.", "My new employer is {v}."]),
    "job change": (["I left my old job, I'm at {v} now.", "I quit and took a job at {v}."],
                   ["I handed in my notice and got hired by {v}.",
                    "New job news: I'm working for {v} now."]),
    "allergy": (["I'm allergic to {v}, so I have to be careful.",
                 "Turns out I have an allergy to {v}."],
                ["The doctor says I have a {v} allergy.",
                 "I found out I'm allergic to {v}, which is annoying."]),
    "allergy new": (["And now I'm allergic to {v} as well!", "Another allergy for me: {v}."],
                    ["I've developed a second allergy, to {v}.",
                     "The tests showed a new allergy: {v}, on top of the old one."]),
    "order": (["I ordered a new desk, the order number is {v}.",
               "My order {v} for a lamp is on its way."],
              ["I placed order {v} for a bookshelf yesterday.",
               "Order {v} with my new armchair should arrive next week."]),
    "order cancel": (["I cancelled order {v}, it was taking forever.",
                      "Order {v} is cancelled, I changed my mind."],
                     ["I called the shop and they cancelled my order {v} for me.",
                      "Never mind the armchair: order {v} got cancelled."]),
    "drink": (["My favourite drink is {v}.", "I drink {v} every morning."],
              ["{v} is my go-to drink these days.", "These days I mostly drink {v}."]),
    "drink change": (["I've gone off {old}; {v} is my favourite drink now.",
                      "I don't like {old} any more, I drink {v} instead."],
                     ["I stopped drinking {old}, it's all {v} for me now.",
                      "No more {old} for me; I've switched to {v}."]),
    "sister": (["My sister's name is {v}."], ["My sister {v} is visiting next week."]),
    "dog": (["Our dog is called {v}."], ["We adopted a puppy and named him {v}."]),
    "instrument": (["I've been learning to play the {v}."],
                   ["I practise the {v} every evening."]),
}

# The blind third: written for a blind test by an engineer who never read the extractor, its
# tests or lesson 12's prose, as users say these things (indirect, casual, past or present
# tense); one phrasing for each held-out one, with the same placeholders. The extractor was
# rewritten after its misses here were seen: a development split since (so is "blind-2",
# kit.synthetic_changes_blind2, measured once blind and then read).
_BLIND = {
    "city": ["Home's {v} for me, I've been here about two years.",
             "Our flat in {v} is tiny, but the view over the rooftops makes up for it.",
             "Honestly {v} gets so grey in winter, but it's where I'm based."],
    "city again": ["Still loving life in {v}, the cafes round here are great."],
    "city change": ["The movers came on Tuesday, so the new place is in {v}. Boxes everywhere!",
                    "Said goodbye to {old} last week; we've settled in {v}."],
    "job": ["Got the offer from {v}, and my first day was Monday!",
            "Work's been hectic, {v} has me on three projects at once."],
    "job change": ["Handed in my notice at the old place, I've been at {v} for a week.",
                   "So I switched companies, I'm with {v} these days."],
    "allergy": ["Turns out I react badly to {v}, my throat swells up.",
                "The allergy test came back positive for {v}, so no more of that for me."],
    "allergy new": [
        "Ugh, the allergist found another one: {v}. Add it to the list.",
        "Had a reaction to {v} last night, so that's something else I've got to avoid."],
    "order": ["Just bought a bookshelf online, confirmation number {v}.",
              "I've got a rug on the way, it's {v} in case I need to chase it up."],
    "order cancel": ["Ended up ringing the shop and scrapping {v}, didn't need it after all.",
                     "Changed my mind about {v}, asked them to call it off and refund me."],
    "drink": ["Can't start the day without a big mug of {v}.",
              "Nothing beats {v}, honestly, I'd have it with every meal."],
    "drink change": ["I used to live on {old} but lately it's all {v} for me.",
                     "Can't stand {old} anymore, weirdly. {v}'s my go-to these days."],
    "sister": ["Talked to my big sister {v} for two hours last night."],
    "dog": ["Had to take the dog to the vet today, poor {v} hates the car."],
    "instrument": ["Practised the {v} for an hour tonight, my neighbours must love me."],
}
TEMPLATES = {event: (*halves, _BLIND[event]) for event, halves in TEMPLATES.items()}

QUESTIONS = {    # attribute -> (now, as of {d}, history)
    "home city": ("Where does Maya live now?", "Where did Maya live on {d}?",
                  "Which cities has Maya lived in, in order?"),
    "employer": ("Where does Maya work now?", "Where did Maya work on {d}?",
                 "Which companies has Maya worked for, in order?"),
    "allergy": ("What is Maya allergic to?", "What was Maya allergic to on {d}?", ""),
    "favourite drink": ("What is Maya's favourite drink now?",
                        "What was Maya's favourite drink on {d}?",
                        "Which favourite drinks has Maya had, in order?"),
    "open order": ("Which order does Maya still have open?", "Which order did Maya have open on {d}?",
                   ""),
    "sister's name": ("What is Maya's sister's name?", "", ""),
    "dog's name": ("What is the name of Maya's dog?", "", ""),
    "instrument": ("Which instrument does Maya play?", "", ""),
    "car": ("What car does Maya drive?", "", ""),
}


@dataclass(frozen=True)
class ChangeQuestion:
    """One question. ``kind``: one of :data:`KINDS`; ``gold``: values the context must
    hold (all of them); ``conflicting``: values that must not be beside them (stale
    when present without the gold); ``forbidden``: for abstention, values whose
    presence states an answer; ``day``: ISO date of an ``as_of`` question;
    ``evidence``: the dia ids of the turns that state the facts asked about."""

    question: str
    kind: str
    attribute: str
    gold: tuple[str, ...] = ()
    conflicting: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    day: str = ""
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChangeConversation:
    """A conversation (``conversation.questions`` is empty), its questions and the
    template half (``split``) it was written from."""

    conversation: LongConversation
    questions: tuple[ChangeQuestion, ...]
    split: str
    seed: int


def split_templates(split: str) -> dict[str, list[str]]:
    """Event -> the templates of one split (one of :data:`SPLITS`): a part of
    :data:`TEMPLATES`, or for "blind-2" and later the templates of their own files
    (:data:`~kit.synthetic_changes_blind2.BLIND2_TEMPLATES` and so on), as new lists (a
    change to them changes no split). Raises ValueError naming an unknown split."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}; got {split!r}")
    if split in _OWN_FILES:
        return {event: list(_OWN_FILES[split][event]) for event in TEMPLATES}
    return {event: list(parts[SPLITS.index(split)]) for event, parts in TEMPLATES.items()}


def _day_text(day: datetime.date) -> str:
    return _date_text(day, 12 * 60).split(" on ", 1)[1]


def changing_conversation(seed: int = 0, split: str = "development", *, sessions: int = 24,
                          turns_per_session: int = 20) -> ChangeConversation:
    """One conversation (see the module docstring). ``split``: one of :data:`SPLITS`
    (which part of the templates, :func:`split_templates`); ``sessions``: int >= 12;
    ``turns_per_session``: int >= 20 (room for every statement a session may get).
    Same arguments, same conversation. Raises TypeError/ValueError naming a bad value."""
    check_int("seed", seed, 0)
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}; got {split!r}")
    check_int("sessions", sessions, 12)
    check_int("turns_per_session", turns_per_session, 20)
    rng = random.Random(f"{split}:{seed}")
    templates = split_templates(split)
    pools = {k: rng.sample(v, len(v)) for k, v in VALUES.items()}
    day, days = _START, {}
    for n in range(1, sessions + 1):
        days[n] = day
        day += datetime.timedelta(days=rng.randint(4, 12))
    said: dict[int, list[tuple[str, str]]] = {n: [] for n in days}   # session -> (key, text)
    third = sessions // 3

    def say(event: str, session: int, key: str, **values: str) -> int:
        said[session].append((key, rng.choice(templates[event]).format(**values)))
        return session

    plan, questions = {}, []
    for attribute, event in (("sister's name", "sister"), ("dog's name", "dog"),
                             ("instrument", "instrument")):
        value = pools[attribute].pop()
        plan[attribute] = [(say(event, rng.randint(1, third), attribute, v=value), value)]
    # changed facts: (attribute, first event, change event, sessions of the changes)
    cities = [pools["home city"].pop() for _ in range(3)]
    moves = sorted(rng.sample(range(third + 1, sessions), 2 if rng.random() < 0.5 else 1))
    plan["home city"] = [(say("city", rng.randint(1, third), "home city", v=cities[0]), cities[0])]
    for i, session in enumerate(moves, 1):
        plan["home city"].append((say("city change", session, "home city", v=cities[i],
                                      old=cities[i - 1]), cities[i]))
    again = rng.randint(plan["home city"][0][0] + 1, moves[0] - 1) if moves[0] - plan[
        "home city"][0][0] > 1 else None
    if again:
        say("city again", again, "city again", v=cities[0])
    for attribute, first, change in (("employer", "job", "job change"),
                                     ("favourite drink", "drink", "drink change")):
        old, new = pools[attribute].pop(), pools[attribute].pop()
        start = say(first, rng.randint(1, third), attribute, v=old)
        plan[attribute] = [(start, old), (say(change, rng.randint(third + 1, sessions - 1),
                                             attribute, v=new, old=old), new)]
    first, second = pools["allergy"].pop(), pools["allergy"].pop()
    plan["allergy"] = [(say("allergy", rng.randint(1, third), "allergy", v=first), first),
                       (say("allergy new", rng.randint(third + 1, sessions - 1), "allergy",
                            v=second), second)]
    order = f"#{rng.randint(1000, 9999)}"
    placed = say("order", rng.randint(2, 2 * third), "open order", v=order)
    plan["open order"] = [(placed, order),
                          (say("order cancel", rng.randint(placed + 1, sessions - 1),
                               "open order", v=order), "")]

    turns, where = _lay_out(rng, days, said, turns_per_session)

    def between(a: int, b: int) -> datetime.date:
        return days[a] + (days[b] - days[a]) // 2

    def ask(attribute: str, kind: str, text: str, **fields) -> None:
        evidence = tuple(where[(s, attribute)] for s, _ in plan.get(attribute, ())
                         if (s, attribute) in where)
        questions.append(ChangeQuestion(text, kind, attribute, evidence=evidence, **fields))

    for attribute in ("sister's name", "dog's name", "instrument"):
        ask(attribute, "unchanged", QUESTIONS[attribute][0], gold=(plan[attribute][0][1],))
    for attribute in ("home city", "employer", "favourite drink"):
        values = [v for _, v in plan[attribute]]
        now, then, history = QUESTIONS[attribute]
        ask(attribute, "current", now, gold=(values[-1],), conflicting=tuple(values[:-1]))
        steps = plan[attribute]
        i = rng.randrange(len(steps) - 1)
        d = between(steps[i][0], steps[i + 1][0])
        ask(attribute, "as_of", then.format(d=_day_text(d)), gold=(values[i],),
            conflicting=tuple(v for v in values if v != values[i]), day=d.isoformat())
        ask(attribute, "history", history, gold=tuple(values))
    ask("allergy", "current", QUESTIONS["allergy"][0], gold=(first, second))
    d = between(plan["allergy"][0][0], plan["allergy"][1][0])
    ask("allergy", "as_of", QUESTIONS["allergy"][1].format(d=_day_text(d)), gold=(first,),
        conflicting=(second,), day=d.isoformat())
    d = between(placed, plan["open order"][1][0])
    ask("open order", "as_of", QUESTIONS["open order"][1].format(d=_day_text(d)), gold=(order,),
        day=d.isoformat())
    ask("open order", "abstention", QUESTIONS["open order"][0], forbidden=(order,))
    ask("car", "abstention", QUESTIONS["car"][0], forbidden=tuple(VALUES["car"]))
    conversation = LongConversation(f"changes-{split}-{seed}", ("Maya", "Leo"), tuple(turns),
                                    (), {n: _date_text(d, 12 * 60) for n, d in days.items()})
    return ChangeConversation(conversation, tuple(questions), split, seed)


def _lay_out(rng: random.Random, days: dict[int, datetime.date],
             said: dict[int, list[tuple[str, str]]], per_session: int
             ) -> tuple[list[LongTurn], dict[tuple[int, str], str]]:
    """Every session's turns: Maya at even positions (her statements at random ones,
    after the opener), Leo at odd ones, small talk everywhere else. Returns the turns
    and ``(session, key) -> dia id`` of each statement."""
    turns, where = [], {}
    for n, day in days.items():
        date = _date_text(day, rng.randrange(8 * 60, 22 * 60))
        slots = rng.sample(range(2, per_session, 2), len(said[n]))
        placed = dict(zip(slots, said[n]))
        for p in range(per_session):
            speaker, other = ("Maya", "Leo") if p % 2 == 0 else ("Leo", "Maya")
            dia_id = f"D{n}:{p + 1}"
            if p in placed:
                key, text = placed[p]
                where[(n, key)] = dia_id
                text = " ".join([rng.choice(_LEADS) + text,
                                 *rng.sample(_SMALL_TALK, rng.randint(0, 1))])
            elif p == 0:
                text = " ".join([rng.choice(_OPENERS).format(o=other),
                                 *rng.sample(_SMALL_TALK, rng.randint(0, 2))])
            else:
                text = " ".join(rng.sample(_SMALL_TALK, rng.randint(1, 3)))
            turns.append(LongTurn(dia_id, speaker, text, n, date))
    return turns, where


def changing_set(count: int = 20, split: str = "held-out", *, sessions: int = 24,
                 turns_per_session: int = 20) -> list[ChangeConversation]:
    """``count`` conversations (int >= 1) of one split, seeds 0 .. count - 1."""
    check_int("count", count, 1)
    return [changing_conversation(seed, split, sessions=sessions,
                                  turns_per_session=turns_per_session) for seed in range(count)]
