"""The game-running harnesses of spec §10.3: ``xgames`` (plain and exception-raising
actors), ``xgames-blogic`` (also cheaters) and ``xgames-resources`` (also loopers).

stdin: *Actors, *Equations, Game (players usually without ``cards``); stdout: two values,
the sorted winners and the sorted drop-outs. The real referee runs locally without a bonus;
plain actors are trusted (direct calls), every misbehaving actor sits on a guarded seat
whose calls are cut off after :data:`TIME_LIMIT` seconds (a looper costs that much once).
"""

from __future__ import annotations

from typing import Any, Callable

from gameroom.core.match import local_seat
from gameroom.core.wire import WireError
from gameroom.games.bazaar.actors import decode_actors
from gameroom.games.bazaar.codec import decode_equations, decode_game
from gameroom.games.bazaar.player import make_player
from gameroom.games.bazaar.referee import GameRefused, run_game

__all__ = ["HARNESSES", "TIME_LIMIT", "play_actors"]

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
        outcome = run_game(state, seats, time_limit=time_limit)
    except GameRefused as exc:
        raise WireError(f"the referee refuses the game: {exc}") from None
    return [outcome.winners, outcome.misbehaved]


HARNESSES: dict[str, Callable[[list[Any]], list[Any]]] = {
    "xgames": play_actors,
    "xgames-blogic": play_actors,
    "xgames-resources": play_actors,
}
