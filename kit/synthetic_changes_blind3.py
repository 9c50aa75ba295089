"""A third blind set of phrasing templates for the changing-facts conversations.

Written on 2026-12-05 by a helper asked to write test data blind. The only files read
were ``kit/synthetic_changes.py`` (for the events of its ``TEMPLATES`` dict, their
placeholders, ``VALUES`` and the data format) and ``kit/synthetic.py`` (for the style of
the small talk). Not opened, read, grepped or searched: anything under ``kit/longterm/``,
``kit/change_eval.py``, ``kit/synthetic_changes_blind2.py``, and anything in ``tests/``,
``solutions/``, ``notebooks/``, ``docs/``, ``benchmarks/`` or ``drills/``; no web search
for fact-extraction code. The phrasings were written as people chat, with no knowledge
of how any extractor works.

:data:`BLIND3_TEMPLATES` has exactly the keys (events) of
:data:`kit.synthetic_changes.TEMPLATES`, five phrasings per event, with the same
placeholders: ``{v}`` the value, ``{old}`` the value before (only in "city change",
where it is optional, and "drink change", where most phrasings use it).
"""
from __future__ import annotations

__all__ = ["BLIND3_TEMPLATES"]

BLIND3_TEMPLATES = {
    "city": [
        "Rent in {v} eats half my salary, but I do love living here.",
        "We've been renting a little place in {v} since the spring, and I can't see us "
        "leaving any time soon.",
        "Finally got registered with a GP in {v}, which makes living here feel official.",
        "Not gonna lie, I wasn't sure about {v} at first, but it's become home.",
        "My neighbors here in {v} are lovely. I walk down our street to the bakery every "
        "morning.",
    ],
    "city again": [
        "Another year of living in {v} and I'm still not tired of it.",
        "{v} hasn't let me down yet, I'm really glad I live here.",
        "I keep telling people I'll never leave {v}; living here just suits me.",
        "Walking home through {v} tonight, I remembered why I love living here.",
        "We're still in {v}, and honestly I can't picture living anywhere else now.",
    ],
    "city change": [
        "Don't send anything to my old address in {old} any more, I'm living in {v} now.",
        "The lease in {old} ran out, so we loaded up a van and drove everything to our new "
        "flat in {v}.",
        "I'm writing this from my new kitchen in {v}! The move went smoother than I feared.",
        "Spent our first night in the new house in {v} yesterday. No curtains yet, but it's "
        "home.",
        "After weeks of packing we've finally moved house, and the new place is in {v}.",
    ],
    "job": [
        "Signed the contract with {v} yesterday, so I start there on the first of the month.",
        "Cycling to work at {v} takes me twenty minutes door to door, which I love.",
        "The coffee at {v} is awful, not gonna lie, but my colleagues there are great.",
        "First week at {v} done! I've got a badge, a laptop and way too many passwords.",
        "{v} hired me as a junior designer, and I actually look forward to going in every "
        "day.",
    ],
    "job change": [
        "Friday was my last day at the old company; on Monday I start at {v}.",
        "I finally left that awful place. {v} made me an offer I couldn't turn down, so "
        "that's where I work now.",
        "Guess who changed jobs? My new desk is at {v}, and the manager seems lovely.",
        "Resigned from my old job last month. These days I'm commuting out to the {v} "
        "offices instead.",
        "Changed jobs, yes, I know, finally! I'm on the payroll at {v} now.",
    ],
    "allergy": [
        "The allergist confirmed it, I'm allergic to {v}. I have to carry an EpiPen now.",
        "I can't have anything with {v} in it, it's an allergy thing, I come out in hives.",
        "Just so you know, I stay well away from {v} because I'm allergic.",
        "My skin prick test lit up for {v}, so that's officially an allergy now.",
        "I ended up in A&E after a reaction to {v}; the doctor said it's a proper allergy.",
    ],
    "allergy new": [
        "As if one wasn't enough, I'm now allergic to {v} too.",
        "Sadly I can add {v} to my list of allergies now.",
        "I broke out in hives again and this time the culprit was {v}. So that's allergy "
        "number two.",
        "Bad news from the clinic: I'm also allergic to {v} now, so that's two allergies "
        "to watch.",
        "Hmm, it seems I've picked up another allergy. It's {v} this time, apparently that "
        "can happen as an adult.",
    ],
    "order": [
        "The sofa's paid for, it's order {v}, and delivery is in about ten days.",
        "Just checked out online for a new kettle, and the order confirmation says {v}.",
        "If the shop emails about {v}, that's my order for the new curtains.",
        "I finally ordered that standing desk! Order number's {v}, fingers crossed it's not "
        "delayed.",
        "Went ahead and bought the bike online. I'll need the order reference, {v}, if it "
        "doesn't turn up.",
    ],
    "order cancel": [
        "The shop refunded me for {v}; I cancelled the order before it shipped.",
        "Forget the curtains, I cancelled order {v} this morning and got my money back.",
        "Customer service finally confirmed the cancellation of {v}, so that order's dead.",
        "Couldn't be bothered waiting any more. I hit the cancel button on order {v} and "
        "I'll pick one up in town.",
        "Order {v} won't be coming after all: I asked them to cancel it and they did.",
    ],
    "drink": [
        "Hands down, {v} is my favourite thing to drink.",
        "Whenever I'm at a café I end up ordering {v}, it's my favorite.",
        "My colleagues tease me because I've always got {v} on my desk, but it's my "
        "favourite drink, what can I say.",
        "Give me {v} over any other drink, any day of the week.",
        "Stocked up on {v} again. It's my favourite drink, so I'm never without it.",
    ],
    "drink change": [
        "Funny how tastes change: {old} does nothing for me now, and I'm all about {v}.",
        "I've swapped my usual {old} for {v}, and I'm not going back.",
        "Got bored of {old} somewhere along the way, so {v} is my new favourite.",
        "My new favourite drink is {v}, I've totally gone off the old stuff.",
        "You won't believe it, but {old} just doesn't taste right to me any more; it's {v} "
        "I reach for first now.",
    ],
    "sister": [
        "{v}, my little sister, just got engaged!",
        "I'm helping my sister {v} move flats this weekend, and she has way too many books.",
        "Having dinner with {v} tonight, she's my older sister and the best cook I know.",
        "Mum keeps comparing me to my sister {v}, which drives me up the wall.",
        "It's my sister {v}'s birthday tomorrow and I still haven't bought her anything.",
    ],
    "dog": [
        "{v} chewed through yet another lead today. I love my dog, but honestly.",
        "I take my dog {v} round the park every morning before work.",
        "The vet says {v} needs to lose a bit of weight, so my poor dog is on a diet now.",
        "Bought a fancy new bed for the dog, and of course {v} still prefers the sofa.",
        "Everyone at the park knows {v}, my scruffy little terrier.",
    ],
    "instrument": [
        "My {v} teacher says I'm ready for my first recital, eek.",
        "Finally got the {v} tuned properly; I've been playing it for a year now.",
        "I joined an amateur ensemble at the community hall, where I play the {v}.",
        "My fingers ache after three hours of playing the {v} yesterday.",
        "Not that I'm any good yet, but I'm taking {v} lessons on Saturdays.",
    ],
}
