"""League benchmark: games per second of a Q league between built-in bots through the real
league runner (database, replays, ratings) with 1 and 2 local workers and on Ray, the
time to write one result, and what a program bot costs a game in each sandbox (start,
sign-up and end; the round trip of a call) (``python -m gameroom.bench league [--games N]``)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from gameroom.games import registry

BOTS = [{"name": "dag-1", "builtin": "dag"}, {"name": "ldasg-1", "builtin": "ldasg"},
        {"name": "dag-2", "builtin": "dag"}, {"name": "ldasg-2", "builtin": "ldasg"}]
DEFAULT_GAMES = 10_000


def _league(games: int, workers: int, backend_name: str, folder: Path) -> float:
    from gameroom.league.bots import bots_from_specs
    from gameroom.league.db import open_database
    from gameroom.league.runner import LeaguePlan, backend, run_league

    engine = open_database(f"sqlite:///{folder / f'{backend_name}-{workers}.db'}")
    plan = LeaguePlan(registry.game("q"), bots_from_specs(BOTS), games, seed=1, players=4)
    runner = backend(backend_name, workers)
    try:
        started = time.perf_counter()
        run_league(plan, engine, runner)
        return games / (time.perf_counter() - started)
    finally:
        runner.close()


def _write_one(folder: Path, count: int = 200) -> float:
    """Seconds to write one finished Q game (rows, compressed replay, ratings) to SQLite."""
    from gameroom.league.db import open_database, record_game
    from gameroom.league.ratings import RatingBook
    from gameroom.league.table import TableTask, play_table

    played = play_table(TableTask("q", 0, 3, tuple(BOTS)))
    engine = open_database(f"sqlite:///{folder / 'writes.db'}")
    book = RatingBook()
    started = time.perf_counter()
    for _ in range(count):
        record_game(engine, played.record, ratings=book, replay=played.replay, digest=played.digest)
    return (time.perf_counter() - started) / count


EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "bots" / "python_bot.py"


def _program_game(mode: str, games: int) -> tuple[float, float, float]:
    """Median milliseconds of a Q game between the example Python program and a built-in in
    sandbox ``mode``, of the same game between two built-ins, and of a call to the program."""
    import statistics
    import sys

    from gameroom.core.sandbox import SandboxPolicy
    from gameroom.league.table import TableTask, record_table

    policy = SandboxPolicy(mode=mode)
    program = ({"name": "py", "command": [sys.executable, str(EXAMPLE), "{port}"]}, {"name": "dag", "builtin": "dag"})
    builtins = ({"name": "dag-2", "builtin": "dag"}, {"name": "dag", "builtin": "dag"})
    record_table(TableTask("q", 0, 1, program, sandbox=policy))   # warm: imports, the first sandbox
    times: dict[int, list[float]] = {0: [], 1: []}
    calls: list[float] = []
    for i in range(games):
        for kind, bots in enumerate((program, builtins)):
            started = time.perf_counter()
            record = record_table(TableTask("q", i, 1000 + i, bots, sandbox=policy))
            times[kind].append(time.perf_counter() - started)
            calls += [e.data["latency"] for e in record.events
                      if e.kind == "call" and e.data.get("seat") == "py" and e.data.get("latency") is not None]
    return (statistics.median(times[0]) * 1000, statistics.median(times[1]) * 1000,
            statistics.median(calls) * 1000)


def run(games: int | None) -> None:
    from gameroom.core.bwrap import probe

    problem = probe()
    for mode in (["bwrap"] if problem is None else []) + ["rlimits"]:
        with_program, floor, call = _program_game(mode, 30)
        print(f"league: a Q game with the example Python program in the {mode} sandbox: {with_program:.1f} ms "
              f"(two built-ins: {floor:.1f} ms; the program's start, sign-up and end: {with_program - floor:.1f} ms; "
              f"a call: {call:.3f} ms)", flush=True)
    if problem is not None:
        print(f"league: no bubblewrap figure: {problem}", flush=True)
    games = games or DEFAULT_GAMES
    with tempfile.TemporaryDirectory(prefix="gameroom-bench-") as directory:
        folder = Path(directory)
        print(f"league: one result written (rows, replay, ratings; SQLite): "
              f"{_write_one(folder) * 1000:.2f} ms", flush=True)
        for workers in (1, 2):
            rate = _league(games, workers, "local", folder)
            print(f"league: {games} Q games between 4 built-ins, {workers} local worker{'s' * (workers > 1)}: "
                  f"{rate:.1f} games/s", flush=True)
        try:
            import ray  # noqa: F401
        except ImportError:
            print("league: Ray is not installed (pip install 'gameroom[ray]'): no Ray figure", flush=True)
            return
        rate = _league(games, 2, "ray", folder)
        print(f"league: {games} Q games between 4 built-ins on Ray (2 CPUs): {rate:.1f} games/s", flush=True)
