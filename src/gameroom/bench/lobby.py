"""``python -m gameroom.bench lobby``: the lobby under load.

Rooms played by events: for 50, 200 and 500 rooms at once, a lobby of the first game
played by events (Eriantys) runs in this process (on its own thread) and bots in four
other processes (``gameroom clients GAME``, 2-player rooms, the first strategy) play
every room to the end. Printed: game events handled per second over the whole run, and
the p50/p99 time from the arrival of an event's bytes to its ACK being queued (every
broadcast of the event queued before it).

Rooms played by calls (docs/lobby.md): for 20, 50 and 100 rooms at once, a lobby of Q
and bots in four processes (``gameroom clients q --lobby``, 2 players, dag). Printed:
games and calls per second, the p50/p99 time from the arrival of a ``REPLY``'s bytes to
the referee's next ``CALL`` (the rules run in between), and how long a referee held the
lobby's loop at once (its greenlet between two waits, in the loop thread's processor
time: p50, p99, the longest) — the time every other room waited for it. Figures only; nothing is asserted.
"""

from __future__ import annotations

import subprocess
import time
from typing import Any, Callable

from gameroom.core.game import GameDescriptor
from gameroom.bench import lobby_people
from gameroom.games import registry
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.xscenario import LobbyThread
from gameroom.bench.processes import python_module

__all__ = ["run", "measure"]

PROCESSES = 4
CALLS_GAME = "q"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def measure(rooms: int, seed: int = 1, game: GameDescriptor | None = None) -> dict[str, float]:
    """``rooms`` rooms of ``game`` (default: the first played by events) at once."""
    if game is None:
        game = next(g for g in registry.games().values() if g.lobby is not None)
    by_calls = game.lobby is None
    # every bot comes from 127.0.0.1: the quotas per address would refuse most of them
    server = LobbyThread(game, LobbyConfig(host="127.0.0.1", port=0, seed=seed, max_connections_per_address=0,
                                           max_rooms_per_address=0))
    server.lobby.latencies = []
    if by_calls:
        server.lobby.slices = []
    shares = [rooms // PROCESSES + (1 if k < rooms % PROCESSES else 0) for k in range(PROCESSES)]
    extra = ["--lobby", "--players", "2"] if by_calls else []
    start = time.perf_counter()
    procs = [subprocess.Popen(python_module("gameroom", "clients", game.name, *extra, "--port", str(server.port),
                                            "--rooms", str(share), "--prefix", f"b{k}r", "--seed", str(k), "--quiet"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for k, share in enumerate(shares) if share]
    finished = 0
    for proc in procs:
        out, _err = proc.communicate()
        finished += out.decode().count('"winners"')
    wall = time.perf_counter() - start
    events, calls = server.call(lambda: (server.lobby.events, server.lobby.calls))
    latencies = server.call(lambda: list(server.lobby.latencies or []))
    slices = server.call(lambda: list(server.lobby.slices or []))
    server.stop()
    return {"rooms": rooms, "finished": finished, "events": events, "calls": calls, "seconds": wall,
            "events_per_second": events / wall if wall else float("nan"),
            "games_per_second": finished / wall if wall else float("nan"),
            "calls_per_second": calls / wall if wall else float("nan"),
            "p50_ms": _percentile(latencies, 0.5) * 1000, "p99_ms": _percentile(latencies, 0.99) * 1000,
            "slice_p50_ms": _percentile(slices, 0.5) * 1000, "slice_p99_ms": _percentile(slices, 0.99) * 1000,
            "slice_max_ms": max(slices, default=float("nan")) * 1000}


def _sweep(game: GameDescriptor, sizes: tuple[int, ...], line: Callable[[dict[str, Any]], str]) -> None:
    """One line of figures per number of rooms at once, printed as each is measured."""
    for rooms in sizes:
        print(line(measure(rooms, game=game)), flush=True)


def run(_games: int = 0, sizes: tuple[int, ...] = (50, 200, 500), call_sizes: tuple[int, ...] = (20, 50, 100),
        people_seconds: float = 5.0) -> None:
    events_game = next(g for g in registry.games().values() if g.lobby is not None)
    print(f"lobby: {events_game.name} rooms at once (2 players), bots in {PROCESSES} processes; "
          "event arrival -> ACK queued")
    _sweep(events_game, sizes, lambda m: (
        f"  {m['rooms']:4d} rooms: {m['finished']:4d} finished, {m['events']:6d} events in {m['seconds']:6.1f} s"
        f" = {m['events_per_second']:7.0f} events/s; event -> ACK p50 {m['p50_ms']:.3f} ms,"
        f" p99 {m['p99_ms']:.3f} ms"))
    calls_game = registry.game(CALLS_GAME)
    print(f"lobby: {calls_game.name} rooms at once (2 players, played by calls), bots in {PROCESSES} processes; "
          "REPLY arrival -> next CALL queued; the loop held by one referee at once (CPU)")
    _sweep(calls_game, call_sizes, lambda m: (
        f"  {m['rooms']:4d} rooms: {m['finished']:4d} finished in {m['seconds']:6.1f} s = "
        f"{m['games_per_second']:6.2f} games/s, {m['calls_per_second']:6.0f} calls/s; reply -> call p50 "
        f"{m['p50_ms']:.3f} ms, p99 {m['p99_ms']:.3f} ms; held p50 {m['slice_p50_ms']:.3f} ms, "
        f"p99 {m['slice_p99_ms']:.3f} ms, longest {m['slice_max_ms']:.1f} ms"))
    lobby_people.run(people_seconds)
