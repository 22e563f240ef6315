"""The match websocket (``/api/matches/{id}/ws``): a spectator's or a person's live frames,
and a person's moves.

Every bad thing a client can send gets an ``error`` frame saying what was wrong. When the
connection cannot serve (no such match, a match evicted, a seat that does not exist, a
built-in player's seat, a missing or wrong token, no log-in, a seat that is another
account's, the quotas of open sockets) the error frame has ``"fatal": true`` and the
connection is closed cleanly; a bad message (a binary frame, text that is not JSON or
nests too deep, a message that is neither ``{"choice": i}``, ``{"action": ...}`` nor ``{"check": [...]}``, a
spectator's move) gets ``"fatal": false`` and the connection stays for the next message.

Every error frame is a strike of the client's address (``web.strikes``): a client that
keeps sending bad messages is read more and more slowly. Frames go out through one
queue per connection; a client that leaves more than
:data:`MAX_UNSENT` frames unread (it does not read, the server would buffer for ever) is
cut off. The socket closes after the match's ``end`` frame (the page then
reads the replay over HTTP), at the latest :data:`END_DRAIN` seconds after it: a client
that stopped reading would otherwise keep the frames of a match long evicted. A match
that is over sends only its ``hello`` and ``end``. A websocket message is at most
``--max-message`` bytes (the server's limit; beyond it the connection closes with 1009).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
from typing import Any, Awaitable, Callable

from starlette.websockets import WebSocket, WebSocketDisconnect

from gameroom.remote.jsonstream import ValueTooDeep, check_depth
from gameroom.web.accounts import Account
from gameroom.web.book import Gone
from gameroom.web.matches import WebMatch
from gameroom.web.room import Room, address_of

__all__ = ["END_DRAIN", "MAX_UNSENT", "CLOSE_WITHIN", "abort_socket", "answer", "close_socket", "error_frame",
           "match_socket", "serve_updates"]

logger = logging.getLogger(__name__)

MAX_UNSENT = 2048
"""Frames one connection may leave unread before it is closed."""
END_DRAIN = 30.0
"""Seconds a connection has to take the last frames of a match that ended."""

MOVES = 'a move is {"choice": index} or {"action": JSON} (or {"check": [JSON, ...]} to ask which are legal)'


def _frame(kind: str, message: str, **more: Any) -> str:
    return json.dumps({"type": kind, "message": message, **more})


def error_frame(message: str, fatal: bool, **more: Any) -> str:
    return _frame("error", message, fatal=fatal, **more)


def answer(match: WebMatch, seat: str | None,
           message: dict[str, Any]) -> tuple[str, str] | None | Awaitable[tuple[str, str]]:
    """What to send back for one message from the client — the frame's text and type
    (``error``: the message was bad, ``refused``: a move the game does not take) — or
    None: a move taken; an awaitable of it for a check (judged off the loop, within the
    seat's bounds: ``web.people.HumanPlayer.judged``)."""
    if message.get("bytes") is not None:
        return error_frame(f"binary frames are not read here: send text, {MOVES}", False), "error"
    text = message.get("text") or ""
    try:
        check_depth(text)
        move = json.loads(text)
    except ValueTooDeep as exc:
        return error_frame(f"not a move: {exc}", False), "error"
    except ValueError as exc:
        return error_frame(f"not a move: the message is not JSON ({exc})", False), "error"
    if isinstance(move, dict) and "check" in move and set(move) <= {"check", "ask"}:
        return _checked(match, seat, move)
    if not isinstance(move, dict) or len(move) != 1 or not ({"choice", "action"} & set(move)):
        kind = f"an object with {', '.join(repr(k)[:40] for k in list(move)[:4])}" if isinstance(move, dict) \
            else type(move).__name__
        return error_frame(f"unknown message ({kind}): {MOVES}", False), "error"
    if seat is None:
        return error_frame("spectators cannot move: open the match with your seat's link to play", False), "error"
    if not match.live:
        return _frame("refused", "the match is over"), "refused"
    refusal = match.humans[seat].answer(move)
    return None if refusal is None else (_frame("refused", refusal), "refused")


def _checked(match: WebMatch, seat: str | None, message: dict[str, Any]) -> tuple[str, str] | Awaitable[tuple[str, str]]:
    """The answer to ``{"check": [action, ...], "ask": n}``: what the game finds wrong with
    each tentative action (None: legal), as a ``checked`` frame carrying ``ask`` back
    (judged off the loop: an awaitable of it)."""
    ask = message.get("ask")
    if ask is not None and (not isinstance(ask, int) or isinstance(ask, bool)):
        return error_frame("ask: expected a whole number that the checked frame carries back", False), "error"
    if seat is None:
        return error_frame("spectators cannot move: open the match with your seat's link to play", False), "error"
    if not match.live:
        return _frame("refused", "the match is over"), "refused"
    return _judged(match.humans[seat].judged(message["check"]), ask)


async def _judged(judging: Awaitable[list[str | None] | str], ask: Any) -> tuple[str, str]:
    problems = await judging
    if isinstance(problems, str):
        return json.dumps({"type": "checked", "ask": ask, "problems": None, "message": problems}), "checked"
    return json.dumps({"type": "checked", "ask": ask, "problems": problems}), "checked"


Serve = Callable[[str, Account | None], Awaitable[None]]
"""``serve(address, account)``: one admitted connection, from the client's address and the
account it is signed in to (None: not signed in)."""


async def serve_admitted(websocket: WebSocket, room: Room, refused: Callable[[str], str], serve: Serve) -> None:
    """Accept ``websocket`` and ``serve`` it within the room's quotas of open sockets (per
    address and per account, ``web.limits``), giving its place back at the end however
    it ends. Over a quota the connection is a strike of its address and is closed (1013,
    try again later) after the frame ``refused(why)``, before anything is served."""
    account = await room.signed_in(websocket)
    address, user = address_of(websocket), account.key if account is not None else None
    refusal = room.sockets.take(address, user)
    await websocket.accept()
    if refusal is not None:
        room.strikes.add(address)
        await close_socket(websocket, refused(refusal), 1013)
        return
    try:
        await serve(address, account)
    finally:
        room.sockets.give(address, user)


async def match_socket(websocket: WebSocket, room: Room) -> None:
    """One client's connection to a match (see the module's docstring)."""
    async def serve(address: str, account: Account | None) -> None:
        if account is None:
            await _serve(websocket, room, address, None, None)
        else:
            await _serve(websocket, room, address, account.key, account.name)

    await serve_admitted(websocket, room, lambda refusal: error_frame(refusal, True), serve)


async def serve_updates(websocket: WebSocket, room: Room, version: Callable[[], object],
                        snapshot: Callable[[], Awaitable[str]], every: float, send_within: float) -> None:
    """A live page's socket (the arena's standings and bot pages): admitted within the
    room's socket quotas (:func:`serve_admitted`), sent ``snapshot()`` at once and again
    whenever ``version()`` changes (looked at every ``every`` seconds), cut off when a
    snapshot is not taken within ``send_within`` seconds. The page's own messages are read
    all along — a page sends none; each one is a strike of its address — so that a closed
    page, or a peer gone dead (uvicorn's pings find it), or the server's shutdown ends the
    socket and frees its place at once: a handler that only sent noticed a closed page at
    its next change, and an idle server never finished its SIGTERM."""
    async def serve(address: str, _: Account | None) -> None:
        async def push() -> None:
            seen: object = object()
            while True:
                current = version()
                if current != seen:
                    seen = current
                    text = await snapshot()
                    await asyncio.wait_for(websocket.send_text(text), send_within)
                await asyncio.sleep(every)

        async def read() -> None:
            while True:
                received = await websocket.receive()
                if received["type"] == "websocket.disconnect":
                    return
                room.strikes.add(address)
                wait = room.strikes.wait(address)
                if wait:
                    await asyncio.sleep(wait)

        pusher, reader = asyncio.create_task(push()), asyncio.create_task(read())
        try:
            done, _pending = await asyncio.wait({pusher, reader}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            pusher.cancel()
            reader.cancel()
            await asyncio.gather(pusher, reader, return_exceptions=True)
        if pusher in done and pusher.exception() is not None:   # too slow, or a send failed: cut it off
            logger.debug("a live page's socket ended", exc_info=pusher.exception())
            abort_socket(websocket)

    await serve_admitted(websocket, room, lambda refusal: json.dumps({"error": refusal, "fatal": True}), serve)


CLOSE_WITHIN = 10.0
"""Seconds to send the last frame and the close frame before the connection is cut."""


async def close_socket(websocket: WebSocket, last: str | None, code: int) -> None:
    """Send ``last`` (if any) and close; a client that reads nothing is cut off."""
    try:
        async with asyncio.timeout(CLOSE_WITHIN):
            if last is not None:
                await websocket.send_text(last)
            await websocket.close(code)
    except TimeoutError:
        abort_socket(websocket)
    except Exception:   # the client is gone already: nothing to close
        logger.debug("closing a match socket failed", exc_info=True)


def abort_socket(websocket: WebSocket) -> None:
    """Cut the connection at once. uvicorn closes a socket only after its write buffer
    drained, which for a client that never reads is never: the connection, its buffer and
    its file would stay for good. The ASGI receive callable of uvicorn's websocket
    protocols is a method of the protocol, which holds the transport; elsewhere nothing
    is done (the server's own time-outs apply)."""
    protocol = getattr(getattr(websocket, "_receive", None), "__self__", None)
    transport = getattr(protocol, "transport", None)
    abort = getattr(transport, "abort", None)
    if callable(abort):
        abort()


async def _admitted(websocket: WebSocket, room: Room, address: str, user: str | None,
                    name: str | None) -> tuple[WebMatch, str | None] | None:
    """The match the path names and the seat asked for (None: a spectator), or None once the
    socket was closed saying why (no such match, or a seat not this client's)."""
    match_id = websocket.path_params["id"]
    found: WebMatch | Gone | None = room.book.get(match_id)
    if found is None:   # evicted, maybe stored: the results database may be asked
        found = await asyncio.to_thread(room.book.find, match_id)
    if not isinstance(found, WebMatch):
        message = found.message if isinstance(found, Gone) else f"no match {match_id[:60]!r}"
        stored = {"stored": f"/results/games/{found.stored}"} if isinstance(found, Gone) and found.stored else {}
        await close_socket(websocket, error_frame(message, True, **stored), 1000)
        return None
    seat = websocket.query_params.get("seat")
    if seat is not None:
        problem = found.admit(seat, websocket.query_params.get("token"), user, name)
        if problem is not None:
            room.strikes.add(address)
            await close_socket(websocket, error_frame(problem, True, login=user is None), 1008)
            return None
    return found, seat


async def _serve(websocket: WebSocket, room: Room, address: str, user: str | None, name: str | None) -> None:
    admitted = await _admitted(websocket, room, address, user, name)
    if admitted is None:
        return
    match, seat = admitted

    loop = asyncio.get_running_loop()
    outbox: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    stop = asyncio.Event()   # set: this client reads too slowly, close it
    timers: list[asyncio.TimerHandle] = []

    def deliver(text: str, kind: str) -> None:
        if outbox.qsize() >= MAX_UNSENT:
            stop.set()
            return
        outbox.put_nowait((text, kind))
        if kind == "end":
            timers.append(loop.call_later(END_DRAIN, stop.set))

    def listener(text: str, kind: str) -> None:   # on the match's thread
        with contextlib.suppress(RuntimeError):   # the loop is closed: the room is stopping
            loop.call_soon_threadsafe(deliver, text, kind)

    past, over = match.subscribe(seat, listener)
    hello = json.dumps({"type": "hello", "match": match.summary(), "seat": seat, "user": name})

    async def push() -> None:   # the one task that sends: what was, then what happens
        with contextlib.suppress(Exception):   # a failed send: the client is gone, the reader sees it
            await websocket.send_text(hello)
            for text in past:
                await websocket.send_text(text)
            if over:
                await close_socket(websocket, None, 1000)
                return
            while True:
                text, kind = await outbox.get()
                await websocket.send_text(text)
                if kind == "end":
                    await close_socket(websocket, None, 1000)
                    return

    async def watch() -> None:   # a client that does not read is closed, wherever the pusher waits
        await stop.wait()
        pusher.cancel()
        abort_socket(websocket)   # its buffers are full: a close frame could not go out

    pusher = asyncio.create_task(push())
    watcher = asyncio.create_task(watch())
    if seat is not None and not over:
        match.join(seat)
    try:
        while True:
            received = await websocket.receive()
            if received["type"] == "websocket.disconnect":
                break
            reply = answer(match, seat, dict(received))
            if inspect.isawaitable(reply):   # a check: judged off the loop, the client's next message waits
                reply = await reply
            if reply is not None:
                deliver(*reply)
                if reply[1] == "error":   # a bad message: the address waits a little more
                    room.strikes.add(address)
                    wait = room.strikes.wait(address)
                    if wait:
                        await asyncio.sleep(wait)
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass   # the client went away (or the socket was closed under a blocked read)
    finally:
        watcher.cancel()
        pusher.cancel()
        for timer in timers:
            timer.cancel()
        match.unsubscribe(seat, listener)
