"""The server around the app: uvicorn's settings and a read deadline for every request.

uvicorn bounds an idle keep-alive connection (`timeout_keep_alive`), the size of a request's
head (`h11_max_incomplete_event_size`) and the connections it serves at once
(`limit_concurrency`: a request past it gets a 503), but not how long a request may take to
arrive: a client sending its headers a byte at a time, or never sending anything, holds its
connection for ever. `DeadlineProtocol` (uvicorn's h11 protocol) closes a connection whose
request line and headers have not all arrived `header_seconds` after its first byte (after
the connection opened, for the first request), or whose body has not arrived `body_seconds`
after its headers; a request that never started gets a 408 first. uvicorn's rewriting of the
client address from X-Forwarded-For is off: a client is the socket's peer
(`farlight_web.clients`), or what `--trusted-proxy` forwards.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from farlight_web.limits import MAX_HEADER_BYTES, Limits

TIMEOUT_BODY = b"the request took too long to arrive"
TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(TIMEOUT_BODY), TIMEOUT_BODY)
)


class DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's head and body (see the
    module). `header_seconds` and `body_seconds` are set on a subclass (`deadline_protocol`)."""

    header_seconds: float
    body_seconds: float

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._reading_body = False
        self._arm(self.header_seconds)

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and self.conn.their_state is h11.IDLE:
            self._arm(self.header_seconds)  # the next request on a kept-alive connection
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()  # a pipelined request may have started from what was buffered

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _follow(self) -> None:
        """Move the deadline on with the request: its body, then none once it is all here."""
        state = self.conn.their_state
        if state is h11.SEND_BODY and not self._reading_body:
            self._reading_body = True
            self._arm(self.body_seconds)
        elif state is not h11.IDLE and state is not h11.SEND_BODY:
            self._reading_body = False
            self._disarm()

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        """The deadline passed: a 408 if no request is being answered, then the connection
        closes (an app still reading a body sees the client gone)."""
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(TIMEOUT_RESPONSE)
        self.transport.close()


def deadline_protocol(limits: Limits) -> type[DeadlineProtocol]:
    """A `DeadlineProtocol` with the deadlines of `limits` (uvicorn builds one per connection
    from the class alone)."""
    return type(
        "DeadlineProtocol",
        (DeadlineProtocol,),
        {"header_seconds": limits.header_seconds, "body_seconds": limits.body_seconds},
    )


def server_config(app: Any, limits: Limits, log_level: str = "warning") -> uvicorn.Config:
    """uvicorn's settings for `farlight serve`: the bounds of `limits`, no proxy headers."""
    return uvicorn.Config(
        app,
        http=deadline_protocol(limits),
        ws="none",
        proxy_headers=False,
        server_header=False,
        timeout_keep_alive=limits.keep_alive_seconds,  # type: ignore[arg-type] - a float will do
        limit_concurrency=limits.max_connections,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        log_level=log_level,
        access_log=False,
    )
