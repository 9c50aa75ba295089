"""The word lists of the rule-based fact extractor (:mod:`kit.longterm.fact_rules`).

General language, not the phrasings of any test: value lists of the word-valued
attributes, the cue words (with their inflections) of the name-valued ones, the last
words that make a name an organisation's, the verbs that cancel, leave or replace what
they name (regular expressions), and the capitalised words that are never a name; for
the scope principles (:mod:`kit.longterm.fact_scope`): what a negation governs when it
denies nothing, the agents whose actions or facts are not the speaker's, the words of
condition and wish, the question openers. A ``.`` in a cue stands for the space of a
multi-word cue ("first.day").
"""
from __future__ import annotations

import re

__all__ = ["ATTRIBUTES", "CUES", "ORGANISATIONS", "CANCEL_VERBS", "LEAVE_VERBS", "SUBJECT_CHANGES",
           "CHANGE_VERBS", "COMMON_WORDS", "EPITHETS", "NAME_PREFIXES", "CAPITALS",
           "SMALL_LETTERS", "NEGATED_ATTITUDES", "AGENTS", "HYPOTHETICAL", "PREFERENCES",
           "AGENT_NAMES", "QUESTION_OPENERS", "EMBEDDING_VERBS", "EARLIER", "SENTENCE_OPENERS",
           "LANDMARKS", "DISTANT_FUTURE"]

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
    "sister's name": "sister sisters sis sibling",
    "dog's name": "dog dogs doggy puppy puppies pup pooch labrador retriever spaniel terrier "
                  "poodle beagle collie dachshund greyhound whippet corgi husky pug mutt doggo "
                  "pupper",
    "employer": "job jobs work works worked working workplace employer employers employed "
                "employee employment hire hires hired hiring join joins joined joining offer "
                "offered company companies firm firms boss manager colleague colleagues "
                "coworker coworkers office notice resign resigned resigning quit quitting "
                "career position role contract salary payroll promoted promotion "
                "internship onboarding shift shifts fired first.day first.week last.day "
                "started.at starting.at start.at started.with finished.up.at signed.with "
                "laid.off badge analyst engineer developer designer nurse teacher accountant "
                "consultant editor researcher scientist lawyer architect programmer intern "
                "clerk cashier jumped.ship taken.on day.one poach poached recruited headhunted "
                "pays.me paying.me paid.me payday paycheck paycheque payslip",
    "home city": "live lives lived living life.in home house flat apartment move moves moved "
                 "moving mover movers relocate relocates relocated relocating relocation "
                 "settle settles settled settling based neighbourhood neighborhood neighbours "
                 "neighbors address resident rent rents rented renting lease landlord unpack "
                 "unpacked unpacking local locals hometown emigrated new.place put.down.roots "
                 "packed.up upped.sticks our.bags my.bags my.place our.place spare.room "
                 "my.street our.street new.city new.town stayed.put staying.put still.in "
                 "still.here.in here.in for.good waking.up.in wake.up.in",
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
    r"scratch(?!\s+(?:on|off)\b)|"
    r"kill(?:s|ed|ing)?(?=\s+(?:it|them|the\s+order|my\s+order|that|off)\b)|"
    r"scrap(?:s|ped|ping)?|drop(?:s|ped|ping)?(?!\s+(?:by|in)\b|\s+(?:\S+\s+){0,2}?off\b)|"
    r"return(?:s|ed|ing)?(?!\s+(?:to|from|home)\b)|"
    r"(?:send|sends|sent|sending|take|took|taking)\s+(?:\S+\s+){0,3}?back|"
    r"(?:went|go|goes|going|gone)\s+back|money\s+back|refund(?:s|ed|ing)?|"
    r"withdr(?:aw|ew|awn|awing|aws)|back(?:s|ed|ing)?\s+out(?:\s+of)?|"
    r"pull(?:s|ed|ing)?(?:\s+the\s+plug)?(?!\s+(?:up|over|in|into|through|off|apart)\b)|"
    r"ditch(?:ed|ing)?|nix(?:ed|ing)?|abandon(?:s|ed|ing)?|void(?:s|ed)?|revok(?:e|ed|ing)|"
    r"rescind(?:s|ed|ing)?|"
    r"chang(?:e|ed|ing)\s+(?:my|our)\s+minds?\s+(?:about|on)|forget(?:\s+about)?")
# verbs (and phrases) that leave what their object names: negative words themselves, so
# that a negation before one is turned back ("can't stop drinking chai")
LEAVE_VERBS = (
    r"quit(?:s|ting)?|left|leav(?:e|es|ing)|escap(?:e|es|ed|ing)|fired(?!\s+up)|sacked|"
    r"laid\s+off|let\s+go|layoffs?(?=\s+at\b)|redundanc(?:y|ies)(?=\s+at\b)|"
    r"turn(?:s|ed|ing)?\s+down|declin(?:e|es|ed|ing)|reject(?:s|ed|ing)?|said\s+no\s+to|"
    r"resign(?:s|ed|ing)?(?:\s+from)?|"
    r"(?:hand|turn)(?:s|ed|ing)?\s+in\s+(?:my\s+|her\s+|his\s+)?(?:notice|resignation|badge|"
    r"keys|laptop)(?:\s+at)?|last\s+day\s+at|kick(?:s|ed|ing)?(?!\s+off\b)|"
    r"(?:gave|give|given|giving)\s+(?:it\s+|them\s+)?up(?:\s+on)?|"
    r"(?:gone|went|go|going)\s+(?:\w+\s+)?off|"
    r"stop(?:s|ped|ping)?|put(?:s|ting)?\s+(?:\S+\s+){0,2}?down(?!\s+roots)|outgr(?:ew|own)|gr(?:ew|own)\s+out\s+of|finish(?:ed)?\s+(?:up\s+)?at|"
    r"f[ae]ll(?:en)?\s+out\s+of\s+love\s+with|"
    # parting with a thing one owns ("I sold my Volvo", "got rid of the car")
    r"(?:sold|sells?|selling)(?=\s+(?:my|our|the|it|them|\S+\s+(?:to|for)\b))|got\s+rid\s+of|"
    r"(?:gave|give|giving)\s+away|trad(?:e|ed|ing)\s+in")
# phrases that end what their subject (the value before them) names: "matcha is history"
# (not "out for delivery": on its way)
SUBJECT_CHANGES = (r"used\s+to\s+be|(?:is|was|'s|are|were)\s+(?:now\s+)?(?:history|gone|"
                   r"done|finished|out(?!\s+for\s+deliver)|over|closed|dead\s+to\s+me|"
                   r"a\s+thing\s+of\s+the\s+past|"
                   r"in\s+the\s+past|behind\s+(?:me|us))|"
                   r"lost\s+(?:all\s+)?(?:its|their)\s+(?:charm|appeal|magic|shine|spark|novelty)|"
                   r"(?:just\s+)?(?:faded|wore\s+off|fizzled\s+out)|"
                   # a company that ends the job: "Acme Labs let me go", "... laid me off"
                   r"let\s+(?:me|us)\s+go|laid\s+(?:me|us)\s+off|fired\s+(?:me|us)|"
                   r"made\s+(?:me|us)\s+redundant|"
                   r"(?:is|was|'s|are)\s+in\s+the\s+rear[\s-]?view(?:\s+mirror)?")
# every verb, phrase or word that ends or undoes what its object names
CHANGE_VERBS = CANCEL_VERBS + "|" + LEAVE_VERBS + (
    r"|(?:am|'m|is|are|'re)\s+off|" + SUBJECT_CHANGES + r"|instead\s+of|rather\s+than|"
    # a past habit, not "getting used to" (growing accustomed: "getting used to Oslo")
    r"(?<!get\s)(?<!gets\s)(?<!got\s)(?<!getting\s)(?<!am\s)(?<!'m\s)(?<!be\s)used\s+to|"
    r"in\s+place\s+of|(?:tak(?:e|es|en|ing)|took)\s+over\s+from|overt(?:ook|aken|akes)|"
    r"switch(?:ed|ing)?\s+(?:away\s+)?from|swap(?:s|ped|ping)?|trad(?:e|es|ed|ing)|"
    r"replac(?:e|es|ed|ing)(?!\s+(?:by|with)\b)|(?<!same\s)old|former|previous|ex|"
    r"moved\s+(?:away\s+from|out\s+of|on\s+from)|(?:said\s+)?goodbye(?:\s+to)?|farewell(?:\s+to)?|"
    r"(?:bye[\s-])?bye(?:\s+to)?|so\s+long|"
    r"from(?=(?:\s+\S+){1,4}?\s+(?:to|into)\s)|"
    r"(?:tired|sick|bored)\s+of|fed\s+up\s+with|done\s+with|"
    r"(?:am|'m|are|'re|so|totally|completely)\s+over(?!\s+(?:the\s+moon|in|at|here|there)\b)|"
    r"moved\s+on\s+from")
# sentence openers and other capitalised words that are never a name
COMMON_WORDS = set("""
I I'm I've My Me Mine We We're We've Our Us You Your He She His Her They Their It Its The A An
This That These Those There Here Some Any No Not Yes Yeah Nope Okay Ok OK And But So Or Then
Also Just Still Finally Anyway Anyhow Well Oh Ah Ugh Yay Wow Hey Hi Hello Bye Goodbye Farewell
Welcome Guess News Update
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
Mondays Tuesdays Wednesdays Thursdays Fridays Saturdays Sundays Weekend Weekends
Order Orders Parcel Package Delivery Purchase
Everyone Everybody Someone Somebody Anyone Anybody Nobody None Noone People Folks Guys Friends
Nothing Anything Each Both All Either Neither Whoever Whatever Whenever Wherever
One Two Three Four Five Six Seven Eight Nine Ten Eleven Twelve Twenty Thirty Forty Fifty
Hundred Thousand Half Dozen Couple Few Several
""".split()) | set(  # interjections and chat abbreviations: never a name ("Mm", "Eek", "Ngl");
    # "Team" too: chat's "I side with" ("Team kefir now")
    "Mm Mmm Hmm Hm Um Umm Uh Er Erm Meh Eek Ooh Oh Aw Aww Yikes Phew Oops Whoa Huh Ahh Eh "
    "Tbh Ngl Omg Btw Fyi Imo Idk Lmao Rofl Yup Yep Nah Welp Ouch Ugh Argh Woohoo Hooray "
    "Team".split())
# capitalised words that open a new sentence when chat leaves out the full stop before
# them ("... all the way now How was your week?"); never inside a name
SENTENCE_OPENERS = (r"It|It's|That|That's|This|He|She|They|We|We're|We've|You|There|Here|"
                    r"Not|No|Did|Do|Does|Is|Are|Was|Were|Can|Could|Would|Should|Will|Have|"
                    r"Has|Had|How|What|Why|When|Where|Who|Which|Also|Anyway|So|But|And|Oh|"
                    r"Well|Honestly|Thanks|Sorry|Yes|Yeah|Ha|Haha|Wow|Hope|Let's|Let|Hey|Hi|"
                    r"Hello|Guess|Seriously|Sadly|Luckily|Speaking|Btw|Anyhow")
# last words that make a name a place inside a city (a street, a park, a building): never a
# home city, an employer or an agent's name ("Frogner Park", "Markveien Street")
LANDMARKS = set("""
Street St Road Rd Avenue Ave Lane Boulevard Square Park Station Airport Market Beach Bridge
House Hall Garden Gardens Museum Cathedral Church Castle Tower Hill District Quarter Centre
Center Mall Stadium Palace Harbour Harbor Port Way Place Row Terrace Close Court Drive
""".split())
# common words that begin a place name: kept before a name ("New York", "Long Beach")
NAME_PREFIXES = {"New", "Little", "Long", "Great"}
# words of sympathy or affection put before a name, never a part of it ("Poor Rex has a
# cold", "Silly Luna"): left out before another capitalised word (alone they may be a name)
EPITHETS = {"Poor", "Silly", "Sweet", "Brave", "Lucky", "Naughty", "Cheeky", "Clever",
            "Darling", "Lovely", "Dearest", "Grumpy", "Sleepy", "Lazy"}


def _letters(test) -> str:
    """The letters of the Latin, Greek and Cyrillic blocks that pass ``test``, as the
    inside of a character class ("Zürich", "São Paulo", "İstanbul", "Kraków")."""
    blocks = (range(0x41, 0x250), range(0x370, 0x530), range(0x1E00, 0x1F00))
    return "".join(re.escape(chr(c)) for block in blocks for c in block
                   if chr(c).isalpha() and test(chr(c)))


# a name's letters: "Zürich", "São Paulo", "İstanbul", "Kraków" (inside a character class)
CAPITALS, SMALL_LETTERS = _letters(str.isupper), _letters(str.islower)


# -- the principles' word lists (kit.longterm.fact_scope) --------------------------------
# what a negation governs when it is an intensifier or an idiom, not a denial of the link
# between the speaker and a value: "can't believe", "couldn't be happier", "not bad"
NEGATED_ATTITUDES = (
    r"believe|imagine|wait|complain|thank|recommend|stress|deny|lie|lying|regret|doubt|"
    r"wonder|forget|mind|get\s+over|think|thought|reckon|suppose|expect(?:ed)?|knew|"
    r"imagined|dreamed|dreamt|perfect|ideal|cheap|easy|quiet|warm|sunny|fancy|flawless|"
    r"help|resist|beat|agree|care|emphasi[sz]e|say\s+enough|"
    r"(?:be|been|feel|felt|get|got|have\s+been)\s+(?:any\s+)?(?:happier|better|prouder|"
    r"gladder|more|less)|bad|too\s+bad|half\s+bad|only|just|long\s+ago|that\s+long|"
    r"(?:a|one)\s+(?:single\s+)?(?:day|week|moment)|"
    # a negated doubt is about the speaker's mind, not the fact ("wasn't sure about X"),
    # and a negated failure praises ("hasn't let me down", "never disappoints")
    r"sure|certain|convinced|let\s+(?:me|us|you)\s+down|disappoint\w*|"
    r"fail(?:s|ed)?\s+(?:me|us|to\s+(?:impress|amaze|surprise|deliver))|fault\s+(?:it|them)|"
    r"say|picture|see\s+(?:myself|ourselves|us|me)|"
    # a negated bad word or a superlative is praise or a measure, not a denial (litotes):
    # "life in Oslo isn't boring", "never a dull day", "isn't the cheapest", "don't hate"
    r"(?:a|one)\s+(?:single\s+)?(?:dull|boring|bad|regret|complaint)|boring|dull|awful|"
    r"terrible|horrible|hate|the\s+(?:most\s+\w+|\w+est)|"
    # a negation of the alternatives affirms the one named: "I'm not drinking anything else"
    r"(?:\w+\s+)?(?:anything|anyone|anywhere)\s+else|(?:\w+\s+)?any\s+other")
# people and animals: a negation or a predicate whose subject is one of them is another
# agent's, not the speaker's ("the dog wouldn't come out", "my friend lives in Paris")
AGENTS = (
    r"he|she|they|someone|somebody|everyone|everybody|nobody|people|friend|friends|boss|"
    r"manager|colleague|colleagues|coworker|coworkers|mum|mom|mother|dad|father|parents|"
    r"brother|brothers|sister|sisters|sis|partner|husband|wife|boyfriend|girlfriend|"
    r"fianc[eé]e?|son|daughter|kids?|children|child|baby|cousin|aunt|uncle|grandma|grandpa|"
    r"grandmother|grandfather|neighbou?rs?|flatmate|roommate|housemate|landlord|landlady|"
    r"doctor|teacher|dog|dogs|pup|puppy|cat|cats|kitten|pet|shop|store|seller|courier")
# a value said under these is a wish, a condition or a possibility, not a stated fact
# ("If I moved to Berlin", "I might move to Oslo", "I'd love to live in Rome")
HYPOTHETICAL = (
    r"if|unless|whether|might|may|could|would|should|maybe|perhaps|possibly|someday|"
    r"one\s+day|wish|hope|hoping|dream(?:ing)?\s+(?:of|about)|consider(?:ing)?|"
    r"(?:thinking|thought)\s+(?:of|about)|plan(?:s|ning)?\s+to|wants?\s+to|wanted\s+to|"
    r"would\s+love\s+to|'d|"
    # an application or an interview is not yet a job ("an interview at Globex Labs")
    r"interview(?:s|ed|ing)?(?=\s+(?:at|with|for)\b)|appl(?:y|ies|ied|ying)(?=\s+(?:to|at|for)\b)|"
    # a past verb only nearly done did not happen ("I nearly moved to Oslo"); "nearly a
    # year in Oslo" states
    r"(?:almost|nearly)(?=\s+\w+ed\b|\s+(?:went|took|left|got|made|quit|bought|sold|"
    r"gave|said|ran|fell|threw|signed\s+up))")
# a far-off time anywhere in a clause: a plan, not yet a fact ("We're moving to Oslo next
# year"); a near one ("on Monday I start at ...") is an arrangement, told as done
DISTANT_FUTURE = (
    r"next\s+(?:year|spring|summer|autumn|fall|winter)|in\s+(?:a\s+)?(?:few|couple(?:\s+of)?|"
    r"two|three|\d+)\s+years?|eventually|in\s+the\s+(?:long\s+run|future)|some\s*day|"
    r"when\s+(?:i|we)\s+retire|at\s+some\s+point|one\s+day|years?\s+from\s+now")
# attributes that a wish or a would-choice states ("If I could drink one thing, it'd be chai")
PREFERENCES = {"favourite drink"}
# attributes whose value names an agent (a person, a pet): negating what it does never
# denies its name; only a negated naming word does ("Rex isn't his name")
AGENT_NAMES = {"sister's name": "sister|sisters|sis|called|named|name",
               "dog's name": "dog|dogs|doggy|puppy|pup|pooch|called|named|name"}
# auxiliaries that open a yes/no question: "Should I move to Oslo?" asks, states nothing
QUESTION_OPENERS = {"do", "does", "did", "is", "am", "are", "was", "were", "have", "has",
                    "had", "should", "could", "would", "will", "can", "shall", "may", "might",
                    "must", "isn't", "aren't", "don't", "doesn't", "didn't", "haven't",
                    "hasn't", "won't", "wouldn't", "shouldn't", "can't", "couldn't"}
# words of an earlier time that a sentence then reverses: a negation in their clause is
# about that time, not now ("I wasn't keen on X at first, but it's home now")
EARLIER = (r"at\s+first|initially|in\s+the\s+beginning|to\s+begin\s+with|at\s+the\s+start|"
           r"(?:a|an|one|two|three|a\s+few|a\s+couple\s+of|\d+)\s+(?:days?|weeks?|months?|years?)"
           r"\s+ago|back\s+then|back\s+in\s+the\s+day|"
           r"when\s+(?:i|we)\s+(?:first\s+)?(?:arrived|got\s+here|came)")
# verbs that embed the speaker's statement in a question ("Did I tell you I moved to Lisbon?")
EMBEDDING_VERBS = (r"know|knew|tell|told|mention(?:ed)?|hear|heard|guess|believe|remember|"
                   r"realis(?:e|ed)|realiz(?:e|ed)|see|saw|notice(?:d)?")
