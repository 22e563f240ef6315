"""``python -m gameroom.bench arena``: the arena's ladder throughput and its own overhead.

For each language of the arena's defaults (Python, JavaScript on Node, a command: the Perl
example) two program bots of that language play ``games`` games on the arena's worker
pool (``arena.pool.Pool``, 2 workers, the sandbox as the arena resolves it), then the
same games between built-in players (in the pool's worker processes, apart from the
arena's). Printed per row, a game's mean:

* ``games/s`` and ``wall ms`` (the batch's wall time x workers / games);
* ``in calls ms``: the time in the bots' calls, send to reply (the replays' latencies);
* the CPU of each part, each counted in a CPU-accounting cgroup of its own
  (``sandbox.cpuacct``), none inferred by a subtraction:

  - ``bot starts ms``: the bots' own starts, every process of their sandboxes from the
    moment bubblewrap lets them go (namespaces and mounts made) until the bot has signed
    up: its own user (``setpriv``), its interpreter, its imports, its connection;
  - ``bots play ms``: the same processes after the sign-up (their moves, their exit);
  - ``platform ms``: the worker processes and everything else they start, i.e. the
    platform's own overhead a game: making the sandboxes (bubblewrap's namespaces and
    mounts), the sign-ups, the referee and the game, the replay;
  - ``per bot ms``: that overhead per program bot of the game;
  - ``with start ms``: a program bot's whole cost beyond its moves, its own start
    included: (bot starts + platform) per program bot (the issue's target of 50 ms a
    program bot a game, process start and sign-up included, read strictly).

Before the games, a row of hostile uploads (``bench.archives``): a tar whose long-name
record, another whose pax header, and another whose member declare 600 MiB (under half
a KiB of bzip2 each), the first again named ``bot.tgz``, and a directory bomb of a
million entries, each unpacked in a fresh process with the arena's default limits: the
peak RSS they add while refused (target: under +50 MB) and each answer (``--quick``:
the same declared sizes in concatenated bzip2 streams of about 7 KB, built at once).

A JSON line follows with these figures per row. Without a writable cgroup hierarchy (not
root, or none mounted) a line says so and only the wall-time figures are printed (the CPU
figures are null in the JSON).

Last, the same kind of games (two example Python programs) on the local pool and on Ray
clusters of 1, 2 and 3 nodes on this machine, and Ray's cost a game (``bench.cluster``,
in a network namespace of its own; ``workers`` slots a node; not with ``--quick``).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from gameroom.arena.interpreters import Interpreters
from gameroom.arena.pool import Pool
from gameroom.sandbox import confine
from gameroom.sandbox.cpuacct import CpuAccountingUnavailable, CpuGroup, make_group
from gameroom.core.record import MatchRecord
from gameroom.sandbox.policy import SandboxPolicy, resolve_policy
from gameroom.games import registry
from gameroom.league.packing import unpack
from gameroom.league.schedule import game_seed
from gameroom.league.table import TableTask

__all__ = ["run", "measure", "KEYS"]

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "bots"
LANGUAGES = {"python": ["python3", str(EXAMPLES / "python_bot.py"), "{port}"],
             "javascript": ["node", str(EXAMPLES / "node_bot.js"), "{port}"],
             "command": [str(EXAMPLES / "perl_bot.pl"), "{port}"]}
KEYS = ("games/s", "wall ms", "in calls ms", "bot starts ms", "bots play ms", "platform ms", "per bot ms",
        "with start ms")
"""The figures of a row, in the printed order (the JSON line's keys too)."""


def _account(worker: str, starting: str, playing: str, version: str) -> None:
    """In a pool worker as it starts: its CPU (and what it starts) counts in ``worker``, its
    sandboxes' in ``starting`` until their bot signs up, then in ``playing``."""
    CpuGroup(worker, version).join(os.getpid())
    confine.account(CpuGroup(starting, version), CpuGroup(playing, version))


class _Groups:
    """The bench's cgroups: the workers, the bots' starts, the bots' play."""

    def __init__(self, root: CpuGroup) -> None:
        self.root = root
        self.worker, self.starting, self.playing = root.child("workers"), root.child("starting"), root.child("playing")

    def seconds(self) -> tuple[float, float, float]:
        return self.worker.seconds(), self.starting.seconds(), self.playing.seconds()


def measure(pool: Pool, workers: int, game_name: str, bots: tuple[dict, ...], games: int, sandbox: SandboxPolicy,
            groups: _Groups | None, programs: int) -> dict[str, float | None]:
    """One row: ``games`` games between ``bots`` on ``pool`` (``programs`` of them program bots)."""
    warm = [pool.submit(TableTask(game_name, -k, k + 1, bots, sandbox=sandbox)) for k in range(workers)]
    for future in warm:   # every worker started, imports done, a first sandbox made
        future.result()
    before = groups.seconds() if groups is not None else None
    started = time.perf_counter()
    futures = [pool.submit(TableTask(game_name, i, game_seed(5, i), bots, sandbox=sandbox)) for i in range(games)]
    outcomes = [future.result() for future in futures]
    elapsed = time.perf_counter() - started
    after = groups.seconds() if groups is not None else None
    in_calls = []
    for outcome in outcomes:
        record = MatchRecord.from_jsonl(unpack(outcome.replay))
        in_calls.append(sum(e.data.get("latency") or 0.0 for e in record.events if e.kind == "call"))
    row: dict[str, float | None] = {"games/s": games / elapsed, "wall ms": elapsed * workers / games * 1000,
                                    "in calls ms": statistics.fmean(in_calls) * 1000,
                                    "bot starts ms": None, "bots play ms": None, "platform ms": None,
                                    "per bot ms": None, "with start ms": None}
    if before is not None and after is not None:
        platform, starts, play = ((later - earlier) * 1000 / games for earlier, later in zip(before, after, strict=True))
        row.update({"bot starts ms": starts, "bots play ms": play, "platform ms": platform,
                    "per bot ms": platform / programs if programs else None,
                    "with start ms": (starts + platform) / programs if programs else None})
    return row


def _cell(value: float | None, width: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:{width}.1f}"


def run(games: int | None, *, game_name: str, workers: int = 2, quick: bool = False) -> None:
    games = games or 100
    game = registry.game(game_name)
    sandbox = resolve_policy(SandboxPolicy())
    os.chmod(EXAMPLES / "perl_bot.pl", 0o755)
    strategy = next(iter(game.strategies))
    try:
        groups: _Groups | None = _Groups(make_group(f"gameroom-bench-arena-{os.getpid()}"))
        accounting: str | None = f"cgroup {groups.root.version}" if groups else None
    except (CpuAccountingUnavailable, OSError) as exc:
        groups, accounting = None, None
        print(f"arena bench: no CPU accounting here ({exc}); only wall-time figures follow", flush=True)
    setup = (groups.worker.path, groups.starting.path, groups.playing.path, groups.root.version) if groups else ()
    pool = Pool("local", workers, setup=_account if groups else None, setup_args=setup)
    load = os.getloadavg()
    print(f"arena bench: {game_name}, {game.min_players} players a game, {games} games per row, {workers} workers, "
          f"sandbox {sandbox.mode}, CPU accounting {accounting or 'none'}, load {load[0]:.2f}", flush=True)
    if groups is not None and not (sandbox.mode == "bwrap" and os.geteuid() == 0):
        print("arena bench: the bots' starts and play are counted apart only in bubblewrap sandboxes made by root; "
              "here they are in the platform's figure", flush=True)
    from gameroom.bench.archives import report

    refusals = report(single=not quick)   # before any game, so the pool's workers are not in its figure
    rows: dict[str, dict[str, Any]] = {}
    try:
        interpreters = Interpreters()   # as the arena runs them: a PATH shim's real interpreter
        for language, argv in LANGUAGES.items():
            bots = tuple({"name": f"{language}-{k}", "command": interpreters.command(argv)}
                         for k in range(game.min_players))
            rows[f"{language} programs"] = measure(pool, workers, game_name, bots, games, sandbox, groups,
                                                   game.min_players)
        builtins = tuple({"name": f"{strategy}-{k}", "builtin": strategy} for k in range(game.min_players))
        rows["built-in players"] = measure(pool, workers, game_name, builtins, games, sandbox, groups, 0)
    finally:
        pool.close()
        confine.account(None, None)
        if groups is not None:
            groups.root.remove()
    print(f"{'players':22} " + " ".join(f"{key:>13}" for key in KEYS))
    for label, row in rows.items():
        print(f"{label:22} " + " ".join(_cell(row[key], 13) for key in KEYS), flush=True)
    print(json.dumps({"bench": "arena", "game": game_name, "games": games, "workers": workers, "sandbox": sandbox.mode,
                      "accounting": accounting, "load": [round(load[0], 2), round(os.getloadavg()[0], 2)],
                      "rows": rows, "hostile uploads": refusals}), flush=True)
    if quick:   # the smoke test's run: three Ray clusters would cost it a minute
        print("arena: Ray's rows (the local pool beside Ray clusters of 1, 2 and 3 nodes): without --quick",
              flush=True)
        return
    from gameroom.bench.cluster import report as on_ray

    on_ray("arena", game_name, games, workers)
