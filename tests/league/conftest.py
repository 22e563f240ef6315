"""Fixtures of the league tests: the real command and bots files (the real PostgreSQL
server, ``postgres_url``, is the root conftest's: the arena's tests use it too)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Sequence


REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "bots"
MISBEHAVING = Path(__file__).with_name("bots") / "misbehaving.py"
GAMEROOM = [sys.executable, "-m", "gameroom"]


def gameroom(*args: str, timeout: float = 600, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GAMEROOM, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)


def bots_file(folder: Path, entries: Sequence[dict], more: str = "") -> Path:
    """``folder/bots.toml`` holding these bots (and ``more`` TOML after them: a
    ``[sandbox]`` table)."""
    path = folder / "bots.toml"
    path.write_text(toml_bots(entries) + more)
    return path


def league(folder: Path, game: str, entries: Sequence[dict], games: int, *more: str,
           cwd: Path | None = None) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """``gameroom league GAME --quiet`` of these bots for ``games`` games on a new SQLite
    database in ``folder``, which must succeed: the database and the run."""
    db = folder / "league.db"
    run = gameroom("league", game, "--bots", str(bots_file(folder, entries)), "--games", str(games),
                   "--db", f"sqlite:///{db}", "--quiet", *more, cwd=cwd)
    assert run.returncode == 0, run.stderr
    return db, run


def toml_bots(entries: Sequence[dict]) -> str:
    """A bots file: each entry's keys as TOML (strings, lists of strings and integers)."""
    def value(v: object) -> str:
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, int):
            return str(v)
        return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'

    return "".join("[[bots]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in e.items()) for e in entries)
