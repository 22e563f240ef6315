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
time: p50, p99, the longest) — the time every other room waited for it.

The journal (``gameroom lobby --state``): the events/s of the rooms played by events with
the journal on a SQLite file and on PostgreSQL (a private server, started for the run)
beside the lobby in memory, alternated runs; and the restart time with 500 rooms in
progress: the rooms' bots play until every room has played a while, the journal is cut
there (as by a kill), and a new lobby opens the journal and resumes every room (its games
run again from their seeds) until it listens. Figures only; nothing is asserted.
"""

from __future__ import annotations

import asyncio
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from gameroom.core.game import GameDescriptor
from gameroom.bench import lobby_people
from gameroom.bench.postgres import private_postgres
from gameroom.games import registry
from gameroom.server.lobby import Lobby
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.xscenario import LobbyThread
from gameroom.bench.processes import python_module

__all__ = ["run", "measure"]

PROCESSES = 4
CALLS_GAME = "q"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _config(seed: int, state: str | None = None) -> LobbyConfig:
    # every bot comes from 127.0.0.1: the quotas per address would refuse most of them
    return LobbyConfig(host="127.0.0.1", port=0, seed=seed, max_connections_per_address=0, max_rooms_per_address=0,
                       state=state)


def measure(rooms: int, seed: int = 1, game: GameDescriptor | None = None, state: str | None = None) -> dict[str, float]:
    """``rooms`` rooms of ``game`` (default: the first played by events) at once, with
    the journal at ``state`` (None: in memory)."""
    if game is None:
        game = next(g for g in registry.games().values() if g.lobby is not None)
    by_calls = game.lobby is None
    server = LobbyThread(game, _config(seed, state))
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
    largest = max(sizes)   # a short run (the smoke test's sizes) measures a small journal once
    journal(events_game, rooms=min(200, largest), runs=3 if largest >= 50 else 1, restart_rooms=min(500, largest))
    lobby_people.run(people_seconds)


def journal(game: GameDescriptor, rooms: int = 200, runs: int = 3, restart_rooms: int = 500) -> None:
    """The journal's figures: events/s in memory, on SQLite and on PostgreSQL
    (alternated runs: min and median), and the restart time with ``restart_rooms`` rooms
    in progress."""
    print(f"lobby journal: {game.name}, {rooms} rooms at once; events/s (min / median of {runs} alternated runs)")
    with tempfile.TemporaryDirectory(prefix="gameroom-bench-journal-") as tmp, private_postgres() as postgres:
        kinds: dict[str, Callable[[int], str | None]] = {"in memory": lambda _k: None,
                                                          "SQLite": lambda k: str(Path(tmp) / f"journal-{k}.db")}
        if postgres is not None:
            kinds["PostgreSQL"] = lambda _k: postgres
        figures: dict[str, list[float]] = {kind: [] for kind in kinds}
        for k in range(runs):
            for kind, where in kinds.items():
                if kind == "PostgreSQL":
                    _empty_postgres(postgres)
                figures[kind].append(measure(rooms, seed=k + 1, game=game, state=where(k))["events_per_second"])
        memory = sorted(figures["in memory"])[len(figures["in memory"]) // 2]
        for kind, rates in figures.items():
            ordered = sorted(rates)
            median = ordered[len(ordered) // 2]
            print(f"  {kind:10s}: min {ordered[0]:7.0f}, median {median:7.0f} events/s"
                  + ("" if kind == "in memory" else f" ({100 * median / memory:.0f}% of in memory)"))
        seconds, resumed = restart(game, restart_rooms, str(Path(tmp) / "restart.db"))
        print(f"  restart with {restart_rooms} rooms in progress: {resumed} rooms resumed, listening after "
              f"{seconds:.2f} s (the journal opened, every game run again from its seed)")


def _empty_postgres(url: str | None) -> None:
    """The journal's tables dropped between runs (each run starts from an empty journal)."""
    from sqlalchemy import create_engine, text

    if url is None:
        return
    engine = create_engine(url)
    with engine.begin() as connection:
        for table in ("journal_entries", "journal_rooms", "journal_meta", "journal_version"):
            connection.execute(text(f"DROP TABLE IF EXISTS {table}"))
    engine.dispose()


def restart(game: GameDescriptor, rooms: int, state: str, seed: int = 1) -> tuple[float, int]:
    """``rooms`` rooms of ``game`` played by bots until each has played a while; the
    journal cut there (nothing more written, as when the lobby is killed); then the
    seconds a new lobby takes to open the journal, resume every room and listen, and the
    rooms it resumed."""
    server = LobbyThread(game, _config(seed, state))
    shares = [rooms // PROCESSES + (1 if k < rooms % PROCESSES else 0) for k in range(PROCESSES)]
    procs = [subprocess.Popen(python_module("gameroom", "clients", game.name, "--port", str(server.port),
                                            "--rooms", str(share), "--prefix", f"b{k}r", "--seed", str(k), "--quiet"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for k, share in enumerate(shares) if share]
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:   # every room started and a few events each
        started, events = server.call(lambda: (server.lobby.games_started, server.lobby.events))
        if started >= rooms and events >= 8 * rooms:
            break
        time.sleep(0.2)

    def cut() -> None:
        journal = server.lobby.journal
        assert journal is not None
        journal.flush()
        journal.open = False   # as killed: what the lobby does from here is not journaled

    server.call(cut)
    for proc in procs:
        proc.kill()
        proc.wait()
    server.stop()
    lobby = Lobby(game, replace(_config(seed, state), reconnect_grace=600.0))

    async def start() -> tuple[float, int]:
        begun = time.perf_counter()
        await lobby.start("127.0.0.1", 0)
        took = time.perf_counter() - begun
        resumed = len(lobby.rooms)
        await lobby.stop()
        return took, resumed

    return asyncio.run(start())
