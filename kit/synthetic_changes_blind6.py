"""A sixth blind set of phrasing templates for the changing-facts conversations.

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

:data:`BLIND6_TEMPLATES` has exactly the keys (events) of
:data:`kit.synthetic_changes.TEMPLATES`, five phrasings per event, with the same
placeholders: ``{v}`` the value, ``{old}`` the value before (only in "city change",
where it is optional, and "drink change", where most phrasings use it).
"""
from __future__ import annotations

__all__ = ["BLIND6_TEMPLATES"]

BLIND6_TEMPLATES = {
    "city": [
        "The rent in {v} went up again this month, and my landlord acted like he was doing "
        "me a favour.",
        "Took the long way home tonight without checking my phone once; months of living in "
        "{v} and I finally know the streets.",
        "My downstairs neighbour was born here in {v} and she still gets lost in the old "
        "town, which makes me feel much better.",
        "Visitors always want the touristy stuff, but honestly the best part of living in {v} "
        "is the bakery at the end of my street.",
        "If you ever come through {v}, there's a sofa at my place with your name on it. "
        "It's not fancy, but it's yours.",
    ],
    "city again": [
        "Another year here in {v} and I still haven't found a decent dentist, but otherwise "
        "no complaints.",
        "People keep asking if I'm going to leave {v}, and nope, I'm staying put. I've grown "
        "far too fond of the place.",
        "Same old flat, same old {v}, same grumpy postman; some things never change, and I "
        "like it that way.",
        "I thought about moving for about five minutes last week, then remembered how much I "
        "love my street in {v}. Not going anywhere.",
        "Still in {v}, still getting lost in the old town now and then, still very happy "
        "here.",
    ],
    "city change": [
        "The last box is finally unpacked, which means I officially live in {v} now. Took me "
        "long enough!",
        "Leaving {old} was harder than I expected, but the first week in our new place in {v} "
        "has been lovely.",
        "Sorry I've been quiet, the move ate my whole month. The flat in {v} is bigger than "
        "the old one, at least.",
        "New city, new postcode, new everything: we signed the lease in {v} and moved in on "
        "Saturday.",
        "I still catch myself giving people my old address in {old}, even though I've been "
        "living in {v} for weeks now.",
    ],
    "job": [
        "My badge for {v} finally arrived, so no more waiting at reception to be let into the "
        "office every morning.",
        "Had the longest meeting of my life today; my team at {v} really does love a slide "
        "deck.",
        "Payday at {v} is on the 25th, so yes, I'm counting the days.",
        "It's been a month since I signed my contract with {v}, and I think I'm finally "
        "getting the hang of the job.",
        "Working from home today, which at {v} mostly means answering emails in my pyjamas "
        "until noon.",
    ],
    "job change": [
        "Cleared out my desk at the old job on Friday, and by Monday I was sitting at a new "
        "one at {v}.",
        "So I finally did it: I resigned, took the offer from {v}, and I've been there a whole "
        "week already.",
        "My old boss sent me a rather passive-aggressive farewell card, which only confirms "
        "that switching jobs to {v} was the right call.",
        "New employer, same commute, weirdly: {v} is two streets over from where I used to "
        "work.",
        "Three years at my last company and I never once got a free lunch, meanwhile {v} "
        "feeds us every Thursday.",
    ],
    "allergy": [
        "I broke out in hives on Sunday and the doctor confirmed what I'd suspected: I'm "
        "allergic to {v}.",
        "I've started carrying a little card in my wallet that says 'allergic to {v}' in "
        "big red letters, better safe than sorry.",
        "Whenever I meet someone new I end up explaining the whole allergic-to-{v} thing; "
        "it's quite the icebreaker.",
        "Spent the afternoon in urgent care after a reaction, and the allergist says the "
        "culprit is {v}, so I'll be steering well clear from now on.",
        "My mum always said I was a fussy kid, but it turns out I've been allergic to {v} all "
        "along.",
    ],
    "allergy new": [
        "Just when I thought my list of allergies was long enough, my body decided to add {v} "
        "to it.",
        "The allergist ran a fresh round of tests and, surprise, I'm now allergic to {v} too, "
        "on top of everything else.",
        "Can you believe I have to avoid {v} now as well? Another allergy, great, just what I "
        "needed.",
        "Woke up with a puffy face after lunch; apparently I've picked up a brand-new "
        "allergy, this time to {v}.",
        "My GP had to add yet another allergy to my records this week, {v} this time, so "
        "that's two things I have to dodge now.",
    ],
    "order": [
        "The tracking for my order {v} says it's out for delivery, so I'm glued to the window "
        "all day.",
        "Finally treated myself to a proper standing desk, and the order went through this "
        "morning as {v}.",
        "Wrote {v} on a sticky note by the door so I don't lose it; that's the order number "
        "for the new curtains.",
        "The shop emailed to say order {v} has been dispatched, which means my new rug could "
        "be here by Friday.",
        "I spent way too long choosing a bedside lamp online. Anyway, it's ordered, and the "
        "confirmation says {v}.",
    ],
    "order cancel": [
        "The delivery kept getting pushed back, so in the end I cancelled order {v} and got "
        "my money back.",
        "Don't bother looking out for that parcel, by the way: I've pulled the plug on order "
        "{v}, so there's nothing coming.",
        "Customer service confirmed the cancellation of {v} this morning; the refund should "
        "land in a few days.",
        "I had second thoughts about the sofa, so order {v} isn't happening after all. "
        "Cancelled it last night.",
        "Order {v} is officially scrapped, which is a relief, because I'd realised I didn't "
        "need the thing at all.",
    ],
    "drink": [
        "Nothing fancy for me at the cafe, just {v}, as always; if I could only drink one "
        "thing forever, that'd be it.",
        "My colleagues tease me because there's always {v} on my desk, but honestly, nothing "
        "else comes close.",
        "If you ever want to bribe me, {v} works every time. It's my absolute favourite.",
        "I stocked up on {v} at the market, because running out of my favourite drink is my "
        "idea of a nightmare.",
        "Rough day, but honestly {v} fixes most things for me; it's been my favourite "
        "forever.",
    ],
    "drink change": [
        "Funny how tastes change: a year ago I'd have picked {old} every time, but now it's "
        "{v}, hands down.",
        "Somewhere along the way I went right off {old}, and {v} has quietly become my "
        "favourite.",
        "Gave the rest of my {old} to a neighbour, I just don't want it anymore; {v} is my "
        "thing now.",
        "My friends keep ordering {old} for me out of habit, and I have to remind them I'm "
        "all about {v} these days.",
        "My old favourite drink has been officially dethroned. Long live {v}!",
    ],
    "sister": [
        "My little sister {v} rang at midnight to tell me about her new haircut, which was "
        "very much a crisis.",
        "Cleaning the spare room because my sister {v} is staying the weekend, and she "
        "notices everything.",
        "Being the older sister is exhausting sometimes: {v} still calls me whenever she "
        "needs her taxes done.",
        "It's my sister's birthday on Thursday and I still have nothing for her; {v} is "
        "impossible to shop for.",
        "Mum keeps mixing up my name with my sister's, which is funny, because Maya and {v} "
        "don't sound remotely alike.",
    ],
    "dog": [
        "{v} stole a whole sausage off the kitchen counter this morning, and I swear my dog "
        "has no shame whatsoever.",
        "I'm out the door at six every morning now because the dog needs a long walk, and {v} "
        "won't take no for an answer.",
        "Took the dog to the groomer and {v} came back with a bow on his head. I can't stop "
        "laughing.",
        "Our vet says {v} needs to lose a kilo or two, so no more treats under the table, "
        "poor pup.",
        "Half the park knows my dog by name now; apparently {v} is the funniest thing anyone "
        "has ever heard a dog called.",
    ],
    "instrument": [
        "My fingers are sore from practising the {v} all weekend, but I finally got through "
        "that piece without stopping.",
        "The neighbours haven't complained about my {v} playing yet, which I'm choosing to "
        "take as a compliment.",
        "I signed up for a little amateur orchestra; they were short on people who play the "
        "{v}, so here I am.",
        "Lessons are going well, my teacher says my {v} technique is finally less terrible.",
        "After ten years of playing the {v} you'd think I'd stop getting nervous before a "
        "recital, but nope.",
    ],
}
