"""The leagues' acceptance run, as a new user does it (``python -m gameroom.bench league
--acceptance [--games 200]``): for every game of the registry, a bots file with the two
documented example clients (``examples/bots``, Python and Perl programs) and two built-ins,
``gameroom league`` for N games into a fresh SQLite database, ``gameroom ratings`` for the
leaderboard, and ``gameroom replay verify --db`` over every stored game. It prints, per
game, the time and games per second, the games and results in the database, the example
clients' ejections, the replays verified, and the leaderboard."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from typing import Any
import tempfile
import time
from pathlib import Path

from gameroom.games import registry
from gameroom.bench.processes import python_module

DEFAULT_GAMES = 200
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "bots"


def bots_file(game: str) -> str:
    """The bots of the acceptance league of ``game``: the example clients and the game's
    first two built-in strategies (the first twice when it has one)."""
    strategies = list(registry.game(game).strategies)
    builtins = [strategies[0], strategies[1 % len(strategies)]]
    entries: list[dict[str, Any]] = [{"name": "py-example", "command": [sys.executable, str(EXAMPLES / "python_bot.py"), "{port}"]},
               {"name": "perl-example", "command": ["perl", str(EXAMPLES / "perl_bot.pl"), "{port}"]},
               {"name": f"{builtins[0]}-1", "builtin": builtins[0]},
               {"name": f"{builtins[1]}-2", "builtin": builtins[1]}]
    # TOML strings are JSON strings (basic strings with the same escapes)
    return "".join("[[bots]]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in entry.items())
                   for entry in entries)


def _gameroom(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(python_module("gameroom", *args), capture_output=True, text=True)


def _rows(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as connection:
        return connection.execute(sql).fetchall()


def one_game(game: str, games: int, workers: int, folder: Path) -> bool:
    """The acceptance league of one game; True when it passed."""
    bots = folder / f"{game}-bots.toml"
    bots.write_text(bots_file(game), encoding="utf-8")
    db = folder / f"{game}.db"
    url = f"sqlite:///{db}"
    started = time.perf_counter()
    run = _gameroom("league", game, "--bots", str(bots), "--games", str(games), "--db", url, "--workers",
                    str(workers), "--seed", "1", "--quiet")
    elapsed = time.perf_counter() - started
    if run.returncode != 0:
        print(f"{game}: the league failed: {run.stderr.strip()}", flush=True)
        return False
    stored, distinct = _rows(db, 'select count(*), count(distinct "index") from games')[0]
    results = _rows(db, "select count(*) from results")[0][0]
    ejected = dict(_rows(db, "select b.name, count(*) from ejections e join bots b on b.id = e.bot_id "
                             "where b.name in ('py-example', 'perl-example') group by b.name"))
    verify = _gameroom("replay", "verify", "--db", url)
    board = _gameroom("ratings", "--game", game, "--db", url)
    verified = verify.stdout.strip().splitlines()[-1] if verify.stdout.strip() else verify.stderr.strip()
    passed = (stored == distinct == games and verify.returncode == 0 and board.returncode == 0
              and f"{games} of {games} replays verified" in verify.stdout)
    print(f"{game}: {games} games in {elapsed:.1f} s ({games / elapsed:.1f} games/s, {workers} workers); "
          f"database: {stored} games, {results} results; example clients ejected: "
          f"python {ejected.get('py-example', 0)}, perl {ejected.get('perl-example', 0)}; {verified}"
          f"{'' if passed else '  <-- FAILED'}", flush=True)
    print(board.stdout.rstrip(), flush=True)
    return passed


def run(games: int | None, workers: int = 2) -> int:
    games = games or DEFAULT_GAMES
    if not (EXAMPLES / "python_bot.py").exists():
        print(f"the acceptance run needs the repository's examples/bots (not found at {EXAMPLES})", flush=True)
        return 2
    if shutil.which("perl") is None:
        print("the acceptance run needs perl for the Perl example client", flush=True)
        return 2
    with tempfile.TemporaryDirectory(prefix="gameroom-acceptance-") as directory:
        passed = [one_game(game, games, workers, Path(directory)) for game in registry.names()]
    print(f"acceptance: {sum(passed)} of {len(passed)} games passed "
          f"({games} games each, 2 example programs and 2 built-ins)", flush=True)
    return 0 if all(passed) else 1
