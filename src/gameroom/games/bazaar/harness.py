"""Bazaar's milestone test harnesses (spec §10.3): functions from the JSON values read on
stdin to the JSON values to print. ``gameroom harness bazaar <name>`` runs them.

=========== ============================================ =====================================
harness     stdin                                        stdout
=========== ============================================ =====================================
xeq         *Equations, wallet *Pebbles, bank *Pebbles   the useful directed equations (§9.2)
xturn       Game                                         the TurnState of the first player
xstrategy   *Equations, TurnState, Policy                exchanges, cards, points, wallet of
                                                         ``trade_then_purchase`` (§9.3)
xrules      *Equations, *Exchanges, TurnState            ``false``, or the new wallet and bank
xgames      *Actors, *Equations, Game                    the sorted winners, the sorted
(-blogic,                                                drop-outs
-resources)
=========== ============================================ =====================================

The game-running harnesses run the real referee locally without a bonus; plain actors are
trusted (direct calls), every misbehaving actor sits on a guarded seat whose calls are cut
off after :data:`TIME_LIMIT` seconds (a looper costs that much once).

Bad input raises :class:`~gameroom.core.wire.WireError`; its path names the input value by
position, e.g. ``$[1].active.wallet`` is the wallet inside the second value read.
"""

from __future__ import annotations

from typing import Any, Callable

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import local_seat
from gameroom.core.wire import WireError
from gameroom.games.bazaar.actors import decode_actors, decode_policy
from gameroom.games.bazaar.codec import (
    decode_equations, decode_exchanges, decode_game, decode_pebbles, decode_turn_state,
    encode_cards, encode_equation, encode_exchanges, encode_pebbles, encode_turn_state,
)
from gameroom.games.bazaar.players import make_player
from gameroom.games.bazaar.referee import GameRefused, run_game
from gameroom.games.bazaar.rules import apply_exchanges
from gameroom.games.bazaar.state import turn_state
from gameroom.games.bazaar.strategies import trade_then_purchase, useful_equations


def _expect_count(inputs: list[Any], count: int, what: str) -> None:
    if len(inputs) != count:
        raise WireError(f"expected {count} JSON values ({what}), got {len(inputs)}", "$")


def xeq(inputs: list[Any]) -> list[Any]:
    """The useful directed equations for a wallet and a bank (§9.2)."""
    _expect_count(inputs, 3, "equations, wallet, bank")
    equations = decode_equations(inputs[0], "$[0]")
    wallet = decode_pebbles(inputs[1], "$[1]")
    bank = decode_pebbles(inputs[2], "$[2]")
    return [[encode_equation(e) for e in useful_equations(equations, wallet, bank)]]


def xturn(inputs: list[Any]) -> list[Any]:
    """The first player's TurnState of a Game; its ``active`` carries ``cards`` only when
    the input's players do."""
    _expect_count(inputs, 1, "a game state")
    state = decode_game(inputs[0], "$[0]")
    if not state.players:
        raise WireError("the game has no players, so there is no turn state", "$[0].players")
    first = inputs[0]["players"][0]
    with_cards = isinstance(first, dict) and "cards" in first
    return [encode_turn_state(turn_state(state), with_cards)]


def xstrategy(inputs: list[Any]) -> list[Any]:
    """The exchanges, cards, points and final wallet ``trade_then_purchase`` chooses."""
    _expect_count(inputs, 3, "equations, turn state, policy")
    equations = decode_equations(inputs[0], "$[0]")
    turn = decode_turn_state(inputs[1], "$[1]")
    policy = decode_policy(inputs[2], "$[2]")
    plan = trade_then_purchase(equations, turn.visibles, turn.active.wallet, turn.bank, policy)
    purchase = plan.purchase
    return [encode_exchanges(plan.trades), encode_cards(purchase.cards), purchase.points,
            encode_pebbles(purchase.wallet)]


def xrules(inputs: list[Any]) -> list[Any]:
    """``false`` for an illegal exchange request, else the new wallet and bank."""
    _expect_count(inputs, 3, "equations, exchanges, turn state")
    equations = decode_equations(inputs[0], "$[0]")
    exchanges = decode_exchanges(inputs[1], "$[1]")
    turn = decode_turn_state(inputs[2], "$[2]")
    moved = apply_exchanges(equations, exchanges, turn.active.wallet, turn.bank)
    if moved is None:
        return [False]
    wallet, bank = moved
    return [encode_pebbles(wallet), encode_pebbles(bank)]


# -- the game-running harnesses (§10.3) ------------------------------------------------------

TIME_LIMIT = 3.0
"""Seconds per call in the local harnesses: the reference strategy needs milliseconds."""

def play_actors(inputs: list[Any], time_limit: float = TIME_LIMIT) -> list[Any]:
    """Run the game the inputs describe; the sorted winners and the sorted drop-outs.
    Every actor kind is accepted by all three harnesses (the milestones differ only in
    which kinds their fixtures use)."""
    if len(inputs) != 3:
        raise WireError(f"expected *Actors, *Equations and a Game, got {len(inputs)} value(s)")
    specs = decode_actors(inputs[0], "$[0]")
    equations = decode_equations(inputs[1], "$[1]")
    state = decode_game(inputs[2], "$[2]", equations=equations)
    seats = [local_seat(spec.name, make_player(spec), spec.kind == "plain") for spec in specs]
    try:
        outcome = run_game(seats, state, MatchContext(limits=Limits(call=time_limit)))
    except GameRefused as exc:
        raise WireError(f"the referee refuses the game: {exc}") from None
    return [outcome.winners, outcome.misbehaved]


HARNESSES: dict[str, Callable[[list[Any]], list[Any]]] = {
    "xeq": xeq,
    "xturn": xturn,
    "xstrategy": xstrategy,
    "xrules": xrules,
    "xgames": play_actors,
    "xgames-blogic": play_actors,
    "xgames-resources": play_actors,
}
