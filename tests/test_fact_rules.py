"""The rule-based extractor (kit.longterm.fact_rules) on principles, not sentence shapes:
cue words in any order, negation and its scope, change verbs and their objects, and the
decider's value matching (kit.longterm.facts)."""
import pytest

from kit.longterm.fact_rules import extract_by_rules
from kit.longterm.fact_memory import FactMemory
from kit.longterm.facts import Candidate, Fact, FactTable, decide_by_rules
from kit.synthetic_changes import SPLITS, VALUES, split_templates

EVENT_ATTRIBUTE = {"city": "home city", "city again": "home city", "city change": "home city",
                   "job": "employer", "job change": "employer", "allergy": "allergy",
                   "allergy new": "allergy", "order": "open order", "order cancel": "open order",
                   "drink": "favourite drink", "drink change": "favourite drink",
                   "sister": "sister's name", "dog": "dog's name", "instrument": "instrument"}


def read(text, known=None):
    return [(c.attribute, c.value, c.negated)
            for c in extract_by_rules(text, "Maya", speakers=("Maya", "Leo"), known=known)]


# (split, event, index): templates still read wrong, a record. Of blind-6 to blind-8,
# measured once with the extractor of d131f79, 20 of their 210 templates were read wrong;
# one is left: "You'd laugh: the girl who lived on {old} has completely converted to {v}"
# (the speaker named in the third person; blind-4's last one, "... desperate for someone
# who plays the {v}", is read since a role the speaker filled by joining is theirs)
MISREAD_TEMPLATES = {("blind-8", "drink change", 2)}


# blind-9 to blind-11: the blind test of this extractor (frozen at 0e79913), measured once
# and never read: not required here, so nothing is ever tuned on them
UNREAD = ("blind-9", "blind-10", "blind-11")


# every other split: each blind one was measured once as the blind test of its day, then
# read, and is development data since
@pytest.mark.parametrize("split", [s for s in SPLITS if s not in UNREAD])
def test_every_template_of_the_development_splits_is_read(split):
    for event, templates in split_templates(split).items():
        for i, template in enumerate(templates):
            wrong = misread(event, template)
            listed = (split, event, i) in MISREAD_TEMPLATES
            assert (wrong is not None) == listed, (template, wrong)


def misread(event, template):
    """None when the template is read right, else what was read. Right: the statement
    gives its value, stated (denied for a cancellation), nothing of another attribute, and
    no old value stated after the new one. A change is read with the old value stored (the
    memory hands the extractor its current facts)."""
    attribute = EVENT_ATTRIBUTE[event]
    v, old = VALUES.get(attribute, ["#4411", "#1234"])[:2]
    got = read(template.format(v=v, old=old), {old: attribute} if "change" in event else None)
    new = (attribute, v, event == "order cancel")
    right = (new in got and all(g[0] == attribute and g[1] in (v, old) for g in got)
             and not any(g[1] == old and not g[2] for g in got[got.index(new) + 1:]))
    return None if right else got

@pytest.mark.parametrize("text, found", [
    # a clause of time, cause or fact under a question is presupposed, a modal one is not
    ("Does the landlord mind when we practise the oboe late at night?",
     [("instrument", "oboe", False)]),
    ("Is it strange that I'd choose horchata over anything?",
     [("favourite drink", "horchata", False)]),
    ("Do you think that I should move to Oslo?", []),
    # an undoing with no number undoes the number the turn named before it
    ("Parcel #7302? Forget it. I cancelled it this morning.", [("open order", "#7302", True)]),
    ("#7302 is history, rang the shop and killed the order.", [("open order", "#7302", True)]),
    # a job title after a possessive is another's job, "living room" a room: no cue word
    ("Rehearsals run late, my oboe teacher says I rush.", [("instrument", "oboe", False)]),
    ("Curtains are up in the living room, #7302 came.", [("open order", "#7302", False)]),
    ("I'm a nurse at Northgate Clinic.", [("employer", "Northgate Clinic", False)]),
    # a word of sympathy before a name is no part of it; "not going anywhere" stays
    ("Silly Waffles chased his tail, the daft dog.", [("dog's name", "Waffles", False)]),
    ("My street in Tromso is lovely. Not going anywhere.", [("home city", "Tromso", False)]),
    ("Tromso was home for years. Not anymore.", [("home city", "Tromso", True)]),
    # a negation in a clause of purpose is an outcome avoided, not a denial; a result is
    ("Taped #7302 to the fridge so I won't forget it.", [("open order", "#7302", False)]),
    ("Tromso got too pricey so I don't live there any more.", [("home city", "Tromso", True)]),
    # a role the speaker filled by joining is theirs; joining a group of leisure is no job
    ("We joined a folk band; they needed somebody who plays the banjo, so here I am.",
     [("instrument", "banjo", False)]),
    ("My cousin's band needs someone who plays the banjo.", []),
    ("I joined a choir on Mondays and Rachmaninoff is hard.", []),
    # an invitation to the speaker's home in a place: no condition on the place
    ("If you ever find yourself in Tromso, our spare room is yours.",
     [("home city", "Tromso", False)]),
    ("If you move to Tromso, you can have my flat.", []),
    ("If I move to Tromso, you can have my flat.", []),
    # "mine's" is the speaker's; waking up in a place (every day) is living there
    ("Mine's order #7302, still processing.", [("open order", "#7302", False)]),
    ("Nothing beats waking up in Tromso.", [("home city", "Tromso", False)]),
    # a negation of the alternatives affirms the one named; "here in" is the speaker's place
    ("When there's cocoa I'm not drinking anything else.", [("favourite drink", "cocoa", False)]),
    ("I don't drink cocoa.", [("favourite drink", "cocoa", True)]),
    ("My landlady grew up here in Tromso and still loves it.", [("home city", "Tromso", False)]),
    ("My landlady grew up in Tromso.", []),
    # "out for delivery" is on its way, "out" alone ends
    ("The app says #7302 is out for delivery.", [("open order", "#7302", False)]),
    ("Cocoa is out, horchata is in.", [("favourite drink", "cocoa", True),
                                      ("favourite drink", "horchata", False)]),
    # chat's "Team X" sides with X: no person named Team
    ("Team horchata these days.", [("favourite drink", "horchata", False)]),
    # "getting used to" grows accustomed; "used to" is a past habit
    ("Still getting used to the ferries here in Tromso.", [("home city", "Tromso", False)]),
    ("I used to drink cocoa, now it's horchata.", [("favourite drink", "cocoa", True),
                                                   ("favourite drink", "horchata", False)]),
    # "else" counts the speaker in, even in a question to the listener
    ("Do you know anyone else who works at Northgate Clinic?",
     [("employer", "Northgate Clinic", False)]),
    ("Do you know anyone who works at Northgate Clinic?", []),
    # the nearest cue word names a name's attribute, in any order
    ("My sister and I moved to Lisbon.", [("home city", "Lisbon", False)]),
    ("My sister Ingrid and I moved to Bergen.", [("sister's name", "Ingrid", False),
                                                 ("home city", "Bergen", False)]),
    ("Oakridge Bank hired me last week!", [("employer", "Oakridge Bank", False)]),
    ("Got a new job! I'm at Oakridge Bank now.", [("employer", "Oakridge Bank", False)]),
    ("Ugh, my sister called again.", []),
    # negation: clause scope, turned back by a second negative, hedges are none
    ("I'd never go a day without kefir.", [("favourite drink", "kefir", False)]),
    ("I'm done with espresso, it's lemonade now.", [("favourite drink", "espresso", True),
                                                    ("favourite drink", "lemonade", False)]),
    ("Matcha? Not anymore. Kefir is my thing now.", [("favourite drink", "matcha", True),
                                                     ("favourite drink", "kefir", False)]),
    ("Not sure I'll stay in Lisbon, but I live there now.", [("home city", "Lisbon", False)]),
    # change verbs deny their object, in the passive the value before, with "it" the antecedent
    ("I switched from matcha to chai.", [("favourite drink", "matcha", True),
                                         ("favourite drink", "chai", False)]),
    ("I quit Brightwater Labs.", [("employer", "Brightwater Labs", True)]),
    ("I quit and took a job at Oakridge Bank.", [("employer", "Oakridge Bank", False)]),
    ("Order #4411 is cancelled, I changed my mind.", [("open order", "#4411", True)]),
    ("Changed my mind about #4411, asked them to call it off.", [("open order", "#4411", True)]),
    ("Sent #4411 back, it was broken.", [("open order", "#4411", True)]),
    ("I cancelled my order, it was taking forever.", [("open order", "", True)]),
    ("Matcha used to be my thing, now it's chai.", [("favourite drink", "matcha", True),
                                                    ("favourite drink", "chai", False)]),
    ("Can't get enough of chai.", [("favourite drink", "chai", False)]),
    ("Finished up at Brightwater Labs on Friday and started with Oakridge Bank Monday.",
     [("employer", "Oakridge Bank", False)]),
    # a change that did not happen: negated, or only possible
    ("I haven't cancelled #4411 yet.", [("open order", "#4411", False)]),
    ("I might quit Brightwater Labs.", [("employer", "Brightwater Labs", False)]),
    ("I'll send it back if it's broken, order #4411.", [("open order", "#4411", False)]),
    # avoiding an allergen states the allergy; only the allergy itself is denied
    ("I can't eat sesame any more, I'm allergic.", [("allergy", "sesame", False)]),
    ("I'm not allergic to kiwis any more.", [("allergy", "kiwis", True)]),
])
def test_the_rules_read_by_principle(text, found):
    assert read(text) == found

def test_a_rephrased_value_is_the_same_fact_and_a_denial_of_its_short_form_retracts_it():
    def c(value, negated=False, n=1):
        return Candidate("Maya", "employer", value, negated, False, (n,), "2023-01-0" + str(n))

    labs = Fact(1, "Maya", "employer", "Brightwater Labs", "2023-01-01")
    assert decide_by_rules(c("brightwater labs."), [labs]).op == "none"
    assert decide_by_rules(c("Brightwater"), [labs]).op == "none"
    assert decide_by_rules(c("Bright"), [labs]).op == "update"          # words, not letters
    table = FactTable()
    table.write(c("Brightwater Labs"))
    assert table.write(c("Brightwater", True, 2)).op == "retract"
    assert table.current() == [] and table.history("Maya", "employer")[0].status == "retracted"

def test_a_place_name_that_begins_with_a_common_word_is_read_whole():
    """"New" is a sentence opener in COMMON_WORDS: "New York" was read as "York"."""
    for text, city in (("I live in New York.", "New York"), ("New York is home now.", "New York"),
                       ("We moved to Long Beach.", "Long Beach")):
        assert [(c.attribute, c.value) for c in extract_by_rules(text, "Sam")] == \
            [("home city", city)], text
    assert [c.value for c in extract_by_rules("New Job at Acme Labs!", "Sam")] == ["Acme Labs"]

def test_a_value_that_ends_another_is_another_value():
    """Only a value's first words are its short form: moving from New York to York is an
    update (it was 'none', and a denial of York retracted New York)."""
    def c(value, negated=False):
        return Candidate("Sam", "home city", value, negated, False, (2,), "2023-01-02")

    new_york = Fact(1, "Sam", "home city", "New York", "2023-01-01")
    assert decide_by_rules(c("York"), [new_york]).op == "update"
    assert decide_by_rules(c("York", True), [new_york]).op == "none"
    assert decide_by_rules(c("new york"), [new_york]).op == "none"

@pytest.mark.parametrize("text, value", [
    ("I live in Zürich.", "Zürich"), ("I moved to São Paulo.", "São Paulo"),
    ("We moved to Kraków last spring.", "Kraków"), ("I live in Zu\u0308rich.", "Zürich"),
    ("İstanbul is home now, I live there.", "İstanbul")])
def test_a_name_with_letters_beyond_ascii_is_a_name(text, value):
    """Names were [A-Z][a-z]+: 'Zürich' gave nothing, 'São Paulo' gave 'Paulo'."""
    assert [(c.attribute, c.value) for c in extract_by_rules(text, "Sam")] == \
        [("home city", value)]

@pytest.mark.parametrize("text, found", [
    ("Do you live in Lisbon?", []),
    ("Does your sister Ana like matcha?", []),
    ("Do you know I moved to Lisbon?", [("home city", "Lisbon", False)]),
    ("You know what? I quit Brightwater Labs.", [("employer", "Brightwater Labs", True)]),
    ("Matcha? Not anymore.", [("favourite drink", "matcha", True)])])
def test_a_question_to_the_listener_states_nothing_about_the_speaker(text, found):
    """'Do you live in Lisbon?' wrote Lisbon as the asker's home city."""
    assert [(c.attribute, c.value, c.negated) for c in extract_by_rules(text, "Sam")] == found

@pytest.mark.parametrize("text, found", [
    ("He is allergic to peanuts.", []),
    ("She quit her job at Brightwater Labs.", []),
    ("They hired me at Brightwater Labs!", [("employer", "Brightwater Labs", False)]),
    ("We got a dog! He is called Rex.", [("dog's name", "Rex", False)]),
    ("My sister? She is called Ana.", [("sister's name", "Ana", False)])])
def test_a_sentence_about_someone_else_states_nothing_about_the_speaker(text, found):
    """'He is allergic to peanuts' wrote the speaker's allergy; a pronoun for the dog or
    the sister the turn introduced still reads."""
    assert [(c.attribute, c.value, c.negated) for c in extract_by_rules(text, "Sam")] == found


H, E = "home city", "employer"


@pytest.mark.parametrize("text, known, found", [
    # 1. a negation denies only the link it governs: not an idiom, an intensifier, a
    # negated change or another agent's action
    ("I couldn't be happier with my flat in Bergen.", None, [(H, "Bergen", False)]),
    ("Kefir is not bad at all, honestly.", None, [("favourite drink", "kefir", False)]),
    ("I'd never leave Bergen.", {"Bergen": H}, [(H, "Bergen", False)]),
    ("Our dog Rex never listens to me.", None, [("dog's name", "Rex", False)]),
    ("My sister Ana never calls me back.", None, [("sister's name", "Ana", False)]),
    ("The shop didn't cancel my order #4411, it's still coming.", None,
     [("open order", "#4411", False)]),
    ("I don't live in Bergen anymore.", None, [(H, "Bergen", True)]),
    ("Our dog isn't called Rex.", None, [("dog's name", "Rex", True)]),
    # 2. opening a sentence, a word English knows only as no noun is not a name
    ("A lovely weekend in Bergen. Truly glad we made our home here.", None,
     [(H, "Bergen", False)]),
    ("Frankly, the new job is fine.", None, []),
    ("Pickles, our puppy, slept all day.", None, [("dog's name", "Pickles", False)]),
    # 3. a stored value left gives its attribute to the new name of the sentence
    ("We traded Bergen for Hobart in May.", {"Bergen": H}, [(H, "Hobart", False)]),
    ("We traded Bergen for Hobart in May.", None, []),
    ("Farewell Brightwater Labs, hello Oakridge Bank.", {"Brightwater Labs": E},
     [(E, "Oakridge Bank", False)]),
    ("From Bergen to Hobart in a single summer.", {"Bergen": H}, [(H, "Hobart", False)]),
    ("Oakridge Bank poached me from Brightwater.", {"Brightwater Labs": E},
     [(E, "Oakridge Bank", False)]),
    ("Bergen was rainy today.", {"Bergen": H}, [(H, "Bergen", False)]),
    ("We said goodbye to Bergen and to our friends Ana and Tom.", {"Bergen": H},
     [(H, "Bergen", True)]),
    ("Hobart is home now, Bergen feels far away.", {"Bergen": H}, [(H, "Hobart", False)]),
    ("Big move! We're in Hobart now. Bergen feels like a lifetime ago.", {"Bergen": H},
     [(H, "Hobart", False)]),
    # 4. a sentence that denies or undoes with no value of its own: the sentence before
    ("Order #4411 for a lamp. It's not going ahead, I withdrew it.", None,
     [("open order", "#4411", True)]),
    ("I placed order #4411. Backed out of it an hour later.", None,
     [("open order", "#4411", True)]),
    ("I live in Bergen. Not much rain this week.", None, [(H, "Bergen", False)]),
    # 5. the speaker's facts only: not another's, not a condition, wish or question
    ("My friend says she moved to Hobart.", None, []),
    ("My boss, Ingrid, swears by espresso.", None, []),
    ("My brother lives in Hobart.", None, []),
    ("My sister Ana lives in Hobart.", None, [("sister's name", "Ana", False)]),
    ("If we ever moved to Hobart, I'd get a dog.", None, []),
    ("I might take a job at Oakridge Bank.", None, []),
    ("Have you ever lived in Hobart?", None, []),
    ("Should I move to Hobart?", None, []),
    ("Did I mention we moved to Hobart?", None, [(H, "Hobart", False)]),
    ("If I had to pick one drink forever, it'd be kefir.", None,
     [("favourite drink", "kefir", False)]),
    ("I'd say Bergen is home now.", None, [(H, "Bergen", False)]),
    ("If you visit, we live in Bergen now.", None, [(H, "Bergen", False)]),
    ("I joined their team at Oakridge Bank.", None, [(E, "Oakridge Bank", False)]),
])
def test_the_principles_carry_to_sentences_of_no_split(text, known, found):
    assert read(text, known) == found


def test_the_memory_reads_a_change_that_names_only_the_old_value():
    """The write path hands the extractor its current facts: "We traded Bergen for
    Hobart" has no word of the home city, and still moves Maya."""
    memory = FactMemory(2000, lambda text: len(text.split()), speakers=("Maya", "Leo"))
    memory.add("user", "I live in Bergen.", speaker="Maya", when="3 March, 2023")
    memory.add("user", "We traded Bergen for Hobart in May.", speaker="Maya",
               when="9 May, 2023")
    assert [(f.value, f.status) for f in memory.table.history("Maya", H)] == \
        [("Bergen", "superseded"), ("Hobart", "current")]


def test_stored_values_that_are_not_a_dict_of_str_are_refused():
    with pytest.raises(TypeError, match="known"):
        extract_by_rules("We left Bergen.", "Maya", known=["Bergen"])


def test_a_turn_read_again_keeps_its_own_provenance_and_long_turns_are_not_remembered():
    """Short turns are read once per text, speakers and known values (an evaluation feeds
    one conversation to several memories); each call still gets its own source and date,
    and a long turn is read afresh (nothing of unbounded size is kept)."""
    from kit.longterm import fact_rules
    text = "I moved to Tallinn last spring."
    first = extract_by_rules(text, "Maya", source=(3,), when="2023-01-09")
    hits = fact_rules._read_short.cache_info().hits
    again = extract_by_rules(text, "Maya", source=(9,), when="2023-05-01")
    assert fact_rules._read_short.cache_info().hits == hits + 1
    assert [(c.value, c.source, c.when) for c in first] == [("Tallinn", (3,), "2023-01-09")]
    assert [(c.value, c.source, c.when) for c in again] == [("Tallinn", (9,), "2023-05-01")]
    assert extract_by_rules(text, "Maya", known={"Tallinn": "home city"}) != []
    calls = fact_rules._read_short.cache_info()
    long = "Nice weather today. " * 200 + text
    assert [c.value for c in extract_by_rules(long, "Maya")] == ["Tallinn"]
    after = fact_rules._read_short.cache_info()
    assert (after.hits, after.misses) == (calls.hits, calls.misses)


@pytest.mark.parametrize("text, found", [
    # a sentence with its own activity ("complaining", "working today") is not about the
    # value before: only an event's participle ("Not happening.") refers back
    ("I live in Bergen. Not complaining.", [(H, "Bergen", False)]),
    ("I work at Oakridge Bank. Not working today, it's a holiday.",
     [(E, "Oakridge Bank", False)]),
    ("I live in Bergen. It's not raining anymore.", [(H, "Bergen", False)]),
    ("Order #4411 for a lamp. Not happening anymore.", [("open order", "#4411", True)]),
    # "tried to" is only an attempt, in every tense
    ("I tried to cancel #4411 but it had shipped.", [("open order", "#4411", False)]),
    # "who" opens another person's clause
    ("I met a nurse who lives in Hobart.", []),
])
def test_no_wrong_write_from_an_activity_an_attempt_or_a_relative_clause(text, found):
    assert read(text) == found


@pytest.mark.parametrize("text, known, found", [
    # a sentence with no "I", "me", "we" whose subject is another person: their fact
    ("Tom lives in Hobart.", None, []),
    ("Ingrid is allergic to peanuts.", None, []),
    ("Leo drinks kefir every morning.", None, []),          # Leo: another speaker
    ("Ingrid quit Oakridge Bank.", {"Oakridge Bank": E}, []),
    # the speaker's own, the value as the subject, or a change with no subject stay
    ("Ingrid and I moved to Hobart.", None, [(H, "Hobart", False)]),
    ("Hobart is home now.", None, [(H, "Hobart", False)]),
    ("Quit Oakridge Bank today.", {"Oakridge Bank": E}, [(E, "Oakridge Bank", True)]),
])
def test_a_sentence_about_another_named_person_writes_none_of_the_speakers_facts(
        text, known, found):
    assert read(text, known) == found


@pytest.mark.parametrize("text, found", [
    # a negation with no verb right before an allergen denies it; avoiding one states it
    ("I react to hazelnuts, not latex.", [("allergy", "hazelnuts", False),
                                          ("allergy", "latex", True)]),
    ("I'm allergic to kiwis. Not latex though.", [("allergy", "kiwis", False),
                                                  ("allergy", "latex", True)]),
    ("I can't touch latex any more.", [("allergy", "latex", False)]),
])
def test_a_bare_not_before_an_allergen_denies_it(text, found):
    assert read(text) == found


@pytest.mark.parametrize("text, found", [
    ("Honestly I hate kefir.", [("favourite drink", "kefir", True)]),
    ("I've always disliked espresso, chai is my drink.", [("favourite drink", "espresso", True),
                                                         ("favourite drink", "chai", False)]),
    ("I love kefir.", [("favourite drink", "kefir", False)]),
])
def test_a_dislike_states_no_favourite(text, found):
    assert read(text) == found


@pytest.mark.parametrize("text, found", [
    # being fired or laid off ends the job; not being fired keeps it
    ("I got fired from Oakridge Bank.", [(E, "Oakridge Bank", True)]),
    ("I was laid off by Oakridge Bank.", [(E, "Oakridge Bank", True)]),
    ("Phew, I wasn't fired from Oakridge Bank.", [(E, "Oakridge Bank", False)]),
])
def test_a_dismissal_ends_the_job(text, found):
    assert read(text) == found


def test_an_almost_change_changes_nothing():
    assert read("I almost quit Oakridge Bank.", {"Oakridge Bank": E}) == \
        [(E, "Oakridge Bank", False)]
    assert read("I nearly cancelled #4411.") == [("open order", "#4411", False)]


@pytest.mark.parametrize("speaker, speakers", [(None, ()), ("Maya", "Leo"), ("Maya", (None,)),
                                               ("Maya", None)])
def test_a_speaker_that_is_not_a_str_is_refused(speaker, speakers):
    with pytest.raises(TypeError, match="speaker"):
        extract_by_rules("I live in Bergen.", speaker, speakers=speakers)


@pytest.mark.parametrize("text", ["I turned down the offer from Oakridge Bank.",
                                  "I declined the job at Oakridge Bank.",
                                  "Oakridge Bank? I got rejected by Oakridge Bank."])
def test_a_job_refused_is_no_employer(text):
    assert (E, "Oakridge Bank", False) not in read(text)
    assert (E, "Oakridge Bank", True) in read(text)
