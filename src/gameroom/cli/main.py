"""Entry point of the ``gameroom`` command."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from gameroom.cli.common import GameCommands, UsageError, clients, fail, run_harness, serve
from gameroom.games import registry


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line with exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        fail(f"{message} (see '{self.prog} --help')")


def load_game(name: str) -> GameCommands:
    try:
        return GameCommands.from_descriptor(registry.game(name))
    except registry.UnknownGame as exc:
        raise UsageError(str(exc)) from None


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"port must be an integer, got {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port must lie in 1..65535, got {port}")
    return port


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    games = registry.games()
    listing = "\n".join(f"  {name:8} {game.summary}" for name, game in games.items())
    parser = _Parser(prog="gameroom", description="Host turn-based games between automated players.",
                     epilog=f"games:\n{listing}", formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    game_choices = list(games)

    play = commands.add_parser("play", help="play a local game between built-in players")
    play.add_argument("game", choices=game_choices)
    tournament = commands.add_parser("tournament", help="run a local tournament between built-in players")
    tournament.add_argument("game", choices=game_choices)
    srv = commands.add_parser("serve", help="sign up remote players over TCP and run a game")
    srv.add_argument("game", choices=game_choices)
    srv.add_argument("--port", type=_port, required=True)
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    srv.add_argument("--quiet", action="store_true", help="no diagnostics on standard error")
    srv.add_argument("--seed", type=int, default=None,
                     help="seed for anything the server deals at random (default: from the clock, logged)")
    cli = commands.add_parser("clients", help="run configured players as TCP clients")
    cli.add_argument("game", choices=game_choices)
    cli.add_argument("--port", type=_port, required=True)
    cli.add_argument("--host", default=None, help="server address (default: from the configuration)")
    harness = commands.add_parser("harness", help="run a test harness: JSON on stdin, JSON on stdout")
    harness.add_argument("game", choices=game_choices)
    harness.add_argument("name")
    harness.add_argument("flags", nargs="*", help="--show: write a picture of every state into Tmp/ (game harnesses)")

    # Game-specific options: look at the game named on the command line, if any.
    if len(argv) >= 2 and argv[1] in games:
        try:
            game = load_game(argv[1])
        except UsageError:
            return parser
        game.add_play_arguments(play)
        game.add_client_arguments(cli)
        game.add_tournament_arguments(tournament)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["harness"]:
        # Harness flags such as --show must not be taken for options of ours.
        argv = argv[:3] + ["--"] + argv[3:] if len(argv) > 3 else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        game = load_game(args.game)
        if args.command == "play":
            return game.play(args)
        if args.command == "tournament":
            if game.tournament is None:
                raise UsageError(f"{game.name} has no tournament mode")
            return game.tournament(args)
        if args.command == "serve":
            return serve(game, args)
        if args.command == "clients":
            return clients(game, args)
        if args.command == "harness":
            return run_harness(game, args.name, args.flags)
    except UsageError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    return 2
