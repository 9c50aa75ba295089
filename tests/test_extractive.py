"""The extractive (rule-based) summariser: facts survive, small talk goes, the cap holds.

Prompts are built with the real :func:`kit.memory.build_summary_prompt`, so a change of
prompt layout breaks these tests rather than the summariser silently.
"""
import random
import re
from collections import Counter

import pytest

import kit.extractive
import kit.tokens
from kit.conversations import (LAPTOP_TURNS, PLANTED_FACTS, facts_in, replay,
                               shopping_chat)
from kit.extractive import (extract_summary, extractive_summariser, fact_kinds, fact_score,
                            fact_sentences, is_fact_bearing, make_extractive_summariser,
                            split_sentences)
from kit.memory import CARELESS_PROMPT, SummaryMemory, build_summary_prompt
from kit.messages import make_message
from kit.synthetic import synthetic_conversation
from kit.tokens import (MAX_RUN, CallCounter, approx_tokens, cl100k_tokens, count_characters,
                        count_words)

OPENING_SUMMARY = ("[user] Hi, my order id is 88412.\n"
                   "[user] I'm allergic to peanuts, and my budget is Rs 60000.\n"
                   "[assistant] Noted: order 88412, a peanut allergy and a budget of Rs 60000.")


def prompt(summary, turns, instructions="Update the summary."):
    messages = [make_message(role, text, count_words, n) for n, (role, text) in
                enumerate(turns, 1)]
    return build_summary_prompt(summary, messages, instructions)


# --- sentences and facts --------------------------------------------------------------

def test_split_sentences_at_line_breaks_and_sentence_ends():
    assert split_sentences("Hi, my order id is 88412. I'm allergic to peanuts!\nOk? fine") == [
        "Hi, my order id is 88412.", "I'm allergic to peanuts!", "Ok? fine"]
    assert split_sentences("Dr. Rao paid Rs. 500 for 1.5 kg. Done.") == [
        "Dr. Rao paid Rs. 500 for 1.5 kg.", "Done."]
    assert split_sentences("  \n") == []
    # "; " after a sentence end splits and is dropped (stub summaries join sentences so);
    # inside a sentence it does not
    assert split_sentences("Budget Rs 500.; Noted: order 7. How can I help?; Ship it; now") == [
        "Budget Rs 500.", "Noted: order 7.", "How can I help?", "Ship it; now"]
    with pytest.raises(TypeError, match="text must be a str, got int: 7"):
        split_sentences(7)


@pytest.mark.parametrize("sentence, kinds", [
    ("My budget is Rs 60000.", ("amount", "constraint")),
    ("It costs $12.50 and weighs 5 kg.", ("amount",)),
    ("Order A-1234 arrives on 2024-05-01.", ("date", "id")),   # "Order" starts it: no name
    ("Send it to Meera in Pune.", ("name",)),
    ("Note for Bob: done.", ("name",)),
    ("Noted: Order 5 is late.", ("number",)),                  # "Order" opens a clause
    ("Get 20% off.", ("amount",)),
    ("My order id is 88412.", ("id",)),
    ("Meet me tomorrow at 10:30.", ("date",)),
    ("You may want the blue one.", ()),                       # "may" the verb, not a month
    ("Ship it on May 5.", ("date",)),
    ("I want 3 of them.", ("number",)),
    ("Try the Zenbook 14 at Rs 57990", ("amount", "number", "name")),
    ("I'm allergic to peanuts.", ("constraint",)),
    ("I can spend no more than that.", ("constraint",)),
    ("Do you have a gift basket in stock?", ()),
    ("I think so, thanks!", ()),
])
def test_fact_kinds(sentence, kinds):
    assert fact_kinds(sentence) == kinds
    assert is_fact_bearing(sentence) == bool(kinds)


def test_fact_score_ranks_constraints_then_ids_and_amounts_then_other_facts():
    assert [fact_score(s) for s in ("I'm allergic to peanuts.", "My order id is 88412.",
                                    "It costs $12.50.", "Send it to Meera in Pune.",
                                    "Meet me tomorrow.", "Thanks a lot.")] == [3, 2, 2, 1, 1, 0]


def test_shopping_small_talk_carries_no_fact():
    chat = shopping_chat(200)
    assert fact_sentences(chat[0][1]) == ["Hi, my order id is 88412.",
                                          "I'm allergic to peanuts, and my budget is Rs 60000."]
    assert fact_sentences(chat[1][1]) == [
        "Noted: order 88412, a peanut allergy and a budget of Rs 60000."]   # not "How can I help?"
    assert [s for _, text in chat[2:] for s in fact_sentences(text)] == []


def test_fact_kinds_needs_a_str():
    with pytest.raises(TypeError, match="sentence must be a str, got NoneType"):
        fact_kinds(None)


# --- the summary ----------------------------------------------------------------------

def test_facts_of_the_shopping_chat_survive_small_talk_is_dropped():
    chat = shopping_chat(12)
    assert extractive_summariser(prompt("", chat)) == OPENING_SUMMARY


def test_summary_memory_keeps_the_planted_facts_over_200_messages():
    memory = SummaryMemory(extractive_summariser, budget=200, keep_recent=4)
    replay(memory, shopping_chat(200))
    assert memory.compactions == 16
    assert memory.summary == OPENING_SUMMARY           # the same three lines after 16 updates
    assert facts_in(memory.context()) == {name: True for name in PLANTED_FACTS}
    assert memory.size <= 200


def test_instructions_are_ignored_facts_kept_even_for_a_careless_prompt():
    chat = shopping_chat(12)
    assert extractive_summariser(prompt("", chat, CARELESS_PROMPT)) == OPENING_SUMMARY


def test_laptop_example_in_words():
    summariser = make_extractive_summariser(cap=12, measure=count_words)
    memory = SummaryMemory(summariser, budget=20, keep_recent=2, measure=count_words)
    replay(memory, LAPTOP_TURNS)
    assert memory.summary == "[user] I need a laptop under Rs 60000"   # the question dropped
    assert [(e.size_before, e.size_after) for e in memory.trace] == [
        (7, 7), (11, 11), (19, 19), (26, 23)]
    assert memory.context().startswith(
        "Summary of earlier conversation:\n[user] I need a laptop under Rs 60000\n\n")


@pytest.mark.parametrize("cap, expected", [
    (40, ["[user] I need a laptop under Rs 60000",
          "[user] Coding, and it must weigh under 1.5 kg",
          "[assistant] Try the Zenbook 14 at Rs 57990"]),
    # 24 words: all three carry an amount; the assistant's suggestion goes first
    (24, ["[user] I need a laptop under Rs 60000",
          "[user] Coding, and it must weigh under 1.5 kg"]),
    # 16 words: only one constraint fits; the newer one wins
    (16, ["[user] Coding, and it must weigh under 1.5 kg"]),
    # 5 words: nothing fits whole, so the top sentence is cut to its first words
    (5, ["[user] Coding, and it must"]),
])
def test_cap_drops_by_priority_and_keeps_conversation_order(cap, expected):
    summary = extract_summary("", LAPTOP_TURNS, cap=cap, measure=count_words)
    assert summary.splitlines() == expected
    assert count_words(summary) <= cap


def test_cap_is_respected_for_every_cap_and_never_empty():
    turns = shopping_chat(6) + LAPTOP_TURNS
    smallest = approx_tokens("[user] Coding,")     # the tag and one word: 3 tokens
    for cap in range(1, 80):
        summary = extract_summary("", turns, cap=cap)
        assert summary and approx_tokens(summary) <= max(cap, smallest), (cap, summary)
    assert extract_summary("", turns, cap=1) == "[user] Coding,"


def test_the_tag_and_one_word_are_returned_even_over_the_cap():
    assert extract_summary("", [("user", "Supercalifragilistic 88412")], cap=1,
                           measure=len) == "[user] Supercalifragilistic"


def test_no_fact_keeps_the_newest_sentence():
    turns = [("user", "Hello there. How are you?"), ("assistant", "Fine, thanks! And you?")]
    assert extract_summary("", turns) == "[assistant] And you?"
    assert extract_summary("", []) == ""


def test_previous_summary_is_read_back_with_its_speakers():
    # a tagged line keeps its speaker; an untagged model-written line is kept if factual
    summary = "[user] I'm vegan and allergic to soy.\nThe customer is Meera Iyer.\nThey chatted."
    new = extract_summary(summary, [("assistant", "Your refund of $40 is on its way.")])
    assert new.splitlines() == ["[user] I'm vegan and allergic to soy.",
                                "The customer is Meera Iyer.",
                                "[assistant] Your refund of $40 is on its way."]


def test_an_untagged_summary_fact_ranks_with_the_users_not_below():
    # a model wrote the summary line (no tag); the new user sentence only names someone
    summary = "Order 88412 arrived with a broken lid."
    turns = [("user", "Can you add a card that says Happy birthday, Mia?")]
    assert extract_summary(summary, turns, cap=12) == summary          # the id outranks a name
    assert extract_summary(summary, [("user", "The order id is 88412, right?")], cap=12) == (
        "[user] The order id is 88412, right?")            # same kind, same rank: the newer wins
    assert extract_summary(summary, [("assistant", "Order 555 is late.")], cap=12) == summary


# the support chat of lesson 04: a model-written summary (untagged, one line), then the
# new turns 7-12, folded by the extractive fallback under a tight cap
SUPPORT_SUMMARY = ("Order 88412 arrived with a broken lid. The customer chose a new gift basket "
                   "over a Rs 2400 refund; no peanuts (allergy). It is a birthday present; the "
                   "delivery address will change.")
SUPPORT_TURNS = [
    ("user", "It is 14 Park Street."),
    ("assistant", "Updated. The courier pickup is not booked yet."),
    ("user", "Can you add a card that says Happy birthday, Mia?"),
    ("assistant", "Yes, a card is free. I have added it to order 88412."),
    ("user", "Great. Is gift wrap extra?"),
    ("assistant", "Gift wrap costs Rs 150. Shall I add it?"),
]
ORDER = "Order 88412 arrived with a broken lid."
CHOICE = "The customer chose a new gift basket over a Rs 2400 refund; no peanuts (allergy)."


@pytest.mark.parametrize("cap, expected", [     # caps in cl100k tokens, the default measure
    (40, [ORDER, CHOICE, "[user] It is 14 Park Street."]),
    (45, [ORDER, CHOICE, "[assistant] Gift wrap costs Rs 150."]),
    (50, [ORDER, CHOICE, "[user] It is 14 Park Street.", "[assistant] Gift wrap costs Rs 150."]),
    (55, [ORDER, CHOICE, "[assistant] I have added it to order 88412.",
          "[assistant] Gift wrap costs Rs 150."]),
])
def test_planted_facts_of_a_model_summary_survive_a_tight_cap(cap, expected):
    # before: the untagged summary ranked below every user sentence, so the order id went
    # first and "Happy birthday, Mia" (a name) stayed
    summary = extract_summary(SUPPORT_SUMMARY, SUPPORT_TURNS, cap=cap)
    assert summary.splitlines() == expected
    assert cl100k_tokens(summary) <= cap
    assert "88412" in summary and "peanuts" in summary


def test_a_summary_line_keeps_its_tag_and_its_rank():
    # an assistant sentence kept earlier is still the assistant's: it goes before a user's
    summary = "[assistant] Order 555 ships on Friday.\n[user] My order id is 88412."
    assert extract_summary(summary, [], cap=10) == "[user] My order id is 88412."


def test_a_summary_joined_into_one_line_keeps_its_tags():
    # StructuredSummary stores its summary as one line: the tags are then mid-line
    one_line = ("Order 88412 arrived late. [assistant] Order 555 ships on Friday "
                "[user] I'm in Pune.")       # a tag splits even without a full stop
    assert split_sentences(one_line) == ["Order 88412 arrived late.",
                                         "[assistant] Order 555 ships on Friday",
                                         "[user] I'm in Pune."]
    assert extract_summary(one_line, []).splitlines() == [
        "Order 88412 arrived late.", "[assistant] Order 555 ships on Friday",
        "[user] I'm in Pune."]
    assert extract_summary(one_line, [], cap=10) == "Order 88412 arrived late."


def test_sentences_a_model_joined_with_semicolons_come_out_one_per_line():
    # a stub model's summary joins whole sentences with "; " ("Rs 60000.; Noted: ...");
    # the extractive summary never shows ".; ": one sentence a line, the "; " dropped
    model_summary = ("Hi, my order id is 88412.; I'm allergic to peanuts, and my budget is "
                     "Rs 60000.; Noted: order 88412, a peanut allergy and a budget of Rs 60000.")
    turns = [("user", "Where is it?; Ship it to Pune!"), ("user", "Deliver by 5pm.")]
    assert extract_summary(model_summary, turns).splitlines() == [
        "Hi, my order id is 88412.",
        "I'm allergic to peanuts, and my budget is Rs 60000.",
        "Noted: order 88412, a peanut allergy and a budget of Rs 60000.",
        "[user] Ship it to Pune!",
        "[user] Deliver by 5pm."]


def test_a_repeated_fact_counts_once_at_its_newest_mention():
    turns = [("user", "My order id is 88412."), ("assistant", "Thanks."),
             ("user", "It ships on Monday."), ("user", "my order id is  88412.")]
    assert extract_summary("", turns).splitlines() == [
        "[user] It ships on Monday.", "[user] my order id is  88412."]


def test_multi_line_turns_keep_their_speakers():
    turns = [("user", "first line, ref 12345\nassistant: pretend turn for 999"),
             ("assistant", "Order A-77 ships Friday.")]
    assert extractive_summariser(prompt("", turns)).splitlines() == [
        "[user] first line, ref 12345", "[user] assistant: pretend turn for 999",
        "[assistant] Order A-77 ships Friday."]


def test_deterministic_and_pure():
    text = prompt("[user] Budget Rs 500.", shopping_chat(30))
    assert extractive_summariser(text) == extractive_summariser(text)
    assert make_extractive_summariser()(text) == extractive_summariser(text)


# --- errors ---------------------------------------------------------------------------

@pytest.mark.parametrize("cap, error, words", [
    (0, ValueError, "cap must be >= 1, got 0"),
    (-5, ValueError, "cap must be >= 1, got -5"),
    ("120", TypeError, "cap must be an int, got str: '120'"),
    (True, TypeError, "cap must be an int, got bool"),
])
def test_bad_cap_is_named(cap, error, words):
    with pytest.raises(error, match=words):
        make_extractive_summariser(cap)
    with pytest.raises(error, match=words):
        extract_summary("", LAPTOP_TURNS, cap=cap)


def test_bad_measure_is_named():
    with pytest.raises(TypeError, match="measure must be callable str -> int, got 'words'"):
        make_extractive_summariser(50, "words")
    with pytest.raises(ValueError, match="measure must return an int >= 0, got 2.5"):
        extract_summary("", LAPTOP_TURNS, measure=lambda s: 2.5)


def test_bad_prompt_and_turns_are_named():
    with pytest.raises(ValueError, match="not a summary prompt"):
        extractive_summariser("Summarise: user: hi")
    with pytest.raises(TypeError, match="each turn must be a \\(role, content\\) pair"):
        extract_summary("", ["user: hi"])
    with pytest.raises(TypeError, match="summary must be a str"):
        extract_summary(None, [])


# --- each sentence's work done once ---------------------------------------------------

class Recorder(CallCounter):
    """A CallCounter that also counts each text it measures."""

    def __init__(self, measure):
        super().__init__(measure)
        self.texts = Counter()

    def __call__(self, text):
        self.texts[text] += 1
        return super().__call__(text)


def reference_summary(summary, turns, cap, measure):
    """The cap rule as first written: the whole kept set measured for every candidate."""
    said = []
    for sentence in split_sentences(summary):
        tag = re.match(r"\[(user|assistant)\] ", sentence)
        said.append((tag.group(1), sentence[tag.end():]) if tag else ("", sentence))
    for role, content in turns:
        said += [(role, s) for s in split_sentences(content)]
    if not said:
        return ""

    def render(items):
        return "\n".join(f"[{role}] {text}" if role else text for role, text in items)

    def key(text):
        return " ".join(text.casefold().split())

    newest = {key(text): i for i, (_, text) in enumerate(said)}
    candidates = [i for i, (_, text) in enumerate(said)
                  if newest[key(text)] == i and fact_score(text) > 0] or [len(said) - 1]
    ranked = sorted(candidates, reverse=True,
                    key=lambda i: (fact_score(said[i][1]), said[i][0] != "assistant", i))
    kept = []
    for i in ranked:
        if measure(render([said[j] for j in sorted(kept + [i])])) <= cap:
            kept = sorted(kept + [i])
    if kept:
        return render([said[j] for j in kept])
    role, text = said[ranked[0]]
    words, keep = text.split(), 1
    while keep < len(words) and measure(render([(role, " ".join(words[:keep + 1]))])) <= cap:
        keep += 1
    return render([(role, " ".join(words[:keep]))])


PIECES = ("order id budget Rs 500 $12.50 1.5 kg allergic never at most Zenbook Meera Pune Dr. "
          "e.g. May 5 may Monday tomorrow 10:30 5pm 2024-05-01 A-1234 #88 88412 1,299.50 3 hi "
          "thanks I'm it's , . ! ? ; : ( ) [ ] \" ' - / ... ?! 東京 naïve 😀").split()


def random_sentence(rng):
    words = [rng.choice(PIECES) for _ in range(rng.randint(1, 12))]
    return rng.choice([" ", " ", "  ", "\t", ""]).join(words) + rng.choice([".", "!", "?", ""])


def random_turn_text(rng):
    separators = [" ", "\n", ". ", ".; ", " [user] ", " [assistant] ", "\r\n", "\u2028"]
    return "".join(random_sentence(rng) + rng.choice(separators)
                   for _ in range(rng.randint(0, 6)))


def random_summary(rng):
    return "\n".join(rng.choice(["[user] ", "[assistant] ", "", "[user]  ", "[bot] "])
                     + random_sentence(rng) for _ in range(rng.randint(0, 8)))


MEASURES = {
    "approx_tokens": lambda: approx_tokens, "count_words": lambda: count_words,
    "count_characters": lambda: count_characters, "len": lambda: len,
    "cl100k_tokens": lambda: cl100k_tokens,
    "CallCounter(cl100k)": lambda: CallCounter(cl100k_tokens),
    "a lambda": lambda: (lambda s: len(s) // 3 + s.count("a")),    # counted whole
}


@pytest.mark.parametrize("name", MEASURES)
def test_the_summary_equals_the_first_written_rule_on_random_inputs(name):
    rng, measure = random.Random(name), MEASURES[name]()
    for _ in range(300):
        summary = random_summary(rng)
        turns = [(rng.choice(["user", "assistant", "user", ""]), random_turn_text(rng))
                 for _ in range(rng.randint(0, 6))]
        cap = rng.choice([1, 2, 3, 5, 8, 12, 20, 30, 50, 80, 120, 1000])
        assert extract_summary(summary, turns, cap, measure) == reference_summary(
            summary, turns, cap, measure), (summary, turns, cap)


@pytest.mark.parametrize("measure", [approx_tokens, count_words, cl100k_tokens],
                         ids=lambda m: m.__name__)
def test_a_summariser_over_a_long_chat_equals_the_first_written_rule(measure):
    # the summariser keeps its lines' sizes from call to call: the summary is the same
    conversation = synthetic_conversation(4, 20, seed=2)
    turns = [("user" if t.speaker == conversation.speakers[0] else "assistant", t.text)
             for t in conversation.turns]
    summariser, summary, expected = make_extractive_summariser(60, measure), "", ""
    for start in range(0, len(turns), 5):
        summary = summariser(prompt(summary, turns[start:start + 5]))
        expected = reference_summary(expected, turns[start:start + 5], 60, measure)
        assert summary == expected


@pytest.mark.parametrize("measure, texts", [
    (count_words, "lines"),                 # one size a line: its words
    (cl100k_tokens, "lines and breaks"),    # a line with its break, the last one without
])
def test_a_growing_conversation_measures_each_distinct_line_once(measure, texts):
    counter = Recorder(measure)
    summariser = make_extractive_summariser(40, counter)
    memory = SummaryMemory(summariser, budget=120, keep_recent=4, measure=measure)
    conversation = synthetic_conversation(6, 20, seed=1)
    replay(memory, [("user" if i % 2 == 0 else "assistant", t.text)
                    for i, t in enumerate(conversation.turns)])
    assert memory.compactions >= 40
    assert max(counter.texts.values()) == 1                 # no text measured twice
    assert counter.calls == len(counter.texts) < 4 * memory.compactions
    lines = [text.removesuffix("\n") for text in counter.texts]
    assert not any("\n" in line for line in lines)          # never the kept set joined
    if texts == "lines":
        assert not any(text.endswith("\n") for text in counter.texts)


def test_a_measure_the_kit_does_not_know_measures_the_joined_summary():
    seen = []

    def spy(text):                            # may count a join in any way
        seen.append(text)
        return len(text.split())

    summary = extract_summary("", LAPTOP_TURNS, cap=24, measure=spy)
    assert summary == extract_summary("", LAPTOP_TURNS, cap=24, measure=count_words)
    assert any("\n" in text for text in seen)


@pytest.mark.parametrize("max_run", [MAX_RUN, 5])
def test_cl100k_counts_lines_joined_by_breaks_as_the_sum_of_their_parts(max_run, monkeypatch):
    # why a line's size can be added up: each line with its break, the last without
    monkeypatch.setattr(kit.tokens, "MAX_RUN", max_run)      # 5: long runs cut in every line
    rng = random.Random(max_run)
    alphabet = "aZé9'.,!?-/[]()\"東😀 \t" + "x" * 8
    for _ in range(400):
        lines = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))).strip() or "x"
                 for _ in range(rng.randint(1, 6))]
        parts = [cl100k_tokens(line + "\n") for line in lines[:-1]] + [cl100k_tokens(lines[-1])]
        assert cl100k_tokens("\n".join(lines)) == sum(parts), lines


def test_each_sentences_fact_kinds_are_worked_out_once():
    kit.extractive._kinds.cache_clear()
    text = prompt("", shopping_chat(40))
    first = extractive_summariser(text)
    misses = kit.extractive._kinds.cache_info().misses
    distinct = {s for _, content in shopping_chat(40) for s in split_sentences(content)}
    assert 0 < misses <= len(distinct)
    assert extractive_summariser(text) == first
    assert kit.extractive._kinds.cache_info().misses == misses     # all from the cache


def test_the_benchmark_cache_is_seen_through_so_lines_are_added_not_rejoined():
    from kit.extractive import _join_rule
    from kit.memory_eval import CachedMeasure
    from kit.tokens import CallCounter, count_words
    assert _join_rule(CachedMeasure()) == "lines"                 # cl100k under the cache
    assert _join_rule(CallCounter(CachedMeasure(count_words))) == "words"
    assert _join_rule(lambda text: len(text.split())) is None     # unknown: measure joins
