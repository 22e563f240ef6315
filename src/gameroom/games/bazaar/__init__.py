"""Bazaar: pebbles, equations and cards for 2 to 6 players (spec: shared/specs/bazaar.md).

The pure game - no I/O; every module's docstring says what it holds:

============== ==============================================================================
``pieces``     Pebble, Bag (ordered multiset), Equation, Card, ALL_CARDS, points table
``state``      PlayerRecord, GameState (referee), TurnState (player view), scratch set-up
``rules``      pebble requests, exchanges, purchases, burning, end of game, bonus, ranking,
               the referee's kick conditions
``strategies`` the reference strategy (useful equations, exchange search, purchase search)
``players``    the reference player mechanism and its misbehaving variants (raise, loop,
               cheat)
``actors``     actor specifications (plain, Method, cheat, Method+Count) and their codecs
``codec``      JSON codecs of every wire shape, remote calls, and the reference's reading
               of replies
``config``     server / client configurations, server and client program inputs, constants
``render``     an SVG picture of a game state
``harness``    the test harnesses: xeq, xturn, xstrategy, xrules, and the game-running
               xgames, xgames-blogic, xgames-resources
``protocol``   the player interface as a declared ``core.protocol.WireProtocol`` (both proxies)
``referee``    the referee on ``core.match``: turns, kicks, end, bonus, result, observers
``hosting``    the server plan and sign-up rules, the clients (incl. the bonus clients)
============== ==============================================================================

``PROTOCOL.md`` beside this file summarises the player interface, remote protocol, turn
sequence, kick rules, sign-up constants and client behaviours.
"""

from gameroom.games.bazaar.pieces import ALL_CARDS, Bag, Card, Equation, Pebble, points
from gameroom.games.bazaar.rules import (
    WANT_PEBBLE, Bonus, IllegalAction, apply_first_action, finish_turn, first_action_problem,
    game_over, purchase_problem,
)
from gameroom.games.bazaar.state import GameState, PlayerRecord, TurnState, turn_state
from gameroom.games.bazaar.strategies import Policy, buy_cards, trade_then_purchase

__all__ = [
    "ALL_CARDS", "Bag", "Card", "Equation", "Pebble", "points", "WANT_PEBBLE", "Bonus",
    "IllegalAction", "apply_first_action", "finish_turn", "first_action_problem", "game_over",
    "purchase_problem", "GameState", "PlayerRecord", "TurnState", "turn_state", "Policy",
    "buy_cards", "trade_then_purchase",
]
