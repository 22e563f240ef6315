"""How the commands host Q, as data (the descriptor's :data:`HOSTING`): a local game for
``play`` (the bonuses as options), the server's sign-up rules and game runner from a
server configuration (q.md 7 and 8.1), and the clients to launch from a client
configuration (7.6, 8.4), including the broken clients of the bonus tests (9.5, 10.9).

Pure: the game-agnostic ``gameroom.server`` does the networking, the command line the
reading and printing.
"""

from __future__ import annotations

import json
import logging
import random
from typing import Any, Callable, Sequence

from gameroom.core.errors import GameRefused
from gameroom.core.context import MatchContext
from gameroom.core.hosting import (ClientHosting, ClientPlan, ClientSpec, Hosting, LocalMatch, PlayHosting,
                                   RoomHosting, ServerHosting, ServerPlan, SignupRules)
from gameroom.core.limits import Limits
from gameroom.core.match import Seat, trusted_seat
from gameroom.core.misbehaviour import bare_text, truncated
from gameroom.core.options import (ConfigurationError, Option, Options, players_option, seed_option,
                                   strategies_option)
from gameroom.core.wire import WireError
from gameroom.games.q import codec
from gameroom.games.q.config import (DEFAULT_FINISH_BONUS, DEFAULT_Q_BONUS, ClientConfig, ServerConfig,
                                     decode_client_config, decode_server_config)
from gameroom.games.q.narrator import QNarrator, opening
from gameroom.games.q.players import StrategyPlayer, is_well_behaved, player_from_spec
from gameroom.games.q.protocol import PROTOCOL
from gameroom.games.q.referee import QRules, run_game
from gameroom.games.q.state import new_game
from gameroom.games.q.strategies import STRATEGIES

__all__ = ["MIN_PLAYERS", "MAX_PLAYERS", "server_plan", "client_specs", "BROKEN_CLIENTS", "SPECIAL_CLIENTS",
           "CLIENT_SPACING", "HOSTING"]

logger = logging.getLogger(__name__)

MIN_PLAYERS = 2
MAX_PLAYERS = 4
CLIENT_SPACING = 2.0      # seconds between client launches (a constant in the reference)
NO_GAME: list[list[str]] = [[], []]


def server_plan(config: ServerConfig, deal_seed: int | None = None) -> ServerPlan:
    """How to sign players up and run the configured game with them. With ``deal_seed``
    the configured state is not used: a game is dealt for whoever signs up, as
    ``play`` does (the shuffled set, its first tile on the map, six tiles each)."""
    rules = SignupRules(min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, periods=config.server_tries,
                        period_seconds=config.server_wait, name_first_byte=config.wait_for_signup,
                        name_complete=config.wait_for_signup, valid_name=codec.valid_name,
                        name_rule="1 to 20 ASCII letters or digits (q.md 7.2)")
    if config.ref_spec is not None and config.ref_spec.observe:
        # q.md 8.2: the flag cannot switch an observer on; it only earns this warning.
        logger.info('ref-spec "observe": true cannot attach an observer (q.md 8.2); observers are attached by '
            "`gameroom play q --observe DIR` or the xgames-with-observer harness")

    def play(seats: Sequence[Seat]) -> Any:
        referee = config.ref_spec
        if referee is None:
            raise GameRefused(f"invalid ref-spec: {config.ref_spec_error}")
        names = [seat.name for seat in seats]
        state0 = referee.state0 if deal_seed is None else new_game(names, random.Random(deal_seed))
        records = state0.players
        if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS or len(seats) != len(records):
            raise GameRefused(f"{len(seats)} players signed up for {len(records)} player records")
        if [r.name for r in records] != names:
            raise GameRefused(f"signed-up names {names} differ from the state's {[r.name for r in records]}")
        if len(set(names)) != len(names):
            raise GameRefused(f"duplicate names among {names}")
        # The referee logs only ejections; their reasons reach standard error even when
        # the configuration says quiet (README: "ejected with its reason on standard error").
        outcome = run_game(seats, state0, MatchContext(limits=Limits(call=referee.per_turn)),
                           rules=QRules(referee.config_s.qbo, referee.config_s.fbo))
        return outcome.to_json()

    return ServerPlan(protocol=PROTOCOL, rules=rules, play=play, no_game_result=NO_GAME, error_result=NO_GAME,
                      single_thread=True)


# -- the broken proxy referees of the bonus client (9.5) ---------------------------------------

_bare_void = bare_text(b"void\n")
_truncated = truncated(4095)


def _bad_key(reply: Any) -> bytes | None:
    if not isinstance(reply, list) or not reply:
        return None
    first = dict(reply[0])
    first["oord"] = first.pop("coordinate")
    return (json.dumps([first] + reply[1:]) + "\n").encode("utf-8")


BROKEN_CLIENTS: dict[str, dict[str, Callable[[Any], bytes | None]]] = {
    "nonSetup": {"setup": _bare_void},
    "illTT": {"take-turn": _truncated},
    "invTTBadString": {"take-turn": _bad_key},
    "nonNewTiles": {"new-tiles": _bare_void},
    "nonWin": {"win": _bare_void},
}

SPECIAL_CLIENTS = {"divergeBeforeSending": "silent", "sendnameloop": "name-only"}


def client_specs(config: ClientConfig, bonus: bool = False, special: str | None = None,
                 reference_framing: bool = False) -> list[ClientSpec]:
    """One client per configured player, 2 s apart; with ``bonus``, broken proxies by name
    and the optional special client last."""
    pad = 5000 if reference_framing else 0
    specs = []
    for actor in config.players:
        deviations = BROKEN_CLIENTS.get(actor.name, {}) if bonus else {}
        specs.append(ClientSpec(name=actor.name, player=player_from_spec(actor), protocol=PROTOCOL,
                                deviations=dict(deviations), delay=CLIENT_SPACING, pad=pad,
                                trickle=reference_framing, trusted=is_well_behaved(actor),
                                expects_result=is_well_behaved(actor) and not deviations))
    if special is not None:
        specs.append(ClientSpec(name=special, behaviour=SPECIAL_CLIENTS[special], delay=CLIENT_SPACING,
                                pad=pad, trickle=reference_framing))
    return specs


# -- the commands (the descriptor's HOSTING) ----------------------------------------------------

NAMES = ("Ada", "Bo", "Cy", "Di")
MAX_BONUS = 10   # q.md 8.3: both bonuses are at most 10

BONUS_OPTIONS = (
    Option("q-bonus", int, DEFAULT_Q_BONUS, f"points for completing a Q, 0..{MAX_BONUS} (default 6)",
           low=0, high=MAX_BONUS),
    Option("finish-bonus", int, DEFAULT_FINISH_BONUS, f"points for placing a whole hand, 0..{MAX_BONUS} (default 6)",
           low=0, high=MAX_BONUS),
)
"""The bonuses of q.md 8.3: options of a local game and of a lobby room."""

PLAY_OPTIONS = (
    players_option(MIN_PLAYERS, MAX_PLAYERS, 4),
    seed_option("seed of the shuffle"),
    strategies_option(list(STRATEGIES), ["dag", "ldasg"]),
    *BONUS_OPTIONS,
)


def local_match(options: Options) -> LocalMatch:
    """Ada, Bo, ... with the strategies in turn, the shuffle of ``--seed``, the bonuses
    given, no time limits (built-in players on trusted seats)."""
    strategies, seed = options["strategies"], options["seed"]
    names = list(NAMES[: options["players"]])
    state = new_game(names, random.Random(seed))
    seats = [trusted_seat(name, StrategyPlayer(name, strategies[i % len(strategies)])) for i, name in enumerate(names)]
    narrator = QNarrator(opening([f"{s.name} ({s.player.strategy})" for s in seats], seed, len(state.pile)))
    rules = QRules(options["q_bonus"], options["finish_bonus"])
    return LocalMatch(run=lambda observers: run_game(seats, state, rules=rules,
                                                     context=MatchContext(limits=Limits(), observers=observers)),
                      narrator=narrator)


def configure_server(values: Sequence[Any], _options: Options) -> ServerConfig:
    if len(values) != 1:
        raise ConfigurationError(f"expected one server configuration on standard input, got {len(values)} JSON values")
    return decode_server_config(values[0])


def plan_server(config: ServerConfig | None, options: Options) -> ServerPlan:
    """The configured game; without a configuration the spec's defaults (q.md 8.1), whose
    state has no player records, so a game is dealt for whoever signs up, as ``play``
    deals one, from the seed."""
    if config is None:
        return server_plan(ServerConfig(), deal_seed=options["seed"])
    return server_plan(config)


def _server_defaults(options: Options) -> str:
    return ("the spec's defaults (2 periods of 20 s, 2 s for a name, 6 s per call, bonuses 6 and 6) and a game "
            f"dealt for whoever signs up with seed {options['seed']}")


CLIENT_OPTIONS = (
    Option("bonus", flag=True, help="the robustness clients: lax names, broken-JSON players, special clients"),
    Option("reference-framing", flag=True,
           help="pad every message with 5000 spaces and trickle it, as the reference client does"),
)


def plan_clients(values: Sequence[Any], options: Options) -> ClientPlan:
    """The client configuration (and, with ``--bonus``, an optional special client)."""
    bonus = options["bonus"]
    if not values or len(values) > (2 if bonus else 1):
        raise ConfigurationError(f"expected a client configuration{' and an optional special client' if bonus else ''}"
                                 f" on standard input, got {len(values)} JSON values")
    config = decode_client_config(values[0], lax_names=bonus)
    special = None
    if len(values) == 2:
        special = values[1]
        if special not in SPECIAL_CLIENTS:
            raise WireError(f"expected one of {', '.join(map(json.dumps, SPECIAL_CLIENTS))}, got {json.dumps(special)}",
                            "$special")
    return ClientPlan(client_specs(config, bonus, special, options["reference_framing"]), config.host, config.quiet)


def play_room(seed: int, seats: Sequence[Seat], options: Options, context: MatchContext) -> Any:
    """A lobby room's game: dealt from ``seed`` as the descriptor's ``play`` deals it,
    with the room's bonuses."""
    state = new_game([seat.name for seat in seats], random.Random(seed))
    return run_game(seats, state, context, rules=QRules(options["q_bonus"], options["finish_bonus"]))


ROOMS = RoomHosting(BONUS_OPTIONS, play_room, valid_name=codec.valid_name,
                    name_rule="1 to 20 ASCII letters or digits (q.md: names travel in every call)")

HOSTING = Hosting(
    rooms=ROOMS,
    play=PlayHosting(PLAY_OPTIONS, local_match),
    server=ServerHosting(plan_server, configure_server, _server_defaults,
                         bad_configuration_reply="xserver: things went wrong"),
    clients=ClientHosting(plan_clients, CLIENT_OPTIONS),
    configs="gameroom.games.q",
    examples=("server.json", "clients.json"),
)
