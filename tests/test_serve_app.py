"""The HTTP API in-process, through httpx's ASGI transport: streamed replies after the
guardrail, the context route, and bad requests refused with nothing written."""
import asyncio
import json

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed: pip install -e '.[dev]'")
pytest.importorskip("starlette", reason="the serve extra is not installed")

from kit.serve import ChatService, SQLiteSessionStore, service_memory
from kit.serve.app import create_app, reply_events, sse


def parse_sse(text: str) -> list[tuple[str, dict]]:
    """(event, data) pairs of a server-sent-event stream."""
    events = []
    for block in text.split("\n\n"):
        if block.strip():
            lines = dict(line.split(": ", 1) for line in block.splitlines())
            events.append((lines["event"], json.loads(lines["data"])))
    return events


@pytest.fixture
def service(tmp_path):
    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        yield ChatService(store, memory_factory=service_memory(budget=60, keep_recent=4), wait=0.2)


def call(app, method: str, path: str, **kwargs) -> httpx.Response:
    async def go():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app),
                                     base_url="http://kit.test") as client:
            return await client.request(method, path, **kwargs)
    return asyncio.run(go())


def test_a_reply_streams_in_chunks_that_join_to_the_answer(service):
    app = create_app(service)
    response = call(app, "POST", "/sessions/alice/messages",
                    json={"text": "How long do refunds take?"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "done" and set(kinds[:-1]) == {"reply"} and len(kinds) > 2
    text = "".join(data["text"] for kind, data in events if kind == "reply")
    [stored] = [m.content for m in service.store.transcript("alice") if m.role == "assistant"]
    assert text.endswith("[1]") and stored == text.replace("[1]", "(source: refunds-01)")
    assert events[-1][1] == {"turn": 1, "refused": False, "guardrail": "cites [1] -> refunds-01",
                             "cited": ["refunds-01"]}


def test_a_refusal_is_sent_as_a_refusal(service):
    events = parse_sse(call(create_app(service), "POST", "/sessions/alice/messages",
                            json={"text": "zzzz qqqq"}).text)
    assert [kind for kind, _ in events] == ["refusal", "done"]
    assert events[1][1]["refused"] is True and events[1][1]["guardrail"] == "nothing retrieved"


def test_the_context_route_follows_the_turns_and_what_moved(service):
    app = create_app(service)
    for question in ("How long do refunds take?", "and for COD?", "Do you ship abroad?"):
        call(app, "POST", "/sessions/alice/messages", json={"text": question})
    context = call(app, "GET", "/sessions/alice/context").json()
    assert context["turns"] == 3 and context["budget"] == 60
    assert context == json.loads(json.dumps(service.context("alice")))
    moved = [e for e in context["events"] if e.get("action") == "compacted"]
    assert moved and moved[-1]["moved"] == [1, 2]       # compaction ran after the reply


def test_bad_requests_are_refused_and_write_nothing(service):
    app = create_app(service, max_body=100)
    cases = [
        ({"json": {"text": "x" * 200}}, 413, "over 100 bytes"),
        ({"content": b'{"text": "hi"}', "headers": {"content-type": "text/plain"}}, 415, "JSON"),
        ({"content": b"{not json", "headers": {"content-type": "application/json"}}, 400,
         "must be JSON"),
        ({"json": {"question": "hi"}}, 400, "must be JSON"),
        ({"json": ["hi"]}, 400, "must be JSON"),
        ({"json": {"text": 7}}, 400, "text must be a string, got int"),
        ({"json": {"text": "   "}}, 400, "must not be empty"),
    ]
    for kwargs, status, words in cases:
        response = call(app, "POST", "/sessions/alice/messages", **kwargs)
        assert response.status_code == status, (kwargs, response.text)
        assert words in response.json()["error"]
    response = call(app, "POST", "/sessions/a%20b/messages", json={"text": "hi"})
    assert response.status_code == 400 and "session id" in response.json()["error"]
    assert call(app, "GET", "/sessions/a.b/context").status_code == 400
    assert service.store.load("alice").last == 0 and service.store.holder("alice") is None


def test_a_body_without_a_length_is_cut_at_the_cap(service):
    async def chunks():
        for _ in range(50):
            yield b"x" * 10
    response = call(create_app(service, max_body=100), "POST", "/sessions/alice/messages",
                    content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_a_busy_session_is_a_503(service):
    held = service.store.acquire("alice", 60)
    response = call(create_app(service), "POST", "/sessions/alice/messages",
                    json={"text": "How long do refunds take?"})
    assert response.status_code == 503 and "busy" in response.json()["error"]
    assert service.store.holder("alice") == held.token


def test_the_page_and_health(service):
    app = create_app(service)
    page = call(app, "GET", "/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert call(app, "GET", "/static/chat.js").headers["content-type"].startswith("text/javascript")
    assert call(app, "GET", "/health").json() == {"ok": True, "worker": service.worker,
                                                  "store": "sqlite", "lock": "lease"}
    assert call(app, "GET", "/static/../app.py").status_code == 404


def test_sse_lines_hold_any_text_on_one_data_line():
    event = sse("reply", {"text": "two\nlines </script> \u2028"})
    assert event.count("\n") == 3 and event.endswith("\n\n")
    assert parse_sse(event) == [("reply", {"text": "two\nlines </script> \u2028"})]


def test_reply_events_keep_every_space():
    class Answer:
        refused, turn, cited_ids = False, 1, ()
        answer = "a  b c d e f g"
        guardrail = type("G", (), {"reason": "ok"})
    events = parse_sse("".join(reply_events(Answer(), words=2)))
    assert "".join(d["text"] for k, d in events if k == "reply") == Answer.answer


def test_a_compaction_under_way_holds_no_thread_a_reply_needs(tmp_path):
    """One thread per pool: session A's compaction blocks inside the summariser until
    session B's reply has come back; B's turn runs in the other pool and gets it."""
    import threading
    from kit.llm import fact_listing_summariser
    from kit.memory import DeferredSummaryMemory

    release, inside, released = threading.Event(), threading.Event(), []

    def summariser(prompt):
        inside.set()
        released.append(release.wait(10))     # False: it gave up (a failing test ends)
        return fact_listing_summariser(prompt)

    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        service = ChatService(store, memory_factory=lambda: DeferredSummaryMemory(
            summariser, budget=60, keep_recent=4))
        app = create_app(service, threads=1)

        async def go():
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app),
                                         base_url="http://kit.test", timeout=30) as client:
                async def send(session, text):
                    return await client.post(f"/sessions/{session}/messages", json={"text": text})
                for q in ("How long do refunds take?", "and for COD?"):
                    await send("alice", q)
                compacting = asyncio.create_task(send("alice", "Do you ship abroad?"))
                await asyncio.to_thread(inside.wait, 10)       # A's compaction has begun
                reply = await send("bob", "How long do refunds take?")
                release.set()
                await compacting
                return reply
        reply = asyncio.run(go())
        assert reply.status_code == 200 and parse_sse(reply.text)[-1][0] == "done"
        assert released[0] is True            # B was answered while A's summariser waited
        assert store.load("alice").state["summary"]      # and A's compaction then finished
        assert store.holder("alice") is None and store.holder("bob") is None


def test_a_store_that_fails_is_a_503_not_a_bad_request(tmp_path):
    from kit.serve import RedisSessionStore
    service = ChatService(RedisSessionStore(f"unix://{tmp_path}/gone.sock"))
    app = create_app(service)
    for method, path, kwargs in (("POST", "/sessions/alice/messages", {"json": {"text": "hi"}}),
                                 ("GET", "/sessions/alice/context", {})):
        response = call(app, method, path, **kwargs)
        assert response.status_code == 503, response.text
        assert "the store failed" in response.json()["error"]
        assert "gone.sock" not in response.text           # no store internals to a client


def test_turns_waiting_for_a_session_hold_no_thread(tmp_path):
    """More requests on one session than the pools have threads: they wait for the lease
    on the event loop, so the holder can always finish and give it back."""
    from kit.rag import BM25Retriever, Chatbot, QuotingModel, load_corpus
    from kit.serve import SlowModel
    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        bot = Chatbot(BM25Retriever(load_corpus()), SlowModel(QuotingModel(), 0.02))
        app = create_app(ChatService(store, bot, wait=20), threads=2)

        async def go():
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app),
                                         base_url="http://kit.test", timeout=60) as client:
                return await asyncio.gather(*(client.post(
                    "/sessions/alice/messages", json={"text": f"How long do refunds take? {i}"})
                    for i in range(6)))
        responses = asyncio.run(go())
        assert [r.status_code for r in responses] == [200] * 6
        assert sorted(parse_sse(r.text)[-1][1]["turn"] for r in responses) == [1, 2, 3, 4, 5, 6]
        assert [r.based_on for r in store.turn_log("alice")] == [0, 1, 2, 3, 4, 5]


def test_lost_lease_and_failed_store_show_no_internals(service, monkeypatch):
    from kit.serve.stores import LeaseLost
    def lost(*args, **kwargs):
        raise LeaseLost("session 'alice' in '/secret/path/chat.db': lease 1 is no longer held")
    monkeypatch.setattr(service, "begin", lost)
    response = call(create_app(service), "POST", "/sessions/alice/messages", json={"text": "hi"})
    assert response.status_code == 409 and "secret" not in response.text
    assert "nothing was saved" in response.json()["error"]


def test_odd_bodies_are_bad_requests(service):
    app = create_app(service)
    deep = call(app, "POST", "/sessions/alice/messages", content=b"[" * 2000,
                headers={"content-type": "application/json"})
    assert deep.status_code == 400 and "must be JSON" in deep.json()["error"]
    mixed = call(app, "POST", "/sessions/alice/messages", content=b'{"text": "zzzz qqqq"}',
                 headers={"content-type": "Application/JSON; charset=utf-8"})
    assert mixed.status_code == 200


def test_only_local_host_names_are_served_when_asked(service):
    app = create_app(service, hosts=["127.0.0.1", "localhost"])

    async def go(host):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app),
                                     base_url=f"http://{host}") as client:
            return (await client.get("/health")).status_code
    assert asyncio.run(go("localhost")) == 200 and asyncio.run(go("127.0.0.1")) == 200
    assert asyncio.run(go("evil.example")) == 400     # a DNS-rebinding page's Host


def test_a_reply_without_spaces_still_streams_in_pieces():
    class Answer:
        refused, turn, cited_ids = False, 1, ()
        answer = "退款" * 100 + " [1]"
        guardrail = type("G", (), {"reason": "ok"})
    events = parse_sse("".join(reply_events(Answer(), words=1)))
    texts = [d["text"] for k, d in events if k == "reply"]
    assert "".join(texts) == Answer.answer and len(texts) == 6 and max(map(len, texts)) == 41


def test_a_request_cancelled_mid_turn_gives_its_session_back(tmp_path):
    """The request is cancelled while its turn runs in a thread (a client or a server
    giving up): the thread ends the turn, and the lease is then given back."""
    import threading
    from kit.rag import BM25Retriever, Chatbot, QuotingModel, load_corpus
    inside, gate = threading.Event(), threading.Event()

    def gated(system, user):
        inside.set()
        gate.wait(10)
        return QuotingModel()(system, user)

    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        app = create_app(ChatService(store, Chatbot(BM25Retriever(load_corpus()), gated)))

        async def go():
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app),
                                         base_url="http://kit.test") as client:
                request = asyncio.create_task(client.post(
                    "/sessions/alice/messages", json={"text": "How long do refunds take?"}))
                await asyncio.to_thread(inside.wait, 10)
                request.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await request
                gate.set()
                for _ in range(200):                 # the thread ends, then releases
                    if store.holder("alice") is None and store.load("alice").turns == 1:
                        break
                    await asyncio.sleep(0.02)
                again = await client.post("/sessions/alice/messages",
                                          json={"text": "and for COD?"})
                return again
        again = asyncio.run(go())
        assert store.turn_log("alice")[0].turn == 1       # the cancelled turn was committed
        assert again.status_code == 200 and parse_sse(again.text)[-1][1]["turn"] == 2
