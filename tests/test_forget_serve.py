"""Forgetting in the chat service: both stores (SQLite and a real Redis), fenced by the
lease, the bytes of the SQLite file and of Redis's append-only file and snapshot gone,
and the HTTP route with the service's checks."""
import asyncio
import os

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
httpx = pytest.importorskip("httpx", reason="the serve extra is not installed")

from kit.longterm.forget import FORGOTTEN
from kit.longterm.forget_scan import redis_files, scan, sqlite_files
from kit.messages import Message
from kit.serve import ChatService, SQLiteSessionStore, service_memory
from kit.serve.app import create_app
from kit.serve.stores import LeaseLost

SECRET = "hemoglobin-a1c"


def fill(store, session="alice"):
    lease = store.acquire(session, 60)
    texts = ["hello there", f"my {SECRET} was 9 percent", "noted", "what is for lunch"]
    messages = [Message("user" if i % 2 == 0 else "assistant", t, 3, i + 1)
                for i, t in enumerate(texts)]
    store.commit(session, lease, messages, {"summary": f"user said {SECRET}"},
                 events=[{"kind": "turn", "text": SECRET}])
    return lease


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path, make_store):
    made = make_store(request.param, "forget")
    if request.param == "sqlite":
        made.files = lambda: sqlite_files(tmp_path / "chat.db")
    else:
        made._redis.config_set("rdbcompression", "no")   # the secret readable before
        made._redis.bgsave()                                 # a snapshot exists too
        url = request.getfixturevalue("redis_url")
        folder = os.path.dirname(url.removeprefix("unix://"))
        made.files = lambda: redis_files(folder)
    return made


@pytest.mark.parametrize("words", [["Hemoglobin-A1c"], None])
def test_a_service_forget_reaches_the_store_and_its_bytes(store, words):
    lease = fill(store)
    if store.kind == "redis":
        store.rewrite()                      # the snapshot now holds the secret as well
    before = scan(SECRET, files=[(f, f) for f in store.files()])
    assert before.leaks, before.rows()
    assert store.forget("alice", lease, words) == ((2,) if words else (1, 2, 3, 4))
    after = scan(SECRET, files=[(f, f) for f in store.files()], contexts={
        "transcript": " ".join(m.content for m in store.transcript("alice")),
        "state": str(store.load("alice").state), "events": str(store.events("alice"))})
    assert after.completeness == 1.0, after.rows()
    assert store.events("alice")[-1]["kind"] == "forgotten"
    if words:
        assert [m.content for m in store.transcript("alice")][:2] == ["hello there", FORGOTTEN]
    else:
        assert store.transcript("alice") == [] and store.load("alice").last == 0


def test_a_later_forget_keeps_the_earlier_record_and_nothing_found_writes_nothing(store):
    lease = fill(store)
    assert store.forget("alice", lease, ["lunch"]) == (4,)
    assert store.forget("alice", lease, ["zeppelin"]) == ()      # nothing: nothing written
    assert [e["messages"] for e in store.events("alice")] == [[4]]
    store.forget("alice", lease, None)
    assert [(e["kind"], e["by"]) for e in store.events("alice")] == [
        ("forgotten", "words"), ("forgotten", "everything")]


@pytest.mark.parametrize("words", [["lunch"], None])
def test_a_forget_keeps_idempotency_keys_with_their_answers_redacted(store, words):
    """A retry sent after the forget must not run its turn again (a duplicate turn, the
    forgotten text written back): the key stays, its saved answer does not."""
    from kit.serve.stores import KeyRecord
    from kit.serve.stores import digest
    lease = fill(store)
    outcome = {"turn": 2, "answer": "lunch: the zucchini-velvet soup", "refused": False,
               "guardrail": "cited [1]", "cited": ["faq-01"]}
    store.claim(lease, "k1", digest("what is for lunch"))
    store.commit("alice", lease, [Message("user", "what is for lunch now", 3, 5)], {},
                 key=KeyRecord("k1", digest("what is for lunch"), lease.token, 2, outcome))
    store.claim(lease, "k2", digest("a turn that died"))       # claimed, never committed
    store.forget("alice", lease, words)
    kept = store.key_record("alice", "k1")
    assert kept.digest == FORGOTTEN and kept.turn == 2       # a digest confirms a guess
    assert kept.outcome == {**outcome, "answer": FORGOTTEN}
    assert store.key_record("alice", "k2") is None
    for gone in ("zucchini-velvet", digest("what is for lunch"), digest("a turn that died")):
        assert not scan(gone, files=[(f, f) for f in store.files()]).leaks, gone


def test_a_forget_is_fenced_by_the_lease(tmp_path):
    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        lease = fill(store)
        store.release(lease)
        store.acquire("alice", 60)
        with pytest.raises(LeaseLost):
            store.forget("alice", lease, [SECRET])
        assert SECRET in store.transcript("alice")[1].content


def call(app, method, path, **kwargs):
    async def go():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app),
                                     base_url="http://kit.test") as client:
            return await client.request(method, path, **kwargs)
    return asyncio.run(go())


def test_the_forget_route_and_its_checks(tmp_path):
    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        service = ChatService(store, memory_factory=service_memory(budget=60, keep_recent=4),
                              wait=0.2)
        app = create_app(service, max_body=100)
        for text in ["I take metformin daily.", "What should I eat?"]:
            assert call(app, "POST", "/sessions/alice/messages",
                        json={"text": text}).status_code == 200
        cases = [({"json": {"words": ["x" * 200]}}, 413), ({"json": {"words": []}}, 400),
                 ({"json": {"words": "metformin"}}, 400), ({"json": {"everything": 1}}, 400),
                 ({"content": b"{", "headers": {"content-type": "application/json"}}, 400),
                 ({"content": b'{"everything": true}'}, 415)]
        for kwargs, status in cases:
            assert call(app, "POST", "/sessions/alice/forget", **kwargs).status_code == status
        assert call(app, "POST", "/sessions/a%20b/forget",
                    json={"everything": True}).status_code == 400
        held = store.acquire("alice", 60)
        assert call(app, "POST", "/sessions/alice/forget",
                    json={"words": ["metformin"]}).status_code == 503        # busy
        blank = call(app, "POST", "/sessions/alice/forget", json={"words": ["metformin", " "]})
        assert blank.status_code == 400 and "' '" in blank.text   # checked before the queue
        with pytest.raises(ValueError, match="non-empty"):
            service.forget("alice", [""])              # not SessionBusy after the wait
        store.release(held)
        assert "metformin" in str(store.transcript("alice"))
        done = call(app, "POST", "/sessions/alice/forget", json={"words": ["Metformin"]})
        assert done.status_code == 200 and done.json()["forgotten"] == [1]
        assert "metformin" not in str(service.context("alice")).lower()
        assert store.holder("alice") is None                     # the lock went back
        assert call(app, "POST", "/sessions/alice/messages",
                    json={"text": "And tomorrow?"}).status_code == 200   # it goes on


def test_a_retry_after_a_forget_replays_the_redacted_reply_whatever_its_text(tmp_path):
    """The key's digest went with the forget (a digest confirms a guessed text): a retry
    with the key is not run again, and gets the reply with its answer forgotten."""
    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        service = ChatService(store, memory_factory=service_memory(budget=60, keep_recent=4),
                              wait=0.2)
        app = create_app(service, max_body=100)
        sent = call(app, "POST", "/sessions/alice/messages", json={"text": "I take metformin."},
                    headers={"Idempotency-Key": "k-1"})
        assert sent.status_code == 200
        turns = len(store.turn_log("alice"))
        assert call(app, "POST", "/sessions/alice/forget",
                    json={"words": ["metformin"]}).status_code == 200
        for text in ("I take metformin.", "another text"):
            again = call(app, "POST", "/sessions/alice/messages", json={"text": text},
                         headers={"Idempotency-Key": "k-1"})
            assert again.status_code == 200 and FORGOTTEN in again.text, again.text
            assert "metformin" not in again.text.lower()
        assert len(store.turn_log("alice")) == turns                  # not run again
        other = call(app, "POST", "/sessions/alice/messages", json={"text": "another text"},
                     headers={"Idempotency-Key": "k-2"})
        assert other.status_code == 200 and len(store.turn_log("alice")) == turns + 1
