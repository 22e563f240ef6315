"""What Fish's benchmark measures beyond the generic figures (``python -m gameroom.bench
fish``):

* complete games through the referee on random 5 x 5 boards between four greedy players,
  beside the reference implementation's figure (``bench/references.toml``), with the
  turns they take;
* the same between maximin players of depth 2 (two and four of them): the look-ahead's cost;
* the wall time of a 10-player knock-out tournament of greedy players (the manager's
  rounds, concurrent games on threads), beside the reference's.

Pure: these prepare and do the work; the benchmark times it.
"""

from __future__ import annotations

import random
from typing import Callable, Mapping

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import Seat, trusted_seat
from gameroom.core.workload import Lineup, Workload
from gameroom.games.fish.players import StrategyPlayer
from gameroom.games.fish.referee import run_game
from gameroom.games.fish.strategies import GreedyStrategy, MaximinStrategy, Strategy
from gameroom.games.fish.tournament import run_fish_tournament

__all__ = ["LINEUPS", "WORKLOADS"]



def _seats(n: int, make: Callable[[], Strategy]) -> list[Seat]:
    return [trusted_seat(f"P{i}", StrategyPlayer(make(), f"P{i}")) for i in range(n)]


def _games(players: int, make: Callable[[], Strategy]) -> Callable[[int], Callable[[], Mapping[str, float]]]:
    def prepare(games: int) -> Callable[[], Mapping[str, float]]:
        def work() -> Mapping[str, float]:
            turns = 0
            for g in range(games):
                result = run_game(_seats(players, make), rows=5, columns=5, rng=random.Random(g),
                                  context=MatchContext(limits=Limits()))
                turns += result.turns
            return {"turns": turns}

        return work

    return prepare


def _tournament(_size: int) -> Callable[[], Mapping[str, float]]:
    runs = 0

    def work() -> Mapping[str, float]:
        nonlocal runs
        run_fish_tournament(_seats(10, GreedyStrategy), seed=runs)
        runs += 1
        return {}

    return work


WORKLOADS = (
    Workload("Fish greedy x4 through the referee, 5x5", _games(4, GreedyStrategy), size=lambda games: games * 5,
             reference="fish-4-greedy-5x5"),
    *(Workload(f"Fish maximin depth 2 x{players} through the referee, 5x5", _games(players, lambda: MaximinStrategy(2)),
               size=lambda games: max(10, games // 2)) for players in (2, 4)),
    Workload("Fish 10-player greedy tournament, 5x5", _tournament, unit="tournaments", size=lambda _games: 1,
             reference="fish-tournament-10-greedy", repeat=40),
)

LINEUPS = (Lineup("Fish, 4 greedy, random 5x5 boards", ("greedy",) * 4, key="fish-4-greedy-5x5"),)
"""The work of the reference's in-process figure (issue 19's table)."""
