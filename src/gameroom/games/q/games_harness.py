"""The game-running harnesses of q.md 10.5-10.7: a configured state, actors, a result.

These run complete games through the referee (with real time limits, so looping actors
cost their 6 s), which is why they sit apart from the pure rule harnesses.
"""

from __future__ import annotations

from typing import Any, Sequence

from gameroom.core.match import local_seat
from gameroom.core.wire import WireError
from gameroom.games.q import codec
from gameroom.games.q.actors import actors_from_json
from gameroom.games.q.players import is_well_behaved, player_from_spec
from gameroom.games.q.referee import DEFAULT_TIME_LIMIT, QRules, run_game

__all__ = ["HARNESSES", "play_actors"]


def play_actors(inputs: list[Any], rules: QRules, allow: tuple[str, ...],
                time_limit: float = DEFAULT_TIME_LIMIT, observers: Sequence[Any] = ()) -> list[Any]:
    if len(inputs) != 2:
        raise WireError(f"expected a JState and a JActors, got {len(inputs)} value(s)")
    state = codec.state_from_json(inputs[0], require_name=False)
    specs = actors_from_json(inputs[1], allow=allow, where="$actors")
    if len(specs) != len(state.players):
        raise WireError(f"{len(specs)} actors for {len(state.players)} player records", "$actors")
    if not 2 <= len(specs) <= 4:
        raise WireError(f"a game needs 2 to 4 players, got {len(specs)}", "$actors")
    seats = [local_seat(spec.name, player_from_spec(spec), is_well_behaved(spec)) for spec in specs]
    outcome = run_game(state, seats, rules, time_limit, observers)
    return [outcome.to_json()]


def xgames(inputs: list[Any], observers: Sequence[Any] = ()) -> list[Any]:
    return play_actors(inputs, QRules(6, 6), ("exn",), observers=observers)


def xgames_with_observer(inputs: list[Any], observers: Sequence[Any] = ()) -> list[Any]:
    return play_actors(inputs, QRules(8, 4), ("exn", "cheat"), observers=observers)


def xbaddies(inputs: list[Any], observers: Sequence[Any] = ()) -> list[Any]:
    return play_actors(inputs, QRules(8, 4), ("exn", "cheat", "loop"), observers=observers)


HARNESSES = {"xgames": xgames, "xgames-with-observer": xgames_with_observer, "xbaddies": xbaddies}
