"""The web room and a lobby server (``gameroom web --lobby HOST:PORT``; docs/lobby.md).

One implementation of rooms: the lobby server's. The web room is one of its clients.

* :class:`LobbyRooms` lists the lobby's public rooms of every game for the lobby page
  (``GET /api/lobby``), asked as any client asks — ``LOGIN`` under a name of the web
  room's own, ``GET_GAMES``, ``GET_PUBLIC_ROOMS`` of every game, ``LOGOUT`` — over a
  short TCP connection. Each room comes with its game, options (described in the game's
  own words), seats and id.
* :meth:`LobbyRooms.relay` is ``WS /api/lobby/ws``: a browser's own connection to the
  lobby. The web room logs in for the browser under the name it knows the person by,
  then passes the lobby's messages (docs/lobby.md) both ways unchanged, one JSON object
  per websocket text frame: so a person in the browser creates, joins, watches and plays
  rooms of any game beside people at terminals and bots, under the lobby's own rules and
  bounds. The first frame is the lobby's answer to that ``LOGIN``; the browser cannot log
  in under another name (its ``LOGIN`` is the person's again, which the lobby refuses in
  turn); ``LOGOUT`` ends the connection. The relay answers the lobby's ``PING``. A
  browser that does not read its frames stops the relay reading the lobby, and the
  lobby's own bound on what waits for a client applies.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import time
from typing import Any

from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, JSONStreamError, encode

__all__ = ["LobbyRooms", "MAX_FRAME"]

MAX_FRAME = 65536
"""The longest message a browser may send (the lobby's own bound, eriantys.md 8.1)."""


class LobbyRooms:
    """The lobby server at ``host:port``: a callable that lists its public rooms (or says
    why it cannot), for the web room's ``/api/lobby``, and the relay of a browser's own
    connection to it."""

    def __init__(self, host: str, port: int, timeout: float = 5.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout

    @property
    def server(self) -> str:
        return f"{self.host}:{self.port}"

    def __call__(self) -> dict[str, Any]:
        try:
            games, rooms = self._ask()
        except (OSError, ValueError) as exc:
            return {"server": self.server, "games": [], "rooms": [], "error": str(exc) or type(exc).__name__}
        default = next((g["name"] for g in games if g.get("default")), None)
        declared = {g["name"]: g for g in games}
        return {"server": self.server, "games": games,
                "rooms": [self._room(r, declared.get(r.get("game", default)) or {}, r.get("game", default))
                          for r in rooms]}

    @staticmethod
    def _room(info: dict[str, Any], game: dict[str, Any], name: str | None) -> dict[str, Any]:
        """A room as the lobby page shows it: in words (``name``, ``status``, ``players``)
        and as data (``id``, ``game``, ``options``, seats)."""
        options = {o["name"]: info.get(o["name"]) for o in game.get("options", []) if o["name"] in info}
        words = [o for o, value in options.items() if value is True]
        words += [f"{o} {value}" for o, value in options.items() if value is not None and not isinstance(value, bool)]
        label = ", ".join([*words, f"{info.get('numberOfPlayers')} players"])
        return {"name": f"room {info.get('id')} ({name}: {label})" if name else f"room {info.get('id')} ({label})",
                "status": "waiting for players",
                "players": [f"{info.get('currentPlayers')} of {info.get('numberOfPlayers')} seated"],
                "id": info.get("id"), "game": name, "options": options,
                "numberOfPlayers": info.get("numberOfPlayers"), "currentPlayers": info.get("currentPlayers")}

    def _ask(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        deadline = time.monotonic() + self.timeout
        with socket.create_connection((self.host, self.port), timeout=self.timeout) as sock:
            decoder = JSONStreamDecoder()

            def reply(wanted: str) -> dict[str, Any]:
                while True:
                    value = decoder.next_value()
                    if value is NEED_MORE:
                        sock.settimeout(max(0.1, deadline - time.monotonic()))
                        data = sock.recv(1 << 16)
                        if not data:
                            raise ValueError("the lobby closed the connection")
                        decoder.feed(data)
                        continue
                    if isinstance(value, dict) and value.get("type") == "NACK":
                        raise ValueError(f"the lobby refused: {value.get('errorMessage')}")
                    if isinstance(value, dict) and value.get("type") == wanted:
                        return value

            def send(message: dict[str, Any]) -> None:
                sock.sendall(json.dumps(message).encode())

            send({"type": "LOGIN", "username": f"webroom{secrets.randbelow(10 ** 6)}"})
            reply("ACK")
            send({"type": "GET_GAMES"})
            games = [g for g in reply("GAMES").get("games", []) if isinstance(g, dict) and isinstance(g.get("name"), str)]
            send({"type": "GET_PUBLIC_ROOMS", "game": "*"})
            rooms = reply("PUBLIC_ROOMS")["rooms"]
            send({"type": "LOGOUT"})
            return games, [r for r in rooms if isinstance(r, dict)]

    async def relay(self, websocket: Any, username: str) -> None:
        """Pass a browser's websocket (accepted, Starlette's) to the lobby and back, logged
        in as ``username``, until either side closes."""
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), self.timeout)
        except (OSError, asyncio.TimeoutError) as exc:
            await websocket.send_json({"type": "NACK", "errorMessage": f"the lobby at {self.server} cannot be "
                                                                       f"reached: {exc}"})
            await websocket.close()
            return
        writer.write(encode({"type": "LOGIN", "username": username}))
        to_browser = asyncio.ensure_future(self._from_lobby(reader, writer, websocket))
        try:
            await self._from_browser(websocket, writer, username, to_browser)
        finally:
            to_browser.cancel()
            writer.transport.abort()
            try:
                await websocket.close()
            except RuntimeError:   # already closed
                pass

    @staticmethod
    async def _from_lobby(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, websocket: Any) -> None:
        decoder = JSONStreamDecoder()
        try:
            while data := await reader.read(1 << 16):
                decoder.feed(data)
                while (value := decoder.next_value()) is not NEED_MORE:
                    if isinstance(value, dict) and value.get("type") == "PING":
                        writer.write(encode({"type": "PONG"}))
                        continue
                    await websocket.send_text(json.dumps(value, ensure_ascii=False))   # waits for a slow browser
        except (OSError, JSONStreamError, RuntimeError):
            pass
        try:
            await websocket.close()
        except RuntimeError:
            pass

    @staticmethod
    async def _from_browser(websocket: Any, writer: asyncio.StreamWriter, username: str,
                            to_browser: asyncio.Future[Any]) -> None:
        """The browser's messages to the lobby, in order; what the lobby must refuse is
        turned into what it refuses in order (so every request is answered in turn): a
        frame that is not one JSON object within the bound becomes an empty object (``NACK
        Not a message``), a ``LOGIN`` logs in again as the person (``NACK Already logged
        in!``)."""
        from starlette.websockets import WebSocketDisconnect

        while not to_browser.done():
            try:
                text = await websocket.receive_text()
            except (WebSocketDisconnect, RuntimeError, KeyError):
                return
            try:
                message = json.loads(text) if len(text) <= MAX_FRAME else None
            except ValueError:
                message = None
            if not isinstance(message, dict):
                message = {}
            elif message.get("type") == "LOGIN":
                message = {"type": "LOGIN", "username": username}
            writer.write(encode(message))
            await writer.drain()   # the lobby reads no more of a client whose replies are not read
