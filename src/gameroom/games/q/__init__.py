"""Q, a Qwirkle-like tile game (spec ``q.md``): the pure part.

Modules: ``tiles`` (shapes, colours, tiles, the complete set), ``qmap`` (the map, the fit
rule, the incremental candidate index), ``actions`` (PASS, REPLACE, placements), ``rules``
(legality), ``scoring``, ``state`` (referee and public states), ``strategies`` (dag,
ldasg, iteration), ``cheats``, ``codec`` (JSON), ``actors`` (player specs), ``config``
(configuration files), ``render`` (SVG pictures) and ``harness`` (test harnesses).

May import the standard library and ``gameroom.core`` only; no I/O.
"""

from gameroom.games.q.actions import PASS, REPLACE, Action, Pass, Placement, Replace, Step
from gameroom.games.q.qmap import QMap
from gameroom.games.q.rules import apply_placements, can_exchange, check_placements
from gameroom.games.q.scoring import score_placements
from gameroom.games.q.state import PlayerRecord, PublicState, RefereeState, new_game
from gameroom.games.q.strategies import STRATEGIES, dag, iterate, ldasg
from gameroom.games.q.pieces import ALL_KINDS, Color, Coord, Shape, Tile, full_set

__all__ = [
    "PASS", "REPLACE", "Action", "Pass", "Placement", "Replace", "Step", "QMap",
    "apply_placements", "can_exchange", "check_placements", "score_placements",
    "PlayerRecord", "PublicState", "RefereeState", "new_game", "STRATEGIES", "dag", "iterate",
    "ldasg", "ALL_KINDS", "Color", "Coord", "Shape", "Tile", "full_set",
]
