"""League benchmark: games per second of a Q league between built-in bots through the real
league runner (database, replays, ratings) with 1 and 2 local workers and on Ray, and the
time to write one result (``python -m gameroom.bench league [--games N]``)."""

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


def run(games: int | None) -> None:
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
