"""Q's test harnesses (spec 10.1-10.7): each maps the JSON values read on standard input
to the JSON values to print.

``xmap``: JMap, JTile -> sorted candidate coordinates. ``xlegal``: JPub, JPlacements ->
``false`` or the extended JMap. ``xscore``: JMap (after), JPlacements -> points (Q bonus 6,
no finish bonus). ``xstrategy``: JStrategy and JPub in either order -> one atomic step.

The game-running harnesses (10.5-10.7: ``xgames``, ``xgames-with-observer``, ``xbaddies``)
take a configured state and actors and run complete games through the referee, with real
time limits (so looping actors cost their 6 s); they also take ``observers=``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import local_seat
from gameroom.core.wire import WireError, describe, expect_choice
from gameroom.games.q.actors import decode_actors
from gameroom.games.q.codec import (decode_map, decode_state, encode_choice, encode_coord, encode_map,
                                    decode_placements, decode_pub, decode_tile)
from gameroom.games.q.players import is_well_behaved, player_from_spec
from gameroom.games.q.referee import DEFAULT_TIME_LIMIT, QRules, run_game
from gameroom.games.q.rules import apply_placements, check_placements
from gameroom.games.q.scoring import score_placements
from gameroom.games.q.strategies import STRATEGIES

HARNESS_Q_BONUS = 6


def _expect_inputs(inputs: list[Any], n: int, what: str) -> list[Any]:
    if len(inputs) != n:
        raise WireError(f"expected {n} JSON values ({what}), got {len(inputs)}", "$")
    return inputs


def xmap(inputs: list[Any]) -> list[Any]:
    """JMap, JTile -> [the tile's candidates in row-major order]."""
    jmap, jtile = _expect_inputs(inputs, 2, "a map, then a tile")
    qmap = decode_map(jmap, "$[0]")
    tile = decode_tile(jtile, "$[1]")
    return [[encode_coord(c) for c in qmap.candidates(tile)]]


def xlegal(inputs: list[Any]) -> list[Any]:
    """JPub, JPlacements -> [false] or [the map after the placements]."""
    jpub, jplacements = _expect_inputs(inputs, 2, "a public state, then placements")
    pub = decode_pub(jpub, "$[0]", require_name=False, max_natural=None)
    placements = decode_placements(jplacements, "$[1]")
    if check_placements(pub.qmap, pub.hand, placements) is not None:
        return [False]
    apply_placements(pub.qmap, placements)
    return [encode_map(pub.qmap)]


def xscore(inputs: list[Any]) -> list[Any]:
    """JMap (after placing), JPlacements -> [points] (Q bonus 6, no finish bonus)."""
    jmap, jplacements = _expect_inputs(inputs, 2, "a map, then placements")
    qmap = decode_map(jmap, "$[0]")
    placements = decode_placements(jplacements, "$[1]")
    for i, (coord, _) in enumerate(placements):
        if coord not in qmap:
            raise WireError(f"placement at {coord} is not on the map", f"$[1][{i}]")
    return [score_placements(qmap, placements, HARNESS_Q_BONUS)]


def xstrategy(inputs: list[Any]) -> list[Any]:
    """JStrategy and JPub (either order) -> [one atomic step: "pass", "replace" or a
    J1Placement]."""
    first, second = _expect_inputs(inputs, 2, "a strategy and a public state")
    if isinstance(first, str):
        name = expect_choice(first, STRATEGIES, "$[0]")
        pub = decode_pub(second, "$[1]", require_name=False, max_natural=None)
    elif isinstance(second, str):
        name = expect_choice(second, STRATEGIES, "$[1]")
        pub = decode_pub(first, "$[0]", require_name=False, max_natural=None)
    else:
        raise WireError(f"expected a strategy name among the inputs, got {describe(inputs)}", "$")
    return [encode_choice(STRATEGIES[name](pub))]


# -- the game-running harnesses (10.5-10.7) --------------------------------------------------
def play_actors(inputs: list[Any], rules: QRules, allow: tuple[str, ...],
                time_limit: float = DEFAULT_TIME_LIMIT, observers: Sequence[Any] = ()) -> list[Any]:
    if len(inputs) != 2:
        raise WireError(f"expected a JState and a JActors, got {len(inputs)} value(s)")
    state = decode_state(inputs[0], require_name=False)
    specs = decode_actors(inputs[1], allow=allow, where="$actors")
    if len(specs) != len(state.players):
        raise WireError(f"{len(specs)} actors for {len(state.players)} player records", "$actors")
    if not 2 <= len(specs) <= 4:
        raise WireError(f"a game needs 2 to 4 players, got {len(specs)}", "$actors")
    seats = [local_seat(spec.name, player_from_spec(spec), is_well_behaved(spec)) for spec in specs]
    outcome = run_game(seats, state, MatchContext(limits=Limits(call=time_limit), observers=observers), rules=rules)
    return [outcome.to_json()]


def xgames(inputs: list[Any], observers: Sequence[Any] = ()) -> list[Any]:
    return play_actors(inputs, QRules(6, 6), ("exn",), observers=observers)


def xgames_with_observer(inputs: list[Any], observers: Sequence[Any] = ()) -> list[Any]:
    return play_actors(inputs, QRules(8, 4), ("exn", "cheat"), observers=observers)


def xbaddies(inputs: list[Any], observers: Sequence[Any] = ()) -> list[Any]:
    return play_actors(inputs, QRules(8, 4), ("exn", "cheat", "loop"), observers=observers)


HARNESSES: dict[str, Callable[..., list[Any]]] = {
    "xmap": xmap,
    "xlegal": xlegal,
    "xscore": xscore,
    "xstrategy": xstrategy,
    "xgames": xgames,
    "xgames-with-observer": xgames_with_observer,
    "xbaddies": xbaddies,
}
