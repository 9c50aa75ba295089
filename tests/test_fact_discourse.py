"""The discourse principles of the rule-based extractor (kit.longterm.fact_discourse) and
the scope rules added with them, each on sentences of no split and values of no split:
what kind of event a sentence tells (a journey, a day's departure, a far-off plan, a
question), shouting, a cue a sentence away, negated doubts and failures that affirm, an
order acted on by someone else, comparisons of preference, a verb opening a sentence."""
import pytest

from kit.longterm.fact_discourse import recased
from kit.longterm.fact_rules import extract_by_rules

HOME = {"Reykjavik": "home city", "Tidewater Systems": "employer"}


def read(text, known=HOME):
    return [(c.attribute, c.value, c.negated)
            for c in extract_by_rules(text, "Maya", speakers=("Maya", "Leo"), known=known)]


@pytest.mark.parametrize("text, found", [
    # 6. a journey is no move; a day's departure no resignation; a far-off plan not yet true
    ("Taking the train from Reykjavik to Porto for a conference.", []),
    ("We drove from Reykjavik to Porto with all our boxes.", [("home city", "Porto", False)]),
    ("I left Tidewater Systems late again, what a day.", [
        ("employer", "Tidewater Systems", False)]),
    ("I left Tidewater Systems last month.", [("employer", "Tidewater Systems", True)]),
    ("We're relocating to Porto in a couple of years.", []),
    ("Eventually I'd like to settle in Porto.", []),
    ("I almost relocated to Porto.", []),
    ("Nearly a year in Porto now, and I love living here.", [("home city", "Porto", False)]),
    # 7. a change asked about is not done
    ("Quit Tidewater Systems?", []),
    ("Cancel #5520?", []),
    ("Did I mention I cancelled #5520?", [("open order", "#5520", True)]),
    # 8. shouting is read in ordinary case
    ("WE LIVE IN PORTO NOW!", [("home city", "Porto", False)]),
    ("I WORK AT MAPLEWOOD BAKERY.", [("employer", "Maplewood Bakery", False)]),
    ("Just moved to PORTO!", [("home city", "Porto", False)]),
    # 9. a cue a sentence after the name
    ("Nugget dug up the whole garden. I love my dog, really.", [("dog's name", "Nugget", False)]),
    ("Typing this from our new balcony in Porto! The move took two days.", [
        ("home city", "Porto", False)]),
    ("Beatrix phoned from the airport. I'd love a dog.", []),
    ("Lunch in Porto today. The move is not happening.", []),
    # 1. negated doubts and failures affirm; a negation in a clause of an earlier time
    ("Porto hasn't failed me once, I'm glad I live here.", [("home city", "Porto", False)]),
    ("I wasn't convinced by Porto initially, but I love living here.", [
        ("home city", "Porto", False)]),
    ("My job at Maplewood Bakery never disappoints.", [("employer", "Maplewood Bakery", False)]),
    ("No way I'm leaving Tidewater Systems, I love my job.", [
        ("employer", "Tidewater Systems", False)]),
    ("I don't live in Porto any more.", [("home city", "Porto", True)]),
    # 5. an order number is the speaker's whoever acts on it, unless another's
    ("The courier lost #5520, so the store cancelled it.", [("open order", "#5520", True)]),
    ("When the store texts about #5520, that is my order.", [("open order", "#5520", False)]),
    ("My brother's order #5520 came today.", []),
    ("The neighbours here in Porto are so friendly.", [("home city", "Porto", False)]),
    ("Seeing my sister in Porto next week.", []),
    # a comparison of preference: the second term is not preferred
    ("I'd take cocoa over horchata any day.", [("favourite drink", "cocoa", False),
                                               ("favourite drink", "horchata", True)]),
    ("I like cocoa much better than horchata now.", [("favourite drink", "cocoa", False),
                                                     ("favourite drink", "horchata", True)]),
    ("Kicked my horchata habit; cocoa now.", [("favourite drink", "horchata", True),
                                              ("favourite drink", "cocoa", False)]),
    # parting with what one owns; a phrasal verb's particle ("drop off" delivers)
    ("Finally sold the Skoda.", [("car", "Skoda", True)]),
    ("The van dropped our stuff off at the new flat in Porto.", [("home city", "Porto", False)]),
    # 2. a verb opening a sentence before no verb is no name; a name alone answers
    ("Meet Nugget, my new pup!", [("dog's name", "Nugget", False)]),
    ("Left work early today.", []),
    ("Guess where we live now? Porto!", [("home city", "Porto", False)]),
])
def test_the_discourse_principles(text, found):
    assert read(text) == found


@pytest.mark.parametrize("text, known, found", [
    # a stored value beside a new value of its attribute is the old one, for a preference too
    ("Cocoa has dethroned horchata.", {"horchata": "favourite drink"},
     [("favourite drink", "cocoa", False)]),
    ("Horchata had a good run; cocoa is my thing.", {"horchata": "favourite drink"},
     [("favourite drink", "cocoa", False)]),
    ("We're Porto folks now, not Reykjavik folks.", HOME, [("home city", "Porto", False)]),
    ("The Reykjavik chapter is closed, hello Porto.", HOME, [("home city", "Porto", False)]),
    # what the city or the company does is not denied; what it is, is
    ("Tidewater Systems never pays on time, but I like my job.", HOME,
     [("employer", "Tidewater Systems", False)]),
    ("Reykjavik doesn't feel like home any more.", HOME, [("home city", "Reykjavik", True)]),
    # indefinite pronouns, numbers and a product are no names; the same old is not former
    ("Everybody asks if I'll move, but I'm staying put in Reykjavik.", HOME,
     [("home city", "Reykjavik", False)]),
    ("Four years of living in Reykjavik now.", HOME, [("home city", "Reykjavik", False)]),
    ("Still on the payroll at Tidewater Systems, mostly Jira tickets.", HOME,
     [("employer", "Tidewater Systems", False)]),
    ("Same old Reykjavik, same old flat.", HOME, [("home city", "Reykjavik", False)]),
    ("Haven't escaped Reykjavik yet, don't want to.", HOME, [("home city", "Reykjavik", False)]),
    # chat without a full stop: the next sentence starts at a word that opens sentences
    ("cocoa is my new favourite Did you see the match?", None,
     [("favourite drink", "cocoa", False)]),
    ("quick update, allergic to strawberries now Not much else going on", None,
     [("allergy", "strawberries", False)]),
    # a negation of a degree compares; an order is denied only about itself; forgetting
    # an allergy cures nothing
    ("I don't get to the oboe as often as I'd like.", None, [("instrument", "oboe", False)]),
    ("The courier still hasn't delivered #5520.", None, [("open order", "#5520", False)]),
    ("Turns out #5520 isn't coming after all.", None, [("open order", "#5520", True)]),
    ("Waiters keep forgetting my strawberries allergy.", None,
     [("allergy", "strawberries", False)]),
    ("I've outgrown my strawberries allergy.", None, [("allergy", "strawberries", True)]),
    # a landmark, a part of town or a region is no value; a place is no person nor company
    ("We moved to Porto, into a flat on Flores Street.", None, [("home city", "Porto", False)]),
    ("We live in Porto now, in the Ribeira district.", None, [("home city", "Porto", False)]),
    ("Just moved to Porto, Portugal!", None, [("home city", "Porto", False)]),
    ("My pup Nugget adores Victoria Park.", None, [("dog's name", "Nugget", False)]),
    ("New job at Maplewood Bakery! The office is in Porto.", None,
     [("employer", "Maplewood Bakery", False)]),
    ("We moved to Long Beach.", None, [("home city", "Long Beach", False)]),
    # a bare change undoes the sentence before; "boxes" tell a move a sentence after
    ("#5520? Refunded. Long story.", None, [("open order", "#5520", True)]),
    ("Moved to Porto. Done!", None, [("home city", "Porto", False)]),
    ("We made it to Porto! Everything's still in boxes.", None, [("home city", "Porto", False)]),
    # another's pet, a hyphenated cue, a city's office, an interview, another's purchase
    ("My cousin's dog Nugget howled all night.", None, []),
    ("Pet-sitting for a neighbour, so I'm dog-sitting Pepper.", None, []),
    ("The Porto office rang me twice today.", None, []),
    ("Got an interview with Maplewood Bakery on Friday!", None, []),
    ("Leo ordered #5520, not me.", None, []),
    ("Being Beatrix's little sister is exhausting.", None, [("sister's name", "Beatrix", False)]),
    # a company that ends the job; a new name opening a clause after a stored one left
    ("Tidewater Systems let me go, but Maplewood Bakery snapped me up.", HOME,
     [("employer", "Maplewood Bakery", False)]),
    ("Tidewater Systems let me go last week.", HOME, [("employer", "Tidewater Systems", True)]),
    ("After the layoffs at Tidewater Systems, Maplewood Bakery hired me.", HOME,
     [("employer", "Maplewood Bakery", False)]),
    ("Reykjavik is behind us, Porto ahead.", HOME, [("home city", "Porto", False)]),
    # the name beside its cue is the agent's; a name after another agent's noun is theirs
    ("My sister Beatrix and her partner Sven dropped by.", None,
     [("sister's name", "Beatrix", False)]),
    ("Pepper (my dog) made friends with a beagle called Daisy.", None,
     [("dog's name", "Pepper", False)]),
    ("My pup Nugget and our cat Mittens finally get along.", None,
     [("dog's name", "Nugget", False)]),
    # "put down roots" settles; an adjective opening a sentence is no one's name
    ("We've put down roots in Porto.", None, [("home city", "Porto", False)]),
    ("Allergic to strawberries now, who knew.", None, [("allergy", "strawberries", False)]),
    # litotes: a negated bad word or superlative praises or measures, it does not deny
    ("Never a boring week living in Porto.", None, [("home city", "Porto", False)]),
    ("Porto isn't the warmest place to live, but I love it here.", None,
     [("home city", "Porto", False)]),
    ("My job at Maplewood Bakery is not dull at all.", None,
     [("employer", "Maplewood Bakery", False)]),
    ("I don't live in Porto any more.", None, [("home city", "Porto", True)]),
    # a question's auxiliary after discourse markers; answered by the next sentence
    ("So, quick question: could you avoid strawberries at dinner? I'm allergic.", None,
     [("allergy", "strawberries", False)]),
])
def test_stored_values_owners_and_sentence_edges(text, known, found):
    assert read(text, known) == found


def test_recased_keeps_the_length_and_case_of_ordinary_sentences():
    assert recased("I LIVE IN LISBON") == "I live in Lisbon"
    assert recased("OMG I JOINED NIMBUS LABS") == "OMG I joined Nimbus Labs"
    assert recased("We moved to Oslo.") == "We moved to Oslo."
    for text in ("ÇA VA À PARIS", "I LIVE IN İSTANBUL", "A"):
        assert len(recased(text)) == len(text)
