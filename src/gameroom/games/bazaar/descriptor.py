"""Bazaar as the registry sees it (spec ``bazaar.md``): the one :data:`GAME` descriptor."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.game import GameDescriptor, SeatViews
from gameroom.core.layout import package_parts
from gameroom.core.match import Seat
from gameroom.core.record import MatchResult
from gameroom.core.protocol import Codec
from gameroom.games.bazaar import codec, config
from gameroom.games.bazaar.actors import ActorSpec, Cheat, Method
from gameroom.games.bazaar.pieces import COLOURS, Bag, Card
from gameroom.games.bazaar.players import BazaarPlayer, ReferencePlayer, make_player
from gameroom.games.bazaar.protocol import PROTOCOL
from gameroom.games.bazaar.referee import LIMITS, STATE_CODEC, run_game
from gameroom.games.bazaar.state import GameState, TurnState, scratch_state
from gameroom.games.bazaar.strategies import Policy

__all__ = ["GAME"]

def deal(seed: int, names: Sequence[str]) -> GameState:
    """A game from scratch: random equations from ``seed``, all cards, the standard bank."""
    return scratch_state(random.Random(seed), names)


def play(seed: int, seats: Sequence[Seat], context: MatchContext = NO_CONTEXT) -> MatchResult:
    """A game from scratch dealt from ``seed`` (random equations, all cards, the standard bank)."""
    return run_game(seats, deal(seed, [seat.name for seat in seats]), context)


def seat_view(state: GameState, name: str) -> Any:
    """The TurnState the player called ``name`` would get as the active player; a seat no
    longer in the game (ejected) sees what a spectator sees."""
    at = next((i for i, p in enumerate(state.players) if p.name == name), None)
    if at is None:
        return spectator_view(state)
    others = state.players[at + 1:] + state.players[:at]
    turn = TurnState(state.bank, state.visibles, state.players[at], tuple(p.score for p in others))
    return codec.encode_turn_state(turn)


def spectator_view(state: GameState) -> Any:
    return {"bank": codec.encode_pebbles(state.bank), "visibles": codec.encode_cards(state.visibles),
            "hidden": len(state.hidden), "scores": [p.score for p in state.players]}


def vary_secret(state: GameState, name: str, rng: random.Random) -> GameState:
    """``state`` with only ``name``'s wallet replaced by another random one."""
    wallet = Bag(rng.choice(COLOURS) for _ in range(rng.randrange(0, 12)))
    players = tuple(replace(p, wallet=wallet) if p.name == name else p for p in state.players)
    return replace(state, players=players)


def conceal(state: GameState, name: str | None) -> GameState:
    """``state`` as ``name`` (None: a spectator) may draw it: every other wallet emptied
    (the hidden pile is drawn by its size only)."""
    players = tuple(p if p.name == name else replace(p, wallet=Bag()) for p in state.players)
    return replace(state, players=players)


def _encode_action(action: Any) -> Any:
    """A first action (want-pebble or exchanges) or a purchase (cards)."""
    if isinstance(action, (list, tuple)) and action and all(isinstance(c, Card) for c in action):
        return codec.encode_purchase(action)
    return codec.encode_first_action(action)


def _decode_action(value: Any, where: str = "$") -> Any:
    if isinstance(value, list) and value and all(isinstance(c, dict) for c in value):
        return codec.decode_cards(value, where)
    return codec.decode_first_action(value, where)


def _strategy(policy: Policy) -> Callable[[str, int], ReferencePlayer]:
    return lambda name, _seed: ReferencePlayer(name, policy)


def _actor(**how: Any) -> Callable[[str, int], Any]:
    return lambda name, _seed: make_player(ActorSpec(name, **how))


def _misbehaviours() -> Mapping[str, Callable[[str, int], Any]]:
    table: dict[str, Callable[[str, int], Any]] = {}
    for method in Method:
        table[f"raise-in-{method.value}"] = _actor(method=method)
        table[f"loop-in-{method.value}"] = _actor(method=method, count=1)
    for cheat in Cheat:
        table[f"cheat-{cheat.value}"] = _actor(cheat=cheat)
    return table


def _person_moves() -> Callable[[str, tuple[Any, ...]], list[tuple[str, Any]] | None]:
    from gameroom.games.bazaar.moves import PersonMoves

    return PersonMoves()


PERSON_LIMIT = 90.0
"""A person's time for one decision: choosing exchanges means reading the equations
against the wallet (bazaar.md's limit is for programs)."""


GAME: GameDescriptor[GameState, Any] = GameDescriptor(   # an action: a first action or a purchase
    name="bazaar",
    summary="Bazaar, pebbles, equations and cards (2-6 players)",
    min_players=config.MIN_PLAYERS,
    max_players=config.MAX_PLAYERS,
    protocol=PROTOCOL,
    player_interface=BazaarPlayer,
    strategies={policy.value: _strategy(policy) for policy in Policy},
    misbehaviours=_misbehaviours(),
    deal=deal,
    play=play,
    limits=LIMITS,
    state_codec=STATE_CODEC,
    action_codec=Codec(_encode_action, _decode_action, "first action or purchase"),
    views=SeatViews(seat=seat_view, spectator=spectator_view, vary_secret=vary_secret, conceal=conceal),
    **package_parts(__name__),
    seat_moves=_person_moves,
    person_limit=PERSON_LIMIT,
    decision_words={"request_pebble_or_trades": "take a pebble or trade pebbles", "request_cards": "buy cards"},
)
