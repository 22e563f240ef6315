"""Q over the network, as data: the server's sign-up rules and game runner from a server
configuration (q.md 7 and 8.1), and the clients to launch from a client configuration
(7.6, 8.4), including the broken clients of the bonus tests (9.5, 10.9).

Pure: the game-agnostic ``gameroom.server`` does the networking.
"""

from __future__ import annotations

import json
import random
from typing import Any, Callable, Sequence

from gameroom.core.hosting import ClientSpec, ServerPlan, SignupRules
from gameroom.core.limits import Limits
from gameroom.core.match import Seat
from gameroom.core.misbehaviour import bare_text, truncated
from gameroom.games.q import codec
from gameroom.games.q.config import ClientConfig, ServerConfig
from gameroom.games.q.players import is_well_behaved, player_from_spec
from gameroom.games.q.protocol import PROTOCOL
from gameroom.games.q.referee import QRules, run_game
from gameroom.games.q.state import new_game

__all__ = ["MIN_PLAYERS", "MAX_PLAYERS", "server_plan", "client_specs", "BROKEN_CLIENTS", "SPECIAL_CLIENTS",
           "CLIENT_SPACING"]

MIN_PLAYERS = 2
MAX_PLAYERS = 4
CLIENT_SPACING = 2.0      # seconds between client launches (a constant in the reference)
NO_GAME = [[], []]


class GameRefused(Exception):
    """The signed-up players do not match the configured state (q.md 7.4)."""


def server_plan(config: ServerConfig, log: Callable[[str], None] | None = None,
                deal_seed: int | None = None) -> ServerPlan:
    """How to sign players up and run the configured game with them. With ``deal_seed``
    the configured state is not used: a game is dealt for whoever signs up, as
    ``play`` does (the shuffled set, its first tile on the map, six tiles each)."""
    rules = SignupRules(min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, periods=config.server_tries,
                        period_seconds=config.server_wait, name_first_byte=config.wait_for_signup,
                        name_complete=config.wait_for_signup, valid_name=codec.valid_name)
    if config.ref_spec is not None and config.ref_spec.observe and log is not None:
        # q.md 8.2: the flag cannot switch an observer on; it only earns this warning.
        log('ref-spec "observe": true cannot attach an observer (q.md 8.2); observers are attached by '
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
        outcome = run_game(seats, state0, rules=QRules(referee.config_s.qbo, referee.config_s.fbo),
                           limits=Limits(call=referee.per_turn), log=log)
        return outcome.to_json()

    return ServerPlan(protocol=PROTOCOL, rules=rules, play=play, no_game_result=NO_GAME, error_result=NO_GAME)


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
