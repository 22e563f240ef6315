"""Fish benchmarks: complete games through the referee between built-in players (trusted
seats, so every call is a direct method call), and the wall time of a 10-player tournament.

The reference implementation's figures, for comparison: 83.9 games/s between four greedy
players on 5 x 5 boards, and 62 ms for a 10-player tournament.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Callable

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import Seat, trusted_seat
from gameroom.games.fish.players import StrategyPlayer
from gameroom.games.fish.referee import run_game
from gameroom.games.fish.strategies import GreedyStrategy, MaximinStrategy, Strategy
from gameroom.games.fish.tournament import run_fish_tournament

REFERENCE_GREEDY_GAMES_PER_SECOND = 83.9
REFERENCE_TOURNAMENT_MS = 62.0


def _seats(n: int, make: Callable[[], Strategy]) -> list[Seat]:
    return [trusted_seat(f"P{i}", StrategyPlayer(make(), f"P{i}")) for i in range(n)]


def referee_games(games: int, players: int, make: Callable[[], Strategy], seed: int = 0) -> tuple[float, float]:
    """Play `games` refereed games on random 5 x 5 boards: (games/s, turns per game)."""
    turns = 0
    start = time.perf_counter()
    for g in range(games):
        result = run_game(_seats(players, make), None, MatchContext(limits=Limits()), rows=5, columns=5,
                          rng=random.Random(seed + g))
        turns += result.turns
    elapsed = time.perf_counter() - start
    return games / elapsed, turns / games


def tournament_ms(runs: int, players: int = 10, seed: int = 0) -> tuple[float, float]:
    """Median and best wall time (ms) of a tournament of greedy players."""
    times = []
    for r in range(runs):
        seats = _seats(players, GreedyStrategy)
        start = time.perf_counter()
        run_fish_tournament(seats, seed=seed + r)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


def run(games: int) -> None:
    referee_games(5, 4, GreedyStrategy)   # warm-up
    rate, turns = referee_games(games * 5, 4, GreedyStrategy)
    print(f"Fish greedy x4 through the referee, 5x5: {rate:.1f} games/s ({turns:.1f} turns/game); "
          f"reference {REFERENCE_GREEDY_GAMES_PER_SECOND} games/s, {rate / REFERENCE_GREEDY_GAMES_PER_SECOND:.1f}x",
          flush=True)
    for players in (2, 4):
        rate, turns = referee_games(max(10, games // 2), players, lambda: MaximinStrategy(2))
        print(f"Fish maximin depth 2 x{players} through the referee, 5x5: {rate:.1f} games/s "
              f"({turns:.1f} turns/game)", flush=True)
    median, best = tournament_ms(max(20, games // 5))
    print(f"Fish 10-player greedy tournament, 5x5: median {median:.1f} ms, best {best:.1f} ms; "
          f"reference {REFERENCE_TOURNAMENT_MS:g} ms, {REFERENCE_TOURNAMENT_MS / median:.1f}x", flush=True)
