"""``gameroom web``'s options: where it listens, the databases it shows, and every limit of
the room (``web.limits.RoomLimits``; the defaults are the dataclass's own)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

from gameroom.web.limits import RoomLimits

__all__ = ["add_arguments", "run"]

_DEFAULTS = RoomLimits()
LOBBY_SECRET_VARIABLE = "GAMEROOM_LOBBY_SECRET"

# option, field, type, help (the default is appended)
_LIMITS: list[tuple[str, str, Callable[[str], object], str]] = [
    ("--max-live", "max_live", int, "matches waiting or running at once (beyond: 503)"),
    ("--matches-per-user", "matches_per_user", int, "live matches one account may have (beyond: 429)"),
    ("--matches-per-address", "matches_per_address", int, "live matches started from one address (beyond: 429)"),
    ("--keep-finished", "keep_finished", int, "finished matches kept in memory (then the oldest of whoever "
                                              "keeps the most is evicted)"),
    ("--finished-grace", "finished_grace", float, "seconds a finished match stays in memory"),
    ("--join-within", "join_within", float, "seconds a match waits for its people before it is cancelled"),
    ("--max-sockets", "max_sockets", int, "websockets open at once"),
    ("--sockets-per-user", "sockets_per_user", int, "websockets one account may hold open"),
    ("--sockets-per-address", "sockets_per_address", int, "websockets one address may hold open"),
    ("--max-connections", "max_connections", int, "connections open at once, kept under the file-handle limit "
                                                  "(beyond: 503)"),
    ("--connections-per-address", "connections_per_address", int, "connections one address may hold open "
                                                                  "(beyond: 429)"),
    ("--unfinished-per-address", "unfinished_per_address", int, "connections of one address still sending a "
                                                                "request (silent, slow) at once (beyond: 429)"),
    ("--head-seconds", "head_seconds", float, "seconds a request's head may take (then 408 and closed)"),
    ("--body-seconds", "body_seconds", float, "seconds a request's body may take after its head"),
    ("--shutdown-seconds", "shutdown_seconds", float, "seconds SIGTERM gives requests and pages before they are "
                                                      "cut"),
    ("--requests-per-address", "requests_per_address", int, "requests and websockets of one address in progress at "
                                                            "once (beyond: 429)"),
    ("--max-body", "max_body", int, "bytes of a request body (beyond: 413)"),
    ("--max-message", "max_message", int, "bytes of a websocket message (beyond: the socket closes, 1009)"),
    ("--max-accounts", "max_accounts", int, "accounts kept in memory (without --db)"),
    ("--signups-per-address", "signups_per_address", int, "accounts one address may make in an hour"),
    ("--login-failures", "login_failures", int, "failed log-ins per address and per account within the "
                                                "failure window (then 429)"),
    ("--failure-window", "failure_window", float, "seconds failed log-ins are counted"),
]


def add_arguments(web: argparse.ArgumentParser, port: Callable[[str], int]) -> None:
    web.add_argument("--port", type=port, default=8000, help="port to listen on (default 8000)")
    web.add_argument("--host", default="127.0.0.1",
                     help="address to listen on (default 127.0.0.1; another than this machine's needs --public)")
    web.add_argument("--public", action="store_true",
                     help="allow listening on a network address (and requests addressed to any host name)")
    web.add_argument("--lobby", default=None, metavar="HOST:PORT",
                     help="a lobby server (gameroom lobby) whose rooms of every game the lobby page lists and "
                          "browsers play in (docs/lobby.md)")
    web.add_argument("--lobby-secret-file", type=Path, default=None, metavar="FILE",
                     help=f"file holding the secret shared with the lobby server (its relaySecret; or set "
                          f"{LOBBY_SECRET_VARIABLE}): people log in to the lobby with their accounts' credentials, "
                          "and their names and held seats are theirs alone")
    web.add_argument("--db", default=None, metavar="URL",
                     help="a results database (gameroom league --db) whose games and leaderboards to show; it "
                          "also keeps the accounts and every finished match")
    web.add_argument("--secret-file", type=Path, default=None, metavar="FILE",
                     help="file holding the secret that signs session cookies (or set GAMEROOM_WEB_SECRET; "
                          "default: one made for this run)")
    web.add_argument("--secret", default=None, metavar="SECRET",
                     help="the secret itself (shows in process listings: prefer GAMEROOM_WEB_SECRET or --secret-file)")
    web.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                     help="another origin (https://host[:port]) whose pages may post and open websockets here "
                          "(repeatable)")
    web.add_argument("--proxy", default=None, metavar="ADDRESSES",
                     help="reverse proxies (addresses or networks, comma-separated, as uvicorn's "
                          "forwarded_allow_ips) whose X-Forwarded-For names the client, so that quotas per "
                          "address count the clients (default: none)")
    web.add_argument("--policy", action="append", default=[], metavar="GAME:NAME=MODULE:CALLABLE",
                     help="offer a trained policy (observation dict -> action index, gameroom.rl) as the bot NAME "
                          "for GAME's seats; it plays in a process of its own (repeatable; needs the rl extra)")
    web.add_argument("--person-limit", type=float, default=None, metavar="SECONDS",
                     help="a person's time for one decision in a match that asks none (default: the game's own)")
    for option, name, kind, text in _LIMITS:
        default = getattr(_DEFAULTS, name)
        web.add_argument(option, type=kind, default=default, metavar="N", help=f"{text} (default {default:g})")


def run(args: argparse.Namespace) -> int:
    from gameroom.cli.common import UsageError
    from gameroom.web.serve import ServeError, serve_web

    known = {f.name for f in fields(RoomLimits)}
    values = {name: getattr(args, name) for _, name, _, _ in _LIMITS if name in known}
    limits = RoomLimits(**values, allow_origins=tuple(args.allow_origin), public=args.public,
                        person_limit=args.person_limit)
    try:
        lobby_secret = _lobby_secret(args.lobby_secret_file)
        return serve_web(args.host, args.port, args.lobby, args.db, limits, args.secret_file, args.proxy, args.secret,
                         args.policy, lobby_secret=lobby_secret)
    except ServeError as exc:
        raise UsageError(str(exc)) from None


def _lobby_secret(path: Path | None) -> str | None:
    """The secret shared with the lobby server: ``--lobby-secret-file``'s, else the
    environment's, else none (people then log in to the lobby by name alone)."""
    import os

    from gameroom.cli.common import UsageError
    from gameroom.core.textfile import FileProblem, read_text
    from gameroom.server.lobby_identity import MIN_RELAY_SECRET

    try:
        secret = (read_text(path, "--lobby-secret-file") if path is not None
                  else os.environ.get(LOBBY_SECRET_VARIABLE, "")).strip()
    except FileProblem as exc:
        raise UsageError(str(exc)) from None
    if path is None and not secret:
        return None
    if len(secret) < MIN_RELAY_SECRET:
        raise UsageError(f"the lobby secret is {len(secret)} characters; it needs at least {MIN_RELAY_SECRET} "
                         "(the lobby's relaySecret)")
    return secret
