"""Q's test harnesses (spec 10.1-10.4): each maps the JSON values read on standard input
to the JSON values to print.

``xmap``: JMap, JTile -> sorted candidate coordinates. ``xlegal``: JPub, JPlacements ->
``false`` or the extended JMap. ``xscore``: JMap (after), JPlacements -> points (Q bonus 6,
no finish bonus). ``xstrategy``: JStrategy and JPub in either order -> one atomic step.
"""

from __future__ import annotations

from typing import Any, Callable

from gameroom.core.wire import WireError, describe, expect_choice
from gameroom.games.q.codec import (choice_to_json, coord_to_json, map_from_json, map_to_json,
                                    placements_from_json, pub_from_json, tile_from_json)
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
    qmap = map_from_json(jmap, "$[0]")
    tile = tile_from_json(jtile, "$[1]")
    return [[coord_to_json(c) for c in qmap.candidates(tile)]]


def xlegal(inputs: list[Any]) -> list[Any]:
    """JPub, JPlacements -> [false] or [the map after the placements]."""
    jpub, jplacements = _expect_inputs(inputs, 2, "a public state, then placements")
    pub = pub_from_json(jpub, "$[0]", require_name=False, max_natural=None)
    placements = placements_from_json(jplacements, "$[1]")
    if check_placements(pub.qmap, pub.hand, placements) is not None:
        return [False]
    apply_placements(pub.qmap, placements)
    return [map_to_json(pub.qmap)]


def xscore(inputs: list[Any]) -> list[Any]:
    """JMap (after placing), JPlacements -> [points] (Q bonus 6, no finish bonus)."""
    jmap, jplacements = _expect_inputs(inputs, 2, "a map, then placements")
    qmap = map_from_json(jmap, "$[0]")
    placements = placements_from_json(jplacements, "$[1]")
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
        pub = pub_from_json(second, "$[1]", require_name=False, max_natural=None)
    elif isinstance(second, str):
        name = expect_choice(second, STRATEGIES, "$[1]")
        pub = pub_from_json(first, "$[0]", require_name=False, max_natural=None)
    else:
        raise WireError(f"expected a strategy name among the inputs, got {describe(inputs)}", "$")
    return [choice_to_json(STRATEGIES[name](pub))]


HARNESSES: dict[str, Callable[[list[Any]], list[Any]]] = {
    "xmap": xmap,
    "xlegal": xlegal,
    "xscore": xscore,
    "xstrategy": xstrategy,
}
