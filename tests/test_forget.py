"""Forgetting (kit.longterm.forget) and its completeness scan (kit.longterm.forget_scan):
each place a forget reaches, each way of forgetting, raw bytes included."""
import sqlite3

import pytest

from kit.longterm.fact_memory import FactMemory
from kit.longterm.forget import (FORGOTTEN, choose, forget, forget_user, rebuild_memory,
                                 rebuild_profile, topic_pattern)
from kit.longterm.forget_scan import scan, sqlite_files
from kit.longterm.profile import Evidence, Profile
from kit.longterm.forget_demo import SECRET, forget_all, plant, summary_memory
from kit.longterm.forget_demo import places as demo_places
from kit.store import TranscriptStore
from kit.tokens import count_words


def chat(path, session="alice"):
    store = plant(path, session)
    return store, FactMemory(200, count_words, store=store, session_id=session)


def places(store, path, session="alice"):
    return demo_places(store, session)


def test_before_a_forget_the_scan_finds_the_secret_in_every_place(tmp_path):
    store, _ = chat(tmp_path / "chat.db")
    report = places(store, str(tmp_path / "chat.db"))
    assert report.completeness < 0.2, report.rows()
    assert "stored embeddings" in report.leaks and "database file" in report.leaks
    assert report.leaks[-1] == "stored embeddings" and len(report.places) >= 10


@pytest.mark.parametrize("how", ["words", "fact", "everything"])
def test_a_forget_reaches_every_place_bytes_included(tmp_path, how):
    store, facts = chat(tmp_path / "chat.db")
    fact_id = next(f.id for f in facts.table.current() if f.value == "penicillin")
    kwargs = {"words": dict(words=["Penicillin"]), "fact": dict(fact=fact_id),
              "everything": dict(everything=True)}[how]
    gone = forget_all(store, "alice", **kwargs)        # forget, then the profile rebuilt
    assert gone.by == how and 3 in gone.messages
    report = places(store, str(tmp_path / "chat.db"))
    assert "profile file (JSON)" in [p.name for p in report.places]
    assert report.completeness == 1.0, report.rows()
    if how != "everything":                       # the rest is kept, and the numbering
        turns = store.turns("alice")
        assert [m.number for m in turns] == list(range(1, 11))
        assert turns[2].content == FORGOTTEN and "Lisbon" in turns[0].content
        assert any(f.value == "Lisbon" for f in store.load_facts("alice"))


def test_the_record_says_what_went_never_the_words(tmp_path):
    store, _ = chat(tmp_path / "chat.db")
    forget(store, "alice", words=["penicillin"])
    with sqlite3.connect(tmp_path / "chat.db") as db:
        events = [row[0] for row in db.execute("SELECT event FROM events")]
    assert len(events) == 1 and '"forgotten"' in events[0] and SECRET not in events[0]
    assert '"messages": [3, 4]' in events[0]


def test_rows_deleted_without_secure_delete_leave_the_bytes(tmp_path):
    """The wrong answer the scan exists for: a query finds nothing, the file still has it."""
    path = tmp_path / "chat.db"
    store, _ = chat(path)
    with store._using("alice", "deleting") as db, db:
        db.execute("PRAGMA secure_delete = OFF")
        db.execute("UPDATE messages SET content = '[forgotten]' WHERE content LIKE "
                   "'%penicillin%'")
        db.execute("DELETE FROM facts WHERE value = 'penicillin'")
    assert not any(SECRET in m.content for m in store.turns("alice"))
    assert scan(SECRET, files=[("db", str(path))]).leaks == ["db"]


def test_an_edited_summary_is_not_a_rebuilt_one(tmp_path):
    store, _ = chat(tmp_path / "chat.db")
    assert SECRET in store.load_state("alice")["summary"].lower()
    forget(store, "alice", words=[SECRET])
    assert store.load_state("alice") is None            # the derived state went with it
    again = rebuild_memory(summary_memory, store, "alice")
    assert SECRET not in again.summary.lower() and "lisbon" in again.summary.lower()


def test_choose_and_the_topic_pattern():
    from kit.messages import Message
    turns = [Message("user", t, 0, i + 1) for i, t in enumerate(
        ["Penicillin again", "penicillins are many", "no", "PENICILLIN!"])]
    assert choose(turns, [], words=["penicillin"])[0] == (1, 4)     # whole words only
    assert not topic_pattern(["a.b"]).search("axb")                 # escaped
    with pytest.raises(ValueError, match="exactly one"):
        choose(turns, [], words=["x"], everything=True)
    with pytest.raises(ValueError, match="no stored fact has id 9"):
        choose(turns, [], fact=9)
    with pytest.raises(ValueError, match="non-empty"):
        topic_pattern([""])


def test_a_wal_file_is_checkpointed_and_truncated(tmp_path):
    path = tmp_path / "chat.db"
    store, _ = chat(path)
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode = WAL")
    store = TranscriptStore(path)
    store.append("bob", __import__("kit.messages", fromlist=["Message"]).Message(
        "user", "penicillin for bob too", 1, 1))
    forget(store, "bob", everything=True)
    forget(store, "alice", words=[SECRET])
    report = scan(SECRET, files=[(p, p) for p in sqlite_files(path)])
    assert report.completeness == 1.0, report.rows()
    assert (tmp_path / "chat.db-wal").stat().st_size == 0


def test_the_profile_is_merged_again_without_the_session_or_the_topic():
    def one(sid, weakness, signal):
        return Profile((), (Evidence(weakness, 1, (sid,)),), (signal,), sessions=(sid,))
    per = {"s1": one("s1", "sql joins", "mentioned penicillin allergy"),
           "s2": one("s2", "sql joins", "built a cache")}
    merged = rebuild_profile(per, words=[SECRET])
    assert merged.project_signals == ("built a cache",) and merged.weaknesses[0].turns == 2
    assert rebuild_profile(per, session="s1").sessions == ("s2",)
    assert rebuild_profile({"s1": per["s1"]}, session="s1") is None


def test_space_freed_before_the_forget_is_scrubbed_too(tmp_path):
    """A saved summary replaced before the forget left its old text in a free cell (the
    store does not write with secure_delete): the forget must reach it as well."""
    path = tmp_path / "chat.db"
    store, _ = chat(path)
    assert SECRET in store.load_state("alice")["summary"].lower()   # saved twice by plant
    forget(store, "alice", words=[SECRET])
    assert scan(SECRET, files=[(p, p) for p in sqlite_files(path)]).completeness == 1.0


def test_a_users_sessions_are_forgotten_together_and_others_stay(tmp_path):
    from kit.messages import Message
    path = tmp_path / "chat.db"
    store, _ = chat(path)
    for session in ("alice-2", "carol"):
        store.append(session, Message("user", f"{session}: penicillin again", 4, 1))
    gone = forget_user(store, ["alice", "alice-2", "alice"])     # a repeated id: once
    assert [g.session_id for g in gone] == ["alice", "alice-2"] and len(gone[0].messages) == 10
    assert store.turns("alice") == [] and store.load_facts("alice") == []
    assert store.turns("carol")[0].content == "carol: penicillin again"
    with sqlite3.connect(path) as db:                     # one record for alice, not two
        assert db.execute("SELECT count(*) FROM events WHERE session_id = 'alice'"
                          ).fetchone()[0] == 1
    with pytest.raises(TypeError, match="list of session ids"):
        forget_user(store, "alice")


def test_a_second_forget_keeps_the_record_of_the_first(tmp_path):
    """The record that messages were forgotten is the audit trail: a later forget (by
    words, or of everything) must not delete it with the other derived events."""
    store, _ = chat(tmp_path / "chat.db")
    forget(store, "alice", words=["cello"])
    forget(store, "alice", words=["Ana"])
    forget(store, "alice", everything=True)
    with sqlite3.connect(tmp_path / "chat.db") as db:
        events = [row[0] for row in db.execute("SELECT event FROM events ORDER BY seq")]
    assert len(events) == 3 and '"messages": [5, 6]' in events[0], events
    assert all('"forgotten"' in e for e in events) and '"everything"' in events[2]


def test_a_forget_that_finds_nothing_writes_nothing(tmp_path):
    """An unknown session (or words no message names) leaves the store as it was: no
    record of a forget that forgot nothing, no row for a session that never existed."""
    store, _ = chat(tmp_path / "chat.db")
    gone = forget(store, "nobody", words=["penicillin"])
    assert gone.messages == () and gone.facts == ()
    forget(store, "alice", words=["zeppelin"])
    with sqlite3.connect(tmp_path / "chat.db") as db:
        assert list(db.execute("SELECT event FROM events")) == []
    assert store.load_state("alice") is not None           # nothing derived deleted either


@pytest.mark.parametrize("everything", ["no", 1, "false"])
def test_everything_must_be_a_bool_not_a_truthy_value(tmp_path, everything):
    """everything="false" (from a form or a config file) forgot the whole session."""
    store, _ = chat(tmp_path / "chat.db")
    with pytest.raises(TypeError, match=f"everything must be a bool.*{everything!r}"):
        forget(store, "alice", everything=everything)
    assert len(store.turns("alice")) == 10 and "Lisbon" in store.turns("alice")[0].content


@pytest.mark.parametrize("bad", [True, 1.0, "2"])
def test_a_fact_id_that_is_not_an_int_is_refused_by_name(tmp_path, bad):
    store, _ = chat(tmp_path / "chat.db")
    before = (store.turns("alice"), store.load_facts("alice"))
    with pytest.raises(TypeError, match="fact must be an int"):
        forget(store, "alice", fact=bad)                     # True == 1 is fact 1
    assert (store.turns("alice"), store.load_facts("alice")) == before


def test_topic_words_match_other_unicode_forms_and_spacing():
    """The secret typed another way is the same secret: decomposed accents, full-width
    letters, a soft hyphen or zero-width space inside, a German sharp s, a line break
    inside a phrase."""
    import unicodedata
    from kit.messages import Message
    texts = [unicodedata.normalize("NFD", "a café crème"), "ＰＥＮＩＣＩＬＬＩＮ allergy",
             "Die STRASSE", "peni\u00adcillin", "peni\u200bcillin", "my blood\npressure",
             "cafés nearby", "penicillinase"]
    turns = [Message("user", t, 0, i + 1) for i, t in enumerate(texts)]
    assert choose(turns, [], words=["café", "penicillin", "straße", "blood pressure"]
                  )[0] == (1, 2, 3, 4, 5, 6)
    with pytest.raises(TypeError, match="123"):
        topic_pattern(123)


def test_a_forget_that_failed_before_its_scrub_is_healed_by_running_it_again(tmp_path,
                                                                             monkeypatch):
    """A crash after the commit, before VACUUM: the rows are forgotten, old free cells may
    still hold the text; the same forget again (it now finds nothing) still scrubs."""
    import kit.longterm.forget as module
    path = tmp_path / "chat.db"
    store, _ = chat(path)
    scrub = module.scrub_bytes

    def crash(db, where):
        raise RuntimeError("power cut")
    monkeypatch.setattr(module, "scrub_bytes", crash)
    with pytest.raises(RuntimeError):
        forget(store, "alice", words=[SECRET])
    assert not any(SECRET in m.content.lower() for m in store.turns("alice"))
    scrubbed = []
    monkeypatch.setattr(module, "scrub_bytes", lambda db, where: scrubbed.append(
        scrub(db, where)))
    assert forget(store, "alice", words=[SECRET]).messages == () and len(scrubbed) == 1
    assert scan(SECRET, files=[(p, p) for p in sqlite_files(path)]).completeness == 1.0
    with sqlite3.connect(path) as db:                     # one record: the forget that took
        assert db.execute("SELECT count(*) FROM events").fetchone()[0] == 1


def test_a_long_list_of_topic_words_is_looked_up_not_tried_one_by_one():
    """10,000 single words: one set, no expression tried at each character (the old
    alternation took time in words x text, inside the store's write lock)."""
    words = [f"w{i}x" for i in range(10_000)] + ["blood pressure", "c++"]
    topic = topic_pattern(words)
    assert len(topic.words) == 10_000 and topic.pattern.pattern.count("|") == 1
    assert topic.search("W9999X!") and topic.search("Blood  pressure") and topic.search("c++ ok")
    assert not topic.search("w10000x w9999 blood c+")


def test_the_scan_finds_the_secret_in_another_unicode_form(tmp_path):
    """A scan that misses a decomposed accent or another case of a non-ASCII letter
    reports a place clean that still holds the secret."""
    import unicodedata
    from kit.longterm.forget_scan import file_holds
    for i, held in enumerate([unicodedata.normalize("NFD", "Café Noir"), "CAFÉ NOIR",
                              "café noir"]):
        path = tmp_path / f"f{i}.bin"
        path.write_bytes(b"\x00" + held.encode("utf-8") + b"\x00")
        assert file_holds(str(path), "café noir"), held
    report = scan("straße", contexts={"summary": "lives on the STRASSE", "other": "strand"})
    assert report.leaks == ["summary"]


def test_a_whole_word_scan_of_the_bytes_passes_over_longer_words(tmp_path):
    """file_holds(..., whole_word=True): 'eve' inside 'every' is not it; 'Eve' on its own,
    in any case, is; the plain scan finds both."""
    from kit.longterm.forget_scan import file_holds
    inside, alone = tmp_path / "inside.bin", tmp_path / "alone.bin"
    inside.write_bytes(b"\x00\x01We rehearse every evening.\x00")
    alone.write_bytes(b"\x00\x01ask EVE. \x00")
    assert file_holds(str(inside), "eve") and not file_holds(str(inside), "eve", whole_word=True)
    assert file_holds(str(alone), "eve", whole_word=True)


def test_a_whole_word_scan_takes_a_secrets_own_punctuation_as_its_edge(tmp_path):
    """A secret that starts or ends with punctuation or a space: that edge needs no
    boundary of its own ("-eve" in "x-eve"); its letters still do ("eve-" in "eve-x" is
    there, "eve-" in "reve-x" is not)."""
    from kit.longterm.forget_scan import file_holds
    path = tmp_path / "f.bin"
    for data, secret, held in [(b"\x00x-eve\x00", "-eve", True), (b"eve x", "eve ", True),
                               (b"ask eve-x", "eve-", True), (b"reve-x", "eve-", False),
                               (b"(c++)", "C++", True), (b"abc++", "c++", False)]:
        path.write_bytes(data)
        assert file_holds(str(path), secret, whole_word=True) is held, (data, secret)
