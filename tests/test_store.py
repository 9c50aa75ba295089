"""kit.store: the raw transcript in SQLite, memories wired to it, restart by restore()."""
import json
import sqlite3
import subprocess
import sys
import textwrap
import threading

import pytest

from kit.conversations import LAPTOP_TURNS
from kit.llm import FailingLLM, fact_listing_summariser
from kit.memory import (CompactionError, FullHistory, RobustSummaryMemory, SlidingWindow,
                        SummaryMemory, TokenWindow)
from kit.messages import Message
from kit.persistence import attach_store, memory_state, restore
from kit.store import SCHEMA_VERSION, StoreError, TranscriptStore
from kit.structured import structured_stub
from kit.tokens import count_words

TURNS = [("user", f"question {i} about order {88400 + i}") if i % 2 else
         ("assistant", f"answer {i} with amount {i * 100} rupees") for i in range(1, 15)]


def msg(number, role="user", content=None, tokens=3):
    return Message(role, content or f"text {number}", tokens, number)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        self.now += 1.5
        return self.now


# -- the store on its own -----------------------------------------------------------
def test_append_turns_count_sessions_and_clock():
    with TranscriptStore(clock=Clock()) as store:
        for n in (1, 2, 3):
            store.append("alice", msg(n, "user" if n % 2 else "assistant"))
        store.append("bob", msg(1, content="hi bob"))
        assert store.count("alice") == 3 and store.count("bob") == 1 and store.count("eve") == 0
        assert store.turns("alice") == [msg(1), msg(2, "assistant"), msg(3)]
        assert store.turns("alice", first=2, last=2) == [msg(2, "assistant")]
        assert store.turns("alice", first=3) == [msg(3)]
        assert store.turns("bob")[0].content == "hi bob"
        assert store.sessions() == ["alice", "bob"]
        assert [store.created_at("alice", n) for n in (1, 2, 3)] == [1001.5, 1003.0, 1004.5]
        with pytest.raises(KeyError, match="'alice' has no message 9"):
            store.created_at("alice", 9)


def test_duplicate_number_is_refused_and_nothing_written():
    with TranscriptStore() as store:
        store.append("s", msg(1, content="first"))
        with pytest.raises(ValueError, match="session 's' already has message 1"):
            store.append("s", msg(1, content="second"))
        assert store.turns("s") == [msg(1, content="first")]


@pytest.mark.parametrize("bad, error", [("", ValueError), ("  ", ValueError), (None, TypeError),
                                        (7, TypeError)])
def test_bad_session_id_names_the_value(bad, error):
    with TranscriptStore() as store:
        with pytest.raises(error, match="session_id"):
            store.append(bad, msg(1))
        with pytest.raises(error, match=repr(bad) if error is ValueError else "session_id"):
            store.count(bad)
        assert store.sessions() == []


def test_bad_messages_are_refused():
    with TranscriptStore() as store:
        with pytest.raises(TypeError, match="Message"):
            store.append("s", {"role": "user", "content": "hi"})
        with pytest.raises(ValueError, match="system message number 0"):
            store.append("s", Message("system", "be brief", 2, 0))
        with pytest.raises(ValueError, match="first must be >= 1, got 0"):
            store.turns("s", first=0)
        assert store.count("s") == 0


def test_state_round_trip_replace_and_delete():
    with TranscriptStore() as store:
        assert store.load_state("s") is None
        store.save_state("s", {"summary": "order 88412", "turns": [[3, 4]]})
        store.save_state("s", {"summary": "order 88412; refund", "turns": [[5, 6]]})
        assert store.load_state("s") == {"summary": "order 88412; refund", "turns": [[5, 6]]}
        with pytest.raises(TypeError, match="session 's' is not JSON"):
            store.save_state("s", {"when": object()})
        with pytest.raises(TypeError, match="must be a dict, got list"):
            store.save_state("s", [1, 2])
        assert store.load_state("s")["turns"] == [[5, 6]]         # unchanged
        store.append("s", msg(1))
        store.save_state("only-state", {})
        assert store.sessions() == ["only-state", "s"]
        assert store.delete("s") == 1
        assert store.count("s") == 0 and store.load_state("s") is None
        assert store.sessions() == ["only-state"]


def test_schema_version_row_and_reopen(tmp_path):
    path = tmp_path / "chat.db"
    with TranscriptStore(path) as store:
        store.append("s", msg(1))
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT value FROM store_meta WHERE key = 'schema_version'"
                           ).fetchall() == [(str(SCHEMA_VERSION),)]
    raw.close()
    with TranscriptStore(path) as store:                        # reopening keeps the data
        assert store.turns("s") == [msg(1)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chat.db"]   # one file


def test_corrupt_foreign_and_newer_files_name_the_path(tmp_path):
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="corrupt.db.*not a readable transcript store"):
        TranscriptStore(corrupt)
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as raw:
        raw.execute("CREATE TABLE customers (id INTEGER)")
    raw.close()
    with pytest.raises(StoreError, match="foreign.db.*not a transcript store.*customers"):
        TranscriptStore(foreign)
    newer = tmp_path / "newer.db"
    TranscriptStore(newer).close()
    with sqlite3.connect(newer) as raw:
        raw.execute("UPDATE store_meta SET value = '99' WHERE key = 'schema_version'")
    raw.close()
    with pytest.raises(StoreError, match=f"newer.db.*version '99'.*reads version {SCHEMA_VERSION}"):
        TranscriptStore(newer)
    with pytest.raises(StoreError, match="no-such-dir"):
        TranscriptStore(tmp_path / "no-such-dir" / "x.db")


def test_closed_store_says_so():
    store = TranscriptStore()
    store.close()
    store.close()                                               # idempotent
    with pytest.raises(ValueError, match="':memory:' is closed"):
        store.count("s")


def test_a_background_thread_can_write():
    with TranscriptStore() as store:
        def write(start):
            for n in range(start, start + 100, 2):
                store.append("s", msg(n))
        threads = [threading.Thread(target=write, args=(s,)) for s in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [m.number for m in store.turns("s")] == list(range(1, 101))


# -- memories wired to a store ----------------------------------------------------
MEMORIES = {
    "full history": lambda: FullHistory(measure=count_words, system="Be brief."),
    "sliding window": lambda: SlidingWindow(4, measure=count_words),
    "token window": lambda: TokenWindow(25, measure=count_words, system="Be brief."),
    "summary memory": lambda: SummaryMemory(fact_listing_summariser, budget=30, keep_recent=2,
                                            measure=count_words),
    "structured, target, max_age": lambda: RobustSummaryMemory(
        structured_stub, budget=60, keep_recent=2, measure=count_words, structured=True,
        target=40, max_age=5.0, clock=Ticks()),
}


class Ticks:
    """A clock that advances one second per reading; a new one restarts at the same time
    a restarted process would see (the state carries the readings)."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 1.0
        return self.now


def same(a, b):
    """Everything a restart must keep."""
    assert a.context() == b.context()
    assert a.messages() == b.messages()
    assert (a.size, a.turns, a.turn_tokens, a.added) == (b.size, b.turns, b.turn_tokens, b.added)
    for name in ("summary", "summary_tokens", "compactions", "structured", "folded",
                 "added_at"):
        assert getattr(a, name, None) == getattr(b, name, None), name


@pytest.mark.parametrize("kind", MEMORIES)
def test_restart_through_a_file_restores_an_equal_memory(kind, tmp_path):
    path = tmp_path / "chat.db"
    with TranscriptStore(path) as store:
        before = MEMORIES[kind]()
        attach_store(before, store, "alice")
        for number, (role, text) in enumerate(TURNS, 1):
            before.add(role, text)
            assert store.count("alice") == before.added == number
        assert store.turns("alice") == [Message(r, t, count_words(t), n)
                                        for n, (r, t) in enumerate(TURNS, 1)]
    if "summary" in kind or "structured" in kind:
        assert before.compactions >= 2 and before.folded
    with pytest.raises(StoreError, match="is closed.*the add was refused"):
        before.add(*LAPTOP_TURNS[0])                            # no store: no add
    reference = MEMORIES[kind]()                                # the same, without a store
    for role, text in TURNS:
        reference.add(role, text)
    same(before, reference)
    with TranscriptStore(path) as store:                        # a new process, in effect
        after = restore(MEMORIES[kind](), store, "alice")
        if kind.startswith("structured"):
            assert after.structured is not None and after.added_at
            after.clock.now = before.clock.now                  # same time after the restart
        same(before, after)
        assert after.link.store is store and after.trace == []
        for role, text in LAPTOP_TURNS:                          # and it carries on alike
            reference.add(role, text)
            after.add(role, text)
        same(reference, after)
        assert store.count("alice") == after.added == len(TURNS) + len(LAPTOP_TURNS)


def test_state_names_summary_and_verbatim_numbers():
    with TranscriptStore() as store:
        memory = attach_store(MEMORIES["summary memory"](), store, "s")
        for role, text in TURNS[:8]:
            memory.add(role, text)
        state = store.load_state("s")
        assert state == {**memory_state(memory), "settings": memory.settings()}
        assert "settings" not in memory_state(memory)        # saved beside the state
        assert state["memory"] == "summary memory" and state["unit"] == "words"
        assert state["added"] == 8 and state["summary"] == memory.summary != ""
        assert state["turns"] == [[memory.turns[0].number, 8]]
        assert state["compactions"] == memory.compactions


def test_messages_are_written_before_compaction_runs():
    with TranscriptStore() as store:
        seen = []

        def summariser(prompt):
            seen.append(store.count("s"))
            return fact_listing_summariser(prompt)

        memory = SummaryMemory(summariser, budget=30, keep_recent=2, measure=count_words)
        attach_store(memory, store, "s")
        for role, text in TURNS:
            memory.add(role, text)
        compacted_at = [e.message for e in memory.trace if e.compacted]
        assert seen == compacted_at and seen


def test_failed_compaction_keeps_the_message_and_saves_the_state(tmp_path):
    path = tmp_path / "chat.db"
    make = lambda model: SummaryMemory(model, budget=30, keep_recent=2, measure=count_words)
    with TranscriptStore(path) as store:
        before = make(FailingLLM(fact_listing_summariser, fail_on={1}))
        attach_store(before, store, "s")
        with pytest.raises(CompactionError):
            for role, text in TURNS:
                before.add(role, text)
        assert store.count("s") == before.added
        assert store.load_state("s")["added"] == before.added and before.summary == ""
    with TranscriptStore(path) as store:
        same(before, restore(make(fact_listing_summariser), store, "s"))


class FlakyStore(TranscriptStore):
    """Appends (or state saves) fail on the chosen calls, like a locked database."""

    def __init__(self, path, fail_appends=(), fail_saves=()):
        super().__init__(path)
        self.fail_appends, self.fail_saves = set(fail_appends), set(fail_saves)
        self.appends = self.saves = 0

    def append(self, session_id, message):
        self.appends += 1
        if self.appends in self.fail_appends:
            raise sqlite3.OperationalError("database is locked")
        super().append(session_id, message)

    def save_state(self, session_id, state):
        self.saves += 1
        if self.saves in self.fail_saves:
            raise sqlite3.OperationalError("disk I/O error")
        super().save_state(session_id, state)


def test_a_failed_write_refuses_the_add_and_the_next_add_goes_on(tmp_path):
    path = tmp_path / "chat.db"
    with FlakyStore(path, fail_appends={3, 4}) as store:        # message 3 and one retry
        memory = SlidingWindow(4, measure=count_words)
        attach_store(memory, store, "s")
        for role, text in TURNS[:2]:
            memory.add(role, text)
        before = (memory.size, list(memory.turns), memory.added, len(memory.trace))
        for _ in range(2):
            with pytest.raises(StoreError, match="session 's' in .*chat.db.*message 3 was "
                                                 "not written.*database is locked.*refused"
                               ) as failure:
                memory.add(*TURNS[2])
            assert (memory.size, memory.turns, memory.added, len(memory.trace)) == before
            assert isinstance(failure.value.__cause__, sqlite3.OperationalError)
        assert memory.link.last_error is failure.value.__cause__
        for role, text in TURNS[2:5]:                            # the retry is message 3
            memory.add(role, text)
        assert memory.link.unsaved == [] and memory.link.last_error is None
        assert [m.number for m in store.turns("s")] == [1, 2, 3, 4, 5]
    with TranscriptStore(path) as store:
        same(memory, restore(SlidingWindow(4, measure=count_words), store, "s"))


def test_a_failed_state_save_keeps_the_add_and_sync_writes_it(tmp_path):
    with FlakyStore(tmp_path / "c.db", fail_saves={2, 3}) as store:
        memory = attach_store(FullHistory(measure=count_words), store, "s")
        memory.add(*TURNS[0])
        memory.add(*TURNS[1])                                    # its state save fails
        assert memory.added == 2 and store.count("s") == 2       # the message is stored
        assert not memory.link.state_saved and store.load_state("s")["added"] == 1
        with pytest.raises(StoreError, match="session 's'.*state is unsaved"):
            memory.link.sync()                                   # the third save fails too
        memory.link.sync()
        assert memory.link.state_saved and memory.link.last_error is None
        assert store.count("s") == 2 and store.load_state("s")["added"] == 2


def test_messages_stored_after_the_last_state_come_back_verbatim(tmp_path):
    """The process stopped between writing a message and saving the state."""
    with TranscriptStore(tmp_path / "c.db") as store:
        memory = attach_store(MEMORIES["summary memory"](), store, "s")
        for role, text in TURNS[:8]:
            memory.add(role, text)
        store.append("s", Message("user", "my order is 88412", 4, 9))
        again = restore(MEMORIES["summary memory"](), store, "s")
        assert again.added == 9 and again.turns == memory.turns + [store.turns("s", 9)[0]]
        assert again.summary == memory.summary


def test_attach_and_restore_refuse_what_would_lose_or_mix_data():
    with TranscriptStore() as store:
        used = FullHistory()
        used.add("user", "hi")
        with pytest.raises(ValueError, match="freshly constructed memory; this one has 1"):
            attach_store(used, store, "s")
        with pytest.raises(TypeError, match="TranscriptStore"):
            attach_store(FullHistory(), "chat.db", "s")
        memory = attach_store(FullHistory(), store, "s")
        memory.add("user", "hi")
        with pytest.raises(ValueError, match="session 's' already exists.*1 messages"):
            attach_store(FullHistory(), store, "s")
        with pytest.raises(ValueError, match="freshly constructed"):
            restore(memory, store, "s")
        with pytest.raises(StoreError, match="memory 'full history'.*'sliding window'"):
            restore(SlidingWindow(4), store, "s")
        with pytest.raises(StoreError, match="unit 'tokens'.*'words'"):
            restore(FullHistory(measure=count_words), store, "s")
        empty = restore(FullHistory(), store, "new")             # an unknown session
        assert empty.added == 0 and empty.link.session_id == "new"


def test_a_missing_verbatim_turn_is_reported():
    with TranscriptStore() as store:
        memory = attach_store(FullHistory(), store, "s")
        for role, text in TURNS[:3]:
            memory.add(role, text)
        with store._lock:
            store._db().execute("DELETE FROM messages WHERE number = 2")
        with pytest.raises(StoreError, match=r"lacks verbatim message\(s\) \[2\]"):
            restore(FullHistory(), store, "s")


def test_structured_summary_round_trips():
    from kit.structured import StructuredSummary
    with TranscriptStore() as store:
        memory = attach_store(MEMORIES["summary memory"](), store, "s")
        memory.structured = StructuredSummary("order 88412", ["refund date?"])
        memory.add("user", "hi")
        assert store.load_state("s")["structured"] == {"summary": "order 88412",
                                                       "open_points": ["refund date?"]}
        fresh = MEMORIES["summary memory"]()
        fresh.structured = None
        assert restore(fresh, store, "s").structured == memory.structured


def test_restart_in_another_process(tmp_path):
    path = tmp_path / "chat.db"
    setup = textwrap.dedent("""
        import sys
        from kit.llm import fact_listing_summariser
        from kit.memory import SummaryMemory
        from kit.persistence import attach_store, restore
        from kit.store import TranscriptStore
        from kit.tokens import count_words
        def make():
            return SummaryMemory(fact_listing_summariser, budget=30, keep_recent=2,
                                 measure=count_words)
        turns = {turns!r}
    """).format(turns=TURNS)
    write = setup + textwrap.dedent("""
        with TranscriptStore(sys.argv[1]) as store:
            memory = make()
            attach_store(memory, store, "alice")
            for role, text in turns:
                memory.add(role, text)
    """)
    read = setup + textwrap.dedent("""
        with TranscriptStore(sys.argv[1]) as store:
            print(restore(make(), store, "alice").context(), end="")
    """)
    for script in (write, read):
        done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                              text=True, check=True)
    expected = MEMORIES["summary memory"]()
    for role, text in TURNS:
        expected.add(role, text)
    assert done.stdout == expected.context() and expected.summary


def test_state_is_json_in_the_file(tmp_path):
    path = tmp_path / "c.db"
    with TranscriptStore(path) as store:
        memory = SlidingWindow(2, measure=count_words)
        attach_store(memory, store, "s")
        for role, text in TURNS[:6]:
            memory.add(role, text)
    with sqlite3.connect(path) as raw:
        (text,) = raw.execute("SELECT state FROM session_state WHERE session_id = ?",
                              ("s",)).fetchone()
    raw.close()
    assert json.loads(text)["turns"] == [[5, 6]]


def test_a_restore_that_fails_leaves_the_memory_fresh():
    with TranscriptStore() as store:
        store.append("s", msg(1))
        store.save_state("s", {"memory": "summary memory", "unit": "words", "added": 1,
                               "turns": [[1, 1]], "summary": "", "summary_tokens": 0,
                               "compactions": 0, "structured": {"summary": ""}})
        fresh = RobustSummaryMemory(fact_listing_summariser, budget=30, keep_recent=2,
                                    measure=count_words)
        with pytest.raises(ValueError, match="summary must not be empty"):
            restore(fresh, store, "s")
        assert (fresh.added, fresh.turns, fresh.link, fresh.structured) == (0, [], None, None)


# -- speaker and date, schema version 2 (lesson 09) ---------------------------------------
V1_SCHEMA = (
    "CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE messages (session_id TEXT NOT NULL, number INTEGER NOT NULL,"
    " role TEXT NOT NULL, content TEXT NOT NULL, tokens INTEGER NOT NULL,"
    " created_at REAL NOT NULL, PRIMARY KEY (session_id, number))",
    "CREATE TABLE session_state (session_id TEXT PRIMARY KEY, state TEXT NOT NULL,"
    " updated_at REAL NOT NULL)",
)


def test_speaker_and_date_are_stored_and_picked_back():
    said = Message("user", "I moved to Lisbon", 4, 1, "Maya", "9 January, 2023")
    with TranscriptStore() as store:
        store.append("s", said)
        store.append("s", msg(2))
        assert store.turns("s") == [said, msg(2)]
        assert store.pick("s", [2, 1, 1, 7]) == [said, msg(2)]     # sorted, once, 7 unknown
        assert store.pick("s", range(1, 700)) == [said, msg(2)]     # beyond one IN (...) chunk
        with pytest.raises(TypeError, match="message numbers must be ints, got '1'"):
            store.pick("s", ["1"])


def test_a_version_1_file_is_migrated_and_keeps_its_turns(tmp_path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as raw:
        for statement in V1_SCHEMA:
            raw.execute(statement)
        raw.execute("INSERT INTO store_meta VALUES ('schema_version', '1')")
        raw.execute("INSERT INTO messages VALUES ('s', 1, 'user', 'text 1', 3, 1000.0)")
    raw.close()
    with TranscriptStore(path) as store:
        assert store.turns("s") == [msg(1)]                          # speaker and when: ""
        store.append("s", Message("assistant", "hi", 1, 2, "Bob", "today"))
        assert store.turns("s")[1].speaker == "Bob"
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT value FROM store_meta").fetchall() == [(str(SCHEMA_VERSION),)]
        tables = {name for (name,) in raw.execute("SELECT name FROM sqlite_master")}
    raw.close()
    assert SCHEMA_VERSION == 5                     # 1 -> 2 -> 3 -> 4 -> 5, one step at a time
    assert {"leases", "turns", "events", "idempotency", "waiters", "facts"} <= tables


def test_a_version_2_file_gets_the_service_tables_and_keeps_its_turns(tmp_path):
    path = tmp_path / "v2.db"
    with sqlite3.connect(path) as raw:
        for statement in V1_SCHEMA:
            raw.execute(statement)
        raw.execute("ALTER TABLE messages ADD COLUMN speaker TEXT NOT NULL DEFAULT ''")
        raw.execute("ALTER TABLE messages ADD COLUMN when_text TEXT NOT NULL DEFAULT ''")
        raw.execute("INSERT INTO store_meta VALUES ('schema_version', '2')")
        raw.execute("INSERT INTO messages VALUES ('s', 1, 'user', 'text 1', 3, 1000.0, '', '')")
    raw.close()
    with TranscriptStore(path) as store:
        assert store.turns("s") == [msg(1)]
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT value FROM store_meta").fetchall() == [("5",)]
        assert raw.execute("SELECT COUNT(*) FROM leases").fetchone() == (0,)
        assert raw.execute("SELECT COUNT(*) FROM idempotency").fetchone() == (0,)
        assert raw.execute("SELECT COUNT(*) FROM facts").fetchone() == (0,)
    raw.close()


def _version_3_file(path):
    """A store file as version 3 left it: the service tables, no idempotency, no facts."""
    from kit.store import _SERVICE_TABLES
    with sqlite3.connect(path) as raw:
        for statement in V1_SCHEMA:
            raw.execute(statement)
        raw.execute("ALTER TABLE messages ADD COLUMN speaker TEXT NOT NULL DEFAULT ''")
        raw.execute("ALTER TABLE messages ADD COLUMN when_text TEXT NOT NULL DEFAULT ''")
        for statement in _SERVICE_TABLES:
            raw.execute(statement)
        raw.execute("INSERT INTO store_meta VALUES ('schema_version', '3')")
        raw.execute("INSERT INTO messages VALUES ('s', 1, 'user', 'text 1', 3, 1000.0, '', '')")
        raw.execute("INSERT INTO leases VALUES ('s', 7, 0)")
    raw.close()


def test_a_version_3_file_gets_the_idempotency_and_fact_tables_and_keeps_its_turns(tmp_path):
    path = tmp_path / "v3.db"
    _version_3_file(path)
    with TranscriptStore(path) as store:
        assert store.turns("s") == [msg(1)]
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT value FROM store_meta").fetchall() == [("5",)]
        assert raw.execute("SELECT token FROM leases").fetchall() == [(7,)]
        columns = [row[1] for row in raw.execute("PRAGMA table_info(facts)")]
        keys = [row[1] for row in raw.execute("PRAGMA table_info(idempotency)") if row[5]]
        waiters = [row[1] for row in raw.execute("PRAGMA table_info(waiters)")]
    raw.close()
    assert columns[:5] == ["session_id", "id", "subject", "attribute", "value"]
    assert {"valid_from", "valid_to", "source", "closed_by", "status"} <= set(columns)
    assert keys == ["session_id", "key"] and waiters[:2] == ["session_id", "ticket"]


def test_a_version_4_file_gets_only_the_fact_table(tmp_path):
    path = tmp_path / "v4.db"
    _version_3_file(path)
    from kit.store import _IDEMPOTENCY_TABLES
    with sqlite3.connect(path) as raw:
        for statement in _IDEMPOTENCY_TABLES:
            raw.execute(statement)
        raw.execute("INSERT INTO idempotency VALUES ('s', 'k1', 'd', 2, 1, '{}', 1000.0)")
        raw.execute("UPDATE store_meta SET value = '4'")
    raw.close()
    with TranscriptStore(path):
        pass
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT value FROM store_meta").fetchall() == [("5",)]
        assert raw.execute("SELECT session_id, key, turn FROM idempotency").fetchall() == [
            ("s", "k1", 1)]
        assert raw.execute("SELECT COUNT(*) FROM facts").fetchone() == (0,)
    raw.close()


def test_a_damaged_version_3_file_is_refused_not_migrated(tmp_path):
    path = tmp_path / "v3.db"
    _version_3_file(path)
    data = bytearray(path.read_bytes())
    data[100:len(data)] = b"\xff" * (len(data) - 100)        # every page after the header
    path.write_bytes(bytes(data))
    before = path.read_bytes()
    with pytest.raises(StoreError, match="v3.db"):
        TranscriptStore(path)
    assert path.read_bytes() == before                           # left unchanged


def test_restore_round_trips_speaker_and_date(tmp_path):
    with TranscriptStore(tmp_path / "c.db") as store:
        memory = attach_store(SummaryMemory(fact_listing_summariser, budget=20, keep_recent=2,
                                            measure=count_words), store, "s")
        for i, (role, text) in enumerate(LAPTOP_TURNS):
            memory.add(role, text, speaker=["Ann", "Bob"][i % 2], when=f"{i + 1} May")
        again = restore(SummaryMemory(fact_listing_summariser, budget=20, keep_recent=2,
                                      measure=count_words), store, "s")
        assert again.turns == memory.turns and again.context() == memory.context()
        assert [(m.speaker, m.when) for m in again.turns] == [("Ann", "3 May"), ("Bob", "4 May")]


def test_the_wiring_lives_in_kit_persistence_only():
    import kit.persistence
    import kit.store
    for name in ("SessionLink", "attach_store", "restore", "memory_state"):
        assert name in kit.persistence.__all__ and not hasattr(kit.store, name)
    assert not hasattr(kit.store, "__getattr__")        # no re-export behind the scenes


# -- restore checks the settings the saved state depends on ------------------------------
def saved_summary_session(store, **kwargs):
    kwargs = {"budget": 30, "keep_recent": 2, "measure": count_words, **kwargs}
    memory = attach_store(RobustSummaryMemory(fact_listing_summariser, **kwargs), store, "s")
    for role, text in TURNS[:8]:
        memory.add(role, text)
    return memory


@pytest.mark.parametrize("kwargs, setting", [
    ({"budget": 40}, "budget=30.*budget=40"),
    ({"keep_recent": 4}, "keep_recent=2.*keep_recent=4"),
    ({"structured": True}, "structured=False.*structured=True"),
])
def test_restore_refuses_other_settings_and_names_them(kwargs, setting):
    with TranscriptStore() as store:
        saved = saved_summary_session(store)
        assert store.load_state("s")["settings"] == {"budget": 30, "keep_recent": 2,
                                                     "structured": False} == saved.settings()
        fresh = RobustSummaryMemory(fact_listing_summariser, **{"budget": 30, "keep_recent": 2,
                                                          "measure": count_words, **kwargs})
        with pytest.raises(StoreError, match=f"session 's'.*saved with {setting}"):
            restore(fresh, store, "s")
        assert (fresh.added, fresh.turns, fresh.link, fresh.summary) == (0, [], None, "")


def test_restore_accepts_another_summariser_prompt_triggers_and_system_prompt():
    with TranscriptStore() as store:
        saved = saved_summary_session(store)
        other = RobustSummaryMemory(FailingLLM(), budget=30, keep_recent=2,
                                    measure=count_words, prompt="Shorter, please.",
                                    fallback=fact_listing_summariser, target=20,
                                    max_messages=8, summary_cap=10, system="Be kind.")
        restored = restore(other, store, "s")
        assert (restored.summary, restored.turns) == (saved.summary, saved.turns)


def test_window_and_recall_settings_are_checked_too():
    from kit.memory import RecallMemory
    with TranscriptStore() as store:
        window = attach_store(SlidingWindow(4, measure=count_words), store, "w")
        recall = attach_store(RecallMemory(200, count_words, recent=20), store, "r")
        for role, text in TURNS[:6]:
            window.add(role, text)
            recall.add(role, text)
        with pytest.raises(StoreError, match="max_messages=4.*max_messages=3"):
            restore(SlidingWindow(3, measure=count_words), store, "w")
        with pytest.raises(StoreError, match="recent=20.*recent=30"):
            restore(RecallMemory(200, count_words, recent=30), store, "r")
        assert restore(RecallMemory(200, count_words, recent=20, reserve=10), store, "r").turns \
            == recall.turns


def test_a_state_saved_without_settings_still_restores():
    with TranscriptStore() as store:
        saved = saved_summary_session(store)
        state = store.load_state("s")
        del state["settings"]                           # written before settings were saved
        store.save_state("s", state)
        restored = restore(SummaryMemory(fact_listing_summariser, budget=30, keep_recent=2,
                                         measure=count_words), store, "s")
        assert restored.summary == saved.summary


# -- break-it: inputs that used to poison the transcript or the restore ------------------
@pytest.mark.parametrize("field", ["content", "speaker", "when"])
def test_text_that_is_not_utf8_is_refused_before_it_can_block_the_transcript(field):
    bad = "x\ud800y"                                    # a lone surrogate: no UTF-8 exists
    with TranscriptStore() as store:
        memory = attach_store(FullHistory(measure=count_words), store, "s")
        memory.add("user", "first")
        kwargs = {"content": "hi", "speaker": None, "when": None, field: bad}
        with pytest.raises(ValueError, match=rf"{field} is not valid Unicode.*position 1.*got 'x\\ud800y'"):
            memory.add("user", kwargs["content"], speaker=kwargs["speaker"],
                       when=kwargs["when"])
        assert memory.added == 1 and len(memory.turns) == 1
        memory.add("assistant", "second")               # the transcript goes on
        assert memory.link.unsaved == [] and store.count("s") == 2
        assert restore(FullHistory(measure=count_words), store, "s").turns == memory.turns


GOOD_STATE = {"memory": "summary memory", "unit": "words", "added": 2, "turns": [[1, 2]],
              "summary": "", "summary_tokens": 0, "compactions": 0, "structured": None}


@pytest.mark.parametrize("change, text", [
    ({"added": "2"}, "added must be an int >= 0, got '2'"),
    ({"added": True}, "added must be an int >= 0, got True"),
    ({"added": -1}, "added must be an int >= 0, got -1"),
    ({"turns": "1-2"}, r"turns must be a list of \[first, last\] runs"),
    ({"turns": [[1]]}, r"turns must be .*got \[\[1\]\]"),
    ({"turns": [[2, 1]]}, r"turns must be .*ascending.*within 1\.\.2"),
    ({"turns": [[1, 10 ** 12]]}, r"turns must be .*within 1\.\.2"),
    ({"turns": [[1, 2], [2, 2]]}, r"turns must be .*ascending"),
    ({"memory": None}, "memory must be a str, got None"),
    ({"summary": 5}, "summary must be a str, got 5"),
    ({"summary_tokens": "x"}, "summary_tokens must be an int >= 0, got 'x'"),
    ({"compactions": -3}, "compactions must be an int >= 0, got -3"),
    ({"structured": {"summary": "s", "extra": 1}}, "structured.*extra"),
    ({"structured": [1]}, r"structured must be a dict or None, got \[1\]"),
    ({"added_at": {"1": "noon"}}, "added_at must map message numbers to seconds"),
])
def test_a_malformed_saved_state_is_a_store_error_naming_the_field(change, text):
    with TranscriptStore() as store:
        store.append("s", msg(1))
        store.append("s", msg(2, "assistant"))
        store.save_state("s", {**GOOD_STATE, **change})
        fresh = MEMORIES["summary memory"]()
        with pytest.raises(StoreError, match=f"session 's' in ':memory:'.*{text}"):
            restore(fresh, store, "s")
        assert (fresh.added, fresh.turns, fresh.link, fresh.summary) == (0, [], None, "")
        store.save_state("s", GOOD_STATE)               # the same store, a good state: fine
        assert restore(fresh, store, "s").added == 2


@pytest.mark.parametrize("raw", ["{not json", "[]", "null", "5", '"state"'])
def test_saved_state_that_is_not_a_json_object_is_a_store_error(raw):
    with TranscriptStore() as store:
        store.append("s", msg(1))
        with store._lock, store._db() as db:
            db.execute("INSERT INTO session_state VALUES ('s', ?, 0)", (raw,))
        with pytest.raises(StoreError, match="session 's' in ':memory:'.*saved state"):
            store.load_state("s")
        fresh = FullHistory()
        with pytest.raises(StoreError, match="session 's'"):
            restore(fresh, store, "s")
        assert fresh.link is None and fresh.added == 0


def test_a_huge_damaged_run_is_reported_without_expanding_it():
    with TranscriptStore() as store:
        store.append("s", msg(1))
        store.append("s", msg(2, "assistant"))
        store.save_state("s", {**GOOD_STATE, "added": 10 ** 12, "turns": [[1, 10 ** 12]]})
        with pytest.raises(StoreError, match=r"lacks verbatim message\(s\) \[3, 4, 5, 6, 7, 8, "
                                             r"9, 10, 11, 12, '\.\.\.'\]"):
            restore(MEMORIES["summary memory"](), store, "s")


@pytest.mark.parametrize("message, error, text", [
    (Message("user", None, 1, 1), TypeError, "content must be a str, got None"),
    (Message("user", "hi", "many", 1), TypeError, "tokens must be an int >= 0, got 'many'"),
    (Message("user", "hi", -2, 1), ValueError, "tokens must be an int >= 0, got -2"),
    (Message("user", "hi", 1, True), TypeError, "number must be an int, got True"),
    (Message("user", "hi", 1, 2 ** 70), ValueError, "number must be < 2\\*\\*63"),
    (Message("user", "hi", 1, 1, None), TypeError, "speaker must be a str, got None"),
    (Message("user", "hi", 1, 1, "", 5), TypeError, "when must be a str, got 5"),
])
def test_a_malformed_message_is_refused_naming_the_field_not_called_a_duplicate(
        message, error, text):
    with TranscriptStore() as store:
        with pytest.raises(error, match=text):
            store.append("s", message)
        assert store.count("s") == 0
        store.append("s", msg(1))                       # a duplicate is still one
        with pytest.raises(ValueError, match="already has message 1"):
            store.append("s", msg(1))


def test_a_store_meta_table_without_the_other_tables_is_refused_at_open(tmp_path):
    half = tmp_path / "half.db"
    with sqlite3.connect(half) as raw:
        raw.execute("CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        raw.execute("INSERT INTO store_meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    raw.close()
    with pytest.raises(StoreError, match="half.db.*lacks the table.*messages, session_state"):
        TranscriptStore(half)


def test_restore_refuses_a_session_measured_with_another_measure_of_the_same_unit():
    from kit.tokens import approx_tokens
    with TranscriptStore() as store:
        saved = attach_store(TokenWindow(60, approx_tokens), store, "s")
        for role, text in TURNS[:4]:
            saved.add(role, text)
        assert store.load_state("s")["measure"] == "approx_tokens"
        fresh = TokenWindow(60)                                  # cl100k_tokens, also "tokens"
        with pytest.raises(StoreError, match="measured with 'approx_tokens'; this memory "
                                             "measures with 'cl100k_tokens'"):
            restore(fresh, store, "s")
        assert (fresh.added, fresh.turns, fresh.link) == (0, [], None)
        assert restore(TokenWindow(60, approx_tokens), store, "s").turns == saved.turns
        state = store.load_state("s")
        del state["measure"]                                     # saved by an older kit
        store.save_state("s", state)
        assert restore(TokenWindow(60), store, "s").added == 4
