"""Chat phrasings of the changing-facts events, development data for the rule-based extractor.

Written on 2026-12-05 by four engineers who never read the extractor (each read only
``kit/synthetic_changes.py`` and ``kit/synthetic.py``), eight phrasings per event each, in
four styles: "asides" (long messages, the fact in passing), "short" (fragments, slang,
understatement), "replies" (answers and reactions to the listener, hedges, corrections,
negated idioms that affirm), "stories" (what happened, then how things are now). Same
events and placeholders as :data:`kit.synthetic_changes.TEMPLATES`. They are no split (no
conversations are written from them): tests/test_fact_phrasings.py reads each one.
"""

PHRASINGS = {
    "asides": {
        'city': [
            'Sorry I went quiet, the week got away from me, what with the dentist and the '
            'laundry piling up, but the good news is the flat in {v} is finally starting to feel '
            'like mine, curtains and all. Anyway, did you ever finish that series you were '
            'telling me about?',
            '{v} has been absolutely freezing this week, which I suppose is what I signed up for '
            'when I chose to live here, and the heating in my building clanks all night. Oh, and '
            "I've started doing crosswords again, I'm terrible at them.",
            'My mum keeps asking when she can come and stay with me in {v}, and I keep saying '
            "'soon' because the spare room is still full of boxes, honestly. Speaking of which, "
            "have you ever tried to assemble a wardrobe alone? Don't.",
            'I was walking home through the old part of town last night and it hit me how much I '
            'like living in {v} now, even with all the hills. Random question, but do you still '
            'have that recipe for the lentil soup?',
            'Living in {v} means the buses are basically a suggestion rather than a timetable, '
            "so I've started cycling everywhere, which my legs are not thrilled about. Also I "
            'think I need new running shoes, mine are falling apart.',
            "Work's fine, nothing exciting, though I did finally sort out my address "
            'registration with the local council here in {v} after three trips and a mountain of '
            'forms. Meanwhile my houseplants are thriving, which never happens.',
            "You'd laugh at my neighbourhood, there's a bakery on every corner and I swear I've "
            "put on a kilo since I settled in {v}, but I regret nothing. How's your brother "
            'doing, did he get that flat?',
            'Ugh, the guy I rent from finally fixed the leaky tap after three weeks of emails, '
            "so small victories, I guess, that's life in a {v} rental for you. Are you still "
            'thinking about taking some time off in the spring?',
        ],
        'city again': [
            'Nothing much has changed really, still in {v}, still in the same little flat with '
            "the wonky floorboards, still promising myself I'll learn to bake bread. How about "
            'you, anything new?',
            "People keep asking if I'm going to move on soon, but honestly I'm staying put in "
            "{v}, it's grown on me more than I expected. Also, my book club picked the longest "
            'novel imaginable this month, send help.',
            "It's funny, when I first got to {v} I thought I'd last a year at most, and here I "
            "still am, knowing the names of half the shopkeepers on my street. The weather's "
            'turned, by the way, I had to dig out my winter coat.',
            'I renewed the lease on my place in {v} for another year yesterday, so I guess that '
            'settles that, ha. Did you end up going to that concert?',
            "{v} is still home, and still has the worst drivers I've ever come across, I nearly "
            "got clipped by a scooter this morning. Anyway, I'm thinking of painting the kitchen "
            'yellow, thoughts?',
            "Oh, you asked whether I'd moved yet: nope, I'm still living in {v}, the market down "
            "the road alone is reason enough to stay. I've also been trying to get up earlier, "
            "it's going badly.",
            "Another winter in {v} for me, then, which honestly I don't mind, the cosy bakery "
            'near my flat does the best cinnamon buns. Have you heard from any of the old uni '
            'crowd lately?',
            "My cousin asked if I was tempted to leave, but I'm happy where I am in {v}, with my "
            'little balcony and my terrible tomato plants. Also, I finally got round to fixing '
            'my bike, only took me six months.',
        ],
        'city change': [
            'The last of the boxes are unpacked, more or less, and I have to say the new flat in '
            '{v} gets far more light than the old one in {old} ever did. Also, my back is '
            'killing me, I think I carried the sofa wrong.',
            "Sorry I missed your call, it's been chaos since the move, but we're properly "
            'settled in {v} now and I even found the box with the kettle in it. How did your '
            'interview go?',
            "I won't miss the damp in {old} one bit, though I do miss my old neighbours; {v} "
            'feels like a fresh start, even if I keep getting lost on the way to the '
            "supermarket. Did I tell you I've taken up pottery?",
            "So I've officially changed my address to {v} now that the move is done, which meant "
            'updating it with the bank, the doctor and about a dozen other places, what a faff. '
            'On the bright side, my new commute is a ten-minute walk.',
            'Leaving {old} was harder than I expected, I cried a bit on the last night, '
            "honestly, but now that we've moved to {v} I'm excited to explore. Do you know any "
            'good hiking spots, by the way?',
            '{v} is our home now, can you believe it, the lease started on the first and the '
            "removal van only broke down once on the way. I still haven't found where I packed "
            'my good scissors, though.',
            'We handed back the keys to our place in {old} on Friday and drove through the '
            "night, so as of this weekend we live in {v}, exhausted but happy. How's the garden "
            'coming along?',
            "It's strange waking up in our new place in {v} and not hearing the trams I got so "
            "used to, but I think the move was the right call for us. Also I've been "
            "binge-watching a baking show, it's very soothing.",
        ],
        'job': [
            "Honestly the best part of my day is the walk to my office at {v}, it's right by the "
            'park and I get to see everyone out jogging on the way in. Speaking of which, did '
            'you decide on a holiday yet?',
            'My first week at {v} has been a blur of passwords and onboarding videos, and I '
            "still can't work the printer on our floor, but everyone's been lovely. Anyway, "
            "how's your mum feeling?",
            "They gave me a staff badge with a truly awful photo on it, so now I'm officially a "
            '{v} employee for all the world to see, ha. Did you ever hear back from the landlord '
            'about the heating?',
            "I've been staying late at {v} most nights this month because we have a big launch "
            "coming up at work, so sorry if I've been slow to reply. On a happier note, I "
            'finally found a decent hairdresser.',
            'Lunch breaks at {v} are a bit sad, everyone on my team just eats at their desk, so '
            "I've started going out for a walk instead, which helps. Have you read anything good "
            'lately?',
            "My manager at {v} actually told me I was doing well today, which made my week, I'm "
            "still a bit giddy. Also I bought a plant for my desk, a little fern, let's see how "
            'long I keep it alive.',
            "It's a long commute to my job at {v}, almost an hour each way, but I've been using "
            "the time to listen to podcasts so it's not all bad. Oh, and my neighbour's cat "
            'keeps sneaking into my kitchen.',
            "The people I work with are a funny bunch, there's a quiz every Friday afternoon "
            'here at {v} and I lost spectacularly last week. Did you end up buying that bike?',
        ],
        'job change': [
            'I finally did it, I left my old company after four years and signed on with {v}, '
            'and my stomach has been in knots all week. Anyway, enough about me, how was the '
            'wedding?',
            '{v} is where I work now, since I walked out of the old job last month, and it feels '
            "like I can breathe again. Also, I've been meaning to ask, how's your knee?",
            "My old boss actually tried to counter-offer, which was flattering, but I'm at {v} "
            "now and so far I don't regret it one bit. The weather has been miserable, by the "
            'way, rain every single day.',
            "It's weird not having my old work email anymore, I keep reaching for the wrong "
            'login, but my new team at {v} have been patient with me. Did you try that ramen '
            'place I told you about?',
            "Quick update since you asked last time: I switched jobs, so it's {v} for me now "
            "instead of the old place, and the pay is better too. I'm also trying to save for a "
            'new sofa, mine is a disaster.',
            'After all that moaning about my old job I finally jumped ship to {v}, where at '
            "least the meetings have agendas, ha. Oh, and I've started going to a yoga class on "
            'Thursdays.',
            'I had my farewell lunch at the old office on Friday and my first proper day at {v} '
            "on Monday, so it's been quite the week, emotionally. Have you been sleeping any "
            'better?',
            "I don't think I told you, I'm not at the old place anymore, I've been working for "
            "{v} since the start of the month and it's a totally different vibe. Also, my "
            'landlord finally fixed the boiler!',
        ],
        'allergy': [
            "Had a bit of a scary evening at the weekend, turns out I'm allergic to {v}, and I'm "
            'fine now, but the doctor wants me to carry an emergency pen around. Other than '
            "that, the week's been pretty dull, work and sleep.",
            "The allergy clinic finally called with my results, and it's {v}, of all things, so "
            "I'll have to be careful from now on. Meanwhile I've been trying to learn to knit, "
            "it's going badly.",
            '{v} and I are officially not friends anymore, according to the allergist, which '
            'explains the hives last month. Did you see the sunset yesterday, by the way? Unreal.',
            'I had to fill in one of those medical forms at the new dentist and for the first '
            "time I got to write 'allergic to {v}' in the allergies box, which felt very "
            "grown-up, ha. Anyway, how's your new flat?",
            'My doctor says the rash and the swelling were an allergic reaction to {v}, so '
            "that's me avoiding it for good now. On a brighter note, I've got tickets for the "
            'theatre next week!',
            "I've started carrying a little card in my wallet saying I'm allergic to {v}, just "
            'in case, my mum insisted. Also, did you ever find your lost umbrella?',
            "Apparently I've had an allergy to {v} for years without knowing, which explains a "
            "lot, honestly. Anyway, the neighbours are having another loud party, so I'm writing "
            'this with earplugs in.',
            'So the itchy throat mystery is solved, the skin-prick test lit up straight away and '
            "it's an allergy to {v}, and I'm just relieved to know what it is. How did your "
            "parents' anniversary go?",
        ],
        'allergy new': [
            "As if one allergy weren't enough, I've now reacted to {v} too, and the doctor "
            'confirmed it, so my list of things to avoid keeps growing. On the plus side, the '
            'garden is finally blooming.',
            'Add {v} to my allergy list, apparently, the allergist found it on top of the other '
            "one and I'm honestly a bit fed up. Did you get my postcard, by the way?",
            'My body has decided to collect allergies like stamps, the latest being {v}, which I '
            'found out about the hard way last weekend. Anyway, are you still doing that '
            'couch-to-5k thing?',
            "The second round of allergy tests came back and there's a new one, {v}, so now I "
            "have two things to watch out for instead of one. I'm trying not to let it get me "
            'down, the weekend was nice at least.',
            'Ugh, I broke out in hives again and this time it was {v}, a brand-new allergy the '
            "doctor thinks developed recently. How's the new job treating you, by the way?",
            "I'm now officially allergic to {v} as well as the first thing, which my mum finds "
            'hilarious and I find deeply inconvenient. Oh, and I finally booked my eye test.',
            "You won't believe it, a fresh allergy, {v}, showed up out of nowhere, the nurse "
            "said that can happen in adulthood. Anyway, let's talk about something cheerier, did "
            'you finish the puzzle?',
            "Turns out my old allergy has company: I'm allergic to {v} now too, the tests were "
            'pretty clear. Otherwise things are quiet, I spent most of Sunday reorganising my '
            'bookshelves.',
        ],
        'order': [
            "I finally caved and ordered that reading chair I've been eyeing for months, it's "
            'order {v} if you want to laugh at the tracking page with me. Also I think the '
            'neighbours got a new cat.',
            "{v} is the reference for the bike rack I ordered, I'm writing it here so I don't "
            "lose it again like last time, ha. How's your week shaping up?",
            'The shop emailed me an order confirmation, number {v}, for the new curtains, so '
            "they should be here before the weekend with any luck. I'm also trying to decide "
            'whether to repaint the hallway.',
            'My new duvet is apparently somewhere in a warehouse, order {v}, estimated delivery '
            "Thursday, and I'm counting the days because the old one is sad. Did you watch the "
            'match yesterday?',
            'I got a bit carried away in the sale and ordered a standing desk, the tracking says '
            'order {v} has been dispatched. Meanwhile I keep forgetting to water my plants.',
            "Just placed an order for a set of garden chairs, order number {v}, and now I'm "
            "wondering if I actually have space for them, typical me. How's your mum getting on?",
            "I'm waiting on a parcel, order {v}, a small bookcase for the spare room, and of "
            'course they gave me an eight-hour delivery window. Anyway, how was the weekend away?',
            'My new rug is on its way at last, I ordered it on Sunday and the confirmation says '
            "{v}, and I've already moved the furniture around to make room for it. Have you been "
            'to that new bakery yet?',
        ],
        'order cancel': [
            'I ended up cancelling order {v}, the delivery date kept slipping and I lost '
            'patience, so no new desk for me after all. Anyway, how did the driving test go?',
            'Customer service was surprisingly nice about it, my order {v} is cancelled and the '
            'refund should show up in a few days. Did you ever try that yoga studio?',
            '{v} is officially cancelled, I found the exact same lamp cheaper in a shop down the '
            'road and just bought it there instead. Other news: I finally slept eight hours last '
            'night.',
            'Remember that chair I was so excited about? I cancelled it, order {v}, turns out it '
            "wouldn't even fit through my front door, which I should have measured first. Ugh, "
            "anyway, how's work?",
            'I got an email this morning confirming that order {v} has been cancelled, which is '
            "a relief because I'd completely changed my mind about the colour. Also, it finally "
            'stopped raining!',
            "Had to call the shop and cancel {v} in the end, they'd sent the wrong size twice "
            'already and I gave up. On a nicer note, the cherry tree outside my window is '
            'blossoming.',
            "So that bookshelf saga is over, I pulled the plug on order {v} and I'm going to "
            'look for a second-hand one instead. Have you got plans for the long weekend?',
            'Just a heads-up in case I mentioned it before, the order I placed, {v}, is off, I '
            "cancelled it yesterday and they've already confirmed the refund. I'm trying to "
            'spend less anyway, my bank account will thank me.',
        ],
        'drink': [
            "I've been rationing my {v} because I'm running low and the shop is out until "
            "Friday, which for my absolute favourite drink is a genuine crisis. Anyway, how's "
            'the new place?',
            "Nothing in the world beats {v} after a long day, honestly, it's my favourite thing "
            "to drink by a mile. Also I've started a jigsaw that's way too hard.",
            "{v} is hands down my favourite drink, I'd happily have it morning, noon and night "
            'if nobody stopped me. Did you get round to booking the dentist?',
            "My friends tease me because I always order {v} wherever we go, but it's my "
            "favourite and I'm not ashamed. Speaking of friends, we really should plan that "
            'picnic.',
            "Treated myself to some really good {v} this weekend, it's my favourite drink and "
            "honestly my one little luxury these days. How's the job hunt going, any news?",
            "You know me, if there's {v} on the menu I'm having it, it's my favourite and I'll "
            'never get tired of it. The weather has been so strange this week, sunny one minute, '
            'hail the next.',
            "I think I get through more {v} than anything else these days, it's my absolute "
            'favourite drink, and my doctor would probably have words. Anyway, did you finish '
            'the book I lent you?',
            'Sat on the balcony this morning with my favourite drink, {v}, and watched the '
            'street wake up, which was lovely. Have you heard anything about the new cinema '
            'opening?',
        ],
        'drink change': [
            "I used to swear by {old} but honestly these days I'm all about {v}, it's my new "
            "favourite and I can't explain why. Anyway, did you get the job?",
            "My tastes have changed completely, I can't even look at {old} anymore, and {v} has "
            "become my favourite drink instead. Oh, and I've started running again.",
            "{v} is my favourite drink now, believe it or not, I've totally gone off {old} after "
            "years of loving it. How's the renovation going?",
            "Remember how I was obsessed with {old}? Well, not anymore, it's {v} all the way "
            'now, my cupboard is full of it. Also my neighbour lent me a ladder, so the curtains '
            'are finally up.',
            "I had {old} at a cafe the other day and it just tasted wrong, so I've officially "
            'switched my favourite to {v}, which I now have every single day. Have you been to '
            'the new market?',
            "Weird confession: I'm over {old}, my new favourite drink is {v}, and I feel like "
            "I've betrayed my younger self. On another note, I finally cleaned out the fridge.",
            "These days it's {v} for me every time, my old favourite drink just doesn't do it "
            'for me anymore, funny how that happens. Did you manage to fix your bike?',
            "I gave my whole stash of {old} to my flatmate because I've fallen completely for "
            "{v} and it's the only thing I want to drink now. Are you free on Saturday, by the "
            'way?',
        ],
        'sister': [
            'My sister {v} came over for dinner and we ended up talking until two in the '
            "morning, so I'm running on fumes today. Did you have a good weekend?",
            "I was on the phone with {v}, my little sister, for ages last night, she's got a new "
            "boyfriend and I needed every detail. Anyway, work's been okay, nothing much to "
            'report.',
            "Guess who's borrowed my good jacket again without asking? My sister, {v}, of "
            "course, she's been doing it since we were kids. Also, it's finally warm enough for "
            'sandals!',
            "{v}, that's my sister, is turning thirty next month and I have no idea what to get "
            "her, any ideas? I'm also trying to cut down on screen time, it's not working.",
            "It's my turn to host the family lunch, so my sister {v} and my parents are coming "
            "on Sunday and I'm panicking slightly about the cooking. How's your week been?",
            "My older sister {v} always knows when something's up with me, she called out of the "
            "blue yesterday just as I was having a rough day. The rain hasn't stopped here, by "
            'the way.',
            'I spent Saturday helping my sister {v} paint her new flat and I still have blue '
            "paint in my hair, so that's a look. Did you watch the documentary I sent?",
            "Sorting through old boxes at my parents' place turned up some truly embarrassing "
            'school photos of me and my sister, {v}, who laughed for ten minutes straight. '
            "Anyway, how's your knee doing?",
        ],
        'dog': [
            "Our dog {v} rolled in something unspeakable at the park this morning, so I've spent "
            "half my day off giving him a bath. How's everything with you?",
            "I can't write much, my dog is whining at the door because {v} thinks it's time for "
            "a walk, and to be fair he's right. Talk later? Oh, and the plumber finally came.",
            'The vet says {v} is a bit on the chubby side, so no more sneaky treats under the '
            'table, which is harder on me than on the dog, honestly. Also, have you seen the new '
            'bakery?',
            'Took the dog to the beach on Sunday and {v} went absolutely wild chasing the waves, '
            "I've never seen him so happy. Work starts again tomorrow, sigh.",
            'Honestly the best part of working from home is having {v}, my scruffy little '
            'terrier, snoring at my feet all day. How was your trip?',
            "We're trying puppy classes again because our dog {v} still won't come when called, "
            "and the trainer says he's 'very independent', which is a kind way of saying "
            'stubborn. Anyway, did you get the tickets?',
            "My neighbour's kids are obsessed with our dog, they knock every afternoon to ask if "
            "{v} can come out and play, it's adorable. I've been sleeping better too, which "
            'helps.',
            'Ended up buying a new lead and a squeaky toy for our dog, {v}, who destroyed the '
            'toy within about four minutes, so money well spent. Did you hear back about the '
            'flat?',
        ],
        'instrument': [
            'My fingers are sore from practising the {v} all weekend, but I finally got through '
            "that piece without stopping, so I'm rather proud. How's your cold?",
            "I've got a little recital coming up with my music group and I'll be playing the "
            "{v}, so if I sound stressed, that's why. Also the sun was out today, hooray.",
            "The {v} takes up a corner of my living room, but I wouldn't give up playing it for "
            "anything, it's how I unwind after work. Have you been to the new gallery?",
            'My teacher says my {v} playing has really come on this term, which was nice to hear '
            'after months of wobbly scales. Anyway, what are you up to this weekend?',
            'Took my {v} in for a repair this week and I felt lost without it for three days, I '
            "didn't realise how much I play until I couldn't. Did you sort out your phone "
            'contract?',
            'Between work and playing the {v} in the evenings I barely have time to cook, so '
            "it's been a lot of toast lately. Did you ever try that recipe?",
            'I joined a little ensemble in town, they were short of someone who plays the {v}, '
            "so now I have rehearsals on Wednesdays. How's your dad getting on?",
            'My neighbours have been very patient about my {v} practice, I think, though one of '
            'them did slip a note under the door asking if I could stop before ten. Other than '
            'that, quiet week.',
        ],
    },
    "short": {
        'city': [
            "ngl {v} is growing on me. my flat's tiny but it's home",
            "rent here in {v}? daylight robbery. still, I live here and I'm not going anywhere",
            "me, officially a local in {v}. who'd have thought",
            'Home sweet home = {v}. Tiny balcony, noisy neighbours, zero regrets.',
            'just got back to my place in {v}, legs dead, bed calling',
            'The thing about living in {v}: nobody warns you about the hills. Or the seagulls.',
            'Post office finally knows I live in {v}. Only took three forms.',
            "my neighbourhood in {v} has the best bakery, not that I'm biased or anything",
        ],
        'city again': [
            'yep, still in {v}, still not sick of it',
            '{v} and me: still going strong. Not moving anytime soon.',
            'Still here in {v}, same flat, same creaky stairs.',
            "lol no, haven't escaped {v} yet. don't want to either tbh",
            'another year living in {v} and I still get lost on the way to the market',
            "Still calling {v} home. Some things don't change, thank god.",
            'Nope, same old {v} for me, same flat, same grumpy landlord.',
            "home's still {v}, in case you were wondering. the view still slaps",
        ],
        'city change': [
            'so, plot twist: I live in {v} now. {old} was getting old anyway',
            'new city who dis. {v}, since Saturday. My back hates me.',
            'Officially a resident of {v} now. Keys in hand, sofa still stuck in the hallway.',
            'bye {old}, hello {v}. moving is hell, 0/10 would not recommend',
            'Update: we upped sticks and moved to {v}. Still living out of boxes.',
            "Traded {old} for {v}, don't ask how many boxes.",
            "first night in the new flat in {v} and the heating's already broken, love that for me",
            'Yeah we live in {v} now apparently. Left {old} on Friday, cried a bit ngl.',
        ],
        'job': [
            'day one at {v} done. nobody learned my name but the free snacks are elite',
            '{v} gave me a badge and a laptop, so I guess I work there now lol',
            'work at {v} is fine. just fine. meetings about meetings',
            'Got the job!! {v}, starting Monday, send snacks',
            'my boss at {v} just scheduled a 5pm Friday call. Love that for me.',
            'Signed the contract with {v} this morning. Employed. Adulting achieved.',
            "So I'm on the payroll at {v} now, which mostly means a lanyard and endless Slack "
            'pings.',
            "First payday from {v} finally hit. A month in and I'm still finding new corridors.",
        ],
        'job change': [
            "quit the old place. {v} made me an offer I couldn't refuse, so that's where I work "
            'now',
            "new job, who's this? {v}, week two, still can't find the loos",
            'Cleared out my desk at the old job on Friday; Monday I started at {v}.',
            "{v} poached me lol. The old lot weren't thrilled.",
            "Turns out leaving a job is easy, it's the goodbye cake that kills you. Anyway, I'm "
            'at {v} now.',
            'So long, old boss. Hello {v}. Same commute, better chairs.',
            "Jumped ship!! I'm with {v} now and honestly the vibes are immaculate",
            "Gave my two weeks at the old place, and as of today I'm officially working at {v}.",
        ],
        'allergy': [
            'so apparently {v} tries to kill me now. allergist confirmed it',
            "can't touch {v}, I break out in hives. allergies, fun times",
            '{v} and me are not friends. EpiPen-level allergic not friends.',
            "Me reading every label for {v} like it's a thriller novel. Allergies are the worst.",
            "nope, no {v} for me, I'm allergic, my face swells up like a balloon",
            "Doctor says it's {v}. That's what's been making me itchy all month. Allergic, "
            'officially.',
            "found out the hard way I'm allergic to {v}. A&E at 2am, 10/10 experience",
            'Quick one for the medical form: allergic to {v}. Yes, really.',
        ],
        'allergy new': [
            'great, another allergy unlocked: {v}. collecting them like stamps',
            "As if one allergy wasn't enough, now I react to {v} too.",
            "{v} has joined the list of things I'm allergic to. The list is growing, Leo.",
            'allergist added {v} to my allergy list. on top of the old one, obviously',
            'new allergy just dropped: {v}. thrilled. absolutely thrilled.',
            "Guess who's also allergic to {v} now. This girl. Cool cool cool.",
            'Body said no to {v} as well, apparently. Allergy number two, yay.',
            "Broke out in hives again and it wasn't the usual suspect, it was {v}. So that's two "
            'allergies now.',
        ],
        'order': [
            'ordered a standing desk lol, order {v}, supposedly here by Thursday',
            "{v} is the order number for my new lamp, writing it here so I don't lose it",
            "Tracking for my order {v} says 'out for delivery'. Sure it is.",
            'Treated myself to a rug. Order {v}. No regrets. Some regrets.',
            "if the shop emails about {v}, that's my bookshelf order, still open",
            "My chair's finally on order, ref {v}. Six to eight weeks, apparently.",
            "keep an eye out for a parcel for me? order {v}, it's the blender",
            'Still waiting on order {v}, the mattress. Two weeks and counting.',
        ],
        'order cancel': [
            'Cancelled order {v}. Six weeks for a lamp? No thanks.',
            '{v}? dead. called them and killed the order',
            'that desk order, {v}, yeah I pulled the plug on it',
            "Got the refund email for {v}, so the order's officially cancelled. Bye bye bookshelf.",
            "Scrapped order {v} lol, didn't need another rug anyway",
            'Never mind about order {v}, I cancelled it, you can stop watching for the parcel.',
            "order {v} is no more. The shop said 'sorry for the inconvenience', sure.",
            'Asked them to cancel {v}. Done. My wallet thanks me.',
        ],
        'drink': [
            '{v} is my personality at this point. best drink ever, fight me',
            'nothing hits like {v}, seriously, my absolute fave drink',
            'Me without my morning {v}? A menace. Favourite thing to drink, hands down.',
            'Favourite drink? {v}, no contest.',
            'Call me basic but {v} is the love of my life. Beverage-wise.',
            "third {v} of the day and it's not even noon. what can I say, it's my favourite drink",
            "If you're buying, get me {v}. Always. It's my fave.",
            "my go-to drink forever and ever: {v}. don't even try to convert me",
        ],
        'drink change': [
            'officially over {old}. {v} is my new favourite drink',
            "Broke up with {old}, it's {v} now. It's not you, it's me.",
            'Who even am I? Swapped {old} for {v} and not looking back.',
            '{v} has replaced {old} as my favourite drink, sorry not sorry',
            "can't do {old} anymore, makes me feel gross. {v} all the way now",
            "new favourite drink alert: {v}. the old one's dead to me",
            'Remember when I lived on {old}? Yeah, me neither. Team {v} now.',
            "Went off {old} completely. These days, if it's not {v}, I don't want it.",
        ],
        'sister': [
            'my sister {v} just called, drama as usual',
            'Little sis {v} is crashing on my sofa this weekend. Pray for me.',
            "Had lunch with my sis, {v}. She's still terrible at splitting the bill.",
            "Big sister energy from {v} today, she told me to sleep more. She's right, annoyingly.",
            "Being {v}'s little sister is a full-time job, honestly.",
            '{v} (my sister, the one with the laugh) says hi',
            'Sister update: {v} passed her driving test. The roads are no longer safe.',
            "It's my sister {v}'s birthday Saturday and I have zero gift ideas, help",
        ],
        'dog': [
            '{v} just ate a sock. again. why do I own a dog',
            'walked the dog in the rain, {v} loved it, I did not',
            'my dog {v} has decided the postman is the enemy',
            'Our pup {v} is snoring under my desk rn, living his best life.',
            "Vet bill for my doggo {v}: don't ask.",
            'Named the new puppy {v}. He already rules the house.',
            'If my dog {v} barks at one more squirrel I swear. Dogs, man.',
            'Took our dog {v} to the park, came home with a muddy mutt and no dignity.',
        ],
        'instrument': [
            "my {v} lessons are going... well, the neighbours haven't complained yet",
            'Practised the {v} for two hours, fingers are dead',
            "Joined a little community orchestra, I'm on the {v}. Terrified.",
            'me vs the {v}, round 47. still losing',
            "Just tuned my {v} and it's already out again. Classic.",
            "Been playing the {v} since I was nine and I still can't read music, don't tell anyone",
            "Gig tonight! Well, 'gig'. Me and my {v} at the open mic.",
            "Honestly the {v} is my therapy. Twenty minutes of scales and I'm a new person.",
        ],
    },
    "replies": {
        'city': [
            "Yeah, {v}'s home now, for better or worse. Still figuring out the buses.",
            "Ha, no, I'm not out in the countryside at all, I live right in the middle of {v}.",
            "Oh I didn't tell you? We signed the lease and moved to {v}, so that's where I live "
            'now.',
            "Honestly I can't complain about living in {v}, the bakeries alone are worth it.",
            "Mm, sort of settled: I'm in {v} now, renting a little place near the station.",
            "Not gonna lie, I never thought I'd end up living in {v}, but here I am.",
            'You should visit! My flat in {v} has a spare sofa with your name on it.',
            'Well, home is {v} these days. Home-ish, anyway, half my stuff is still in boxes.',
        ],
        'city again': [
            'Yeah, still in {v}, no plans to go anywhere.',
            "Ha, no, I haven't moved, I'm still living in {v} and loving it.",
            'Nope, still living in {v}, same flat, same noisy neighbours.',
            "Oh, I'm definitely staying put in {v}, I can't imagine living anywhere else now.",
            "I'm still in {v}, yes. Can't say I miss packing boxes.",
            "Honestly I still live in {v} and it hasn't lost its charm one bit.",
            "Haven't budged, I'm still in {v}. The rent went up though, ugh.",
            'Not much has changed: I still live in {v}, still walk to the same bakery every '
            'morning.',
        ],
        'city change': [
            "Oh I didn't tell you? We moved! We're in {v} now, the flat in {old} is someone "
            "else's problem.",
            "Yeah, we finally left {old}. The new place is in {v}, I'll text you the address.",
            "Ha, no, I'm not in {old} anymore, we moved to {v} last month.",
            'Well, technically I still have a key to the old flat, but I live in {v} now.',
            "The big news: we've moved to {v}! I'm writing this sitting on a pile of boxes.",
            "I can't say I miss {old}, honestly; {v} suits us way better now that we live here.",
            "Mm, moving day was chaos, but we're settled in {v} now. Mostly settled, anyway.",
            'Not gonna lie, leaving the old city was hard, but we live in {v} now and I love it.',
        ],
        'job': [
            "Yeah, I'm at {v} now, started on Monday. Still learning everyone's names.",
            "Ha, no, I'm not freelancing anymore, I work for {v} these days.",
            "Oh I didn't tell you? {v} hired me! First week done.",
            "Honestly, I can't complain about {v}, the team I work with there is lovely.",
            "Work's fine, I guess. {v} keeps me busy, I'm in their office three days a week.",
            "I'm working at {v}, yes, on the data team, or whatever they call it this month.",
            "Not to brag, but I landed the job at {v}, and I've already got a desk and a badge.",
            'My boss at {v} is actually nice, which is a first for me.',
        ],
        'job change': [
            "Oh I didn't tell you? I quit! I'm working at {v} now.",
            "Yeah, I left the old company, it was time. I'm with {v} now.",
            "Ha, no, I'm not there anymore, I moved over to {v} a couple of weeks ago.",
            'Well, I handed in my notice, and long story short, I work at {v} now.',
            "I can't say I miss my old job one bit since I joined {v}.",
            "New badge, new desk, new everything: I switched jobs and I'm at {v} now.",
            'Honestly, leaving my last place was the best call I made this year; {v} is where I '
            'work now.',
            "Mm, sort of a fresh start: I'm not at the old place anymore, I work for {v}.",
        ],
        'allergy': [
            "Yeah, I'm allergic to {v}, so I always check the labels.",
            "Ha, no thanks, I'm allergic to {v}, it's not worth the hives.",
            "Oh I didn't tell you? The doctor confirmed I'm allergic to {v}.",
            "Honestly, it's not that I don't like {v}, I'm just allergic to it.",
            "Mm, I have to steer clear of {v}, I'm allergic. I carry antihistamines just in case.",
            'Not gonna lie, finding out I was allergic to {v} was a shock.',
            "I'd love to, but anything with {v} is off limits for me, I'm allergic.",
            "The skin test lit up for {v}, so yes, I'm officially allergic.",
        ],
        'allergy new': [
            "Oh I didn't tell you? I'm allergic to {v} now too, on top of the other one.",
            'Yeah, another allergy for me: {v}. My list keeps growing.',
            "Ha, no, I can't, turns out I'm also allergic to {v}. Great, right?",
            "Honestly, as if one allergy wasn't enough, now I'm allergic to {v} as well.",
            "Mm, the allergist added {v} to my list, so that's two things I'm allergic to now.",
            'I never used to be allergic to {v}, but I am now, on top of my old allergy.',
            "Not to be dramatic, but I've got a second allergy: {v}. Found out the hard way.",
            "So that rash last week? I'm allergic to {v}, apparently. One more thing to avoid.",
        ],
        'order': [
            'Yeah, I ordered the shelves, the reference is {v} if they ever send an email.',
            "Oh I didn't tell you? I finally bought a sofa online, order {v}, it ships Friday.",
            "Ha, no, it hasn't arrived yet, order {v} is still being processed.",
            "Honestly I'm not sure when it's coming, but the order number is {v}, so I can chase "
            'it.',
            "Mm, I placed the order for the lamp, it's {v}, should be here next week.",
            "{v}, that's my order number for the new bike rack, remind me to track it?",
            'Not gonna lie, I splurged on a rug. Order {v}, arriving any day now.',
            "I wrote the order number down in case it goes missing: {v}. It's the kitchen stool.",
        ],
        'order cancel': [
            'Yeah, I cancelled order {v}, I found a cheaper one anyway.',
            "Ha, no, the sofa isn't coming, I cancelled {v} this morning.",
            "Oh I didn't tell you? Order {v} is cancelled, the shop said it was out of stock.",
            "Honestly, I'm not waiting any longer, I've called off order {v}.",
            "Mm, I asked them to cancel {v} and they confirmed, so that's done.",
            "No need, I don't want that lamp anymore: order {v} has been cancelled and refunded.",
            'Forget about {v}, I cancelled it, the delivery date kept slipping.',
            "So {v} got cancelled, they couldn't deliver to my building. I'm getting my money "
            'back.',
        ],
        'drink': [
            "Yeah, {v}, always. It's my favourite drink, hands down.",
            "Ha, no, I'll have {v}, it's my favourite, you know me.",
            "Oh I didn't tell you? I'm obsessed with {v}, it's my favourite drink by a mile.",
            "Honestly, no drink comes close to {v}, it's my favourite.",
            "Mm, if I had to pick one drink forever, it'd be {v}, no contest.",
            "I can't say no to {v}. Favourite drink, no question.",
            "Not gonna lie, I have {v} every single day, it's my favourite thing to drink.",
            "My favourite? Easy: {v}. I'd drink it all day if I could.",
        ],
        'drink change': [
            "Yeah, I'm done with {old}, my favourite is {v} now.",
            "Ha, no, not {old} anymore, I've switched to {v}, it's my favourite now.",
            "Oh I didn't tell you? I went off {old} completely; {v} is my new favourite drink.",
            "Honestly, I can't believe I used to love {old}. My favourite drink is {v} now.",
            "Mm, it's not that I hate {old}, but {v} has taken over as my favourite.",
            'My tastes changed: my favourite these days is {v}, not {old}.',
            'Not gonna lie, I used to swear by {old}, but now {v} is my favourite, no contest.',
            "Funny, I don't even crave my old usual anymore, {v} is my new favourite drink.",
        ],
        'sister': [
            'Yeah, my sister {v} is coming to stay for the weekend.',
            "Ha, no, that was my sister, {v}! People always think we're twins.",
            "Oh I didn't tell you? {v}, my little sister, just got engaged.",
            'Honestly, my sister {v} is the funniest person I know.',
            "Mm, I'm having dinner with my sister tonight, {v} picked the restaurant, she always "
            'does.',
            "Not gonna lie, I miss my sister {v} a lot, we don't see each other enough.",
            "My sister's called {v}, yes, after our grandmother.",
            "{v}? She's my older sister, you'd like her.",
        ],
        'dog': [
            "Yeah, {v}'s my dog, the scruffy one in all my photos.",
            "Ha, no, {v} isn't a cat, he's our dog! Easy mistake with that name.",
            "Oh I didn't tell you? We got a dog, his name is {v}.",
            'Honestly, our dog {v} runs the house, we just live here.',
            'Mm, I have to walk the dog first, {v} has been staring at his leash for ten minutes.',
            'Not gonna lie, I let my dog {v} sleep on the bed. He deserves it.',
            "Our dog's name is {v}, the kids down the street picked it.",
            "Sorry, my dog {v} just barked at the postman again, he's the worst guard dog ever.",
        ],
        'instrument': [
            'Yeah, I play the {v}, badly but enthusiastically.',
            "Ha, no, I'm not in an orchestra, I just play the {v} at home.",
            "Oh I didn't tell you? I took up the {v}, I have lessons on Thursdays.",
            'Honestly, playing the {v} is the only thing that calms me down after work.',
            "Mm, I should practise the {v} tonight, my teacher always knows when I haven't.",
            'Not gonna lie, my {v} playing is getting kind of decent.',
            "I can't say I'm good at the {v} yet, but I play it every day.",
            "My {v} teacher says I'm improving, so I guess I actually play it now.",
        ],
    },
    "stories": {
        'city': [
            "We signed the lease back in spring, and after all the stress I've finally settled "
            'into life in {v}.',
            "It took me months to find a decent flat, but I've been living in {v} since March "
            'and I love it.',
            "{v} has been home for a while now; I moved here for the sea air and I've never "
            'regretted it.',
            "When I first came to live in {v} I knew nobody; now, two years on, I can't imagine "
            'being anywhere else.',
            "I've finally unpacked the last box here in {v}, and the flat is starting to feel "
            'like mine.',
            'After years of renting rooms, I bought a little place in {v} last autumn, moved in, '
            "and I've been so happy there.",
            "My commute used to be awful, but since I moved to {v} I've been walking everywhere "
            "and I'm much calmer.",
            'The neighbours here in {v} have been lovely since the day I moved in; someone even '
            'brought us soup.',
        ],
        'city again': [
            "People keep asking if I've moved on yet, but no, I'm still in {v} and still happy "
            'about it.',
            "Three years on, I've stayed put in {v}; I thought I'd get restless, but it still "
            'feels right.',
            "I've lived in {v} all this time, and if anything I've grown even fonder of the place.",
            "Nothing has changed on the home front: {v} is still where I live, and I've stopped "
            'planning to leave.',
            "I almost took a flat elsewhere last month, but in the end I stayed in {v}, and I'm "
            'relieved I did.',
            "We've renewed our lease in {v} for another year, because honestly we couldn't "
            'picture living anywhere else.',
            "I've lived in {v} long enough now that the baker knows my name, and I love that.",
            "Still here in {v}, still walking the same streets every evening, and I'm still not "
            'tired of them.',
        ],
        'city change': [
            "After a long winter of packing, we finally left {old}, and we've been living in {v} "
            'since last week.',
            'The lease ran out, so we moved, and {v} has been home for a month now; I miss the '
            'old place a bit.',
            "I cried a little on my last night in {old}, but I've settled into {v} and the new "
            'flat is gorgeous.',
            "We've moved house again! It took two vans, and now we live in {v}, much closer to "
            'the sea.',
            '{v} is where I live now; we moved over the holidays because the rent at the old '
            'place had doubled.',
            "Remember how I kept complaining about {old}? Well, I've done it: I packed up and I "
            'now live in {v}.',
            "It's been two weeks since we moved to {v} and I still get lost, but I'm loving "
            'living here so far.',
            "I haven't lived in {old} since the end of last month; I've found a place in {v} and "
            'moved in.',
        ],
        'job': [
            "I had four interviews and nearly gave up, but {v} offered me the job and I've been "
            'working there a month.',
            "I've been working at {v} since spring, and my team has been really kind to me.",
            "My first week at {v} went by in a blur, but I've already learned so much in the job "
            'and I love it.',
            "{v} hired me back in January, and I've been enjoying the work more than I expected.",
            'After months of freelancing I signed a contract with {v}, so now I go to their '
            'office every day.',
            "I've been at {v} for almost a year now; the pay isn't great but my colleagues make "
            'up for it.',
            'The recruiter from {v} called me on a Friday, I started working there the next '
            "Monday, and I've stayed ever since.",
            'I got my own desk and badge at {v} today, after weeks of onboarding, and it finally '
            'feels real that I work there.',
        ],
        'job change': [
            "I'd been unhappy at my old company for ages, so I resigned, and I've been working "
            'at {v} for two weeks now.',
            "My last day at the old job was Friday; on Monday I started at {v} and I'm already "
            'much happier.',
            'I finally did it: I left my previous employer, accepted the offer from {v}, and '
            "I've started there this week.",
            "{v} poached me from my old firm last month, and honestly I haven't looked back "
            'since I joined.',
            'After the layoffs at my old workplace I was out of work for a while, but {v} took '
            "me on and I've been there since May.",
            "I've changed jobs! I'm no longer at the old company; I've joined {v} and the "
            'commute is so much shorter.',
            "It was scary walking away from a secure job, but I've been at {v} for a month and "
            'it was the right call.',
            'I cleared out my old desk in tears, but these days I work for {v} and I feel '
            'appreciated again.',
        ],
        'allergy': [
            'I broke out in hives at a dinner party last month, and the tests have since '
            "confirmed I'm allergic to {v}.",
            "After a scary trip to the emergency room, I've learned that I have an allergy to {v}.",
            "Since the allergist confirmed I'm allergic to {v} in the spring, I've been reading "
            'every label twice.',
            "I've always felt a bit rough after {v}, and now a doctor has confirmed it's an "
            'actual allergy.',
            "My skin prick test came back and it's official: I'm allergic to {v}, which explains "
            'a lot.',
            "I've been carrying an EpiPen since I was diagnosed as allergic to {v} last year, "
            'and it makes me nervous.',
            "It turns out the rash I've had all winter was an allergic reaction to {v}; I'm so "
            'relieved to finally know.',
            "The doctor has put {v} on my allergy list after my reaction last week, so I'm being "
            'very careful now.',
        ],
        'allergy new': [
            "As if one allergy wasn't enough, I've now reacted to {v} as well, and the doctor "
            "has confirmed it's an allergy.",
            "I went back for more tests after the swelling last week, and I've got a new allergy "
            'to add to my list: {v}.',
            "I thought I'd known all my allergies for years, but it turns out I'm also allergic "
            'to {v} now.',
            'My allergist has added {v} to my allergies, alongside the one I already had, and '
            "I'm pretty fed up.",
            "Last month I had a reaction I'd never had before, and it's been confirmed: I've "
            'developed an allergy to {v} too.',
            "So on top of my old allergy, I'm now allergic to {v} as well; I've had to rewrite "
            'my medical card.',
            "After that awful night at the clinic, I've been told I'm allergic to {v} as well, "
            "so that's two things to avoid now.",
            "I'd only ever had the one allergy, but my last check-up showed I've become allergic "
            'to {v} too.',
        ],
        'order': [
            "I finally ordered the sofa I've been dreaming about, and I've been checking order "
            '{v} every hour since.',
            "The bed frame is on its way, and I've saved the order number, {v}, in case it goes "
            'missing.',
            "I've placed an order for new curtains; it's {v}, and the shop says it should ship "
            'by Friday.',
            "After weeks of comparing prices I bought a standing desk, order {v}, and I'm so "
            'excited for it to arrive.',
            "{v} is the reference for the bike I ordered on Sunday; it hasn't shipped yet but I "
            'keep refreshing the page.',
            "I've been waiting on order {v} with my new kettle for a week now, and it's still in "
            'transit.',
            "My order went through last night, number {v}, for a set of garden chairs I've "
            'wanted all summer.',
            'I splurged on a record player yesterday; the confirmation email says order {v} and '
            "I can't wait.",
        ],
        'order cancel': [
            "The sofa kept getting delayed, so I've cancelled order {v} and I feel weirdly "
            'relieved.',
            "I rang customer service this morning and they've cancelled {v} for me, no questions "
            'asked.',
            "Order {v} has been cancelled; I found the same desk cheaper elsewhere and didn't "
            'want two.',
            'I had second thoughts about the curtains, so I called off order {v} yesterday and '
            'got my refund.',
            "After three weeks of 'processing', I gave up and cancelled {v}; I'm done waiting.",
            "The shop emailed to say they'd run out of stock, so my order {v} has been "
            'cancelled, which is a shame.',
            "I've withdrawn order {v}, because we've decided we don't actually need another "
            'bookcase.',
            'Good news for my bank account: {v} is cancelled, since I realised the chairs '
            "wouldn't fit on the balcony.",
        ],
        'drink': [
            "I discovered {v} on holiday years ago and it's been my favourite drink ever since.",
            "I've tried so many drinks, but nothing has ever beaten {v}; it's still my absolute "
            'favourite.',
            'My mornings have always started with {v}, and it has stayed my favourite drink '
            'through everything.',
            "Ever since a friend made me try {v} at university, I've been hooked; no other drink "
            'comes close.',
            "I've always said that {v} is the best drink in the world, and this week has only "
            'proven it.',
            "When I've had a hard day, what I reach for is {v}; it has been my favourite drink "
            'for years.',
            "I've stocked up on {v} again, because it's my favourite drink and I panic when we "
            'run out.',
            'Honestly, {v} has been my favourite drink since I was a teenager, and I still get '
            'excited about it.',
        ],
        'drink change': [
            "I used to drink {old} every single day, but this year I've fallen for {v} and it's "
            'my favourite now.',
            'After {old} started upsetting my stomach, I switched, and these days {v} is my '
            'favourite drink.',
            "I've completely lost my taste for {old}; these days my favourite is {v}, and I look "
            'forward to it every morning.',
            'A friend made me try {v} last month and I was converted on the spot; {old} just '
            "doesn't do it for me anymore.",
            "I haven't touched {old} in weeks, because I've found a drink I love more: {v}.",
            "My old favourite drink has been dethroned: my new favourite is {v}, and I've had it "
            'all spring.',
            "It's the end of an era: after years of {old}, my favourite drink is now {v}, and I "
            "don't miss the old one.",
            "I've been trying to cut back on {old}, and to my surprise I've ended up preferring "
            "{v}; it's my favourite now.",
        ],
        'sister': [
            "My sister {v} and I hadn't spoken in months, but she called last night and we've "
            'made up.',
            "I've just come back from a weekend with my sister, {v}, and I haven't laughed that "
            'much in ages.',
            "{v}, my little sister, has finally finished her degree, and I've never been prouder.",
            "My sister is called {v}; she's been staying with us since her flat flooded, and "
            "it's been chaotic but fun.",
            "We threw a surprise party for my sister {v} on Saturday, and she's still talking "
            'about it.',
            "I've been helping my older sister {v} paint her new place all week, and my arms are "
            'killing me.',
            "Growing up, my sister {v} and I fought constantly, but we've become really close "
            'lately.',
            "I've been a bundle of nerves since my sister {v} asked me to be her maid of honour.",
        ],
        'dog': [
            "We brought our rescue dog home in spring, named him {v}, and he's been stealing "
            'socks ever since.',
            '{v}, our dog, has finally learned to sit, after weeks of treats and patience.',
            "Our dog {v} chewed through a sofa cushion while we were out, and I've been cleaning "
            'up feathers all day.',
            "I've been getting up at six every day to walk our dog, {v}, and honestly I've never "
            'felt fitter.',
            "The vet said our dog {v} has put on a bit of weight, so we've cut back on the treats.",
            'Ever since we adopted our dog {v} from the shelter, the flat has been full of fur '
            'and joy.',
            'We named our dog {v} after a long family vote, and the name has stuck even though '
            "he's huge now.",
            "Our poor dog {v} hurt his paw on Tuesday, but he's been limping less each day and "
            "I'm so relieved.",
        ],
        'instrument': [
            "I picked up the {v} again after years away, and I've been practising every evening "
            'since.',
            "My teacher says I've improved a lot on the {v} this year, and I've finally played a "
            'whole piece without stopping.',
            "Playing the {v} was my grandmother's idea; I started lessons as a kid, and I've "
            'played ever since.',
            "I've joined a little amateur group where I play the {v}, and our first concert went "
            'better than I feared.',
            "I've been playing the {v} for about three years now, and it's become my favourite "
            'way to unwind.',
            'After months of practice, I can finally play the {v} without making the neighbours '
            'wince.',
            'I bought a second-hand {v} last year and taught myself to play it from videos, and '
            'now I play most nights.',
            "Playing the {v} has got me through a rough year; I've spent hours practising when I "
            "couldn't sleep.",
        ],
    },
}
