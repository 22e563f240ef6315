"""What the lobby page shows of a lobby server (``gameroom web --lobby HOST:PORT``): its
public rooms waiting for players, asked as any lobby client asks — ``LOGIN`` under a name
of the web room's own, ``GET_PUBLIC_ROOMS``, ``LOGOUT`` — over a short TCP connection."""

from __future__ import annotations

import json
import secrets
import socket
import time
from typing import Any

from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder

__all__ = ["LobbyRooms"]


class LobbyRooms:
    """A callable that lists the public rooms of the lobby at ``host:port`` (or says why
    it cannot), for the web room's ``/api/lobby``."""

    def __init__(self, host: str, port: int, timeout: float = 5.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout

    def __call__(self) -> dict[str, Any]:
        server = f"{self.host}:{self.port}"
        try:
            return {"server": server, "rooms": [self._room(r) for r in self._ask()]}
        except (OSError, ValueError) as exc:
            return {"server": server, "rooms": [], "error": str(exc) or type(exc).__name__}

    @staticmethod
    def _room(info: dict[str, Any]) -> dict[str, Any]:
        mode = "expert" if info.get("expert") else "simple"
        return {"name": f"room {info.get('id')} ({mode}, {info.get('numberOfPlayers')} players)",
                "status": "waiting for players",
                "players": [f"{info.get('currentPlayers')} of {info.get('numberOfPlayers')} seated"]}

    def _ask(self) -> list[dict[str, Any]]:
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
            send({"type": "GET_PUBLIC_ROOMS"})
            rooms = reply("PUBLIC_ROOMS")["rooms"]
            send({"type": "LOGOUT"})
            return [r for r in rooms if isinstance(r, dict)]
