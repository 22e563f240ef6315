"""What the web room shows of a lobby server (``gameroom web --lobby HOST:PORT``;
docs/lobby.md): its games and its public rooms of every game, for the lobby page
(``GET /api/lobby``).

One implementation of rooms: the lobby server's. The web room is one of its clients: it
asks as any client asks — ``LOGIN`` under a name of its own, ``GET_GAMES``,
``GET_PUBLIC_ROOMS`` of every game, ``LOGOUT`` — over a short TCP connection. Each room
comes with its game, its options (by the names the game declares), its seats and its id.
A browser's own connection to the lobby is ``web.lobby_socket``'s.
"""

from __future__ import annotations

import json
import secrets
import socket
import time
from typing import Any

from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder

__all__ = ["LobbyRooms"]


class LobbyRooms:
    """The lobby server at ``host:port``: a callable that lists its games and public rooms
    (or says why it cannot), for the web room's ``/api/lobby``; ``web.lobby_socket``
    connects browsers to it."""

    def __init__(self, host: str, port: int, timeout: float = 5.0, secret: str | None = None) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.secret = secret   # shared with the lobby (its relaySecret): people log in with their accounts' credentials

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
            games = [g for g in reply("GAMES").get("games", [])
                     if isinstance(g, dict) and isinstance(g.get("name"), str)]
            send({"type": "GET_PUBLIC_ROOMS", "game": "*"})
            rooms = reply("PUBLIC_ROOMS")["rooms"]
            send({"type": "LOGOUT"})
            return games, [r for r in rooms if isinstance(r, dict)]
