"""``gameroom web``: the web room on uvicorn (the ``web`` extra). What cannot be served
(a bad ``--lobby``, a port taken, a database out of reach) is a :class:`ServeError` with
one line saying why; the command line reports it (and names a missing extra itself)."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gameroom.web.results import Results

__all__ = ["serve_web", "ServeError"]


class ServeError(Exception):
    """The web room cannot be served (the message says why, in one line)."""


def serve_web(host: str, port: int, lobby: str | None = None, db: str | None = None) -> int:
    """Serve the lobby and match pages until interrupted; ``lobby`` (``HOST:PORT``) names
    a lobby server whose public rooms the lobby page shows, ``db`` the URL of a results
    database whose games and leaderboards the results pages show."""
    import uvicorn   # a missing extra is named by cli.main

    from gameroom.web.app import create_app
    from gameroom.web.lobby import LobbyRooms

    rooms = None
    if lobby is not None:
        lobby_host, colon, lobby_port = lobby.rpartition(":")
        if not colon or not lobby_host or not lobby_port.isdigit() or not 1 <= int(lobby_port) <= 65535:
            raise ServeError(f"--lobby must be HOST:PORT, got {lobby!r}")
        rooms = LobbyRooms(lobby_host, int(lobby_port))
    results = None if db is None else _results(db)
    try:   # bind first, so a taken port or a bad address is one error line
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)   # connections wait from now on, before the server loop runs
    except OSError as exc:
        raise ServeError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    config = uvicorn.Config(create_app(lobby=rooms, results=results), log_level="warning", lifespan="on")
    print(f"gameroom web: serving on http://{host}:{port}/"
          + (f" (results database {results.url})" if results is not None else ""), flush=True)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def _results(url: str) -> "Results":
    """The results database at ``url``, opened (and migrated) as ``gameroom ratings`` opens
    it; a bad URL or an unreachable database is a ServeError (one line, exit 2)."""
    from gameroom.league.db import DatabaseError, open_database   # a missing extra is named by cli.main
    from gameroom.web.results import Results
    try:
        return Results(open_database(url), url)
    except DatabaseError as exc:
        raise ServeError(str(exc)) from None
