"""What the web room checks before any page or endpoint runs, and how it reads a body.

:class:`RoomGuard` is an ASGI middleware in front of the application:

* *Host*: a room not started with ``--public`` answers only to requests addressed to
  this machine (``127.0.0.1``, ``localhost``, ``[::1]``, or the host of an allowed
  origin), so a web page whose name was rebound to 127.0.0.1 (DNS rebinding) reaches
  nothing;
* *Origin*: a request that can change something (POST, PUT, PATCH, DELETE) and every
  websocket must come from the room's own origin (its ``Origin`` names the host the
  request was addressed to) or from one of ``--allow-origin``; a browser sends ``Origin``
  with all of them, so another site's page — a form, or a ``text/plain`` "simple" POST
  that needs no preflight — is refused with 403. A request without ``Origin`` (a script,
  ``curl``) carries no one's cookies by accident and is let through, unless the browser's
  ``Sec-Fetch-Site`` says it came from another site;
* *size*: a declared ``Content-Length`` beyond ``--max-body`` is refused with 413 before
  a byte of the body is read, and every 413 closes the connection (``Connection:
  close``; else uvicorn would read the rest of the body to reach the next request);
* *pace*: at most ``--requests-per-address`` requests (and websockets) of one address at
  once (429 beyond), and an address whose requests keep being refused waits before it is
  served (``web.strikes``): every 400, 401, 403, 413, 415, 421 and 429 is a strike.

:func:`read_json` reads a body as it arrives and stops at the limit (413: a body sent in
chunks without a length is never read whole), requires ``application/json`` (415), and
bounds nesting with the platform's own check (``remote.jsonstream.check_depth``, the one
the command line's reader uses) before Python's recursive decoder sees it (400).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gameroom.remote.jsonstream import ValueTooDeep, check_depth
from gameroom.web.limits import RoomLimits
from gameroom.web.strikes import Strikes

__all__ = ["BadBody", "RoomGuard", "read_json"]

CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
REFUSALS = frozenset({400, 401, 403, 413, 415, 421, 429})


class BadBody(Exception):
    """A request body the room will not take: the status and why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _hostname(netloc: str) -> str:
    """The host of ``host[:port]`` (an IPv6 address in brackets), lower case."""
    netloc = netloc.strip().lower()
    if netloc.startswith("["):
        return netloc[1:netloc.find("]")] if "]" in netloc else netloc
    return netloc.rsplit(":", 1)[0] if netloc.count(":") == 1 else netloc


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine only."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class RoomGuard:
    """The checks above, as ASGI middleware around ``app``."""

    def __init__(self, app: ASGIApp, limits: RoomLimits, strikes: Strikes | None = None) -> None:
        self.app = app
        self.limits = limits
        self.strikes = strikes if strikes is not None else Strikes()
        self.origins = {origin.rstrip("/").lower() for origin in limits.allow_origins}
        self.hosts = {urlsplit(origin).hostname or "" for origin in self.origins}
        self.in_flight: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        address = scope["client"][0] if scope.get("client") else "unknown"
        if self.in_flight[address] >= self.limits.requests_per_address:
            self.strikes.add(address)
            await self._refuse(scope, receive, send, 429, f"{self.limits.requests_per_address} requests of your "
                               f"address are in progress, the most one address may ({self.limits.key('requests_per_address')})")
            return
        self.in_flight[address] += 1
        try:
            wait = self.strikes.wait(address)
            if wait:
                await asyncio.sleep(wait)
            await self._guarded(scope, receive, send, address)
        finally:
            self.in_flight[address] -= 1
            if self.in_flight[address] <= 0:
                del self.in_flight[address]

    async def _guarded(self, scope: Scope, receive: Receive, send: Send, address: str) -> None:
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        problem, status = self.host_problem(host), 421
        if problem is None and (scope["type"] == "websocket" or scope["method"] in CHANGING):
            problem, status = self.origin_problem(headers, host), 403
        if problem is None and scope["type"] == "http" and scope["method"] in CHANGING:
            problem, status = self.length_problem(headers), 413
        if problem is not None:
            self.strikes.add(address)
            await self._refuse(scope, receive, send, status, problem)
            return

        async def counted(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.http.response.start") \
                    and message["status"] in REFUSALS:
                self.strikes.add(address)
                if message["status"] == 413:   # the rest of the body is not read: the connection ends
                    MutableHeaders(scope=message)["connection"] = "close"
            await send(message)

        await self.app(scope, receive, counted)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, problem: str) -> None:
        if scope["type"] == "http":
            headers = {"connection": "close"} if status == 413 else None
            await JSONResponse({"error": problem}, status_code=status, headers=headers)(scope, receive, send)
        else:
            await _refuse_socket(scope, send, status, problem)

    def host_problem(self, host: str) -> str | None:
        if self.limits.public:
            return None
        name = _hostname(host)
        if is_loopback(name) or name in self.hosts:
            return None
        return (f"this room answers to 127.0.0.1, localhost and [::1] only, not to {host[:100]!r} "
                f"(serve a network with {self.limits.key('public')}, or name the origin: "
                f"{self.limits.key('allow_origins')})")

    def origin_problem(self, headers: Headers, host: str) -> str | None:
        origin = headers.get("origin")
        if origin is None:
            site = headers.get("sec-fetch-site")
            if site in ("cross-site", "same-site"):
                return f"a request from another site ({site}) may not change anything here"
            return None
        origin = origin.strip().rstrip("/").lower()
        if origin in self.origins:
            return None
        parts = urlsplit(origin)
        if parts.scheme in ("http", "https") and parts.netloc and parts.netloc == host.strip().lower():
            return None
        return (f"cross-origin request refused: Origin {origin[:100]!r} is not this room's ({host[:100]}); "
                f"{self.limits.key('allow_origins')} lets another origin in")

    def length_problem(self, headers: Headers) -> str | None:
        length = headers.get("content-length")
        if length is None:
            return None
        if not length.strip().isdigit():
            return f"Content-Length {length[:40]!r} is not a number of bytes"
        if int(length) > self.limits.max_body:
            return (f"the body is {int(length)} bytes, more than the {self.limits.max_body} this room reads "
                    f"({self.limits.key('max_body')})")
        return None


async def _refuse_socket(scope: Scope, send: Send, status: int, message: str) -> None:
    """Refuse a websocket before its handshake: an HTTP answer with the reason where the
    server can send one, else a plain 403."""
    if "websocket.http.response" in scope.get("extensions", {}):
        body = json.dumps({"error": message}).encode()
        await send({"type": "websocket.http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})


async def read_json(request: Request, limit: int, key: str = "--max-body") -> Any:
    """The request's JSON body; :class:`BadBody` (415, 413 or 400) saying what was wrong
    (``key``: how the limit is set)."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise BadBody(415, f"send the body as JSON with Content-Type: application/json (got {media[:60]!r})")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BadBody(413, f"the body is more than the {limit} bytes this room reads ({key})")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadBody(400, f"the body is not JSON: not UTF-8 at byte {exc.start}") from None
    try:
        check_depth(text)
        return json.loads(text)
    except ValueTooDeep as exc:
        raise BadBody(400, f"the body is not acceptable JSON: {exc}") from None
    except ValueError as exc:   # JSONDecodeError, or an integer of more than 4300 digits
        raise BadBody(400, f"the body is not JSON: {exc}") from None
