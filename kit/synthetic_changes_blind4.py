"""A fourth blind set of phrasing templates for the changing-facts conversations.

Written on 2026-12-05 by a helper asked to write test data blind. The only files read
were ``kit/synthetic_changes.py`` (for the events of its ``TEMPLATES`` dict, their
placeholders, ``VALUES`` and the data format), ``kit/synthetic.py`` (for the style of
the small talk) and the module docstring of ``kit/synthetic_changes_blind3.py`` (for the
docstring format; not its templates). Not opened, read, grepped or searched: anything
under ``kit/longterm/``, ``kit/change_eval.py``, ``kit/synthetic_changes_blind2.py``, the
templates of ``kit/synthetic_changes_blind3.py``, any other blind set being written in
parallel, and anything in ``tests/``, ``solutions/``, ``notebooks/``, ``docs/``,
``benchmarks/`` or ``drills/``; no web or code search for fact-extraction code. The
phrasings were written as people chat, with no knowledge of how any extractor works.

:data:`BLIND4_TEMPLATES` has exactly the keys (events) of
:data:`kit.synthetic_changes.TEMPLATES`, five phrasings per event, with the same
placeholders: ``{v}`` the value, ``{old}`` the value before (only in "city change",
where it is optional, and "drink change", where most phrasings use it).
"""
from __future__ import annotations

__all__ = ["BLIND4_TEMPLATES"]

BLIND4_TEMPLATES = {
    "city": [
        "Three years of living in {v} and I still get lost in the old town, which is a bit "
        "embarrassing.",
        "Our landlord here in {v} finally agreed to fix the heating, so the flat might actually "
        "be warm by December.",
        "{v} is where I've put down roots, for better or worse. Don't get me started on the rent.",
        "Walking home through {v} at night is my favourite thing, the streets around my flat are "
        "so quiet.",
        "People ask where I'm from and I never know what to say, but my address has said {v} "
        "for a good while now.",
    ],
    "city again": [
        "Still here in {v}, still moaning about the hills, and still wouldn't live anywhere else.",
        "Nope, no plans to leave {v}; we renewed the lease on our flat for another year yesterday.",
        "Funny, all this time later and {v} still feels like the right place to call home.",
        "Everyone keeps asking if I'll move, but I'm staying put in {v}, it suits me.",
        "We're still in {v}, same flat and same noisy street, so nothing new on the home front.",
    ],
    "city change": [
        "The last box is unpacked, so I can officially say I live in {v} now. It still sounds "
        "strange out loud.",
        "Leaving {old} was harder than I expected, but the new flat in {v} already feels cosy.",
        "Our new address is in {v}! The removal van only turned up yesterday, so it's total chaos.",
        "After years in {old} we finally made the jump, and {v} has been home since the start "
        "of the month.",
        "Just spent an hour updating my address everywhere to the new place in {v}. So many forms.",
    ],
    "job": [
        "My manager at {v} wants me to present on Friday, and I'm already nervous about it.",
        "First week at {v} done, and everyone on my team has been lovely so far.",
        "{v} basically pays me to stare at spreadsheets all day, so that's been my week.",
        "My new work badge has {v} printed on it, which somehow makes the whole job feel real.",
        "Long day at the office; things at {v} always get hectic before the quarterly review.",
    ],
    "job change": [
        "I finally left my old company, and as of Monday I'm on the payroll at {v}.",
        "Cleared out my desk at the previous place on Friday, and I started at {v} the very "
        "next Monday.",
        "Big change: I resigned last month and accepted an offer from {v}. Today's my first day!",
        "It's weird not going to my old office anymore; the new job at {v} is only ten minutes "
        "from home.",
        "My old boss was sad to see me go, but honestly the team I've joined at {v} is a much "
        "better fit.",
    ],
    "allergy": [
        "I have to read every single label because of my {v} allergy, it's exhausting sometimes.",
        "The allergist confirmed what I suspected: {v} makes me break out in hives, so it's off "
        "limits for good.",
        "Heads up for Saturday: I'm allergic to {v}, so I'll double-check everything before I "
        "eat.",
        "Ever since that scary reaction in spring I carry an EpiPen, all because of my allergy "
        "to {v}.",
        "Spent the morning at the clinic, and the skin prick test says I'm properly allergic to "
        "{v}.",
    ],
    "allergy new": [
        "As if one allergy wasn't enough, it turns out I'm allergic to {v} too.",
        "The allergist added {v} to my list yesterday, so now there are two things I have to "
        "dodge.",
        "I broke out in hives again, and this time the culprit was {v}. Yet another allergy for "
        "me!",
        "My medical bracelet needs updating, because I'm now allergic to {v} on top of the "
        "other one.",
        "Just when I'd got used to my first allergy, my body went and added {v} to the list.",
    ],
    "order": [
        "The standing lamp is finally ordered, and the confirmation email says it's order {v}.",
        "Putting this here so I don't lose it: the order number for my bedside table is {v}.",
        "{v} is the order reference for the curtains I bought online, they should ship this "
        "week.",
        "I finally clicked buy on that sofa, order {v}, and now I keep refreshing the tracking "
        "page.",
        "If a courier rings while I'm out, it's about my order {v}, a set of dining chairs.",
    ],
    "order cancel": [
        "The sofa was never going to arrive at this rate, so I cancelled order {v} this morning "
        "and got my money back.",
        "I emailed the shop and they've confirmed that order {v} is cancelled; refund in five "
        "days.",
        "Order {v} is dead, I called it off after the third delivery delay.",
        "Turns out I didn't need the chairs after all, so I withdrew order {v} before it shipped.",
        "Good news, sort of: the cancellation of my order {v} went through, so no new curtains "
        "for now.",
    ],
    "drink": [
        "Honestly, give me {v} over anything else any day, it's my favourite thing to drink.",
        "My friends tease me because I order {v} everywhere we go, but I just love the stuff.",
        "If I could only have one drink for the rest of my life, it would be {v}, no contest.",
        "I bought a fancy new flask just for my beloved daily {v}, which says a lot about my "
        "priorities.",
        "The best part of my morning is that first sip of {v}; no other drink comes close.",
    ],
    "drink change": [
        "Weirdly I've lost my taste for {old}, and these days I'm completely hooked on {v}.",
        "Remember how obsessed I was with {old}? So over it. It's {v} I reach for now.",
        "My new favourite drink is {v}; the old love for {old} just faded somehow.",
        "I gave my last bit of {old} away to a colleague, because I'm all about {v} now.",
        "Funny how tastes change: a year ago I'd never have picked {v}, and now it's my "
        "favourite drink by a mile.",
    ],
    "sister": [
        "Spent the whole afternoon on the phone with my sister {v}, she's knee-deep in wedding "
        "plans.",
        "{v}, my little sister, just sent me a photo of her new haircut and I love it.",
        "It's my sister's birthday on Sunday and I still have no idea what to get {v}.",
        "Growing up, {v} and I shared a bedroom, so being sisters was basically a contact sport.",
        "My sister, {v}, has decided she's running a marathon, and she wants me to train with "
        "her.",
    ],
    "dog": [
        "{v} stole a whole sandwich off the counter today, I swear that dog has no shame.",
        "Our dog {v} is terrified of the hoover, he hides under the bed every single time.",
        "Walking the dog took forever this morning, {v} had to sniff every lamppost on the "
        "street.",
        "My pup {v} turned three on Sunday, so naturally he got a little cake.",
        "The vet says {v} needs to lose a bit of weight, so no more treats for my greedy dog.",
    ],
    "instrument": [
        "My fingers ache after an hour on the {v}, but that tricky passage is finally coming "
        "together.",
        "My teacher says my {v} playing has really improved, which made my whole week.",
        "I joined a little community band, they were desperate for someone who plays the {v}.",
        "Playing the {v} is the one thing that properly switches my brain off after work.",
        "The neighbours must be sick of hearing me play the {v}, I've been stuck on the same "
        "piece all week.",
    ],
}
