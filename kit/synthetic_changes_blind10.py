"""A tenth blind set of phrasing templates for the changing-facts conversations.

Written on 2026-12-05 by a helper asked to write test data blind. The only files read
were ``kit/synthetic_changes.py`` (for the events of its ``TEMPLATES`` dict, their
placeholders, ``VALUES`` and the data format), ``kit/synthetic.py`` (for the style of
the small talk) and the module docstring of ``kit/synthetic_changes_blind3.py`` (for the
docstring format, not its templates). Not opened, read, grepped or searched: anything
under ``kit/longterm/``, ``kit/change_eval.py``, any other ``kit/synthetic_changes_blind*.py``
file (nor the templates of blind-3), any other directory under ``/work`` than this
worktree, and anything in ``tests/``, ``solutions/``, ``notebooks/``, ``docs/``,
``benchmarks/`` or ``drills/``; no web or code search for fact-extraction code. The
phrasings were written as people chat, with no knowledge of how any extractor works.

:data:`BLIND10_TEMPLATES` has exactly the keys (events) of
:data:`kit.synthetic_changes.TEMPLATES`, five phrasings per event, with the same
placeholders: ``{v}`` the value, ``{old}`` the value before (only in "city change",
where it is optional, and "drink change", where most phrasings use it).

Changed by the lead after the one measurement: the third "sister" phrasing was, but for a
comma, one of blind-9's (written at the same time, unseen); its last full stop is now "!",
so each conversation's phrasings name one split (the split's figures are unchanged).
"""
from __future__ import annotations

__all__ = ["BLIND10_TEMPLATES"]

BLIND10_TEMPLATES = {
    "city": [
        "Rent in {v} keeps creeping up, but I can't imagine living anywhere else right now.",
        "Do you know what I love about living in {v}? You can walk everywhere, even at midnight.",
        "My neighbours are lovely, honestly. Best thing about settling down in {v} so far.",
        "Walked home by the water tonight and thought, yep, I'm lucky I get to live in {v}.",
        "Anyone who comes to stay at my place in {v} gets dragged to the bakery round the "
        "corner, no exceptions!",
    ],
    "city again": [
        "Yep, still in {v}, still paying too much for a tiny flat, still not complaining.",
        "People keep asking if I'll move on, but no, I'm staying put in {v}. It's home.",
        "Another year living in {v} and I still get lost in the old town, can you believe it?",
        "Nothing's changed on the home front: same street, same flat, same {v}.",
        "I renewed the lease on my place in {v} today, so I'm not going anywhere for another "
        "year!",
    ],
    "city change": [
        "We finally did it: the last box left {old} on Friday and now we're unpacking in {v}.",
        "First week living in {v} and I've already found a decent bakery. The move wore me "
        "out, though!",
        "Can you believe I don't live in {old} anymore? The new flat in {v} even has a balcony.",
        "Moving is the worst, isn't it? Still, our new place in {v} makes all the packing "
        "worth it.",
        "Update your address book, by the way: I'm a {v} resident now, the movers left "
        "yesterday.",
    ],
    "job": [
        "My team at {v} is small, but everyone actually gets along, which is rare.",
        "Long day again. My boss at {v} booked four meetings back to back, can you believe it?",
        "Signed the contract yesterday, so it's official: I'm on the payroll at {v}!",
        "Did I tell you my staff badge at {v} has the worst photo of me ever? I have to wear "
        "it all day.",
        "The commute's forty minutes each way now that I'm working for {v}, so I've gotten "
        "into podcasts.",
    ],
    "job change": [
        "Cleared out my desk at the old company last month, and so far working at {v} is "
        "way better.",
        "Remember how miserable I was at work? Well, I quit, and now I'm at {v}. Best "
        "decision ever.",
        "Yeah, new employer, new commute: {v} poached me from my old job a few weeks back.",
        "It's weird not having my old colleagues around, but my new colleagues at {v} are "
        "growing on me.",
        "Did I mention I changed jobs? I'm with {v} now, and no more Sunday emails from my "
        "old boss!",
    ],
    "allergy": [
        "Found out the hard way that I'm allergic to {v}. Hives everywhere, it wasn't pretty.",
        "I carry an EpiPen around now, since any contact with {v} can set off my allergy.",
        "The allergist went through my results and yep, {v} came up positive. So that's that.",
        "Do me a favour and keep {v} away from me, would you? I'm seriously allergic.",
        "My body has apparently declared war on {v}: the clinic says it's a proper allergy.",
    ],
    "allergy new": [
        "One allergy wasn't enough, apparently: I'm now reacting to {v} as well.",
        "Add {v} to my list of allergies, would you? Found that out at the clinic this week.",
        "The doctor says my old allergy's still there, and now there's a second one: {v}.",
        "Wow, so I had another allergic reaction, and this time it was {v}. That makes two "
        "things I can't go near!",
        "Can you believe I've picked up a brand-new allergy at my age? It's {v}, of all things.",
    ],
    "order": [
        "The lamp I bought online still hasn't shipped; it's order {v}, if I need to chase "
        "them up.",
        "Finally ordered that sofa! The order reference is {v}, and they say six to eight weeks.",
        "{v} is my order number for the new rug, so fingers crossed it turns up by Friday.",
        "I've got a parcel coming, order {v}, a little side table, and I'm weirdly excited "
        "about it.",
        "Do you think it's normal for a delivery to take three weeks? My order, {v}, still "
        "says processing.",
    ],
    "order cancel": [
        "The shop kept pushing the delivery date back, so I cancelled order {v} altogether.",
        "Remember that rug I was waiting for? Forget it, order {v} is cancelled and I've "
        "asked for a refund.",
        "Got the cancellation confirmation for order {v} this morning. Such a relief!",
        "Well, {v} is dead: I rang customer service and called the whole order off.",
        "No point waiting anymore, right? I told them to scrap order {v}, and the money's "
        "already back on my card.",
    ],
    "drink": [
        "Honestly, give me {v} and I'm happy for the rest of the day. No other drink comes "
        "close.",
        "My kitchen is basically stocked with {v}, it's my absolute favourite thing to drink.",
        "If there's {v} on the menu, I'm ordering it, no question. It's my favourite drink "
        "by miles.",
        "Do you have a favourite drink? Mine's {v}, has been for ages.",
        "I go through so much {v} it's embarrassing, but what can I say, it's my favourite "
        "drink.",
    ],
    "drink change": [
        "Weird thing: I used to love {old} and now I can barely stand it. {v} is my new "
        "favourite.",
        "Whatever happened to my {old} phase? Gone! These days my favourite drink is {v}.",
        "I've fully switched teams: {v} is the only thing I want to drink now, {old} is history.",
        "Cleared the last of the {old} out of my cupboard, because honestly {v} has taken "
        "over as my favourite.",
        "My taste buds have changed completely, you know? My favourite drink is {v} now, "
        "never thought I'd say that.",
    ],
    "sister": [
        "{v}, my sister, rang me at midnight again just to chat. Typical!",
        "Spent the whole Saturday helping my sister {v} paint her flat. My arms are killing me!",
        "Have I ever told you about my sister? Her name's {v} and she's the funniest person "
        "I know!",
        "It's my sister's birthday next week, and I still have no idea what to get {v}. Any "
        "ideas?",
        "Growing up, my sister {v} and I shared a room, and we fought constantly, the way "
        "sisters do.",
    ],
    "dog": [
        "{v}, our dog, chewed up another of my shoes today. Remind me why I wanted a puppy?",
        "Took our dog {v} to the park this morning, and of course he rolled in something "
        "disgusting.",
        "Do you like dogs? You'd love ours, {v}, she greets everyone like an old friend.",
        "The vet says {v} needs to lose a bit of weight, so no more treats for my poor dog.",
        "Every evening it's the same: my dog {v} sits by the door staring at me until I grab "
        "the lead.",
    ],
    "instrument": [
        "My fingers are sore from practising the {v} all weekend, but I finally nailed that "
        "tricky piece!",
        "Do you think it's too late to get good at the {v}? I play most evenings and still "
        "feel like a beginner.",
        "Lessons are going well, thanks! My teacher says my {v} playing has come on loads.",
        "The neighbours haven't complained yet, which is a miracle, given how often I play "
        "the {v}.",
        "I've got my first little recital next month, playing the {v} in front of actual "
        "people, and I'm terrified!",
    ],
}
