"""Bounds on slow clients, for uvicorn: a request's headers must arrive in time.

uvicorn closes a kept-alive connection that stays idle (``timeout_keep_alive``) and
caps a worker's connections (``limit_concurrency``: above it, new requests get a 503),
but it waits for a request's headers for ever: a client that sends one header byte a
second holds a connection, and with it a slot, as long as it likes. The body is read by
the app, which bounds it itself (``create_app(body_timeout=...)``: a 408).

:class:`BoundedH11Protocol` is uvicorn's h11 protocol with one timer more: from the
moment a connection opens (and again after each response, for the next request on a
kept-alive connection) the whole request line and headers must arrive within
``header_timeout`` seconds, else the connection is closed; and a connection answered
before its request's body was all sent (the app's 408 or 413) is closed after the
response, not kept open waiting for the rest. ``python -m kit serve``
uses it (``--header-timeout``, default :data:`HEADER_TIMEOUT`), passing the bound to
uvicorn's worker processes in the environment (``KIT_SERVE_HEADER_TIMEOUT``).
"""
from __future__ import annotations

import os

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["BoundedH11Protocol", "HEADER_TIMEOUT", "LIMIT_CONCURRENCY", "PROTOCOL"]

HEADER_TIMEOUT = 10.0        # seconds a request's line and headers may take to arrive
LIMIT_CONCURRENCY = 512      # connections (and tasks) a worker holds before it answers 503
PROTOCOL = "kit.serve.limits:BoundedH11Protocol"     # what uvicorn.run(http=...) is given


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers have not all
    arrived ``header_timeout`` seconds (> 0; from ``KIT_SERVE_HEADER_TIMEOUT``, default
    :data:`HEADER_TIMEOUT`) after it opened or after its last response."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        text = os.environ.get("KIT_SERVE_HEADER_TIMEOUT", "")
        self.header_timeout = float(text) if text else HEADER_TIMEOUT
        self._header_timer = None
        self._waiting_after = None            # the cycle before the request awaited

    def _arm(self) -> None:
        self._disarm()
        self._waiting_after = self.cycle
        self._header_timer = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.logger.info("closing a connection whose request headers did not arrive "
                             "within %g s", self.header_timeout)
            self.transport.close()

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def handle_events(self) -> None:
        super().handle_events()
        if self._header_timer is not None and self.cycle is not self._waiting_after:
            self._disarm()                    # a whole request line and headers came

    def on_response_complete(self) -> None:
        if self.conn.their_state is not h11.DONE and not self.transport.is_closing():
            # answered before the client sent its whole body (a 408 or a 413): the rest
            # would only hold the connection open, so it is closed now
            super().on_response_complete()
            self.transport.close()
            return
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None
                                                or self.cycle.response_complete):
            self._arm()                       # the next request on this connection

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)
