"""An eighth blind set of phrasing templates for the changing-facts conversations.

Written on 2026-12-05 by a helper asked to write test data blind. The only files read
were ``kit/synthetic_changes.py`` (for the events of its ``TEMPLATES`` dict, their
placeholders, ``VALUES`` and the data format), ``kit/synthetic.py`` (for the style of
the small talk) and, of ``kit/synthetic_changes_blind3.py``, only its module docstring
(for the docstring format). Not opened, read, grepped or searched: anything under
``kit/longterm/``, ``kit/change_eval.py``, ``kit/synthetic_changes_blind2.py``, the
templates of ``kit/synthetic_changes_blind3.py``, any other set written in parallel, and
anything in ``tests/``, ``solutions/``, ``notebooks/``, ``docs/``, ``benchmarks/`` or
``drills/``; no web or code search for fact-extraction code. The phrasings were written
as people chat, with no knowledge of how any extractor works.

:data:`BLIND8_TEMPLATES` has exactly the keys (events) of
:data:`kit.synthetic_changes.TEMPLATES`, five phrasings per event, with the same
placeholders: ``{v}`` the value, ``{old}`` the value before (only in "city change",
where it is optional, and "drink change", where most phrasings use it).
"""
from __future__ import annotations

__all__ = ["BLIND8_TEMPLATES"]

BLIND8_TEMPLATES = {
    "city": [
        "The landlord just put my rent up again. Living in {v} isn't cheap, is it?",
        "If you're ever passing through {v}, you've got a sofa at my flat, "
        "I'm only ten minutes from the station.",
        "Walked home the long way tonight and remembered why I love living in {v}, "
        "the old streets at dusk, wow.",
        "Registered with a GP in {v} at last, so I guess I'm officially a local now?",
        "Do you ever get homesick? I don't, weirdly, {v} has felt like home for ages now.",
    ],
    "city again": [
        "Yep, still in {v}, still in the same little flat, nothing new there.",
        "People keep asking if I'll leave {v}, but honestly? I'm staying put, I love it here.",
        "I renewed the lease on my place in {v} for another year, "
        "so you're stuck visiting me here.",
        "Every time a tourist stops me for directions I remember how lucky I am "
        "to call {v} home.",
        "Nothing's changed on the home front, really: same street, same bakery, same old {v}.",
    ],
    "city change": [
        "Well, that's it, the keys to the {old} flat are handed back and I'm writing to you "
        "from my new kitchen in {v}!",
        "Can you believe I've been living in {v} for a whole week already? "
        "Still haven't found the tin opener.",
        "Leaving {old} was harder than I thought, but my new place in {v} is growing on me, "
        "the neighbours even brought cake.",
        "Update your address book: it's {v} for me now, "
        "the van dropped the last boxes off yesterday.",
        "I miss {old} a bit, not gonna lie. Still, waking up in {v} every morning "
        "feels like the right call.",
    ],
    "job": [
        "My manager at {v} wants me to present to the whole team on Friday, so wish me luck!",
        "Signed the contract this morning, so from Monday I'm officially on the payroll "
        "at {v}.",
        "Another long one at work today, {v} has us all on overtime before the launch.",
        "Do you know anyone else who works at {v}? Everyone on my floor seems lovely so far.",
        "I got my staff badge from {v} today, and the photo on it is tragic, honestly.",
    ],
    "job change": [
        "So I finally did it: cleared out my desk at the old company, "
        "and on Monday I start at {v}.",
        "First week at {v} done! It's so much calmer than my last place, "
        "I can't believe I stayed there so long.",
        "Remember how much I moaned about my old boss? Well, not any more, "
        "I've jumped ship to {v}.",
        "They threw me a goodbye lunch at the old job on Friday, "
        "and now I'm the new girl at {v}, ha.",
        "Did I tell you I'm not at the old place anymore? {v} made me an offer "
        "I couldn't refuse, so that's where I'm working now.",
    ],
    "allergy": [
        "I always carry my EpiPen now, because even a trace of {v} sets off my allergy.",
        "My allergy test results came back and, surprise, it's {v}. Hives and everything!",
        "Can you believe I went thirty years without knowing {v} could make me "
        "break out in hives?",
        "Just so you know for the trip: {v} and I do not get along, "
        "my doctor says it's a proper allergy.",
        "Had to fill in one of those medical forms today and write {v} under allergies, "
        "which still feels weird.",
    ],
    "allergy new": [
        "As if one allergy wasn't enough, my body has decided it hates {v} now too.",
        "New one for the collection: {v}. I broke out in a rash on Sunday "
        "and the doctor confirmed it's an allergy.",
        "Guess who's got to add {v} to her allergy list? Yep, me, on top of everything else.",
        "I had another allergic reaction last week, and this time the culprit was {v}, "
        "so that's two things I can't go near now.",
        "Is it normal to pick up new allergies in your thirties? Because apparently "
        "I'm allergic to {v} now, as well as the old one.",
    ],
    "order": [
        "Still waiting on my new kettle; the tracking for order {v} hasn't budged "
        "in three days.",
        "I finally splurged on a proper office chair, it's on order, reference {v}, "
        "and should turn up next week.",
        "If a delivery turns up while I'm away could you take it in? "
        "It's order {v}, a big box with a floor lamp.",
        "Ordered curtains for the living room at last! The confirmation email says {v}, "
        "so fingers crossed they're the right length.",
        "Do you know how long furniture deliveries usually take? Mine's order {v} "
        "and the site just says 'processing'.",
    ],
    "order cancel": [
        "Good news, sort of: the shop finally agreed to cancel {v}, "
        "so that money's coming back to me.",
        "I pulled the plug on order {v} in the end. Found the same thing cheaper "
        "at a market, would you believe.",
        "Rang customer service this morning and {v} is officially cancelled, "
        "no more waiting around for it.",
        "Remember that order I kept moaning about? I cancelled it, {v} is dead and buried.",
        "Don't bother taking in any parcels for me after all, "
        "{v} got cancelled when they ran out of stock.",
    ],
    "drink": [
        "Honestly, give me {v} over anything else, any time of day.",
        "I've tried half the menu at that new cafe, but I always come back to {v}, "
        "it's my absolute favourite.",
        "You know me, if there's {v} on offer I'm not drinking anything else.",
        "Is it weird that I'd pick {v} over any other drink, every single time?",
        "My friends tease me because I order {v} everywhere we go, "
        "but what can I say, it's my drink.",
    ],
    "drink change": [
        "Funny thing: I can't even look at {old} anymore, it's {v} all the way now.",
        "I've fallen out of love with {old}, would you believe? "
        "These days I'm hooked on {v}.",
        "You'd laugh: the girl who lived on {old} has completely converted to {v}.",
        "Remember when I couldn't get through a day without {old}? Totally over it; "
        "my new favourite is {v}.",
        "My new obsession is {v}, I've been having it every day, "
        "and I don't miss the old stuff at all.",
    ],
    "sister": [
        "Family news: {v}, my younger sister, got engaged last night!",
        "I'm taking my sister out for her birthday on Friday, {v} turns thirty "
        "and she's pretending not to care.",
        "Do you have siblings? I've just got the one sister, {v}, "
        "and she drives me up the wall.",
        "Spent the whole afternoon helping my sister {v} paint her new flat, "
        "I'm covered in it.",
        "Growing up, my sister and I shared a bedroom, and {v} still hasn't forgiven me "
        "for cutting her fringe.",
    ],
    "dog": [
        "{v} chewed through another lead today; honestly, worst-behaved dog in the park.",
        "My dog {v} has decided the postman is his mortal enemy, the barking is unreal.",
        "Got {v} a new squeaky toy, and the daft dog hasn't put it down all day.",
        "Bath night for our dog {v}, and he looked at me like I'd betrayed him forever.",
        "The vet says {v} needs to lose a bit of weight, "
        "so no more sneaky treats for my greedy pup.",
    ],
    "instrument": [
        "My {v} teacher says I'm finally ready for my first little recital, eek!",
        "Had to tune the {v} twice during rehearsal tonight, "
        "the heating in that hall is a nightmare.",
        "Do you think the neighbours mind when I play the {v} on Sunday mornings? "
        "Nobody's complained yet!",
        "I've joined a little amateur group on Thursdays, I'm on {v}, "
        "and we're murdering Vivaldi quite happily.",
        "Three hours practising the {v} today and I finally nailed that tricky passage!",
    ],
}
