"""Unit tests of kit/openai_compat.py against a small chat-completions server on
127.0.0.1 (http.server in a thread, ephemeral port). The network guard of conftest.py
allows loopback, and nothing else."""
import importlib.util
import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

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
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture
def server(httpd, monkeypatch):
    """The server with fresh state: no recorded requests, default replies, key KEY."""
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
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



@pytest.fixture
def raw_reply():
    """A 127.0.0.1 server that answers every request with fixed raw bytes (no HTTP
    library: garbage, a cut-off body, a broken chunked encoding) and closes."""
    listener = socket.create_server(("127.0.0.1", 0))
    replies = []

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn, conn.makefile("rb") as request:    # read the whole request first
                length = 0
                for line in iter(request.readline, b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                request.read(length)
                conn.sendall(replies[0])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    def model(payload):
        replies[:] = [payload]
        return OpenAICompatibleModel(f"http://127.0.0.1:{listener.getsockname()[1]}/v1",
                                     "m", env={}, timeout=5)
    yield model
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
