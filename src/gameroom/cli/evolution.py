"""The ``gameroom`` commands for Evolution: ``play`` (a local game between silly players,
optionally with in-process baddies, a seeded shuffled deck and a picture of every turn),
``serve`` and ``clients`` (spec 7, through the core's server and proxies); the harnesses
come from the descriptor."""

from __future__ import annotations

import argparse
from typing import Any

from gameroom.cli.common import example_configuration, UsageError, add_standard_play_arguments, print_json, stderr_log
from gameroom.cli.observers import PictureObserver
from gameroom.core.context import MatchContext
from gameroom.core.hosting import ClientSpec, ServerPlan
from gameroom.core.match import guarded_seat, trusted_seat
from gameroom.core.record import STATE, Event
from gameroom.games.evolution import hosting
from gameroom.games.evolution.config import Config, decode_config
from gameroom.games.evolution.descriptor import GAME
from gameroom.games.evolution.harness import result_lines
from gameroom.games.evolution.pieces import MAX_PLAYERS, MIN_PLAYERS, shuffled_deck, sorted_deck
from gameroom.games.evolution.referee import run_game
from gameroom.games.evolution.players import BADDIES, FAT_REQUESTS, BaddiePlayer, SillyPlayer



def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    add_standard_play_arguments(parser, (MIN_PLAYERS, MAX_PLAYERS), 3, "seed of the shuffled deck")
    parser.add_argument("--deck", choices=["sorted", "shuffled"], default="sorted",
                        help="the reference's sorted deck (default) or a deck shuffled by --seed")
    parser.add_argument("--baddie", action="append", default=[], choices=list(BADDIES), metavar="NAME",
                        help="add a misbehaving player, in-process (repeatable): " + ", ".join(BADDIES))
    parser.add_argument("--fat-request", choices=FAT_REQUESTS, default="min",
                        help="how much fat food silly players ask for (default min)")


def _print_removal(event: Event) -> None:
    """Prints who was removed (by player id) and why, as it happens."""
    if event.kind == STATE and event.get("event") == "removed":
        print(f"removed: {event.get('player')}: {event.get('reason')}", flush=True)


def play(args: Any) -> int:
    total = args.players + len(args.baddie)
    if not MIN_PLAYERS <= total <= MAX_PLAYERS:
        raise UsageError(f"a game needs {MIN_PLAYERS}..{MAX_PLAYERS} players in all, got {total}")
    seats = [trusted_seat(str(i), SillyPlayer(args.fat_request)) for i in range(args.players)]
    seats += [guarded_seat(name, BaddiePlayer(name, i, args.fat_request)) for i, name in enumerate(args.baddie)]
    deck = sorted_deck() if args.deck == "sorted" else shuffled_deck(args.seed)
    observers: list[Any] = [_print_removal]
    if args.observe is not None:
        observers.append(PictureObserver(args.observe, GAME.render))
    print(f"Evolution: {total} players, {args.deck} deck" + (f" (seed {args.seed})" if args.deck == "shuffled" else ""))
    result = run_game(seats, deck, MatchContext(observers=observers))
    print(f"{result.turns} turn(s)")
    print("\n".join(result_lines(result.results)))
    if args.observe is not None:
        print(f"pictures: {observers[1].count} SVG files in {args.observe}")
    print_json(result.to_json())   # the last line of every game's play: [winners, misbehaved]
    return 0


def _config(values: list[Any]) -> Config:
    if len(values) > 1:
        raise UsageError(f"expected at most one configuration on standard input, got {len(values)} JSON values")
    return decode_config(values[0]) if values else Config()


def server_plan(values: list[Any], _args: argparse.Namespace) -> ServerPlan:
    """``gameroom serve evolution``: the configuration (spec 8.2) on standard input, optional."""
    if not values:
        stderr_log("no configuration on standard input: the spec's defaults (3..8 players, 10 s per extra "
                   "player, 1 s per call, the sorted deck); an example configuration: "
                   f"{example_configuration('evolution')}")
    return hosting.server_plan(_config(values), stderr_log)


def add_client_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--count", type=int, default=3, help="number of silly clients (default 3)")
    parser.add_argument("--baddie", nargs="+", action="extend", default=[], metavar="NAME",
                        help="misbehaving clients after the silly ones (the i-th with k = i): "
                             + ", ".join(hosting.CLIENT_BADDIES))
    parser.add_argument("--reference-framing", action="store_true",
                        help="pad every message with 5000 spaces and trickle it, as the reference client does")
    parser.add_argument("--verbose", action="store_true", help="log each client's session on standard error")


def client_specs(values: list[Any], args: argparse.Namespace) -> tuple[list[ClientSpec], str]:
    """``gameroom clients evolution``: 3 <= count + #baddies <= 8 (spec 7.2); an optional
    configuration on standard input gives the client section (host, sign-up name)."""
    config = _config(values)
    unknown = [b for b in args.baddie if b not in hosting.CLIENT_BADDIES]
    if unknown:
        raise UsageError(f"unknown baddie {unknown[0]!r}; choose from {', '.join(hosting.CLIENT_BADDIES)}")
    total = args.count + len(args.baddie)
    if args.count < 0 or not MIN_PLAYERS <= total <= MAX_PLAYERS:
        raise UsageError(f"clients need {MIN_PLAYERS}..{MAX_PLAYERS} connections in all (--count plus --baddie), "
                         f"got {total}")
    args.quiet = not args.verbose
    specs = hosting.client_specs(args.count, args.baddie, name=config.client.name,
                                 fat_request=config.referee.silly_fat_request,
                                 reference_framing=args.reference_framing,
                                 connect_retries=config.client.connect_retries,
                                 retry_wait=config.client.retry_wait_s)
    return specs, config.client.host


clients_done = "(good bye)"
