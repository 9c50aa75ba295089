"""An optional real model: any OpenAI-compatible chat-completions endpoint as a kit model.

The kit runs on stub models; this adapter lets you swap in a real one (a hosted API,
Ollama, vLLM, a llama.cpp server...) without changing any other code. It speaks the
chat-completions protocol: ``POST {base_url}/chat/completions`` with a JSON body
``{"model": ..., "messages": [{"role": ..., "content": ...}, ...]}`` and reads
``choices[0].message.content`` from the JSON reply.

Configuration, each argument first, then the environment:

=========  ========================================================  ==================
argument   environment (first one set wins)                          example
=========  ========================================================  ==================
base_url   ``KIT_LLM_BASE_URL``, ``OPENAI_BASE_URL``                 ``http://localhost:11434/v1`` (Ollama)
model      ``KIT_LLM_MODEL``                                         ``llama3.2``
api_key    ``KIT_LLM_API_KEY``, ``OPENAI_API_KEY`` (optional)        sent as ``Authorization: Bearer ...``
=========  ========================================================  ==================

There is no default endpoint: nothing is sent anywhere you did not name. Only the
standard library is used (``urllib.request``, ``json``). Importing this module and
creating a model never touch the network; only a call does.

Source: the OpenAI chat-completions API, which these servers implement.
"""
from __future__ import annotations

import http.client
import json
import math
import os
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence

__all__ = ["OpenAICompatibleModel", "ModelConfigError", "ModelAPIError",
           "MalformedResponseError", "configured", "ENV_BASE_URL", "ENV_MODEL", "ENV_API_KEY"]

ENV_BASE_URL = ("KIT_LLM_BASE_URL", "OPENAI_BASE_URL")
ENV_MODEL = ("KIT_LLM_MODEL",)
ENV_API_KEY = ("KIT_LLM_API_KEY", "OPENAI_API_KEY")


class ModelConfigError(ValueError):
    """The endpoint or model name is missing or invalid."""


class ModelAPIError(RuntimeError):
    """The endpoint answered with an HTTP error or could not be reached.

    ``status``: the HTTP status (None if there was no reply); ``body``: the start of the
    reply body (at most 500 characters, "" if none).
    """

    def __init__(self, message: str, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status, self.body = status, body


class MalformedResponseError(ModelAPIError):
    """The reply is not JSON, or lacks ``choices[0].message.content`` as a str; the
    message names the missing or wrong field."""


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


def _check_base_url(base_url: object) -> str:
    if not isinstance(base_url, str):
        raise ModelConfigError(f"base_url must be a str, got {type(base_url).__name__}: "
                               f"{base_url!r:.60}")
    if not base_url.startswith(("http://", "https://")):
        raise ModelConfigError(f"base_url must start with http:// or https://, got {base_url!r}")
    if any(ch.isspace() or not ch.isprintable() for ch in base_url):
        raise ModelConfigError(f"base_url must not hold spaces or control characters, "
                               f"got {base_url!r}")
    if not urllib.parse.urlsplit(base_url).hostname:
        raise ModelConfigError(f"base_url names no host, got {base_url!r}")
    return base_url


def _check_number(name: str, value: object, low: float, strict: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value < low or (strict and value == low):
        raise ModelConfigError(f"{name} must be a finite number {'>' if strict else '>='} "
                               f"{low}, got {value!r}")


class OpenAICompatibleModel:
    """A chat-completions endpoint as a kit model, callable two ways:

    - ``model(system, user) -> str`` (a chat model: a system and a user message);
    - ``model(prompt) -> str`` (a prompt model: one user message).

    ``timeout`` is in seconds; ``temperature`` is sent only when not None. Raises
    ModelConfigError for a missing base URL or model name, a base URL that is not
    http(s), names no host or holds spaces or control characters, a blank or non-str
    model name, a timeout that is not a number of seconds in (0, 1e9], a temperature that is
    not a finite number >= 0, or an api_key that is not printable ASCII (its value is
    never shown). A call raises ModelAPIError (HTTP status and the start of the body,
    why the endpoint could not be reached, or a reply cut off or not HTTP at all),
    TimeoutError, or MalformedResponseError naming the missing field.
    """

    def __init__(self, base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, timeout: float = 30,
                 temperature: float | None = None, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        base_url = base_url or _from_env(ENV_BASE_URL, env)
        model = model or _from_env(ENV_MODEL, env)
        if not base_url:
            raise ModelConfigError(
                "no endpoint: pass base_url= or set KIT_LLM_BASE_URL (or OPENAI_BASE_URL), "
                "e.g. http://localhost:11434/v1 for Ollama or https://api.openai.com/v1")
        base_url = _check_base_url(base_url)
        if not model:
            raise ModelConfigError("no model name: pass model= or set KIT_LLM_MODEL, e.g. llama3.2")
        if not isinstance(model, str) or not model.strip():
            raise ModelConfigError(f"model must be a non-blank str, got {model!r:.60}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
                or not 0 < timeout <= 1e9:                # NaN fails too; sockets take <= 1e9
            raise ModelConfigError(f"timeout must be a number of seconds > 0 (at most 1e9), "
                                   f"got {timeout!r}")
        if temperature is not None:
            _check_number("temperature", temperature, 0, strict=False)
        api_key = api_key or _from_env(ENV_API_KEY, env)
        if api_key is not None and (not isinstance(api_key, str) or not api_key.isascii()
                                    or any(ch.isspace() or not ch.isprintable() for ch in api_key)):
            # the key itself is never shown
            raise ModelConfigError(f"api_key must be a str of printable ASCII without spaces, "
                                   f"got a {type(api_key).__name__} of length "
                                   f"{len(api_key) if isinstance(api_key, str) else '?'}")
        self.base_url = base_url.rstrip("/")
        self.model, self.timeout, self.temperature = model, timeout, temperature
        self._api_key = api_key
        self.calls = 0

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"           # never show the key itself
        return f"OpenAICompatibleModel(url={self.url!r}, model={self.model!r}, api_key={key})"

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
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(),
                                         headers=headers, method="POST")
        self.calls += 1
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status, raw = response.status, response.read().decode("utf-8", errors="replace")
        except urllib.error.HTTPError as error:
            text = error.read().decode("utf-8", errors="replace")[:500]
            raise ModelAPIError(f"{self.url} answered HTTP {error.code}: {text[:200]!r}",
                                error.code, text) from None
        except (TimeoutError, socket.timeout) as error:
            raise TimeoutError(f"no reply from {self.url} within {self.timeout} s") from error
        except urllib.error.URLError as error:
            if isinstance(error.reason, (TimeoutError, socket.timeout)):
                raise TimeoutError(f"no reply from {self.url} within {self.timeout} s") from error
            raise ModelAPIError(f"could not reach {self.url}: {error.reason}") from error
        except (http.client.HTTPException, OSError) as error:   # garbage, cut-off reply
            raise ModelAPIError(f"broken reply from {self.url}: {type(error).__name__}: "
                                f"{str(error)[:200]}") from error
        return _content(raw, self.url, status)


def _content(raw: str, url: str, status: int) -> str:
    """``choices[0].message.content`` of a reply body, or MalformedResponseError."""
    def bad(what: str) -> MalformedResponseError:
        return MalformedResponseError(f"malformed reply from {url}: {what}; body began {raw[:200]!r}",
                                      status, raw[:500])
    try:
        data = json.loads(raw)
    except ValueError:
        raise bad("not JSON") from None
    except RecursionError:
        raise bad("JSON nested too deep to read") from None
    if not isinstance(data, dict):
        raise bad(f"expected a JSON object, got {type(data).__name__}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise bad("missing field 'choices' (a non-empty list)")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        raise bad("missing field 'choices[0].message'")
    content = message.get("content")
    if not isinstance(content, str):
        raise bad(f"missing field 'choices[0].message.content' (a str, got {content!r:.40})")
    return content
