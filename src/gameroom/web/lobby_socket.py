"""``WS /api/lobby/ws``: a browser's own connection to the lobby server (docs/lobby.md,
"The web room's API").

One implementation of rooms: the lobby server's (``server.lobby``). The web room opens a
TCP connection to it for each browser, logs in for the browser and passes the lobby's
messages both ways unchanged, one JSON object per websocket text frame: so a person in
the browser lists, creates, joins, watches and plays rooms of any game beside people at
terminals and bots, under the lobby's own rules and bounds.

* The first frame is the relay's own ``{"type": "RELAY", "username", "guest",
  "server"}``; the second is the lobby's answer to the ``LOGIN`` the relay sent.
* A person logged in to the web room is logged in to the lobby under the account's
  name, with the account's credential (``LOGIN``'s ``account``: an HMAC of the name under
  the secret the web room shares with the lobby, ``--lobby-secret-file`` and the lobby's
  ``relaySecret``): the lobby then keeps the name for the account (no client of its own
  can take it first) and gives a held seat back only to the account
  (``server.lobby_identity``). Anyone else is a *guest*: logged in under a name
  ``guest`` and digits, as a spectator (``LOGIN``'s ``spectator``: the lobby lets it list
  and watch rooms, never take a seat) — as a match's spectators need no account, and its
  people do.
* The browser cannot log in again under another name: its ``LOGIN`` is sent as the
  relay's own again (the lobby answers ``NACK Already logged in!``). A frame that is
  not one JSON object (binary, not JSON, nested too deep) is sent as ``{}`` (``NACK Not
  a message``) so every request is still answered in order, and counts as a strike of
  the address (``web.strikes``). The relay answers the lobby's ``PING`` itself.
* Bounds: the websocket counts in the room's quotas of open sockets per address and per
  account (``web.room.SocketCounts``); a browser that leaves more than
  :data:`MAX_UNSENT_BYTES` unread is cut off (uvicorn would buffer for ever); a browser
  whose requests the lobby does not read (its own bound on what waits for a client) is
  read no further. The lobby server counts every connection of the web room's address
  on its own when configured with ``relayAddresses`` (the web room bounds its people
  itself); without it they share that address's quotas.
* When either side closes, the other is closed: the lobby's connection ends as any
  lost connection does (its seat is left, eriantys.md 7.5-7.7).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, JSONStreamError, ValueTooDeep, check_depth, encode
from gameroom.server.lobby_identity import account_credential
from gameroom.web.accounts import Account
from gameroom.web.lobby import LobbyRooms
from gameroom.web.room import Room
from gameroom.web.sockets import abort_socket, close_socket, serve_admitted

__all__ = ["relay_socket", "MAX_UNSENT_BYTES", "MAX_LOBBY_MESSAGE"]

MAX_UNSENT_BYTES = 4 << 20
"""Bytes of the lobby's messages one browser may leave unread before it is cut off."""
MAX_LOBBY_MESSAGE = 16 << 20
"""The longest message read from the lobby server (a listing of thousands of rooms)."""
_READ_CHUNK = 1 << 16


def _fatal(message: str, **more: Any) -> str:
    return json.dumps({"type": "NACK", "errorMessage": message, "fatal": True, **more})


async def relay_socket(websocket: WebSocket, room: Room, lobby: LobbyRooms | None) -> None:
    """One browser's connection to the lobby server (see the module's docstring)."""
    async def serve(address: str, account: Account | None) -> None:
        if lobby is None:
            await close_socket(websocket, _fatal("no lobby server: start the web room with gameroom web --lobby "
                                                 "HOST:PORT"), 1000)
            return
        name = account.name if account is not None else f"guest{secrets.randbelow(10 ** 8):08d}"
        await _relay(websocket, room, lobby, address, name, guest=account is None)

    await serve_admitted(websocket, room, _fatal, serve)


async def _relay(websocket: WebSocket, room: Room, lobby: LobbyRooms, address: str, name: str, guest: bool) -> None:
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(lobby.host, lobby.port), lobby.timeout)
    except (OSError, asyncio.TimeoutError) as exc:
        await close_socket(websocket, _fatal(f"the lobby at {lobby.server} cannot be reached: "
                                             f"{exc or type(exc).__name__}"), 1011)
        return
    login: dict[str, Any] = {"type": "LOGIN", "username": name, **({"spectator": True} if guest else {})}
    if not guest and lobby.secret is not None:
        login["account"] = account_credential(lobby.secret, name)
    writer.write(encode(login))
    outbox: asyncio.Queue[str] = asyncio.Queue()
    unsent = [0]   # bytes in the outbox
    cut = asyncio.Event()   # the browser reads too slowly, or the lobby is gone

    def deliver(text: str) -> None:
        unsent[0] += len(text)
        if unsent[0] > MAX_UNSENT_BYTES:
            cut.set()
            return
        outbox.put_nowait(text)

    deliver(json.dumps({"type": "RELAY", "username": name, "guest": guest, "server": lobby.server}))

    async def from_lobby() -> None:
        decoder = JSONStreamDecoder(MAX_LOBBY_MESSAGE)
        with contextlib.suppress(OSError, JSONStreamError):
            while data := await reader.read(_READ_CHUNK):
                decoder.feed(data)
                while (value := decoder.next_value()) is not NEED_MORE:
                    if isinstance(value, dict) and value.get("type") == "PING":
                        writer.write(encode({"type": "PONG"}))
                        continue
                    deliver(json.dumps(value, ensure_ascii=False))
        outbox.put_nowait("")   # the lobby closed: what it sent goes out, then the websocket closes

    async def push() -> None:   # the one task that sends
        with contextlib.suppress(Exception):   # a failed send: the browser is gone, the reader sees it
            while text := await outbox.get():
                unsent[0] -= len(text)
                await websocket.send_text(text)
            await close_socket(websocket, None, 1000)
        cut.set()

    async def watch() -> None:
        await cut.wait()
        abort_socket(websocket)   # a browser that does not read cannot take a close frame either
        writer.transport.abort()

    tasks = [asyncio.create_task(from_lobby()), asyncio.create_task(push()), asyncio.create_task(watch())]
    try:
        await _from_browser(websocket, room, writer, address, login)
    finally:
        for task in tasks:
            task.cancel()
        writer.transport.abort()
        if cut.is_set():
            abort_socket(websocket)
        else:
            await close_socket(websocket, None, 1000)


async def _from_browser(websocket: WebSocket, room: Room, writer: asyncio.StreamWriter, address: str,
                        login: dict[str, Any]) -> None:
    """The browser's frames to the lobby, in order (see the module's docstring)."""
    while True:
        try:
            frame = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError, OSError):
            return
        if frame["type"] == "websocket.disconnect":
            return
        message: Any = None
        text = frame.get("text")
        if text is not None:
            try:
                check_depth(text)
                message = json.loads(text)
            except (ValueTooDeep, ValueError):
                message = None
        if not isinstance(message, dict):
            message = {}   # the lobby's NACK "Not a message", in its turn
            room.strikes.add(address)
            wait = room.strikes.wait(address)
            if wait:
                await asyncio.sleep(wait)
        elif message.get("type") == "LOGIN":
            message = login
        try:
            writer.write(encode(message))
            await writer.drain()   # the lobby reads no more of a client whose replies wait unwritten
        except (OSError, RuntimeError):
            return
