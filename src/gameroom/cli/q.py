"""The ``gameroom`` commands for Q: play, serve, clients, harness."""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from gameroom.core.context import MatchContext
from gameroom.cli.common import (UsageError, add_bonus_client_arguments,
                                 add_standard_play_arguments, answer_like_reference_server, example_configuration,
                                 print_outcome, stderr_log, winners_caption)
from gameroom.cli.observers import PictureObserver
from gameroom.core.hosting import ClientSpec, ServerPlan
from gameroom.core.limits import Limits
from gameroom.core.match import trusted_seat
from gameroom.core.record import STATE
from gameroom.core.wire import WireError
from gameroom.games.q import config as qconfig
from gameroom.games.q.actions import PASS, REPLACE
from gameroom.games.q import hosting
from gameroom.games.q.hosting import SPECIAL_CLIENTS
from gameroom.games.q.players import StrategyPlayer
from gameroom.games.q.referee import QRules, run_game
from gameroom.games.q.state import RefereeState, new_game
from gameroom.games.q.strategies import STRATEGIES

NAMES = ["Ada", "Bo", "Cy", "Di"]


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    add_standard_play_arguments(parser, (2, 4), 4, "seed of the shuffle")
    parser.add_argument("--strategies", default="dag,ldasg",
                        help=f"comma-separated strategies, assigned in turn, from {', '.join(STRATEGIES)} "
                             "(default dag,ldasg)")
    parser.add_argument("--q-bonus", type=int, default=6,
                        help=f"points for completing a Q, 0..{MAX_BONUS} (default 6)")
    parser.add_argument("--finish-bonus", type=int, default=6,
                        help=f"points for placing a whole hand, 0..{MAX_BONUS} (default 6)")


MAX_BONUS = 10   # q.md 8.3: both bonuses are at most 10


def _tile(tile: Any) -> str:
    return f"{tile.color.name} {tile.shape.name.replace('_', '-')}"


def _describe(action: Any) -> str:
    if action is PASS:
        return "passes"
    if action is REPLACE:
        return "exchanges its hand"
    if not action:
        return "is ejected"
    where = ", ".join(f"{_tile(p.tile)} at ({p.coord[0]},{p.coord[1]})" for p in action)
    return f"places {len(action)} tile{'s' if len(action) > 1 else ''}: {where}"


def play(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 4:
        raise UsageError(f"--players must lie in 2..4, got {args.players}")
    for option, value in (("--q-bonus", args.q_bonus), ("--finish-bonus", args.finish_bonus)):
        if not 0 <= value <= MAX_BONUS:
            raise UsageError(f"{option} must lie in 0..{MAX_BONUS}, got {value}")
    strategies = args.strategies.split(",")
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown or not strategies:
        raise UsageError(f"unknown strategy {unknown[0]!r}; choose from {', '.join(STRATEGIES)}")
    names = NAMES[: args.players]
    state = new_game(names, random.Random(args.seed))
    seats = [trusted_seat(name, StrategyPlayer(name, strategies[i % len(strategies)]))
             for i, name in enumerate(names)]
    observers = []
    story = Story()
    if args.observe is not None:
        observers.append(PictureObserver(args.observe, story.picture))
    print(f"Q: {', '.join(f'{s.name} ({s.player.strategy})' for s in seats)}; seed {args.seed}; "
          f"{len(state.pile)} tiles in the pile")
    turn = 0

    def narrate(event: Any) -> None:
        # A turn's snapshot carries (name, action) as its detail; the story is told before
        # the picture observer (after this one) draws the snapshot with its caption.
        nonlocal turn
        if event.kind != STATE or event.detail is None:
            return
        name, action = event.detail
        now = event.subject
        turn += 1
        scores = ", ".join(f"{r.name} {r.score}" for r in now.players) if now is not None else ""
        pile = len(now.pile) if now is not None else 0
        print(f"turn {turn:3}: {name} {_describe(action)}  [{scores}; pile {pile}]")
        story.turn(turn, name, action)

    outcome = run_game(seats, state, MatchContext(limits=Limits(), observers=[narrate, *observers], log=stderr_log),
                       rules=QRules(args.q_bonus, args.finish_bonus))
    if observers:
        observers[0].final(story.ending(outcome))
    print_outcome(outcome, observers[0] if args.observe is not None else None, args.observe)
    return 0


class Story:
    """What the pictures say: who did what in the last turn (its tiles outlined), and at
    the end who won with what scores."""

    def __init__(self) -> None:
        self.caption = "start: the first player is at the top"
        self.placed: list[tuple[int, int]] = []

    def turn(self, number: int, name: str, action: Any) -> None:
        self.caption = f"turn {number}: {name} {_describe(action)}"
        self.placed = [p.coord for p in action] if isinstance(action, (list, tuple)) else []

    def ending(self, outcome: Any) -> str:
        self.placed = []
        self.caption = winners_caption(outcome)
        return self.caption

    def picture(self, state: Any, _caption: str) -> str:
        from gameroom.games.q.render import render_svg

        return render_svg(state, self.caption, self.placed)


def server_plan(values: list[Any], args: argparse.Namespace) -> ServerPlan:
    if not values:
        # No configuration: the spec's defaults (q.md 8.1). Their state has no player
        # records, so a game is dealt for whoever signs up, as `play` deals one.
        seed = args.seed if args.seed is not None else int(time.time())
        stderr_log(f"no configuration on standard input: the spec's defaults (2 periods of 20 s, 2 s for a name, "
                   f"6 s per call, bonuses 6 and 6) and a game dealt for whoever signs up with seed {seed}; "
                   f"an example configuration: {example_configuration('q')}")
        return hosting.server_plan(qconfig.ServerConfig(), stderr_log, deal_seed=seed)
    if len(values) != 1:
        raise UsageError(f"expected one server configuration on standard input, got {len(values)} JSON values")
    config = qconfig.decode_server_config(values[0])
    return hosting.server_plan(config, stderr_log)


def client_specs(values: list[Any], args: argparse.Namespace) -> tuple[list[ClientSpec], str]:
    if not values or len(values) > (2 if args.bonus else 1):
        raise UsageError(f"expected a client configuration{' and an optional special client' if args.bonus else ''}"
                         f" on standard input, got {len(values)} JSON values")
    config = qconfig.decode_client_config(values[0], lax_names=args.bonus)
    special = None
    if len(values) == 2:
        special = values[1]
        if special not in SPECIAL_CLIENTS:
            raise WireError(f"expected one of {', '.join(map(json.dumps, SPECIAL_CLIENTS))}, got {json.dumps(special)}",
                            "$special")
    args.quiet = config.quiet
    return hosting.client_specs(config, args.bonus, special, args.reference_framing), config.host




def render(state: Any, caption: str) -> str:
    from gameroom.games.q.render import render_svg

    return render_svg(state, caption)


# The reference's answer to a bad server configuration, and its bonus-client flags.
server_config_error = answer_like_reference_server
add_client_arguments = add_bonus_client_arguments
