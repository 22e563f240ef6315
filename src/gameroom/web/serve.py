"""``gameroom web``: the web room on uvicorn (the ``web`` extra). What cannot be served
(a bad ``--lobby`` or limit, a host beyond this machine without ``--public``, a port
taken, a database out of reach, a bad secret) is a :class:`ServeError` with one line
saying why; the command line reports it (and names a missing extra itself).

The room listens on this machine only unless ``--public`` says otherwise. Its sessions are
signed with the secret of ``GAMEROOM_WEB_SECRET`` or ``--secret-file`` (a secret on the
command line would show in every process listing); without one a secret is made for this
run and said so (sessions end when the room stops); ``--secret`` is taken too, with a
note that it shows. Accounts live in the results database
with ``--db``, else in memory (said on start). uvicorn itself is held to the room's limits:
the largest websocket message, the connections at once, no per-message compression (it
would cost every socket a compressor and every frame a compression per spectator).
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gameroom.web.limits import RoomLimits

if TYPE_CHECKING:
    from gameroom.web.policies import WebPolicies
    from gameroom.web.results import Results

__all__ = ["SECRET_VARIABLE", "ServeError", "serve_web", "session_secret", "this_machine_only"]


class ServeError(Exception):
    """The room cannot start (the message is the one line the command prints)."""


SECRET_VARIABLE = "GAMEROOM_WEB_SECRET"
MIN_SECRET = 16


def serve_web(host: str, port: int, lobby: str | None = None, db: str | None = None,
              limits: RoomLimits = RoomLimits(), secret_file: Path | None = None, proxy: str | None = None,
              secret: str | None = None, policies: list[str] | None = None, lobby_secret: str | None = None) -> int:
    """Serve the lobby and match pages until interrupted; ``lobby`` (``HOST:PORT``) names
    a lobby server whose rooms of every game the lobby page lists and browsers play in, ``db`` the URL of a results
    database whose games and leaderboards the results pages show (and which keeps the
    accounts and the finished matches); ``proxy`` the address of a reverse proxy whose
    ``X-Forwarded-For`` names the clients; ``policies`` the ``GAME:NAME=module:callable``
    trained agents offered as bots (``web.policies``), each checked before the room opens."""
    import uvicorn   # a missing extra is named by cli.main

    from gameroom.web.accounts import MemoryAccounts, Passwords
    from gameroom.web.app import create_app
    from gameroom.web.book import MatchBook
    from gameroom.web.guard import is_loopback
    from gameroom.web.lobby import LobbyRooms
    from gameroom.web.memory import limit_arenas
    from gameroom.web.room import Room

    try:
        limits.check()
    except ValueError as exc:
        raise ServeError(f"--{exc}") from None
    if not limits.public and not this_machine_only(host, is_loopback):
        raise ServeError(f"--host {host} would serve beyond this machine: add --public to listen on a network "
                         "(the room then takes requests addressed to any host)")
    rooms = None
    if lobby is not None:
        lobby_host, colon, lobby_port = lobby.rpartition(":")
        if not colon or not lobby_host or not lobby_port.isdigit() or not 1 <= int(lobby_port) <= 65535:
            raise ServeError(f"--lobby must be HOST:PORT, got {lobby!r}")
        rooms = LobbyRooms(lobby_host, int(lobby_port), secret=lobby_secret)
    secret, secret_note = session_secret(secret_file, secret)
    offered = _policies(policies or [])
    results = None if db is None else _results(db)
    if results is None:
        room = Room(MatchBook(limits), MemoryAccounts(limits.max_accounts), Passwords(), secret, policies=offered)
    else:
        from gameroom.web.account_rows import DatabaseAccounts
        from gameroom.web.archive import MatchArchive

        room = Room(MatchBook(limits, MatchArchive(results.engine)), DatabaseAccounts(results.engine, results.url),
                    Passwords(), secret, policies=offered)
    try:   # bind first, so a taken port or a bad address is one error line
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)   # connections wait from now on, before the server loop runs
    except OSError as exc:
        raise ServeError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    config = uvicorn.Config(create_app(lobby=rooms, results=results, room=room), log_level="warning", lifespan="on",
                            ws_max_size=limits.max_message, ws_per_message_deflate=False,
                            limit_concurrency=limits.max_connections, proxy_headers=proxy is not None,
                            forwarded_allow_ips=proxy or "")
    limit_arenas()
    shown = f"[{host}]" if ":" in host else host
    print(f"gameroom web: serving on http://{shown}:{port}/"
          + (f" (results database {results.url})" if results is not None else ""), flush=True)
    print(f"gameroom web: accounts are kept {room.accounts.where}", file=sys.stderr, flush=True)
    if secret_note:
        print(f"gameroom web: {secret_note}", file=sys.stderr, flush=True)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def this_machine_only(host: str, is_loopback: object) -> bool:
    """Whether every address ``host`` names is a loopback address."""
    if is_loopback(host):   # type: ignore[operator]
        return True
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False   # binding will say what is wrong with it
    return bool(addresses) and all(is_loopback(address) for address in addresses)   # type: ignore[operator]


def session_secret(secret_file: Path | None, given: str | None = None) -> tuple[str, str | None]:
    """The session secret and, when it was made for this run (or shows in the process
    list), the note saying so."""
    if given is not None:
        if len(given.strip()) < MIN_SECRET:
            raise ServeError(f"the session secret of --secret is {len(given.strip())} characters; it needs at least "
                             f"{MIN_SECRET}")
        return given.strip(), (f"--secret shows in every process listing of this machine; {SECRET_VARIABLE} or "
                               "--secret-file keep it out of sight")
    if secret_file is not None:
        try:
            secret = secret_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeError) as exc:
            raise ServeError(f"cannot read --secret-file {secret_file}: {getattr(exc, 'strerror', None) or exc}") \
                from None
        source = f"--secret-file {secret_file}"
    elif os.environ.get(SECRET_VARIABLE):
        secret, source = os.environ[SECRET_VARIABLE].strip(), SECRET_VARIABLE
    else:
        import secrets

        return secrets.token_urlsafe(32), (f"sessions are signed with a secret made for this run: log-ins end "
                                           f"when the room stops (set {SECRET_VARIABLE} or --secret-file to keep "
                                           "them)")
    if len(secret) < MIN_SECRET:
        raise ServeError(f"the session secret of {source} is {len(secret)} characters; it needs at least {MIN_SECRET}")
    return secret, None


def _policies(values: list[str]) -> "WebPolicies":
    """The operator's policies, each loaded once in a child process to check it; a bad
    one (or a missing rl extra) is a ServeError."""
    from gameroom.games import registry
    from gameroom.web.policies import PolicyError, WebPolicies

    if values:
        try:
            from gameroom import rl

            rl.need_extra()
        except ImportError as exc:
            raise ServeError(f"--policy: {exc}") from None
    try:
        return WebPolicies.configure(values, registry.games())
    except PolicyError as exc:
        raise ServeError(str(exc)) from None


def _results(url: str) -> "Results":
    """The results database at ``url``, opened (and migrated) as ``gameroom ratings`` opens
    it; a bad URL or an unreachable database is a usage error (one line, exit 2)."""
    from gameroom.league.db import DatabaseError, open_database   # a missing extra is named by cli.main
    from gameroom.web.results import Results

    try:
        return Results(open_database(url), url)
    except DatabaseError as exc:
        raise ServeError(str(exc)) from None
