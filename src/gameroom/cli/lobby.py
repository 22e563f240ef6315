"""The lobby's commands (docs/lobby.md): ``gameroom lobby`` (rooms of every game),
``gameroom serve GAME`` of a game served by the lobby (Eriantys: eriantys.md 8.1) or
with ``--lobby``, ``gameroom clients GAME`` bots that fill rooms and play, and
``gameroom connect GAME`` for a person at a terminal.

``lobby``/``serve``: port 9999 by default (``--port P`` or the reference's ``-s P``),
``--config FILE`` (a JSON object of eriantys.md 8.1 and docs/lobby.md), ``-d`` (log
every message to the configuration's ``logFile``); flags override the file. ``lobby``
serves every installed game, or those of ``--games a,b`` (the first is the default game
of requests that name none; without ``--games``, the first game played by events, whose
spec's clients name no game, else the first installed). ``clients``: R rooms at once of
N players, every seat a bot of the chosen strategy except the ``--baddie KIND`` players,
which take the last seat of the first rooms; the room's options are the game's own
(``--expert``, ``--rows``...); each room's winners are printed as one JSON line. The
lobby listens on 127.0.0.1 unless ``--host`` (or the configuration's ``host``) says
otherwise. ``clients`` exits with status 1 when no lobby is reachable or when a room it
asked for was refused or did not finish, each such room said on standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any, Callable, Sequence

from gameroom.cli.arguments import add_options, typed_options
from gameroom.cli.common import UsageError, fail, print_json, stderr_log
from gameroom.core import console
from gameroom.core.game import GameDescriptor
from gameroom.core.textfile import FileProblem, read_json
from gameroom.core.wire import WireError
from gameroom.remote import aio
from gameroom.server.lobby_config import DEFAULT_PORT, LobbyConfig, decode_lobby_config, with_overrides

__all__ = ["add_serve_arguments", "serve", "lobby", "add_clients_arguments", "clients", "connect", "load_config",
           "lobby_games"]


def add_serve_arguments(parser: argparse.ArgumentParser, port_type: Any) -> None:
    parser.add_argument("--port", "-s", type=port_type, default=None,
                        help=f"TCP port (default: the configuration's, else {DEFAULT_PORT})")
    parser.add_argument("--host", default=None,
                        help="address to listen on (default: the configuration's, else 127.0.0.1, this machine only; "
                             "0.0.0.0 serves every network)")
    parser.add_argument("--config", metavar="FILE", help="JSON configuration (eriantys.md 8.1, docs/lobby.md)")
    parser.add_argument("-d", "--debug", action="store_true", default=None,
                        help="append every message sent and received to the log file (logFile, Server.txt)")
    parser.add_argument("--seed", type=int, default=None, help="base seed of the games and room ids")
    parser.add_argument("--state", metavar="FILE", default=None,
                        help="journal every room and game to FILE (SQLite) or a database URL (postgresql://...), and "
                             "resume them from it on start (default: the configuration's state, else kept in memory)")
    parser.add_argument("--quiet", action="store_true", help="no diagnostics on standard error")


def load_config(game: GameDescriptor, path: str | None) -> LobbyConfig:
    """The configuration file, read with one clear error line for anything wrong; its
    ``testHooks`` are those of ``game`` (the default game), if it reads any."""
    if path is None:
        return LobbyConfig()
    try:
        value = read_json(path, "the configuration")
    except FileProblem as exc:
        raise UsageError(str(exc)) from None
    try:
        return decode_lobby_config(value, game.lobby.decode_hooks if game.lobby is not None else None)
    except WireError as exc:
        raise UsageError(f"bad configuration {path}: {exc}") from None


def lobby_games(every: dict[str, GameDescriptor], chosen: Sequence[str] | None) -> list[GameDescriptor]:
    """The games of ``gameroom lobby``, the default first: ``--games`` in its order, else
    every game with the first played by events in front (its spec's clients name no game)."""
    if chosen:
        unknown = [name for name in chosen if name not in every]
        if unknown:
            raise UsageError(f"--games: {unknown[0]!r} is not a game; choose from {', '.join(every)}")
        return [every[name] for name in dict.fromkeys(chosen)]
    games = list(every.values())
    by_events = [game for game in games if game.lobby is not None]
    return by_events[:1] + [game for game in games if game not in by_events[:1]]


def serve(game: GameDescriptor | Sequence[GameDescriptor], args: argparse.Namespace) -> int:
    """Serve a lobby of one game or several (the first is the default) until interrupted."""
    from gameroom.server.journal_store import JournalError
    from gameroom.server.lobby import serve_lobby

    games = [game] if isinstance(game, GameDescriptor) else list(game)
    config = with_overrides(load_config(games[0], args.config), port=args.port, host=args.host, debug=args.debug,
                            seed=args.seed, state=args.state)
    console.show_lines("gameroom.server", shown=not args.quiet)
    debug_log: Callable[[str], None] | None = None
    if config.debug:
        try:
            # a client may send lone surrogates (valid JSON escapes, not UTF-8): log them escaped
            handle = open(config.log_file, "a", encoding="utf-8", errors="backslashreplace", buffering=1)
        except OSError as exc:
            raise UsageError(f"cannot open the log file {config.log_file}: {exc.strerror}") from None
        def debug_log(text: str) -> None:
            handle.write(text + "\n")
    if len(games) > 1 and not args.quiet:
        stderr_log(f"lobby of {', '.join(g.name for g in games)} (requests that name no game: {games[0].name})")
    try:
        aio.run(serve_lobby(games[0] if len(games) == 1 else games, config, debug_log))
    except OSError as exc:
        raise UsageError(f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc}") from None
    except JournalError as exc:   # a journal that cannot be opened, or of another version
        raise UsageError(str(exc)) from None
    except ValueError as exc:   # a game whose room options the lobby cannot carry
        raise UsageError(str(exc)) from None
    return 0


def lobby(every: dict[str, GameDescriptor], args: argparse.Namespace) -> int:
    """``gameroom lobby``: rooms of every game (or of ``--games``)."""
    return serve(lobby_games(every, args.games), args)


def _bot_kinds(game: GameDescriptor) -> Sequence[str]:
    return tuple(game.lobby.bot_kinds) if game.lobby is not None else tuple(game.misbehaviours)


def add_clients_arguments(parser: argparse.ArgumentParser, game: GameDescriptor) -> None:
    parser.add_argument("--rooms", type=int, default=1, help="rooms played at once (default 1)")
    counts = game.room_player_counts
    parser.add_argument("--players", type=int, default=counts[0],
                        help=f"players per room, one of {', '.join(map(str, counts))} (default {counts[0]})")
    add_options(parser, game.room_options, game.name)   # the game's own room options (Eriantys: --expert)
    strategies = list(game.strategies)
    parser.add_argument("--strategy", default=strategies[0], choices=strategies,
                        help=f"the bots' strategy (default {strategies[0]})")
    kinds = _bot_kinds(game)
    parser.add_argument("--baddie", action="append", default=[], metavar="KIND",
                        help="a misbehaving bot (" + (", ".join(kinds) or "none for this game")
                             + "), in the last seat of the next room; repeatable")
    parser.add_argument("--prefix", default="bot", help="first part of the bots' usernames (default bot)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the bots' choices (default 1)")
    parser.add_argument("--private", action="store_true", help="private rooms (joined by id)")
    parser.add_argument("--join", type=int, metavar="ID", default=None,
                        help="join room ID instead of creating rooms: --players bots fill its free seats")
    parser.add_argument("--quiet", action="store_true", help="no diagnostics on standard error")
    parser.add_argument("--reconnect", type=float, default=0.0, metavar="SECONDS",
                        help="when the connection is lost during a game, log in again for this long (default 0: "
                             "the bot is out)")
    from gameroom.cli.policies import add_client_arguments

    add_client_arguments(parser, lobby=True)


def _bot(game: GameDescriptor, name: str, kind: str, seed: int) -> tuple[Any, bool]:
    """A bot's player and whether it is a built-in strategy (answered on the loop)."""
    if game.lobby is not None:
        return game.lobby.bot(name, kind, seed), True
    if kind in game.strategies:
        return game.strategies[kind](name, seed), True
    if kind in game.misbehaviours:
        return game.misbehaviours[kind](name, seed), False
    raise ValueError(f"unknown bot {kind!r}; choose from {', '.join([*game.strategies, *game.misbehaviours])}")


def clients(game: GameDescriptor, args: argparse.Namespace) -> int:
    from gameroom.remote.lobby_client import RoomPlan, play_room

    counts = game.room_player_counts
    if args.join is None and args.players not in counts:
        raise UsageError(f"--players must be one of {', '.join(map(str, counts))}, got {args.players}")
    if args.rooms < 1:
        raise UsageError(f"--rooms must be at least 1, got {args.rooms}")
    if args.join is not None and args.rooms != 1:
        raise UsageError("--join fills one room: --rooms must be 1")
    if len(args.baddie) > args.rooms:
        raise UsageError(f"{len(args.baddie)} --baddie for {args.rooms} room(s): one per room at most")
    rooms = game.hosting.rooms if game.lobby is None else None
    valid = rooms.valid_name if rooms is not None and rooms.valid_name is not None else (lambda _name: True)

    def named(r: int, seat: int) -> str:
        """``bot0_1``, or ``bot0s1`` where the game's wire takes letters and digits only."""
        name = f"{args.prefix}{r}_{seat}"
        return name if valid(name) else f"{args.prefix}{r}s{seat}"

    kinds = [[args.strategy] * args.players for _ in range(args.rooms)]
    for r, baddie in enumerate(args.baddie):
        kinds[r][-1] = baddie
    players: list[list[tuple[Any, bool]]] = []
    for r in range(args.rooms):
        seats = []
        for seat, kind in enumerate(kinds[r]):
            try:
                seats.append(_bot(game, named(r, seat), kind, args.seed * 7919 + r * 5 + seat))
            except ValueError as exc:
                raise UsageError(str(exc)) from None
        players.append(seats)
    console.show_lines("gameroom.remote.lobby_client", shown=not args.quiet)
    typed = typed_options(game.room_options, args)
    options = {o.name: list(v) if isinstance(v := typed[o.key], tuple) else v for o in game.room_options
               if typed[o.key] is not None}
    if args.policy:
        _seat_policies(game, args, options, kinds, players, named)
    ranking = game.lobby.ranking if game.lobby is not None else None

    async def run() -> list[list[Any]]:
        loop = asyncio.get_running_loop()
        plans = [RoomPlan(args.players, options, args.private, loop.create_future(), game=game.name)
                 for _ in range(args.rooms)]
        if args.join is not None:
            assert plans[0].room_id is not None   # made with a future above
            plans[0].room_id.set_result(args.join)
        tasks = [[loop.create_task(play_room(game, args.host, args.port, named(r, seat),
                                             players[r][seat][0], seat == 0 and args.join is None, plans[r],
                                             ranking, trusted=players[r][seat][1], come_back=args.reconnect))
                  for seat in range(args.players)] for r in range(args.rooms)]
        return [list(await asyncio.gather(*row, return_exceptions=True)) for row in tasks]

    try:
        results = aio.run(run())
    except OSError as exc:
        fail(f"cannot reach the lobby at {args.host}:{args.port}: {exc.strerror or exc}", 1)
    outcomes = [res for row in results for res in row]
    if outcomes and all(isinstance(res, OSError) for res in outcomes):
        first = outcomes[0]
        fail(f"cannot reach the lobby at {args.host}:{args.port}: {first.strerror or first}", 1)
    failures: list[str] = []
    for r, row in enumerate(results):
        done = [res for res in row if not isinstance(res, BaseException)]
        errors = [res for res in row if isinstance(res, BaseException)]
        winners = next((res.winners for res in done if res.winners is not None), None)
        room = next((res.room for res in done if res.room is not None), None)
        line: dict[str, Any] = {"room": room, "players": [named(r, s) for s in range(args.players)],
                                "kinds": kinds[r]}
        if winners is not None:
            line["winners"] = winners
            line["consistent"] = all(res.consistent for res in done if res.winners is not None)
            out = [f"{res.name}: {res.closed}" for res in done if res.winners is None and res.closed]
            if out:
                line["out"] = out   # bots that left the game before its end (ejected, crashed)
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


def _seat_policies(game: GameDescriptor, args: argparse.Namespace, options: dict[str, Any], kinds: list[list[str]],
                   players: list[list[tuple[Any, bool]]], named: Callable[[int, int], str]) -> None:
    """``--policy``: the policies take the last seats of every room (the first policy the
    last seat), played through ``rl.policy_player`` with an encoding for the rooms' number
    of players and options (``--policy-options`` over them)."""
    from gameroom import rl
    from gameroom.cli.policies import load_policies

    if len(args.policy) > args.players:
        raise UsageError(f"{len(args.policy)} --policy for rooms of {args.players} players")
    try:
        known = set(rl.learning(game.name).options)
    except (ValueError, TypeError) as exc:   # the game has no learning encoding
        raise UsageError(f"--policy: {exc}") from None
    encoding = {"players": args.players, **{k: v for k, v in options.items() if k in known}, **args.policy_options}
    loaded = load_policies(game, args.policy, encoding)
    for r in range(args.rooms):
        for i, (policy, callable_) in enumerate(zip(args.policy, loaded)):
            seat = args.players - 1 - i
            kinds[r][seat] = f"policy {policy.target}"
            # not trusted: a policy's step runs off the client's loop
            players[r][seat] = (rl.policy_player(game.name, callable_, name=named(r, seat), **encoding), False)


def connect(game: GameDescriptor, args: argparse.Namespace) -> int:
    """``gameroom connect GAME``: the terminal client for a person."""
    from gameroom.cli import terminal   # without prompt_toolkit cli.main names the extra to install

    return terminal.run(game, args.host, args.port, args.name, getattr(args, "compact", False),
                        getattr(args, "reconnect", terminal.COME_BACK_SECONDS))
