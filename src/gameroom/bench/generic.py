"""The benchmark of any registered game, from its descriptor alone: every
:class:`~gameroom.core.workload.Workload` the game declares (what it measures of its own),
timed here; complete in-process games between its built-in players on trusted seats,
dealt from fixed seeds; then, for a game with a referee server, one remote call
(:mod:`gameroom.bench.remote`)."""

from __future__ import annotations

import statistics
import time
import tracemalloc
from typing import Callable, Mapping

from gameroom.core.game import GameDescriptor
from gameroom.core.workload import Workload

__all__ = ["games_per_second", "run", "run_workload"]


def games_per_second(game: GameDescriptor, games: int, players: int, seed: int = 0) -> float:
    strategies = list(game.strategies)
    start = time.perf_counter()
    for g in range(games):
        seats = game.seats([strategies[i % len(strategies)] for i in range(players)], seed + g)
        game.play(seed + g, seats)
    return games / (time.perf_counter() - start)


def _peak_memory(work: Callable[[], Mapping[str, float]]) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def run_workload(workload: Workload, games: int) -> str:
    """Time one workload (after a warm-up) and say what it measured, in one line."""
    size = workload.size(games)
    workload.prepare(min(size, 2))()   # warm-up: imports, caches
    if workload.repeat > 1:
        times = []
        for _ in range(workload.repeat):
            work = workload.prepare(size)
            start = time.perf_counter()
            work()
            times.append(time.perf_counter() - start)
        median, best = statistics.median(times), min(times)
        line = f"{workload.label}: median {median * 1e3:.1f} ms, best {best * 1e3:.1f} ms of {workload.repeat} runs"
        if workload.reference is not None:
            reference = size / workload.reference
            line += f"; reference {reference * 1e3:g} ms, {reference / median:.1f}x"
        return line
    work = workload.prepare(size)
    start = time.perf_counter()
    counts = work()
    seconds = time.perf_counter() - start
    rate = size / seconds
    line = f"{workload.label}: {size} {workload.unit} in {seconds:.2f} s = {rate:.1f} {workload.unit}/s"
    for name, count in counts.items():
        line += f", {count / seconds:.0f} {name}/s ({count / size:.1f} per {workload.unit.rstrip('s')})"
    if workload.reference is not None:
        line += f"; reference {workload.reference:g} {workload.unit}/s, {rate / workload.reference:.1f}x"
    if workload.memory:
        line += f"; peak traced memory {_peak_memory(workload.prepare(workload.memory_size)) / 1e6:.2f} MB"
    return line


def run(game: GameDescriptor, games: int) -> None:
    # The game's own workloads first, in a fresh process, as the per-game benchmark modules
    # they replace ran them: their figures stay comparable with the recorded ones.
    for workload in game.workloads:
        print(run_workload(workload, games), flush=True)
    players = max(game.min_players, min(4, game.max_players))
    games_per_second(game, 2, players)   # warm-up
    rate = games_per_second(game, games, players)
    print(f"{game.name} in-process, {players} built-in players ({', '.join(game.strategies)} in turn) on "
          f"trusted seats: {games} games, {rate:.1f} games/s", flush=True)
    if game.lobby is None and game.hosting.server is not None:
        from gameroom.bench import remote

        print(remote.run(game), flush=True)
