"""Bazaar over the network, as data (spec §7, §8, §9.10, §10.1): the server's sign-up rules
and game runner for a server input, and the clients to launch for a clients input,
including the bonus client's broken-JSON players and its Special clients.

Pure: the game-agnostic ``gameroom.server`` does the networking.
"""

from __future__ import annotations

import json
import random
from typing import Any, Callable, Sequence

from gameroom.core.limits import Limits
from gameroom.core.hosting import ClientSpec, ServerPlan, SignupRules
from gameroom.core.match import Seat
from gameroom.core.misbehaviour import bare_text, truncated
from gameroom.games.bazaar import config
from gameroom.games.bazaar.actors import Special, WireBehaviour, valid_name
from gameroom.games.bazaar.config import ClientsInput, ServerConfig, ServerInput
from gameroom.games.bazaar.players import make_player
from gameroom.games.bazaar.protocol import PROTOCOL
from gameroom.games.bazaar.referee import run_game
from gameroom.games.bazaar.state import scratch_state

__all__ = ["signup_rules", "server_plan", "client_specs", "BROKEN_CLIENTS", "SPECIAL_CLIENTS"]


def signup_rules(server: ServerConfig = ServerConfig()) -> SignupRules:
    """§7.2: 2 to 6 players, windows of 20 s (2 of them), 2 s + 2 s for a name."""
    return SignupRules(min_players=config.MIN_PLAYERS, max_players=config.MAX_PLAYERS,
                       periods=server.server_tries, period_seconds=server.server_wait,
                       name_first_byte=server.wait_for_signup, name_complete=server.wait_for_signup,
                       valid_name=valid_name, backlog=config.LISTEN_BACKLOG)


def server_plan(spec: ServerInput, server: ServerConfig = ServerConfig(), *, seed: int = 0,
                time_limit: float = config.PER_CALL_SECONDS,
                log: Callable[[str], None] | None = None) -> ServerPlan:
    """Sign players up by §7 and run the given game (or one from scratch, drawn with
    ``seed``) with them in sign-up order. A refused or crashed game gives ``[[],[]]``."""

    def play(seats: Sequence[Seat]) -> Any:
        names = [seat.name for seat in seats]
        state = spec.game if spec.game is not None else scratch_state(random.Random(seed), names)
        outcome = run_game(seats, state, bonus=spec.bonus, limits=Limits(call=time_limit), log=log)
        return outcome.to_json()

    return ServerPlan(protocol=PROTOCOL, rules=signup_rules(server), play=play,
                      no_game_result=config.NO_GAME_RESULT, error_result=config.NO_GAME_RESULT)


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
