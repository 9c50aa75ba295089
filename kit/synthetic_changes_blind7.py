"""A seventh blind set of phrasing templates for the changing-facts conversations.

Written on 2026-12-05 by a helper asked to write test data blind. The only files read
were ``kit/synthetic_changes.py`` (for the events of its ``TEMPLATES`` dict, their
placeholders, ``VALUES`` and the data format), ``kit/synthetic.py`` (for the style of
the small talk) and the module docstring of ``kit/synthetic_changes_blind3.py`` (for the
docstring format; not its templates). Not opened, read, grepped or searched: anything
under ``kit/longterm/``, ``kit/change_eval.py``, ``kit/synthetic_changes_blind2.py``,
the templates of ``kit/synthetic_changes_blind3.py``, any other blind set, and anything
in ``tests/``, ``solutions/``, ``notebooks/``, ``docs/``, ``benchmarks/`` or
``drills/``; no web or code search for fact-extraction code. The phrasings were written
as people chat, with no knowledge of how any extractor works.

:data:`BLIND7_TEMPLATES` has exactly the keys (events) of
:data:`kit.synthetic_changes.TEMPLATES`, five phrasings per event, with the same
placeholders: ``{v}`` the value, ``{old}`` the value before (only in "city change",
where it is optional, and "drink change", where most phrasings use it).

Changed by the lead after the one measurement: the fourth "allergy new" phrasing was
word for word one of blind-4's (written at the same time, unseen); its last word "too" is
now "as well", so each conversation's phrasings name one split.
"""
from __future__ import annotations

__all__ = ["BLIND7_TEMPLATES"]

BLIND7_TEMPLATES = {
    "city": [
        "Rent in {v} went up again this month, and I seriously wonder how anyone affords "
        "to live here.",
        "The best thing about living in {v}? I can walk to pretty much everything, even the "
        "dentist.",
        "I've been a {v} resident for about a year now and I still get lost in the old town.",
        "My neighbours here in {v} threw a street party on Saturday, so I barely slept. "
        "Worth it, though.",
        "These days, if anyone asks where home is, the answer's {v}: my flat, my corner "
        "cafe, my little routine.",
    ],
    "city again": [
        "Another year in {v} and I'm still not tired of living here, which says something.",
        "Nope, haven't gone anywhere, I'm still in {v}. Same flat, same creaky stairs.",
        "Walking home through {v} tonight, I realised how much this place has grown on me "
        "since I moved here.",
        "People keep asking if I'll ever leave {v}, but honestly I'm staying put, I love it "
        "here.",
        "{v} is still home, and the bakery on my corner still saves me the last loaf.",
    ],
    "city change": [
        "Okay, big news: I signed the lease and I'm officially living in {v} now. {old} is "
        "behind me!",
        "The last box from {old} finally got unpacked this morning, so I guess {v} is really "
        "home now.",
        "Had my first proper week of living in {v}, still figuring out which bus goes where.",
        "Never thought I'd leave {old}, yet here I am, a brand-new resident of {v}.",
        "New address, new everything: we moved to {v} at the weekend and I still can't find "
        "the kettle.",
    ],
    "job": [
        "My team at {v} is small, but everyone's lovely, so I can't complain.",
        "I've been at {v} a few months now, mostly writing reports and sitting in meetings. "
        "Glamorous, I know.",
        "Got my badge and my laptop today, so it's official: I'm a {v} employee!",
        "My boss at {v} finally approved my holiday, so I'm off in June!",
        "The commute to {v} is only twenty minutes, which is honestly the best part of the "
        "job.",
    ],
    "job change": [
        "Cleared my desk at the old company on Friday and started at {v} on Monday, what a "
        "week.",
        "So {v} made me an offer I couldn't refuse, and I've already resigned from my "
        "previous job.",
        "I'm done with the old place for good; {v} pays my salary now, and my mood is so "
        "much better.",
        "My first paycheque from {v} arrived today, which makes leaving my last employer "
        "feel very real.",
        "Switching jobs was scary, but two weeks in at {v} I know I made the right move.",
    ],
    "allergy": [
        "I carry antihistamines everywhere now, ever since I found out I'm allergic to {v}.",
        "The nurse had me write {v} in big letters on the allergy form, since that's what "
        "I react to.",
        "Fun fact about me: I break out in hives around {v}. It's an actual allergy, not me "
        "being fussy.",
        "Got the results back from the allergist and yep, it's {v}; I'm properly allergic.",
        "Remind me to get one of those medical bracelets, being allergic to {v} is no joke.",
    ],
    "allergy new": [
        "As if one allergy wasn't enough, it turns out I'm allergic to {v} as well.",
        "The doctor added {v} to my list of allergies today, so that's two things I have to "
        "dodge now.",
        "Came out in a rash again and guess what, it's {v} this time. Another allergy for the "
        "pile.",
        "Great, a brand-new allergy at my age: {v}. The old one was lonely, apparently.",
        "I've had to update the allergy card in my wallet; it now says {v} as well.",
    ],
    "order": [
        "Finally ordered those sofa cushions, reference {v}, and the delivery window is "
        "Thursday.",
        "If a parcel comes while I'm out, it's order {v}, the new kettle I bought.",
        "Still waiting on {v}, the curtains I ordered; they said five to seven working days.",
        "I splurged on a standing desk last night, the confirmation email says order {v}.",
        "Fingers crossed that {v} turns up before the weekend, it's the rug I ordered for "
        "the living room.",
    ],
    "order cancel": [
        "I pulled the plug on order {v}, the reviews were awful.",
        "Good news: the refund for order {v} came through, since I cancelled it on Monday.",
        "They emailed to confirm my cancellation of {v}, so that's one less parcel to wait "
        "for.",
        "Turns out I didn't need that lamp after all, so order {v} is off. Cancelled it "
        "this morning.",
        "Order {v}? Gone. I cancelled it, the delivery date kept slipping.",
    ],
    "drink": [
        "If I had to pick one drink for the rest of my life, it'd be {v}, no contest.",
        "There's a little place near work that makes amazing {v}, my favourite drink, so "
        "I'm there almost daily.",
        "Honestly, {v} is basically my personality at this point, I could drink it all day.",
        "My friends tease me because I ask for {v} everywhere we go, but it's my favourite, "
        "what can I say.",
        "Sundays are for sitting in the garden with {v}, my all-time favourite drink.",
    ],
    "drink change": [
        "Weird thing: {old} just doesn't do it for me anymore, I keep reaching for {v} "
        "instead.",
        "My new obsession is {v}; I haven't touched {old} in weeks.",
        "Remember when I couldn't live without {old}? Yeah, that's over, {v} is the "
        "favourite now.",
        "Tastes change, I guess: {v} has completely replaced {old} for me.",
        "These days it's {v} all the way, hands down my favourite drink now.",
    ],
    "sister": [
        "{v}, my little sister, just called to say she's getting married!",
        "Spent the whole afternoon helping my sister {v} paint her living room.",
        "My sister, {v}, is the only person who can make me laugh when I'm grumpy.",
        "Having lunch with {v} tomorrow; she's my sister and also my harshest critic, ha.",
        "My kid sister {v} still borrows my clothes without asking, some things never change.",
    ],
    "dog": [
        "{v} ate one of my socks again, that dog will eat literally anything.",
        "Took our dog {v} to the beach this morning and he came back covered in sand.",
        "Our pup, {v}, has learned to open the fridge, so we're doomed.",
        "Poor {v} has been sulking all day, the silly dog didn't get his evening walk.",
        "Every morning at six sharp, my dog {v} sits on my chest until I get up.",
    ],
    "instrument": [
        "My fingers are sore from an hour of {v} practice, but the piece is finally coming "
        "together.",
        "I joined the community orchestra, they were short of someone who plays the {v}.",
        "Playing the {v} is the only thing that switches my brain off after a long day.",
        "Lesson number twelve on the {v} today, and my teacher says I'm getting there.",
        "Tried a duet tonight, I was on the {v} and it went better than I'd feared.",
    ],
}
