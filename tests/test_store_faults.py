"""kit.store under faults: a locked file, a damaged or truncated file, old and unknown
schema versions, another writer on the same session, and SIGKILL at random points."""
import importlib.util
import json
import os
import random
import re
import sqlite3
from pathlib import Path

import pytest

from kit.extractive import make_extractive_summariser
from kit.memory import FullHistory, RobustSummaryMemory
from kit.messages import Message
from kit.persistence import attach_store, restore
from kit.store import SCHEMA_VERSION, StoreError, TranscriptStore
from kit.tokens import count_words
from test_store import Clock

ROOT = Path(__file__).resolve().parents[1]
PAGE = 4096                                   # SQLite's default page size


def esc(path):
    return re.escape(str(path))


def turn(number):
    role = "user" if number % 2 else "assistant"
    return role, f"message {number}: order {88000 + number} costs {7 * number} rupees"


def build(path, sessions=("alice", "bob"), count=150):
    """A closed store file: ``count`` messages per session and a saved state each."""
    with TranscriptStore(path, clock=Clock()) as store:
        for session in sessions:
            for number in range(1, count + 1):
                role, text = turn(number)
                store.append(session, Message(role, text, count_words(text), number))
            store.save_state(session, {"memory": "full history", "unit": "words",
                                       "added": count, "turns": [[1, count]]})
    return {s: [Message(*turn(n)[:2], count_words(turn(n)[1]), n) for n in range(1, count + 1)]
            for s in sessions}


def overwrite_pages(path, pages, seed=0, bump_counter=False):
    """Write seeded garbage over whole pages (1-based numbers); ``bump_counter``: also
    change the file change counter, as a writer does, so an open connection rereads."""
    rng = random.Random(seed)
    with open(path, "r+b") as f:
        for page in pages:
            f.seek((page - 1) * PAGE)
            f.write(bytes(rng.randrange(256) for _ in range(PAGE)))
        if bump_counter:
            f.seek(24)
            counter = int.from_bytes(f.read(4), "big")
            f.seek(24)
            f.write((counter + 1).to_bytes(4, "big"))


def summary_memory(summariser=None):
    return RobustSummaryMemory(summariser or make_extractive_summariser(20, count_words),
                               budget=40, keep_recent=2, measure=count_words)


def state_of(memory):
    """Everything a refused add must leave as it was."""
    return (memory.size, list(memory.turns), memory.turn_tokens, memory.added,
            len(memory.trace), getattr(memory, "summary", None), memory.context())


@pytest.fixture
def exclusive(tmp_path):
    """Another connection holding ``BEGIN EXCLUSIVE`` on a file until the test ends."""
    held = []

    def lock(path):
        raw = sqlite3.connect(path, isolation_level=None)
        raw.execute("BEGIN EXCLUSIVE")
        held.append(raw)
        return raw
    yield lock
    for raw in held:
        raw.rollback()
        raw.close()


# -- a locked file: add commits or raises --------------------------------------------------
@pytest.mark.parametrize("kind", ["full history", "summary memory"])
def test_an_add_on_a_locked_file_raises_a_store_error_and_changes_nothing(kind, tmp_path,
                                                                         exclusive):
    path = tmp_path / "chat.db"
    calls = []

    def summariser(prompt):
        calls.append(prompt)
        return make_extractive_summariser(20, count_words)(prompt)

    make = {"full history": lambda: FullHistory(measure=count_words),
            "summary memory": lambda: summary_memory(summariser)}[kind]
    with TranscriptStore(path, timeout=0.05) as store:
        memory = attach_store(make(), store, "s")
        for number in range(1, 6):
            memory.add(*turn(number))
        before, called = state_of(memory), len(calls)
        raw = exclusive(path)
        with pytest.raises(StoreError, match=rf"session 's' in '{esc(path)}'.*"
                                             rf"message 6.*database is locked.*timeout=0\.05 s"
                                             rf".*the add was refused"):
            memory.add(*turn(6))
        assert state_of(memory) == before and len(calls) == called   # no compaction ran
        assert memory.link.unsaved == []
        raw.rollback()                                      # the other connection lets go
        event = memory.add(*turn(6))
        assert event.message == 6 and memory.added == 6 and store.count("s") == 6
    with TranscriptStore(path) as store:
        again = restore(make(), store, "s")
        assert again.context() == memory.context() and again.added == 6


def test_reads_on_a_locked_file_raise_a_store_error_naming_path_and_session(tmp_path,
                                                                            exclusive):
    path = tmp_path / "chat.db"
    build(path, count=3)
    with TranscriptStore(path, timeout=0.05) as store:
        exclusive(path)
        for call in (lambda: store.turns("alice"), lambda: store.count("alice"),
                     lambda: store.load_state("alice"), lambda: store.pick("alice", [1])):
            with pytest.raises(StoreError, match=rf"session 'alice' in '{esc(path)}'.*locked"):
                call()
        fresh = FullHistory(measure=count_words)
        with pytest.raises(StoreError, match="session 'alice'.*locked"):
            restore(fresh, store, "alice")
        assert (fresh.added, fresh.turns, fresh.link) == (0, [], None)
    with pytest.raises(StoreError, match=rf"cannot open the transcript store '{esc(path)}'"
                                         rf".*locked"):
        TranscriptStore(path, timeout=0.05)                 # opening waits, then says so


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-1, ValueError), (None, TypeError),
                                        ("5", TypeError), (float("inf"), ValueError)])
def test_the_timeout_is_checked_and_named(bad, error, tmp_path):
    with pytest.raises(error, match="timeout must be"):
        TranscriptStore(tmp_path / "chat.db", timeout=bad)
    assert not (tmp_path / "chat.db").exists()


def test_another_writer_on_the_same_session_is_refused_not_hidden(tmp_path):
    path = tmp_path / "chat.db"
    with TranscriptStore(path) as one, TranscriptStore(path) as two:   # two processes
        first = restore(FullHistory(measure=count_words), one, "s")
        second = restore(FullHistory(measure=count_words), two, "s")
        first.add("user", "my order is 88412")
        with pytest.raises(StoreError, match="session 's'.*already has message 1"):
            second.add("user", "my order is 55555")
        assert (second.added, second.turns, second.trace) == (0, [], [])
        assert [m.content for m in one.turns("s")] == ["my order is 88412"]


# -- damaged and truncated files -------------------------------------------------------------
def test_a_truncated_or_empty_file_is_refused_naming_the_path_never_a_new_store(tmp_path):
    path = tmp_path / "chat.db"
    build(path)
    size = path.stat().st_size
    whole = path.read_bytes()
    for cut in (0, 1, 100, PAGE, size // 2):
        path.write_bytes(whole[:cut])
        with pytest.raises(StoreError, match=rf"'{esc(path)}'"):
            TranscriptStore(path)
        assert path.read_bytes() == whole[:cut]             # left as it was: no new store
    touched = tmp_path / "given.db"
    touched.touch()                                         # a 0-byte file given as a store
    with pytest.raises(StoreError, match=rf"'{esc(touched)}' is empty \(0 bytes\)"):
        TranscriptStore(touched)
    assert touched.stat().st_size == 0
    fresh = tmp_path / "new.db"                             # a path that does not exist:
    with TranscriptStore(fresh) as store:                   # a new store, as before
        assert store.sessions() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chat.db", "given.db", "new.db"]


def test_overwritten_pages_are_refused_at_open_naming_the_path(tmp_path):
    path = tmp_path / "chat.db"
    build(path)
    pages = path.stat().st_size // PAGE
    overwrite_pages(path, range(pages // 2, pages // 2 + 3))
    with pytest.raises(StoreError, match=rf"'{esc(path)}' is (damaged|not a readable)"):
        TranscriptStore(path)


def test_damage_found_by_a_session_operation_names_path_and_session(tmp_path):
    path = tmp_path / "chat.db"
    original = build(path)
    with sqlite3.connect(path) as raw:                      # the pages holding messages
        leaves = [n for (n,) in raw.execute("SELECT pageno FROM dbstat WHERE name = "
                                             "'messages' AND pagetype = 'leaf' ORDER BY 1")]
    raw.close()
    with TranscriptStore(path) as store:                    # opened while still whole
        middle = len(leaves) // 2
        overwrite_pages(path, leaves[middle - 1:middle + 2], bump_counter=True)
        failed = set()
        for session, messages in original.items():
            for name, call in (("turns", lambda: store.turns(session)),
                               ("count", lambda: store.count(session)),
                               ("pick", lambda: store.pick(session, range(1, 151)))):
                try:
                    result = call()
                except StoreError as exc:
                    assert f"session {session!r} in '{path}'" in str(exc)
                    assert isinstance(exc.__cause__, sqlite3.DatabaseError)
                    failed.add((session, name))
                else:                                       # or exactly what was stored
                    assert result in (messages, len(messages))
        unreadable = sorted(s for s, name in failed if name == "turns")
        assert unreadable                                   # the damage was found
        for session in unreadable:
            fresh = FullHistory(measure=count_words)
            with pytest.raises(StoreError, match=rf"session '{session}' in '{esc(path)}'"):
                restore(fresh, store, session)
            assert (fresh.added, fresh.turns, fresh.link) == (0, [], None)


def test_a_damaged_row_is_a_store_error_naming_the_session_and_message(tmp_path):
    path = tmp_path / "chat.db"
    build(path, count=5)
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE messages SET role = 'robot' WHERE session_id = 'alice' AND number = 3")
        raw.execute("UPDATE messages SET content = CAST(x'ff00fe' AS TEXT) "
                    "WHERE session_id = 'bob' AND number = 4")
    raw.close()
    with TranscriptStore(path) as store:
        with pytest.raises(StoreError, match=rf"session 'alice' in '{esc(path)}'.*message 3.*"
                                             rf"robot"):
            store.turns("alice")
        with pytest.raises(StoreError, match="session 'alice'.*message 3"):
            store.pick("alice", [3])
        assert [m.number for m in store.pick("alice", [1, 2])] == [1, 2]   # the rest reads
        with pytest.raises(StoreError, match=rf"session 'bob' in '{esc(path)}'.*UTF-8"):
            store.turns("bob")
        fresh = FullHistory(measure=count_words)
        with pytest.raises(StoreError, match="session 'alice'.*message 3"):
            restore(fresh, store, "alice")
        assert (fresh.added, fresh.turns, fresh.link) == (0, [], None)


# -- schema versions (DECISIONS §5) ---------------------------------------------------------
V1_SCHEMA = (
    "CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE messages (session_id TEXT NOT NULL, number INTEGER NOT NULL,"
    " role TEXT NOT NULL, content TEXT NOT NULL, tokens INTEGER NOT NULL,"
    " created_at REAL NOT NULL, PRIMARY KEY (session_id, number))",
    "CREATE TABLE session_state (session_id TEXT PRIMARY KEY, state TEXT NOT NULL,"
    " updated_at REAL NOT NULL)",
)


def make_v1(path, version="1"):
    with sqlite3.connect(path) as raw:
        for statement in V1_SCHEMA:
            raw.execute(statement)
        if version is not None:
            raw.execute("INSERT INTO store_meta VALUES ('schema_version', ?)", (version,))
        raw.execute("INSERT INTO messages VALUES ('s', 1, 'user', 'order 88412', 2, 1000.0)")
    raw.close()


def test_a_file_whose_schema_is_not_what_its_version_says_is_refused(tmp_path):
    for version, text in (("99", "version '99'.*reads version 4"), ("0", "version '0'"),
                          ("two", "version 'two'"), (None, "no schema version"),
                          ("2", "version 2 but its messages table lacks.*speaker, when_text")):
        path = tmp_path / f"v{version}.db"
        make_v1(path, version)
        whole = path.read_bytes()
        with pytest.raises(StoreError, match=rf"'{esc(path)}'.*{text}"):
            TranscriptStore(path)
        assert path.read_bytes() == whole                   # refused, and left unchanged


def test_a_version_1_file_opened_by_two_connections_at_once_migrates_once(tmp_path,
                                                                          monkeypatch):
    path = tmp_path / "old.db"
    make_v1(path)
    real_connect, other = sqlite3.connect, []

    def connect(*args, **kwargs):
        conn = real_connect(*args, **kwargs)

        def on_statement(sql):          # just before our migration takes the write lock
            if sql.startswith("BEGIN") and not other:
                other.append("started")
                with TranscriptStore(path) as first:     # another process migrates first
                    other.append(first.turns("s")[0].content)
        if not other:
            conn.set_trace_callback(on_statement)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)
    with TranscriptStore(path) as store:
        assert other == ["started", "order 88412"]
        assert store.turns("s") == [Message("user", "order 88412", 2, 1)]
        store.append("s", Message("assistant", "noted", 1, 2, "Bob", "today"))
        assert store.turns("s")[1].speaker == "Bob"
    monkeypatch.undo()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT value FROM store_meta").fetchall() == [(str(SCHEMA_VERSION),)]
    raw.close()


# -- SIGKILL: every acknowledged add survives ------------------------------------------------
def load_benchmark():
    spec = importlib.util.spec_from_file_location(
        "reliability_store", ROOT / "benchmarks" / "reliability_store.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_acknowledged_add_survives_sigkill_also_mid_compaction_and_locked(tmp_path):
    result = load_benchmark().kills(n=9, seed=1, workdir=tmp_path)
    assert result["kills"] == 9 and result["in_compaction"] == result["while_locked"] == 3
    assert result["acknowledged"] >= 9 and result["refused"] >= 3
    assert result["lost"] == 0 and result["restores_ok"] == 9
    assert os.listdir(tmp_path) == []                       # the benchmark cleans up


# -- break-it follow-up: hostile saved states and arguments (issue 10) -----------------------
def saved_session(path, count=6):
    """A closed store with ``count`` messages of a summary memory's session "alice";
    return its saved state."""
    with TranscriptStore(path, clock=Clock()) as store:
        memory = attach_store(summary_memory(), store, "alice")
        for number in range(1, count + 1):
            memory.add(*turn(number))
        return store.load_state("alice")


def save_raw_state(path, text, session="alice"):
    raw = sqlite3.connect(path)
    with raw:
        raw.execute("UPDATE session_state SET state = ? WHERE session_id = ?", (text, session))
    raw.close()


def fresh_state(memory):
    return (memory.added, memory.turns, memory.link, memory.summary, memory.folded)


@pytest.mark.parametrize("added", [7, 10 ** 8, 2 ** 63 - 1, 2 ** 63, 10 ** 30])
def test_a_saved_added_past_the_transcript_is_refused_before_anything_changes(added, tmp_path):
    path = tmp_path / "chat.db"
    state = saved_session(path)                       # messages 1..6 are stored
    save_raw_state(path, json.dumps({**state, "added": added}))
    with TranscriptStore(path) as store:
        memory = summary_memory()
        before = fresh_state(memory)
        with pytest.raises(StoreError, match=rf"session 'alice' in '{esc(path)}'.*added"):
            restore(memory, store, "alice")
        assert fresh_state(memory) == before
        save_raw_state(path, json.dumps(state))       # the same state, whole, restores
        assert restore(memory, store, "alice").added == 6


@pytest.mark.parametrize("added_at", [{"²": 1.0}, {"1" * 5000: 1.0}, {"-1": 1.0}])
def test_a_saved_clock_reading_of_no_message_number_is_a_store_error(added_at, tmp_path):
    path = tmp_path / "chat.db"
    state = saved_session(path)
    save_raw_state(path, json.dumps({**state, "added_at": added_at}))
    with TranscriptStore(path) as store:
        memory = summary_memory()
        with pytest.raises(StoreError, match=rf"session 'alice' in '{esc(path)}'.*added_at"):
            restore(memory, store, "alice")
        assert fresh_state(memory) == fresh_state(summary_memory())


def test_a_saved_state_nested_too_deep_is_a_store_error(tmp_path):
    path = tmp_path / "chat.db"
    saved_session(path)
    save_raw_state(path, "[" * 100_000 + "]" * 100_000)
    with TranscriptStore(path) as store:
        with pytest.raises(StoreError, match=rf"session 'alice' in '{esc(path)}'.*nested"):
            store.load_state("alice")
        memory = summary_memory()
        with pytest.raises(StoreError, match="session 'alice'"):
            restore(memory, store, "alice")
        assert memory.link is None and memory.added == 0


@pytest.mark.parametrize("call", [
    lambda s: s.append("a\ud800", Message("user", "hi", 1, 1)),
    lambda s: s.count("a\ud800"), lambda s: s.turns("\ud800"), lambda s: s.load_state("\ud800"),
    lambda s: s.save_state("\ud800", {}), lambda s: s.delete("\ud800"),
])
def test_a_session_id_that_is_not_valid_unicode_is_refused_naming_it(call):
    with TranscriptStore() as store:
        with pytest.raises(ValueError, match=r"session_id .*not valid Unicode.*'\\ud800'"):
            call(store)
        assert store.sessions() == []


def test_message_texts_that_are_not_valid_unicode_are_refused_naming_the_field():
    with TranscriptStore() as store:
        for field, message in (("content", Message("user", "a\udfff", 1, 1)),
                               ("speaker", Message("user", "hi", 1, 1, speaker="\ud800"))):
            with pytest.raises(ValueError, match=rf"message 1: {field} is not valid Unicode"):
                store.append("alice", message)
        assert store.count("alice") == 0


@pytest.mark.parametrize("call, name", [
    (lambda s: s.pick("alice", [1, 2 ** 63]), "message numbers"),
    (lambda s: s.turns("alice", first=2 ** 63), "first"),
    (lambda s: s.turns("alice", 1, last=2 ** 64), "last"),
    (lambda s: s.turns("alice", 1, last=-2 ** 63 - 1), "last"),
    (lambda s: s.created_at("alice", 2 ** 63), "number"),
])
def test_a_message_number_past_sqlites_integer_is_refused_naming_it(call, name):
    with TranscriptStore() as store:
        store.append("alice", Message("user", "hi", 1, 1))
        with pytest.raises(ValueError, match=rf"{name} must be .*2\*\*63.*got -?\d+"):
            call(store)
        assert [m.number for m in store.turns("alice")] == [1]


def test_a_path_holding_a_nul_is_a_store_error_naming_it(tmp_path):
    path = f"{tmp_path}/chat\0.db"
    with pytest.raises(StoreError, match=r"chat\\x00\.db"):
        TranscriptStore(path)
    assert os.listdir(tmp_path) == []
