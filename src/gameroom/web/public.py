"""Nothing about the server in what the public sees: its folders (the database's, the
arena's data and builds, the working folder, the installation) hidden from every answer,
page, download and websocket message a visitor or a student gets.

:class:`PublicAnswers` is ASGI middleware: it reads each HTTP answer's body and headers and
each websocket text message and replaces every server folder it finds (a path that starts
with one of ``roots``) by ``…``; an answer with none passes unchanged. A staff member (the
room's ``staff`` says who: the arena's administrators) gets answers as they are, since
operators need the paths. The endpoints themselves already leave out what has no public
meaning (the database URL of ``/api/results``; a downloaded replay's bot commands,
:func:`public_replay`): this is the net under every answer, so a new endpoint, an error
message quoting a file or a bot's stderr tail cannot show the server's layout.
An answer its endpoint compressed (a stored replay, a page of the viewer's steps) passes
as it is, streamed: no look can read it, so those endpoints make it public before
compressing it (``room.scrubber``, :func:`public_replay`).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HIDDEN", "PublicAnswers", "public_replay", "server_roots", "Scrubber"]

HIDDEN = "…"
"""What a server folder reads as in a public answer."""


def server_roots(*more: str | Path | None) -> list[str]:
    """The folders of this server a visitor must not learn: the working folder, the home,
    the installation (Python's prefix, this package), the temporary folder, and ``more``
    (the database's folder, the arena's data)."""
    import gameroom

    found = [os.getcwd(), str(Path.home()), sys.prefix, sys.base_prefix, str(Path(gameroom.__file__).parents[1]),
             tempfile.gettempdir(), *(str(m) for m in more if m)]
    roots = []
    for root in found:
        root = root.rstrip("/")
        if len(root) > 1 and root not in roots:   # never "/" itself
            roots.append(root)
            real = os.path.realpath(root)
            if real != root and len(real) > 1:
                roots.append(real)
    return roots


def database_folder(url: str) -> str | None:
    """The folder of a SQLite database file named by ``url`` (None for a server's)."""
    if not url.startswith("sqlite:///"):
        return None
    path = url[len("sqlite:///"):].split("?", 1)[0]
    return str(Path(path).resolve().parent) if path else None


class Scrubber:
    """Replaces every path under one of ``roots`` (the root, then anything up to a quote,
    space or bracket) by :data:`HIDDEN`."""

    def __init__(self, roots: Iterable[str]) -> None:
        ordered = sorted({r for r in roots if r}, key=len, reverse=True)   # the longest first
        self.roots = ordered
        self.pattern = re.compile("(?:" + "|".join(re.escape(r) for r in ordered) + r")(?![\w.-])[^\s\"'<>\\]]*") \
            if ordered else None
        self.bytes_pattern = re.compile(self.pattern.pattern.encode()) if self.pattern is not None else None

    def text(self, text: str) -> str:
        return text if self.pattern is None else self.pattern.sub(HIDDEN, text)

    def data(self, data: bytes) -> bytes:
        if self.bytes_pattern is None:
            return data
        return self.bytes_pattern.sub(HIDDEN.encode(), data)

    def found_in(self, data: bytes) -> bool:
        return self.bytes_pattern is not None and self.bytes_pattern.search(data) is not None


def public_replay(text: str, scrub: Callable[[str], str] = lambda line: line) -> str:
    """A stored replay (JSON Lines) as a visitor may download it: each seat's bot reduced
    to its name (a program bot's command and folders are the server's), every line
    ``scrub``-bed (the server's folders in a stderr tail), the record sealed into a new
    digest chain so that ``gameroom replay verify`` still checks the file."""
    from gameroom.core.record import MatchRecord

    record = MatchRecord.from_lines(scrub(line) for line in text.splitlines())
    seats = record.config.get("seats")
    if isinstance(seats, list):
        record.config = {**record.config, "seats": [
            {"name": seat.get("name"), "bot": {"name": (seat.get("bot") or {}).get("name", seat.get("name"))}}
            if isinstance(seat, dict) else seat for seat in seats]}
    return record.to_jsonl()


Staff = Callable[[Scope], Awaitable[bool]]


class PublicAnswers:
    """The middleware (see the module's docstring)."""

    SEEN = 16
    """Websocket texts whose verdict is remembered: a match's frame is one string sent to
    every listener, so it is scanned once (about 70 µs for 60 KB), not once per listener."""

    def __init__(self, app: ASGIApp, scrubber: Scrubber, staff: Staff | None = None) -> None:
        self.app, self.scrubber, self.staff = app, scrubber, staff
        self._seen: list[tuple[str, bool]] = []   # (text, whether it shows a server folder), newest last

    def _shows_folder(self, text: str) -> bool:
        for seen, verdict in reversed(self._seen):
            if seen is text:
                return verdict
        pattern = self.scrubber.pattern
        verdict = pattern is not None and pattern.search(text) is not None
        self._seen.append((text, verdict))
        if len(self._seen) > self.SEEN:
            del self._seen[0]
        return verdict

    async def _is_staff(self, scope: Scope) -> bool:
        return self.staff is not None and await self.staff(scope)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self.app(scope, receive, self._socket_sender(scope, send))
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        body = bytearray()

        async def held(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if any(name.lower() == b"content-encoding" for name, _ in message.get("headers", [])):
                    # compressed (a stored replay, a page of steps): no look could read it,
                    # so its endpoint made it public before compressing; streamed as it is
                    await send(message)
                    return
                start = message
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            body.extend(message.get("body", b""))
            if message.get("more_body", False):
                return
            await self._answer(scope, start, bytes(body), send)

        await self.app(scope, receive, held)

    async def _answer(self, scope: Scope, start: Message, body: bytes, send: Send) -> None:
        headers = list(start.get("headers", []))
        leaks = self.scrubber.found_in(body) or any(self.scrubber.found_in(value) for _, value in headers)
        if leaks and not await self._is_staff(scope):
            body = self.scrubber.data(body)
            start = {**start, "headers": [(name, self.scrubber.data(value)) for name, value in headers]}
            fixed = MutableHeaders(scope=start)
            if "content-length" in fixed:
                fixed["content-length"] = str(len(body))
        await send(start)
        await send({"type": "http.response.body", "body": body, "more_body": False})

    def _socket_sender(self, scope: Scope, send: Send) -> Send:
        staff: list[bool] = []

        async def sending(message: Message) -> None:
            text = message.get("text") if message["type"] == "websocket.send" else None
            if isinstance(text, str) and self._shows_folder(text):
                if not staff:
                    staff.append(await self._is_staff(scope))
                if not staff[0]:
                    message = {**message, "text": self.scrubber.text(text)}
            await send(message)

        return sending
