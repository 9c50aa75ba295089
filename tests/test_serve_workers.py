"""Several worker processes over one store, SQLite and a real Redis: order kept under
concurrent load, a worker SIGKILLed mid-turn, and the in-process lock failing.

Each worker is its own `python -m kit serve` process on its own port
(:func:`kit.serve.workers.start_workers`); the clients spread their requests over them
with no sticky sessions, so consecutive turns of one session land on different workers.
Overlaps are forced with the slow stub model (`--model-delay`), not left to timing.
"""
import asyncio
import json
import time

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed: pip install -e '.[dev]'")
pytest.importorskip("uvicorn", reason="the serve extra is not installed")

from kit.serve.backends import open_store
from kit.serve.workers import start_workers

QUESTIONS = ["How long do refunds take?", "and for COD?", "Can I change my delivery address?",
             "What about returns of opened items?", "Do you ship abroad?"]


@pytest.fixture(params=["sqlite", "redis"])
def spec(request, tmp_path):
    """A --store spec of each kind, fresh for the test."""
    if request.param == "sqlite":
        return f"sqlite:{tmp_path / 'chat.db'}"
    return f"{request.getfixturevalue('redis_url')}#{tmp_path.name}"


def done_event(text: str) -> dict:
    """The data of the stream's `done` event."""
    block = text.rstrip().rsplit("\n\n", 1)[-1]
    assert block.startswith("event: done"), text[-300:]
    return json.loads(block.split("data: ", 1)[1])


async def post(client, url: str, session: str, text: str) -> dict:
    response = await client.post(f"{url}/sessions/{session}/messages", json={"text": text})
    assert response.status_code == 200, response.text
    return done_event(response.text)


def wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.02)


def questions_of(store, session: str) -> list[str]:
    return [m.content for m in store.transcript(session) if m.role == "user"]


def test_concurrent_clients_over_four_workers_keep_every_session_in_order(spec):
    sessions, turns = 12, 4
    with start_workers(4, spec, "--model-delay", "0.01") as workers:
        async def client(s: int) -> list[int]:
            async with httpx.AsyncClient(timeout=60) as http:
                got = []
                for t in range(turns):                   # the next turn after the reply
                    url = workers.urls[(s + t) % len(workers.urls)]
                    got.append((await post(http, url, f"s{s}", f"{QUESTIONS[t]} ({s}.{t})"))
                               ["turn"])
                return got

        async def main():
            return await asyncio.gather(*(client(s) for s in range(sessions)))
        replies = asyncio.run(main())
    assert replies == [[1, 2, 3, 4]] * sessions
    with open_store(spec) as store:
        for s in range(sessions):
            log = store.turn_log(f"s{s}")
            assert [(r.turn, r.based_on, r.first_number, r.last_number) for r in log] == \
                [(t, t - 1, 2 * t - 1, 2 * t) for t in range(1, turns + 1)]
            assert [r.token for r in log] == sorted({r.token for r in log})   # growing
            assert len({r.worker for r in log}) == 4        # every turn on another worker
            assert questions_of(store, f"s{s}") == \
                [f"{QUESTIONS[t]} ({s}.{t})" for t in range(turns)]
            assert [m.number for m in store.transcript(f"s{s}")] == list(range(1, 2 * turns + 1))
            assert store.holder(f"s{s}") is None


def test_a_worker_killed_before_its_commit_leaves_no_trace_and_its_lease_expires(spec):
    # a 4 s lease, renewed every 1.3 s: the dead worker's lease is still there when it is
    # read just after the kill (with a 1 s lease a slow read found it expired already)
    with start_workers(2, spec, "--model-delay", "1.5", "--lease", "4") as workers:
        with open_store(spec) as store:
            async def first_turn():
                async with httpx.AsyncClient(timeout=60) as http:
                    return await post(http, workers.urls[1], "alice", QUESTIONS[0])
            asyncio.run(first_turn())

            async def doomed():
                async with httpx.AsyncClient(timeout=60) as http:
                    with pytest.raises(httpx.HTTPError):
                        await http.post(f"{workers.urls[0]}/sessions/alice/messages",
                                        json={"text": QUESTIONS[1]})

            # the first turn's worker gives the lease back after its compaction: wait for
            # that, so the lease seen next is worker 0's (not the first turn's, still held)
            wait_until(lambda: store.holder("alice") is None, 10, "the first turn's release")

            async def kill_mid_turn():
                task = asyncio.create_task(doomed())
                await asyncio.to_thread(wait_until, lambda: store.holder("alice") is not None,
                                        10, "worker 0 taking the lease")
                workers.kill(0)                          # inside the model call
                await task
            asyncio.run(kill_mid_turn())
            assert store.holder("alice") is not None      # the dead worker's lease ...
            wait_until(lambda: store.holder("alice") is None, 10, "the lease expiring")
            assert questions_of(store, "alice") == [QUESTIONS[0]]   # the turn is absent
            assert len(store.turn_log("alice")) == 1

            async def go_on():
                async with httpx.AsyncClient(timeout=60) as http:
                    return await post(http, workers.urls[1], "alice", QUESTIONS[2])
            assert asyncio.run(go_on())["turn"] == 2      # the session goes on
            assert questions_of(store, "alice") == [QUESTIONS[0], QUESTIONS[2]]
            assert [r.based_on for r in store.turn_log("alice")] == [0, 1]


def test_a_worker_killed_during_compaction_leaves_its_turn_whole(spec):
    # a 4 s lease, renewed every 1.3 s: a busy machine that delays a renewal by a second
    # does not lose the turn's lease (a 1 s lease did: 409 under load)
    options = ("--summary-delay", "2", "--budget", "60", "--keep-recent", "4", "--lease", "4")
    with start_workers(2, spec, *options) as workers:
        with open_store(spec) as store:
            async def turns():
                async with httpx.AsyncClient(timeout=60) as http:
                    for q in QUESTIONS[:2]:
                        await post(http, workers.urls[1], "alice", q)
                    # turn 3 makes compaction due: the reply is done, then it compacts
                    done = await post(http, workers.urls[0], "alice", QUESTIONS[2])
                    workers.kill(0)                      # inside the summariser call
                    return done
            assert asyncio.run(turns())["turn"] == 3
            wait_until(lambda: store.holder("alice") is None, 10, "the lease expiring")
            assert questions_of(store, "alice") == QUESTIONS[:3]      # the turn is whole
            assert store.load("alice").state["turns"] == [[1, 6]]     # not compacted yet
            assert not [e for e in store.events("alice", 100) if e.get("action") == "compacted"]

            async def go_on():
                async with httpx.AsyncClient(timeout=60) as http:
                    done = await post(http, workers.urls[1], "alice", QUESTIONS[3])
                    return done
            assert asyncio.run(go_on())["turn"] == 4
            wait_until(lambda: any(e.get("action") == "compacted"
                                   for e in store.events("alice", 100)), 20,
                       "the next turn's compaction")
            wait_until(lambda: store.holder("alice") is None, 10, "the lease given back")
            state = store.load("alice").state
            assert state["summary"] and state["turns"][0][0] > 1


def test_a_worker_killed_after_its_commit_is_retried_with_the_key_and_replayed(redis_url,
                                                                              tmp_path):
    """Worker 0 commits the turn and dies while its reply streams (one event out, the
    rest held back by --stream-delay): the client's connection breaks, it retries with
    the same Idempotency-Key on worker 1 and gets the first turn's whole reply; the
    store holds the turn once. The workers also close a connection whose headers do not
    come within --header-timeout. On Redis, the store of several machines (the keys'
    SQLite and Redis code both run in tests/test_serve_faults.py)."""
    spec = f"{redis_url}#{tmp_path.name}"
    import socket
    refused = "zzzz qqqq"                        # a refusal: two events, one delay between
    with start_workers(2, spec, "--stream-delay", "1", "--header-timeout", "0.5") as workers:
        async def first_attempt():
            async with httpx.AsyncClient(timeout=30) as http:
                async with http.stream("POST", f"{workers.urls[0]}/sessions/alice/messages",
                                       json={"text": refused},
                                       headers={"Idempotency-Key": "m-1"}) as response:
                    chunks = response.aiter_text()
                    first = await chunks.__anext__()      # committed, the reply under way
                    workers.kill(0)
                    with pytest.raises(httpx.HTTPError):
                        async for _ in chunks:
                            pass
                    return first

        async def retry():
            async with httpx.AsyncClient(timeout=30) as http:
                response = await http.post(f"{workers.urls[1]}/sessions/alice/messages",
                                           json={"text": refused},
                                           headers={"Idempotency-Key": "m-1"})
                return response
        first = asyncio.run(first_attempt())
        assert first.startswith("event: refusal")
        again = asyncio.run(retry())
        assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
        assert again.text.startswith(first) and done_event(again.text)["turn"] == 1
        with socket.create_connection(("127.0.0.1", int(workers.urls[1].rsplit(":", 1)[1])),
                                      timeout=20) as slow:
            slow.sendall(b"POST /sessions/bob/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            assert slow.recv(100) == b""          # closed by the worker, headers unfinished
    with open_store(spec) as store:
        assert questions_of(store, "alice") == [refused]
        assert [r.turn for r in store.turn_log("alice")] == [1]


@pytest.mark.parametrize("lock, kept", [("local", 2), ("lease", 3)])
def test_two_workers_with_an_in_process_lock_lose_a_turn(spec, lock, kept):
    """The same two overlapping turns of one session, sent to two workers at once: with
    a lock in each process both run at once and the second commit overwrites the first
    (two replies, one turn kept); with the store's lease they run one after the other."""
    with start_workers(2, spec, "--lock", lock, "--model-delay", "1") as workers:
        async def load():
            async with httpx.AsyncClient(timeout=60) as http:
                await post(http, workers.urls[0], "alice", QUESTIONS[0])
                return await asyncio.gather(post(http, workers.urls[0], "alice", QUESTIONS[1]),
                                            post(http, workers.urls[1], "alice", QUESTIONS[2]))
        replies = asyncio.run(load())
    with open_store(spec) as store:
        log = store.turn_log("alice")
        questions = questions_of(store, "alice")
    if lock == "local":
        assert [r["turn"] for r in replies] == [2, 2]   # both answered from turn 1 alone
        assert len(log) == kept and [r.based_on for r in log] == [0, 1]
        assert len(questions) == 2 and questions[1] in QUESTIONS[1:3]   # one question lost
    else:
        assert sorted(r["turn"] for r in replies) == [2, 3]
        assert [(r.turn, r.based_on) for r in log] == [(1, 0), (2, 1), (3, 2)]
        assert sorted(questions[1:]) == sorted(QUESTIONS[1:3]) and len(log) == kept


def test_the_cli_serves_four_workers_on_one_port(tmp_path):
    """`python -m kit serve --workers 4`: uvicorn's own worker processes share a port."""
    import subprocess
    import sys
    from kit.serve.workers import _wait_healthy, free_port
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "kit", "serve", "--workers", "4",
                               "--port", str(port), "--store", f"sqlite:{tmp_path / 'c.db'}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, server, 30)

        async def talk():
            async with httpx.AsyncClient(timeout=60) as http:
                return [await post(http, url, "alice", q) for q in QUESTIONS[:3]]
        assert [d["turn"] for d in asyncio.run(talk())] == [1, 2, 3]
    finally:
        server.terminate()
        server.wait(20)
    with open_store(f"sqlite:{tmp_path / 'c.db'}") as store:
        assert questions_of(store, "alice") == QUESTIONS[:3]


def test_serve_refuses_a_bad_store_before_starting(tmp_path):
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "kit", "serve", "--store", "chat.db"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "store must be 'sqlite:PATH' or a redis:// URL, got 'chat.db'" in done.stderr


def test_serve_names_the_option_it_refuses(capsys):
    from kit.__main__ import main
    for argv, words in ((["--lease", "0"], "argument --lease: must be > 0"),
                        (["--port", "70000"], "argument --port: must be >= 0 and <= 65535"),
                        (["--wait", "nan"], "argument --wait"),
                        (["--log-level", "loud"], "argument --log-level: invalid choice")):
        with pytest.raises(SystemExit) as done:
            main(["serve", *argv])
        assert done.value.code == 2 and words in capsys.readouterr().err
    assert main(["serve", "--workers", "2", "--store", "sqlite::memory:"]) == 2
    assert "one store per process" in capsys.readouterr().err
    assert main(["serve", "--store", "redis://127.0.0.1:1/0"]) == 2   # refused before serving
    assert "ping failed" in capsys.readouterr().err
