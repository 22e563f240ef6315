"""Fish ("Hey, that's my fish"): penguins on a hexagonal board of fish tiles (spec fish.md).

Pure game package (no I/O; may import only the standard library and ``gameroom.core``):

| module | what it is for |
| --- | --- |
| ``board`` | positions, the six directions, the hex board, reachability, board factory |
| ``state`` | colors, players, the game state and its rules (moves, skips, ranking) |
| ``tree`` | the lazily generated game tree |
| ``strategies`` | greedy, random (seeded), N-turn maximin; tie-breaking |
| ``codec`` | JSON codecs of the data definitions |
| ``protocol`` | player interface, the six remote calls and their codecs, constants |
| ``players`` | in-process strategy players and misbehaving players |
| ``actors`` | misbehaving players (baddies) and integration scenarios as data |
| ``config`` | configuration files (scripts, server, client, referee, observers) |
| ``referee`` | the referee on ``gameroom.core.match``: safe calls, time limits, removals, observers |
| ``tournament`` | Fish games for the core tournament manager (``gameroom.core.tournament``) |
| ``queries`` | the optional query API of Appendix A, in process and over the wire |
| ``hosting`` | server plan (sign-up rules, tournament) and client line-ups, as data |
| ``render`` | SVG picture of a state |
| ``harness`` | the xboard, xstate, xtree, xstrategy and xref test harnesses |

See ``PROTOCOL.md`` beside this file for the referee / remote protocol summary.
"""

from gameroom.games.fish.board import DIRECTIONS, MAX_FISH, Board, Direction, Position, make_board, step
from gameroom.games.fish.state import (COLORS, SKIP, Action, Color, GameState, IllegalAction, Move,
                                       Player, Skip, penguins_per_player)
from gameroom.games.fish.tree import GameTree
from gameroom.games.fish.strategies import (GreedyStrategy, MaximinStrategy, NoPlacement, RandomStrategy,
                                            Strategy, make_strategy, maximin_move, tie_break)

__all__ = [
    "DIRECTIONS", "MAX_FISH", "Board", "Direction", "Position", "make_board", "step",
    "COLORS", "SKIP", "Action", "Color", "GameState", "IllegalAction", "Move", "Player", "Skip",
    "penguins_per_player", "GameTree", "GreedyStrategy", "MaximinStrategy", "NoPlacement",
    "RandomStrategy", "Strategy", "make_strategy", "maximin_move", "tie_break",
]
