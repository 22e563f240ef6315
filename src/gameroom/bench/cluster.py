"""Ray's figures for ``bench league --backend ray`` and ``bench arena``: the same games on
a local process pool and on Ray clusters of 1, 2 and 3 nodes on this machine, and what
Ray costs a game.

Every Ray here runs inside a network namespace of its own that holds only ``lo`` (this
module re-runs itself under ``unshare --net``, as root), each node binding 127.0.0.1; where
the namespace cannot be made, one line says so and no Ray figure is printed. Where
``RAY_ADDRESS`` names a cluster, that cluster is measured instead (joined from here, on
its own network), beside the local pool: wall time and the driver's CPU, as its nodes'
processes are not this machine's to count.

For each size the cluster is a head and ``nodes - 1`` worker nodes
(``ray.cluster_utils.Cluster``), each offering ``slots`` game slots (``gameroom_games``),
joined by ``league.cluster.RayCluster`` as the league and the arena join one. Printed:

* ``games/s`` of ``games`` games on the local pool (``slots`` workers) and on each cluster
  (its nodes' slots): a league of built-ins written by the league's runner (``league``),
  or two sandboxed example Python programs a game on the arena's ``Pool``, fed as the
  arena's ladder feeds it (``arena``: as many given as ``in_flight`` says, those given as
  others end given together); then each cluster's games checked against the pool's
  (the league's: the same games and results, each once; the arena's: the same games,
  each once; exit status 1 otherwise);
* **Ray's cost per game**: at least 200 *hollow* games — a task carrying the game's task
  (and, for program bots, their files by digest) whose node answers with an outcome of
  the game's size without playing it — through the cluster and through the local pool,
  fed as the league's runner feeds its games (blocks of 50 given at once, which Ray plays
  in batches) or as the arena's ladder does (a batch for each slot and another waiting
  kept given, ``RayCluster.in_flight``; the local pool: one a worker): the
  CPU of every process a game beyond what they spend idling, the driver's CPU a game and
  the wall time a game. The difference between a cluster's and the pool's is what Ray
  adds to every game (target: under 5 ms).

A last line is JSON with every figure.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from gameroom.league.table import TableOutcome, TableTask, play_table

__all__ = ["report", "hollow_game"]

NAMESPACE = ["unshare", "--net", "--fork", "sh", "-c", 'ip link set lo up && exec "$@"', "netns"]
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "bots" / "python_bot.py"
SIZES = (1, 2, 3)
IDLE_SECONDS = 5.0


def report(kind: str, game: str, games: int, slots: int, sizes: tuple[int, ...] = SIZES) -> bool:
    """Print the figures (see the module), measured in a network namespace of its own on
    clusters of ``sizes`` nodes, or on the cluster ``RAY_ADDRESS`` names where it is set;
    False (said in one line) when there are none, or the games were not the pool's."""
    try:
        import ray  # noqa: F401
    except ImportError:
        print(f"{kind}: Ray is not installed (pip install 'gameroom[ray]'): no Ray figure", flush=True)
        return False
    address = os.environ.get("RAY_ADDRESS")
    argv = [sys.executable, "-m", "gameroom.bench.cluster", kind, game, str(games), str(slots),
            ",".join(map(str, sizes))]
    where = "on the cluster at " + address if address else "in a network namespace of its own"
    try:   # a cluster of the operator's is on its own network: joined from here
        done = subprocess.run([*argv, address] if address else [*NAMESPACE, *argv], stdout=sys.stdout,
                              stderr=subprocess.PIPE, text=True, timeout=3600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"{kind}: no Ray figure: the measurement {where} could not be made ({exc})", flush=True)
        return False
    if done.returncode != 0:
        said = " ".join(done.stderr.split())[-400:]
        print(f"{kind}: no Ray figure: the measurement {where} failed (status {done.returncode}: {said})",
              flush=True)
        return False
    return True


# -- in the namespace -------------------------------------------------------------------------

_canned: dict[str, TableOutcome] = {}


def hollow_game(task: TableTask) -> TableOutcome:
    """An outcome of the task's size without its game: the first game of its kind this
    process plays for real, given again under the task's index."""
    key = json.dumps([task.game, task.bots], sort_keys=True)
    if key not in _canned:
        _canned[key] = play_table(dataclasses.replace(task, index=0))
    return dataclasses.replace(_canned[key], index=task.index)


def _tasks(kind: str, game: str, games: int, start: int = 0) -> list[TableTask]:
    from gameroom.sandbox.policy import SandboxPolicy, resolve_policy
    from gameroom.games import registry
    from gameroom.league.schedule import game_seed

    if kind == "league":
        from gameroom.bench.league import bots

        builtins = tuple(bots(game)[:min(4, registry.game(game).max_players)])
        return [TableTask(game, i, game_seed(1, i), builtins) for i in range(start, start + games)]
    players = registry.game(game).min_players
    table: tuple[dict[str, Any], ...] = tuple({"name": f"py-{k}", "command": ["python3", str(EXAMPLE), "{port}"]}
                                              for k in range(players))
    sandbox = resolve_policy(SandboxPolicy())
    return [TableTask(game, i, game_seed(5, i), table, sandbox=sandbox) for i in range(start, start + games)]


def _through(submit: Callable[[list[TableTask]], list[concurrent.futures.Future[Any]]], tasks: list[TableTask],
             in_flight: Callable[[], int], block: int | None = None) -> tuple[float, float]:
    """(seconds, driver CPU seconds) to get every task's outcome: ``in_flight()`` given,
    those given as others end given together (the arena's ladder), or (``block``) blocks
    of that many given at once, each waited for before the next (the league's runner)."""
    waiting = list(reversed(tasks))
    running: set[concurrent.futures.Future[Any]] = set()
    cpu, started = time.process_time(), time.perf_counter()
    while waiting or running:
        if block is not None:
            given, waiting = waiting[-block:], waiting[:-block]
            running.update(submit(list(reversed(given))))
        else:
            room = in_flight() - len(running)
            if waiting and room > 0:
                given, waiting = waiting[-room:], waiting[:-room]
                running.update(submit(list(reversed(given))))
        done, running = concurrent.futures.wait(running, return_when=concurrent.futures.ALL_COMPLETED
                                                if block is not None else concurrent.futures.FIRST_COMPLETED)
        for future in done:
            future.result()
    return time.perf_counter() - started, time.process_time() - cpu


def _league_rate(game: str, games: int, backend: Any, folder: Path, name: str) -> float:
    from gameroom.bench.league import bots
    from gameroom.games import registry
    from gameroom.league.bots import bots_from_specs
    from gameroom.league.db import open_database
    from gameroom.league.runner import LeaguePlan, run_league

    engine = open_database(f"sqlite:///{folder / f'{name}.db'}")
    descriptor = registry.game(game)
    plan = LeaguePlan(descriptor, bots_from_specs(bots(game)), games, seed=1, players=min(4, descriptor.max_players))
    started = time.perf_counter()
    run_league(plan, engine, backend)
    return games / (time.perf_counter() - started)


def _measure(kind: str, game: str, games: int, slots: int, play: Callable[[list[TableTask]], tuple[float, Any]],
             hollow: Callable[[list[TableTask]], list[concurrent.futures.Future[Any]]], group: Any,
             in_flight: Callable[[], int], sent: Callable[[], tuple[int, int]] | None = None
             ) -> tuple[dict[str, float | None], Any]:
    """One row: games/s of real games (``play`` gives their seconds and what they were),
    then the hollow games' wall time, the driver's CPU and every process's CPU (``group``:
    this process's CPU-accounting group, which holds everything it started; None: not
    counted) a game, fed as the league's runner feeds its games (blocks) or as the arena's
    ladder does (``in_flight()`` given, those given as others end given together); and the
    real games as ``play`` gave them (to check against the pool's). ``sent``: the Ray tasks
    sent so far and their games, for the hollow games' games a task."""
    from gameroom.league.schedule import BLOCK

    block = BLOCK if kind == "league" else None
    warm = _tasks(kind, game, max(slots * 2, block or 0), start=10_000_000)
    _through(hollow, warm, in_flight, block)   # every worker started, its hollow outcome made
    play(warm[:slots])
    seconds, played = play(_tasks(kind, game, games))
    rate = games / seconds
    count = max(games, 200)
    idle = None
    if group is not None:   # what the processes spend doing nothing (Ray's timers and polls), a second
        before = group.seconds()
        time.sleep(IDLE_SECONDS)
        idle = (group.seconds() - before) / IDLE_SECONDS
    before = group.seconds() if group is not None else 0.0
    tasks = sent() if sent is not None else None
    seconds, cpu = _through(hollow, _tasks(kind, game, count, start=20_000_000), in_flight, block)
    batch = None
    if sent is not None and tasks is not None:
        now = sent()
        batch = round((now[1] - tasks[1]) / max(1, now[0] - tasks[0]), 2)
    every = None
    if group is not None and idle is not None:
        every = ((group.seconds() - before) - idle * seconds) * 1000 / count
    return {"games/s": round(rate, 1), "ms a game": round(seconds * 1000 / count, 3),
            "driver CPU ms a game": round(cpu * 1000 / count, 3),
            "CPU ms a game": round(every, 3) if every is not None else None,
            "idle CPU %": round(idle * 100, 1) if idle is not None else None, "games a task": batch}, played


def _stored(db: Path) -> list[tuple[Any, ...]]:
    """A league's games as stored: index, seed, and each bot's rank, win and ejection."""
    import sqlite3

    with sqlite3.connect(db) as connection:
        return connection.execute('select g."index", g.seed, b.name, r.rank, r.winner, r.ejected from games g '
                                  "join results r on r.game_id = g.id join bots b on b.id = r.bot_id "
                                  'order by g."index", b.name').fetchall()


def _player(kind: str, game: str, in_flight: Callable[[], int], backend: Any,
            submit: Callable[[list[TableTask]], list[Any]], folder: Path, name: str
            ) -> Callable[[list[TableTask]], tuple[float, Any]]:
    """How a row's real games are played: a league by the league's runner on ``backend``
    (a fresh database each time; what it stored), arena games on ``submit`` fed as the
    arena's ladder feeds them (each game's index and seed, as they came back: a program's
    answers depend on the time it is given, so an arena game's result may differ under
    load)."""
    runs = iter(range(1_000_000))

    def league(tasks: list[TableTask]) -> tuple[float, Any]:
        from gameroom.bench.league import bots
        from gameroom.games import registry
        from gameroom.league.bots import bots_from_specs
        from gameroom.league.db import open_database
        from gameroom.league.runner import LeaguePlan, run_league

        db = folder / f"{name}-{next(runs)}.db"
        engine = open_database(f"sqlite:///{db}")
        descriptor = registry.game(game)
        plan = LeaguePlan(descriptor, bots_from_specs(bots(game)), len(tasks), seed=1,
                          players=min(4, descriptor.max_players))
        started = time.perf_counter()
        run_league(plan, engine, backend)
        seconds = time.perf_counter() - started
        engine.dispose()
        return seconds, _stored(db)

    def arena(tasks: list[TableTask]) -> tuple[float, Any]:
        futures: list[concurrent.futures.Future[TableOutcome]] = []

        def given(some: list[TableTask]) -> list[concurrent.futures.Future[TableOutcome]]:
            futures.extend(submit(some))
            return futures[-len(some):]

        seconds = _through(given, tasks, in_flight)[0]
        return seconds, sorted((future.result().index, future.result().record.seed) for future in futures)

    return league if kind == "league" else arena


def _say(kind: str, label: str, row: dict[str, float | None]) -> None:
    every, idle = row["CPU ms a game"], row["idle CPU %"]
    print(f"{kind}: {label:28} {row['games/s']:8.1f} games/s; a hollow game: {row['ms a game']:6.2f} ms, "
          f"CPU {'-' if every is None else f'{every:.2f}'} ms beyond idling (the driver's "
          f"{row['driver CPU ms a game']:.2f}); idle: {'-' if idle is None else f'{idle:.1f}'}% of a core"
          + (f"; {row['games a task']:.1f} games a Ray task" if row.get("games a task") is not None else ""),
          flush=True)


def _check(kind: str, label: str, games: int, played: Any, pooled: Any) -> None:
    """The row's real games against the pool's: the same games, each once (or exit 1)."""
    if played != pooled or len({entry[0] for entry in played}) != games:
        print(f"{kind}: {label}: its {games} games differ from the local pool's", file=sys.stderr, flush=True)
        raise SystemExit(1)
    print(f"{kind}: {label}: games checked: the {games} games the local pool played, each once", flush=True)


def _sized(slots: int, sizes: tuple[int, ...]) -> Iterator[tuple[str, str, Callable[[], None]]]:
    """A cluster of each size on this machine (a head and worker nodes of ``slots`` slots
    each, on 127.0.0.1): its row's label, its address and how it is shut down."""
    from ray.cluster_utils import Cluster

    from gameroom.league.cluster import RESOURCE

    for nodes in sizes:
        made = Cluster(initialize_head=True, connect=False,
                       head_node_args={"num_cpus": slots, "resources": {RESOURCE: slots},
                                       "node_ip_address": "127.0.0.1", "include_dashboard": False})
        try:
            for _ in range(nodes - 1):
                made.add_node(num_cpus=slots, resources={RESOURCE: slots}, node_ip_address="127.0.0.1")
            made.wait_for_nodes()
        except BaseException:
            made.shutdown()
            raise
        yield f"Ray, {nodes} node{'s' * (nodes != 1)} ({nodes * slots} slots)", made.address, made.shutdown


def _inside(kind: str, game: str, games: int, slots: int, sizes: tuple[int, ...] = SIZES,
            address: str | None = None) -> None:
    """The rows (see the module): on clusters of ``sizes`` nodes made here, or on the
    cluster at ``address`` (its processes are not this machine's to count: wall time and
    the driver's CPU)."""
    if address is None:
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"   # every node on 127.0.0.1 (league.cluster)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    from gameroom.arena.interpreters import play_here
    from gameroom.arena.pool import Pool
    from gameroom.league.runner import LocalBackend, RayBackend

    from gameroom.sandbox.cpuacct import CpuAccountingUnavailable, make_group

    group = None
    if address is None:
        try:   # everything this process starts from now on, Ray's processes included, counted here
            group = make_group(f"gameroom-bench-cluster-{os.getpid()}")
            group.join(os.getpid())
        except (CpuAccountingUnavailable, OSError) as exc:
            print(f"{kind}: no CPU accounting here ({exc}): wall time only", flush=True)
    load = os.getloadavg()[0]
    what = "between 4 built-ins" if kind == "league" else "of two example Python programs (sandboxed)"
    where = f"the Ray cluster at {address}" if address else f"{slots} slot{'s' * (slots != 1)} a node"
    print(f"{kind}: {games} {game} games {what}, {where}, from one {os.cpu_count()}-core machine; "
          f"load {load:.1f}", flush=True)
    rows: dict[str, dict[str, float | None]] = {}
    with tempfile.TemporaryDirectory(prefix="gameroom-bench-cluster-") as directory:
        folder = Path(directory)
        hollows = concurrent.futures.ProcessPoolExecutor(slots, mp_context=multiprocessing.get_context("spawn"))
        local, pool = LocalBackend(slots), Pool("local", slots)
        try:
            rows["local pool"], pooled = _measure(
                kind, game, games, slots,
                _player(kind, game, pool.in_flight, local, lambda given: [pool.submit(task) for task in given],
                        folder, "local"),
                lambda given: [hollows.submit(hollow_game, task) for task in given], group, pool.in_flight)
        finally:
            local.close()
            pool.close()
            hollows.shutdown()
        _say(kind, f"local pool, {slots} workers", rows["local pool"])
        clusters = _sized(slots, sizes) if address is None else iter([(f"Ray, the cluster at {address}", address,
                                                                      lambda: None)])
        for label, joined, shutdown in clusters:
            try:
                backend = RayBackend(slots, joined)   # what the league joins; the arena's Pool the same way
                cluster = backend.cluster
                if kind != "league":
                    cluster.play = play_here
                try:
                    rows[label], played = _measure(
                        kind, game, games, cluster.capacity(),
                        _player(kind, game, cluster.in_flight, backend, cluster.submit_all, folder,
                                f"ray-{len(rows)}"),
                        functools.partial(cluster.submit_all, play=hollow_game), group, cluster.in_flight,
                        cluster.sent)
                    _say(kind, label, rows[label])
                finally:
                    backend.close()
            finally:
                shutdown()
            _check(kind, label, games, played, pooled)
    if group is not None:
        group.remove()
    figure = "CPU ms a game" if group is not None else "ms a game"
    for label, row in rows.items():
        if label != "local pool":
            cost, base = row[figure] or 0.0, rows["local pool"][figure] or 0.0
            print(f"{kind}: {label}: Ray's cost a game ({'CPU of every process' if group else 'wall'}) "
                  f"{cost:.2f} ms, the local pool's {base:.2f} ms: {cost - base:+.2f} ms", flush=True)
    print(json.dumps({"bench": f"{kind} on ray", "game": game, "games": games, "slots": slots,
                      "cores": os.cpu_count(), "address": address,
                      "load": [round(load, 2), round(os.getloadavg()[0], 2)], "rows": rows}), flush=True)


if __name__ == "__main__":
    # through the module by its name: the nodes must import hollow_game from it (a
    # function of __main__ would travel by value, with an empty cache, every game)
    from gameroom.bench.cluster import _inside as inside

    inside(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
           tuple(int(size) for size in sys.argv[5].split(",")), sys.argv[6] if len(sys.argv) > 6 else None)
