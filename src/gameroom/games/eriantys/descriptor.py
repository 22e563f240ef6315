"""Eriantys as the registry sees it (spec ``eriantys.md``): the one :data:`GAME` descriptor.

States travel as the §6.5 snapshot (all information is public, so every seat and every
spectator sees the same object); actions are ``GAME_EVENT`` objects (§6.3.1). ``play``
takes the game's own ``expert=`` and ``hooks=`` besides the descriptor's arguments (simple
mode by default).
"""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.game import GameDescriptor, SeatViews
from gameroom.core.layout import package_parts
from gameroom.core.match import Seat
from gameroom.core.protocol import Codec
from gameroom.core.wire import WireError, describe
from gameroom.games.eriantys.hosting import LOBBY, legal_moves
from gameroom.games.eriantys.players import MISBEHAVIOURS, EriantysPlayer
from gameroom.games.eriantys.protocol import PROTOCOL, PlayerInterface
from gameroom.games.eriantys.referee import LIMITS, STATE_CODEC, EriantysResult, run_game
from gameroom.games.eriantys.rules import parse_event
from gameroom.games.eriantys.state import GameState, TestHooks, from_snapshot, new_game, snapshot
from gameroom.games.eriantys.strategies import STRATEGIES

__all__ = ["GAME", "LIMITS"]

MISBEHAVING_AT = 3
"""The decision at which the registry's misbehaving players misbehave (``illegal@3`` ...)."""


def deal(seed: int, names: Sequence[str], expert: bool = False) -> GameState:
    """The set-up game (3.2) for players of these names, from ``seed``."""
    return new_game(list(names), expert, seed)[0]


def play(seed: int, seats: Sequence[Seat], context: MatchContext = NO_CONTEXT, *, expert: bool = False,
         hooks: TestHooks | None = None) -> EriantysResult:
    """A game from ``seed`` between ``seats`` (seat order) under the referee policy."""
    return run_game(seats, seed, context, expert=expert, hooks=hooks)


def decode_state(value: Any) -> GameState:
    """A state from its §6.5 snapshot (good for every check; it cannot draw students)."""
    try:
        return from_snapshot(value)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise WireError(f"not an Eriantys game state ({type(exc).__name__}: {exc}): {describe(value)}") from None


def decode_event(value: Any) -> dict[str, Any]:
    if parse_event(value) is None:
        raise WireError(f"not a well-formed GAME_EVENT: {describe(value)}")
    return value  # type: ignore[no-any-return]  # a GAME_EVENT object: parse_event read it


def moves(method: str, args: tuple[Any, ...]) -> list[tuple[str, Any]] | None:
    """A person's legal events in the snapshot it is asked to act on (character cards
    included in expert mode), tested with the server's own checks."""
    if method != "act":
        return None
    return legal_moves(args[0], None)


def _player(kind: str) -> Callable[[str, int], EriantysPlayer]:
    return lambda name, seed: EriantysPlayer(name, kind, random.Random(seed))


def _render(state: GameState, caption: str) -> str:
    from gameroom.games.eriantys.render import render_svg

    return render_svg(snapshot(state), caption)


def _view(state: GameState, _name: str | None = None) -> Any:
    return snapshot(state)   # everything in Eriantys is public


PERSON_LIMIT = 90.0
"""A person's time for one move (a student, Mother Nature, a cloud, a card): eriantys.md's
decision limit is for programs."""


GAME: GameDescriptor[GameState, dict[str, Any]] = GameDescriptor(   # an action: a GAME_EVENT object
    name="eriantys",
    summary="Eriantys, islands, students and professors (2-4 players, teams with 4, expert mode)",
    min_players=2,
    max_players=4,
    protocol=PROTOCOL,
    player_interface=PlayerInterface,
    strategies={kind: _player(kind) for kind in STRATEGIES},
    misbehaviours={**{f"{kind}@{MISBEHAVING_AT}": _player(f"{kind}@{MISBEHAVING_AT}") for kind in MISBEHAVIOURS},
                   "outofturn": _player("outofturn")},
    deal=deal,
    play=play,
    limits=LIMITS,
    state_codec=Codec(STATE_CODEC.encode, decode_state, "GameState"),
    action_codec=Codec(lambda event: event, decode_event, "GameEvent"),
    views=SeatViews(seat=_view, spectator=_view),
    **package_parts(__name__, render=_render),
    moves=moves,
    lobby=LOBBY,
    person_limit=PERSON_LIMIT,
    decision_words={"act": "play a move"},
)
