"""The LoCoMo loader: the conversation types, malformed files, where the data lives, and
two real conversations (26 and 30) when the data is there."""
import copy
import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from kit.locomo import (LOCOMO_URL, LocomoFormatError, LongConversation, LongTurn, Question,
                        conversation_files, data_dir, how_to_get, load_locomo, load_locomo_all,
                        load_locomo_dir, same_conversation)

ROOT = Path(__file__).resolve().parents[1]


def locomo_26_and_30():
    """Conversations 26 and 30 from kit.locomo.data_dir(), or skip saying how to get them."""
    try:
        return load_locomo_dir(only=["26", "30"])
    except FileNotFoundError as exc:
        pytest.skip(str(exc))

GOOD = {
    "speaker_a": "Ann", "speaker_b": "Bob",
    "session_1_date_time": "1:00 pm on 1 May, 2023",
    "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat."},
                  {"speaker": "Bob", "dia_id": "D1:2", "text": "Look at this!",
                   "img_url": ["http://example.invalid/x.jpg"],
                   "blip_caption": "a photo of a red kite"}],
    "session_2_date_time": "9:30 am on 20 May, 2023",
    "session_2": [{"speaker": "Bob", "dia_id": "D2:1", "text": "How is the cat?"},
                  {"speaker": "Ann", "dia_id": "D2:2", "text": "She is called Pixel."}],
    "session_3_date_time": "2:00 pm on 1 June, 2023",
    "qa": [{"question": "What is Ann's cat called?", "answer": "Pixel",
            "evidence": ["D1:1", "D2:2"], "category": 1},
           {"question": "When did Ann adopt a cat?", "answer": 2023, "evidence": ["D1:1"],
            "category": 2},
           {"question": "What did Bob's kite look like?", "evidence": ["D1:2"], "category": 5,
            "adversarial_answer": "red"}],
}


def write(tmp_path, data, name="7.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def broken(change):
    data = copy.deepcopy(GOOD)
    change(data)
    return data


def test_reads_a_small_file(tmp_path):
    conv = load_locomo(write(tmp_path, GOOD))
    assert conv.name == "7" and conv.speakers == ("Ann", "Bob")
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert conv.turn("D2:2") == LongTurn("D2:2", "Ann", "She is called Pixel.", 2,
                                         "9:30 am on 20 May, 2023")
    assert conv.session_dates == {1: "1:00 pm on 1 May, 2023", 2: "9:30 am on 20 May, 2023",
                                  3: "2:00 pm on 1 June, 2023"}      # a date without its session
    assert conv.sessions == (1, 2)
    assert conv.questions[0] == Question("What is Ann's cat called?", "Pixel", ("D1:1", "D2:2"), 1)
    assert conv.questions[1].answer == "2023"                          # numbers become strings
    q5 = conv.questions[2]
    assert (q5.answer, q5.adversarial_answer, q5.adversarial) == (None, "red", True)
    assert conv.notes == () and conv.missing_evidence == {}


def test_photo_captions_are_appended_unless_turned_off(tmp_path):
    path = write(tmp_path, GOOD)
    assert load_locomo(path).turn("D1:2").text == "Look at this! [shares a photo: a photo of a red kite]"
    assert load_locomo(path, captions=False).turn("D1:2").text == "Look at this!"


def test_roles_and_positions(tmp_path):
    conv = load_locomo(write(tmp_path, GOOD))
    assert conv.role_of("Ann") == "user" and conv.role_of("Bob") == "assistant"
    assert conv.position("D1:1") == 1 and conv.position("D2:2") == 4
    with pytest.raises(ValueError, match="'Cy' is not a speaker"):
        conv.role_of("Cy")
    with pytest.raises(KeyError, match="D9:9"):
        conv.turn("D9:9")


def test_the_nested_release_layout_and_a_list_of_conversations(tmp_path):
    nested = {"sample_id": "conv-7", "qa": GOOD["qa"],
              "conversation": {k: v for k, v in GOOD.items() if k != "qa"}}
    assert load_locomo(write(tmp_path, nested)).name == "conv-7"
    path = write(tmp_path, [nested, GOOD], "all.json")
    assert [c.name for c in load_locomo_all(path)] == ["conv-7", "all[1]"]
    with pytest.raises(LocomoFormatError, match="all.json: top level: holds 2 conversations"):
        load_locomo(path)


def test_evidence_slips_are_repaired_or_recorded_not_fatal(tmp_path):
    def slip(d):
        d["session_2"][1]["dia_id"] = "D2:02"             # a leading zero
        d["qa"][0]["evidence"] = ["D1:1; D2:2"]          # two ids in one string (as in 26.json)
        d["qa"][1]["evidence"] = ["D01:1", "D4:1"]        # D4:1 names no turn
    conv = load_locomo(write(tmp_path, broken(slip)))
    assert conv.turn("D2:2").text == "She is called Pixel."
    assert conv.questions[0].evidence == ("D1:1", "D2:2")
    assert conv.questions[1].evidence == ("D1:1",)
    assert conv.questions[1].missing_evidence == ("D4:1",)
    assert conv.missing_evidence == {1: ("D4:1",)}
    assert conv.notes == ("session_2[1].dia_id: 'D2:02' read as D2:2",
                          "qa[0].evidence[0]: 'D1:1; D2:2' read as D1:1, D2:2",
                          "qa[1].evidence[0]: 'D01:1' read as D1:1",
                          "qa[1].evidence: D4:1 names no turn (kept in missing_evidence)")
    assert conv.repairs == {"several_ids": 1, "leading_zero": 2, "no_turn": 1}


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("speaker_a"), "7.json: speaker_a: missing"),
    (lambda d: d.__setitem__("session_2", {"D2:1": "hi"}),
     "7.json: session_2: expected a list of turns, got dict"),
    (lambda d: d["session_1"][0].pop("text"), r"7.json: session_1\[0\].text: missing"),
    (lambda d: d["session_2"][1].__setitem__("speaker", "Cy"),
     r"7.json: session_2\[1\].speaker: 'Cy' is neither speaker_a nor speaker_b"),
    (lambda d: d["session_2"][1].__setitem__("dia_id", "2:2"),
     r"7.json: session_2\[1\].dia_id: expected an id like 'D2:2', got '2:2'"),
    (lambda d: d["session_2"][1].__setitem__("dia_id", "D1:1"),
     "7.json: session_2: dia_id 'D1:1' already used in session_1"),
    (lambda d: d.pop("session_2_date_time"), "7.json: session_2_date_time: missing"),
    (lambda d: d["qa"][0].__setitem__("evidence", ["D1"]),
     r"7.json: qa\[0\].evidence\[0\]: expected a dia id like 'D1:3', got 'D1'"),
    (lambda d: d["qa"][0].__setitem__("evidence", ["D:1"]),
     r"7.json: qa\[0\].evidence\[0\]: expected a dia id like 'D1:3', got 'D:1'"),
    (lambda d: d["qa"][0].__setitem__("evidence", ["D1:1 or so"]),
     r"7.json: qa\[0\].evidence\[0\]: expected a dia id like 'D1:3', got 'D1:1 or so'"),
    (lambda d: d["qa"][0].__setitem__("evidence", "D1:1"),
     r"7.json: qa\[0\].evidence: expected a list of dia ids like 'D1:3', got 'D1:1'"),
    (lambda d: d["qa"][1].__setitem__("category", "2"),
     r"7.json: qa\[1\].category: expected an int 1-5, got '2'"),
    (lambda d: d["qa"][1].__setitem__("category", 6), r"qa\[1\].category: expected an int 1-5, got 6"),
    (lambda d: d["qa"][0].pop("answer"), r"qa\[0\].answer: missing \(category 1 needs an answer\)"),
    (lambda d: d.pop("qa"), "7.json: qa: missing"),
])
def test_malformed_files_name_the_file_and_the_field(tmp_path, change, message):
    with pytest.raises(LocomoFormatError, match=message):
        load_locomo(write(tmp_path, broken(change)))


def test_not_json_and_not_an_object(tmp_path):
    with pytest.raises(LocomoFormatError, match="7.json: not JSON"):
        load_locomo(write(tmp_path, "{'speaker_a': 'Ann',"))
    with pytest.raises(LocomoFormatError, match="7.json: top level: expected a JSON object, got str"):
        load_locomo(write(tmp_path, '"hello"'))
    with pytest.raises(FileNotFoundError):
        load_locomo(tmp_path / "absent.json")


def test_a_folder_is_read_in_file_name_order(tmp_path):
    write(tmp_path, GOOD, "b.json")
    write(tmp_path, broken(lambda d: d["qa"].pop()), "a.json")
    (tmp_path / "notes.txt").write_text("not a conversation")
    assert [(c.name, len(c.questions)) for c in load_locomo_dir(tmp_path)] == [("a", 2), ("b", 3)]
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no .json files"):
        load_locomo_dir(tmp_path / "empty")
    with pytest.raises(FileNotFoundError, match="no LoCoMo folder"):
        load_locomo_dir(tmp_path / "missing")


def test_a_conversation_checks_its_own_invariants():
    turns = (LongTurn("D1:1", "Ann", "hi", 1, "d"), LongTurn("D1:2", "Bob", "yo", 1, "d"))
    with pytest.raises(ValueError, match="turn D1:2: speaker 'Bob' is not one of"):
        LongConversation("x", ("Ann", "Cy"), turns, ())
    with pytest.raises(ValueError, match="dia id 'D1:1' names more than one turn"):
        LongConversation("x", ("Ann", "Bob"), turns + (turns[0],), ())
    with pytest.raises(ValueError, match=r"evidence \['D1:9'\] names no turn"):
        LongConversation("x", ("Ann", "Bob"), turns, (Question("q", "a", ("D1:9",), 4),))
    with pytest.raises(ValueError, match="two different names"):
        LongConversation("x", ("Ann", "Ann"), (), ())


def test_conversations_26_and_30_have_the_documented_counts():
    convs = locomo_26_and_30()            # 26.json and 30.json, or the release's locomo10.json
    assert [(c.name.removeprefix("conv-"), c.speakers, len(c.sessions), len(c.turns), len(c.questions)) for c in convs] == [
        ("26", ("Caroline", "Melanie"), 19, 419, 199), ("30", ("Jon", "Gina"), 19, 369, 105)]
    c26, c30 = convs
    assert Counter(q.category for q in c26.questions) == {1: 32, 2: 37, 3: 13, 4: 70, 5: 47}
    assert Counter(q.category for q in c30.questions) == {1: 11, 2: 26, 4: 44, 5: 24}
    assert len(c26.session_dates) == 35 and len(c30.session_dates) == 19   # 26: dates past its sessions
    assert c26.turn("D1:3").text == "I went to a LGBTQ support group yesterday and it was so powerful."
    assert c26.turn("D1:3").date == "1:56 pm on 8 May, 2023"
    # the one annotation slip in the two files: two ids in one evidence string
    assert c26.notes == ("qa[37].evidence[0]: 'D8:6; D9:17' read as D8:6, D9:17",)
    assert c26.questions[37].evidence == ("D8:6", "D9:17") and c30.notes == ()
    assert c26.repairs == {"several_ids": 1} and c30.repairs == {}
    assert all(q.answer is not None for c in convs for q in c.questions if q.category != 5)
    assert all(q.adversarial_answer for c in convs for q in c.questions if q.category == 5)


# -- the slips of the public release (locomo10.json), one fixture each --------------------
SLIPS = ROOT / "tests" / "data" / "locomo_slips"
SLIP_CASES = [               # fixture, evidence, missing_evidence, repairs, notes
    # 26.json qa[37]: "D8:6; D9:17"
    ("two_ids_in_one_string", ("D1:1", "D2:2"), (), {"several_ids": 1},
     ("qa[0].evidence[0]: 'D1:1; D2:2' read as D1:1, D2:2",)),
    # conv-43: "D:11:26"
    ("extra_colon", ("D2:2",), (), {"extra_colon": 1},
     ("qa[0].evidence[0]: 'D:2:2' read as D2:2",)),
    # conv-50: "D30:05"
    ("leading_zero", ("D2:2",), (), {"leading_zero": 1},
     ("qa[0].evidence[0]: 'D2:02' read as D2:2",)),
    # conv-49: "D9:1 D4:4 D4:6"
    ("space_separated", ("D2:2", "D1:1", "D2:1"), (), {"several_ids": 1},
     ("qa[0].evidence[0]: 'D2:2 D1:1 D2:1' read as D2:2, D1:1, D2:1",)),
    # conv-42: a bare "D" next to real ids
    ("bare_d", ("D1:1", "D2:2"), (), {"bare_d": 1},
     ("qa[0].evidence[1]: 'D' dropped (a bare D names no turn)",)),
    # conv-42: "D10:19" where session 10 is shorter
    ("names_no_turn", ("D2:2",), ("D2:9",), {"no_turn": 1},
     ("qa[0].evidence: D2:9 names no turn (kept in missing_evidence)",)),
    # conv-50 qa[5]: "D4:5" twice
    ("repeated_id", ("D2:2", "D1:1"), (), {"repeated": 1},
     ("qa[0].evidence: D2:2 repeated (kept once)",)),
]


@pytest.mark.parametrize("fixture, evidence, missing, repairs, notes", SLIP_CASES,
                         ids=[case[0] for case in SLIP_CASES])
def test_each_slip_of_the_release_is_repaired_and_counted(fixture, evidence, missing, repairs,
                                                          notes):
    conv = load_locomo(SLIPS / f"{fixture}.json")
    assert (conv.questions[0].evidence, conv.questions[0].missing_evidence) == (evidence, missing)
    assert conv.repairs == repairs
    assert conv.notes == notes


def test_the_released_list_form_counts_repairs_per_conversation():
    first, second = load_locomo_all(SLIPS / "release_list.json")
    assert (first.name, first.questions[0].evidence, first.repairs) == ("conv-42", ("D1:1",),
                                                                        {"bare_d": 1})
    assert (second.name, second.questions[0].evidence, second.repairs) == (
        "conv-43", ("D2:2",), {"extra_colon": 1})


def test_every_fixture_of_the_slips_folder_loads():
    convs = load_locomo_dir(SLIPS)
    assert [c.name for c in convs] == ["bare_d", "extra_colon", "leading_zero", "names_no_turn",
                                       "conv-42", "conv-43", "repeated_id", "space_separated",
                                       "two_ids_in_one_string"]
    total = Counter()
    for conv in convs:
        total.update(conv.repairs)
    assert total == {"several_ids": 2, "extra_colon": 2, "leading_zero": 1, "bare_d": 2,
                     "no_turn": 1, "repeated": 1}


def test_one_id_with_a_stray_separator_is_stripped_and_counted(tmp_path):
    conv = load_locomo(write(tmp_path, broken(lambda d: d["qa"][1].__setitem__(
        "evidence", [" D1:1;"]))))
    assert conv.questions[1].evidence == ("D1:1",) and conv.repairs == {"stray_separator": 1}
    assert conv.notes == ("qa[1].evidence[0]: ' D1:1;' read as D1:1",)


def test_session_keys_with_leading_zeros_are_read_and_one_session_twice_is_refused(tmp_path):
    def padded(d):
        d["session_02"] = d.pop("session_2")
        d["session_02_date_time"] = d.pop("session_2_date_time")
    conv = load_locomo(write(tmp_path, broken(padded)))
    assert conv.turn("D2:2").date == "9:30 am on 20 May, 2023"
    assert conv.repairs == {"leading_zero": 2}
    assert conv.notes == ("session_02_date_time: read as session 2",   # dates are read first
                          "session_02: read as session 2")
    twice = broken(lambda d: d.__setitem__("session_02", d["session_2"]))
    with pytest.raises(LocomoFormatError, match=r"^7.json: session_02: names session 2 again, "
                                                r"after session_2$"):
        load_locomo(write(tmp_path, twice))


HUGE = "7" * 5000


@pytest.mark.parametrize("change, message", [
    (lambda d: d["qa"][1].__setitem__("answer", "<HUGE>"),
     r"^7.json: qa\[1\].answer: a number of 5000 characters \(at most 100\)$"),
    (lambda d: d.__setitem__("event_summary", {"events_session_1": [1, "<HUGE>"]}),
     r"^7.json: event_summary.events_session_1\[1\]: a number of 5000 characters"),
    (lambda d: d["qa"][0].__setitem__("answer", "<HUGE>.5"),
     r"^7.json: qa\[0\].answer: a number of 5002 characters"),
    (lambda d: d["qa"][0].__setitem__("evidence", ["D" + HUGE + ":1"]),
     r"^7.json: qa\[0\].evidence\[0\]: expected a dia id like 'D1:3', got 'D7777"),
    (lambda d: d.__setitem__(f"session_{HUGE}", []),
     r"^7.json: session_7777.*: a session number of 5000 digits \(at most 9\)$"),
], ids=["answer", "unread_field", "float", "evidence_id", "session_key"])
def test_a_huge_number_names_the_file_and_the_field(tmp_path, change, message):
    text = json.dumps(broken(change)).replace('"<HUGE>.5"', HUGE + ".5")
    with pytest.raises(LocomoFormatError, match=message):
        load_locomo(write(tmp_path, text.replace('"<HUGE>"', HUGE)))


def test_a_huge_number_in_the_list_form_names_the_conversation(tmp_path):
    nested = {"sample_id": "conv-7", "qa": GOOD["qa"],
              "conversation": {k: v for k, v in GOOD.items() if k != "qa"}}
    text = json.dumps([nested, broken(lambda d: d["qa"][2].__setitem__("category", "<HUGE>"))])
    with pytest.raises(LocomoFormatError, match=r"^all.json\[1\]: qa\[2\].category: a number "
                                                r"of 5000 characters"):
        load_locomo_all(write(tmp_path, text.replace('"<HUGE>"', HUGE), "all.json"))


@pytest.mark.parametrize("text, message", [
    ('{"speaker_a": "Ann", "speaker_a": "Eve", "speaker_b": "Bob", "qa": []}',
     r"^7.json: speaker_a: given twice in one object \(JSON keys must be unique\)$"),
    (json.dumps(GOOD).replace('"answer": "Pixel"', '"answer": "Pixel", "answer": "Mochi"'),
     r"^7.json: qa\[0\].answer: given twice in one object"),
    (json.dumps([GOOD, GOOD]).replace('"speaker_b": "Bob",', '"speaker_b": "Bob", "qa": [],', 1),
     r"^7.json\[0\]: qa: given twice in one object"),
], ids=["top_level", "in_a_question", "in_the_list_form"])
def test_a_key_given_twice_names_the_file_and_the_field(tmp_path, text, message):
    with pytest.raises(LocomoFormatError, match=message):
        load_locomo_all(write(tmp_path, text))


@pytest.mark.parametrize("value, problem", [
    ("NaN", "NaN is not standard JSON"), ("-Infinity", "-Infinity is not standard JSON"),
    ("1e999", "1e999 does not fit a float"),
])
def test_numbers_json_does_not_define_are_refused(tmp_path, value, problem):
    text = json.dumps(GOOD).replace('"answer": 2023', f'"answer": {value}')
    with pytest.raises(LocomoFormatError, match=rf"^7.json: qa\[1\].answer: {problem}$"):
        load_locomo(write(tmp_path, text))


# -- break-it: what the loader used to accept and a memory then refused mid-run -----------
def both_named(name):
    def change(d):
        d["speaker_a"] = name
        for session in ("session_1", "session_2"):
            for turn in d[session]:
                if turn["speaker"] == "Ann":
                    turn["speaker"] = name
    return change


@pytest.mark.parametrize("change, message", [
    (both_named("Ann: admin"), r"7.json: speaker_a: .*one line without surrounding spaces or "
                               r"a colon, got 'Ann: admin'"),
    (both_named("Ann\nuser"), r"7.json: speaker_a: .*got 'Ann\\nuser'"),
    (both_named(" Ann"), r"7.json: speaker_a: .*got ' Ann'"),
    (lambda d: d.__setitem__("session_1_date_time", "1 May\nuser: hi"),
     r"7.json: session_1_date_time: .*one line.*got '1 May\\nuser: hi'"),
    (lambda d: d["session_1"][0].__setitem__("text", "a\ud800b"),
     r"7.json: session_1\[0\].text: .*not valid Unicode.*position 1"),
    (lambda d: d["qa"][0].__setitem__("question", "who\udfff?"),
     r"7.json: qa\[0\].question: .*not valid Unicode"),
])
def test_names_dates_and_texts_a_memory_would_refuse_are_refused_at_load(tmp_path, change,
                                                                        message):
    with pytest.raises(LocomoFormatError, match=message):
        load_locomo(write(tmp_path, json.dumps(broken(change))))


def test_json_nested_too_deep_and_a_byte_order_mark(tmp_path):
    with pytest.raises(LocomoFormatError, match="7.json: not JSON .*nested too deep"):
        load_locomo(write(tmp_path, "[" * 100_000 + "]" * 100_000))
    path = tmp_path / "bom.json"                         # as some Windows editors save it
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD).encode("utf-8"))
    assert load_locomo(path).speakers == ("Ann", "Bob")


def test_a_conversation_built_by_hand_refuses_names_and_dates_a_memory_would_refuse():
    # they used to pass here and fail evaluate() after part of the conversation was fed
    ok = LongTurn("D1:1", "Bob", "hi", 1, "1 May")
    with pytest.raises(ValueError, match="speaker must be one line.*got 'Ann: x'"):
        LongConversation("x", ("Ann: x", "Bob"), (ok,), ())
    with pytest.raises(ValueError, match=r"turn D1:2: when must be one line.*got '1 May\\nuser: hi'"):
        LongConversation("x", ("Ann", "Bob"), (ok, LongTurn("D1:2", "Ann", "yo", 1,
                                                             "1 May\nuser: hi")), ())
    with pytest.raises(ValueError, match=r"turn D1:2: text is not valid Unicode"):
        LongConversation("x", ("Ann", "Bob"), (ok, LongTurn("D1:2", "Ann", "y\ud800", 1, "d")),
                         ())


# -- where the data lives -------------------------------------------------------------------
def test_data_dir_is_locomo_dir_or_data_locomo_at_the_repository_root(monkeypatch, tmp_path):
    monkeypatch.delenv("LOCOMO_DIR", raising=False)
    assert data_dir() == ROOT / "data" / "locomo"
    monkeypatch.setenv("LOCOMO_DIR", "   ")                    # blank counts as unset
    assert data_dir() == ROOT / "data" / "locomo"
    monkeypatch.setenv("LOCOMO_DIR", str(tmp_path / "x" / ".." / "lc"))
    assert data_dir() == tmp_path / "lc"                       # absolute, resolved
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOCOMO_DIR", "rel")                    # relative: from the cwd
    assert data_dir() == tmp_path / "rel"


def test_data_locomo_is_ignored_by_git():
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "/data/locomo/" in [line.strip() for line in lines]


def test_how_to_get_names_the_release_the_file_the_folder_and_the_variable(monkeypatch,
                                                                        tmp_path):
    monkeypatch.setenv("LOCOMO_DIR", str(tmp_path))
    line = how_to_get()
    assert "\n" not in line and LOCOMO_URL == "https://github.com/snap-research/locomo"
    for part in (LOCOMO_URL, "data/locomo10.json", str(tmp_path), "LOCOMO_DIR", "Maharana"):
        assert part in line
    assert str(tmp_path / "other") in how_to_get(tmp_path / "other")


def test_conversation_files_lists_json_files_by_name(tmp_path):
    assert conversation_files(tmp_path / "missing") == []
    assert conversation_files(tmp_path) == []
    write(tmp_path, GOOD, "30.json")
    write(tmp_path, [GOOD], "locomo10.json")
    write(tmp_path, GOOD, "26.json")
    (tmp_path / "README.md").write_text("about the files")
    (tmp_path / "dir.json").mkdir()
    assert [p.name for p in conversation_files(tmp_path)] == ["26.json", "30.json",
                                                              "locomo10.json"]


def release(tmp_path, ids=(26, 30, 41)):
    """A locomo10.json-like file: a list of nested conversations named conv-<id>."""
    items = [{"sample_id": f"conv-{i}", "qa": GOOD["qa"][:1 + k],
              "conversation": {k2: v for k2, v in GOOD.items() if k2 != "qa"}}
             for k, i in enumerate(ids)]
    return write(tmp_path, items, "locomo10.json")


def test_the_release_file_in_the_data_folder_is_read_by_default(monkeypatch, tmp_path):
    release(tmp_path)
    monkeypatch.setenv("LOCOMO_DIR", str(tmp_path))
    assert [c.name for c in load_locomo_dir()] == ["conv-26", "conv-30", "conv-41"]
    picked = load_locomo_dir(only=["30", "conv-26"])             # in the order asked
    assert [(c.name, len(c.questions)) for c in picked] == [("conv-30", 2), ("conv-26", 1)]


def test_only_matches_a_file_name_or_a_sample_id(tmp_path):
    write(tmp_path, GOOD, "26.json")
    assert [c.name for c in load_locomo_dir(tmp_path, only=["conv-26"])] == ["26"]
    assert same_conversation("conv-26", "26") and same_conversation("26", "26")
    assert not same_conversation("conv-26", "2") and not same_conversation("126", "26")


def test_only_refuses_a_missing_an_ambiguous_or_a_string_name(tmp_path):
    release(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"no LoCoMo conversation '7' in .*holds "
                                                r"conv-26, conv-30, conv-41\)$"):
        load_locomo_dir(tmp_path, only=["26", "7"])
    write(tmp_path, GOOD, "26.json")
    for only in (["26"], None):                        # counted twice if both were read
        with pytest.raises(ValueError) as info:
            load_locomo_dir(tmp_path, only=only)
    assert str(info.value) == (
        f"conversation '26' is in 2 places in {tmp_path}: 26.json (as 26), locomo10.json "
        f"(as conv-26); keep only one of them there, or it would be counted twice")
    for value in ("26", b"26", [b"26"], ["26", 30], {"26"}):
        with pytest.raises(TypeError, match=r"only must be a list or tuple of names \(str\), "
                                            r"got " + re.escape(repr(value))):
            load_locomo_dir(tmp_path, only=value)


@pytest.mark.parametrize("only, message", [
    (["26", "26"], "only names the conversation '26' twice"),
    (("30", "conv-30"), "only names the conversation 'conv-30' twice (as '30' and 'conv-30')"),
])
def test_only_refuses_a_name_given_twice(tmp_path, only, message):
    release(tmp_path)
    with pytest.raises(ValueError) as info:          # its scores would be counted twice
        load_locomo_dir(tmp_path, only=only)
    assert str(info.value) == message


def test_a_missing_name_in_a_folder_with_data_says_only_what_it_holds(tmp_path):
    write(tmp_path, GOOD, "26.json")
    with pytest.raises(FileNotFoundError) as info:
        load_locomo_dir(tmp_path, only=["30"])
    assert str(info.value) == f"no LoCoMo conversation '30' in {tmp_path} (it holds 26)"


def deny(monkeypatch, path, function):
    """Make ``function`` of module os raise PermissionError for ``path``, as it would for a
    path without read permission (chmod does not stop root, so it is simulated)."""
    real = getattr(os, function)

    def denied(target, *args, **kwargs):
        if Path(target) == path:
            raise PermissionError(13, "Permission denied", str(target))
        return real(target, *args, **kwargs)
    monkeypatch.setattr(os, function, denied)


def test_an_unreadable_folder_says_it_cannot_be_read(monkeypatch, tmp_path):
    write(tmp_path, GOOD, "26.json")
    deny(monkeypatch, tmp_path, "scandir")
    for call in (lambda: conversation_files(tmp_path), lambda: load_locomo_dir(tmp_path)):
        with pytest.raises(PermissionError) as info:
            call()
        assert str(info.value) == f"cannot read the LoCoMo folder {tmp_path}: Permission denied"


def test_an_unreadable_file_says_it_cannot_be_read(monkeypatch, tmp_path):
    path = write(tmp_path, GOOD, "26.json")
    monkeypatch.setattr("builtins.open", lambda target, *a, **k: (_ for _ in ()).throw(
        PermissionError(13, "Permission denied", str(target))))
    for call in (lambda: load_locomo(path), lambda: load_locomo_dir(tmp_path)):
        with pytest.raises(PermissionError) as info:
            call()
        assert str(info.value) == f"cannot read the LoCoMo file {path}: Permission denied"


def test_locomo_dir_naming_a_file_says_it_must_name_a_folder(monkeypatch, tmp_path):
    path = write(tmp_path, GOOD, "26.json")
    monkeypatch.setenv("LOCOMO_DIR", str(path))
    expected = (f"LOCOMO_DIR must name a folder, but it names the file {path}: set it to "
                f"the folder that holds the LoCoMo .json files (such as {tmp_path}).")
    assert how_to_get() == expected
    with pytest.raises(FileNotFoundError) as info:
        load_locomo_dir()
    assert str(info.value) == f"no LoCoMo folder at {path}. {expected}"
    monkeypatch.delenv("LOCOMO_DIR")
    assert how_to_get(path) == (f"{path} is a file, not a folder: name the folder that holds "
                                f"the LoCoMo .json files (such as {tmp_path}).")


def test_a_missing_data_folder_says_how_to_get_the_data(monkeypatch, tmp_path):
    monkeypatch.setenv("LOCOMO_DIR", str(tmp_path / "absent"))
    with pytest.raises(FileNotFoundError) as info:
        load_locomo_dir()
    assert str(info.value) == f"no LoCoMo folder at {tmp_path / 'absent'}. {how_to_get()}"
    (tmp_path / "absent").mkdir()
    with pytest.raises(FileNotFoundError, match="no .json files in .*set LOCOMO_DIR"):
        load_locomo_dir()


def test_nothing_a_learner_reads_points_outside_the_repository():
    """The data once lived next to the project; no code, test or lesson may say so."""
    outside = "../" + "shared"                           # split, so this file passes too
    files = [p for d in ("kit", "benchmarks", "tests") for p in (ROOT / d).rglob("*.py")]
    files += sorted((ROOT / "solutions").glob("*.ipynb"))
    assert files
    offenders = [str(p.relative_to(ROOT)) for p in files
                 if outside in p.read_text(encoding="utf-8")]
    assert not offenders, f"{outside} in {offenders}: use kit.locomo.data_dir()"


# -- break-it follow-up (issue 10): memory and time linear in the file, every text checked --
def test_finding_a_refused_value_deep_in_a_big_file_takes_memory_linear_in_the_file(tmp_path):
    import tracemalloc
    depth, zeros = 300, 50_000                 # 300 * 50,000 path entries if each is kept
    text = "[" * depth + "0," * zeros + "NaN" + "]" * depth
    path = write(tmp_path, text)
    tracemalloc.start()
    try:
        with pytest.raises(LocomoFormatError) as info:
            load_locomo_all(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(info.value) == ("7.json[0]: " + "[0]" * (depth - 2) + f"[{zeros}]: "
                               "NaN is not standard JSON")
    assert peak < 40 * len(text), f"{peak / 1e6:.0f} MB for a {len(text) / 1e6:.1f} MB file"


def tiny(name):
    return {"sample_id": name, "qa": [], "conversation": {
        "speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1 May, 2023",
        "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}}


def test_the_duplicate_check_of_a_folder_compares_each_conversation_once(monkeypatch, tmp_path):
    import kit.locomo as locomo
    n = 300
    write(tmp_path, [tiny(f"conv-{i}") for i in range(n)], "many.json")
    calls = Counter()
    short = locomo._short

    def counted(name):
        calls["short"] += 1
        return short(name)

    monkeypatch.setattr(locomo, "_short", counted)
    assert len(load_locomo_dir(tmp_path)) == n
    assert calls["short"] <= 2 * n                      # the pairwise check made 2 * n * n
    calls.clear()
    wanted = [f"{i}" for i in reversed(range(n))]
    assert [c.name for c in load_locomo_dir(tmp_path, only=wanted)] == [f"conv-{i}" for i in
                                                                       reversed(range(n))]
    assert calls["short"] <= 6 * n


@pytest.mark.parametrize("change, message", [
    (lambda d: d["session_1"][1].__setitem__("blip_caption", "a \ud800 kite"),
     r"^7.json: session_1\[1\].blip_caption: .*not valid Unicode.*position 2"),
    (lambda d: d["qa"][0].__setitem__("answer", "Pix\udc00el"),
     r"^7.json: qa\[0\].answer: .*not valid Unicode"),
    (lambda d: d["qa"][2].__setitem__("adversarial_answer", "\udfffred"),
     r"^7.json: qa\[2\].adversarial_answer: .*not valid Unicode"),
], ids=["caption", "answer", "adversarial_answer"])
def test_captions_and_answers_a_memory_would_refuse_name_the_file_and_field(tmp_path, change,
                                                                           message):
    with pytest.raises(LocomoFormatError, match=message):
        load_locomo(write(tmp_path, json.dumps(broken(change))))


@pytest.mark.parametrize("sample_id, message", [
    (26, r"expected a string, got 26"), (None, r"expected a string, got None"),
    ("conv-\ud800", r"not valid Unicode"),
])
def test_a_sample_id_that_is_not_a_name_is_refused_naming_the_file(tmp_path, sample_id, message):
    item = tiny("conv-1")
    item["sample_id"] = sample_id
    with pytest.raises(LocomoFormatError, match=rf"^all.json\[1\]: sample_id: .*{message}"):
        load_locomo_all(write(tmp_path, json.dumps([tiny("conv-0"), item]), "all.json"))
