"""The ``gameroom`` commands for Bazaar: play, serve, clients, harness (spec §8, §10)."""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.cli.common import (UsageError, add_bonus_client_arguments,
                                 add_standard_play_arguments, answer_like_reference_server, example_configuration,
                                 print_outcome, stderr_log)
from gameroom.cli.observers import PictureObserver
from gameroom.core.hosting import ClientSpec, ServerPlan
from gameroom.core.match import trusted_seat
from gameroom.games.bazaar import config
from gameroom.games.bazaar import hosting
from gameroom.games.bazaar.players import PLAYERS
from gameroom.games.bazaar.referee import Step, run_game
from gameroom.games.bazaar.rules import Bonus
from gameroom.games.bazaar.state import scratch_state
from gameroom.games.bazaar.strategies import Policy

NAMES = ["Ada", "Bo", "Cy", "Di", "Eve", "Fay"]


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    add_standard_play_arguments(parser, (config.MIN_PLAYERS, config.MAX_PLAYERS), 4, "seed of the equations")
    parser.add_argument("--policies", default="purchase-points,purchase-size",
                        help="comma-separated purchase policies, assigned in turn "
                             "(default purchase-points,purchase-size)")
    parser.add_argument("--bonus", choices=[b.value for b in Bonus], help="end-of-game bonus (default none)")
    parser.add_argument("--strategy", choices=list(PLAYERS), default="reference",
                        help="reference: the spec's player (bazaar.md 9), which burns a card whenever no exchange "
                             "helps, so its games mostly end 0 to 0; patient: ours, which asks for pebbles until it "
                             "can buy and so plays to win (default reference)")


class Account:
    """Prints the game as it happens: one line per event, scores after each turn."""

    def __init__(self) -> None:
        self.turn = 0

    def __call__(self, event: Any) -> None:
        step: Step | None = event.detail
        if event.kind != "state" or step is None:
            return
        if step.kind == "first-action":
            self.turn += 1
        prefix = f"turn {self.turn:3}: " if step.kind in ("first-action", "purchase") else ""
        print(f"{prefix}{step.message}", flush=True)
        if step.kind == "purchase" and not step.kicked:
            scores = ", ".join(f"{name} {score}" for name, score in step.scores.items())
            g = step.game
            print(f"           [{scores}; bank {len(g.bank)}, cards {len(g.visibles)}+{len(g.hidden)}]")


def play(args: argparse.Namespace) -> int:
    if not config.MIN_PLAYERS <= args.players <= config.MAX_PLAYERS:
        raise UsageError(f"--players must lie in {config.MIN_PLAYERS}..{config.MAX_PLAYERS}, got {args.players}")
    try:
        policies = [Policy(p) for p in args.policies.split(",")]
    except ValueError:
        raise UsageError(f"unknown policy in {args.policies!r}; choose from "
                         f"{', '.join(p.value for p in Policy)}") from None
    names = NAMES[: args.players]
    state = scratch_state(random.Random(args.seed), names)
    player = PLAYERS[args.strategy]
    seats = [trusted_seat(name, player(name, policies[i % len(policies)])) for i, name in enumerate(names)]
    observers: list[Any] = [Account()]
    if args.observe is not None:
        from gameroom.games.bazaar.render import render_svg

        observers.append(PictureObserver(args.observe, render_svg))
    bonus = Bonus(args.bonus) if args.bonus else None
    print(f"Bazaar ({args.strategy} players): {', '.join(f'{s.name} ({s.player.policy.value})' for s in seats)}; "
          f"seed {args.seed}; "
          f"{len(state.equations)} equations, {len(state.bank)} pebbles in the bank"
          + (f"; bonus {bonus.value}" if bonus else ""))
    outcome = run_game(seats, state, MatchContext(limits=Limits(), observers=observers, log=stderr_log), bonus=bonus)
    if args.strategy == "reference" and not any(outcome.scores.values()):
        print("note: nobody scored. The spec's reference player (bazaar.md 9.2) answers 'no exchange' whenever "
              "no exchange helps it buy, which burns a card every turn until none are left; "
              "--strategy patient plays to win")
    print_outcome(outcome, observers[1] if args.observe is not None else None, args.observe, "kicked out")
    return 0


def server_plan(values: list[Any], args: argparse.Namespace) -> ServerPlan:
    """What ``Integration/xserver`` reads: Equations, Game and an optional Bonus; or, as
    ``Run/xserver``, only an optional Bonus for a game from scratch."""
    spec = config.decode_server_input(values)
    log = stderr_log   # ejection reasons always reach standard error, even with --quiet
    seed = args.seed if getattr(args, "seed", None) is not None else int(time.time())
    if spec.game is None:
        default = "" if values else "no configuration on standard input: the spec's defaults; "
        stderr_log(f"{default}dealing a game from scratch with seed {seed} (replay it with --seed {seed})"
                   + ("" if values else f"; an example configuration: {example_configuration('bazaar')}"))
    return hosting.server_plan(spec, seed=seed, log=log)


def client_specs(values: list[Any], args: argparse.Namespace) -> tuple[list[ClientSpec], str]:
    """What ``xclients`` (``xclients-bonus`` with ``--bonus``) reads: *Actors and an
    optional list of Special clients."""
    spec = config.decode_clients_input(values, lax_names=args.bonus)
    args.quiet = False
    return hosting.client_specs(spec, args.bonus, args.reference_framing), config.DEFAULT_HOST


# The reference's answer to a bad server configuration, its bonus-client flags, and what
# its clients program prints at the end.
server_config_error = answer_like_reference_server
add_client_arguments = add_bonus_client_arguments
clients_done = '"void"'
