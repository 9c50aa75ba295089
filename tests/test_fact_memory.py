"""The fact memory's write path (kit.longterm.facts), its extractor, store and context."""
import json
import sqlite3

import pytest

from kit.llm import CountingLLM, FailingLLM
from kit.longterm.fact_memory import AppendOnlyFacts, FactMemory, OverwriteFacts, query_mode
from kit.longterm.fact_rules import extract_by_rules, extract_with_model, extractor_stub
from kit.longterm.fact_store import FactStore
from kit.longterm.facts import (Candidate, Decision, Fact, FactTable, InvalidDecision,
                                check_decision, decide_by_rules, decider_stub)
from kit.store import StoreError
from kit.tokens import count_words

MAYA = ("Maya", "Leo")


def cand(attribute, value, negated=False, many=False, n=1, when="2023-01-09"):
    return Candidate("Maya", attribute, value, negated, many, (n,), when)


def test_rules_extract_values_denials_and_the_subject():
    found = extract_by_rules("I've gone off matcha; kombucha is my favourite drink now.", "Maya",
                             source=(7,), when="2023-03-06", speakers=MAYA)
    assert [(c.attribute, c.value, c.negated) for c in found] == [
        ("favourite drink", "matcha", True), ("favourite drink", "kombucha", False)]
    assert found[0].source == (7,) and found[0].when == "2023-03-06"
    moved = extract_by_rules("Hi Leo! I've left Lisbon and moved to Tallinn.", "Maya", speakers=MAYA)
    assert [(c.attribute, c.value) for c in moved] == [("home city", "Tallinn")]
    order = extract_by_rules("I cancelled order #4411, it was taking forever.", "Maya")
    assert [(c.attribute, c.value, c.negated, c.many) for c in order] == [
        ("open order", "#4411", True, True)]
    assert extract_by_rules("Work has been busy but fine. The traffic was awful.", "Maya") == []
    with pytest.raises(TypeError, match="text must be a str"):
        extract_by_rules(None)


def test_the_rule_decisions_add_update_retract_and_ignore_a_rephrasing():
    lisbon = Fact(1, "Maya", "home city", "Lisbon", "2023-01-09")
    sesame = Fact(2, "Maya", "allergy", "sesame", "2023-01-09")
    assert decide_by_rules(cand("home city", "Tallinn"), [sesame, lisbon]) == Decision("update", 1, "rules")
    assert decide_by_rules(cand("home city", "lisbon"), [lisbon]).op == "none"        # rephrased
    assert decide_by_rules(cand("allergy", "kiwis", many=True), [sesame]) == Decision("add", None, "rules")
    assert decide_by_rules(cand("allergy", "sesame", True, True), [sesame]) == Decision("retract", 2, "rules")
    assert decide_by_rules(cand("allergy", "kiwis", True, True), [sesame]).op == "none"


def test_update_closes_the_old_interval_keeps_provenance_and_answers_as_of():
    table = FactTable()
    table.write(cand("home city", "Lisbon", n=3, when="2023-01-09"))
    table.write(cand("home city", "Lisbon", n=5, when="2023-01-20"))          # said again
    table.write(cand("home city", "Tallinn", n=9, when="2023-03-03"))
    old, new = table.history("Maya", "home city")
    assert (old.valid_to, old.closed_by, old.status, old.superseded_by) == ("2023-03-03", (9,),
                                                                            "superseded", 2)
    assert (new.valid_from, new.valid_to, new.source) == ("2023-03-03", None, (9,))
    assert old.source == (3,) and len(table.facts) == 2                       # no duplicate
    assert [f.value for f in table.current()] == ["Tallinn"]
    assert [f.value for f in table.as_of("2023-02-01")] == ["Lisbon"]
    assert table.as_of("2023-01-01") == []
    assert table.decisions == {"add": 1, "update": 1, "retract": 0, "none": 1}


def test_a_retraction_keeps_the_history():
    table = FactTable()
    table.write(cand("open order", "#4411", many=True, n=2, when="2023-03-04"))
    table.write(cand("open order", "#4411", True, True, n=4, when="2023-03-05"))
    (fact,) = table.history("Maya", "open order")
    assert (fact.status, fact.valid_to, fact.closed_by) == ("retracted", "2023-03-05", (4,))
    assert table.current() == [] and table.as_of("2023-03-04") == [fact]


@pytest.mark.parametrize("reply, why", [
    ('{"op": "update", "target": 9}', "not a current fact"),
    ('{"op": "retract", "target": 2}', "not one of Maya's home city"),
    ('{"op": "delete", "target": 1}', "unknown op"),
    ('{"op": "add", "target": 1}', "takes no target"),
])
def test_a_malformed_model_decision_changes_nothing_and_is_counted(reply, why):
    table = FactTable(lambda prompt: reply)
    table.decider = None
    table.write(cand("home city", "Lisbon"))
    table.write(cand("allergy", "sesame", many=True))
    before = dict(table.facts)
    table.decider = CountingLLM(lambda prompt: reply)
    assert table.write(cand("home city", "Tallinn", n=2)) is None
    assert table.facts == before and table.rejected == 1 and why in table.log[-1][2]
    assert table.decider.calls == 1 and table.fallbacks == 0


def test_a_failing_or_unreadable_decider_falls_back_on_the_rules():
    for model in (FailingLLM(), lambda prompt: "UPDATE fact one please"):
        table = FactTable(model)
        table.write(cand("home city", "Lisbon"))
        assert table.write(cand("home city", "Tallinn", n=2)).op == "update"
        assert table.fallbacks == 2 and table.model_calls == 2 and table.rejected == 0


def test_the_stub_models_agree_with_the_rules():
    text = "I don't drink kombucha anymore, it's chai for me now."
    by_model, used = extract_with_model(extractor_stub, text, "Maya")
    assert used and by_model == extract_by_rules(text, "Maya")
    rules, model = FactTable(), FactTable(decider_stub)
    for c in [cand("favourite drink", "kombucha"), *by_model]:
        assert rules.write(c) == Decision(model.write(c).op, model.log[-1][2].target, "rules")
    assert rules.facts == model.facts


def test_check_decision_refuses_an_add_without_a_value():
    with pytest.raises(InvalidDecision, match="needs a stated value"):
        check_decision(Decision("add"), cand("home city", " "), {})


def test_the_facts_are_written_beside_the_transcript_and_loaded_again(tmp_path):
    path = tmp_path / "facts.db"
    with FactStore(path) as store:
        memory = FactMemory(200, count_words, store=store, session_id="maya", speakers=MAYA)
        memory.add("user", "I just moved to Lisbon!", speaker="Maya", when="9 January, 2023")
        memory.add("user", "We moved again, we live in Tallinn now.", speaker="Maya",
                   when="3 March, 2023")
        memory.add("assistant", "Nice, enjoy it!", speaker="Leo", when="3 March, 2023")
    with FactStore(path) as store:
        again = FactMemory(200, count_words, store=store, session_id="maya", keep_recent=2)
        assert again.table.facts == memory.table.facts and again.added == 3
        assert [m.number for m in store.turns("maya")] == [1, 2, 3]      # the transcript too
        assert [m.content for m in again.turns] == ["Maya: We moved again, we live in Tallinn "
                                                    "now.", "Leo: Nice, enjoy it!"]
        again.add("user", "I'm allergic to sesame.", speaker="Maya", when="4 March, 2023")
        assert again.table.current()[-1].source == (4,)          # numbering goes on
        assert store.load_facts("other") == []
        store.delete("maya")
        assert store.load_facts("maya") == []


def test_a_store_that_fails_leaves_the_table_unchanged(tmp_path):
    with FactStore(tmp_path / "f.db") as store:
        memory = FactMemory(200, count_words, store=store, session_id="s")
        memory.add("user", "I just moved to Lisbon!", speaker="Maya", when="9 January, 2023")
        before = dict(memory.table.facts)
        store.close()
        with pytest.raises(ValueError, match="closed"):
            memory.add("user", "We moved again, we live in Tallinn now.", speaker="Maya")
        assert memory.table.facts == before


def test_a_damaged_fact_row_is_refused_naming_it(tmp_path):
    path = tmp_path / "f.db"
    with FactStore(path) as store:
        store.save_facts("s", [Fact(1, "Maya", "allergy", "sesame", "2023-01-09", source=(1,))])
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE facts SET source = 'oops'")
    raw.close()
    with FactStore(path) as store:
        with pytest.raises(StoreError, match="stored fact 1 is damaged"):
            store.load_facts("s")


TURNS = [("I just moved to Lisbon!", "9 January, 2023"),
         ("I'm allergic to sesame, so I have to be careful.", "9 January, 2023"),
         ("We moved again, we live in Tallinn now.", "3 March, 2023"),
         ("And now I'm allergic to kiwis as well!", "3 March, 2023")]


def fed(cls):
    memory = cls(60, count_words, keep_recent=1, speakers=MAYA)
    for text, when in TURNS:
        memory.add("user", text, speaker="Maya", when=when)
    return memory


def test_the_context_counts_against_the_budget_and_reports_its_parts():
    memory = fed(FactMemory)
    now = memory.context("Where does Maya live now?")
    assert "Tallinn" in now and "Lisbon" not in now and "sesame" in now
    then = memory.context("Where did Maya live on 1 February, 2023?")
    assert "Lisbon" in then and "Tallinn" not in then.split("\n\n")[0]
    assert "superseded" in memory.context("Which cities has Maya lived in, in order?")
    allocation = memory.allocation()
    assert [p.name for p in allocation.parts] == ["facts", "recent"]
    assert memory.context_size() == count_words(memory.context()) <= 60
    tight = FactMemory(20, count_words, keep_recent=1, speakers=MAYA)
    for text, when in TURNS:
        tight.add("user", text, speaker="Maya", when=when)
    assert tight.allocation().part("facts").cut > 0 and tight.context_size() <= 20


def test_what_the_baselines_get_wrong():
    append, overwrite = fed(AppendOnlyFacts), fed(OverwriteFacts)
    facts = append.context().split("\n\n")[0]
    assert "Lisbon" in facts and "Tallinn" in facts              # stale beside the new
    kept = overwrite.context().split("\n\n")[0]
    assert "Tallinn" in kept and "sesame" not in kept             # the first allergy lost
    assert query_mode("on 8 May, 2023?") == ("as_of", "2023-05-08")
    assert query_mode("in order") == ("history", "") and query_mode(None) == ("current", "")


def test_bad_arguments_are_refused_naming_them():
    with pytest.raises(ValueError, match="k must be >= 1"):
        FactTable(k=0)
    with pytest.raises(TypeError, match="decider must be callable"):
        FactTable("model")
    with pytest.raises(ValueError, match="session_id must be a non-empty str"):
        FactMemory(100, store=None, session_id=" ")
    with pytest.raises(TypeError, match="store must be a kit.longterm.fact_store.FactStore"):
        FactMemory(100, store="chat.db")
    memory = FactMemory(100, count_words)
    with pytest.raises(TypeError, match="content must be a str"):
        memory.add("user", None)
    with pytest.raises(ValueError):
        memory.add("robot", "hi")
    assert memory.added == 0 and memory.turns == []


def test_a_candidate_of_another_type_is_refused_and_nothing_changes():
    table = FactTable()
    with pytest.raises(TypeError, match="candidate must be a kit.longterm.facts.Candidate"):
        table.write(("Maya", "home city", "Lisbon"))
    assert table.facts == {} and table.log == []
