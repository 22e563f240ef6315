"""The benchmark of any registered game, from its descriptor alone: every
:class:`~gameroom.core.workload.Workload` the game declares (what it measures of its own),
timed here; its line-ups' complete games on trusted, guarded and isolated seats and the
cost of one call on each kind of seat (:mod:`gameroom.bench.seats`), beside the
reference's figure from the file of measured references (:mod:`gameroom.bench.references`);
then, for a game with a referee server, one remote call (:mod:`gameroom.bench.remote`).
It ends with one JSON line of the default work's figures."""

from __future__ import annotations

import json
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable, Mapping

from gameroom.bench import seats
from gameroom.core.game import GameDescriptor
from gameroom.core.workload import Lineup, Workload

__all__ = ["run", "run_lineup", "run_workload"]


def _peak_memory(work: Callable[[], Mapping[str, float]]) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def run_workload(workload: Workload, games: int, reference: float | None = None) -> str:
    """Time one workload (after a warm-up) and say what it measured, in one line, beside
    ``reference`` (the reference's units per second for the same work)."""
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
        if reference is not None:
            reference_time = size / reference
            line += f"; reference {reference_time * 1e3:g} ms, {reference_time / median:.1f}x"
        return line
    work = workload.prepare(size)
    start = time.perf_counter()
    counts = work()
    seconds = time.perf_counter() - start
    rate = size / seconds
    line = f"{workload.label}: {size} {workload.unit} in {seconds:.2f} s = {rate:.1f} {workload.unit}/s"
    for name, count in counts.items():
        line += f", {count / seconds:.0f} {name}/s ({count / size:.1f} per {workload.unit.rstrip('s')})"
    if reference is not None:
        line += f"; reference {reference:g} {workload.unit}/s, {rate / reference:.1f}x"
    if workload.memory:
        line += f"; peak traced memory {_peak_memory(workload.prepare(workload.memory_size)) / 1e6:.2f} MB"
    return line


def run_lineup(game: GameDescriptor, lineup: Lineup, games: int, isolated_games: int,
               reference: float | None) -> tuple[str, dict[str, float]]:
    """Play the line-up on every kind of seat (after a warm-up game on each): its line of
    figures and those figures by name."""
    figures: dict[str, float] = {}
    parts = []
    for kind, count in (("trusted", games), ("guarded", games), ("isolated", isolated_games)):
        seats.play_games(game, lineup, kind, 1, seed=10_000)   # warm-up: imports, caches
        rate = seats.play_games(game, lineup, kind, count)
        figures[f"games_per_s_{kind}"] = round(rate.per_s, 2)
        figures[f"games_per_cpu_s_{kind}"] = round(rate.per_cpu_s, 2)
        part = f"{kind} {rate.per_s:.1f} games/s ({rate.per_cpu_s:.1f} per CPU-second, {count} games)"
        if reference is not None:
            part += f" = {rate.per_s / reference:.1f}x the reference ({rate.per_cpu_s / reference:.1f}x per CPU-second)"
        parts.append(part)
    line = f"{lineup.label}: " + "; ".join(parts)
    if reference is not None:
        line += f"; reference {reference:g} games/s"
        for kind in seats.KINDS:
            figures[f"x_reference_{kind}"] = round(figures[f"games_per_s_{kind}"] / reference, 2)
            figures[f"x_reference_cpu_{kind}"] = round(figures[f"games_per_cpu_s_{kind}"] / reference, 2)
    return line + f" (guarded limit {seats.guard_limit(game):g} s a call)", figures


def run(game: GameDescriptor, games: int, references: dict[str, float] | None = None,
        isolated_games: int = 3) -> None:
    references = references or {}
    # The game's own workloads first, in a fresh process, as the per-game benchmark modules
    # they replace ran them: their figures stay comparable with the recorded ones.
    for workload in game.workloads:
        reference = references.get(workload.reference) if workload.reference is not None else None
        print(run_workload(workload, games, reference), flush=True)
    summary: dict[str, object] = {"game": game.name}
    lineups = list(game.lineups) or [seats.default_lineup(game)]
    for i, lineup in enumerate(lineups):
        reference = references.get(lineup.key) if lineup.key is not None else None
        line, figures = run_lineup(game, lineup, games, isolated_games, reference)
        print(line, flush=True)
        if i == 0:
            summary.update(work=lineup.label, games=games, isolated_games=isolated_games,
                           reference_games_per_s=reference, **figures)
    costs = seats.call_costs()
    print(f"one call (wall µs, CPU µs of this process): direct {costs['call_us_direct']:.2f} "
          f"({costs['call_cpu_us_direct']:.2f}); guarded on the main thread {costs['call_us_guarded']:.2f} "
          f"({costs['call_cpu_us_guarded']:.2f}); guarded on another thread {costs['call_us_guarded_thread']:.1f} "
          f"({costs['call_cpu_us_guarded_thread']:.1f}); isolated {costs['call_us_isolated']:.1f} "
          f"({costs['call_cpu_us_isolated']:.1f}); raw pipe round trip {costs['pipe_us_round_trip']:.1f} "
          f"({costs['pipe_cpu_us_round_trip']:.1f}): isolated overhead {costs['isolated_overhead_us']:.1f} µs",
          flush=True)
    summary.update({key: round(value, 2) for key, value in costs.items()})
    if game.lobby is None and game.hosting.server is not None:
        from gameroom.bench import remote

        print(remote.run(game), flush=True)
    summary["load_average"] = round(os.getloadavg()[0], 1)
    print(json.dumps(summary), flush=True)
