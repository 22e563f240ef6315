"""Benchmark of Fish's hot paths (not a test: run ``python tests/games/fish/bench_fish.py``).

Prints CPU time (``time.process_time``, so a busy machine skews it less) of complete games
played by the pure game loop (``run_game``: no safe calls, no observers, no referee) and of
single maximin decisions on freshly placed boards.
"""

from __future__ import annotations

import random
import time
from typing import Callable

from gameroom.games.fish.game import run_game
from gameroom.games.fish.state import COLORS, GameState
from gameroom.games.fish.strategies import GreedyStrategy, MaximinStrategy, Strategy, maximin_move


def games_per_second(count: int, make: Callable[[], Strategy], players: int = 4, rows: int = 5,
                     columns: int = 5, fish: int | None = None, seed: int = 0) -> tuple[float, float]:
    """Play `count` games; returns (games per CPU second, turns per game)."""
    rng = random.Random(seed)
    states = [GameState.create(rows, columns, players, fish=fish, rng=rng) for _ in range(count)]
    turns = 0
    start = time.process_time()
    for state in states:
        turns += len(run_game(state, {c: make() for c in COLORS[:players]}).turns)
    elapsed = time.process_time() - start
    return count / elapsed, turns / count


def first_move_ms(depth: int, players: int, rows: int, columns: int, samples: int = 20) -> tuple[float, float]:
    """Mean and worst CPU milliseconds of the first maximin move after greedy placement."""
    greedy = GreedyStrategy()
    rng = random.Random(1)
    times = []
    for _ in range(samples):
        state = GameState.create(rows, columns, players, rng=rng)
        for _ in range(6 - players):
            for _ in range(players):
                state.place(greedy.place(state))
                state.rotate()
        start = time.process_time()
        maximin_move(state, depth)
        times.append((time.process_time() - start) * 1000)
    return sum(times) / len(times), max(times)


def main() -> None:
    greedy = GreedyStrategy()
    for fish in (None, 2):
        rate, turns = games_per_second(2000, lambda: greedy, fish=fish)
        label = "random fish" if fish is None else f"{fish} fish"
        print(f"greedy, 4 players, 5x5, {label}: {rate:7.0f} games/s ({turns:.1f} turns/game)")
    for players in (2, 3, 4):
        rate, turns = games_per_second(100, lambda: MaximinStrategy(2), players=players)
        print(f"maximin depth 2, {players} players, 5x5: {rate:7.1f} games/s ({turns:.1f} turns/game)")
    for depth, players, rows, columns in [(2, 2, 5, 5), (2, 4, 5, 5), (2, 4, 8, 8), (3, 4, 5, 5),
                                          (3, 3, 6, 6), (3, 2, 8, 8)]:
        mean, worst = first_move_ms(depth, players, rows, columns, samples=10)
        print(f"maximin depth {depth} first move, {players} players, {rows}x{columns}: "
              f"mean {mean:7.2f} ms, worst {worst:7.2f} ms")


if __name__ == "__main__":
    main()
