"""How the commands host Bazaar, as data (the descriptor's :data:`HOSTING`; spec §7, §8,
§9.10, §10.1): a local game for ``play`` (policies, players and bonus as options), the
server's sign-up rules and game runner for a server input, and the clients to launch for
a clients input, including the bonus client's broken-JSON players and its Special
clients.

Pure: the game-agnostic ``gameroom.server`` does the networking, the command line the
reading and printing.
"""

from __future__ import annotations

import json
import logging
import random
from typing import Any, Callable, Sequence

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.hosting import (ClientHosting, ClientPlan, ClientSpec, Hosting, LocalMatch, PlayHosting, RoomHosting,
                                   ServerHosting, ServerPlan, SignupRules)
from gameroom.core.match import Seat, trusted_seat
from gameroom.core.misbehaviour import bare_text, truncated
from gameroom.core.options import Option, OptionError, Options, comma_list, players_option, seed_option
from gameroom.games.bazaar import config
from gameroom.games.bazaar.actors import Special, WireBehaviour, valid_name
from gameroom.games.bazaar.config import ClientsInput, ServerConfig, ServerInput
from gameroom.games.bazaar.narrator import BazaarNarrator
from gameroom.games.bazaar.players import PLAYERS, make_player
from gameroom.games.bazaar.protocol import PROTOCOL
from gameroom.games.bazaar.referee import run_game
from gameroom.games.bazaar.rules import Bonus
from gameroom.games.bazaar.state import scratch_state
from gameroom.games.bazaar.strategies import Policy

__all__ = ["signup_rules", "server_plan", "client_specs", "BROKEN_CLIENTS", "SPECIAL_CLIENTS", "HOSTING"]

logger = logging.getLogger(__name__)


def signup_rules(server: ServerConfig = ServerConfig()) -> SignupRules:
    """§7.2: 2 to 6 players, windows of 20 s (2 of them), 2 s + 2 s for a name."""
    return SignupRules(min_players=config.MIN_PLAYERS, max_players=config.MAX_PLAYERS,
                       periods=server.server_tries, period_seconds=server.server_wait,
                       name_first_byte=server.wait_for_signup, name_complete=server.wait_for_signup,
                       valid_name=valid_name, backlog=config.LISTEN_BACKLOG,
                       name_rule="1 to 20 ASCII letters or digits (bazaar.md 7.2)")


def server_plan(spec: ServerInput, server: ServerConfig = ServerConfig(), *, seed: int = 0,
                time_limit: float = config.PER_CALL_SECONDS) -> ServerPlan:
    """Sign players up by §7 and run the given game (or one from scratch, drawn with
    ``seed``) with them in sign-up order. A refused or crashed game gives ``[[],[]]``."""

    def play(seats: Sequence[Seat]) -> Any:
        names = [seat.name for seat in seats]
        state = spec.game if spec.game is not None else scratch_state(random.Random(seed), names)
        outcome = run_game(seats, state, MatchContext(limits=Limits(call=time_limit)), bonus=spec.bonus)
        return outcome.to_json()

    return ServerPlan(protocol=PROTOCOL, rules=signup_rules(server), play=play,
                      no_game_result=config.NO_GAME_RESULT, error_result=config.NO_GAME_RESULT,
                      single_thread=True)


# -- the broken proxy referees of the bonus client (§9.10) -----------------------------------

_NOT_AN_EXCHANGE = b'[[["re"],["red"]]]\n'


def _invalid_first_action(reply: Any) -> bytes:
    """``true`` for ``false``; the first equation as ``[left, right, left]``; ``[]`` as an
    exchange with a bad pebble."""
    if reply is False:
        return b"true\n"
    if not reply:
        return _NOT_AN_EXCHANGE
    left, right = reply[0]
    return (json.dumps([[left, right, left]] + reply[1:]) + "\n").encode()


def _invalid_purchase(reply: Any) -> bytes:
    """The first card's ``pebbles`` key renamed ``e``; ``[]`` as an exchange list."""
    if not reply:
        return _NOT_AN_EXCHANGE
    first = {("e" if key == "pebbles" else key): value for key, value in reply[0].items()}
    return (json.dumps([first] + reply[1:]) + "\n").encode()


_ILL = truncated(config.BONUS_PADDING, newline=True)

BROKEN_CLIENTS: dict[WireBehaviour, dict[str, Callable[[Any], bytes | None]]] = {
    WireBehaviour.NON_SETUP: {"setup": bare_text(b"void\n")},
    WireBehaviour.NON_WIN: {"win": bare_text(b"void\n")},
    WireBehaviour.ILL_TT: {"request-pebble-or-trades": _ILL, "request-cards": _ILL},
    WireBehaviour.INV_TT_BAD_STRING: {"request-pebble-or-trades": _invalid_first_action,
                                      "request-cards": _invalid_purchase},
}

SPECIAL_CLIENTS = {Special.DIVERGE_BEFORE_SENDING: "silent", Special.SEND_NAME_LOOP: "name-only"}


def client_specs(spec: ClientsInput, bonus: bool = False, reference_framing: bool = False,
                 pause: float = config.CLIENT_LAUNCH_PAUSE) -> list[ClientSpec]:
    """One client per actor, ``pause`` seconds apart (so sign-up order is actor order),
    then the Special clients. With ``bonus`` the actors named in :data:`BROKEN_CLIENTS`
    break the wire format; ``reference_framing`` pads and trickles every message as the
    reference client does."""
    pad = config.CLIENT_PADDING if reference_framing else 0
    specs = []
    for actor in spec.actors:
        behaviour = actor.wire_behaviour if bonus else None
        specs.append(ClientSpec(name=actor.name, player=make_player(actor), protocol=PROTOCOL,
                                deviations=dict(BROKEN_CLIENTS.get(behaviour, {})) if behaviour else {},
                                delay=pause, pad=pad, trickle=reference_framing,
                                expects_result=actor.kind == "plain" and not behaviour))
    for special in spec.specials:
        specs.append(ClientSpec(name=special.value, behaviour=SPECIAL_CLIENTS[special], delay=pause,
                                pad=pad, trickle=reference_framing))
    return specs


# -- the commands (the descriptor's HOSTING) ----------------------------------------------------

NAMES = ("Ada", "Bo", "Cy", "Di", "Eve", "Fay")
POLICIES = tuple(p.value for p in Policy)


def _check_policies(value: Sequence[str]) -> None:
    if not value or any(p not in POLICIES for p in value):
        raise OptionError(f"unknown policy in {','.join(value)!r}; choose from {', '.join(POLICIES)}")


BONUS_OPTION = Option("bonus", str, None, "end-of-game bonus (default none)", choices=[b.value for b in Bonus])
"""bazaar.md's end-of-game bonus: an option of a local game and of a lobby room."""

PLAY_OPTIONS = (
    players_option(config.MIN_PLAYERS, config.MAX_PLAYERS, 4),
    seed_option("seed of the equations"),
    Option("policies", comma_list, ("purchase-points", "purchase-size"),
           "comma-separated purchase policies, assigned in turn (default purchase-points,purchase-size)",
           check=_check_policies),
    BONUS_OPTION,
    Option("strategy", str, "reference", "reference: the spec's player (bazaar.md 9), which burns a card whenever "
           "no exchange helps, so its games mostly end 0 to 0; patient: ours, which asks for pebbles until it can buy "
           "and so plays to win (default reference)", choices=list(PLAYERS)),
)


def local_match(options: Options) -> LocalMatch:
    """Ada, Bo, ... with the policies in turn, a game from scratch drawn from ``--seed``,
    no time limits; the players who break a rule are "kicked out" (bazaar.md's word)."""
    policies = [Policy(p) for p in options["policies"]]
    names = list(NAMES[: options["players"]])
    state = scratch_state(random.Random(options["seed"]), names)
    player = PLAYERS[options["strategy"]]
    seats = [trusted_seat(name, player(name, policies[i % len(policies)])) for i, name in enumerate(names)]
    bonus = Bonus(options["bonus"]) if options["bonus"] else None
    opening = (f"Bazaar ({options['strategy']} players): "
               f"{', '.join(f'{s.name} ({s.player.policy.value})' for s in seats)}; seed {options['seed']}; "
               f"{len(state.equations)} equations, {len(state.bank)} pebbles in the bank"
               + (f"; bonus {bonus.value}" if bonus else ""))
    return LocalMatch(run=lambda observers: run_game(seats, state, bonus=bonus,
                                                     context=MatchContext(limits=Limits(), observers=observers)),
                      narrator=BazaarNarrator(opening, explain_zero=options["strategy"] == "reference"),
                      dropped="kicked out")


def plan_server(spec: ServerInput | None, options: Options) -> ServerPlan:
    """What ``Integration/xserver`` reads: Equations, Game and an optional Bonus; or, as
    ``Run/xserver``, only an optional Bonus (or nothing) for a game from scratch, dealt
    from the seed."""
    seed = options["seed"]
    if spec is None:
        spec = config.decode_server_input([])
    elif spec.game is None:
        logger.info(f"dealing a game from scratch with seed {seed} (replay it with --seed {seed})")
    return server_plan(spec, seed=seed)


def _server_defaults(options: Options) -> str:
    seed = options["seed"]
    return f"the spec's defaults; dealing a game from scratch with seed {seed} (replay it with --seed {seed})"


CLIENT_OPTIONS = (
    Option("bonus", flag=True, help="the robustness clients: lax names, broken-JSON players, special clients"),
    Option("reference-framing", flag=True,
           help="pad every message with 5000 spaces and trickle it, as the reference client does"),
)


def plan_clients(values: Sequence[Any], options: Options) -> ClientPlan:
    """What ``xclients`` (``xclients-bonus`` with ``--bonus``) reads: *Actors and an
    optional list of Special clients."""
    spec = config.decode_clients_input(values, lax_names=options["bonus"])
    return ClientPlan(client_specs(spec, options["bonus"], options["reference_framing"]), config.DEFAULT_HOST,
                      quiet=False)


def play_room(seed: int, seats: Sequence[Seat], options: Options, context: MatchContext) -> Any:
    """A lobby room's game from scratch dealt from ``seed``, with the room's bonus."""
    state = scratch_state(random.Random(seed), [seat.name for seat in seats])
    return run_game(seats, state, context, bonus=Bonus(options["bonus"]) if options["bonus"] else None)


HOSTING = Hosting(
    rooms=RoomHosting((BONUS_OPTION,), play_room),
    play=PlayHosting(PLAY_OPTIONS, local_match, roster="policies"),
    server=ServerHosting(plan_server, lambda values, _options: config.decode_server_input(values), _server_defaults,
                         bad_configuration_reply="xserver: things went wrong"),
    clients=ClientHosting(plan_clients, CLIENT_OPTIONS, done='"void"'),
    configs="gameroom.games.bazaar",
    examples=("server.json", "clients.json"),
)
