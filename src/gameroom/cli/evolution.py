"""The ``gameroom`` commands for Evolution: ``play`` (a local game between silly players,
optionally with in-process baddies, a seeded shuffled deck and a picture of every turn)
and the harnesses of spec 10."""

from __future__ import annotations

import argparse
from typing import Any

from gameroom.cli.common import UsageError, add_standard_play_arguments
from gameroom.cli.observers import PictureObserver
from gameroom.core.match import guarded_seat, trusted_seat
from gameroom.games.evolution.harness import result_lines
from gameroom.games.evolution.pieces import MAX_PLAYERS, MIN_PLAYERS, shuffled_deck, sorted_deck
from gameroom.games.evolution.referee import run_game
from gameroom.games.evolution.render import render_svg
from gameroom.games.evolution.silly import BADDIES, FAT_REQUESTS, BaddiePlayer, SillyPlayer

render = render_svg


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    add_standard_play_arguments(parser, (MIN_PLAYERS, MAX_PLAYERS), 3, "seed of the shuffled deck")
    parser.add_argument("--deck", choices=["sorted", "shuffled"], default="sorted",
                        help="the reference's sorted deck (default) or a deck shuffled by --seed")
    parser.add_argument("--baddie", action="append", default=[], choices=list(BADDIES), metavar="NAME",
                        help="add a misbehaving player, in-process (repeatable): " + ", ".join(BADDIES))
    parser.add_argument("--fat-request", choices=FAT_REQUESTS, default="min",
                        help="how much fat food silly players ask for (default min)")


class _TurnPrinter:
    """Prints who was removed and why, as it happens."""

    def removed(self, player: str, reason: str | None) -> None:
        print(f"removed: {player}: {reason}", flush=True)


def play(args: Any) -> int:
    total = args.players + len(args.baddie)
    if not MIN_PLAYERS <= total <= MAX_PLAYERS:
        raise UsageError(f"a game needs {MIN_PLAYERS}..{MAX_PLAYERS} players in all, got {total}")
    seats = [trusted_seat(str(i), SillyPlayer(args.fat_request)) for i in range(args.players)]
    seats += [guarded_seat(name, BaddiePlayer(name, i, args.fat_request)) for i, name in enumerate(args.baddie)]
    deck = sorted_deck() if args.deck == "sorted" else shuffled_deck(args.seed)
    observers: list[Any] = [_TurnPrinter()]
    if args.observe is not None:
        observers.append(PictureObserver(args.observe, render_svg))
    print(f"Evolution: {total} players, {args.deck} deck" + (f" (seed {args.seed})" if args.deck == "shuffled" else ""))
    result = run_game(seats, deck, observers=observers)
    print(f"{result.turns} turn(s)")
    print("\n".join(result_lines(result.results)))
    if args.observe is not None:
        print(f"pictures: {observers[1].count} SVG files in {args.observe}")
    return 0
