"""Entry point of the ``gameroom`` command: one parser for every game, the game's own
options added from its descriptor's hosting when the command line names it."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Sequence

from gameroom import __version__
from gameroom.cli import arena as arena_commands
from gameroom.cli import commands as game_commands
from gameroom.cli import league as league_commands
from gameroom.cli import policies
from gameroom.cli import web as web_commands
from gameroom.cli.arguments import add_options
from gameroom.cli.common import UsageError, fail, interrupted, stderr_log
from gameroom.core import console
from gameroom.core.game import GameDescriptor
from gameroom.games import registry

logger = logging.getLogger(__name__)


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line with exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        fail(f"{message} (see '{self.prog} --help')")


def load_game(name: str) -> GameDescriptor:
    try:
        return registry.game(name)
    except registry.UnknownGame as exc:
        raise UsageError(str(exc)) from None


def _report_broken_plugins() -> None:
    """One line per game plug-in skipped because it cannot be loaded."""
    for problem in registry.problems():
        stderr_log(f"gameroom: warning: {problem}")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"port must be an integer, got {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port must lie in 1..65535, got {port}")
    return port


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    games = registry.names()
    listing = None
    if not argv or argv[0] in ("-h", "--help"):   # only the overview loads every game
        listing = "games:\n" + "\n".join(f"  {g.name:8} {g.summary}" for g in registry.games().values())
    parser = _Parser(prog="gameroom", description="Host turn-based games between automated players.",
                     epilog=listing, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"gameroom {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    game_choices = list(games)
    game_help = f"the game: {', '.join(games)}"

    play = commands.add_parser("play", help="play a local game between built-in players")
    play.add_argument("game", choices=game_choices, help=game_help)
    tournament = commands.add_parser("tournament", help="run a local tournament between built-in players")
    tournament.add_argument("game", choices=game_choices, help=game_help)
    tournament.add_argument("--db", default=None, metavar="URL",
                            help="write every game, its replay and the ratings to this results database")
    tournament.add_argument("--replay", type=Path, metavar="FILE", default=None,
                            help="write the replay of every game played (JSON Lines, one after the other) to FILE")
    tournament.add_argument("--tournament-name", default=None, help="label of the tournament's games in the database")
    srv = commands.add_parser("serve", help="sign up remote players over TCP and run a game (or run a lobby)")
    srv.add_argument("game", choices=game_choices, help=game_help)
    cli = commands.add_parser("clients", help="run configured players (or lobby bots) as TCP clients")
    cli.add_argument("game", choices=game_choices, help=game_help)
    cli.add_argument("--port", type=_port, required=True, help="TCP port of the server (1..65535)")
    lobby_command = commands.add_parser("lobby", help="serve rooms of every game (docs/lobby.md): people and bots "
                                                      "create, join and watch them")
    lobby_command.add_argument("--games", type=lambda text: [g for g in text.split(",") if g], default=None,
                               metavar="A,B", help="the games served, the first the default of requests that name "
                                                   f"none (default every game: {', '.join(games)})")
    web = commands.add_parser("web", help="serve the web room: watch, replay and play games in a browser")
    web_commands.add_arguments(web, _port)
    connect = commands.add_parser("connect", help="play in a lobby's rooms from this terminal")
    connect.add_argument("game", choices=game_choices, help=f"the game to play: {', '.join(games)}")
    connect.add_argument("--port", type=_port, default=9999, help="the lobby's port (default 9999)")
    connect.add_argument("--host", default="127.0.0.1", help="the lobby's address (default 127.0.0.1)")
    connect.add_argument("--name", required=True, help="your username")
    connect.add_argument("--compact", action="store_true",
                         help="never draw the board unasked (type board): only what the game expects next")
    connect.add_argument("--reconnect", type=float, default=600.0, metavar="SECONDS",
                         help="how long to keep logging in again when the connection is lost during a game "
                              "(default 600; 0: never)")
    play.add_argument("--observe", type=Path, metavar="DIR", help="write an SVG picture of every state into DIR")
    play.add_argument("--replay", type=Path, metavar="FILE", default=None,
                      help="play the registry's game from --seed and write its replay (JSON Lines) to FILE")
    league_commands.add_commands(commands, game_choices)
    arena_commands.add_command(commands)
    harness = commands.add_parser("harness", help="run a test harness: JSON on stdin, JSON on stdout")
    harness.add_argument("game", choices=game_choices, help=game_help)
    harness.add_argument("name", help="the harness, e.g. xmap (a wrong name lists the game's harnesses)")
    harness.add_argument("flags", nargs="*", help="--show: write a picture of every state into Tmp/ (game harnesses)")

    # Game-specific options: look at the game named on the command line, if any.
    descriptor = None
    if len(argv) >= 2 and argv[1] in games:
        try:
            descriptor = registry.game(argv[1])
        except registry.UnknownGame as exc:   # a broken plug-in: one line, status 2
            fail(str(exc))
    from gameroom.cli import lobby

    lobby.add_serve_arguments(lobby_command, _port)
    # a game served by the lobby (Eriantys), or any game with --lobby: the lobby's server and bots
    in_lobby = descriptor is not None and (descriptor.lobby is not None or "--lobby" in argv[2:])
    for parser_ in (srv, cli):
        parser_.add_argument("--lobby", action="store_true",
                             help="the lobby's rooms (docs/lobby.md) instead of the game's own server"
                                  + ("" if in_lobby else "; with --lobby, --help lists its options"))
    if in_lobby:
        assert descriptor is not None
        lobby.add_serve_arguments(srv, _port)
        cli.add_argument("--host", default="127.0.0.1", help="the lobby's address (default 127.0.0.1)")
        try:
            lobby.add_clients_arguments(cli, descriptor)
        except UsageError as exc:
            fail(str(exc))
    else:
        _add_referee_server_arguments(srv, cli)
    if descriptor is not None:
        if argv[0] == "tournament" and not descriptor.tournament:
            fail(f"{descriptor.name} has no tournament mode; tournaments: "
                 + ", ".join(name for name, game in registry.games().items() if game.tournament))
        try:
            add_options(play, descriptor.local_play.options, descriptor.name)
            if not in_lobby and descriptor.hosting.server is not None:
                add_options(srv, descriptor.hosting.server.options, descriptor.name)
            if not in_lobby and descriptor.hosting.clients is not None:
                add_options(cli, descriptor.hosting.clients.options, descriptor.name)
            if descriptor.hosting.tournament is not None:
                add_options(tournament, descriptor.hosting.tournament.options, descriptor.name)
        except UsageError as exc:
            fail(str(exc))
    return parser


def _add_referee_server_arguments(srv: argparse.ArgumentParser, cli: argparse.ArgumentParser) -> None:
    """The sign-up-and-referee server's options (games not served by the lobby)."""
    srv.add_argument("--port", type=_port, required=True, help="TCP port to listen on (1..65535)")
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    srv.add_argument("--quiet", action="store_true",
                     help="no sign-up or progress lines on standard error (ejection reasons still appear)")
    srv.add_argument("--seed", type=int, default=None,
                     help="seed for anything the server deals at random (default: from the clock, logged)")
    srv.add_argument("--replay", type=Path, metavar="FILE", default=None,
                     help="write the replay of every game played (JSON Lines, one after the other) to FILE")
    cli.add_argument("--host", default=None, help="server address (default: from the configuration)")
    policies.add_client_arguments(cli)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``gameroom`` command; Ctrl-C anywhere (parsing, imports, a game, a database)
    ends it with one line and status 130, never a traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return interrupted()


def _main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    console.install()
    if argv[:1] == ["harness"]:
        # Harness flags such as --show must not be taken for options of ours.
        argv = argv[:3] + ["--"] + argv[3:] if len(argv) > 3 else argv
    parser = build_parser(argv)
    _report_broken_plugins()
    args = parser.parse_args(argv)
    try:
        if args.command == "web":
            return web_commands.run(args)
        if args.command == "arena":
            return arena_commands.run(args)
        if args.command in ("league", "ratings", "replay"):
            return getattr(league_commands, args.command)(args)
        if args.command == "lobby":
            from gameroom.cli import lobby

            return lobby.lobby(registry.games(), args)
        game = load_game(args.game)
        if args.command == "play" and args.replay is not None:
            return league_commands.play_recorded(game, args)
        if args.command == "play":
            return game_commands.play(game, args)
        if args.command == "tournament":
            if args.replay is not None:
                return league_commands.run_recorded("tournament", game_commands.tournament, game, args)
            return game_commands.tournament(game, args)
        lobby_hosted = game.lobby is not None or getattr(args, "lobby", False)
        if args.command == "connect" or args.command in ("serve", "clients") and lobby_hosted:
            from gameroom.cli import lobby

            return getattr(lobby, args.command)(game, args)
        if args.command == "serve":
            if args.replay is None:
                return game_commands.serve(game, args)
            return league_commands.run_recorded("serve", game_commands.serve, game, args)
        if args.command == "clients":
            return game_commands.clients(game, args)
        if args.command == "harness":
            return game_commands.harness(game, args.name, args.flags)
    except UsageError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        return interrupted()
    except BrokenPipeError:
        _say("gameroom: error: the output was closed before the command finished (broken pipe)")
        return 1
    except ModuleNotFoundError as exc:
        extra = extra_providing(exc.name or "")
        if extra is None:
            fail(f"cannot process the input: {_quote(f'{type(exc).__name__}: {exc}')}")
        fail(f"gameroom {args.command} needs the {extra} extra ({(exc.name or '').split('.')[0]} is missing): "
             f"pip install 'gameroom[{extra}]'")
    except Exception as exc:   # bad input that slipped past the checks: one line, never a traceback
        logger.debug("gameroom %s failed", args.command, exc_info=True)
        fail(f"cannot process the input: {_quote(f'{type(exc).__name__}: {exc}')}")
    return 2


def _say(text: str) -> None:
    """A line on standard error, if standard error can still be written to."""
    try:
        print(text, file=sys.stderr, flush=True)
    except OSError:
        pass


def extra_providing(module: str) -> str | None:
    """The optional extra of gameroom (from its installed metadata) that installs the
    package of ``module`` (``sqlalchemy`` -> ``league``); None when no extra does."""
    import re
    from importlib import metadata

    def normal(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    wanted = normal(module.split(".")[0])
    try:
        requirements = metadata.requires("gameroom") or []
    except metadata.PackageNotFoundError:
        return None
    for requirement in requirements:
        name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", requirement)
        if name and extra and extra.group(1) != "test" and normal(name.group(1)) == wanted:
            return extra.group(1)
    return None


def _quote(text: str, limit: int = 200) -> str:
    """At most ``limit`` characters of an exception's text (it may quote its input)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
