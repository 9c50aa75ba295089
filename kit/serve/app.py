"""The chat service over HTTP: a Starlette app, served by uvicorn (``python -m kit serve``).

Routes:

- ``POST /sessions/{id}/messages`` with JSON ``{"text": "..."}``: the turn runs
  (:meth:`kit.serve.service.ChatService.begin`: lease, load, answer, guardrail, commit)
  and the reply comes back as server-sent events: ``reply`` events of a few words each
  (``{"text": "..."}``) when the guardrail passed, or one ``refusal`` event (the refusal
  text) when it did not, then ``done`` (``{"turn", "refused", "guardrail", "cited"}``).
  Nothing reaches the client before the guardrail has judged the whole draft. The
  compaction that is due runs after the response has been sent (a Starlette background
  task), still under the session's lease. With an ``Idempotency-Key`` header, a key
  the session already committed replays that turn's events (``Idempotent-Replayed:
  true``) and runs nothing (:meth:`~kit.serve.service.ChatService.replay`). Errors
  before the stream are JSON ``{"error": "..."}``: 400 (a bad id, question or key), 408
  (the body took longer than ``body_timeout``), 413 (body over ``max_body`` bytes),
  415 (not JSON), 503 (the session or the store stayed busy ``wait`` seconds after the
  request came, or the store failed: Redis unreachable, a damaged file), 409 (the
  lease was lost; or the key was first sent with another text, or its first turn is
  still running: ``Retry-After``);
- ``POST /sessions/{id}/forget`` with ``{"words": [...]}`` or ``{"everything": true}``:
  :meth:`~kit.serve.service.ChatService.forget` under the session's lock (the
  messages naming a word, or the whole session, bytes included); JSON
  ``{"session", "forgotten", "by"}``; 400/413/415/408/409/503 as for a turn.
- ``GET /sessions/{id}/context``: the context panel's data
  (:meth:`~kit.serve.service.ChatService.context`): parts and sizes, the budget, the
  summary, the verbatim turns, the newest trace events;
- ``GET /``: the chat page (static HTML, CSS and JavaScript in ``kit/serve/static``, no
  build step), ``GET /health``: ``{"ok": true, "worker": ..., "store": ...}`` (and a
  ``warning`` for a store that may lose data; 503 ``"ok": false`` if the store does not
  answer).

Safe by default: ``python -m kit serve`` binds 127.0.0.1; the body is read up to
``max_body`` bytes and no further; the page sets a Content-Security-Policy that allows
only its own script and style, and writes every model and user text with
``textContent``, never as HTML.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from importlib import resources

from kit.longterm.forget import topic_pattern
from kit.serve.service import (ChatService, KeyConflict, SessionBusy, check_session_id,
                               outcome_of, pauses)
from kit.serve.backends import open_store
from kit.serve.stores import NOT_QUEUED, LeaseLost, StoreBusy, check_span
from kit.store import StoreError
from kit.validation import check_int, check_weight

__all__ = ["create_app", "app_from_env", "build_service", "durability", "sse", "reply_events",
           "outcome_events", "MAX_BODY", "THREADS", "WORDS_PER_EVENT", "ENV", "BODY_TIMEOUT"]

log = logging.getLogger("kit.serve")
MAX_BODY = 16_384            # bytes of a request body read at most
THREADS = 32                 # threads of each pool: turns, compactions
WORDS_PER_EVENT = 3          # words of the reply per server-sent event
BODY_TIMEOUT = 10.0          # seconds a request's body may take to arrive
ENV = "KIT_SERVE_"           # prefix of the settings app_from_env reads
_KEY = re.compile(r"[A-Za-z0-9_.:-]{1,128}")     # an Idempotency-Key (a UUID fits)
_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
_STATIC = ("index.html", "chat.js", "chat.css")
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8"}


def sse(event: str, data: object) -> str:
    """One server-sent event: ``event: NAME`` and its data as one line of JSON (ASCII:
    no character of the text can end the line)."""
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


_PIECE = re.compile(r"\S{1,%d}\s*|\s+" % 40)   # a word (at most 40 characters) and its spaces


def reply_events(answer, words: int = WORDS_PER_EVENT) -> list[str]:
    """The events of a reply: ``reply`` chunks of ``words`` words each (a word of more
    than 40 characters, or a text without spaces, split every 40 characters; spaces
    kept, so the chunks join to the reply) or one ``refusal``, then ``done``."""
    return outcome_events(outcome_of(answer), words)


def outcome_events(outcome: dict, words: int = WORDS_PER_EVENT) -> list[str]:
    """:func:`reply_events` of a turn's saved outcome
    (:func:`kit.serve.service.outcome_of`): a retry with the same idempotency key gets
    the very events the first request was sent."""
    if outcome["refused"]:
        events = [sse("refusal", {"text": outcome["answer"]})]
    else:
        pieces = _PIECE.findall(outcome["answer"])
        events = [sse("reply", {"text": "".join(pieces[i:i + words])})
                  for i in range(0, len(pieces), words)]
    done = {name: outcome[name] for name in ("turn", "refused", "guardrail", "cited")}
    return events + [sse("done", done)]


def create_app(service: ChatService, *, max_body: int = MAX_BODY,
               stream_delay: float = 0.0, threads: int = THREADS,
               hosts: list[str] | None = None, body_timeout: float = BODY_TIMEOUT,
               warning: str | None = None):
    """The Starlette app over ``service``. ``max_body``: bytes of a request body
    accepted (int >= 1); ``stream_delay``: seconds between two reply events (>= 0; 0 in
    tests, a little makes the streaming visible on a projector); ``threads``: the size
    of each of the two thread pools (int >= 1): one runs turns, the other compactions, so
    compactions that pile up never hold a thread a reply is waiting for; ``hosts``: the
    ``Host`` headers served (None: any; ``python -m kit serve`` on 127.0.0.1 serves
    ``127.0.0.1``, ``localhost`` and ``[::1]`` only, so a page of another site cannot
    reach it by DNS rebinding); ``body_timeout``: seconds a request body may take to
    arrive (> 0; a slower one is a 408, see :mod:`kit.serve.limits` for the headers);
    ``warning``: a sentence ``/health`` shows (a store that may lose data). Raises
    TypeError/ValueError naming a bad argument."""
    check_int("max_body", max_body, 1)
    body_timeout = check_span("body_timeout", body_timeout)
    stream_delay = check_weight("stream_delay", stream_delay)
    turns = ThreadPoolExecutor(check_int("threads", threads, 1), thread_name_prefix="kit-turn")
    compactions = ThreadPoolExecutor(threads, thread_name_prefix="kit-compaction")

    async def in_pool(pool: ThreadPoolExecutor, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(pool, partial(fn, *args))

    @asynccontextmanager
    async def lifespan(app):
        yield
        turns.shutdown(wait=False)
        compactions.shutdown(wait=True)         # a compaction under way is finished

    from starlette.applications import Starlette
    from starlette.background import BackgroundTask
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    async def read_body(request: Request) -> bytes | None:
        """The body, or None once it passes ``max_body`` (the rest is not read)."""
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_body:
            return None
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_body:
                return None
        return bytes(body)

    async def settled(work, done, undo=None):
        """Await ``work`` (a thread's result); if this request is cancelled meanwhile
        (the client or the server gave up), the thread still ends, and then ``done(result)``
        runs (or ``undo()`` if it failed), so a lock it took is given back."""
        future = asyncio.ensure_future(work)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            def later(f):
                if f.cancelled() or f.exception() is not None:
                    if undo is not None:
                        undo()
                elif f.result() is not None:
                    done(f.result())
            future.add_done_callback(later)
            raise

    waiting: dict[str, int] = {}          # session -> this worker's turns queued for it

    async def take(session_id: str, started: float):
        """The session's lock, waited for on the event loop (no thread is held while
        another turn has it), until ``service.wait`` seconds after the request came.
        Turns wait in arrival order, across workers: each takes a ticket in the
        session's queue in the store, and the lease goes to the oldest live ticket."""
        deadline = started + service.wait
        first = NOT_QUEUED if service.lock == "lease" else None
        taken = await settled(in_pool(turns, service.try_take, session_id, deadline, first),
                              lambda held: held.release())
        if taken is not None:                     # nobody held it or queued: no ticket
            return taken
        ticket = await settled(in_pool(turns, service.queue, session_id, deadline),
                               lambda late: turns.submit(service.leave, session_id, late))
        waiting[session_id] = waiting.get(session_id, 0) + 1       # queued
        try:
            for pause in pauses():
                taken = await settled(in_pool(turns, service.try_take, session_id, deadline,
                                              ticket), lambda held: held.release())
                if taken is not None:
                    ticket = None                 # served: the store dropped the ticket
                    return taken
                if time.monotonic() >= deadline:
                    raise service.busy(session_id)
                await asyncio.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        finally:
            waiting[session_id] -= 1
            if not waiting[session_id]:
                waiting.pop(session_id)
            if ticket is not None:                # gave up (busy, cancelled, failed)
                turns.submit(service.leave, session_id, ticket)

    def events_response(events: list[str], background=None, headers=None):
        async def stream():
            for i, event in enumerate(events):
                if i and stream_delay:
                    await asyncio.sleep(stream_delay)
                yield event
        return StreamingResponse(stream(), media_type="text/event-stream", headers={
            "Cache-Control": "no-store", "X-Accel-Buffering": "no", **(headers or {})},
            background=background)

    async def capped_body(request: Request) -> bytes | JSONResponse:
        """The request's body, or the error to send: the client went away (400), the
        body took over ``body_timeout`` seconds (408) or is over ``max_body`` bytes (413)."""
        try:
            body = await asyncio.wait_for(read_body(request), body_timeout)
        except ClientDisconnect:
            return error(400, "the client went away")
        except asyncio.TimeoutError:
            return error(408, f"the body did not arrive within {body_timeout:g} s")
        return error(413, f"the body is over {max_body} bytes") if body is None else body

    def conflict(exc: KeyConflict) -> JSONResponse:
        response = error(409, str(exc))
        if exc.running:
            response.headers["Retry-After"] = "1"
        return response

    async def post_message(request: Request):
        started = time.monotonic()
        try:
            session_id = check_session_id(request.path_params["session"])
        except ValueError as exc:
            return error(400, str(exc))
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return error(415, 'send JSON: Content-Type: application/json, {"text": "..."}')
        key = request.headers.get("idempotency-key")
        if key is not None:                      # a structured-field string may be quoted
            key = key[1:-1] if len(key) > 1 and key[0] == key[-1] == '"' else key
            if not _KEY.fullmatch(key):
                return error(400, f"Idempotency-Key must be 1-128 letters, digits, '_', '.', "
                                  f"':' or '-', got {key[:80]!r}")
        body = await capped_body(request)
        if isinstance(body, JSONResponse):
            return body
        try:
            text = json.loads(body)["text"]
        except (ValueError, TypeError, KeyError, IndexError, RecursionError):
            return error(400, 'the body must be JSON {"text": "..."}')
        if not isinstance(text, str):
            return error(400, f"text must be a string, got {type(text).__name__}")
        try:
            if key is not None:                  # answered before: no wait, no lease
                outcome = await in_pool(turns, service.replay, session_id, key, text)
                if outcome is not None:
                    return events_response(outcome_events(outcome),
                                           headers={"Idempotent-Replayed": "true"})
            taken = await take(session_id, started)
            turn = await settled(in_pool(turns, partial(service.begin, started=started,
                                                        key=key), session_id, text, taken),
                                 lambda turn: compactions.submit(service.finish, turn),
                                 lambda: taken.release())
        except KeyConflict as exc:
            return conflict(exc)
        except SessionBusy as exc:
            return error(503, str(exc))
        except StoreBusy:
            return error(503, f"session {session_id!r}: the store stayed busy for "
                              f"{service.wait:g} s; retry")
        except LeaseLost:
            return error(409, "the session's lease ran out before the turn was saved (it "
                              "expired, or another turn took the session); nothing was "
                              "saved: retry")
        except StoreError as exc:                   # the store is down or damaged
            log.error("session %r: the store failed: %s", session_id, exc)
            return error(503, "the store failed; the server's log says why")
        except (TypeError, ValueError) as exc:       # a bad question, one too long
            return error(400, str(exc))
        if turn.replayed:
            return events_response(outcome_events(turn.outcome),
                                   headers={"Idempotent-Replayed": "true"})
        pool = compactions if turn.compaction_due else turns
        response = events_response(outcome_events(turn.outcome),
                                   BackgroundTask(in_pool, pool, service.finish, turn))

        async def send_then_finish(scope, receive, send):
            try:
                await response(scope, receive, send)
            finally:        # a client gone, a send that failed: the server may skip the
                # background task, and the lease must still go back (finish runs once)
                if not turn.finished:
                    pool.submit(service.finish, turn)
        return send_then_finish

    async def post_forget(request: Request):
        """``POST /sessions/{id}/forget`` with ``{"words": [...]}`` (the messages naming
        one) or ``{"everything": true}``: the same checks as a turn (id, JSON, body
        cap and timeout, the session's lock in arrival order)."""
        started = time.monotonic()
        try:
            session_id = check_session_id(request.path_params["session"])
        except ValueError as exc:
            return error(400, str(exc))
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != \
                "application/json":
            return error(415, 'send JSON: {"words": ["..."]} or {"everything": true}')
        body = await capped_body(request)
        if isinstance(body, JSONResponse):
            return body
        try:
            asked = json.loads(body)
            if not isinstance(asked, dict) or len(asked) != 1:
                raise ValueError
        except (ValueError, RecursionError):
            asked = None
        words = asked.get("words") if asked else None
        if not ((asked and asked.get("everything") is True) or (
                isinstance(words, list) and words and all(isinstance(w, str) for w in words))):
            return error(400, 'the body must be JSON {"words": ["..."]} or {"everything": true}')
        try:
            if words is not None:
                topic_pattern(words)               # named before the session's queue
        except ValueError as exc:
            return error(400, str(exc))
        try:
            taken = await take(session_id, started)
            done = await settled(in_pool(turns, service.forget, session_id, words, taken),
                                 lambda _: None, lambda: taken.release())
        except SessionBusy as exc:
            return error(503, str(exc))
        except StoreBusy:
            return error(503, f"session {session_id!r}: the store stayed busy; retry")
        except LeaseLost:
            return error(409, "the session's lease ran out before the forget was saved; "
                              "nothing was forgotten: retry")
        except StoreError as exc:
            log.error("session %r: the store failed: %s", session_id, exc)
            return error(503, "the store failed; the server's log says why")
        except (TypeError, ValueError) as exc:
            return error(400, str(exc))
        return JSONResponse(done, headers={"Cache-Control": "no-store"})

    async def get_context(request: Request):
        try:
            session_id = check_session_id(request.path_params["session"])
        except ValueError as exc:
            return error(400, str(exc))
        try:
            context = await in_pool(turns, service.context, session_id)
        except StoreError as exc:
            log.error("session %r: the store failed: %s", session_id, exc)
            return error(503, "the store failed; the server's log says why")
        return JSONResponse(context, headers={"Cache-Control": "no-store"})

    async def health(request: Request):
        """ok: the store answers (a ping within the store's timeout); 503 if not."""
        body = {"ok": True, "worker": service.worker, "store": service.store.kind,
                "lock": service.lock}
        if warning:
            body["warning"] = warning
        try:
            await asyncio.wait_for(in_pool(turns, service.store.ping), 5)
        except (StoreError, asyncio.TimeoutError) as exc:
            log.error("health: the store does not answer: %s", exc)
            return JSONResponse({**body, "ok": False, "error": "the store does not answer"},
                                status_code=503)
        return JSONResponse(body)

    def static(name: str):
        text = resources.files("kit.serve").joinpath("static", name).read_bytes()
        kind = _TYPES[os.path.splitext(name)[1]]

        async def page(request: Request):
            return Response(text, media_type=kind.split(";")[0], headers={
                "Content-Type": kind, "Content-Security-Policy": _CSP,
                "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"})
        return page

    routes = [Route("/", static("index.html")),
              Route("/static/chat.js", static("chat.js")),
              Route("/static/chat.css", static("chat.css")),
              Route("/health", health),
              Route("/sessions/{session}/messages", post_message, methods=["POST"]),
              Route("/sessions/{session}/context", get_context),
              Route("/sessions/{session}/forget", post_forget, methods=["POST"])]
    middleware = []
    if hosts is not None:
        from starlette.middleware import Middleware
        from starlette.middleware.trustedhost import TrustedHostMiddleware
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts)))
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    # how many of this worker's requests are queued for (or taking) a session's lock
    app.state.waiting = lambda session_id: waiting.get(session_id, 0)
    return app


def durability(store) -> str | None:
    """None if ``store`` keeps every acknowledged turn on disk, else a sentence saying
    what a crash loses. A SQLite file does (each commit is synced); a Redis server does
    with its append-only file (``appendonly yes``): every write is in the file before
    the reply, so a killed or restarted server keeps it (``appendfsync everysec``, the
    default, may lose the last second of writes if the machine itself fails). With RDB
    snapshots alone a crash loses what came after the last snapshot; with neither, a
    restart loses everything; a server that evicts keys when full (a ``maxmemory`` with
    a policy other than ``noeviction``) may drop sessions and leases. Raises StoreError
    if Redis does not answer."""
    persistence = getattr(store, "persistence", None)
    if not callable(persistence):
        return None
    kept = persistence()
    if not kept["aof"] and kept["save"] in ("", None):
        return ("Redis keeps nothing on disk (appendonly no, no save schedule): a restart "
                "loses every session")
    if not kept["aof"]:
        return (f"Redis keeps snapshots only (save {kept['save']!r}, appendonly no): a "
                f"crash loses the turns since the last snapshot")
    if kept["evicts"]:
        return (f"Redis may evict keys when full (maxmemory-policy {kept['policy']}): "
                f"sessions and leases can vanish; use noeviction")
    return None


def build_service(env: dict | None = None) -> tuple[ChatService, dict]:
    """The service and the app's keyword arguments from ``KIT_SERVE_*`` settings (``env``,
    default :data:`os.environ`): STORE, LOCK, TTL, WAIT, MODEL_DELAY, SUMMARY_DELAY,
    BUDGET, KEEP_RECENT, MAX_BODY, STREAM_DELAY, BODY_TIMEOUT, HOST, ACCEPT_DATA_LOSS
    (what ``python -m kit serve`` sets). A Redis that keeps nothing on disk is refused
    unless ACCEPT_DATA_LOSS is ``1``; then, as for one that keeps only snapshots, the
    app's ``warning`` says what a crash loses (:func:`durability`). A SQLite store waits
    for another worker's write lock at most min(5, WAIT / 2) seconds.
    Raises ValueError/TypeError naming a bad setting or a Redis refused, StoreError if
    the store cannot be opened."""
    from kit.serve.service import KEEP_RECENT, SERVICE_BUDGET, demo_chatbot, service_memory
    env = os.environ if env is None else env

    def number(name: str, default: float, kind=float):
        text = env.get(ENV + name)
        try:
            return default if text is None else kind(text)
        except ValueError:
            raise ValueError(f"{ENV}{name} must be a number, got {text!r:.40}") from None

    wait = number("WAIT", 30.0)
    if not 0 < wait < float("inf"):
        raise ValueError(f"{ENV}WAIT must be a number of seconds > 0, got {wait!r}")
    store = open_store(env.get(ENV + "STORE", "sqlite:chat.db"), timeout=min(5.0, wait / 2))
    try:
        store.ping()                            # an unreachable Redis fails at start
        warning = durability(store)
        if warning and "nothing on disk" in warning and env.get(ENV + "ACCEPT_DATA_LOSS") != "1":
            raise ValueError(f"{warning}; refused: turn on its append-only file (redis-server "
                             f"--appendonly yes, or CONFIG SET appendonly yes), or accept "
                             f"the loss with --accept-data-loss")
        service = ChatService(
            store, demo_chatbot(number("MODEL_DELAY", 0) or None),
            service_memory(number("SUMMARY_DELAY", 0) or None,
                           number("BUDGET", SERVICE_BUDGET, int),
                           number("KEEP_RECENT", KEEP_RECENT, int)),
            lock=env.get(ENV + "LOCK", "lease"), ttl=number("TTL", 10.0),
            wait=wait)
        host = env.get(ENV + "HOST", "127.0.0.1")
        local = host in ("127.0.0.1", "localhost", "::1")
        options = {"max_body": number("MAX_BODY", MAX_BODY, int),
                   "stream_delay": number("STREAM_DELAY", 0.0), "warning": warning,
                   "body_timeout": number("BODY_TIMEOUT", BODY_TIMEOUT),
                   "hosts": ["127.0.0.1", "localhost", "[::1]", "::1"] if local else None}
        check_int("max_body", options["max_body"], 1)
        check_weight("stream_delay", options["stream_delay"])
        check_span("body_timeout", options["body_timeout"])
    except BaseException:
        store.close()
        raise
    return service, options


def app_from_env():
    """The app as uvicorn's worker processes build it (``--factory``), from the
    ``KIT_SERVE_*`` environment variables (see :func:`build_service`)."""
    service, options = build_service()
    return create_app(service, **options)
