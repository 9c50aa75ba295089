"""A fourth, "blind-2" set of phrasing templates for :mod:`kit.synthetic_changes`.

Written on 2026-12-05 by a helper session asked to write test data blind: without
opening, reading or searching the fact extractor (``kit/longterm/``), its evaluation
(``kit/change_eval.py``), its tests, lesson 12, ``docs/fact_memory.md`` or
``benchmarks/fact_memory.py``. Only :mod:`kit.synthetic_changes` was read, and only to
learn the events, their placeholders and the format of :data:`TEMPLATES`.

:data:`BLIND2_TEMPLATES` has the same keys as :data:`kit.synthetic_changes.TEMPLATES`
(event -> list of templates) and the same placeholders: ``{v}`` the value, ``{old}`` the
value before it (only in the change events, where the other splits use it). Three
phrasings per event (as many as the largest existing split, and at least three), each a
single chat turn of one to three sentences, none copied from the existing splits, written
as people say these things in chat: varied verbs and word order, contractions, past,
present and future, the value early or late, some filler. Each one leaves a human reader
in no doubt about which fact it states or changes, and to what. The order value is a
number such as ``#4821``; the templates name no item, so any order fits them.
"""
from __future__ import annotations

__all__ = ["BLIND2_TEMPLATES"]

BLIND2_TEMPLATES = {
    "city": [
        "Ever since we settled in {v} I walk everywhere, it's such a nice place to live.",
        "I've got a little apartment on the east side of {v}, right by the river.",
        "Been renting a two-bed in {v} since spring, and honestly I'm not planning to leave.",
    ],
    "city again": [
        "Can't believe how fast {v} has grown on me, I'm so glad we live here.",
        "Another sunny weekend in {v}. Really no regrets about making our home here.",
        "You know what, I wouldn't swap {v} for anywhere. It's home.",
    ],
    "city change": [
        "Big news: we're out of {old}! Signed the lease on a place in {v} and moved in on "
        "Saturday.",
        "The move's finally done, so from this week our address is in {v}.",
        "We've left {old} behind for good, you'll have to come and visit us in {v} now.",
    ],
    "job": [
        "{v} hired me! I'm starting on their design team on Monday.",
        "Got through my first week at {v}, the team's lovely so far.",
        "These days I'm on the payroll at {v}, mostly writing reports.",
    ],
    "job change": [
        "I'm done with the old company. {v} made me an offer and I took it.",
        "Fresh start at work: I've moved over to {v}, on their product team.",
        "Left my job last month and signed on with {v}, it's a much better fit.",
    ],
    "allergy": [
        "I can't go anywhere near {v}, I come out in hives every time.",
        "{v} is off limits for me, my doctor confirmed I'm allergic.",
        "Heads up, {v} and I don't get along: one bit of it and I'm covered in a rash.",
    ],
    "allergy new": [
        "As if one allergy wasn't enough, now {v} sets me off too.",
        "The skin-prick test flagged {v} as well, so that's two things I've got to dodge now.",
        "Great, my body's decided {v} is a problem too. That's allergy number two.",
    ],
    "order": [
        "Treated myself to a coffee table online, the order reference is {v}.",
        "{v} is the number for the sofa I bought yesterday, delivery's in two weeks.",
        "I'll be getting a new kettle soon! Ordered it this morning, order number {v}.",
    ],
    "order cancel": [
        "Scrap order {v}, I found it cheaper elsewhere and they're refunding me.",
        "The parcel from order {v} is going straight back, I've asked for a refund, so "
        "forget that order.",
        "Remember order {v}? Not happening anymore, I pulled it before it shipped.",
    ],
    "drink": [
        "I'm basically powered by {v}, I have it at least twice a day.",
        "If I could only drink one thing forever, it'd be {v}.",
        "{v}'s my absolute favourite, I order it at every cafe we go to.",
    ],
    "drink change": [
        "Not into {old} anymore, I'm all about {v} now.",
        "Weird thing: {old} tastes awful to me lately, so I've swapped it for {v} and I love "
        "it.",
        "Remember how I loved {old}? Totally over it. {v} is my new favourite.",
    ],
    "sister": [
        "{v}, my sister, just got engaged, so there's a wedding to plan!",
        "Spent the afternoon baking with my sister; {v}'s cakes are way better than mine.",
        "Me and {v} have always been close, she's my only sister.",
    ],
    "dog": [
        "{v} chewed through another shoe today, this dog will be the death of me.",
        "Took our pup {v} to the beach and he wouldn't come out of the water.",
        "Our dog {v} is snoring on my feet as I type this.",
    ],
    "instrument": [
        "Signed up for {v} lessons, my first one's on Thursday.",
        "I've played the {v} since I was twelve, it's how I unwind.",
        "My {v} teacher says I'm finally getting the hang of it.",
    ],
}
