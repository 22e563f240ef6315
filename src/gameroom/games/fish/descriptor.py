"""Fish as the registry sees it (spec ``fish.md``): the one :data:`GAME` descriptor."""

from __future__ import annotations

import random
from typing import Any, Callable, Mapping, Sequence

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.game import GameDescriptor, SeatViews
from gameroom.core.layout import called_on_use, package_parts
from gameroom.core.match import Seat
from gameroom.core.record import MatchResult
from gameroom.core.misbehaviour import hang
from gameroom.core.protocol import Codec
from gameroom.games.fish import codec
from gameroom.games.fish.actors import BADDIES
from gameroom.games.fish.players import BaddiePlayer, StrategyPlayer
from gameroom.games.fish.protocol import MANAGER_BOARD, PROTOCOL, PlayerInterface
from gameroom.games.fish.referee import LIMITS, STATE_CODEC, run_game
from gameroom.games.fish.state import Action, GameState
from gameroom.games.fish.strategies import STRATEGY_NAMES, make_strategy

__all__ = ["GAME"]

LOOK_AHEAD = 2
"""The depth of the built-in maximin player."""


def deal(seed: int, names: Sequence[str]) -> GameState:
    """The manager's 5 x 5 board with random fish from ``seed``, no penguins yet."""
    return GameState.create(MANAGER_BOARD[0], MANAGER_BOARD[1], len(names), rng=random.Random(seed))


def play(seed: int, seats: Sequence[Seat], context: MatchContext = NO_CONTEXT) -> MatchResult:
    """A game on the manager's 5 x 5 board with random fish from ``seed``."""
    return run_game(seats, deal(seed, [seat.name for seat in seats]), context)


def _whole_state(state: GameState, _name: str | None = None) -> Any:
    return codec.encode_state(state)   # Fish has no hidden information


def _strategy(kind: str) -> Callable[[str, int], StrategyPlayer]:
    return lambda name, seed: StrategyPlayer(make_strategy(kind, depth=LOOK_AHEAD, rng=random.Random(seed)), name)


def _baddie(kind: str) -> Callable[[str, int], Any]:
    return lambda name, _seed: BaddiePlayer(kind, name, hang=hang)


def _misbehaviours() -> Mapping[str, Callable[[str, int], Any]]:
    return {kind: _baddie(kind) for kind, baddie in BADDIES.items() if not baddie.remote}


PERSON_LIMIT = 60.0
"""A person's time for one placement or move (fish.md's 2 s is for programs)."""


def _narrator(seed: int, names: Sequence[str]) -> Any:
    from gameroom.games.fish.narrator import narrator

    state = deal(seed, names)
    players = ", ".join(f"{n} ({p.color.value})" for n, p in zip(names, state.players))
    return narrator(state, names, f"Fish on the manager's {MANAGER_BOARD[0]} x {MANAGER_BOARD[1]} board, "
                                  f"seed {seed}: {players}")


def moves(method: str, args: tuple[Any, ...]) -> list[tuple[str, Any]] | None:
    """A person's legal answers: a free tile to place a penguin on, or a move of one of
    its penguins (in the spec's canonical order), as the protocol's wire values."""
    state: GameState = args[0]
    if method == "initial":
        return [(f"place a penguin on row {r}, column {c}", codec.encode_position((r, c))) for r, c in state.free_tiles()]
    if method == "take_turn":
        return [(f"move from row {a[0]}, column {a[1]} to row {b[0]}, column {b[1]}", codec.encode_move((a, b)))
                for a, b in state.legal_moves()]
    return None


GAME: GameDescriptor[GameState, Action] = GameDescriptor(
    name="fish",
    summary="Fish, penguins on hexagonal tiles (2-4 players, knock-out tournaments)",
    min_players=2,
    max_players=4,
    protocol=PROTOCOL,
    player_interface=PlayerInterface,
    strategies={kind: _strategy(kind) for kind in STRATEGY_NAMES},
    misbehaviours=_misbehaviours(),
    deal=deal,
    play=play,
    limits=LIMITS,
    state_codec=STATE_CODEC,
    action_codec=Codec(codec.encode_action, codec.decode_action, "Action"),
    views=SeatViews(seat=_whole_state, spectator=_whole_state),
    **package_parts(__name__, narrator=_narrator),
    moves=moves,
    person_limit=PERSON_LIMIT,
    decision_words={"initial": "place a penguin", "take_turn": "move a penguin"},
    text_view=called_on_use("gameroom.games.fish.text", "text_view"),   # the board at a terminal
)
