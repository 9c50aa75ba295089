"""The fact check's facts are worked out once per line: the same facts as reading the
whole text at once, and a running summary's lines are not read again at each compaction."""
import random

import pytest

import kit.memory.facts as facts
from kit.memory.facts import facts_in, missing_facts, repair


def whole_text_facts(text):
    """facts_in as first written: every pattern run over the whole text at once."""
    marks = {m.end() for m in facts._LIST_MARK.finditer(text)}
    found = {facts._number(m.group()) for m in facts._NUMBER.finditer(text)
             if m.end() + 1 not in marks}
    found |= {m.group() for m in facts._ID.finditer(text)}
    found |= set(facts._names(text))
    found.discard("")
    return found


def whole_text_missing(sources, summary):
    needed = set().union(*map(whole_text_facts, sources))
    kept = whole_text_facts(summary) | {m.group() for m in facts._WORD.finditer(summary)}
    return sorted(needed - kept), len(needed)


PIECES = ["Order", "88412", "1,299.50", "1299.5", "ORD-1234", "#88", "x-12", "Priya", "José",
          "It", "The", "Thanks", "Zenbook", "Title", "Case", "Heading", "Here", "i", "the",
          "order", "arrived", "1.", "2)", "[user]", "user:", "Noted:", ".", ",", ";", "!", "?",
          "'", '"', "(", "*", "-", "  ", "\t", "\n", "\n\n", "\r\n", "\u2028"]


def random_text(rng):
    return "".join(rng.choice(PIECES) + rng.choice([" ", "", "\n", ". "])
                   for _ in range(rng.randint(0, 30)))


def test_facts_by_line_equal_the_whole_text_read_at_once():
    rng = random.Random(3)
    for _ in range(3000):
        text = random_text(rng)
        assert facts_in(text) == whole_text_facts(text), text
        sources = [random_text(rng) for _ in range(rng.randint(0, 4))]
        summary = random_text(rng)
        missing = missing_facts(sources, summary)
        assert missing == whole_text_missing(sources, summary), (sources, summary)
        assert repair(summary, sources, missing[0]).startswith(summary.rstrip())


def test_openers_after_a_line_break_and_list_marks_read_as_before():
    text = "It was ORD-1234.\nThe Zenbook by Priya\n2. Rs 60000\n[user] Meera paid 1,299.50"
    # "The" and "Meera" open a line (after a tag), "2." is a list mark: none is a fact
    assert facts_in(text) == whole_text_facts(text) == {
        "ORD-1234", "ORD", "1234", "Zenbook", "Priya", "60000", "1299.5"}
    assert missing_facts([text], "Zenbook 1299.50 Priya meera") == (
        ["1234", "60000", "ORD", "ORD-1234"], 7)


def test_a_running_summarys_lines_are_read_once():
    facts._line_facts.cache_clear()
    lines = [f"[user] Order ORD-{n} for Priya costs Rs {100 + n}." for n in range(30)]
    for end in range(1, 31):              # a summary growing by a line per compaction
        summary = "\n".join(lines[:end])
        missing_facts([summary, lines[end - 1]], summary)
    assert facts._line_facts.cache_info().misses == 30      # each line once
    assert facts_in("\n".join(lines)) == set().union(*map(whole_text_facts, lines))


def test_a_text_that_is_not_a_str_is_named():
    with pytest.raises(TypeError, match="text must be a str, got NoneType"):
        facts_in(None)
    with pytest.raises(TypeError, match="text must be a str, got int"):
        missing_facts(["ok"], 7)
    with pytest.raises(TypeError, match="text must be a str, got list"):
        missing_facts([["ok"]], "ok")
