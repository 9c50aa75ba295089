"""A fifth blind set of phrasing templates for the changing-facts conversations.

Written on 2026-12-05 by a helper asked to write test data blind. The only files read
were ``kit/synthetic_changes.py`` (for the events of its ``TEMPLATES`` dict, their
placeholders, ``VALUES`` and the data format), ``kit/synthetic.py`` (for the style of
the small talk) and the module docstring of ``kit/synthetic_changes_blind3.py`` (for the
docstring format; not its templates). Not opened, read, grepped or searched: anything
under ``kit/longterm/``, ``kit/change_eval.py``, ``kit/synthetic_changes_blind2.py``, the
templates of ``kit/synthetic_changes_blind3.py``, any other directory under ``/work``,
and anything in ``tests/``, ``solutions/``, ``notebooks/``, ``docs/``, ``benchmarks/`` or
``drills/``; no web or code search for fact-extraction code. The phrasings were written
as people chat, with no knowledge of how any extractor works.

:data:`BLIND5_TEMPLATES` has exactly the keys (events) of
:data:`kit.synthetic_changes.TEMPLATES`, five phrasings per event, with the same
placeholders: ``{v}`` the value, ``{old}`` the value before (only in "city change",
where it is optional, and "drink change", where most phrasings use it).
"""
from __future__ import annotations

__all__ = ["BLIND5_TEMPLATES"]

BLIND5_TEMPLATES = {
    "city": [
        "Can you believe I've called {v} home for almost a year now? Where does the time go?",
        "Honestly, the flat I rent in {v} costs a fortune, but I love my neighbourhood "
        "too much to leave.",
        "If you ever fancy a visit, my spare room in {v} is all yours!",
        "Living in {v} has turned me into a total morning person, who knew?",
        "The woman at the bakery on my street in {v} already knows me by name. "
        "Is that a good sign or a bad one?",
    ],
    "city again": [
        "Still here in {v}, still loving it, still getting lost in the back streets!",
        "Nope, haven't budged: I'm in {v} just like before and honestly can't picture "
        "living anywhere else.",
        "People keep asking if I'll move, but no, {v} is still home and I'm staying put.",
        "The landlord renewed my lease in {v} for another year, so you're stuck with me here!",
        "You know what, after all this time {v} still feels like the best place I've ever lived.",
    ],
    "city change": [
        "Well, the big move happened: I'm officially a resident of {v} now!",
        "Swapped {old} for {v} last month and I'm still hunting for the box with all my "
        "shoes in it.",
        "New city, new address: we've finally got the keys to our place in {v}, "
        "so that's home now!",
        "Did I mention we upped sticks? We're in {v} now, and the neighbours have already "
        "brought round a cake.",
        "Leaving {old} was harder than I thought, but waking up in {v} every morning "
        "makes up for it.",
    ],
    "job": [
        "My manager at {v} wants the slides by Friday, so my weekend's basically gone.",
        "Nine to five at {v} is more like eight to seven, if I'm honest!",
        "Signed my contract with {v} yesterday, so I'm officially one of their engineers. Eek!",
        "Have you heard of {v}? That's where I work; small place, but the people are lovely.",
        "My colleagues at {v} threw me a little welcome lunch today, which was sweet of them.",
    ],
    "job change": [
        "Big news: I've jumped ship and I'm at {v} now. The old place won't know what hit them!",
        "Cleared out my desk at the old job on Friday and started at {v} this Monday, "
        "talk about a whirlwind!",
        "So, {v} poached me! Better pay, nicer office, and no more of my old boss breathing "
        "down my neck.",
        "Remember how fed up I was at work? Well, I'm not there anymore, I've been at {v} "
        "for a fortnight now.",
        "First paycheck from {v} just landed, and it feels so good to be done with my "
        "previous employer.",
    ],
    "allergy": [
        "Had a proper scare at dinner, apparently I'm allergic to {v}. Who knew?",
        "The skin-prick test showed I'm allergic to {v}, so now I carry an EpiPen everywhere.",
        "Could you check the menu for {v} when we go out? I'm allergic and it's not worth "
        "the risk.",
        "My GP finally worked out why I kept getting hives: it's an allergy, to {v} of all things!",
        "Spent the afternoon at the clinic and came out with a diagnosis, a full-blown allergy "
        "to {v}. Fun times.",
    ],
    "allergy new": [
        "As if one allergy wasn't enough, the clinic says I've picked up another: {v}.",
        "Add {v} to my list of things that are trying to kill me, ha. Yep, another allergy.",
        "Would you believe the allergist found something else? I can't go near {v} now either.",
        "My EpiPen is getting a workout: turns out I'm allergic to {v} on top of everything else.",
        "Second allergy in a year, can you believe it? This time it's {v}.",
    ],
    "order": [
        "I finally caved and ordered that standing desk, order {v}. Fingers crossed it shows "
        "up this week!",
        "Could you keep an eye out for a parcel while I'm away? It's order {v}, the lamp "
        "I bought online.",
        "Order {v} says 'dispatched' but the tracking hasn't moved in three days, typical!",
        "Treated myself to a new rug online; the reference on the confirmation is {v}, "
        "so I'm keeping that handy.",
        "Just splurged on some garden chairs, they gave me {v} as the order reference.",
    ],
    "order cancel": [
        "I pulled the plug on order {v}, the delivery date kept slipping.",
        "Quick update on the desk: I cancelled it, so order {v} is no more.",
        "Rang customer service and got them to scrap order {v} for me, refund's on its way.",
        "Remember order {v}? Yeah, that's cancelled now, I found the same thing cheaper "
        "elsewhere.",
        "Order {v} is officially history; I hit cancel before it even shipped.",
    ],
    "drink": [
        "Nothing makes me happier than {v}, it's hands down my favourite drink.",
        "If you're buying, I'll have {v}: always and forever my drink of choice.",
        "Have you ever tried {v}? I'm obsessed, I could drink it all day.",
        "My friends tease me because I ask for {v} literally everywhere we go; what can I say, "
        "it's my favourite!",
        "Whenever I need a pick-me-up, it's {v} every single time, nothing else comes close.",
    ],
    "drink change": [
        "Funny thing, I can't even look at {old} anymore; {v} has completely taken over "
        "as my favourite.",
        "I've been cheating on {old} with {v}, and honestly it's my new favourite now.",
        "Remember when I couldn't get through a day without {old}? So over it, {v} is my "
        "new obsession.",
        "My taste buds have done a total U-turn: {v} is my favourite now, and I'm off "
        "{old} entirely.",
        "Plot twist: my favourite drink isn't what it used to be, I'm all about {v} now.",
    ],
    "sister": [
        "My little sister {v} just got engaged, I'm over the moon for her!",
        "Did I ever tell you about {v}? She's my sister, and she's the funny one in the family.",
        "Spent all Sunday on the phone with {v}, my sister; she always knows how to cheer me up.",
        "My sister's birthday is coming up and I have no idea what to get {v}. Any ideas?",
        "{v}, that's my sister, is coming to stay for a week, so the flat's a bit chaotic.",
    ],
    "dog": [
        "{v} chewed through another slipper this morning, that dog is a menace!",
        "Our pup {v} learned to sit today and I'm ridiculously proud.",
        "I'm typing this with {v} snoring on my feet. Best dog in the world, no contest.",
        "Have I shown you a photo of my dog? This is {v}, the goofiest boy alive.",
        "Took our dog {v} to the beach and he went absolutely wild chasing the waves.",
    ],
    "instrument": [
        "My fingers are killing me after {v} practice tonight, but I nailed the tricky bit!",
        "I've joined a little community ensemble and I'm playing the {v} in it, would you "
        "believe?",
        "Do you think the neighbours mind me playing the {v} at ten at night? Asking for "
        "a friend.",
        "My teacher says my {v} playing has really come on this term.",
        "Nothing relaxes me like playing my {v} for an hour after work.",
    ],
}
