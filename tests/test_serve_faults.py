"""The service under faults, in one process, on a real SQLite file and a real Redis: a
worker stopped holding the file's write lock (or stopped anywhere else), retried turns
with idempotency keys, Redis restarted with and without its append-only file, turns
waiting for one session, and slow request bodies. Stops and overlaps are made with
events and held locks, never left to timing; the few elapsed-time checks are upper
bounds far above what they check (a 0.3 s deadline against SQLite's 5 s timeout)."""
import asyncio
import json
import sqlite3
import threading
import time

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed: pip install -e '.[dev]'")
pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("redis", reason="the serve extra is not installed")

from kit.messages import Message
from kit.rag import BM25Retriever, Chatbot, QuotingModel, load_corpus
from kit.serve import ChatService, RedisSessionStore, SessionBusy, SQLiteSessionStore
from kit.serve.app import create_app
from kit.serve.service import KeyConflict
from kit.serve.stores import KeyRecord, LeaseLost, StoreBusy, digest

QUESTIONS = ["How long do refunds take?", "and for COD?", "Can I change my delivery address?",
             "What about returns of opened items?", "Do you ship abroad?"]


class Clock:
    """A store clock the test moves by hand (seconds)."""
    now = 1000.0

    def __call__(self) -> float:
        return self.now


class Counted:
    """The quoting stub model, counting its answer calls; ``gate``: if given, an answer
    call waits for it (``inside`` is set first): a worker stopped inside its model call."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.calls, self.gate, self.inside = 0, gate, threading.Event()

    def __call__(self, system: str, user: str) -> str:
        if "Context:" in user:
            self.calls += 1
            if self.gate is not None:
                self.inside.set()
                assert self.gate.wait(10)
        return QuotingModel()(system, user)


def chatbot(model=None) -> Chatbot:
    return Chatbot(BM25Retriever(load_corpus()), model or QuotingModel())


def client(app):
    return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://kit.test",
                             timeout=30)


def post(http, session: str, text: str, key: str | None = None):
    headers = {} if key is None else {"Idempotency-Key": key}
    return http.post(f"/sessions/{session}/messages", json={"text": text}, headers=headers)


def questions_of(store, session: str) -> list[str]:
    return [m.content for m in store.transcript(session) if m.role == "user"]


def write_locked(path) -> sqlite3.Connection:
    """Another connection holding the file's write lock: a worker stopped inside its
    commit. Roll it back to let go."""
    stopped = sqlite3.connect(path, isolation_level=None)
    stopped.execute("BEGIN IMMEDIATE")
    return stopped


# -- SQLite: one writer, readers never wait -------------------------------------------------
def test_a_held_write_lock_stops_no_read_and_no_lease_check(tmp_path):
    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        assert store.journal == "wal"
        lease = store.acquire("alice", 60)
        store.commit("alice", lease, [Message("user", "hi", 1, 1)], {"added": 1})
        stopped = write_locked(tmp_path / "chat.db")
        try:
            with store.until(time.monotonic() + 0.3):
                assert store.holder("alice") == lease.token        # reads: no lock needed
                assert store.acquire("alice", 60) is None          # held: seen by a read
                assert store.load("alice").last == 1
                assert store.key_record("alice", "k1") is None
                began = time.monotonic()
                with pytest.raises(StoreBusy, match="'bob'.*write lock"):
                    store.acquire("bob", 60)                       # a write: waits, then stops
                assert time.monotonic() - began < 2.5              # at the deadline, not at 5 s
        finally:
            stopped.rollback()
            stopped.close()
        assert store.acquire("bob", 60).token == 1                 # nothing was written


def test_each_thread_has_its_connection_and_an_ended_threads_goes(tmp_path):
    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        for _ in range(5):                         # five turns' lease renewers, one by one
            thread = threading.Thread(target=store.holder, args=("alice",))
            thread.start()
            thread.join()
            assert [t for t, _ in store._conns] == [thread]   # the ended ones' went
        store.holder("alice")
        assert [t for t, _ in store._conns] == [threading.current_thread()]


def test_the_services_busy_timeout_is_shorter_than_its_wait(tmp_path):
    from kit.serve.app import ENV, build_service
    for wait, timeout in (("2", 1.0), ("30", 5.0)):
        service, _ = build_service({ENV + "STORE": f"sqlite:{tmp_path / 'c.db'}",
                                    ENV + "WAIT": wait})
        assert (service.wait, service.store.timeout) == (float(wait), timeout)
        service.store.close()


def test_a_worker_stopped_outside_its_commit_blocks_nobody(tmp_path):
    """Worker A is stopped inside its model call (holding alice's lease) and another
    connection inside a read: worker B still serves every other session at once."""
    path, model = tmp_path / "chat.db", Counted(threading.Event())
    with SQLiteSessionStore(path) as store_a, SQLiteSessionStore(path) as store_b:
        a = ChatService(store_a, chatbot(model), worker="A")
        b = ChatService(store_b, chatbot(), worker="B", wait=0.3)
        b.ask("alice", QUESTIONS[0])
        stalled = threading.Thread(target=a.ask, args=("alice", QUESTIONS[1]))
        stalled.start()
        assert model.inside.wait(10)
        reader = sqlite3.connect(path, isolation_level=None)
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM messages").fetchone()   # stopped inside a read
        try:
            for session in ("bob", "carol"):
                assert b.ask(session, QUESTIONS[2]).turn == 1
            with pytest.raises(SessionBusy):                 # only alice waits: A has her lease
                b.ask("alice", QUESTIONS[2])
        finally:
            reader.rollback()
            reader.close()
            model.gate.set()
            stalled.join(10)
        assert [(r.turn, r.worker) for r in store_b.turn_log("alice")] == [(1, "B"), (2, "A")]


def test_turns_that_cannot_get_the_file_are_503_at_wait(tmp_path):
    """A worker stopped inside its commit holds SQLite's one write lock: every turn that
    needs to write gets its 503 at --wait after it came (0.3 s here), not after the
    store's 5 s timeout once per queued request."""
    path = tmp_path / "chat.db"
    with SQLiteSessionStore(path) as store:
        app = create_app(ChatService(store, chatbot(), wait=0.3), threads=2)
        stopped = write_locked(path)

        async def go():
            async with client(app) as http:
                began = time.monotonic()
                replies = await asyncio.gather(*(post(http, f"s{i}", QUESTIONS[0])
                                                 for i in range(6)))
                return replies, time.monotonic() - began
        try:
            replies, took = asyncio.run(go())
        finally:
            stopped.rollback()
            stopped.close()
        assert [r.status_code for r in replies] == [503] * 6
        assert all("busy" in r.json()["error"] for r in replies)
        assert took < 3.0                                  # all at their deadline, not in a row
        assert store.sessions() == []                      # nothing was written

        async def after():
            async with client(app) as http:
                return await post(http, "s0", QUESTIONS[0])
        assert asyncio.run(after()).status_code == 200


# -- idempotency keys --------------------------------------------------------------------
@pytest.fixture
def keyed(tmp_path):
    """An app over a SQLite store whose model counts its calls."""
    model = Counted()
    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        service = ChatService(store, chatbot(model), wait=2)
        yield create_app(service), store, model


def test_a_retried_key_replays_the_first_reply_and_runs_no_second_turn(keyed):
    app, store, model = keyed

    async def go():
        async with client(app) as http:
            first = await post(http, "alice", QUESTIONS[0], key="k-1")
            again = await post(http, "alice", QUESTIONS[0], key="k-1")
            other = await post(http, "bob", QUESTIONS[0], key="k-1")    # keys are per session
            fresh = await post(http, "alice", QUESTIONS[0], key="k-2")
            return first, again, other, fresh
    first, again, other, fresh = asyncio.run(go())
    assert first.status_code == again.status_code == 200
    assert again.text == first.text and again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert model.calls == 3                              # k-1 twice in alice: one turn
    assert [r.turn for r in store.turn_log("alice")] == [1, 2]
    assert questions_of(store, "alice") == [QUESTIONS[0]] * 2
    assert json.loads(fresh.text.rsplit("data: ", 1)[1])["turn"] == 2
    assert json.loads(other.text.rsplit("data: ", 1)[1])["turn"] == 1


def test_a_key_sent_with_another_text_is_a_409_naming_it(keyed):
    app, store, model = keyed

    async def go():
        async with client(app) as http:
            await post(http, "alice", QUESTIONS[0], key="k-1")
            return (await post(http, "alice", QUESTIONS[1], key="k-1"),
                    await post(http, "alice", QUESTIONS[1], key="bad key!"))
    reused, bad = asyncio.run(go())
    assert reused.status_code == 409 and "'k-1'" in reused.json()["error"]
    assert "another text" in reused.json()["error"]
    assert bad.status_code == 400 and "Idempotency-Key" in bad.json()["error"]
    assert model.calls == 1 and questions_of(store, "alice") == [QUESTIONS[0]]


def test_a_retry_while_the_first_runs_is_still_running_then_the_reply(tmp_path):
    model = Counted(threading.Event())
    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        app = create_app(ChatService(store, chatbot(model), wait=5))

        async def go():
            async with client(app) as http:
                first = asyncio.create_task(post(http, "alice", QUESTIONS[0], key="k-1"))
                await asyncio.to_thread(model.inside.wait, 10)
                running = await post(http, "alice", QUESTIONS[0], key="k-1")
                model.gate.set()
                first = await first
                return first, running, await post(http, "alice", QUESTIONS[0], key="k-1")
        first, running, later = asyncio.run(go())
    assert running.status_code == 409 and "still running" in running.json()["error"]
    assert running.headers["retry-after"] == "1"
    assert later.status_code == 200 and later.text == first.text
    assert model.calls == 1


def test_a_key_whose_turn_died_before_its_commit_runs_the_turn(tmp_path):
    """The first request claimed the key, then its worker died (its lease expired): the
    retry finds no outcome and runs the turn, once."""
    clock = Clock()
    with SQLiteSessionStore(tmp_path / "chat.db", clock=clock) as store:
        dead = store.acquire("alice", 10)
        assert store.claim(dead, "k-1", digest(QUESTIONS[0])) is None
        service = ChatService(store, chatbot(), ttl=10, wait=0.2)
        with pytest.raises(KeyConflict, match="still running"):
            service.replay("alice", "k-1", QUESTIONS[0])
        clock.now += 11                                      # the dead worker's lease ends
        assert service.replay("alice", "k-1", QUESTIONS[0]) is None
        turn = service.begin("alice", QUESTIONS[0], key="k-1")
        service.finish(turn)
        assert not turn.replayed and turn.turn == 1
        assert service.replay("alice", "k-1", QUESTIONS[0]) == turn.outcome
        assert store.key_record("alice", "k-1").token == dead.token + 1


@pytest.fixture(params=["sqlite", "redis"])
def store(request, make_store):
    return make_store(request.param, "faults")


def test_keys_are_kept_per_session_for_a_bounded_count(store):
    store.keys_kept = 3
    for n in range(1, 6):
        lease = store.acquire("alice", 60)
        outcome = {"turn": n, "answer": f"a{n}", "refused": False, "guardrail": "ok", "cited": []}
        store.commit("alice", lease, [Message("user", f"q{n}", 1, n)], {"added": n},
                     key=KeyRecord(f"k{n}", digest(f"q{n}"), lease.token, n, outcome))
        store.release(lease)
    kept = [n for n in range(1, 6) if store.key_record("alice", f"k{n}") is not None]
    assert kept == [3, 4, 5]
    assert store.key_record("alice", "k5").outcome["answer"] == "a5"
    lease = store.acquire("alice", 60)
    assert store.claim(lease, "k5", digest("q5")).turn == 5       # committed: returned
    assert store.claim(lease, "k6", digest("q6")) is None         # new: claimed
    store.release(lease)
    with pytest.raises(LeaseLost):
        store.claim(lease, "k7", digest("q7"))


def test_sqlite_keys_go_after_their_time(tmp_path):
    clock = Clock()
    with SQLiteSessionStore(tmp_path / "chat.db", clock=clock) as store:
        for n, step in ((1, 0), (2, store.key_ttl + 1)):
            clock.now += step
            lease = store.acquire("alice", 60)
            outcome = {"turn": n, "answer": "a", "refused": False, "guardrail": "", "cited": []}
            store.commit("alice", lease, [Message("user", "q", 1, n)], {"added": n},
                         key=KeyRecord(f"k{n}", digest("q"), lease.token, n, outcome))
            store.release(lease)
        assert store.key_record("alice", "k1") is None and store.key_record("alice", "k2")


# -- fair waiting ------------------------------------------------------------------------
def test_turns_waiting_for_a_session_are_served_in_arrival_order_across_workers(tmp_path):
    """Turn 1 holds alice's lease inside its model call; turns 2-5 arrive one after the
    other, alternately at two workers (two apps on one file), and queue: once turn 1 is
    done they are served in arrival order."""
    model = Counted(threading.Event())
    path = tmp_path / "chat.db"
    with SQLiteSessionStore(path) as store_a, SQLiteSessionStore(path) as store_b:
        apps = [create_app(ChatService(store, chatbot(model), wait=20))
                for store in (store_a, store_b)]

        async def go():
            async with client(apps[0]) as a, client(apps[1]) as b:
                tasks = [asyncio.create_task(post(a, "alice", QUESTIONS[0]))]
                await asyncio.to_thread(model.inside.wait, 10)     # turn 1 holds the lease
                for i in range(1, 5):
                    tasks.append(asyncio.create_task(post((a, b)[i % 2], "alice", QUESTIONS[i])))
                    app = apps[i % 2]
                    queued = app.state.waiting("alice")
                    while app.state.waiting("alice") == queued:     # its ticket is taken
                        await asyncio.sleep(0.005)
                model.gate.set()
                return await asyncio.gather(*tasks)
        replies = asyncio.run(go())
        assert [r.status_code for r in replies] == [200] * 5
        assert questions_of(store_a, "alice") == QUESTIONS             # arrival order
        assert [app.state.waiting("alice") for app in apps] == [0, 0]


def test_the_lease_goes_to_the_oldest_live_ticket(store):
    store.queue_ttl = 0.2
    first, second, third = (store.enqueue("alice") for _ in range(3))
    assert first < second < third
    assert store.acquire("alice", 60, second) is None           # the first is older
    lease = store.acquire("alice", 60, first)
    assert lease is not None and store.acquire("alice", 60, second) is None   # held
    store.release(lease)
    store.dequeue("alice", second)                              # the second gave up
    assert store.acquire("alice", 60, third) is not None
    store.enqueue("bob")                                        # a waiter that died
    late = store.enqueue("bob")
    assert store.acquire("bob", 60, late) is None
    if store.kind == "sqlite":
        store.clock = lambda: time.time() + 0.3
    else:
        time.sleep(0.3)                                         # Redis's clock moves
    assert store.acquire("bob", 60, late) is not None           # its ticket expired
    assert store.acquire("carol", 60) is not None               # no ticket: no queue
    waiter = store.enqueue("dave")
    assert store.acquire("dave", 60, 0) is None                 # a first try: one is queued
    store.dequeue("dave", waiter)
    assert store.acquire("dave", 60, 0) is not None             # nobody queued: taken


# -- slow clients ------------------------------------------------------------------------
def test_a_body_that_does_not_arrive_in_time_is_a_408(keyed):
    app, store, model = keyed
    app = create_app(ChatService(store, chatbot(model)), body_timeout=0.2)
    stalled = asyncio.Event()

    async def body():
        yield b'{"text": "How long'
        await stalled.wait()                      # the rest never comes
        yield b'"}'

    async def go():
        async with client(app) as http:
            try:
                return await http.post("/sessions/alice/messages", content=body(), headers={
                    "content-type": "application/json", "content-length": "400"})
            finally:
                stalled.set()
    response = asyncio.run(go())
    assert response.status_code == 408 and "0.2 s" in response.json()["error"]
    assert model.calls == 0 and store.sessions() == []


# -- Redis: what a restart keeps ------------------------------------------------------------
@pytest.fixture
def redis_process(tmp_path):
    """A redis-server this test may kill and start again on its files."""
    from kit.serve.redis_server import RedisProcess, RedisUnavailable
    made = []

    def start(persist: bool):
        try:
            server = RedisProcess(str(tmp_path), persist)
        except RedisUnavailable as exc:
            pytest.skip(str(exc))
        server.start()
        made.append(server)
        return server
    yield start
    for server in made:
        server.stop()


def test_a_redis_restart_with_its_append_only_file_loses_no_acknowledged_turn(redis_process):
    server = redis_process(persist=True)
    with RedisSessionStore(server.url, prefix="t") as store:
        service = ChatService(store, chatbot())
        for q in QUESTIONS[:3]:
            service.ask("alice", q)
        before = store.acquire("bob", 60)                # a lease from before the restart
        server.kill()                                     # a crash: no shutdown save
        server.start()
        assert questions_of(store, "alice") == QUESTIONS[:3]          # every turn kept
        assert [r.turn for r in store.turn_log("alice")] == [1, 2, 3]
        assert store.holder("bob") == before.token                    # the lock survived too,
        with pytest.raises(LeaseLost):                                # but not its run
            store.commit("bob", before, [Message("user", "late", 1, 1)], {"added": 1})
        assert service.ask("alice", QUESTIONS[3]).turn == 4          # the session goes on
        assert store.turn_log("alice")[-1].token == 4                 # tokens keep growing
        assert store.sessions() == ["alice"]


def test_without_persistence_a_restart_forgets_and_an_old_lease_cannot_commit(redis_process):
    server = redis_process(persist=False)
    with RedisSessionStore(server.url, prefix="t") as store:
        old = store.acquire("alice", 60)
        server.kill()
        server.start()
        assert store.load("alice").last == 0 and store.holder("alice") is None
        new = store.acquire("alice", 60)
        assert new.token == old.token == 1                # the counter started again ...
        with pytest.raises(LeaseLost):                    # ... but the old lease is refused
            store.commit("alice", old, [Message("user", "late", 1, 1)], {"added": 1})
        store.commit("alice", new, [Message("user", "now", 1, 1)], {"added": 1})
        assert [m.content for m in store.transcript("alice")] == ["now"]


def test_serve_refuses_a_redis_that_keeps_nothing_on_disk_unless_told(redis_process, capsys,
                                                                       redis_url):
    from kit.__main__ import main
    from kit.serve.app import ENV, build_service, durability
    server = redis_process(persist=False)
    assert main(["serve", "--store", server.url]) == 2            # refused before serving
    err = capsys.readouterr().err
    assert "keeps nothing on disk" in err and "--accept-data-loss" in err
    service, options = build_service({ENV + "STORE": server.url, ENV + "ACCEPT_DATA_LOSS": "1"})
    try:
        assert "loses every session" in options["warning"]
        app = create_app(service, warning=options["warning"])

        async def health():
            async with client(app) as http:
                return await http.get("/health")
        answer = asyncio.run(health())
        assert answer.status_code == 200 and "loses every session" in answer.json()["warning"]
    finally:
        service.store.close()
    with RedisSessionStore(redis_url, prefix="t") as store:       # the tests' own Redis
        assert durability(store) is None and store.persistence()["aof"] is True
    server.kill()
    evicting = redis_process(persist=True)
    with RedisSessionStore(evicting.url, prefix="t") as store:
        import redis
        with redis.Redis.from_url(evicting.url) as raw:
            raw.config_set("maxmemory", "100mb")
            raw.config_set("maxmemory-policy", "allkeys-lru")
        assert "maxmemory-policy allkeys-lru" in durability(store)


def test_health_says_not_ok_when_the_store_does_not_answer(tmp_path):
    app = create_app(ChatService(RedisSessionStore(f"unix://{tmp_path}/gone.sock"), chatbot()))

    async def health():
        async with client(app) as http:
            return await http.get("/health")
    answer = asyncio.run(health())
    assert answer.status_code == 503 and answer.json()["ok"] is False
    assert "gone.sock" not in answer.text


def test_serve_passes_its_client_bounds_to_uvicorn(tmp_path, monkeypatch):
    import os

    import uvicorn

    from kit.__main__ import main
    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: seen.update(kwargs))
    monkeypatch.setattr(os, "environ", dict(os.environ))   # what serve exports stays here
    assert main(["serve", "--store", f"sqlite:{tmp_path / 'c.db'}", "--limit-concurrency",
                 "40", "--header-timeout", "3", "--body-timeout", "4"]) == 0
    assert seen["limit_concurrency"] == 40
    assert seen["http"] == "kit.serve.limits:BoundedH11Protocol"
    assert os.environ["KIT_SERVE_HEADER_TIMEOUT"] == "3.0"
    assert os.environ["KIT_SERVE_BODY_TIMEOUT"] == "4.0"


def test_the_fault_benchmark_refuses_one_worker(capsys, monkeypatch):
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "serve_faults.py"
    monkeypatch.syspath_prepend(str(path.parent))     # as when run: it imports serve_load
    spec = importlib.util.spec_from_file_location("serve_faults", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SystemExit) as done:
        module.parse_args(["--workers", "1"])
    assert done.value.code == 2 and "--workers must be >= 2" in capsys.readouterr().err
    assert module.parse_args([]).kill_every == 2.0
