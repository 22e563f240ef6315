"""Fish tournaments (spec 5.4) on the game-agnostic manager ``gameroom.core.tournament``.

The core runs the rounds (allocation into games of 2..4 players, the stagnation rule,
``start`` / ``end`` calls, failures across games, the tournament observer, concurrent games
within a round); this module supplies what is Fish's: :func:`fish_game`, which plays one
game through the Fish referee and gives its result (by seat) to the manager, and
:func:`run_fish_tournament` with the manager's defaults (5 x 5 boards, 3 s per call, 3 s for
``start``, the last game's limit for ``end``).

Random boards are reproducible: every game draws its fish from a generator seeded by the
tournament seed, the players' names and how often that line-up has played before, so
concurrent games do not depend on thread timing.
"""

from __future__ import annotations

import random
import threading
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.match import Seat
from gameroom.core.context import MatchContext
from gameroom.core.tournament import TournamentResult, run_tournament
from gameroom.games.fish.protocol import MANAGER_BOARD, PROTOCOL, READY_TIME, START_TIMEOUT, TIME_PER_CALL_MANAGER
from gameroom.games.fish.queries import TournamentView
from gameroom.core.limits import Limits
from gameroom.games.fish.referee import FishResult, run_game

__all__ = ["fish_game", "run_fish_tournament"]


def fish_game(*, rows: int = MANAGER_BOARD[0], columns: int = MANAGER_BOARD[1], fish: int | None = None,
              seed: int | str = 0, time_limit: float | None = TIME_PER_CALL_MANAGER,
              ready_time: float | None = READY_TIME,
              game_observers: Callable[[list[Seat]], Iterable[Any]] = lambda _seats: (),
              view: TournamentView | None = None,
              on_result: Callable[[FishResult], None] | None = None) -> Callable[[list[Seat]], FishResult]:
    """A ``play_game(seats) -> MatchResult`` for the manager: one Fish game per call.
    ``game_observers(seats)`` makes the observers of each game; ``on_result`` hears each
    finished game (called from the game's thread)."""
    played: dict[tuple[str, ...], int] = {}
    lock = threading.Lock()

    def play(seats: list[Seat]) -> FishResult:
        names = tuple(s.name for s in seats)
        with lock:
            occurrence = played.get(names, 0)
            played[names] = occurrence + 1
        rng = None if fish is not None else random.Random(f"{seed}:{','.join(names)}:{occurrence}")
        context = MatchContext(limits=Limits(call=time_limit, ready=ready_time), observers=tuple(game_observers(seats)))
        result = run_game(seats, None, context, rows=rows, columns=columns, fish=fish, rng=rng, tournament=view)
        if on_result is not None:
            on_result(result)
        return result

    return play


def run_fish_tournament(seats: Sequence[Seat], *, rows: int = MANAGER_BOARD[0], columns: int = MANAGER_BOARD[1],
                        fish: int | None = None, seed: int | str = 0,
                        time_limit: float | None = TIME_PER_CALL_MANAGER, ready_time: float | None = READY_TIME,
                        start_limit: float | None = START_TIMEOUT, observers: Iterable[Any] = (),
                        game_observers: Callable[[list[Seat]], Iterable[Any]] = lambda _seats: (),
                        concurrent: bool = True,
                        on_result: Callable[[FishResult], None] | None = None) -> TournamentResult:
    """A knock-out tournament of Fish games between `seats` (sign-up order)."""
    view = TournamentView()
    play = fish_game(rows=rows, columns=columns, fish=fish, seed=seed, time_limit=time_limit,
                     ready_time=ready_time, game_observers=game_observers, view=view,
                     on_result=on_result)
    return run_tournament(seats, play, protocol=PROTOCOL, start_method="start_of_tournament",
                          end_method="end_of_tournament", start_limit=start_limit, end_limit=time_limit,
                          observers=[view, *observers], concurrent=concurrent)
