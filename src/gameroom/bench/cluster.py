"""Ray's figures for ``bench league --backend ray`` and ``bench arena``: the same games on
a local process pool and on Ray clusters of 1, 2 and 3 nodes on this machine, and what
Ray costs a game.

Every Ray here runs inside a network namespace of its own that holds only ``lo`` (this
module re-runs itself under ``unshare --net``, as root), each node binding 127.0.0.1; where
the namespace cannot be made, one line says so and no Ray figure is printed.

For each size the cluster is a head and ``nodes - 1`` worker nodes
(``ray.cluster_utils.Cluster``), each offering ``slots`` game slots (``gameroom_games``),
joined by ``league.cluster.RayCluster`` as the league and the arena join one. Printed:

* ``games/s`` of ``games`` games on the local pool (``slots`` workers) and on each cluster
  (its nodes' slots in flight): a league of built-ins written by the league's runner
  (``league``), or two sandboxed example Python programs a game on the arena's ``Pool``
  (``arena``);
* **Ray's cost per game**: the same number of *hollow* games — a task carrying the game's
  task (and, for program bots, their files by digest) whose node answers with an
  outcome of the game's size without playing it — through the cluster and through the
  local pool, as wall milliseconds a game at full load and the driver's CPU a game. The
  difference between the two is what Ray adds to every game (target: under 5 ms).

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
from typing import Any, Callable

from gameroom.league.table import TableOutcome, TableTask, play_table

__all__ = ["report", "hollow_game"]

NAMESPACE = ["unshare", "--net", "--fork", "sh", "-c", 'ip link set lo up && exec "$@"', "netns"]
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "bots" / "python_bot.py"
SIZES = (1, 2, 3)
IDLE_SECONDS = 5.0


def report(kind: str, game: str, games: int, slots: int) -> None:
    """Print the figures (see the module), measured in a network namespace of its own."""
    try:
        import ray  # noqa: F401
    except ImportError:
        print(f"{kind}: Ray is not installed (pip install 'gameroom[ray]'): no Ray figure", flush=True)
        return
    argv = [*NAMESPACE, sys.executable, "-m", "gameroom.bench.cluster", kind, game, str(games), str(slots)]
    try:
        done = subprocess.run(argv, stdout=sys.stdout, stderr=subprocess.PIPE, text=True, timeout=3600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"{kind}: no Ray figure: a network namespace of its own cannot be made here ({exc})", flush=True)
        return
    if done.returncode != 0:
        said = " ".join(done.stderr.split())[-400:]
        print(f"{kind}: no Ray figure: the measurement in a network namespace of its own failed "
              f"(status {done.returncode}: {said})", flush=True)


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
             in_flight: int, block: int | None = None) -> tuple[float, float]:
    """(seconds, driver CPU seconds) to get every task's outcome: ``in_flight`` at once,
    each submitted as one ends (the arena's ladder), or (``block``) blocks of that many
    given at once, each waited for before the next (the league's runner)."""
    waiting = list(reversed(tasks))
    running: set[concurrent.futures.Future[Any]] = set()
    cpu, started = time.process_time(), time.perf_counter()
    while waiting or running:
        if block is not None:
            given, waiting = waiting[-block:], waiting[:-block]
            running.update(submit(list(reversed(given))))
        else:
            while waiting and len(running) < in_flight:
                running.update(submit([waiting.pop()]))
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


def _measure(kind: str, game: str, games: int, slots: int, play: Callable[[list[TableTask]], float],
             hollow: Callable[[list[TableTask]], list[concurrent.futures.Future[Any]]], group: Any
             ) -> dict[str, float | None]:
    """One row: games/s of real games (``play`` gives their seconds), then the hollow
    games' wall time, the driver's CPU and every process's CPU (``group``: this process's
    CPU-accounting group, which holds everything it started; None: not counted) a game,
    fed as the league's runner feeds its games (blocks) or as the arena's ladder does
    (``slots`` in flight, one submitted as one ends)."""
    from gameroom.league.schedule import BLOCK

    block = BLOCK if kind == "league" else None
    warm = _tasks(kind, game, max(slots * 2, block or 0), start=10_000_000)
    _through(hollow, warm, slots, block)   # every worker started, its hollow outcome made
    play(warm[:slots])
    rate = games / play(_tasks(kind, game, games))
    count = max(games, 200)
    idle = None
    if group is not None:   # what the processes spend doing nothing (Ray's timers and polls), a second
        before = group.seconds()
        time.sleep(IDLE_SECONDS)
        idle = (group.seconds() - before) / IDLE_SECONDS
    before = group.seconds() if group is not None else 0.0
    seconds, cpu = _through(hollow, _tasks(kind, game, count, start=20_000_000), slots, block)
    every = None
    if group is not None and idle is not None:
        every = ((group.seconds() - before) - idle * seconds) * 1000 / count
    return {"games/s": round(rate, 1), "ms a game": round(seconds * 1000 / count, 3),
            "driver CPU ms a game": round(cpu * 1000 / count, 3),
            "CPU ms a game": round(every, 3) if every is not None else None,
            "idle CPU %": round(idle * 100, 1) if idle is not None else None}


def _player(kind: str, game: str, slots: int, backend: Any, submit: Callable[[TableTask], Any],
            folder: Path, name: str) -> Callable[[list[TableTask]], float]:
    """How a row's real games are played: a league by the league's runner on ``backend``
    (a fresh database each time), arena games on ``submit`` with ``slots`` in flight."""
    runs = iter(range(1_000_000))

    def league(tasks: list[TableTask]) -> float:
        from gameroom.bench.league import bots
        from gameroom.games import registry
        from gameroom.league.bots import bots_from_specs
        from gameroom.league.db import open_database
        from gameroom.league.runner import LeaguePlan, run_league

        engine = open_database(f"sqlite:///{folder / f'{name}-{next(runs)}.db'}")
        descriptor = registry.game(game)
        plan = LeaguePlan(descriptor, bots_from_specs(bots(game)), len(tasks), seed=1,
                          players=min(4, descriptor.max_players))
        started = time.perf_counter()
        run_league(plan, engine, backend)
        return time.perf_counter() - started

    def arena(tasks: list[TableTask]) -> float:
        return _through(lambda given: [submit(task) for task in given], tasks, slots)[0]

    return league if kind == "league" else arena


def _say(kind: str, label: str, row: dict[str, float | None]) -> None:
    every, idle = row["CPU ms a game"], row["idle CPU %"]
    print(f"{kind}: {label:28} {row['games/s']:8.1f} games/s; a hollow game: {row['ms a game']:6.2f} ms, "
          f"CPU {'-' if every is None else f'{every:.2f}'} ms beyond idling (the driver's "
          f"{row['driver CPU ms a game']:.2f}); idle: {'-' if idle is None else f'{idle:.1f}'}% of a core",
          flush=True)


def _inside(kind: str, game: str, games: int, slots: int) -> None:
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"   # every node on 127.0.0.1 (league.cluster)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    from ray.cluster_utils import Cluster

    from gameroom.arena.interpreters import play_here
    from gameroom.arena.ladder import Pool
    from gameroom.league.cluster import RESOURCE
    from gameroom.league.runner import LocalBackend, RayBackend

    from gameroom.sandbox.cpuacct import CpuAccountingUnavailable, make_group

    try:   # everything this process starts from now on, Ray's processes included, counted here
        group = make_group(f"gameroom-bench-cluster-{os.getpid()}")
        group.join(os.getpid())
    except (CpuAccountingUnavailable, OSError) as exc:
        group = None
        print(f"{kind}: no CPU accounting here ({exc}): wall time only", flush=True)
    load = os.getloadavg()[0]
    what = "between 4 built-ins" if kind == "league" else "of two example Python programs (sandboxed)"
    print(f"{kind}: {games} {game} games {what}, {slots} slot{'s' * (slots != 1)} a node, on one "
          f"{os.cpu_count()}-core machine; load {load:.1f}", flush=True)
    rows: dict[str, dict[str, float | None]] = {}
    with tempfile.TemporaryDirectory(prefix="gameroom-bench-cluster-") as directory:
        folder = Path(directory)
        hollows = concurrent.futures.ProcessPoolExecutor(slots, mp_context=multiprocessing.get_context("spawn"))
        local, pool = LocalBackend(slots), Pool("local", slots)
        try:
            rows["local pool"] = _measure(kind, game, games, slots,
                                          _player(kind, game, slots, local, pool.submit, folder, "local"),
                                          lambda given: [hollows.submit(hollow_game, task) for task in given], group)
        finally:
            local.close()
            pool.close()
            hollows.shutdown()
        _say(kind, f"local pool, {slots} workers", rows["local pool"])
        for nodes in SIZES:
            made = Cluster(initialize_head=True, connect=False,
                           head_node_args={"num_cpus": slots, "resources": {RESOURCE: slots},
                                           "node_ip_address": "127.0.0.1", "include_dashboard": False})
            for _ in range(nodes - 1):
                made.add_node(num_cpus=slots, resources={RESOURCE: slots}, node_ip_address="127.0.0.1")
            made.wait_for_nodes()
            backend = RayBackend(slots, made.address)   # what the league joins; the arena's Pool the same way
            cluster = backend.cluster
            if kind != "league":
                cluster.play = play_here
            try:
                label = f"Ray, {nodes} node{'s' * (nodes != 1)} ({nodes * slots} slots)"
                rows[label] = _measure(kind, game, games, nodes * slots,
                                       _player(kind, game, nodes * slots, backend, cluster.submit, folder,
                                               f"ray-{nodes}"),
                                       functools.partial(cluster.submit_all, play=hollow_game), group)
                _say(kind, label, rows[label])
            finally:
                backend.close()
                made.shutdown()
    if group is not None:
        group.remove()
    figure = "CPU ms a game" if group is not None else "ms a game"
    pooled = rows["local pool"][figure] or 0.0
    for label, row in rows.items():
        if label != "local pool":
            cost = row[figure] or 0.0
            print(f"{kind}: {label}: Ray's cost a game ({'CPU of every process' if group else 'wall'}) "
                  f"{cost:.2f} ms, the local pool's {pooled:.2f} ms: {cost - pooled:+.2f} ms", flush=True)
    print(json.dumps({"bench": f"{kind} on ray", "game": game, "games": games, "slots": slots,
                      "cores": os.cpu_count(), "load": [round(load, 2), round(os.getloadavg()[0], 2)], "rows": rows}),
          flush=True)


if __name__ == "__main__":
    # through the module by its name: the nodes must import hollow_game from it (a
    # function of __main__ would travel by value, with an empty cache, every game)
    from gameroom.bench.cluster import _inside as inside

    inside(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
