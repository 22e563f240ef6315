"""The league commands' failures (finding 7 of issue 17), through the real command: an
in-memory database is refused, a command that only reads refuses a database file that is
not there (and creates none), a missing extra is one line naming it (league, web,
connect, Ray) with status 2, the sandbox says once when bubblewrap is missing and a
league that asks for it fails in one line, and a closed output is said, not silent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.league.conftest import GAMEROOM, bots_file, gameroom


def _one_error(run: subprocess.CompletedProcess[str], status: int = 2) -> str:
    assert run.returncode == status, (run.returncode, run.stderr)
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gameroom: error: "), run.stderr
    return lines[0]


def _builtin_bots(tmp_path: Path) -> Path:
    return bots_file(tmp_path, [{"name": "dag", "builtin": "dag"}, {"name": "ldasg", "builtin": "ldasg"}])


@pytest.mark.parametrize("url", ["sqlite:///", "sqlite://", "sqlite:///:memory:"])
def test_an_in_memory_database_is_refused(tmp_path: Path, url: str) -> None:
    run = gameroom("league", "q", "--bots", str(_builtin_bots(tmp_path)), "--games", "1", "--db", url, cwd=tmp_path)
    assert "is an in-memory database" in _one_error(run)


@pytest.mark.parametrize("command", [["ratings", "--game", "q"], ["replay", "show"], ["replay", "verify"]])
def test_reading_a_database_that_is_not_there_is_an_error_and_creates_nothing(tmp_path: Path,
                                                                              command: list[str]) -> None:
    run = gameroom(*command, "--db", "sqlite:///typo.db", cwd=tmp_path)
    assert "no database file typo.db" in _one_error(run)
    assert list(tmp_path.iterdir()) == []


def test_ratings_of_an_existing_database_still_work(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'league.db'}"
    assert gameroom("league", "q", "--bots", str(_builtin_bots(tmp_path)), "--games", "2", "--db", url,
                    "--quiet").returncode == 0
    board = gameroom("ratings", "--game", "q", "--db", url)
    assert board.returncode == 0 and "dag" in board.stdout


def _without(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real command with ``module`` made unimportable (as when its extra is not installed)."""
    code = (f"import sys; sys.modules[{module!r}] = None\n"
            f"from gameroom.cli.main import main\nraise SystemExit(main({json.dumps(list(args))}))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=cwd)


@pytest.mark.parametrize("module, args, extra", [
    ("sqlalchemy", ["league", "q", "--games", "1"], "league"),
    ("openskill", ["ratings", "--game", "q"], "league"),
    ("uvicorn", ["web", "--port", "1"], "web"),
    ("prompt_toolkit", ["connect", "eriantys", "--name", "ann", "--port", "1"], "terminal"),
    ("ray", ["league", "q", "--games", "1", "--backend", "ray"], "ray"),
])
def test_a_missing_extra_is_one_line_naming_it(tmp_path: Path, module: str, args: list[str], extra: str) -> None:
    if args[0] == "league":
        args = [*args, "--bots", str(_builtin_bots(tmp_path)), "--db", f"sqlite:///{tmp_path / 'x.db'}"]
    line = _one_error(_without(module, *args, cwd=tmp_path))
    assert f"needs the {extra} extra ({module} is missing): pip install 'gameroom[{extra}]'" in line


def _program_bots(tmp_path: Path, sandbox: str = "") -> Path:
    program = [sys.executable, str(Path(__file__).parents[2] / "examples" / "bots" / "python_bot.py"), "{port}"]
    return bots_file(tmp_path, [{"name": "dag", "builtin": "dag"}, {"name": "py", "command": program}], sandbox)


def test_without_bubblewrap_the_league_says_so_once_and_plays(tmp_path: Path) -> None:
    """PATH without bwrap: one warning line, then the fallback plays every game."""
    empty = tmp_path / "no-programs"
    empty.mkdir()
    run = subprocess.run([*GAMEROOM, "league", "q", "--bots", str(_program_bots(tmp_path)), "--games", "3",
                          "--db", f"sqlite:///{tmp_path / 'x.db'}", "--quiet"], capture_output=True, text=True,
                         timeout=600, env={"PATH": str(empty), "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    warnings = [line for line in run.stderr.splitlines() if "bubblewrap" in line]
    assert len(warnings) == 1 and warnings[0].startswith("gameroom: warning: bubblewrap (bwrap) is not installed")


def test_a_league_that_asks_for_bubblewrap_without_it_is_one_error(tmp_path: Path) -> None:
    empty = tmp_path / "no-programs"
    empty.mkdir()
    run = subprocess.run([*GAMEROOM, "league", "q", "--bots", str(_program_bots(tmp_path, '[sandbox]\nmode = "bwrap"\n')),
                          "--games", "1", "--db", f"sqlite:///{tmp_path / 'x.db'}"], capture_output=True, text=True,
                         timeout=600, env={"PATH": str(empty), "HOME": str(tmp_path)})
    assert "the sandbox needs bubblewrap: bubblewrap (bwrap) is not installed" in _one_error(run)


@pytest.mark.parametrize("table, message", [
    ('[sandbox]\nmode = "jail"\n', "[sandbox]: mode must be one of auto, bwrap, rlimits"),
    ("[sandbox]\ntmp_mb = 0\n", "[sandbox]: tmp_mb must be a positive integer"),
    ("[sandbox]\nreads = []\n", "[sandbox]: unknown key 'reads'"),
    ("[sandbx]\n", "unknown table or key 'sandbx'"),
])
def test_a_bad_sandbox_table_is_one_error_line(tmp_path: Path, table: str, message: str) -> None:
    run = gameroom("league", "q", "--bots", str(_program_bots(tmp_path, table)), "--games", "1",
                   "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert message in _one_error(run)


def test_a_closed_output_is_said_not_silent(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'league.db'}"
    assert gameroom("league", "q", "--bots", str(_builtin_bots(tmp_path)), "--games", "20", "--db", url,
                    "--quiet").returncode == 0
    reader, writer = os.pipe()
    os.close(reader)       # nobody reads what the command prints
    with open(writer, "wb") as closed:
        run = subprocess.run([*GAMEROOM, "replay", "show", "--db", url], stdout=closed, stderr=subprocess.PIPE,
                             text=True, timeout=600)
    assert run.returncode == 1
    assert "broken pipe" in run.stderr
