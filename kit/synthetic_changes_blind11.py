"""An eleventh blind set of phrasing templates for the changing-facts conversations.

Written on 2026-12-05 by a helper asked to write test data blind. The only files read
were ``kit/synthetic_changes.py`` (for the events of its ``TEMPLATES`` dict, their
placeholders, ``VALUES`` and the data format), ``kit/synthetic.py`` (for the style of
the small talk) and the module docstring of ``kit/synthetic_changes_blind3.py`` (for the
docstring format; not its templates). Not opened, read, grepped, listed or searched:
anything under ``kit/longterm/``, ``kit/change_eval.py``, any other
``kit/synthetic_changes_blind*.py`` file (nor the templates of blind-3), any other
``/work/*`` directory than this worktree, and anything in ``tests/``, ``solutions/``,
``notebooks/``, ``docs/``, ``benchmarks/`` or ``drills/``; no web or code search for
fact-extraction code. The phrasings were written as people chat, with no knowledge of
how any extractor works.

:data:`BLIND11_TEMPLATES` has exactly the keys (events) of
:data:`kit.synthetic_changes.TEMPLATES`, five phrasings per event, with the same
placeholders: ``{v}`` the value, ``{old}`` the value before (only in "city change",
where it is optional, and "drink change", where most phrasings use it).
"""
from __future__ import annotations

__all__ = ["BLIND11_TEMPLATES"]

BLIND11_TEMPLATES = {
    "city": [
        "Still getting used to the trams here in {v}, but I think I'm going to love living "
        "here.",
        "You know what the best part of living in {v} is? The bakery downstairs opens at six!",
        "My landlord here in {v} finally answered my email about the heating. Only took him a "
        "month!",
        "Now that I'm settled in {v}, I've been exploring the neighbourhood every evening. So "
        "many little streets to walk.",
        "Anyone who says {v} is boring hasn't lived here, trust me, I wouldn't swap my little "
        "flat for anything.",
    ],
    "city again": [
        "Another year in {v} and I still haven't found a reason to leave. Have you ever felt "
        "that way about a place?",
        "People keep asking if I'm moving on, but nope, I'm staying put in {v}.",
        "The seasons turn and here I am, still in {v}, still happy about it.",
        "Walked past my building in {v} tonight and thought: yep, still home. Isn't that a "
        "nice feeling?",
        "No plans to go anywhere else, {v} suits me just fine for now.",
    ],
    "city change": [
        "Well, the lease ran out and we took the plunge: we're living in {v} now, and {old} "
        "already feels like ages ago.",
        "Spent the whole weekend unpacking in {v}. Can you believe I've actually moved again?",
        "So {old} is officially behind me! The new flat in {v} is smaller but so much "
        "brighter.",
        "Do you remember how I always complained about the rent in {old}? Problem solved, "
        "I've moved to {v}.",
        "New postcode, new everything: I'm a {v} resident now, believe it or not.",
    ],
    "job": [
        "Lunch breaks at {v} are the best thing about the job, they actually feed us properly.",
        "Can you believe it's already been a month since I signed my contract with {v}?",
        "My manager at {v} wants me to lead the next project. Scary but exciting!",
        "I'm on the payroll at {v} now, so dinner's on me next time!",
        "Honestly, the commute to {v} is the only part of my job I don't love.",
    ],
    "job change": [
        "Cleared out my desk at the old office on Friday, and on Monday I walked into {v} as "
        "their newest hire.",
        "After five years I finally did it, I resigned, and {v} snapped me up a week later!",
        "My staff badge for {v} arrived today, which makes leaving my old job feel real at "
        "last.",
        "Remember how miserable my last job made me? That's over, I'm working for {v} now and "
        "I actually like Mondays.",
        "Told my old boss I was leaving and he didn't even try to change my mind. Anyway, I've "
        "been at {v} since Monday and it's a breath of fresh air.",
    ],
    "allergy": [
        "Had to send my plate back last night because it had {v} in it, and I'm allergic, so "
        "it's not optional.",
        "The allergist confirmed it: {v} and I can never be friends.",
        "Could you remind me to pack my EpiPen? Even a tiny bit of {v} and I'm in real "
        "trouble, I'm allergic.",
        "Why is {v} in everything these days? Being allergic makes reading labels a full-time "
        "job.",
        "I found out the hard way that I'm allergic to {v}: hives all over my arms, not fun.",
    ],
    "allergy new": [
        "Just when I thought I had my allergies figured out, {v} joins the list. Wonderful.",
        "So, that rash last week? Apparently I'm now allergic to {v} too, on top of everything "
        "else.",
        "My doctor added {v} to my allergy card yesterday, that makes two things I have to "
        "dodge.",
        "Would you believe my body has started reacting to {v} as well? One allergy wasn't "
        "enough, apparently.",
        "Put {v} on the list of things I'm allergic to, the latest test came back positive "
        "this morning.",
    ],
    "order": [
        "Still waiting on that parcel: the tracking for order {v} hasn't moved since Tuesday. "
        "Is that normal?",
        "I splurged on a proper office chair, order {v}, and now I'm refreshing the delivery "
        "page every hour.",
        "If a courier turns up while you're at mine, it's order {v}, the new curtains!",
        "Fingers crossed my order {v} shows up before the weekend, I really need that "
        "mattress.",
        "The confirmation email came through for my bike rack, {v} is the order reference, so "
        "it should be here within a week.",
    ],
    "order cancel": [
        "I got fed up waiting and cancelled order {v}, I'll just buy one in a shop like a "
        "normal person.",
        "Order {v}? Gone. I called it off this morning and they promised a full refund.",
        "They kept pushing the delivery date back, so I asked them to cancel my order {v} "
        "altogether.",
        "Good news on the refund front: the cancellation of my order {v} finally went through.",
        "You know that lamp I was waiting for? I scrapped it: order {v} is cancelled and the "
        "money's back in my account.",
    ],
    "drink": [
        "Nothing makes me happier on a lazy afternoon than {v}, it's hands down my favourite "
        "drink.",
        "If you ever want to bribe me, {v} is the way to go, I could drink it all day long.",
        "Is it weird that I plan my mornings around {v}? It's honestly my favourite thing to "
        "drink.",
        "You'll laugh, but I've got a whole kitchen shelf just for {v}, my absolute favourite "
        "drink.",
        "Whenever we meet up, just get me {v}. Nothing beats it, in my book!",
    ],
    "drink change": [
        "I don't know what happened, but {old} just doesn't do it for me anymore; {v} is my "
        "new favourite.",
        "My drink of choice has switched completely: bye-bye {old}, hello {v}!",
        "My friends can't believe I've given up {old}, but {v} won me over and there's no "
        "going back.",
        "These days you'll catch me with {v} instead of {old}. Tastes change, don't they?",
        "My old favourite drink has been dethroned, {v} is top of my list now and I'm a little "
        "obsessed.",
    ],
    "sister": [
        "{v}, my little sister, has decided she's taking up painting, so I'm expecting a lot "
        "of portraits.",
        "I'm helping my sister {v} shift her furniture this weekend, wish me luck.",
        "Growing up, my sister {v} and I fought over everything, and now we talk every day.",
        "Have I ever shown you a photo of {v}? She's my sister, and people say we could be "
        "twins.",
        "It's my sister's birthday on Friday and I still have no idea what to get {v}. Any "
        "ideas?",
    ],
    "dog": [
        "{v} chewed through another shoe this morning, that dog of mine has no shame.",
        "Taking my dog {v} to the park is the best part of my day, he goes mad for the ducks.",
        "Sorry for the slow reply! My dog {v} needed a walk, and you can't argue with him when "
        "he's holding his lead.",
        "Do you think dogs dream? My pup {v} keeps twitching and woofing in his sleep.",
        "The groomer said our {v} was the best-behaved dog she'd seen all week, I'm so proud!",
    ],
    "instrument": [
        "My fingers are sore from practising the {v}, but I finally nailed that tricky "
        "passage!",
        "Is there anything more satisfying than playing the {v} with the windows open on a "
        "summer evening?",
        "I've got a little recital next month, just me and my {v}, so I'm a nervous wreck.",
        "Lessons on the {v} are going better than I expected, my teacher even smiled once.",
        "I took the {v} out of its case for the first time in weeks and played until the "
        "neighbours knocked.",
    ],
}
