"""Fish as the registry sees it (spec ``fish.md``): the one :data:`GAME` descriptor."""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable, Mapping, Sequence

from gameroom.core.game import GameDescriptor, SeatViews
from gameroom.core.limits import Limits
from gameroom.core.match import Outcome, Seat
from gameroom.core.misbehaviour import hang
from gameroom.core.protocol import Codec
from gameroom.games.fish import wire
from gameroom.games.fish.baddies import BADDIES
from gameroom.games.fish.player import BaddiePlayer, StrategyPlayer
from gameroom.games.fish.protocol import (MANAGER_BOARD, NAME_TIMEOUT, PROTOCOL, READY_TIME,
                                          TIME_PER_CALL_REFEREE)
from gameroom.games.fish.referee import referee_game
from gameroom.games.fish.state import GameState
from gameroom.games.fish.strategies import STRATEGY_NAMES, make_strategy

__all__ = ["GAME"]

LIMITS = Limits(call=TIME_PER_CALL_REFEREE, ready=READY_TIME, signup_first_byte=NAME_TIMEOUT,
                signup_complete=NAME_TIMEOUT)
LOOK_AHEAD = 2
"""The depth of the built-in maximin player."""


def deal(seed: int, names: Sequence[str]) -> GameState:
    """The manager's 5 x 5 board with random fish from ``seed``, no penguins yet."""
    return GameState.create(MANAGER_BOARD[0], MANAGER_BOARD[1], len(names), rng=random.Random(seed))


def play(seed: int, seats: Sequence[Seat], *, limits: Limits | None = None, observers: Iterable[Any] = (),
         log: Callable[[str], None] | None = None) -> Outcome:
    """A game on the manager's 5 x 5 board with random fish from ``seed``."""
    limits = limits or LIMITS
    state = deal(seed, [seat.name for seat in seats])
    result = referee_game(seats, state, time_limit=limits.call, ready_time=limits.ready,
                          observers=observers, log=log)
    return result.outcome()


def _whole_state(state: GameState, _name: str | None = None) -> Any:
    return wire.encode_state(state)   # Fish has no hidden information


def _strategy(kind: str) -> Callable[[str, int], StrategyPlayer]:
    return lambda name, seed: StrategyPlayer(make_strategy(kind, depth=LOOK_AHEAD, rng=random.Random(seed)), name)


def _misbehaviours() -> Mapping[str, Callable[[str, int], Any]]:
    return {kind: (lambda name, _seed, k=kind: BaddiePlayer(k, name, hang=hang))
            for kind, baddie in BADDIES.items() if not baddie.remote}


def _harnesses() -> Mapping[str, Any]:
    from gameroom.games.fish import harness

    return dict(harness.HARNESSES)


def _render(state: GameState, caption: str) -> str:
    from gameroom.games.fish.render import render_svg

    return render_svg(state, caption)


GAME = GameDescriptor(
    name="fish",
    summary="Fish, penguins on hexagonal tiles (2-4 players, knock-out tournaments)",
    min_players=2,
    max_players=4,
    protocol=PROTOCOL,
    strategies={kind: _strategy(kind) for kind in STRATEGY_NAMES},
    misbehaviours=_misbehaviours(),
    deal=deal,
    play=play,
    limits=LIMITS,
    state_codec=Codec(wire.encode_state, wire.decode_state, "State"),
    action_codec=Codec(wire.encode_action, wire.decode_action, "Action"),
    views=SeatViews(seat=_whole_state, spectator=_whole_state),
    render=_render,
    harnesses=_harnesses,
    tournament=True,
    commands="gameroom.cli.fish",
    benchmark="gameroom.bench.fish",
)
