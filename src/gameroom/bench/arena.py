"""``python -m gameroom.bench arena``: the arena's ladder throughput and its own overhead.

For each language of the arena's defaults (Python, JavaScript on Node, a command: the Perl
example) two program bots of that language play ``games`` games on the arena's worker
pool (``arena.ladder.Pool``, 2 workers, the sandbox as the arena resolves it), then the
same games between built-in players in the pool's isolated processes. Printed per row:
games/s, the mean wall time of a game on a worker, the time spent in the bots (the sum of
the calls' latencies, send to reply, from the replays) and the platform's overhead per
game: wall time minus the bots' time — process starts in the sandbox, sign-up, the
referee, the replay.

The overhead still holds the bots' own start: their interpreter starting and loading what
the bot imports, which no platform can spare a fresh process (Node alone takes about
50 ms of CPU here). So each language's start is also timed alone, outside any sandbox,
as the CPU its process uses until it exits on a refused connection (median of
:data:`START_RUNS`), and ``platform ms`` is the overhead less the players' starts:
what the arena itself costs a game (target: under 50 ms). With as many workers as
cores the machine is busy, so a game's wall time on a worker is its CPU time, and the
two subtract.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import time
import zlib
from pathlib import Path

from gameroom.arena.ladder import Pool
from gameroom.core.record import MatchRecord
from gameroom.core.sandbox import SandboxPolicy, resolve_policy
from gameroom.games import registry
from gameroom.league.schedule import game_seed
from gameroom.league.table import TableTask

__all__ = ["run", "start_cpu"]

START_RUNS = 9

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "bots"
LANGUAGES = {"python": ["python3", str(EXAMPLES / "python_bot.py"), "{port}"],
             "javascript": ["node", str(EXAMPLES / "node_bot.js"), "{port}"],
             "command": [str(EXAMPLES / "perl_bot.pl"), "{port}"]}


def _measure(pool: Pool, workers: int, game_name: str, bots: tuple[dict, ...], games: int,
             sandbox: SandboxPolicy) -> dict[str, float]:
    pool.submit(TableTask(game_name, 0, 1, bots, sandbox=sandbox)).result()   # warm: imports, first sandbox
    started = time.perf_counter()
    futures = [pool.submit(TableTask(game_name, i, game_seed(5, i), bots, sandbox=sandbox)) for i in range(games)]
    outcomes = [future.result() for future in futures]
    elapsed = time.perf_counter() - started
    in_bots = []
    for outcome in outcomes:
        record = MatchRecord.from_jsonl(zlib.decompress(outcome.replay).decode())
        in_bots.append(sum(e.data.get("latency") or 0.0 for e in record.events if e.kind == "call"))
    per_game = elapsed * workers / games
    bots_time = statistics.fmean(in_bots)
    return {"games/s": games / elapsed, "ms/game": per_game * 1000, "ms in bots": bots_time * 1000,
            "overhead ms": (per_game - bots_time) * 1000}


def start_cpu(argv: list[str], runs: int = START_RUNS) -> float:
    """The median CPU seconds (user + system) of ``argv`` started with a port where nothing
    listens: the interpreter's start and the bot's imports, up to its failed connection."""
    times = []
    with socket.socket() as holder:   # keeps the port bound (so refused) while the bot runs
        holder.bind(("127.0.0.1", 0))
        port = str(holder.getsockname()[1])
        for _ in range(runs):
            child = subprocess.Popen([part.replace("{port}", port) for part in argv], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _pid, _status, usage = os.wait4(child.pid, 0)
            child.returncode = 0   # reaped here
            times.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(times)


def run(games: int | None, *, game_name: str, workers: int = 2) -> None:
    games = games or 100
    game = registry.game(game_name)
    sandbox = resolve_policy(SandboxPolicy())
    os.chmod(EXAMPLES / "perl_bot.pl", 0o755)
    strategy = next(iter(game.strategies))
    pool = Pool("local", workers)
    print(f"arena bench: {game_name}, {game.min_players} players a game, {games} games per row, {workers} workers, "
          f"sandbox {sandbox.mode}", flush=True)
    try:
        rows = []
        for language, argv in LANGUAGES.items():
            bots = tuple({"name": f"{language}-{k}", "command": argv} for k in range(game.min_players))
            row = _measure(pool, workers, game_name, bots, games, sandbox)
            row["bot starts ms"] = start_cpu(argv) * 1000 * game.min_players
            rows.append((f"{language} programs", row))
        builtins = tuple({"name": f"{strategy}-{k}", "builtin": strategy} for k in range(game.min_players))
        rows.append(("built-in players", {**_measure(pool, workers, game_name, builtins, games, sandbox),
                                          "bot starts ms": 0.0}))
    finally:
        pool.close()
    print(f"{'players':22} {'games/s':>8} {'ms/game':>8} {'ms in bots':>10} {'overhead ms':>11} "
          f"{'bot starts ms':>13} {'platform ms':>11}")
    for label, row in rows:
        print(f"{label:22} {row['games/s']:8.1f} {row['ms/game']:8.1f} {row['ms in bots']:10.1f} "
              f"{row['overhead ms']:11.1f} {row['bot starts ms']:13.1f} "
              f"{row['overhead ms'] - row['bot starts ms']:11.1f}", flush=True)
