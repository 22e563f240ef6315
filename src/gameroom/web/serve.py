"""``gameroom web``: the web room on uvicorn (the ``web`` extra)."""

from __future__ import annotations

import socket

from gameroom.cli.common import UsageError

__all__ = ["serve_web"]


def serve_web(host: str, port: int, lobby: str | None = None) -> int:
    """Serve the lobby and match pages until interrupted; ``lobby`` (``HOST:PORT``) names
    a lobby server whose public rooms the lobby page shows."""
    try:
        import uvicorn

        from gameroom.web.app import create_app
        from gameroom.web.lobby import LobbyRooms
    except ModuleNotFoundError as exc:
        raise UsageError(f"the web room needs the web extra ({exc.name} is missing): "
                         "pip install 'gameroom[web]'") from None
    rooms = None
    if lobby is not None:
        lobby_host, colon, lobby_port = lobby.rpartition(":")
        if not colon or not lobby_host or not lobby_port.isdigit() or not 1 <= int(lobby_port) <= 65535:
            raise UsageError(f"--lobby must be HOST:PORT, got {lobby!r}")
        rooms = LobbyRooms(lobby_host, int(lobby_port))
    try:   # bind first, so a taken port or a bad address is one error line
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)   # connections wait from now on, before the server loop runs
    except OSError as exc:
        raise UsageError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    config = uvicorn.Config(create_app(lobby=rooms), log_level="warning", lifespan="on")
    print(f"gameroom web: serving on http://{host}:{port}/", flush=True)
    uvicorn.Server(config).run(sockets=[sock])
    return 0
