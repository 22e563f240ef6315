"""The ``gameroom`` commands for Fish: play, tournament, serve, clients, harness."""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.cli.common import UsageError, example_configuration, print_json, print_outcome, stderr_log, winners_caption
from gameroom.cli.observers import PictureObserver
from gameroom.core.hosting import ClientSpec, ServerPlan
from gameroom.core.match import Seat, guarded_seat, trusted_seat
from gameroom.core.misbehaviour import hang
from gameroom.games.fish.actors import BADDIES
from gameroom.games.fish.config import ServerConfig, decode_server_config
from gameroom.games.fish import hosting
from gameroom.games.fish.hosting import client_kinds
from gameroom.games.fish.players import BaddiePlayer, StrategyPlayer
from gameroom.games.fish.protocol import CLIENT_HICCUP, MANAGER_BOARD
from gameroom.games.fish.referee import run_game
from gameroom.games.fish.state import Color, GameState
from gameroom.games.fish.strategies import STRATEGY_NAMES, make_strategy
from gameroom.games.fish.tournament import run_fish_tournament

NAMES = ["Astrid", "Billybob", "Claus", "Doris"]   # the reference's observed game


def _add_game_arguments(parser: argparse.ArgumentParser, players: int | None) -> None:
    parser.add_argument("--players", type=int, default=players, required=players is None,
                        help=f"number of players{'' if players is None else f' (default {players})'}")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random fish and players (default 1)")
    parser.add_argument("--strategies", default="greedy",
                        help=f"comma-separated strategies assigned in turn, from {', '.join(STRATEGY_NAMES)} "
                             "(default greedy)")
    parser.add_argument("--depth", type=int, default=2, help="look-ahead of maximin players (default 2)")
    parser.add_argument("--rows", type=int, default=MANAGER_BOARD[0], help="board rows (default 5)")
    parser.add_argument("--columns", type=int, default=MANAGER_BOARD[1], help="board columns (default 5)")
    parser.add_argument("--fish", type=int, default=None, help="fish on every tile (default: random 1..5)")


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    _add_game_arguments(parser, 4)
    parser.add_argument("--observe", type=Path, metavar="DIR",
                        help="write an SVG picture of the board after every turn into DIR")


def add_tournament_arguments(parser: argparse.ArgumentParser) -> None:
    _add_game_arguments(parser, None)
    parser.add_argument("--baddie", action="append", default=[], choices=[b for b, v in BADDIES.items() if not v.remote],
                        metavar="NAME", help="add a misbehaving player (repeatable): " +
                        ", ".join(b for b, v in BADDIES.items() if not v.remote))


def _check_game_arguments(args: argparse.Namespace, low: int, high: int) -> list[str]:
    if not low <= args.players <= high:
        raise UsageError(f"--players must lie in {low}..{high}, got {args.players}")
    if not (2 <= args.rows <= 25 and 2 <= args.columns <= 25):
        raise UsageError(f"the board must have 2..25 rows and columns, got {args.rows} x {args.columns}")
    if args.fish is not None and not 1 <= args.fish <= 5:
        raise UsageError(f"--fish must lie in 1..5, got {args.fish}")
    if not 1 <= args.depth <= 4:
        raise UsageError(f"--depth must lie in 1..4, got {args.depth}")
    strategies = args.strategies.split(",")
    unknown = [s for s in strategies if s not in STRATEGY_NAMES]
    if unknown:
        raise UsageError(f"unknown strategy {unknown[0]!r}; choose from {', '.join(STRATEGY_NAMES)}")
    return strategies


def _player(strategy: str, name: str, depth: int, seed: int) -> StrategyPlayer:
    return StrategyPlayer(make_strategy(strategy, depth=depth, rng=random.Random(seed)), name)


def _label(strategy: str, depth: int) -> str:
    return f"maximin depth {depth}" if strategy == "maximin" else strategy


def _where(position: Any) -> str:
    return f"[{position[0]},{position[1]}]"


class Account:
    """A game observer that prints what happens, turn by turn, for a person to read."""

    def __init__(self, names: dict[Color, str]) -> None:
        self.names = {color.value: name for color, name in names.items()}

    def _who(self, color: str) -> str:
        return f"{self.names[color]} ({color})"

    def __call__(self, event: Any) -> None:
        what = event.get("event") if event.kind == "state" else None
        if what == "placed":
            print(f"{self._who(event.get('color'))} places a penguin on {_where(event.get('position'))}")
        elif what == "skipped":
            print(f"{self._who(event.get('color'))} cannot move and is skipped")
        elif what == "removed":
            if event.get("turn") is not None:
                print(f"turn {event.get('turn'):3}: {event.get('message')}")
            print(f"{self._who(event.get('color'))} is removed: {event.get('reason')}")
        elif what == "moved":
            source, target = event.get("move")
            scores = ", ".join(f"{self.names[p.color.value]} {p.score}" for p in event.subject.players)
            print(f"turn {event.get('turn'):3}: {self._who(event.get('color'))} moves {_where(source)} -> "
                  f"{_where(target)}, +{event.get('fish')} fish  [{scores}]")


def play(args: argparse.Namespace) -> int:
    strategies = _check_game_arguments(args, 2, 4)
    names = NAMES[: args.players]
    seats = [trusted_seat(name, _player(strategies[i % len(strategies)], name, args.depth, args.seed + i))
             for i, name in enumerate(names)]
    state = GameState.create(args.rows, args.columns, len(seats), fish=args.fish, rng=random.Random(args.seed))
    account = Account({p.color: s.name for p, s in zip(state.players, seats)})
    observers: list[Any] = [account]
    story = Story({p.color: s.name for p, s in zip(state.players, seats)})
    if args.observe is not None:
        observers += [story, PictureObserver(args.observe, story.picture)]
    board = "random fish" if args.fish is None else f"{args.fish} fish per tile"
    print(f"Fish on a {args.rows} x {args.columns} board ({board}), seed {args.seed}: "
          + ", ".join(f"{s.name} ({p.color.value}, {_label(strategies[i % len(strategies)], args.depth)})"
                     for i, (p, s) in enumerate(zip(state.players, seats))))
    result = run_game(seats, state, MatchContext(limits=Limits(), observers=observers, log=stderr_log))
    if args.observe is not None:
        observers[2].final(story.ending(result))
    print_outcome(result, observers[2] if args.observe is not None else None, args.observe, "removed")
    return 0


class Story:
    """What the pictures say: the last move (marked on the board) by player name, with
    from, to and the fish it took, and at the end the winners."""

    def __init__(self, names: dict[Color, str]) -> None:
        self.names = names
        self.caption: str | None = None
        self.move: Any = None

    def __call__(self, event: Any) -> None:
        """Take the caption of the next picture from a state event (it runs before the
        picture observer, which is after it in the list)."""
        what = event.get("event") if event.kind == "state" else None
        color = event.get("color")
        who = f"{self.names[Color(color)]} ({color})" if color is not None else ""
        if what == "moved":
            source, target = event.get("move")
            self.move = (tuple(source), tuple(target))
            self.caption = (f"turn {event.get('turn')}: {who} moves {_where(source)} -> "
                            f"{_where(target)}, +{event.get('fish')} fish")
        elif what == "placed":
            self.move = None
            self.caption = f"{who} places a penguin on {_where(event.get('position'))}"
        elif what in ("skipped", "removed"):
            self.move = None
            self.caption = (f"{who} cannot move and is skipped" if what == "skipped"
                            else f"{who} is removed: {event.get('reason')}")

    def ending(self, outcome: Any) -> str:
        self.move = None
        self.caption = winners_caption(outcome)
        return self.caption

    def picture(self, state: GameState, caption: str) -> str:
        from gameroom.games.fish.render import render_svg

        return render_svg(state, self.caption or caption, self.names, self.move)


class RoundPrinter:
    """A tournament observer that prints each round's games and winners as they happen."""

    def __init__(self) -> None:
        self.round = 0

    def show_next_round(self, games: list[list[str]]) -> None:
        self.round += 1
        print(f"round {self.round}: " + "  |  ".join(", ".join(game) for game in games), flush=True)

    def show_winners(self, winners: list[list[str]]) -> None:
        print("  winners: " + "  |  ".join(", ".join(w) or "none" for w in winners), flush=True)


def tournament(args: argparse.Namespace) -> int:
    strategies = _check_game_arguments(args, 1, 100)
    seats: list[Seat] = [trusted_seat(f"P{i}", _player(strategies[i % len(strategies)], f"P{i}", args.depth,
                                                       args.seed + i))
                         for i in range(args.players)]
    for i, baddie in enumerate(args.baddie):
        name = f"Bad{i}"
        seats.append(guarded_seat(name, BaddiePlayer(baddie, name, hang=hang)))
    print(f"Fish tournament: {len(seats)} players ({', '.join(strategies)}"
          f"{', ' + ', '.join(args.baddie) if args.baddie else ''}), {args.rows} x {args.columns} boards, "
          f"seed {args.seed}", flush=True)
    writer = _game_writer(args, seats, strategies)
    result = run_fish_tournament(seats, rows=args.rows, columns=args.columns, fish=args.fish, seed=args.seed,
                                 time_limit=1.0, ready_time=1.0, start_limit=1.0, observers=[RoundPrinter()],
                                 game_observers=writer.observers if writer is not None else (lambda _s: ()))
    if writer is not None:
        print(f"{writer.written} games written to the database as tournament {writer.label}")
    winners, failures = result.names()
    print(f"tournament {'winner' if len(winners) == 1 else 'winners'}: {', '.join(winners) or 'none'}")
    print(f"failed or cheated: {', '.join(failures) or 'none'}")
    print_json(result.counts())
    return 0


def _game_writer(args: argparse.Namespace, seats: list[Seat], strategies: list[str]) -> Any:
    """With ``--db``: the observer factory that writes every game of the tournament."""
    if getattr(args, "db", None) is None:
        return None
    from gameroom.cli.league import database
    from gameroom.league.recording import GameWriter

    bots = {s.name: {"name": s.name, "builtin": strategies[i % len(strategies)]} for i, s in enumerate(seats[:args.players])}
    bots.update({s.name: {"name": s.name, "builtin": b} for s, b in zip(seats[args.players:], args.baddie)})
    label = args.tournament_name or f"fish-tournament-seed{args.seed}-{len(seats)}"
    return GameWriter(database(args.db), "fish", label, bots,
                      {"rows": args.rows, "columns": args.columns, "fish": args.fish})


def _server_config(values: list[Any]) -> ServerConfig:
    if len(values) > 1:
        raise UsageError(f"expected at most one server configuration on standard input, got {len(values)} JSON values")
    if values:
        return decode_server_config(values[0])
    stderr_log("no configuration on standard input: the spec's defaults (5..10 players, 2 periods of 30 s, "
               f"10 s per turn, 5 x 5 boards with 2 fish); an example configuration: {example_configuration('fish')}")
    return ServerConfig()


def server_plan(values: list[Any], _args: argparse.Namespace) -> ServerPlan:
    return hosting.server_plan(_server_config(values), stderr_log)


def add_client_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--count", type=int, default=5, help="number of well-behaved clients (default 5)")
    parser.add_argument("--strategy", default="greedy", choices=[*STRATEGY_NAMES, "querying"],
                        help="their strategy (default greedy; querying asks the server for legal moves)")
    parser.add_argument("--depth", type=int, default=1, help="look-ahead of maximin clients, 1..4 (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of random clients (default 0)")
    parser.add_argument("--baddie", nargs="+", action="extend", default=[], metavar="NAME",
                        help="misbehaving clients after the others: " + ", ".join(BADDIES))
    parser.add_argument("--baddies-first", action="store_true", help="the misbehaving clients sign up first")
    parser.add_argument("--hiccup", type=float, default=CLIENT_HICCUP,
                        help=f"seconds to pause before the sixth client (default {CLIENT_HICCUP:g})")
    parser.add_argument("--reference-framing", action="store_true",
                        help="pad every message with 2040 spaces and trickle it, as the reference client does")
    parser.add_argument("--verbose", action="store_true", help="log each client's session on standard error")


def client_specs(values: list[Any], args: argparse.Namespace) -> tuple[list[ClientSpec], str]:
    if values:
        raise UsageError("fish clients take their options on the command line, not on standard input")
    if not 0 <= args.count <= 100:
        raise UsageError(f"--count must lie in 0..100, got {args.count}")
    if not 1 <= args.depth <= 4:
        raise UsageError(f"--depth must lie in 1..4, got {args.depth}")
    if args.hiccup < 0:
        raise UsageError(f"--hiccup must not be negative, got {args.hiccup:g}")
    try:
        kinds = client_kinds(args.count, args.strategy, args.baddie, args.baddies_first)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not kinds:
        raise UsageError("no clients: give --count or --baddie")
    args.quiet = not args.verbose
    return hosting.client_specs(kinds, depth=args.depth, seed=args.seed, hiccup=args.hiccup,
                        reference_framing=args.reference_framing), "127.0.0.1"


