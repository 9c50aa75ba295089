"""The word lists of the rule-based fact extractor (:mod:`kit.longterm.fact_rules`).

General language, not the phrasings of any test: value lists of the word-valued
attributes, the cue words (with their inflections) of the name-valued ones, the last
words that make a name an organisation's, the verbs that cancel, leave or replace what
they name (regular expressions), and the capitalised words that are never a name. A
``.`` in a cue stands for the space of a multi-word cue ("first.day").
"""
from __future__ import annotations

import re

__all__ = ["ATTRIBUTES", "CUES", "ORGANISATIONS", "CANCEL_VERBS", "LEAVE_VERBS", "SUBJECT_CHANGES",
           "CHANGE_VERBS",
           "COMMON_WORDS", "NAME_PREFIXES", "CAPITALS", "SMALL_LETTERS"]

# attribute -> (holds many values at once, word list or None for a capitalised name)
ATTRIBUTES = {
    "home city": (False, None),
    "employer": (False, None),
    "sister's name": (False, None),
    "dog's name": (False, None),
    "allergy": (True, ("shellfish", "sesame", "hazelnuts", "kiwis", "peanuts", "penicillin",
                       "latex", "strawberries")),
    "favourite drink": (False, ("matcha", "kombucha", "chai", "espresso", "lemonade", "kefir",
                                "horchata", "cocoa")),
    "instrument": (False, ("cello", "bassoon", "ukulele", "harpsichord", "oboe", "banjo")),
    "car": (False, ("Volvo", "Citroen", "Skoda", "Subaru")),
    "open order": (True, None),
}
# name-valued attribute -> the words (with their inflections) that say a name is its value
CUES = {
    "sister's name": "sister sisters sis",
    "dog's name": "dog dogs doggy puppy puppies pup pooch",
    "employer": "job jobs work works worked working workplace employer employers employed "
                "employee employment hire hires hired hiring join joins joined joining offer "
                "offered company companies firm firms boss manager colleague colleagues "
                "coworker coworkers office notice resign resigned resigning quit quitting "
                "career position role contract salary payroll promoted promotion interview "
                "internship onboarding shift shifts fired first.day first.week last.day "
                "started.at starting.at start.at started.with finished.up.at signed.with "
                "laid.off analyst engineer developer designer nurse teacher accountant "
                "consultant editor researcher scientist lawyer architect programmer intern "
                "clerk cashier jumped.ship taken.on day.one",
    "home city": "live lives lived living life.in home house flat apartment move moves moved "
                 "moving mover movers relocate relocates relocated relocating relocation "
                 "settle settles settled settling based neighbourhood neighborhood neighbours "
                 "neighbors address resident rent rents rented renting lease landlord unpack "
                 "unpacked unpacking local locals hometown emigrated new.place put.down.roots "
                 "packed.up",
}
# last words that make a name an organisation's (so an employer, never a city or a pet)
ORGANISATIONS = set("""
Labs Lab Laboratories Press Robotics Foods Studios Studio Clinic Analytics Bank Inc Ltd LLC
Group Corp Corporation Company Co Industries Systems Solutions Technologies Tech Partners
Associates Consulting Media Software Hospital University College School Agency Holdings
Capital Ventures Bakery Cafe Restaurant Motors Airlines Pharma Health Energy Logistics
Networks Games Publishing Records Insurance Finance Design Works Foundation Institute
""".split())
# verbs (and phrases) that undo a purchase: an order number in their sentence is undone
CANCEL_VERBS = (
    r"cancel(?:s|led|ed|ling|ing)?|cancellation|call(?:s|ed|ing)?\s+(?:it\s+|them\s+)?off|"
    r"scrap(?:s|ped|ping)?|drop(?:s|ped|ping)?(?!\s+(?:by|in)\b)|"
    r"return(?:s|ed|ing)?(?!\s+(?:to|from|home)\b)|"
    r"(?:send|sends|sent|sending|take|took|taking)\s+(?:\S+\s+){0,3}?back|"
    r"(?:went|go|goes|going|gone)\s+back|money\s+back|refund(?:s|ed|ing)?|"
    r"withdr[ae]w|backed\s+out\s+of|pulled\s+the\s+plug\s+on|ditch(?:ed|ing)?|nix(?:ed|ing)?")
# verbs (and phrases) that leave what their object names: negative words themselves, so
# that a negation before one is turned back ("can't stop drinking chai")
LEAVE_VERBS = (
    r"quit(?:s|ting)?|left|leav(?:e|es|ing)|resign(?:s|ed|ing)?(?:\s+from)?|"
    r"hand(?:s|ed|ing)?\s+in\s+(?:my\s+|her\s+|his\s+)?notice(?:\s+at)?|last\s+day\s+at|"
    r"(?:gave|give|given|giving)\s+up(?:\s+on)?|(?:gone|went|go|going)\s+(?:\w+\s+)?off|"
    r"stop(?:s|ped|ping)?|outgr(?:ew|own)|gr(?:ew|own)\s+out\s+of|finish(?:ed)?\s+(?:up\s+)?at|"
    r"f[ae]ll(?:en)?\s+out\s+of\s+love\s+with")
# phrases that end what their subject (the value before them) names: "matcha is history"
SUBJECT_CHANGES = (r"used\s+to\s+be|(?:is|was|'s|are|were)\s+(?:now\s+)?(?:history|gone|"
                   r"done|finished|a\s+thing\s+of\s+the\s+past|in\s+the\s+past)")
# every verb, phrase or word that ends or undoes what its object names
CHANGE_VERBS = CANCEL_VERBS + "|" + LEAVE_VERBS + (
    r"|(?:am|'m|is|are|'re)\s+off|" + SUBJECT_CHANGES + r"|used\s+to|instead\s+of|rather\s+than|"
    r"in\s+place\s+of|"
    r"switch(?:ed|ing)?\s+(?:away\s+)?from|swap(?:s|ped|ping)?|trad(?:e|es|ed|ing)|"
    r"replac(?:e|es|ed|ing)(?!\s+(?:by|with)\b)|old|former|previous|ex|"
    r"moved\s+(?:away\s+from|out\s+of|on\s+from)|(?:said\s+)?goodbye(?:\s+to)?|farewell(?:\s+to)?|"
    r"(?:tired|sick|bored)\s+of|fed\s+up\s+with|done\s+with")
# sentence openers and other capitalised words that are never a name
COMMON_WORDS = set("""
I I'm I've My Me Mine We We're We've Our Us You Your He She His Her They Their It Its The A An
This That These Those There Here Some Any No Not Yes Yeah Nope Okay Ok OK And But So Or Then
Also Just Still Finally Anyway Anyhow Well Oh Ah Ugh Yay Wow Hey Hi Hello Guess News Update
Quick Big Little Good Great Bad Sad Happy Honestly Actually Basically Seriously Luckily Sadly
Apparently Officially Surprisingly Weirdly Obviously Today Tonight Yesterday Tomorrow Last Next
Now Soon Since After Before When Where What Why How Who Which If As At In On For From To With
Of By About Into Turns Had Have Has Got Get Went Did Do Does Was Were Is Are Am Been Said
Talked Took Started Ended Changed Practised Practiced Can Can't Could Would Should Will Must
Might Spent Made Found Let Life Home New Old Work Job Sister Dog Mom Mum Dad Doctor Boxes
Everything Nothing Something Never Always Thanks Sorry Please Fun Long Short Ended Bought
Placed Ordered Dear Also Plus Even Only Maybe Perhaps First Second Third Another Other Every
Most Much Many Own Such Same Whole Live Moved Moving Living Still Loving Love Missing Miss
January February March April May June July August September October November December
Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mr Mrs Ms Dr Fair Tell Take Ha Haha
Lol Cheers Congrats Congratulations Nice Cool Sure Right True Exactly Absolutely Definitely
""".split())
# common words that begin a place name: kept before a name ("New York", "Long Beach")
NAME_PREFIXES = {"New", "Little", "Long", "Great"}


def _letters(test) -> str:
    """The letters of the Latin, Greek and Cyrillic blocks that pass ``test``, as the
    inside of a character class ("Zürich", "São Paulo", "İstanbul", "Kraków")."""
    blocks = (range(0x41, 0x250), range(0x370, 0x530), range(0x1E00, 0x1F00))
    return "".join(re.escape(chr(c)) for block in blocks for c in block
                   if chr(c).isalpha() and test(chr(c)))


# a name's letters: "Zürich", "São Paulo", "İstanbul", "Kraków" (inside a character class)
CAPITALS, SMALL_LETTERS = _letters(str.isupper), _letters(str.islower)
