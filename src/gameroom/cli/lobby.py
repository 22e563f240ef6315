"""``gameroom serve/clients GAME`` for games served by the lobby (a descriptor with a
``lobby``): the lobby server of eriantys.md 8.1 and bot clients that fill rooms and play.

``serve``: port 9999 by default (``--port P`` or the reference's ``-s P``), ``--config
FILE`` (a JSON object of 8.1), ``-d`` (log every message to the configuration's
``logFile``); flags override the file. ``clients``: R rooms at once of N players, every
seat a bot of the chosen strategy except the ``--baddie KIND@K`` players, which take the
last seat of the first rooms; each room's winners are printed as one JSON line. The
lobby listens on 127.0.0.1 unless ``--host`` (or the configuration's ``host``) says
otherwise. ``clients`` exits with status 1 when no lobby is reachable or when a room it
asked for was refused or did not finish, each such room said on standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from typing import Any

from gameroom.cli.arguments import add_options, typed_options
from gameroom.cli.common import UsageError, fail, print_json, stderr_log
from gameroom.core.wire import WireError
from gameroom.server.lobby_config import DEFAULT_PORT, LobbyConfig, decode_lobby_config, with_overrides
from gameroom.remote import aio

__all__ = ["add_serve_arguments", "serve", "add_clients_arguments", "clients", "load_config"]


def add_serve_arguments(parser: argparse.ArgumentParser, port_type: Any) -> None:
    parser.add_argument("--port", "-s", type=port_type, default=None,
                        help=f"TCP port (default: the configuration's, else {DEFAULT_PORT})")
    parser.add_argument("--host", default=None,
                        help="address to listen on (default: the configuration's, else 127.0.0.1, this machine only; "
                             "0.0.0.0 serves every network)")
    parser.add_argument("--config", metavar="FILE", help="JSON configuration (eriantys.md 8.1)")
    parser.add_argument("-d", "--debug", action="store_true", default=None,
                        help="append every message sent and received to the log file (logFile, Server.txt)")
    parser.add_argument("--seed", type=int, default=None, help="base seed of the games and room ids")
    parser.add_argument("--quiet", action="store_true", help="no diagnostics on standard error")


def load_config(game: Any, path: str | None) -> LobbyConfig:
    """The configuration file, read with one clear error line for anything wrong."""
    if path is None:
        return LobbyConfig()
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read the configuration {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"configuration {path} is not UTF-8") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"configuration {path} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    try:
        return decode_lobby_config(value, game.lobby.decode_hooks)
    except WireError as exc:
        raise UsageError(f"bad configuration {path}: {exc}") from None


def serve(game: Any, args: argparse.Namespace) -> int:
    from gameroom.server.lobby import serve_lobby

    config = with_overrides(load_config(game, args.config), port=args.port, host=args.host, debug=args.debug,
                            seed=args.seed)
    log = (lambda _t: None) if args.quiet else stderr_log
    debug_log = None
    if config.debug:
        try:
            # a client may send lone surrogates (valid JSON escapes, not UTF-8): log them escaped
            handle = open(config.log_file, "a", encoding="utf-8", errors="backslashreplace", buffering=1)
        except OSError as exc:
            raise UsageError(f"cannot open the log file {config.log_file}: {exc.strerror}") from None
        debug_log = lambda text: handle.write(text + "\n")   # noqa: E731
    try:
        aio.run(serve_lobby(game.lobby, config, log, debug_log))
    except OSError as exc:
        raise UsageError(f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc}") from None
    return 0


def add_clients_arguments(parser: argparse.ArgumentParser, game: Any) -> None:
    parser.add_argument("--rooms", type=int, default=1, help="rooms played at once (default 1)")
    parser.add_argument("--players", type=int, default=2, help="players per room (default 2)")
    add_options(parser, game.lobby.room_options, game.name)   # the game's own room options (Eriantys: --expert)
    strategies = [k for k in game.strategies]
    parser.add_argument("--strategy", default=strategies[0], choices=strategies,
                        help=f"the bots' strategy (default {strategies[0]})")
    parser.add_argument("--baddie", action="append", default=[], metavar="KIND@K",
                        help="a misbehaving bot (" + ", ".join(game.lobby.bot_kinds) + "), in the last seat of "
                             "the next room; repeatable")
    parser.add_argument("--prefix", default="bot", help="first part of the bots' usernames (default bot)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the bots' choices (default 1)")
    parser.add_argument("--private", action="store_true", help="private rooms (joined by id)")
    parser.add_argument("--join", type=int, metavar="ID", default=None,
                        help="join room ID instead of creating rooms: --players bots fill its free seats")
    parser.add_argument("--quiet", action="store_true", help="no diagnostics on standard error")


def clients(game: Any, args: argparse.Namespace) -> int:
    from gameroom.remote.lobby_client import RoomPlan, play_room

    lobby = game.lobby
    if args.join is None and args.players not in lobby.player_counts:
        raise UsageError(f"--players must be one of {', '.join(map(str, lobby.player_counts))}, got {args.players}")
    if args.rooms < 1:
        raise UsageError(f"--rooms must be at least 1, got {args.rooms}")
    if args.join is not None and args.rooms != 1:
        raise UsageError("--join fills one room: --rooms must be 1")
    if len(args.baddie) > args.rooms:
        raise UsageError(f"{len(args.baddie)} --baddie for {args.rooms} room(s): one per room at most")
    kinds = [[args.strategy] * args.players for _ in range(args.rooms)]
    for r, baddie in enumerate(args.baddie):
        kinds[r][-1] = baddie
    players: list[list[Any]] = []
    for r in range(args.rooms):
        row = []
        for seat, kind in enumerate(kinds[r]):
            try:
                row.append(lobby.bot(f"{args.prefix}{r}_{seat}", kind, args.seed * 7919 + r * 5 + seat))
            except ValueError as exc:
                raise UsageError(str(exc)) from None
        players.append(row)
    log = (lambda _t: None) if args.quiet else stderr_log
    room = typed_options(lobby.room_options, args)

    async def run() -> list[list[Any]]:
        loop = asyncio.get_running_loop()
        plans = [RoomPlan(args.players, bool(room.get("expert")), args.private, loop.create_future())
                 for _ in range(args.rooms)]
        if args.join is not None:
            plans[0].room_id.set_result(args.join)
        tasks = [[loop.create_task(play_room(lobby, args.host, args.port, f"{args.prefix}{r}_{seat}",
                                             players[r][seat], seat == 0 and args.join is None, plans[r],
                                             lobby.ranking, log))
                  for seat in range(args.players)] for r in range(args.rooms)]
        return [list(await asyncio.gather(*row, return_exceptions=True)) for row in tasks]

    try:
        results = aio.run(run())
    except OSError as exc:
        fail(f"cannot reach the lobby at {args.host}:{args.port}: {exc.strerror or exc}", 1)
    outcomes = [res for row in results for res in row]
    if outcomes and all(isinstance(res, OSError) for res in outcomes):
        exc = outcomes[0]
        fail(f"cannot reach the lobby at {args.host}:{args.port}: {exc.strerror or exc}", 1)
    failures: list[str] = []
    for r, row in enumerate(results):
        done = [res for res in row if not isinstance(res, BaseException)]
        errors = [res for res in row if isinstance(res, BaseException)]
        winners = next((res.winners for res in done if res.winners is not None), None)
        room = next((res.room for res in done if res.room is not None), None)
        line: dict[str, Any] = {"room": room, "players": [f"{args.prefix}{r}_{s}" for s in range(args.players)],
                                "kinds": kinds[r]}
        if winners is not None:
            line["winners"] = winners
            line["consistent"] = all(res.consistent for res in done if res.winners is not None)
        else:
            line["closed"] = next((res.closed for res in done if res.closed), None) or (
                f"{type(errors[0]).__name__}: {errors[0]}" if errors else "unknown")
            failures.append(f"room {r + 1} of {args.rooms}" + (f" (id {room})" if room is not None else "")
                            + (": refused: " if room is None else ": did not finish: ") + line["closed"])
        if errors:
            line["errors"] = [f"{type(e).__name__}: {e}" for e in errors]
        print_json(line)
    for failure in failures:
        print(f"gameroom: {failure}", file=sys.stderr)
    if failures:
        print(f"gameroom: error: {len(failures)} of {args.rooms} room(s) did not end with a result", file=sys.stderr)
        return 1
    return 0


def connect(game: Any, args: argparse.Namespace) -> int:
    """``gameroom connect GAME``: the terminal client for a person."""
    from gameroom.cli import terminal   # without prompt_toolkit cli.main names the extra to install

    return terminal.run(game, args.host, args.port, args.name, getattr(args, "compact", False))
