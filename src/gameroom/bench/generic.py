"""The benchmark every registered game gets: complete in-process games between its
built-in players on trusted seats, dealt by the descriptor from fixed seeds."""

from __future__ import annotations

import time

from gameroom.core.game import GameDescriptor


def games_per_second(game: GameDescriptor, games: int, players: int, seed: int = 0) -> float:
    strategies = list(game.strategies)
    start = time.perf_counter()
    for g in range(games):
        seats = game.seats([strategies[i % len(strategies)] for i in range(players)], seed + g)
        game.play(seed + g, seats)
    return games / (time.perf_counter() - start)


def run(game: GameDescriptor, games: int) -> None:
    players = min(4, game.max_players)
    games_per_second(game, 2, players)   # warm-up
    rate = games_per_second(game, games, players)
    print(f"{game.name} in-process, {players} built-in players ({', '.join(game.strategies)} in turn) on "
          f"trusted seats: {games} games, {rate:.1f} games/s", flush=True)
