"""A ninth blind set of phrasing templates for the changing-facts conversations.

Written on 2026-12-05 by a helper asked to write test data blind. The only files read
were ``kit/synthetic_changes.py`` (for the events of its ``TEMPLATES`` dict, their
placeholders, ``VALUES`` and the data format), ``kit/synthetic.py`` (for the style of
the small talk) and the module docstring of ``kit/synthetic_changes_blind3.py`` (for the
docstring format; not its templates). Not opened, read, grepped or searched: anything
under ``kit/longterm/``, ``kit/change_eval.py``, any other ``kit/synthetic_changes_blind*.py``
file (nor blind-3's templates), any other directory under ``/work/``, and anything in
``tests/``, ``solutions/``, ``notebooks/``, ``docs/``, ``benchmarks/`` or ``drills/``; no
web or code search for fact-extraction code. The phrasings were written as people chat,
with no knowledge of how any extractor works.

:data:`BLIND9_TEMPLATES` has exactly the keys (events) of
:data:`kit.synthetic_changes.TEMPLATES`, five phrasings per event, with the same
placeholders: ``{v}`` the value, ``{old}`` the value before (only in "city change",
where it is optional, and "drink change", where most phrasings use it).
"""
from __future__ import annotations

__all__ = ["BLIND9_TEMPLATES"]

BLIND9_TEMPLATES = {
    "city": [
        "Living in {v} has its perks: I walked home along the river tonight and didn't want "
        "it to end.",
        "Our landlord here in {v} finally answered about the boiler. Only took him three weeks!",
        "The rent in {v} keeps creeping up, but I can't picture living anywhere else. "
        "Can you blame me?",
        "Ever since I settled in {v} I've been cycling everywhere, and my legs have never "
        "been better.",
        "Honestly, the best thing about calling {v} home is the bakery two doors down from "
        "my flat.",
    ],
    "city again": [
        "Yep, still in {v}, still in the same flat with the squeaky floorboards.",
        "People keep asking if I'll move, but nope, I'm staying put in {v} for the "
        "foreseeable.",
        "Another year on and {v} is still home. I still get lost in the old town, ha!",
        "Me? Still living in {v}, and liking it more every month. When are you visiting?",
        "Nothing's changed on the home front: I'm in {v} same as ever, same neighbours, "
        "same noisy pigeons.",
    ],
    "city change": [
        "Well, that's it, we've left {old} for good and moved into a flat in {v} on Friday!",
        "First week living in {v} and I already miss my old bakery, but the new "
        "neighbourhood is growing on me.",
        "Can you believe I'm writing this from my new kitchen in {v}? The move nearly "
        "killed me.",
        "It took two vans and one broken lamp, but we've swapped {old} for {v}. "
        "New address coming your way!",
        "So the big news: we sold up and moved, and {v}'s our home now. "
        "Still haven't found the cutlery box, mind you.",
    ],
    "job": [
        "My manager at {v} wants everyone in the office on Mondays now, which is a bit of "
        "a drag.",
        "Signed the contract yesterday, so you're now talking to the newest hire at {v}!",
        "Lunch breaks at {v} are the best part of my day, honestly, the canteen is amazing.",
        "Do you know anyone at {v}? I've just started working there and I still can't find "
        "the printer.",
        "Badge photo done, laptop set up: it's official, I'm on the payroll at {v}.",
    ],
    "job change": [
        "Cleared out my desk at the old job on Friday, and Monday was my first day at {v}. "
        "So far so good!",
        "I finally did it: resigned, ate my leaving cake, and joined {v}.",
        "My old boss wasn't thrilled when I said I was leaving for {v}, but I've been there "
        "two weeks now and it's so much better.",
        "{v} poached me from my old company, can you believe it? The first week has been "
        "a whirlwind.",
        "Different office, different commute: I've switched jobs and I'm at {v} now. "
        "No more of the old place's endless meetings!",
    ],
    "allergy": [
        "Had to send my lunch back today because it had {v} in it, and I'm properly allergic.",
        "Do you read ingredient labels? I have to, since I'm allergic to {v}. It's exhausting.",
        "The allergist confirmed it, I'm allergic to {v}. At least now I know why I kept "
        "breaking out in hives.",
        "I've started carrying antihistamines everywhere because of my allergy to {v}.",
        "Remind the waiter for me if I forget, yeah? My allergy to {v} is no joke, I end up "
        "covered in hives.",
    ],
    "allergy new": [
        "One allergy wasn't enough, apparently: I'm now allergic to {v} too.",
        "Got the results back and, great, {v} has joined the list of things I'm allergic to.",
        "Remember my allergy? Well, now I've got a second one: {v}. My poor immune system.",
        "Broke out in a rash after dinner, and the doctor says I've become allergic to {v} "
        "on top of everything else.",
        "Add {v} to my list of allergies, would you? Found that one out the hard way at "
        "a party last week.",
    ],
    "order": [
        "Still waiting on that lamp I bought; the tracking for order {v} hasn't moved in "
        "days. Any tips?",
        "I treated myself to a new armchair, order {v}, and it should be here by the end "
        "of the month!",
        "Can you remind me to chase order {v} if it hasn't shown up by Friday? It's the "
        "curtains.",
        "{v}: that's the reference for the bookcase I ordered. I've written it on a sticky "
        "note so I don't lose it.",
        "Finally ordered the garden chairs online, reference {v}, delivery sometime next week.",
    ],
    "order cancel": [
        "The lamp never shipped, so I gave up and cancelled order {v}. Refund should be "
        "in a few days.",
        "Forget the armchair I told you about; order {v} is cancelled, I found one "
        "secondhand instead.",
        "Spent forty minutes on hold just to get order {v} cancelled, but it's done, "
        "thank goodness.",
        "Order {v}? Cancelled. I had buyer's remorse the minute I clicked pay.",
        "Good news, sort of: the shop confirmed my order {v} has been cancelled, so no rug "
        "after all.",
    ],
    "drink": [
        "Honestly, give me a glass of {v} and I'm happy, it's my absolute favourite.",
        "I've tried loads of fancy drinks, but nothing comes close to {v} for me.",
        "Do you have a favourite drink? Mine's {v}, no contest.",
        "{v} is my favourite thing to drink, full stop; I'd have it all day if I could.",
        "The café on my corner does the best {v} around, which is dangerous, because it's "
        "my favourite drink by miles.",
    ],
    "drink change": [
        "Weird confession: I'm completely over {old}. {v} is my new favourite, I can't get "
        "enough of it.",
        "I used to order {old} without thinking, but these days my favourite is {v}.",
        "My tastes have changed: {old} just doesn't do it for me any more, and {v} is what "
        "I reach for now.",
        "Who knew? After years of loving {old}, it turns out {v} is my favourite drink now.",
        "New favourite drink alert: {v}! The old one is dead to me, ha.",
    ],
    "sister": [
        "My sister {v} just had her birthday, so we went out for dinner and laughed all night.",
        "{v}, my little sister, is coming to stay for the weekend, so the flat is a mess of "
        "air mattresses.",
        "Have I ever told you about my sister? Her name's {v}, and she's the funniest person "
        "I know.",
        "Spent the afternoon helping my sister {v} paint her living room; I'm covered in "
        "yellow.",
        "My big sister {v} says hi, by the way! She remembers you from the wedding.",
    ],
    "dog": [
        "Sorry for the slow replies, our dog {v} chewed through my phone charger. Bad dog!",
        "Took {v} to the beach on Sunday and the silly dog refused to come out of the water.",
        "{v} is snoring at my feet as I type; best dog in the world, no question.",
        "Do you know any good dog trainers? Our pup {v} still pulls on the lead like a maniac.",
        "The vet said {v} needs to lose a bit of weight, so no more treats for my greedy dog.",
    ],
    "instrument": [
        "My fingers are sore from practising the {v} all afternoon, but I finally nailed "
        "that piece!",
        "Do you think my neighbours hate me? I play the {v} most evenings.",
        "Lesson number twelve on the {v} today, and my teacher says I'm actually improving.",
        "Picked up my {v} after dinner and played until midnight; best way to unwind.",
        "The {v} is a tricky instrument, honestly, but playing it is the highlight of my week.",
    ],
}
