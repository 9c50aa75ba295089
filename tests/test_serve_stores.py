"""The service's stores: lease, fencing token, fenced commit, snapshot, on SQLite and on
a real Redis server (the `redis_url` fixture starts one; no mock)."""
import json
import time

import pytest

pytest.importorskip("redis", reason="the serve extra is not installed: pip install -e '.[dev]'")

from kit.messages import Message
from kit.serve.redis_store import RedisSessionStore
from kit.serve.sqlite_store import SQLiteSessionStore
from kit.serve.backends import open_store
from kit.serve.stores import EVENTS_KEPT, LeaseLost, TurnRecord
from kit.store import StoreError


class Clock:
    """A clock the test moves (seconds)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", "redis"])
def store(request, make_store):
    """A fresh store of each kind; ``store.expire(lease)`` makes a lease run out."""
    if request.param == "sqlite":
        clock = Clock()
        made = make_store("sqlite", clock=clock)
        made.expire = lambda lease: setattr(clock, "now", clock.now + lease.ttl + 0.001)
    else:
        made = make_store("redis")
        made.expire = lambda lease: time.sleep(lease.ttl + 0.05)
    return made


def ttl(store) -> float:
    """A lease long enough never to expire by itself in a test, unless the test says so:
    SQLite's clock only moves when told; on Redis a short one is waited out."""
    return 60.0 if store.kind == "sqlite" else 0.3


def msg(number: int, role: str = "user") -> Message:
    return Message(role, f"text {number}", 2, number)


def test_a_lease_is_exclusive_and_its_token_grows_with_every_lease(store):
    first = store.acquire("alice", 60)
    assert (first.session_id, first.token, first.ttl) == ("alice", 1, 60.0)
    assert store.acquire("alice", 60) is None             # held: nobody else gets it
    assert store.holder("alice") == 1
    assert store.acquire("bob", 60).token == 1            # per session
    assert store.release(first) is True
    assert store.holder("alice") is None
    assert store.acquire("alice", 60).token == 2          # the counter survives a release


def test_an_expired_lease_goes_to_the_next_worker_with_the_next_token(store):
    old = store.acquire("alice", ttl(store))
    store.expire(old)
    assert store.holder("alice") is None
    new = store.acquire("alice", 60)
    assert new.token == old.token + 1
    with pytest.raises(LeaseLost, match="'alice'.*no longer held"):
        store.renew(old)
    assert store.release(old) is False                    # a stale holder releases nothing
    assert store.holder("alice") == new.token


def test_a_fenced_commit_writes_the_whole_turn(store):
    lease = store.acquire("alice", 60)
    state = {"memory": "summary memory", "added": 2, "turns": [[1, 2]]}
    record = TurnRecord(1, 1, 2, lease.token, 0, "A")
    store.commit("alice", lease, [msg(1), msg(2, "assistant")], state,
                 [{"kind": "turn", "turn": 1}], record)
    snap = store.load("alice")
    assert (snap.state, snap.messages, snap.last, snap.turns) == (
        state, (msg(1), msg(2, "assistant")), 2, 1)
    assert store.events("alice") == [{"kind": "turn", "turn": 1}]
    [logged] = store.turn_log("alice")
    assert (logged.turn, logged.first_number, logged.last_number, logged.token,
            logged.based_on, logged.worker) == (1, 1, 2, 1, 0, "A")
    assert logged.committed_at > 0
    assert store.transcript("alice") == [msg(1), msg(2, "assistant")]


def test_a_worker_that_lost_its_lease_cannot_write(store):
    state = {"memory": "summary memory", "added": 0, "turns": []}
    late = store.acquire("alice", ttl(store))
    store.expire(late)                                    # paused past its ttl ...
    with pytest.raises(LeaseLost):                        # ... expired, nobody took it: refused
        store.commit("alice", late, [msg(1)], state)
    now = store.acquire("alice", 60)                      # ... and now taken over
    with pytest.raises(LeaseLost, match="nothing was written"):
        store.commit("alice", late, [msg(1)], state, [{"kind": "turn"}],
                     TurnRecord(1, 1, 1, late.token, 0, "late"))
    snap = store.load("alice")
    assert (snap.state, snap.messages, snap.last, snap.turns) == (None, (), 0, 0)
    assert store.events("alice") == [] and store.turn_log("alice") == []
    store.commit("alice", now, [msg(1)], state)           # the current holder can
    assert store.load("alice").last == 1


def test_renew_keeps_a_lease_past_its_first_ttl(tmp_path):
    clock = Clock()
    with SQLiteSessionStore(tmp_path / "c.db", clock=clock) as store:
        lease = store.acquire("alice", 10)
        clock.now += 8
        store.renew(lease)
        clock.now += 8                                    # 16 s after it was taken
        assert store.holder("alice") == lease.token
        assert store.acquire("alice", 10) is None
        clock.now += 2.001                                # 10 s after the renewal
        assert store.holder("alice") is None


def test_expiry_is_exact_at_the_boundary(tmp_path):
    clock = Clock()
    with SQLiteSessionStore(tmp_path / "c.db", clock=clock) as store:
        lease = store.acquire("alice", 10)
        clock.now += 10                                   # expires_at == now: expired
        assert store.holder("alice") is None
        with pytest.raises(LeaseLost):
            store.commit("alice", lease, [], {})


def test_an_unfenced_commit_is_last_writer_wins(store):
    """What a service with only an in-process lock does: two workers that both loaded
    the session at turn 0 each write messages 1-2; the second overwrites the first."""
    state = {"memory": "summary memory", "added": 2, "turns": [[1, 2]]}
    for worker in ("A", "B"):
        store.commit("alice", None, [Message("user", f"question of {worker}", 3, 1),
                                     Message("assistant", f"reply to {worker}", 3, 2)],
                     state, [], TurnRecord(1, 1, 2, None, 0, worker))
    assert [m.content for m in store.transcript("alice")] == ["question of B", "reply to B"]
    assert [(r.turn, r.worker, r.token) for r in store.turn_log("alice")] == [(1, "B", None)]


def test_a_fenced_commit_refuses_a_message_number_already_stored(store):
    lease = store.acquire("alice", 60)
    store.commit("alice", lease, [msg(1)], {"added": 1})
    with pytest.raises(StoreError):
        store.commit("alice", lease, [msg(1)], {"added": 2})
    assert store.load("alice").state == {"added": 1}      # nothing of the second commit


def test_the_snapshot_starts_at_the_oldest_verbatim_message(store):
    lease = store.acquire("alice", 60)
    store.commit("alice", lease, [msg(n) for n in range(1, 9)],
                 {"added": 8, "turns": [[5, 8]], "summary": "..."})
    assert [m.number for m in store.load("alice").messages] == [5, 6, 7, 8]
    store.commit("alice", lease, [], {"added": 8, "turns": []})   # everything folded
    assert [m.number for m in store.load("alice").messages] == [8]  # the last, for restore
    assert store.load("nobody").state is None


def test_events_keep_the_newest(store):
    lease = store.acquire("alice", 60)
    store.commit("alice", lease, [], {}, [{"n": i} for i in range(EVENTS_KEPT + 5)])
    assert store.events("alice", 3) == [{"n": EVENTS_KEPT + 2}, {"n": EVENTS_KEPT + 3},
                                        {"n": EVENTS_KEPT + 4}]
    assert len(store.events("alice", 10_000)) == EVENTS_KEPT
    assert store.events("alice", 0) == []


def test_bad_input_names_the_value_and_writes_nothing(store):
    lease = store.acquire("alice", 60)
    other = store.acquire("bob", 60)
    with pytest.raises(ValueError, match="not a lease of session 'alice'"):
        store.commit("alice", other, [msg(1)], {})
    with pytest.raises(ValueError):
        store.commit("alice", lease, [msg(1)], {"x": float("nan")})
    with pytest.raises(TypeError, match="a trace event must be a dict"):
        store.commit("alice", lease, [msg(1)], {}, ["not a dict"])
    with pytest.raises(TypeError, match="messages must be Message"):
        store.commit("alice", lease, [("user", "hi")], {})
    with pytest.raises(TypeError, match="ttl must be a number of seconds"):
        store.acquire("alice", None)
    with pytest.raises(ValueError, match="ttl must be > 0"):
        store.acquire("carol", 0)
    assert store.load("alice").last == 0 and store.holder("carol") is None
    assert json.dumps(store.events("alice")) == "[]"


def test_open_store_reads_the_spec(tmp_path, redis_url):
    with open_store(f"sqlite:{tmp_path / 'a.db'}") as made:
        assert made.kind == "sqlite"
    with open_store(f"{redis_url}#mine") as made:
        assert (made.kind, made.prefix) == ("redis", "mine")
        assert made.ping()
    for bad in ("chat.db", "sqlite:", "postgres://x", "http://127.0.0.1"):
        with pytest.raises(ValueError, match="store must be 'sqlite:PATH' or a redis:// URL"):
            open_store(bad)
    with pytest.raises(TypeError):
        open_store(None)


def test_an_unreachable_redis_is_a_store_error_naming_the_url(tmp_path):
    store = RedisSessionStore(f"unix://{tmp_path}/none.sock")
    with pytest.raises(StoreError, match="none.sock.*taking the lease failed"):
        store.acquire("alice", 1)


def test_a_fenced_commit_must_continue_the_numbering(store):
    lease = store.acquire("alice", 60)
    store.commit("alice", lease, [msg(1), msg(2)], {"added": 2})
    for bad in ([msg(4)], [msg(3), msg(5)], [msg(2)]):
        with pytest.raises(StoreError, match="do not follow the stored ones"):
            store.commit("alice", lease, bad, {"added": 9})
    assert store.load("alice").state == {"added": 2} and store.load("alice").last == 2
    assert [m.number for m in store.transcript("alice")] == [1, 2]   # no part of them


def test_lease_arguments_and_limits_are_checked(store):
    for call in (store.release, store.renew):
        with pytest.raises(TypeError, match="lease must be a Lease"):
            call("alice")
    with pytest.raises(ValueError, match="at most 86400 seconds"):
        store.acquire("alice", 1e300)
    lease = store.acquire("alice", 60)
    store.commit("alice", lease, [], {}, [{"n": i} for i in range(3)])
    assert len(store.events("alice", 10 ** 30)) == 3


def test_a_url_password_never_shows(tmp_path):
    from kit.serve.redis_store import redact
    assert redact("redis://app:hunter2@host:6379/0") == "redis://app:***@host:6379/0"
    assert redact("redis://:pw@h/0?password=x&db=1") == "redis://:***@h/0?password=***&db=1"
    assert redact("unix:///tmp/r.sock") == "unix:///tmp/r.sock"
    store = RedisSessionStore(f"unix://user:hunter2@{tmp_path}/none.sock")
    with pytest.raises(StoreError) as error:
        store.acquire("alice", 1)
    assert "hunter2" not in str(error.value) and "hunter2" not in repr(store)


def test_a_session_stored_before_the_service_counts_its_turns(tmp_path):
    from kit.store import TranscriptStore
    with TranscriptStore(tmp_path / "old.db") as old:        # lesson 04's store, 2 turns
        for n in range(1, 5):
            old.append("alice", msg(n, "user" if n % 2 else "assistant"))
    with SQLiteSessionStore(tmp_path / "old.db") as store:
        snap = store.load("alice")
        assert (snap.turns, snap.last) == (2, 4)


def test_a_ticket_too_large_for_the_store_and_a_lease_with_a_bad_ttl_are_refused(tmp_path):
    from kit.serve import SQLiteSessionStore
    from kit.serve.stores import Lease
    with SQLiteSessionStore(tmp_path / "s.db") as store:
        with pytest.raises(TypeError, match="ticket must be an int >= 0"):
            store.acquire("z", 5, 10 ** 30)
        lease = store.acquire("z", 5)
        for ttl in (1e300, -1, 0, "x"):
            forged = Lease(lease.session_id, lease.token, ttl)
            with pytest.raises((TypeError, ValueError), match="the lease's ttl"):
                store.renew(forged)
        assert store.holder("z") == lease.token


def test_workers_opening_a_new_file_at_once_all_open_it(tmp_path):
    """Switching a new file to WAL needs it to itself and SQLite does not wait for that:
    four workers opening one new file at once (as `serve --workers 4` does) all open it."""
    import threading
    from kit.serve import SQLiteSessionStore
    for round_ in range(20):
        path, start, failed = tmp_path / f"c{round_}.db", threading.Barrier(4), []

        def open_it():
            start.wait()
            try:
                SQLiteSessionStore(path).close()
            except Exception as error:       # noqa: BLE001 (collected, then asserted)
                failed.append(error)
        threads = [threading.Thread(target=open_it) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not failed, failed
