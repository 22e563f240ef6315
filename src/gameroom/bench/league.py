"""League benchmark: games per second of a league of one game (``--game``) between four
of its built-in bots (its first two strategies, twice each) through the real league
runner (database, replays, ratings) with 1 and 2 local workers, the time to write one
result, and what a program bot (the example Python client, which plays every built-in
game) costs a game in each sandbox (start, sign-up and end; the round trip of a call)
(``python -m gameroom.bench league [--game G] [--games N]``). The same league on Ray
clusters of 1, 2 and 3 nodes, beside the local pool, and Ray's cost a game:
``--backend ray`` (``bench.cluster``, in a network namespace of its own)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from gameroom.games import registry

DEFAULT_GAMES = 10_000


def bots(game_name: str) -> list[dict[str, str]]:
    """Four built-in bots: the game's first two strategies (the first twice when it has
    only one), each twice."""
    strategies = list(registry.game(game_name).strategies)
    pair = [strategies[0], strategies[1 % len(strategies)]]
    return [{"name": f"{pair[k % 2]}-{k // 2 + 1}" if pair[0] != pair[1] else f"{pair[0]}-{k + 1}",
             "builtin": pair[k % 2]} for k in range(4)]


def _league(game_name: str, games: int, workers: int, backend_name: str, folder: Path) -> float:
    from gameroom.league.bots import bots_from_specs
    from gameroom.league.db import open_database
    from gameroom.league.runner import LeaguePlan, backend, run_league

    engine = open_database(f"sqlite:///{folder / f'{backend_name}-{workers}.db'}")
    game = registry.game(game_name)
    plan = LeaguePlan(game, bots_from_specs(bots(game_name)), games, seed=1, players=min(4, game.max_players))
    runner = backend(backend_name, workers)
    try:
        started = time.perf_counter()
        run_league(plan, engine, runner)
        return games / (time.perf_counter() - started)
    finally:
        runner.close()


def _write_one(game_name: str, folder: Path, count: int = 200) -> float:
    """Seconds to write one finished game (rows, compressed replay, ratings) to SQLite."""
    from gameroom.league.db import open_database, record_game
    from gameroom.league.ratings import RatingBook
    from gameroom.league.table import TableTask, play_table

    table = bots(game_name)[:min(4, registry.game(game_name).max_players)]
    played = play_table(TableTask(game_name, 0, 3, tuple(table)))
    engine = open_database(f"sqlite:///{folder / 'writes.db'}")
    book = RatingBook()
    started = time.perf_counter()
    for _ in range(count):
        record_game(engine, played.record, ratings=book, replay=played.replay, digest=played.digest)
    return (time.perf_counter() - started) / count


EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "bots" / "python_bot.py"


def _program_game(game_name: str, mode: str, games: int) -> tuple[float, float, float]:
    """Median milliseconds of a game between the example Python program and built-ins in
    sandbox ``mode``, of the same game between built-ins only, and of a call to the program."""
    import statistics
    import sys

    from gameroom.sandbox.policy import SandboxPolicy
    from gameroom.league.table import TableTask, record_table

    policy = SandboxPolicy(mode=mode)
    game = registry.game(game_name)
    strategy = next(iter(game.strategies))
    others: tuple[dict[str, Any], ...] = tuple({"name": f"{strategy}-{k + 1}", "builtin": strategy} for k in range(game.min_players - 1))
    program = ({"name": "py", "command": [sys.executable, str(EXAMPLE), "{port}"]}, *others)
    builtins = ({"name": f"{strategy}-0", "builtin": strategy}, *others)
    record_table(TableTask(game_name, 0, 1, program, sandbox=policy))   # warm: imports, the first sandbox
    times: dict[int, list[float]] = {0: [], 1: []}
    calls: list[float] = []
    for i in range(games):
        for kind, bots in enumerate((program, builtins)):
            started = time.perf_counter()
            record = record_table(TableTask(game_name, i, 1000 + i, bots, sandbox=policy))
            times[kind].append(time.perf_counter() - started)
            calls += [e.data["latency"] for e in record.events
                      if e.kind == "call" and e.data.get("seat") == "py" and e.data.get("latency") is not None]
    return (statistics.median(times[0]) * 1000, statistics.median(times[1]) * 1000,
            statistics.median(calls) * 1000)


def run(games: int | None, *, game_name: str) -> None:
    from gameroom.sandbox.bwrap import probe

    problem = probe()
    for mode in (["bwrap"] if problem is None else []) + ["rlimits"]:
        with_program, floor, call = _program_game(game_name, mode, 30)
        print(f"league: a {game_name} game with the example Python program in the {mode} sandbox: "
              f"{with_program:.1f} ms (built-ins only: {floor:.1f} ms; the program's start, sign-up and end: "
              f"{with_program - floor:.1f} ms; "
              f"a call: {call:.3f} ms)", flush=True)
    if problem is not None:
        print(f"league: no bubblewrap figure: {problem}", flush=True)
    games = games or DEFAULT_GAMES
    with tempfile.TemporaryDirectory(prefix="gameroom-bench-") as directory:
        folder = Path(directory)
        print(f"league: one result written (rows, replay, ratings; SQLite): "
              f"{_write_one(game_name, folder) * 1000:.2f} ms", flush=True)
        for workers in (1, 2):
            rate = _league(game_name, games, workers, "local", folder)
            print(f"league: {games} {game_name} games between 4 built-ins, {workers} local worker{'s' * (workers > 1)}: "
                  f"{rate:.1f} games/s", flush=True)
        print("league: on Ray clusters of 1, 2 and 3 nodes: python -m gameroom.bench league --backend ray",
              flush=True)
