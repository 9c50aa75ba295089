"""Unit tests of kit/openai_compat.py against a small chat-completions server on
127.0.0.1 (http.server in a thread, ephemeral port). The network guard of conftest.py
allows loopback, and nothing else."""
import base64
import importlib.util
import json
import re
import shutil
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from loopback import serving, without_proxies  # tests/loopback.py
from kit.openai_compat import (MalformedResponseError, ModelAPIError, ModelConfigError,
                               OpenAICompatibleModel, configured)
from kit.rag.documents import Chunk
from kit.rag.judge import judge

KEY = "sk-test-123"


def completion(content):
    return {"id": "x", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}]}


class Handler(BaseHTTPRequestHandler):
    """Speaks POST /v1/chat/completions like a real server: 404 for another path, 401
    for a wrong key (when the server has one), 400 for a body without model/messages,
    else ``server.reply`` (status, body bytes), by default a completion echoing the
    last message."""

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        if self.server.hold is not None:
            self.server.hold.wait(5)
        if self.path != "/v1/chat/completions":
            return self.send(404, b'{"error": "not found"}')
        if self.server.key and self.headers.get("Authorization") != f"Bearer {self.server.key}":
            return self.send(401, b'{"error": {"message": "Incorrect API key provided"}}')
        try:
            request = json.loads(body)
            assert isinstance(request["model"], str) and request["messages"]
            assert all(set(m) == {"role", "content"} for m in request["messages"])
        except (ValueError, KeyError, AssertionError):
            return self.send(400, b'{"error": "bad request body"}')
        if self.server.reply is not None:
            return self.send(*self.server.reply)
        self.send(200, json.dumps(completion("echo: " + request["messages"][-1]["content"])).encode())

    def send(self, status, payload):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        try:
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):   # the client gave up (timeout test)
            pass

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def httpd():
    """One server for the module, on an ephemeral port of 127.0.0.1."""
    with serving(Handler) as httpd:
        yield httpd


@pytest.fixture
def server(httpd, monkeypatch):
    """The server with fresh state: no recorded requests, default replies, key KEY."""
    without_proxies(monkeypatch)
    httpd.requests, httpd.reply, httpd.key, httpd.hold = [], None, KEY, None
    yield httpd
    if httpd.hold is not None:
        httpd.hold.set()                           # release a handler a test kept waiting


def model_for(server, **kwargs):
    return OpenAICompatibleModel(server.base_url, "tiny-model", KEY, env={}, **kwargs)


def test_chat_shape_sends_system_and_user(server):
    model = model_for(server)
    assert model("You are terse.", "How long do refunds take?") == "echo: How long do refunds take?"
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    assert request["headers"]["Content-Type"] == "application/json"
    assert json.loads(request["body"]) == {"model": "tiny-model", "messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "How long do refunds take?"}]}
    assert model.calls == 1


def test_prompt_shape_sends_one_user_message_and_temperature(server):
    model = model_for(server, temperature=0)
    assert model("Summarise: a; b") == "echo: Summarise: a; b"
    assert json.loads(server.requests[0]["body"]) == {
        "model": "tiny-model", "temperature": 0,
        "messages": [{"role": "user", "content": "Summarise: a; b"}]}


def test_no_key_sends_no_authorization(server):
    server.key = None
    model = OpenAICompatibleModel(server.base_url + "/", "tiny-model", env={})   # trailing / is fine
    assert model("hi") == "echo: hi"
    assert "Authorization" not in server.requests[0]["headers"]


def test_a_judge_through_the_adapter(server):
    server.reply = (200, json.dumps(completion('{"grounded": true, "reason": "in [1]"}')).encode())
    chunks = [Chunk("c1", "Refunds take 5 working days.", "refunds.md")]
    verdict = judge("How long?", "5 working days [1].", chunks, model_for(server))
    assert (verdict.groundedness, verdict.reason) == (1.0, "in [1]")
    messages = json.loads(server.requests[0]["body"])["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "[1] Refunds take 5 working days." in messages[1]["content"]


@pytest.mark.parametrize("status, body", [(401, None), (500, b'{"error": "server exploded"}'),
                                          (429, b"rate limited, slow down")])
def test_http_errors_give_status_and_body(server, status, body):
    if body is None:
        model = OpenAICompatibleModel(server.base_url, "tiny-model", "sk-wrong", env={})
        expected = "Incorrect API key provided"
    else:
        server.reply, model, expected = (status, body), model_for(server), body.decode()
    with pytest.raises(ModelAPIError, match=f"answered HTTP {status}") as error:
        model("hi")
    assert error.value.status == status and expected in error.value.body
    assert expected[:20] in str(error.value)


def test_wrong_path_is_a_404(server):
    model = OpenAICompatibleModel(server.base_url.removesuffix("/v1"), "tiny-model", KEY, env={})
    with pytest.raises(ModelAPIError, match="HTTP 404") as error:
        model("hi")
    assert error.value.status == 404


@pytest.mark.parametrize("payload, field", [
    (b"<html>Bad Gateway</html>", "not JSON"),
    (b"[1, 2]", "expected a JSON object, got list"),
    (b'{"error": "no choices"}', "missing field 'choices'"),
    (b'{"choices": []}', "missing field 'choices'"),
    (b'{"choices": [{"text": "old completions API"}]}', "missing field 'choices[0].message'"),
    (json.dumps(completion(None)).encode(), "missing field 'choices[0].message.content'"),
    (json.dumps(completion([{"type": "text"}])).encode(), "missing field 'choices[0].message.content'"),
])
def test_malformed_replies_name_the_missing_field(server, payload, field):
    server.reply = (200, payload)
    with pytest.raises(MalformedResponseError, match=re.escape(field)) as error:
        model_for(server)("hi")
    assert error.value.status == 200 and error.value.body == payload.decode()


def test_unreachable_endpoint(server):
    with socket.socket() as probe:                # a port with nothing listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = OpenAICompatibleModel(f"http://127.0.0.1:{port}/v1", "m", env={})
    with pytest.raises(ModelAPIError, match=f"could not reach http://127.0.0.1:{port}/v1/chat/completions") as error:
        model("hi")
    assert error.value.status is None


def test_a_slow_server_times_out(server):
    server.hold = threading.Event()               # the handler waits until the test ends
    with pytest.raises(TimeoutError, match="no reply from .* within 0.1 s"):
        model_for(server, timeout=0.1)("hi")


# --- configuration ---------------------------------------------------------------------

def test_configuration_from_the_environment():
    env = {"KIT_LLM_BASE_URL": "http://localhost:11434/v1", "KIT_LLM_MODEL": "llama3.2",
           "OPENAI_BASE_URL": "https://api.example.com/v1", "OPENAI_API_KEY": "sk-openai"}
    model = OpenAICompatibleModel(env=env)
    assert (model.url, model.model) == ("http://localhost:11434/v1/chat/completions", "llama3.2")
    assert model._api_key == "sk-openai"
    assert OpenAICompatibleModel(env={**env, "KIT_LLM_API_KEY": "sk-kit"})._api_key == "sk-kit"
    assert OpenAICompatibleModel(env={"OPENAI_BASE_URL": "https://api.example.com/v1",
                                      "KIT_LLM_MODEL": "m"}).base_url == "https://api.example.com/v1"
    explicit = OpenAICompatibleModel("http://127.0.0.1:8080/v1", "other", "sk-arg", env=env)
    assert (explicit.base_url, explicit.model, explicit._api_key) == (
        "http://127.0.0.1:8080/v1", "other", "sk-arg")
    assert configured(env) and not configured({"KIT_LLM_MODEL": "m"})


def test_default_environment_is_os_environ(monkeypatch):
    for name in ("KIT_LLM_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KIT_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("KIT_LLM_MODEL", "from-env")
    assert configured() and OpenAICompatibleModel().model == "from-env"


@pytest.mark.parametrize("kwargs, message", [
    ({}, "no endpoint: pass base_url= or set KIT_LLM_BASE_URL"),
    ({"base_url": "http://h/v1"}, "no model name: pass model= or set KIT_LLM_MODEL"),
    ({"base_url": "localhost:11434/v1", "model": "m"}, "must start with http:// or https://, got 'localhost:11434/v1'"),
    ({"base_url": "http://h/v1", "model": "m", "timeout": 0}, "timeout must be a number of seconds > 0 (at most 1e9), got 0"),
    ({"base_url": "http://h/v1", "model": "m", "timeout": "30"}, "got '30'"),
])
def test_missing_or_bad_configuration(kwargs, message):
    with pytest.raises(ModelConfigError, match=re.escape(message)):
        OpenAICompatibleModel(env={}, **kwargs)


def test_repr_never_shows_the_key():
    model = OpenAICompatibleModel("http://h/v1", "m", "sk-secret", env={})
    assert "sk-secret" not in repr(model) and "api_key=set" in repr(model)


def test_bad_call_shapes():
    model = OpenAICompatibleModel("http://h/v1", "m", env={})
    for args in [(), ("a", "b", "c"), (None,), ("sys", 3)]:
        with pytest.raises(TypeError, match=r"model\(prompt\) or model\(system, user\)"):
            model(*args)
    assert model.calls == 0


def test_import_and_construction_do_not_touch_the_network(monkeypatch):
    attempts = []
    monkeypatch.setattr(socket.socket, "connect", lambda self, address: attempts.append(address))
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: attempts.append(a))
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: attempts.append(a) or [])
    spec = importlib.util.find_spec("kit.openai_compat")          # a fresh copy, run again
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    fresh.OpenAICompatibleModel("https://api.example.com/v1", "m", "k", env={})
    assert attempts == []



def read_request(conn) -> bytes:
    """Read one HTTP request from ``conn`` (head and body); return its head."""
    with conn.makefile("rb") as request:
        length, head = 0, b""
        for line in iter(request.readline, b"\r\n"):
            head += line
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        request.read(length)
    return head


@pytest.fixture
def raw_reply():
    """A 127.0.0.1 server that answers every request with fixed raw bytes (no HTTP
    library: garbage, a cut-off body, a broken chunked encoding) and closes.

    ``raw_reply(payload, **model_args)`` returns a model for it; ``payload`` is bytes,
    or a function ``write(conn, head, stop)`` for replies made from the request head or
    sent over time (it returns once the client is gone or ``stop`` is set).
    ``raw_reply.requests`` holds each request's head (bytes)."""
    listener = socket.create_server(("127.0.0.1", 0))
    replies, stop = [], threading.Event()

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                head = read_request(conn)                 # the whole request first
                model.requests.append(head)
                try:
                    conn.sendall(replies[0]) if isinstance(replies[0], bytes) else replies[0](conn, head, stop)
                except OSError:                           # the client gave up
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    def model(payload, **kwargs):
        replies[:] = [payload]
        return OpenAICompatibleModel(f"http://127.0.0.1:{listener.getsockname()[1]}/v1",
                                     "m", **{"env": {}, "timeout": 5, **kwargs})
    model.requests, model.port = [], listener.getsockname()[1]
    yield model
    stop.set()
    listener.shutdown(socket.SHUT_RDWR)        # wakes the accept() above (Linux)
    listener.close()
    thread.join()


@pytest.mark.parametrize("payload, what", [
    (b"HELLO WORLD\r\n\r\n", "BadStatusLine"),
    (b"", "RemoteDisconnected"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"choices\"", "IncompleteRead"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nabc\r\n", "IncompleteRead"),
])
def test_a_broken_reply_is_a_model_api_error(raw_reply, payload, what):
    with pytest.raises(ModelAPIError, match=f"broken reply from .*: {what}"):
        raw_reply(payload)("hi")


def test_a_reply_nested_too_deep_is_malformed(raw_reply):
    body = b"[" * 100_001 + b"]" * 100_001
    model = raw_reply(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    with pytest.raises(MalformedResponseError, match="JSON nested too deep to read"):
        model("hi")


@pytest.mark.parametrize("kwargs, message", [
    ({"base_url": 123}, "base_url must be a str, got int: 123"),
    ({"base_url": "http://"}, "base_url names no host, got 'http://'"),
    ({"base_url": "http://h/v1\nX-Evil: 1"}, "must not hold spaces or control characters"),
    ({"base_url": "http://h/ v1"}, "must not hold spaces or control characters"),
    ({"model": 5}, "model must be a non-blank str, got 5"),
    ({"model": "  "}, "model must be a non-blank str, got '  '"),
    ({"timeout": float("inf")}, "timeout must be a number of seconds > 0 (at most 1e9), got inf"),
    ({"timeout": 1e300}, "got 1e+300"),
    ({"temperature": float("nan")}, "temperature must be a finite number >= 0, got nan"),
    ({"temperature": "hot"}, "temperature must be a finite number >= 0, got 'hot'"),
    ({"api_key": "sk-1\r\nX-Evil: 1"}, "api_key must be a str of printable ASCII without spaces, got a str of length 15"),
    ({"api_key": "ключ"}, "api_key must be a str of printable ASCII"),
])
def test_bad_configuration_is_caught_before_any_call(kwargs, message):
    args = {"base_url": "http://h/v1", "model": "m", **kwargs}
    with pytest.raises(ModelConfigError, match=re.escape(message)) as caught:
        OpenAICompatibleModel(env={}, **args)
    assert "X-Evil" not in str(caught.value) or "api_key" not in kwargs   # key never shown


def test_configured_agrees_with_construction():
    assert not configured({"KIT_LLM_BASE_URL": " ", "KIT_LLM_MODEL": " "})
    assert not configured({"KIT_LLM_BASE_URL": "http://h/v1", "KIT_LLM_MODEL": " "})
    assert configured({"KIT_LLM_BASE_URL": "http://h/v1", "KIT_LLM_MODEL": "m"})


@pytest.mark.parametrize("messages, match", [
    ("hello", "messages must be a non-empty list"),
    ([], "messages must be a non-empty list"),
    ([{"role": "user", "content": b"x"}], r"messages\[0\] must be a dict with str 'role'"),
    ([{"role": "user"}], r"messages\[0\] must be a dict with str 'role'"),
])
def test_chat_checks_the_messages_before_sending(server, messages, match):
    model = model_for(server)
    with pytest.raises(TypeError, match=match):
        model.chat(messages)
    assert server.requests == [] and model.calls == 0


# --- hostile servers (issue 10): redirects, keys, deadline, size cap, UTF-8 -------------

def everything_shown(error):
    """The text a user can see of an error: str(), the body, and each exception a
    traceback would print with it (the cause, or a context not suppressed)."""
    texts = []
    while error is not None:
        texts += [str(error), getattr(error, "body", "")]
        error = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
    return "\n".join(texts)


class Recorder(BaseHTTPRequestHandler):
    """Another origin: records every request, whatever its method, and answers 200."""

    def record(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.requests.append({"method": self.command, "headers": dict(self.headers),
                                     "body": body})
        payload = json.dumps(completion("from the other host")).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_HEAD = record

    def log_message(self, *args):
        pass


@pytest.fixture
def elsewhere():
    """A recording server on another port of 127.0.0.1: another origin."""
    with serving(Recorder) as httpd:
        httpd.requests, httpd.origin = [], f"http://127.0.0.1:{httpd.server_address[1]}"
        yield httpd


def redirect(status, location):
    return (b"HTTP/1.1 %d Moved\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n"
            % (status, location.encode()))


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_origin_is_refused_and_sends_it_nothing(raw_reply, elsewhere, status):
    model = raw_reply(redirect(status, elsewhere.origin + "/v1/chat/completions"), api_key=KEY)
    with pytest.raises(ModelAPIError, match=f"answered HTTP {status}, a redirect to "
                                            f"{re.escape(elsewhere.origin)}: not followed") as error:
        model("hi")
    assert elsewhere.requests == [] and error.value.status == status
    assert KEY not in everything_shown(error.value)


def test_a_same_origin_redirect_is_refused_too(raw_reply):
    model = raw_reply(redirect(307, "/v2/chat/completions"), api_key=KEY)
    with pytest.raises(ModelAPIError, match=f"a redirect to http://127.0.0.1:{raw_reply.port}: "
                                            "not followed"):
        model("hi")
    assert len(raw_reply.requests) == 1                   # asked once, not followed


def test_a_redirect_names_only_the_origin_of_its_location(raw_reply):
    model = raw_reply(redirect(302, f"http://user:{KEY}@other.example:8443/path?token={KEY}"),
                      api_key=KEY)
    with pytest.raises(ModelAPIError, match="a redirect to http://other.example:8443: ") as error:
        model("hi")
    assert KEY not in everything_shown(error.value) and "path" not in str(error.value)


@pytest.mark.parametrize("base_url, message", [
    ("http://user:sk-secret-9@127.0.0.1:9/v1", "must not hold a user name or key"),
    ("https://:sk-secret-9@api.example.com/v1", "must not hold a user name or key"),
    ("user:sk-secret-9@h/v1", "must start with http:// or https://, got '***@h/v1'"),
    ("http://user:sk-secret-9@h/ v1", "must not hold spaces or control characters"),
    (b"http://user:sk-secret-9@h/v1", "base_url must be a str, got bytes"),
])
def test_a_key_in_the_base_url_is_refused_and_never_shown(base_url, message):
    with pytest.raises(ModelConfigError, match=re.escape(message)) as error:
        OpenAICompatibleModel(base_url, "m", env={})
    assert "sk-secret-9" not in everything_shown(error.value)
    if isinstance(base_url, str):                         # the same from the environment
        with pytest.raises(ModelConfigError, match=re.escape(message)) as error:
            OpenAICompatibleModel(env={"KIT_LLM_BASE_URL": base_url, "KIT_LLM_MODEL": "m"})
        assert "sk-secret-9" not in everything_shown(error.value)


def echo_with(status, then=b""):
    """A reply with ``status`` whose body quotes the request head (so the key), then
    an upstream's own Authorization header, then ``then``."""
    def write(conn, head, stop):
        body = (b"you sent:\r\n" + head + b"upstream said: Authorization: Bearer up-secret-77\r\n"
                + then)
        conn.sendall(b"HTTP/1.1 %d Echo\r\nContent-Length: %d\r\n\r\n%s" % (status, len(body), body))
    return write


def echo_in_status_line(conn, head, stop):
    line = next(x for x in head.split(b"\r\n") if x.lower().startswith(b"authorization"))
    conn.sendall(line + b"\r\n\r\n")                      # not HTTP: a BadStatusLine


def echo_in_content(conn, head, stop):
    line = next(x for x in head.split(b"\r\n") if x.lower().startswith(b"authorization"))
    body = json.dumps(completion({"you sent": line.decode()})).encode()
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))


@pytest.mark.parametrize("given", ["argument", "environment"])
@pytest.mark.parametrize("reply, error_type, says", [
    (echo_with(401), ModelAPIError, "answered HTTP 401"),
    (echo_with(500), ModelAPIError, "answered HTTP 500"),
    (echo_with(200), MalformedResponseError, "not JSON"),
    (echo_in_status_line, ModelAPIError, "broken reply from .*: BadStatusLine: Authorization: ***"),
    (echo_in_content, MalformedResponseError, "missing field 'choices[0].message.content'"),
])
def test_a_server_echoing_the_request_never_gets_the_key_shown(raw_reply, given, reply,
                                                               error_type, says):
    source = {"api_key": KEY} if given == "argument" else {"env": {"KIT_LLM_API_KEY": KEY}}
    model = raw_reply(reply, **source)
    with pytest.raises(error_type, match=re.escape(says).replace(r"\.\*", ".*")) as error:
        model("hi")
    assert f"Bearer {KEY}".encode() in raw_reply.requests[0]
    shown = everything_shown(error.value)
    assert KEY not in shown and "up-secret-77" not in shown and KEY not in repr(model)
    if reply not in (echo_in_status_line, echo_in_content):
        assert "you sent:" in error.value.body and "Authorization: ***" in error.value.body


ODD_KEY = 'sk-a/b+c"d=e'


@pytest.mark.parametrize("form", [
    ODD_KEY, json.dumps(ODD_KEY)[1:-1],                       # as sent, JSON-escaped
    json.dumps(ODD_KEY)[1:-1].replace("/", "\\/"),            # JSON with \/ (PHP)
    urllib.parse.quote(ODD_KEY, safe=""), urllib.parse.quote_plus(ODD_KEY),
])
def test_the_key_is_hidden_in_the_forms_a_server_quotes_it(raw_reply, form):
    body = f"invalid key {form} for this project".encode()
    model = raw_reply(b"HTTP/1.1 403 Forbidden\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
                      api_key=ODD_KEY)
    with pytest.raises(ModelAPIError, match=re.escape("invalid key *** for this project")) as error:
        model("hi")
    assert form not in everything_shown(error.value)


def trickle(head, interval=0.05, count=400):
    """A reply that sends ``head``, then one more byte every ``interval`` seconds."""
    def write(conn, request_head, stop):
        conn.sendall(head)
        for _ in range(count):
            if stop.wait(interval):
                return
            conn.sendall(b" ")
    return write


@pytest.mark.parametrize("head", [
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nX-Slow: ",                       # the headers never end
], ids=["body", "headers"])
def test_a_trickling_server_is_cut_off_at_the_deadline(raw_reply, head):
    model = raw_reply(trickle(head), timeout=5, deadline=1)   # each byte well within timeout
    start = time.monotonic()
    with pytest.raises(TimeoutError, match=re.escape(
            f"the call to http://127.0.0.1:{raw_reply.port}/v1/chat/completions passed its "
            "deadline of 1 s")):
        model("hi")
    assert time.monotonic() - start < 1 + 5               # a bound, not a speed target


def stream(head, total=50_000_000, chunked=False):
    """A reply that sends ``head``, then ``total`` bytes of body in 1 MB blocks (or until
    the client goes away); ``sent`` gets the bytes it could send, ``done`` is set then."""
    sent, done = [], threading.Event()

    def write(conn, request_head, stop):
        block, count = b"0" * 1_000_000, 0
        try:
            conn.sendall(head)
            while count < total and not stop.is_set():
                conn.sendall(b"%x\r\n%s\r\n" % (len(block), block) if chunked else block)
                count += len(block)
            conn.sendall(b"0\r\n\r\n" if chunked else b"")
        finally:
            sent.append(count)
            done.set()
    write.sent, write.done = sent, done
    return write


@pytest.mark.parametrize("head, chunked", [
    (b"HTTP/1.1 200 OK\r\nContent-Length: 50000000\r\n\r\n", False),
    (b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", False),           # read until close
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", True),
], ids=["declared", "until-close", "chunked"])
def test_an_oversized_reply_is_refused_without_reading_it_all(raw_reply, head, chunked):
    reply = stream(head, chunked=chunked)
    model = raw_reply(reply, max_reply_bytes=100_000)
    with pytest.raises(ModelAPIError, match=re.escape(
            "is larger than max_reply_bytes=100000 bytes; stopped reading")) as error:
        model("hi")
    assert error.value.status == 200
    assert reply.done.wait(30) and reply.sent[0] < 25_000_000   # socket buffers, not 50 MB


def test_a_huge_error_body_is_read_only_in_part(raw_reply):
    reply = stream(b"HTTP/1.1 500 Oops\r\nContent-Length: 50000000\r\n\r\n")
    with pytest.raises(ModelAPIError, match="answered HTTP 500: '000") as error:
        raw_reply(reply)("hi")
    assert error.value.status == 500 and error.value.body == "0" * 500
    assert reply.done.wait(30) and reply.sent[0] < 25_000_000


def test_a_reply_at_the_cap_is_read(raw_reply):
    body = json.dumps(completion("fits")).encode()
    model = raw_reply(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
                      max_reply_bytes=len(body))
    assert model("hi") == "fits"


def test_invalid_utf8_is_a_malformed_reply(raw_reply):
    body = b'{"choices": [{"message": {"role": "assistant", "content": "caf\xe9"}}]}'
    model = raw_reply(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    with pytest.raises(MalformedResponseError, match=r"not valid UTF-8 \(byte 62\)") as error:
        model("hi")
    assert error.value.status == 200 and "caf\ufffd" in error.value.body


def test_deadline_and_cap_defaults():
    model = OpenAICompatibleModel("http://h/v1", "m", env={})
    assert (model.timeout, model.deadline, model.max_reply_bytes) == (30, 60, 8 * 1024 * 1024)
    assert OpenAICompatibleModel("http://h/v1", "m", env={}, timeout=100).deadline == 200
    assert OpenAICompatibleModel("http://h/v1", "m", env={}, timeout=100, deadline=5).deadline == 5


@pytest.mark.parametrize("kwargs, message", [
    ({"deadline": 0}, "deadline must be a number of seconds > 0 (at most 1e9), got 0"),
    ({"deadline": float("nan")}, "deadline must be a number of seconds > 0 (at most 1e9), got nan"),
    ({"deadline": "60"}, "deadline must be a number of seconds > 0 (at most 1e9), got '60'"),
    ({"max_reply_bytes": 0}, "max_reply_bytes must be >= 1, got 0"),
    ({"max_reply_bytes": 1.5}, "max_reply_bytes must be an int, got float: 1.5"),
    ({"max_reply_bytes": True}, "max_reply_bytes must be an int, got bool: True"),
])
def test_bad_deadline_or_cap_is_a_configuration_error(kwargs, message):
    with pytest.raises(ModelConfigError, match=re.escape(message)):
        OpenAICompatibleModel("http://h/v1", "m", env={}, **kwargs)


@pytest.fixture
def tls_server(tmp_path, monkeypatch):
    """The raw server's idea over TLS: a self-signed certificate for 127.0.0.1, which
    the client trusts through SSL_CERT_FILE. ``tls_server(write)`` gives a model."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("no openssl command to make a test certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))
    writers, stop = [], threading.Event()

    def serve():
        while True:
            try:
                raw, _ = listener.accept()
                conn = context.wrap_socket(raw, server_side=True)
            except OSError:
                return
            with conn:
                head = read_request(conn)
                try:
                    writers[0](conn, head, stop)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    def model(write, **kwargs):
        writers[:] = [write]
        return OpenAICompatibleModel(f"https://127.0.0.1:{listener.getsockname()[1]}/v1",
                                     "m", KEY, env={}, **kwargs)
    yield model
    stop.set()
    listener.shutdown(socket.SHUT_RDWR)
    listener.close()
    thread.join()


def test_https_works_and_keeps_the_deadline(tls_server):
    def answer(conn, head, stop):
        body = json.dumps(completion("over TLS")).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    assert tls_server(answer)("hi") == "over TLS"
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 400\r\n\r\n"
    start = time.monotonic()
    with pytest.raises(TimeoutError, match="passed its deadline of 1 s"):
        tls_server(trickle(head), timeout=5, deadline=1)("hi")
    assert time.monotonic() - start < 1 + 5


def test_the_hostile_server_benchmark_finds_nothing_sent_and_every_call_bounded():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "reliability_http.py"
    spec = importlib.util.spec_from_file_location("reliability_http", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rows = bench.scenarios()
    assert all(set(row) == {"scenario", "outcome", "credentials_sent_off_origin", "bounded",
                            "seconds"} for row in rows)
    outcomes = {row["scenario"]: row["outcome"] for row in rows}
    assert outcomes["normal server"] == "answered"
    assert {row["credentials_sent_off_origin"] for row in rows} == {0}
    assert all(row["bounded"] for row in rows), rows
    assert all("key shown" not in row["outcome"] for row in rows), rows
    assert outcomes["trickle, 1 byte/s, deadline 2 s"] == "TimeoutError: deadline passed"
    assert outcomes["200 MB claimed body"] == "ModelAPIError: reply too large"
    assert outcomes["invalid UTF-8"] == "MalformedResponseError: not valid UTF-8"
    assert outcomes["redirect 302 off-origin"].startswith("ModelAPIError: redirect refused")


# --- a breaker's trial (issue 10 follow-up): malformed replies, any case of the key, -----
# --- base URLs that cannot be sent ------------------------------------------------------

@pytest.mark.parametrize("status", [301, 302])
@pytest.mark.parametrize("location", ["http://[::1", "http://[bad"])
def test_a_redirect_with_a_malformed_location_is_refused(raw_reply, status, location):
    model = raw_reply(redirect(status, location), api_key=KEY)
    with pytest.raises(ModelAPIError, match=f"answered HTTP {status}, a redirect to an "
                                            "unreadable address: not followed") as error:
        model("hi")
    assert error.value.status == status and len(raw_reply.requests) == 1


@pytest.mark.parametrize("status, says", [
    (200, "broken reply from .*: ValueError: read length must be non-negative"),
    (400, "answered HTTP 400: ''; then a broken reply: ValueError: read length"),
    (302, "a redirect to http://127.0.0.1:\\d+: not followed .*; then a broken reply: ValueError"),
])
def test_a_broken_chunk_size_is_a_model_api_error(raw_reply, status, says):
    head = b"HTTP/1.1 %d X\r\nTransfer-Encoding: chunked\r\n" % status
    head += b"Location: /elsewhere\r\n" if status == 302 else b""
    model = raw_reply(head + b"\r\n-5\r\nabc\r\n", api_key=KEY)
    with pytest.raises(ModelAPIError, match=says) as error:
        model("hi")
    assert error.value.status == (None if status == 200 else status)
    assert KEY not in everything_shown(error.value)


MIXED_KEY = "sk-Mixed-Key-77"


@pytest.mark.parametrize("form", [MIXED_KEY.lower(), MIXED_KEY.upper(), "Sk-mIxEd-kEy-77"])
def test_the_key_is_hidden_whatever_its_case(raw_reply, form):
    body = f"invalid key {form} for this project".encode()
    model = raw_reply(b"HTTP/1.1 403 Forbidden\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
                      api_key=MIXED_KEY)
    with pytest.raises(ModelAPIError, match=re.escape("invalid key *** for this project")) as error:
        model("hi")
    assert form not in everything_shown(error.value)
    assert error.value.body == "invalid key *** for this project"


def test_a_key_lowercased_in_a_redirect_host_is_hidden(raw_reply):
    model = raw_reply(redirect(302, f"http://{MIXED_KEY}.evil.example:8443/"), api_key=MIXED_KEY)
    with pytest.raises(ModelAPIError, match=re.escape("a redirect to http://***.evil.example:8443: "
                                                      "not followed")) as error:
        model("hi")
    assert MIXED_KEY.lower() not in everything_shown(error.value).lower()


def error_body_for(raw_reply, body, key):
    """The body of the ModelAPIError a 403 quoting ``body`` gives, and all it shows."""
    reply = b"HTTP/1.1 403 Forbidden\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    with pytest.raises(ModelAPIError) as error:
        raw_reply(reply, api_key=key)("hi")
    return error.value.body, everything_shown(error.value)


@pytest.mark.parametrize("form", [
    ODD_KEY.encode().hex(), ODD_KEY.encode().hex().upper(),
    urllib.parse.quote(ODD_KEY, safe="").lower(),                # %2f, not %2F
], ids=["hex", "HEX", "percent-lowercase"])
def test_the_key_is_hidden_in_hex_and_lowercase_percent_forms(raw_reply, form):
    body, shown = error_body_for(raw_reply, f"you sent {form} here".encode(), ODD_KEY)
    assert body == "you sent *** here" and form not in shown


@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode])
@pytest.mark.parametrize("prefix", ["", "u:", "user:"])          # the 3 offsets mod 3
def test_the_key_is_hidden_in_base64_at_any_offset(raw_reply, prefix, encode):
    form = encode((prefix + ODD_KEY).encode()).decode()
    body, shown = error_body_for(raw_reply, f"you sent {form} here".encode(), ODD_KEY)
    left, right = body.removeprefix("you sent ").removesuffix(" here").split("***")
    assert form.startswith(left) and len(left) <= -(-8 * len(prefix) // 6)   # the prefix's
    assert form.endswith(right) and len(right.rstrip("=")) <= 1          # a partial char
    assert form not in shown


def test_a_short_key_is_hidden_in_any_case_but_its_short_encodings_are_not(raw_reply):
    body = b"abc 6b aw K"                   # hex and base64 of "k" are too short to hide
    model = raw_reply(b"HTTP/1.1 403 Forbidden\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
                      api_key="k")
    with pytest.raises(ModelAPIError) as error:
        model("hi")
    assert error.value.body == "abc 6b aw ***"


@pytest.mark.parametrize("base_url, message", [
    ("http://127.0.0.1:9/vé", "base_url must be ASCII"),
    ("http://café.example/v1", "base_url must be ASCII"),
    ("http://a..b/v1", "base_url's host is not a valid host name"),
    ("http://" + "x" * 64 + ".example/v1", "base_url's host is not a valid host name"),
    ("http://h:abc/v1", "base_url's port must be a number from 0 to 65535, got 'http://h:abc/v1'"),
    ("http://h:99999/v1", "base_url's port must be a number from 0 to 65535"),
    ("http://h/v1?api-key=sk-secret-9", "base_url must not hold a query (?...), got 'http://h/v1?***'"),
    ("http://h/v1?", "base_url must not hold a query (?...), got 'http://h/v1?***'"),
    ("http://h/v1#sk-secret-9", "base_url must not hold a fragment (#...), got 'http://h/v1#***'"),
    ("h/v1?key=sk-secret-9", "must start with http:// or https://, got 'h/v1?***'"),
])
def test_a_base_url_that_cannot_be_sent_is_refused_at_construction(base_url, message):
    with pytest.raises(ModelConfigError, match=re.escape(message)) as error:
        OpenAICompatibleModel(base_url, "m", env={})
    assert "sk-secret-9" not in everything_shown(error.value)
