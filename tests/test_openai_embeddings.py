"""Unit tests of OpenAICompatibleEmbedder (kit/openai_compat.py) against a small
embeddings server on 127.0.0.1 (http.server in a thread, ephemeral port)."""
import json
import re
from http.server import BaseHTTPRequestHandler

import pytest

from loopback import serving, without_proxies  # tests/loopback.py
from kit.openai_compat import (MalformedResponseError, ModelAPIError, ModelConfigError,
                               OpenAICompatibleEmbedder, OpenAICompatibleModel)
from kit.ranking.dense import DenseIndex

KEY = "sk-embed-456"


def vector_of(text):
    """The server's embedding of a text: three numbers anyone can recompute."""
    return [float(len(text)), float(text.count("a")), 0.5]


def reply_for(texts, order=None):
    """An embeddings reply for ``texts``; its items listed in ``order`` (positions)."""
    order = range(len(texts)) if order is None else order
    return {"object": "list", "model": "tiny-embed",
            "data": [{"object": "embedding", "index": i, "embedding": vector_of(texts[i])}
                     for i in order],
            "usage": {"prompt_tokens": 1, "total_tokens": 1}}


class Handler(BaseHTTPRequestHandler):
    """POST /v1/embeddings like a real server: 404 for another path, 401 for a wrong key,
    400 for a body without model/input, else ``server.reply(texts)`` -> (status, bytes),
    by default the items in reverse order (a server may list them in any order)."""

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.requests.append({"path": self.path, "headers": dict(self.headers),
                                     "body": json.loads(body or b"null")})
        if self.path != "/v1/embeddings":
            return self.send(404, b'{"error": "not found"}')
        if self.headers.get("Authorization") != f"Bearer {KEY}":
            return self.send(401, b'{"error": {"message": "Incorrect API key provided"}}')
        request = json.loads(body)
        if not isinstance(request.get("model"), str) or not isinstance(request.get("input"), list):
            return self.send(400, b'{"error": "bad request body"}')
        texts = request["input"]
        if self.server.reply is not None:
            return self.send(*self.server.reply(texts))
        self.send(200, json.dumps(reply_for(texts, reversed(range(len(texts))))).encode())

    def send(self, status, payload):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def httpd():
    """One server for the module, on an ephemeral port of 127.0.0.1."""
    with serving(Handler) as httpd:
        yield httpd


@pytest.fixture
def server(httpd, monkeypatch):
    without_proxies(monkeypatch)
    httpd.requests, httpd.reply = [], None
    return httpd


def embedder_for(server, **kwargs):
    return OpenAICompatibleEmbedder(server.base_url, "tiny-embed", KEY, env={}, **kwargs)


def test_right_vectors_in_the_right_order(server):
    texts = ["a cat", "banana", "", "hi"]
    embedder = embedder_for(server)
    assert embedder(texts) == [vector_of(t) for t in texts]      # the reply lists 3, 2, 1, 0
    request = server.requests[0]
    assert request["path"] == "/v1/embeddings"
    assert request["body"] == {"model": "tiny-embed", "input": texts}
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    assert embedder.calls == 1


def test_large_inputs_go_in_batches(server):
    texts = [f"text {'a' * i}" for i in range(10)]
    embedder = embedder_for(server, batch_size=4)
    assert embedder(texts) == [vector_of(t) for t in texts]
    assert [r["body"]["input"] for r in server.requests] == [texts[:4], texts[4:8], texts[8:]]
    assert embedder.calls == 3


def test_the_default_batch_is_64_texts(server):
    texts = [str(i) for i in range(130)]
    assert embedder_for(server)(texts) == [vector_of(t) for t in texts]
    assert [len(r["body"]["input"]) for r in server.requests] == [64, 64, 2]


def test_no_texts_send_nothing(server):
    embedder = embedder_for(server)
    assert embedder([]) == [] and server.requests == [] and embedder.calls == 0


def test_a_reply_without_indices_keeps_the_order_sent(server):
    def plain(texts):
        return 200, json.dumps({"data": [{"embedding": vector_of(t)} for t in texts]}).encode()
    server.reply = plain
    assert embedder_for(server)(["x", "yy"]) == [vector_of("x"), vector_of("yy")]


def test_a_dense_index_over_the_endpoint(server):
    index = DenseIndex(embedder_for(server, batch_size=2))
    index.extend([(1, "aaa"), (2, "b"), (3, "ab")])
    assert len(server.requests) == 2 and index.dim == 3
    best = index.search("aaa")[0]
    assert best[0] == 1 and best[1] == pytest.approx(1.0)


@pytest.mark.parametrize("make, field", [
    (lambda texts: b"<html>Bad Gateway</html>", "not JSON"),
    (lambda texts: b"[1, 2]", "expected a JSON object, got list"),
    (lambda texts: b'{"error": "none"}', "missing field 'data' (a list)"),
    (lambda texts: json.dumps(reply_for(texts[:-1])).encode(),
     "the reply holds 2 embeddings for 3 inputs"),
    (lambda texts: json.dumps(reply_for(texts + ["extra"])).encode(),
     "the reply holds 4 embeddings for 3 inputs"),
    (lambda texts: json.dumps(reply_for(texts, [0, 1, 1])).encode(),
     "data[2].index must be an int from 0 to 2 that no other item has, got 1"),
    (lambda texts: json.dumps({"data": [{"index": 7, "embedding": [1.0]}] * 3}).encode(),
     "data[0].index must be an int from 0 to 2"),
    (lambda texts: json.dumps({"data": [{"index": i, "embedding": "AAAA"} for i in range(3)]}).encode(),
     "missing field 'data[0].embedding' (a non-empty list of finite numbers, got 'AAAA')"),
    (lambda texts: json.dumps({"data": [{"index": i, "embedding": []} for i in range(3)]}).encode(),
     "missing field 'data[0].embedding'"),
    (lambda texts: b'{"data": [{"index": 0, "embedding": [1.0, NaN]}, {"index": 1, "embedding": '
                   b'[1.0, 2.0]}, {"index": 2, "embedding": [1.0, 2.0]}]}',
     "missing field 'data[0].embedding' (a non-empty list of finite numbers, got [1.0, nan])"),
    (lambda texts: json.dumps({"data": [{"index": i, "embedding": [1.0] * (2 + (i == 1))}
                                        for i in range(3)]}).encode(),
     "data[1].embedding has 3 numbers, data[0].embedding has 2"),
    (lambda texts: json.dumps({"data": [{"index": i, "embedding": [True, 1.0]}
                                        for i in range(3)]}).encode(),
     "missing field 'data[0].embedding'"),
])
def test_malformed_replies_name_what_is_wrong(server, make, field):
    server.reply = lambda texts: (200, make(texts))
    with pytest.raises(MalformedResponseError, match=re.escape(field)) as error:
        embedder_for(server)(["a", "bb", "ccc"])
    assert error.value.status == 200 and error.value.body == make(["a", "bb", "ccc"]).decode()


def test_an_integer_too_large_for_a_float_is_malformed(server):
    huge = "1" + "0" * 400
    body = ('{"data": [' + ", ".join(f'{{"index": {i}, "embedding": [{huge}]}}'
                                     for i in range(3)) + "]}").encode()
    server.reply = lambda texts: (200, body)
    with pytest.raises(MalformedResponseError, match=re.escape(
            "missing field 'data[0].embedding' (a non-empty list of finite numbers")):
        embedder_for(server)(["a", "bb", "ccc"])


def test_batches_of_different_lengths_are_malformed(server):
    def growing(texts):
        body = reply_for(texts)
        for item in body["data"]:
            item["embedding"] += [0.0] * len(server.requests)     # 1 more per request
        return 200, json.dumps(body).encode()
    server.reply = growing
    with pytest.raises(MalformedResponseError, match="embedding 2 has 5 numbers, embedding 0 has 4"):
        embedder_for(server, batch_size=2)(["a", "b", "c"])


@pytest.mark.parametrize("status, body", [(500, b'{"error": "server exploded"}'),
                                          (429, b"rate limited, slow down")])
def test_http_errors_give_status_and_body(server, status, body):
    server.reply = lambda texts: (status, body)
    with pytest.raises(ModelAPIError, match=f"embeddings answered HTTP {status}") as error:
        embedder_for(server)(["a"])
    assert error.value.status == status and body.decode() in error.value.body
    assert not isinstance(error.value, MalformedResponseError)


def test_a_wrong_key_is_a_401(server):
    embedder = OpenAICompatibleEmbedder(server.base_url, "tiny-embed", "sk-wrong-key", env={})
    with pytest.raises(ModelAPIError, match="HTTP 401") as error:
        embedder(["a"])
    assert error.value.status == 401 and "Incorrect API key" in error.value.body


def test_a_key_the_server_quotes_is_never_shown(server):
    embedder = embedder_for(server)
    server.reply = lambda texts: (403, f'{{"error": "key {KEY} is not allowed"}}'.encode())
    with pytest.raises(ModelAPIError, match="HTTP 403") as error:
        embedder(["a"])
    assert KEY not in str(error.value) + error.value.body and "key *** is" in error.value.body
    assert KEY not in repr(embedder) and "api_key=set" in repr(embedder)


def test_a_wrong_path_is_a_404(server):
    embedder = OpenAICompatibleEmbedder(server.base_url.removesuffix("/v1"), "m", KEY, env={})
    with pytest.raises(ModelAPIError, match="HTTP 404"):
        embedder(["a"])


def test_a_failing_batch_returns_nothing(server):
    def second_fails(texts):
        if len(server.requests) == 2:
            return 503, b"busy"
        return 200, json.dumps(reply_for(texts)).encode()
    server.reply = second_fails
    with pytest.raises(ModelAPIError, match="HTTP 503"):
        embedder_for(server, batch_size=1)(["a", "b", "c"])
    assert len(server.requests) == 2                  # stopped at the failing batch


@pytest.mark.parametrize("texts", ["one text", [1, 2], None, ["a", None]])
def test_texts_must_be_a_list_of_str_before_anything_is_sent(server, texts):
    embedder = embedder_for(server)
    with pytest.raises(TypeError, match="texts must be a list of str"):
        embedder(texts)
    assert server.requests == [] and embedder.calls == 0


# --- configuration ---------------------------------------------------------------------

def test_configuration_from_the_environment():
    env = {"KIT_LLM_BASE_URL": "http://localhost:11434/v1", "KIT_LLM_MODEL": "llama3.2",
           "KIT_EMBEDDING_MODEL": "nomic-embed-text", "OPENAI_API_KEY": "sk-openai"}
    embedder = OpenAICompatibleEmbedder(env=env)
    assert (embedder.url, embedder.model) == ("http://localhost:11434/v1/embeddings",
                                             "nomic-embed-text")
    assert embedder._api_key == "sk-openai" and embedder.batch_size == 64
    assert OpenAICompatibleModel(env=env).model == "llama3.2"     # the chat model's own


def test_the_default_environment_is_os_environ(monkeypatch):
    monkeypatch.setenv("KIT_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("KIT_EMBEDDING_MODEL", "e5-small")
    assert OpenAICompatibleEmbedder().model == "e5-small"


@pytest.mark.parametrize("kwargs, message", [
    ({"env": {"KIT_LLM_BASE_URL": "http://h/v1", "KIT_LLM_MODEL": "llama3.2"}},
     "no embedding model name: pass model= or set KIT_EMBEDDING_MODEL"),
    ({"env": {"KIT_EMBEDDING_MODEL": "m"}}, "no endpoint: pass base_url="),
    ({"base_url": "ftp://h", "model": "m", "env": {}}, "must start with http:// or https://"),
    ({"base_url": "http://u:sk-x@h/v1", "model": "m", "env": {}}, "must not hold a user name or key"),
    ({"base_url": "http://h", "model": "m", "env": {}, "batch_size": 0},
     "batch_size must be >= 1, got 0"),
    ({"base_url": "http://h", "model": "m", "env": {}, "batch_size": 2.0},
     "batch_size must be an int"),
    ({"base_url": "http://h", "model": "m", "env": {}, "timeout": 0}, "timeout must be"),
    ({"base_url": "http://h", "model": " ", "env": {}}, "model must be a non-blank str"),
])
def test_bad_configuration_is_refused(kwargs, message):
    with pytest.raises(ModelConfigError, match=re.escape(message)):
        OpenAICompatibleEmbedder(**kwargs)
