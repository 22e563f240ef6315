"""uvicorn's HTTP and websocket protocols held to ``server.admission``: the web room's and
the arena's connections bounded per address, and a request's head timed.

uvicorn bounds connections only in all (``limit_concurrency``: past it every visitor gets
503, whoever holds the connections) and never times a request's head: a connection that
sends ``GET / HTTP/1.1`` and one header line stays open for good (its keep-alive timer is
armed only after a response). :func:`admitted_protocols` makes subclasses of uvicorn's
own h11 and websocket protocols that

* take a place of the :class:`~gameroom.server.admission.Admission` when a connection is
  made and give it back when it is lost (the place follows the connection when it becomes
  a websocket); a connection refused is answered at once (429 for its address's quota,
  503 when the server is full, one JSON line naming the key) and closed;
* count a connection as *unfinished* from the moment it opens until its request's head
  and body are in, and again while a later request on it is incomplete — an idle
  keep-alive connection between requests is not (uvicorn closes it after
  ``timeout_keep_alive``);
* close a connection whose request head is not complete ``head_seconds`` after it opened
  or after the previous response (408), and one whose body is not complete
  ``body_seconds`` after its head.

Everything else is uvicorn's: the parsing, flow control, websockets and their pings.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from gameroom.server.admission import Admission, Place

__all__ = ["admitted_protocols", "http_refusal"]


def http_refusal(status: int, message: str) -> bytes:
    """A whole HTTP/1.1 response (JSON ``{"error": message}``) that closes the connection."""
    reason = {408: "Request Timeout", 429: "Too Many Requests", 503: "Service Unavailable"}.get(status, "Refused")
    body = json.dumps({"error": message}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\nconnection: close\r\n"
            f"retry-after: 5\r\ncontent-length: {len(body)}\r\n\r\n").encode() + body


def _websocket_base(config_ws: str | type) -> type:
    """The websocket protocol class uvicorn would use for ``ws="auto"`` (or the one named)."""
    from uvicorn.config import WS_PROTOCOLS
    from uvicorn.importer import import_from_string

    if isinstance(config_ws, type):
        return config_ws
    found = import_from_string(WS_PROTOCOLS.get(config_ws, config_ws))
    if not isinstance(found, type):
        raise ValueError(f"no websocket protocol for {config_ws!r}")
    return found


class _LeavesWhenLost:
    """Mixed into the websocket protocol: its place is given back when the socket closes."""

    admission: Admission
    place: Place | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        try:
            super().connection_lost(exc)   # type: ignore[misc]
        finally:
            self.admission.leave(self.place)


class _AdmittedHTTP(H11Protocol):
    """uvicorn's HTTP protocol, admitted per address and timed per request (the module);
    :func:`admitted_protocols` makes a subclass with its class attributes set."""

    admission: Admission
    head_seconds: float
    body_seconds: float
    place: Place | None = None
    _timer: asyncio.TimerHandle | None = None
    _seen: Any = None          # the request cycle last seen (a new one: a head came in)
    _state = "head"            # head (awaited), body (awaited), busy (being answered), idle, websocket

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        found = self.admission.enter(transport.get_extra_info("peername"))
        if isinstance(found, str):
            status = 503 if "its most" in found else 429
            transport.write(http_refusal(status, found))
            transport.close()
            return
        self.place = found
        self._arm(self.head_seconds, "the request's head")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        try:
            super().connection_lost(exc)
        finally:
            if self._state != "websocket":
                self.admission.leave(self.place)

    def data_received(self, data: bytes) -> None:
        if self.place is None:
            return   # refused: closing
        idle = self._state == "idle"
        super().data_received(data)
        if self._look() or not idle or self._state == "websocket":
            return
        # bytes after a response that are not yet a whole head: the next request's head is timed
        self._state = "head"
        self.place.unfinished = True
        self._arm(self.head_seconds, "the request's head")

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.place is None or self.transport.is_closing() or self._look():
            return
        self._state = "idle"   # between requests: uvicorn's keep-alive time-out closes it
        self.place.unfinished = False

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()
        self._state = "websocket"
        if self.place is not None:
            self.place.unfinished = False
        super().handle_websocket_upgrade(event)
        protocol = self.transport.get_protocol()
        if isinstance(protocol, _LeavesWhenLost):
            protocol.place = self.place
        else:   # not ours (cannot happen with the classes given together): count it out now
            self.admission.leave(self.place)

    def _look(self) -> bool:
        """Where the request stands after bytes arrived or a response ended; True when
        a new request's head came in."""
        cycle = self.cycle
        if self.place is None or self._state == "websocket" or cycle is None:
            return False
        if cycle is not self._seen:   # a new request's head is in
            self._seen = cycle
            self._disarm()
            if cycle.more_body:
                self._state = "body"
                self.place.unfinished = True
                self._arm(self.body_seconds, "the request's body")
            else:
                self._state = "busy"
                self.place.unfinished = False
            return True
        if self._state == "body" and not cycle.more_body:   # its body is in
            self._state = "busy"
            self.place.unfinished = False
            self._disarm()
        return False

    def _arm(self, seconds: float, what: str) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._expired, seconds, what)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self, seconds: float, what: str) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and cycle.response_started and not cycle.response_complete:
            self.transport.close()   # an answer is going out already: just end it
            return
        self.transport.write(http_refusal(408, f"{what} did not arrive within {seconds:g} s"))
        self.transport.close()


def admitted_protocols(admission: Admission, head_seconds: float, body_seconds: float,
                       ws: str | type = "auto") -> tuple[type, type]:
    """The HTTP and websocket protocol classes to give ``uvicorn.Config(http=, ws=)``."""
    websocket = type("AdmittedWebSocket", (_LeavesWhenLost, _websocket_base(ws)), {"admission": admission})
    http = type("AdmittedHTTP", (_AdmittedHTTP,), {"admission": admission, "head_seconds": head_seconds,
                                                   "body_seconds": body_seconds})
    return http, websocket
