"""Benchmark: the OpenAI-compatible client against hostile servers, on loopback only.

Each scenario starts a small server on 127.0.0.1 (an ephemeral port; raw sockets, so it
can misbehave at will), makes one call with a key and a deadline of 2 s, and gives one
row: the outcome (the answer, or the error's type and what it says), the requests
carrying the key that reached another origin, whether the call ended within its
deadline (plus 1 s of slack), and the seconds it took. The scenarios: a normal server;
redirects to another origin (302, 308) and to the same origin (307); a server quoting
the request (so the key) in its error; a body trickling one byte a second; a body that
claims 200 MB, and one that sends 200 MB without saying so; invalid UTF-8; a key inside
the base URL. "; key shown" is added to an outcome whose error text, body or repr holds
the key. It stops by itself in a few seconds; nothing leaves the machine.

Usage: python benchmarks/reliability_http.py
"""
from __future__ import annotations

import json
import socket
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from kit.openai_compat import OpenAICompatibleModel
from kit.trace import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))   # the sibling benchmark parts
from progress import progress  # noqa: E402  benchmarks/progress.py: tqdm on stderr

KEY = "sk-bench-0123456789abcdef"      # not a real key; the servers look for it
DEADLINE = 2.0                         # seconds, every call's deadline=
SLACK = 1.0                            # seconds over the deadline still called bounded
MB = 1_000_000
COLUMNS = ["scenario", "outcome", "credentials_sent_off_origin", "bounded", "seconds"]


def _reply(status: int, body: bytes, head: str = "") -> bytes:
    return (f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{head}"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def _completion(text: str) -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()


def _answer(conn, head, stop):
    conn.sendall(_reply(200, _completion("hello")))


def _other_host(conn, head, stop):
    conn.sendall(_reply(200, _completion("from another host")))


def _redirect(status: int, location: str):
    def write(conn, head, stop):
        conn.sendall(_reply(status, b"", f"Location: {location}\r\n"))
    return write


def _echo(conn, head, stop):
    conn.sendall(_reply(401, b"invalid key; you sent:\r\n" + head))


def _trickle(conn, head, stop):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 25\r\n\r\n")
    for _ in range(25):                             # one byte a second, 25 s at most
        if stop.wait(1.0):
            return
        conn.sendall(b" ")


def _stream(total: int, declared: bool):
    def write(conn, head, stop):
        length = f"Content-Length: {total}\r\n" if declared else "Connection: close\r\n"
        conn.sendall(f"HTTP/1.1 200 OK\r\n{length}\r\n".encode())
        block = b"0" * MB
        for _ in range(total // MB):                # stops when the client goes away
            if stop.is_set():
                return
            conn.sendall(block)
    return write


def _invalid_utf8(conn, head, stop):
    conn.sendall(_reply(200, _completion("caf\u00e9").replace(b"\\u00e9", b"\xe9")))


@contextmanager
def _serving(write):
    """A server on 127.0.0.1 answering each request with ``write(conn, head, stop)``;
    yields it with ``url``, ``origin`` and ``requests`` (each request's head, bytes)."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    class server:
        origin = f"http://127.0.0.1:{listener.getsockname()[1]}"
        url, requests = origin + "/v1", []

    def serve():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.settimeout(10)
            with conn, conn.makefile("rb") as request:
                try:
                    head = b"".join(iter(request.readline, b"\r\n"))
                    length = [int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:")]
                    request.read(length[0] if length else 0)
                    server.requests.append(head)
                    write(conn, head, stop)
                except OSError:                      # the client gave up, as it should
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        thread.join(15)


def _describe(error: BaseException) -> str:
    text = str(error)
    for needle, label in [("a redirect to", f"redirect refused (HTTP {getattr(error, 'status', '')})"),
                          ("deadline", "deadline passed"), ("max_reply_bytes", "reply too large"),
                          ("UTF-8", "not valid UTF-8"), ("user name or key", "key in URL refused"),
                          ("answered HTTP", f"HTTP {getattr(error, 'status', '')}"),
                          ("no reply from", "timeout"), ("not JSON", "not JSON")]:
        if needle in text:
            return f"{type(error).__name__}: {label}"
    return f"{type(error).__name__}: {text[:60]}"


def _shows_key(*things: object) -> bool:
    return any(KEY in str(thing) for thing in things)


def _call(name: str, write, elsewhere, **model_args) -> dict:
    """One call to a server answering with ``write``; ``elsewhere`` is another origin
    whose received requests are counted."""
    elsewhere.requests.clear()
    with _serving(write) as server:
        start = time.monotonic()
        model = OpenAICompatibleModel(server.url, "m", KEY, env={}, deadline=DEADLINE,
                                      **model_args)
        try:
            answer = model("hi")
            outcome = "answered" if answer == "hello" else f"answered {answer!r:.30}"
            shown = _shows_key(model)
        except Exception as error:                   # the outcome is what we report
            outcome, shown = _describe(error), _shows_key(error, getattr(error, "body", ""), model)
        seconds = time.monotonic() - start
    sent = sum(KEY.encode() in head for head in elsewhere.requests)
    return {"scenario": name, "outcome": outcome + ("; key shown" if shown else ""),
            "credentials_sent_off_origin": sent, "bounded": seconds <= DEADLINE + SLACK,
            "seconds": round(seconds, 2)}


def _key_in_url(server) -> dict:
    """A key inside the base URL: refused when the model is made (never called, so that
    an older client could not send the key to a name server)."""
    start = time.monotonic()
    try:
        model = OpenAICompatibleModel(server.origin.replace("//", f"//user:{KEY}@") + "/v1",
                                      "m", env={}, deadline=DEADLINE)
        outcome = "accepted (not called)" + ("; key shown" if _shows_key(model) else "")
    except Exception as error:
        outcome = _describe(error) + ("; key shown" if _shows_key(error) else "")
    return {"scenario": "key in base_url (user:key@)", "outcome": outcome,
            "credentials_sent_off_origin": 0, "bounded": True,
            "seconds": round(time.monotonic() - start, 2)}


def scenarios() -> list[dict]:
    """Run every hostile-server scenario once; one row each, with the keys of COLUMNS
    (credentials_sent_off_origin: int; bounded: bool; seconds: float, wall clock)."""
    with _serving(_other_host) as elsewhere:
        cases = [
            ("normal server", _answer, {}),
            ("redirect 302 off-origin", _redirect(302, elsewhere.url + "/chat/completions"), {}),
            ("redirect 308 off-origin", _redirect(308, elsewhere.url + "/chat/completions"), {}),
            ("redirect 307 same-origin", _redirect(307, "/v2/chat/completions"), {}),
            ("key echo (HTTP 401 quoting the request)", _echo, {}),
            ("trickle, 1 byte/s, deadline 2 s", _trickle, {"timeout": 5}),
            ("200 MB claimed body", _stream(200 * MB, declared=True), {}),
            ("200 MB body without a length", _stream(200 * MB, declared=False), {}),
            ("invalid UTF-8", _invalid_utf8, {}),
        ]
        rows = [_call(name, write, elsewhere, **args)
                for name, write, args in progress(cases, "hostile servers")]
        rows.append(_key_in_url(elsewhere))
    return rows


def main() -> None:
    rows = scenarios()
    print(Table(COLUMNS, [[row[c] for c in COLUMNS] for row in rows],
                f"Hostile servers on 127.0.0.1: one call each with a key, deadline {DEADLINE:g} s"))


if __name__ == "__main__":
    main()
