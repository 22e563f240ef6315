"""Fish over the network, as data (spec 7, 8.2, 9.6, 10.7): the server's sign-up rules and
tournament from a server configuration, and the clients to launch.

* :func:`server_plan` -- sign-up of 7.1 (5..10 players, two 30 s periods, names of 1..12
  ASCII letters read within 10 s + 10 s), then a knock-out tournament on 5 x 5 boards with
  2 fish and no holes, 10 s per call (30 s in the first playing round); the result is
  ``[W, F]``, the numbers of winners and of failed or cheating players.
* :func:`client_specs` -- the clients of a line-up: well-behaved players of a strategy and
  the misbehaving clients of 9.6 (in-process baddies, and the wire-level ``no-name``,
  ``invalid-json-setup`` and ``ill-formed-setup``), the reference launcher's 15 s pause before
  the sixth client, names ``P`` + index digits spelled as letters.

Pure: the game-agnostic ``gameroom.server`` does the networking.
"""

from __future__ import annotations

import json
import random
from typing import Any, Callable, Sequence

from gameroom.core.hosting import ClientSpec, ServerPlan, SignupRules, name_rule
from gameroom.core.match import Seat, trusted_seat
from gameroom.core.misbehaviour import hang
from gameroom.games.fish.actors import BADDIES, SCENARIO_KINDS, Misbehaviour, ill_formed_setup, invalid_json_setup
from gameroom.games.fish.config import ServerConfig
from gameroom.games.fish.players import BaddiePlayer, QueryingPlayer, StrategyPlayer
from gameroom.games.fish.protocol import CLIENT_HICCUP, PROTOCOL
from gameroom.games.fish.queries import WireQueries
from gameroom.games.fish.strategies import STRATEGY_NAMES, make_strategy
from gameroom.games.fish.tournament import run_fish_tournament

__all__ = ["NO_TOURNAMENT", "signup_rules", "server_plan", "client_name", "client_kinds", "client_specs",
           "CLIENT_KINDS", "canonical_kind", "client_spec", "house_seats"]

NO_TOURNAMENT = [0, 0]
"""``[W, F]`` when too few players signed up (or the tournament could not be run)."""

_DIGITS = ("z", "o", "tw", "th", "fo", "fi", "si", "se", "e", "nine")

# Each kind once (scenario kinds repeat some baddies' names), in a stable order.
CLIENT_KINDS: tuple[str, ...] = tuple(dict.fromkeys((*STRATEGY_NAMES, "querying", *BADDIES, *SCENARIO_KINDS)))
"""Every kind of client a line-up may name: strategies, the query-using player, baddies
(and their names in ``scenarios.json``)."""


def signup_rules(config: ServerConfig) -> SignupRules:
    """The sign-up rules of 7.1 with the configuration's numbers."""
    return SignupRules(min_players=config.min_players, max_players=config.max_players,
                       periods=config.server_tries, period_seconds=config.server_wait,
                       name_first_byte=config.name_timeout, name_complete=config.name_timeout,
                       valid_name=name_rule(r"[A-Za-z]+", 12))


def house_seats(config: ServerConfig) -> list[Seat]:
    """The configured house players (greedy), who sign up before everyone else."""
    names = [client_name(i, "House") for i in range(config.house_players)]
    return [trusted_seat(name, StrategyPlayer(make_strategy("greedy"), name)) for name in names]


class RoundLog:
    """The tournament observer of ``"observe": true``: each round's games, their winners
    and the end, as lines for the server's log."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self.log = log
        self.round = 0

    def show_next_round(self, games: list[list[str]]) -> None:
        self.round += 1
        self.log(f"round {self.round}: " + "  |  ".join(", ".join(game) for game in games))

    def show_winners(self, winners: list[list[str]]) -> None:
        self.log(f"round {self.round} winners: " + "  |  ".join(", ".join(w) or "none" for w in winners))

    def show_end(self, winners: list[str], failures: list[str]) -> None:
        self.log(f"tournament over: winners {', '.join(winners) or 'none'}; failed {', '.join(failures) or 'none'}")


def server_plan(config: ServerConfig, log: Callable[[str], None] | None = None) -> ServerPlan:
    """How to sign players up and run the tournament; the result is ``[W, F]``."""

    def play(seats: Sequence[Seat]) -> Any:
        observers = [RoundLog(log)] if config.observe and log is not None else []
        result = run_fish_tournament(seats, rows=config.rows, columns=config.cols, fish=config.fish,
                                     time_limit=config.time_per_turn, ready_time=config.ready_time,
                                     start_limit=config.start_timeout, observers=observers, log=log)
        return result.counts()

    return ServerPlan(protocol=PROTOCOL, rules=signup_rules(config), play=play, no_game_result=NO_TOURNAMENT,
                      error_result=NO_TOURNAMENT, house_seats=lambda: house_seats(config))


def client_name(index: int, prefix: str = "P") -> str:
    """A client's name: `prefix` + the digits of `index` spelled as letters (0 z, 1 o, 2 tw,
    ...), as the reference launcher names its clients (letters only, so always valid)."""
    return prefix + "".join(_DIGITS[int(d)] for d in str(index))


def canonical_kind(kind: str) -> str:
    """A client kind with ``scenarios.json``'s short baddie names (``bad-as``, ...) resolved."""
    return SCENARIO_KINDS.get(kind) or kind if kind in SCENARIO_KINDS else kind


def client_kinds(count: int, strategy: str = "greedy", baddies: Sequence[str] = (),
                 baddies_first: bool = False) -> list[str]:
    """The line-up: `count` players of `strategy` and the named baddies (after them, or
    before them with `baddies_first`), in sign-up order."""
    ordinary = [strategy] * count
    bad = [canonical_kind(b) for b in baddies]
    unknown = [b for b in bad if b not in CLIENT_KINDS]
    if unknown:
        raise ValueError(f"unknown client kind {unknown[0]!r}; choose from {', '.join(CLIENT_KINDS)}")
    return bad + ordinary if baddies_first else ordinary + bad


def _deviation(misbehaviour: Misbehaviour) -> Callable[[Any], bytes | None]:
    """The raw reply of a wire-level baddie in place of its correct ``setup`` reply."""
    def deviate(reply: Any) -> bytes | None:
        position = (reply[0], reply[1])
        if misbehaviour is Misbehaviour.INVALID_JSON_SETUP:
            return (json.dumps(invalid_json_setup(position)) + "\n").encode()
        return ill_formed_setup(position).encode()
    return deviate


def client_spec(kind: str, name: str, *, depth: int = 1, seed: int = 0, delay: float = 0.0,
                reference_framing: bool = False) -> ClientSpec:
    """One client of a kind: a strategy name, ``querying``, or a baddie."""
    pad, trickle = (2040, True) if reference_framing else (0, False)
    kind = canonical_kind(kind)
    if kind in STRATEGY_NAMES:
        player = StrategyPlayer(make_strategy(kind, depth=depth, rng=random.Random(seed)), name)
        return ClientSpec(name, player, PROTOCOL, delay=delay, pad=pad, trickle=trickle)
    if kind == "querying":
        querying = QueryingPlayer(name)
        return ClientSpec(name, querying, PROTOCOL, delay=delay, pad=pad, trickle=trickle,
                          side_channel=lambda ask: querying.use_queries(WireQueries(ask)))
    baddie = BADDIES[kind]
    if baddie.misbehaviour is Misbehaviour.NO_NAME:
        return ClientSpec(name, behaviour="silent", delay=delay)
    if baddie.remote:
        player = StrategyPlayer(make_strategy("greedy"), name)
        return ClientSpec(name, player, PROTOCOL, deviations={"setup": _deviation(baddie.misbehaviour)},
                          delay=delay, pad=pad, trickle=trickle)
    return ClientSpec(name, BaddiePlayer(baddie, name, hang=hang), PROTOCOL, delay=delay, pad=pad, trickle=trickle,
                      expects_result=False)


def client_specs(kinds: Sequence[str], *, depth: int = 1, seed: int = 0, hiccup: float = CLIENT_HICCUP,
                 reference_framing: bool = False) -> list[ClientSpec]:
    """The clients of a line-up in sign-up order, pausing `hiccup` seconds before the sixth
    (the reference launcher's pause, half a sign-up period)."""
    return [client_spec(kind, client_name(i), depth=depth, seed=seed + i, delay=hiccup if i == 5 else 0.0,
                        reference_framing=reference_framing)
            for i, kind in enumerate(kinds)]
