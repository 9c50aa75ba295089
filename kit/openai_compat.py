"""An optional real model: any OpenAI-compatible chat-completions endpoint as a kit model,
and any OpenAI-compatible embeddings endpoint as a kit embedder.

The kit runs on stub models; this adapter lets you swap in a real one (a hosted API,
Ollama, vLLM, a llama.cpp server...) without changing any other code. It speaks the
chat-completions protocol: ``POST {base_url}/chat/completions`` with a JSON body
``{"model": ..., "messages": [{"role": ..., "content": ...}, ...]}`` and reads
``choices[0].message.content`` from the JSON reply.

:class:`OpenAICompatibleEmbedder` is the same client for the embeddings protocol, an
embedder for :class:`kit.ranking.dense.DenseIndex`: ``POST {base_url}/embeddings`` with
``{"model": ..., "input": [text, ...]}`` (at most ``batch_size`` texts, default 64, per
request), reading ``data[i].embedding`` in ``index`` order. It reads the same base URL
and key as the chat model, and its model name from ``KIT_EMBEDDING_MODEL`` (e.g.
``nomic-embed-text`` on Ollama, ``text-embedding-3-small`` on OpenAI). All that follows
about hostile servers holds for it too; its deadline is per request.

Configuration, each argument first, then the environment:

=========  ========================================================  ==================
argument   environment (first one set wins)                          example
=========  ========================================================  ==================
base_url   ``KIT_LLM_BASE_URL``, ``OPENAI_BASE_URL``                 ``http://localhost:11434/v1`` (Ollama)
model      ``KIT_LLM_MODEL``                                         ``llama3.2``
api_key    ``KIT_LLM_API_KEY``, ``OPENAI_API_KEY`` (optional)        sent as ``Authorization: Bearer ...``
model      ``KIT_EMBEDDING_MODEL`` (the embedder's)                  ``nomic-embed-text``
=========  ========================================================  ==================

There is no default endpoint: nothing is sent anywhere you did not name. Only the
standard library is used (``urllib.request``, ``http.client``, ``json``). Importing this
module and creating a model never touch the network; only a call does.

Against a hostile or broken server (each with a clear error, never a hang or a leak):

- **No redirect is followed**, not even to the same host: a 3xx is a ModelAPIError naming
  the status and the origin of its ``Location`` (or "an unreadable address"), so the
  request and the key reach only ``base_url``. Fix ``base_url`` to the address the server
  names.
- **The key is never shown**: not in ``repr()``, not in any error. The key's value in any
  letter case, JSON-escaped, percent-encoded, in hex or in base64 (alone or inside a
  longer value; hex and base64 forms of at least 8 characters), and any
  ``Authorization: ...`` or ``Bearer ...`` a server quotes, read ``***`` (one linear
  pass). A key inside the base URL (``http://user:KEY@host``) is refused with
  ModelConfigError: pass it as ``api_key=`` or ``KIT_LLM_API_KEY`` instead.
- **A base URL that could not be sent is refused when the model is made**: not ASCII,
  with a query or fragment (shown as ``?***``), a port that is not 0 to 65535, or a host
  name with an empty label or one over 63 characters.
- **A malformed reply** (garbage, cut off, a bad chunk size) is a ModelAPIError saying
  "broken reply", never a raw exception; for an error reply, after its status.
- **A deadline per call**: ``deadline`` seconds of wall clock for connect, request and
  the whole reply (default twice ``timeout``: 60 s); each socket operation waits at most
  ``min(timeout, time left)``, so a server trickling bytes is cut off. Name resolution
  (DNS) and a TLS handshake are bounded per socket operation only.
- **A cap on the reply**: at most ``max_reply_bytes`` (default 8 MiB) are read; a longer
  reply (declared or not) is refused when the cap is passed. Error replies are read up
  to 4 KiB.
- The reply must be valid UTF-8 (else MalformedResponseError).

Source: the OpenAI chat-completions API, which these servers implement.
"""
from __future__ import annotations

import base64
import functools
import http.client
import io
import json
import math
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence

from kit.validation import check_int

__all__ = ["OpenAICompatibleModel", "OpenAICompatibleEmbedder", "ModelConfigError",
           "ModelAPIError", "MalformedResponseError", "configured", "ENV_BASE_URL", "ENV_MODEL",
           "ENV_API_KEY", "ENV_EMBEDDING_MODEL", "DEFAULT_MAX_REPLY_BYTES",
           "DEFAULT_EMBEDDING_BATCH"]

ENV_BASE_URL = ("KIT_LLM_BASE_URL", "OPENAI_BASE_URL")
ENV_MODEL = ("KIT_LLM_MODEL",)
ENV_API_KEY = ("KIT_LLM_API_KEY", "OPENAI_API_KEY")
ENV_EMBEDDING_MODEL = ("KIT_EMBEDDING_MODEL",)
DEFAULT_EMBEDDING_BATCH = 64                  # texts per embeddings request
DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024     # a chat reply is kilobytes; 8 MiB is generous
_ERROR_BODY_BYTES = 4096                      # of an error reply, enough to explain it
_CHUNK = 64 * 1024
# What http.client raises on a malformed reply: its own errors, socket errors, and a
# ValueError for some garbage (e.g. a negative chunk size: "read length must be ...").
_BROKEN = (http.client.HTTPException, OSError, ValueError)


class ModelConfigError(ValueError):
    """The endpoint or model name is missing or invalid."""


class ModelAPIError(RuntimeError):
    """The endpoint answered with an HTTP error or a redirect, a reply too large, or
    could not be reached.

    ``status``: the HTTP status (None if there was no reply); ``body``: the start of the
    reply body (at most 500 characters, "" if none), the key hidden.
    """

    def __init__(self, message: str, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status, self.body = status, body


class MalformedResponseError(ModelAPIError):
    """The reply is not UTF-8, not JSON, or lacks ``choices[0].message.content`` as a
    str (for embeddings: ``data[i].embedding``, a list of finite numbers, one per input);
    the message names the missing or wrong field."""


def _from_env(names: Sequence[str], env: Mapping[str, str]) -> str | None:
    for name in names:
        if env.get(name):
            return env[name]
    return None


def configured(env: Mapping[str, str] | None = None) -> bool:
    """True when the environment names both an endpoint and a model (see the module
    docstring), i.e. ``OpenAICompatibleModel()`` would not raise ModelConfigError."""
    try:
        OpenAICompatibleModel(env=os.environ if env is None else env)   # no network
    except ModelConfigError:
        return False
    return True


def _hide_userinfo(text: str) -> str:
    """``text`` (a URL, or its repr) with a ``user:key@`` part shown as ``***@``."""
    scheme = text.find("//")
    start = 0 if scheme < 0 else scheme + 2
    at = text.rfind("@", start)
    return text if at < 0 else text[:start] + "***" + text[at:]


def _query_start(text: str) -> int:
    """The index of the first ``?`` (a query) or ``#`` (a fragment) in ``text``; -1 if none."""
    return min((i for i in (text.find("?"), text.find("#")) if i >= 0), default=-1)


def _hide_url_secrets(text: str) -> str:
    """``text`` (a URL, or its repr) with a ``user:key@`` part shown as ``***@`` and what
    follows a ``?`` or ``#`` as ``***``."""
    text = _hide_userinfo(text)
    cut = _query_start(text)
    return text if cut < 0 else text[:cut + 1] + "***"


def _check_base_url(base_url: object) -> str:
    shown = repr(_hide_url_secrets(base_url)) if isinstance(base_url, str) \
        else _hide_url_secrets(repr(base_url))      # a key in the URL is never shown
    if not isinstance(base_url, str):
        raise ModelConfigError(f"base_url must be a str, got {type(base_url).__name__}: "
                               f"{shown:.60}")
    if not base_url.startswith(("http://", "https://")):
        raise ModelConfigError(f"base_url must start with http:// or https://, got {shown}")
    if any(ch.isspace() or not ch.isprintable() for ch in base_url):
        raise ModelConfigError(f"base_url must not hold spaces or control characters, "
                               f"got {shown}")
    if not base_url.isascii():                      # http.client sends ASCII only
        raise ModelConfigError(f"base_url must be ASCII (percent-encode a path: é is %C3%A9; "
                               f"write a host in its xn-- form), got {shown}")
    try:
        parts = urllib.parse.urlsplit(base_url)
        host = parts.hostname
    except ValueError:                              # e.g. an unclosed [IPv6 address
        host = None
    if not host:
        raise ModelConfigError(f"base_url names no host, got {shown}")
    if "@" in parts.netloc:
        raise ModelConfigError(f"base_url must not hold a user name or key (user:key@), got "
                               f"{shown}: pass the key as api_key= or set KIT_LLM_API_KEY")
    cut = _query_start(base_url)
    if cut >= 0:                                    # would end up inside the path sent
        what = "a query (?...)" if base_url[cut] == "?" else "a fragment (#...)"
        raise ModelConfigError(f"base_url must not hold {what}, got {shown}")
    try:
        parts.port                                  # ValueError: not a number, or > 65535
    except ValueError:
        raise ModelConfigError(f"base_url's port must be a number from 0 to 65535, "
                               f"got {shown}") from None
    try:
        host.encode("idna")                         # what the socket will send to DNS
    except UnicodeError:
        raise ModelConfigError(f"base_url's host is not a valid host name (a label is empty "
                               f"or longer than 63 characters), got {shown}") from None
    return base_url


def _check_number(name: str, value: object, low: float, strict: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value < low or (strict and value == low):
        raise ModelConfigError(f"{name} must be a finite number {'>' if strict else '>='} "
                               f"{low}, got {value!r}")


def _check_seconds(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0 < value <= 1e9:                  # NaN fails too; sockets take <= 1e9
        raise ModelConfigError(f"{name} must be a number of seconds > 0 (at most 1e9), "
                               f"got {value!r}")
    return value


# --- hiding the key ----------------------------------------------------------------------

_AUTHORIZATION = re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?)[^\r\n\"']*")
_BEARER = re.compile(r"(?i)(\bbearer\s+)[^\s\"']+")


_SHORTEST_ENCODED = 8      # a hex or base64 form shorter than this is too common to hide


def _encoded_forms(key: str) -> set[str]:
    """The key in hex, and the characters of its base64 (standard and URL-safe) that the
    key alone decides, at each of the 3 offsets it can have inside a longer encoded value
    (``user:KEY``); forms shorter than 8 characters are left out."""
    raw = key.encode()
    forms = {raw.hex()}
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + raw).decode()
        core = encoded[-(-8 * offset // 6):8 * (offset + len(raw)) // 6]   # whole chars
        forms |= {core, core.translate(str.maketrans("+/", "-_"))}
    return {form for form in forms if len(form) >= _SHORTEST_ENCODED}


def _key_pattern(key: str | None) -> re.Pattern | None:
    """A case-insensitive pattern of ``key``'s forms: as sent, JSON-escaped, slashes
    escaped, percent-encoded, hex and base64 (see _encoded_forms); None for no key.
    The longest form is tried first; one pass over a text, linear in its length."""
    if not key:
        return None
    escaped = json.dumps(key)[1:-1]
    forms = {key, escaped, escaped.replace("/", "\\/"), urllib.parse.quote(key, safe=""),
             urllib.parse.quote_plus(key)} | _encoded_forms(key)
    return re.compile("|".join(map(re.escape, sorted(forms, key=len, reverse=True))),
                      re.IGNORECASE)


def _redact(text: str, key: re.Pattern | None) -> str:
    """``text`` with each match of ``key`` (a pattern of _key_pattern) and the value of
    any ``Authorization: ...`` or ``Bearer ...`` shown as ``***``, in any letter case."""
    if key is not None:
        text = key.sub("***", text)
    return _BEARER.sub(r"\1***", _AUTHORIZATION.sub(r"\1***", text))


# --- one call: a deadline over every socket operation, no redirects ----------------------

class _Deadline:
    """The wall-clock end of one call. ``socket_timeout()`` is what the next socket
    operation may wait: ``min(timeout, time left)``; TimeoutError once none is left.
    ``cut`` tells whether that wait was shortened by the deadline."""

    def __init__(self, seconds: float, timeout: float) -> None:
        self.end, self.timeout, self.cut = time.monotonic() + seconds, timeout, False

    def socket_timeout(self) -> float:
        left = self.end - time.monotonic()
        self.cut = left <= self.timeout
        if left <= 0:
            raise TimeoutError("deadline passed")
        return min(self.timeout, left)


class _DeadlineReader(io.RawIOBase):
    """A socket's reading side (a ``SocketIO``) that arms the deadline before each read."""

    def __init__(self, raw: io.RawIOBase, arm) -> None:
        super().__init__()
        self._raw, self._arm = raw, arm

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int | None:
        self._arm()
        return self._raw.readinto(buffer)

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()


class _DeadlineSocket:
    """A connected socket whose every send and read waits at most what the deadline
    leaves (http.client only sends with ``sendall`` and reads through ``makefile``)."""

    def __init__(self, sock, deadline: _Deadline) -> None:
        self._sock, self._deadline = sock, deadline

    def __getattr__(self, name: str):
        return getattr(self._sock, name)

    def _arm(self) -> None:
        self._sock.settimeout(self._deadline.socket_timeout())

    def sendall(self, data, *args) -> None:
        self._arm()
        self._sock.sendall(data, *args)

    def makefile(self, mode: str = "rb", *args, **kwargs) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock.makefile("rb", buffering=0), self._arm))


class _DeadlineConnection:
    """Mixed into http.client's connections: connect within the deadline, then wrap."""

    def __init__(self, *args, deadline: _Deadline, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.deadline = deadline

    def connect(self) -> None:
        self.timeout = self.deadline.socket_timeout()    # TCP connect (and TLS handshake)
        super().connect()
        self.sock = _DeadlineSocket(self.sock, self.deadline)


class _HTTPConnection(_DeadlineConnection, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_DeadlineConnection, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def http_open(self, req):
        return self.do_open(functools.partial(_HTTPConnection, deadline=self.deadline), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def https_open(self, req):
        return self.do_open(functools.partial(_HTTPSConnection, deadline=self.deadline), req,
                            context=self._context)


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """Follows no redirect: a 3xx reaches ``chat`` as an HTTPError, and the key stays home.
    Its Location is not even read here (urllib's handler raises a raw ValueError on a
    malformed one); ``_origin`` reads it for the error message."""

    def http_error_302(self, req, fp, code, msg, headers):
        return None

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """urllib's usual opener (proxies from the environment included), but bounded by
    ``deadline`` and following no redirect."""
    return urllib.request.build_opener(_RefuseRedirects, _HTTPHandler(deadline),
                                       _HTTPSHandler(deadline))


def _read_capped(response, cap: int) -> bytes | None:
    """The body of ``response``, read in chunks; None (reading stopped) as soon as it is
    known to be longer than ``cap`` bytes, from its Content-Length or from what came.
    Raises http.client.IncompleteRead for a body shorter than its Content-Length."""
    if (response.length or 0) > cap:                  # http.client's Content-Length, left
        return None
    body = bytearray()
    while len(body) <= cap:
        chunk = response.read(min(_CHUNK, cap + 1 - len(body)))
        if not chunk:
            if response.length:                       # the connection closed early
                raise http.client.IncompleteRead(bytes(body), response.length)
            return bytes(body)
        body += chunk
    return None


def _origin(url: str, location: str | None) -> str:
    """``scheme://host[:port]`` of a redirect's Location (resolved against ``url``):
    nothing of its path, query or user part."""
    try:
        parts = urllib.parse.urlsplit(urllib.parse.urljoin(url, location or ""))
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not location or not host:
        return "an address it did not give" if not location else "an unreadable address"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}{f':{port}' if port else ''}"[:120]


def _settings(base_url: str | None, model: str | None, timeout: float, deadline: float | None,
              max_reply_bytes: int, env: Mapping[str, str], model_names: Sequence[str],
              no_model: str) -> tuple[str, str, float, float, int]:
    """``(base_url, model, timeout, deadline, max_reply_bytes)``: each argument, or the
    environment's (``model_names`` for the model), checked; ModelConfigError naming the
    first bad one (``no_model`` when no model is named)."""
    base_url = base_url or _from_env(ENV_BASE_URL, env)
    model = model or _from_env(model_names, env)
    if not base_url:
        raise ModelConfigError(
            "no endpoint: pass base_url= or set KIT_LLM_BASE_URL (or OPENAI_BASE_URL), "
            "e.g. http://localhost:11434/v1 for Ollama or https://api.openai.com/v1")
    base_url = _check_base_url(base_url)
    if not model:
        raise ModelConfigError(no_model)
    if not isinstance(model, str) or not model.strip():
        raise ModelConfigError(f"model must be a non-blank str, got {model!r:.60}")
    timeout = _check_seconds("timeout", timeout)
    deadline = 2 * timeout if deadline is None else _check_seconds("deadline", deadline)
    return base_url, model, timeout, deadline, _config_int("max_reply_bytes", max_reply_bytes)


def _config_int(name: str, value: object) -> int:
    """``value`` if it is an int >= 1; else ModelConfigError naming it."""
    try:
        return check_int(name, value, 1)
    except (TypeError, ValueError) as error:
        raise ModelConfigError(str(error)) from None


class _Endpoint:
    """What the chat model and the embedder share: their checked settings, the key kept
    out of sight, one POST of a JSON body to ``{base_url}/{_path}`` within the deadline
    and the size cap, and the errors it raises."""

    _path = ""

    def _configure(self, settings: tuple[str, str, float, float, int], api_key: str | None,
                   env: Mapping[str, str]) -> None:
        """Check the key (the argument, or the environment's), then keep ``settings``
        (from :func:`_settings`) and the key."""
        api_key = api_key or _from_env(ENV_API_KEY, env)
        if api_key is not None and (not isinstance(api_key, str) or not api_key.isascii()
                                    or any(ch.isspace() or not ch.isprintable() for ch in api_key)):
            # the key itself is never shown
            raise ModelConfigError(f"api_key must be a str of printable ASCII without spaces, "
                                   f"got a {type(api_key).__name__} of length "
                                   f"{len(api_key) if isinstance(api_key, str) else '?'}")
        base_url, self.model, self.timeout, self.deadline, self.max_reply_bytes = settings
        self.base_url = base_url.rstrip("/")
        self._api_key, self._key_pattern = api_key, _key_pattern(api_key)
        self.calls = 0

    @property
    def url(self) -> str:
        return f"{self.base_url}/{self._path}"

    def _redact(self, text: str) -> str:
        return _redact(text, self._key_pattern)

    def _post(self, body: dict) -> tuple[int, str]:
        """Send ``body`` as JSON (counted in ``calls``); (status, text) of a 2xx reply.
        Raises as :meth:`_send` does, or MalformedResponseError for a reply not UTF-8."""
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(),
                                         headers=headers, method="POST")
        self.calls += 1
        status, raw = self._send(request)
        try:
            return status, raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise self._malformed(f"not valid UTF-8 (byte {error.start})", status,
                                  raw.decode("utf-8", errors="replace")) from None

    def _send(self, request: urllib.request.Request) -> tuple[int, bytes]:
        """(status, body) of a 2xx reply, within the deadline and the size cap; every
        other outcome raises, its text redacted."""
        url, deadline = self._redact(self.url), _Deadline(self.deadline, self.timeout)
        try:
            with _opener(deadline).open(request) as response:
                raw = _read_capped(response, self.max_reply_bytes)
                if raw is None:
                    raise ModelAPIError(f"the reply from {url} is larger than max_reply_bytes="
                                        f"{self.max_reply_bytes} bytes; stopped reading",
                                        response.status)
                return response.status, raw
        except urllib.error.HTTPError as error:
            raise self._http_error(error) from None
        except TimeoutError:
            raise self._timeout(deadline) from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, TimeoutError):
                raise self._timeout(deadline) from None
            raise ModelAPIError(f"could not reach {url}: "
                                f"{self._redact(str(error.reason))}") from error
        except _BROKEN as error:                                 # garbage, cut-off reply
            raise ModelAPIError(f"broken reply from {url}: {type(error).__name__}: "
                                f"{self._redact(str(error))[:200]}") from None

    def _http_error(self, error: urllib.error.HTTPError) -> ModelAPIError:
        """The ModelAPIError of an HTTP error or a redirect (read 4 KiB of its body at most)."""
        raw, broken = b"", ""
        try:
            raw = error.read(_ERROR_BODY_BYTES)
        except _BROKEN as cause:                          # cut off, garbled, past the deadline
            broken = (f"; then a broken reply: {type(cause).__name__}: "
                      f"{self._redact(str(cause))[:200]}")
        finally:
            error.close()
        text, url = self._redact(raw.decode("utf-8", errors="replace")), self._redact(self.url)
        if 300 <= error.code < 400:
            where = self._redact(_origin(self.url, error.headers.get("Location")))
            return ModelAPIError(f"{url} answered HTTP {error.code}, a redirect to {where}: "
                                 "not followed (the request and its key go only to base_url; "
                                 f"fix base_url){broken}", error.code, text[:500])
        return ModelAPIError(f"{url} answered HTTP {error.code}: {text[:200]!r}{broken}",
                             error.code, text[:500])

    def _timeout(self, deadline: _Deadline) -> TimeoutError:
        url = self._redact(self.url)
        if deadline.cut:
            return TimeoutError(f"the call to {url} passed its deadline of {self.deadline} s "
                                "(connect, request and the whole reply; see deadline=)")
        return TimeoutError(f"no reply from {url} within {self.timeout} s")

    def _malformed(self, what: str, status: int, text: str) -> MalformedResponseError:
        shown = self._redact(text)
        return MalformedResponseError(f"malformed reply from {self._redact(self.url)}: "
                                      f"{self._redact(what)}; body began {shown[:200]!r}",
                                      status, shown[:500])


class OpenAICompatibleModel(_Endpoint):
    """A chat-completions endpoint as a kit model, callable two ways:

    - ``model(system, user) -> str`` (a chat model: a system and a user message);
    - ``model(prompt) -> str`` (a prompt model: one user message).

    ``timeout`` is in seconds, what one socket operation may wait (connect, or the wait
    for the next bytes of the reply); ``deadline`` the seconds one whole call may take
    (default ``2 * timeout``); ``max_reply_bytes`` the largest reply read (default 8 MiB);
    ``temperature`` is sent only when not None. Raises ModelConfigError for a missing base
    URL or model name, a base URL that is not http(s), names no host, holds spaces,
    control characters, non-ASCII characters, a ``user:key@`` part, a query or a fragment,
    a bad port or host name, a blank or non-str model name, a timeout or deadline that is
    not a number of seconds in (0, 1e9], a max_reply_bytes that is not an int >= 1, a
    temperature that is not a finite number >= 0, or an api_key that is not printable
    ASCII (a key's value is never shown, see the module docstring). A call raises
    ModelAPIError (HTTP status and the start of the body, a redirect not followed, a
    reply larger than max_reply_bytes, why the endpoint could not be reached, or a broken
    reply: cut off, garbled or not HTTP at all), TimeoutError (no bytes within ``timeout``, or the
    deadline passed), or MalformedResponseError (not UTF-8, not JSON, or naming the
    missing field).
    """

    _path = "chat/completions"

    def __init__(self, base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, timeout: float = 30,
                 temperature: float | None = None, env: Mapping[str, str] | None = None, *,
                 deadline: float | None = None,
                 max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES) -> None:
        env = os.environ if env is None else env
        settings = _settings(base_url, model, timeout, deadline, max_reply_bytes, env, ENV_MODEL,
                             "no model name: pass model= or set KIT_LLM_MODEL, e.g. llama3.2")
        if temperature is not None:
            _check_number("temperature", temperature, 0, strict=False)
        self._configure(settings, api_key, env)
        self.temperature = temperature

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"           # never show the key itself
        return self._redact(f"OpenAICompatibleModel(url={self.url!r}, model={self.model!r}, "
                            f"api_key={key})")

    def __call__(self, *args: str) -> str:
        if len(args) not in (1, 2) or not all(isinstance(a, str) for a in args):
            raise TypeError(f"call as model(prompt) or model(system, user) with strings, got {args!r:.80}")
        messages = [{"role": "user", "content": args[-1]}]
        if len(args) == 2:
            messages.insert(0, {"role": "system", "content": args[0]})
        return self.chat(messages)

    def chat(self, messages: Sequence[Mapping[str, str]]) -> str:
        """Send ``messages`` (dicts with str ``role`` and ``content``); return the reply
        text. Raises TypeError naming a malformed message, before anything is sent."""
        if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence) \
                or not messages:
            raise TypeError(f"messages must be a non-empty list of {{'role', 'content'}} "
                            f"dicts, got {messages!r:.80}")
        for i, m in enumerate(messages):
            if not isinstance(m, Mapping) or not all(isinstance(m.get(k), str)
                                                     for k in ("role", "content")):
                raise TypeError(f"messages[{i}] must be a dict with str 'role' and "
                                f"'content', got {m!r:.80}")
        body: dict = {"model": self.model, "messages": [dict(m) for m in messages]}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        status, text = self._post(body)
        try:
            return _content(text)
        except ValueError as error:
            raise self._malformed(str(error), status, text) from None


class OpenAICompatibleEmbedder(_Endpoint):
    """An embeddings endpoint as a kit embedder (:data:`kit.ranking.dense.Embedder`):
    ``embedder(texts) -> list[list[float]]``, one vector per text, in order, all of one
    length (a list or tuple of str in; no request for no texts).

    Texts go ``batch_size`` (default 64) per request; the vectors of a reply are put in
    the order of their ``index`` (in the order sent when a server gives none). The
    settings, their environment (the model from ``KIT_EMBEDDING_MODEL``) and their
    ModelConfigError are the chat model's (:class:`OpenAICompatibleModel`, without
    temperature), plus a batch_size that is not an int >= 1; ``deadline`` and
    ``max_reply_bytes`` hold per request (64 vectors of 3,072 numbers are about 4 MB of
    JSON). A call raises TypeError for texts that are not a list of str, before anything
    is sent; then the chat model's ModelAPIError and TimeoutError, or
    MalformedResponseError naming what is wrong: no ``data`` list, not one embedding per
    input, a bad or repeated ``index``, an embedding that is not a non-empty list of
    finite numbers, or embeddings of different lengths. ``calls`` counts the requests.
    """

    _path = "embeddings"

    def __init__(self, base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, timeout: float = 30,
                 env: Mapping[str, str] | None = None, *, deadline: float | None = None,
                 max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
                 batch_size: int = DEFAULT_EMBEDDING_BATCH) -> None:
        env = os.environ if env is None else env
        settings = _settings(base_url, model, timeout, deadline, max_reply_bytes, env,
                             ENV_EMBEDDING_MODEL, "no embedding model name: pass model= or set "
                             "KIT_EMBEDDING_MODEL, e.g. nomic-embed-text")
        self.batch_size = _config_int("batch_size", batch_size)
        self._configure(settings, api_key, env)

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"           # never show the key itself
        return self._redact(f"OpenAICompatibleEmbedder(url={self.url!r}, model={self.model!r}, "
                            f"batch_size={self.batch_size}, api_key={key})")

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        if not isinstance(texts, (list, tuple)) or not all(isinstance(t, str) for t in texts):
            raise TypeError(f"texts must be a list of str, got {texts!r:.80}")
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start:start + self.batch_size])
            status, text = self._post({"model": self.model, "input": batch})
            try:
                found = _embeddings(text, len(batch))
                if vectors and len(found[0]) != len(vectors[0]):
                    raise ValueError(f"embedding {start} has {len(found[0])} numbers, "
                                     f"embedding 0 has {len(vectors[0])}")
            except ValueError as error:
                raise self._malformed(str(error), status, text) from None
            vectors += found
        return vectors


def _json_object(text: str) -> dict:
    """The JSON object of a reply body; ValueError saying what is wrong."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deep to read") from None
    except ValueError:
        raise ValueError("not JSON") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    return data


def _content(text: str) -> str:
    """``choices[0].message.content`` of a reply body; ValueError saying what is wrong."""
    data = _json_object(text)
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ValueError("missing field 'choices' (a non-empty list)")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        raise ValueError("missing field 'choices[0].message'")
    content = message.get("content")
    if not isinstance(content, str):
        raise ValueError(f"missing field 'choices[0].message.content' (a str, got {content!r:.40})")
    return content


def _embeddings(text: str, count: int) -> list[list[float]]:
    """The ``count`` vectors of an embeddings reply body, in ``index`` order, all of one
    length; ValueError saying what is wrong."""
    items = _json_object(text).get("data")
    if not isinstance(items, list):
        raise ValueError("missing field 'data' (a list)")
    if len(items) != count:
        raise ValueError(f"the reply holds {len(items)} embeddings for {count} inputs")
    vectors: list[list[float] | None] = [None] * count
    for i, item in enumerate(items):
        index = item.get("index", i) if isinstance(item, dict) else None
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count \
                or vectors[index] is not None:
            raise ValueError(f"data[{i}].index must be an int from 0 to {count - 1} that no "
                             f"other item has, got {index!r:.40}")
        vector = vectors[index] = _vector(item.get("embedding"), i)
        width = len(vector) if i == 0 else width
        if len(vector) != width:
            raise ValueError(f"data[{i}].embedding has {len(vector)} numbers, "
                             f"data[0].embedding has {width}")
    return vectors


def _finite(x: int | float) -> bool:
    """Whether ``x`` is a finite float, or an int a float can hold (a 400-digit integer
    in a reply is no vector component)."""
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _vector(embedding: object, i: int) -> list[float]:
    """``data[i].embedding`` as a list of floats; ValueError unless it is a non-empty
    list of finite numbers."""
    if not isinstance(embedding, list) or not embedding or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and _finite(x)
            for x in embedding):
        raise ValueError(f"missing field 'data[{i}].embedding' (a non-empty list of finite "
                         f"numbers, got {embedding!r:.40})")
    return [float(x) for x in embedding]
