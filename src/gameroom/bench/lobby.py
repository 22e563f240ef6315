"""``python -m gameroom.bench lobby``: the lobby under load.

For 50, 200 and 500 rooms at once, a lobby runs in this process (on its own thread) and
bots in four other processes (``gameroom clients eriantys``, 2-player simple rooms,
first-legal) play every room to the end. Printed: game events handled per second over
the whole run, and the p50/p99 time from the arrival of an event's bytes to its ACK
being queued (every broadcast of the event queued before it). Figures only; nothing is
asserted.
"""

from __future__ import annotations

import subprocess
import sys
import time

from gameroom.games import registry
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.xscenario import LobbyThread

__all__ = ["run"]

PROCESSES = 4


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def measure(rooms: int, seed: int = 1) -> dict[str, float]:
    name, lobby_game = next((n, g.lobby) for n, g in registry.games().items() if g.lobby is not None)
    # every bot comes from 127.0.0.1: the quotas per address would refuse most of them
    server = LobbyThread(lobby_game, LobbyConfig(host="127.0.0.1", port=0, seed=seed, max_connections_per_address=0,
                                                 max_rooms_per_address=0))
    server.lobby.latencies = []
    shares = [rooms // PROCESSES + (1 if k < rooms % PROCESSES else 0) for k in range(PROCESSES)]
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "gameroom", "clients", name, "--port", str(server.port),
                               "--rooms", str(share), "--prefix", f"b{k}r", "--seed", str(k), "--quiet"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for k, share in enumerate(shares) if share]
    finished = 0
    for proc in procs:
        out, _err = proc.communicate()
        finished += out.decode().count('"winners"')
    wall = time.perf_counter() - start
    events = server.call(lambda: server.lobby.events)
    latencies = server.call(lambda: list(server.lobby.latencies or []))
    server.stop()
    return {"rooms": rooms, "finished": finished, "events": events, "seconds": wall,
            "events_per_second": events / wall if wall else float("nan"),
            "p50_ms": _percentile(latencies, 0.5) * 1000, "p99_ms": _percentile(latencies, 0.99) * 1000}


def run(_games: int = 0, sizes: tuple[int, ...] = (50, 200, 500)) -> None:
    print("lobby: rooms at once (2 players, simple), bots in 4 processes; event arrival -> ACK queued")
    for rooms in sizes:
        m = measure(rooms)
        print(f"  {m['rooms']:4d} rooms: {m['finished']:4d} finished, {m['events']:6d} events in {m['seconds']:6.1f} s"
              f" = {m['events_per_second']:7.0f} events/s; event -> ACK p50 {m['p50_ms']:.3f} ms,"
              f" p99 {m['p99_ms']:.3f} ms", flush=True)
