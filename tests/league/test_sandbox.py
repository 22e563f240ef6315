"""Hostile program bots in a real ``gameroom league`` (finding 4 of issue 17): a bot that
double-forks and calls ``setsid``, one that writes files without end, one that connects
elsewhere on 127.0.0.1, a fork bomb and a spinner play Bazaar beside a built-in, in
bubblewrap and in the fallback without it. Nothing of theirs outlives the league, what
they write stays within the limits, and their ejection reasons carry their exit status
and the tail of their stderr. A program that cannot start is ejected with that reason,
and a league in which it never started says so and exits 1."""

from __future__ import annotations

import re
import shutil
import socket
import sqlite3
import sys
from pathlib import Path

import pytest

from gameroom.bench import hostile_bots
from gameroom.bench.processes import marked
from tests.league.conftest import EXAMPLES, bots_file, gameroom
from tests.web.conftest import browser  # noqa: F401  (the web tests' Chromium, for the stored-game page)

HOSTILE = Path(hostile_bots.__file__).with_name("attack_program.py")
FILE_MB, TMP_MB = 2, 6


def _rows(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as connection:
        return connection.execute(sql).fetchall()


def _bubblewrap_problem() -> str | None:
    from gameroom.sandbox.bwrap import probe

    return probe()


def _reasons(db: Path) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for name, kind, reason in _rows(db, "select b.name, e.kind, e.reason from ejections e join bots b "
                                        "on b.id = e.bot_id order by e.id"):
        out.setdefault(name, []).append((kind, reason))
    return out


def _hostile_league(tmp_path: Path, mode: str, places: str, bomb: bool = True
                    ) -> tuple[object, Path, str, Path, socket.socket]:
    """Two games of Bazaar: a built-in and five hostile programs, in ``mode``; the writer
    also tries ``places`` and a host directory. The league runs in a directory of its own
    (the writer tries its working directory too)."""
    marker = str(tmp_path / f"hostile-{mode}.py")
    shutil.copy(HOSTILE, marker)
    target = tmp_path / "host-dir"     # a host directory the writer is told to fill
    target.mkdir()
    elsewhere = socket.create_server(("127.0.0.1", 0))   # what the connecter tries to reach
    elsewhere.setblocking(False)
    bots = [{"name": "good", "builtin": "purchase-points"},
            {"name": "escape", "command": [sys.executable, marker, "escape", "{port}", str(EXAMPLES / "python_bot.py")]},
            {"name": "write", "command": [sys.executable, marker, "write", "{port}", f"{places}{target}"],
             "file_mb": FILE_MB},
            {"name": "connect", "command": [sys.executable, marker, "connect", "{port}",
                                            str(elsewhere.getsockname()[1])]},
            {"name": "bomb", "command": [sys.executable, marker, "bomb", "{port}"], "processes": 12},
            {"name": "spin", "command": [sys.executable, marker, "spin", "{port}"]}]
    if not bomb:
        bots = [bot for bot in bots if bot["name"] != "bomb"]
    bots_file(tmp_path, bots, f"[sandbox]\nmode = \"{mode}\"\ntmp_mb = {TMP_MB}\n")
    db = tmp_path / "hostile.db"
    (tmp_path / "league").mkdir()
    run = gameroom("league", "bazaar", "--bots", str(tmp_path / "bots.toml"), "--games", "2", "--players", "6",
                   "--db", f"sqlite:///{db}", "--workers", "2", "--quiet", cwd=tmp_path / "league")
    return run, db, marker, target, elsewhere


def _written(reason: str) -> int:
    return int(re.findall(r"wrote (\d+) bytes in all", reason)[-1])


def _check_common(run: object, db: Path, marker: str) -> dict[str, list[tuple[str, str]]]:
    assert run.returncode == 0, run.stderr   # type: ignore[attr-defined]
    assert marked(marker) == []            # the escaped sleepers and the bomb's children included
    assert _rows(db, "select count(*) from games") == [(2,)]
    reasons = _reasons(db)
    assert "good" not in reasons and "escape" not in reasons, reasons   # escape played legally
    for kind, reason in reasons["write"]:
        assert kind == "disconnect" and "program exited with status 1; stderr: " in reason, reason
    for kind, reason in reasons["connect"]:
        assert kind == "disconnect" and "program exited with status 2; stderr: " in reason, reason
    for name in ("bomb", "spin"):
        for kind, reason in reasons.get(name, []):
            assert kind == "time-out" and "program killed by the league while still running" in reason, reason
    return reasons


def test_hostile_programs_in_bubblewrap(tmp_path: Path) -> None:
    problem = _bubblewrap_problem()
    if problem is not None:
        pytest.skip(f"no bubblewrap sandbox here ({problem}); .ci/run installs the 'bubblewrap' package")
    # /tmp and /dev/shm are the sandbox's own: a tmpfs of TMP_MB and a read-only directory
    run, db, marker, target, elsewhere = _hostile_league(tmp_path, "bwrap", "/tmp:/dev/shm:")
    with elsewhere:
        reasons = _check_common(run, db, marker)
        with pytest.raises(BlockingIOError):   # nobody from the sandbox reached the host's loopback
            elsewhere.accept()
    for _kind, reason in reasons["connect"]:
        assert "could not connect to 127.0.0.1" in reason and "refused" in reason, reason
    for _kind, reason in reasons["write"]:
        # its private /tmp fills up; the working directory, /dev/shm and the rest are read-only
        assert _written(reason) <= TMP_MB * 1024 * 1024, reason
        assert "No space left on device" in reason and "Read-only file system" in reason, reason
    assert list(target.iterdir()) == []      # the host directory was never reachable


def test_hostile_programs_without_bubblewrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GAMEROOM_SANDBOX=rlimits forces the fallback: group kill and sweep, limits, a
    temporary directory removed afterwards; the network is not isolated there."""
    from gameroom.sandbox.sweep import fallback_bounds_processes

    monkeypatch.setenv("GAMEROOM_SANDBOX", "rlimits")
    # the host's /tmp stays clean; a fork bomb only where the fallback bounds processes
    # (root needs a writable pids cgroup: the kernel exempts it from RLIMIT_NPROC)
    run, db, marker, target, elsewhere = _hostile_league(tmp_path, "auto", "", bomb=fallback_bounds_processes())
    elsewhere.close()
    reasons = _check_common(run, db, marker)
    for _kind, reason in reasons["write"]:
        # every file stops at the file size limit; its temporary directory is gone
        temporary = re.findall(r"TMPDIR=(\S*gameroom-bot-\S+)", reason)
        assert temporary and not Path(temporary[0]).exists(), reason
        assert "File too large" in reason, reason
    for place in (target, tmp_path / "league"):
        files = list(place.glob("hostile-fill-*"))
        assert files and all(f.stat().st_size <= FILE_MB * 1024 * 1024 for f in files)


def test_a_program_that_cannot_start_is_ejected_with_its_status_and_stderr(tmp_path: Path) -> None:
    """A program that exits before signing up and one that is not there: each game ejects
    them with how they ended; the league names both, exits 1; ``replay show`` shows it."""
    marker = str(tmp_path / "crash.py")
    shutil.copy(HOSTILE, marker)
    bots = [{"name": "dag", "builtin": "dag"}, {"name": "ldasg", "builtin": "ldasg"},
            {"name": "crash", "command": [sys.executable, marker, "crash", "{port}"]},
            {"name": "missing", "command": [str(tmp_path / "no-such-program"), "{port}"]}]
    bots_file(tmp_path, bots)
    db = tmp_path / "crash.db"
    run = gameroom("league", "q", "--bots", str(tmp_path / "bots.toml"), "--games", "2", "--players", "4",
                   "--db", f"sqlite:///{db}", "--quiet")
    assert run.returncode == 1, run.stderr
    error = [line for line in run.stderr.splitlines() if line.startswith("gameroom: error: ")]
    assert len(error) == 1, run.stderr
    assert ("bot 'crash' never started in any of its 2 games: program exited with status 3 before signing up; "
            "stderr: hostile bot: cannot start <img src=x onerror=alert(1)> & giving up") in error[0]
    assert f"bot 'missing' never started in any of its 2 games: program could not start: " \
           f"'{tmp_path / 'no-such-program'}' is not found" in error[0]
    assert "dag" in run.stdout                 # the leaderboard is printed first
    assert _rows(db, "select count(*) from games") == [(2,)]
    reasons = _reasons(db)
    assert reasons["crash"] == [("disconnect", "program exited with status 3 before signing up; stderr: hostile "
                                               "bot: cannot start <img src=x onerror=alert(1)> & giving up")] * 2
    show = gameroom("replay", "show", "--db", f"sqlite:///{db}", "--id", "1")
    assert show.returncode == 0 and "program exited with status 3 before signing up; stderr: hostile bot" in show.stdout


def test_a_python_bot_is_imported_only_in_its_sandbox(tmp_path: Path) -> None:
    """A Python bot whose module calls sys.exit(1) as it is imported: the league does not
    end silently with status 1 (its module is loaded only in a sandboxed child, to check
    it); it says in one line what became of the bot, with status 2."""
    from tests.league.conftest import REPO

    bots = [{"name": "dag", "builtin": "dag"}, {"name": "quitter", "python": "tests.league.bots.quitter:Bot"}]
    bots_file(tmp_path, bots)
    run = gameroom("league", "q", "--bots", str(tmp_path / "bots.toml"), "--games", "2",
                   "--db", f"sqlite:///{tmp_path / 'quit.db'}", "--quiet", cwd=REPO)
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().splitlines() == [
        "gameroom: error: bot 'quitter': 'tests.league.bots.quitter:Bot' could not be loaded: player could not be "
        "created: SystemExit: 1"]


def test_the_stored_game_page_shows_the_reason_escaped(tmp_path: Path, browser: object) -> None:  # noqa: F811
    """The web room's stored-game page shows the ejection reason with the program's status
    and stderr as text: the HTML the program wrote is not markup."""
    pytest.importorskip("starlette")
    from tests.web.conftest import running_web

    marker = str(tmp_path / "crash.py")
    shutil.copy(HOSTILE, marker)
    bots = [{"name": "dag", "builtin": "dag"}, {"name": "crash", "command": [sys.executable, marker, "crash", "{port}"]}]
    bots_file(tmp_path, bots)
    url = f"sqlite:///{tmp_path / 'web.db'}"
    run = gameroom("league", "q", "--bots", str(tmp_path / "bots.toml"), "--games", "1", "--db", url, "--quiet")
    assert run.returncode == 1, run.stderr
    with running_web("--db", url) as server:
        page = browser.new_page()    # type: ignore[attr-defined]
        try:
            page.set_default_timeout(120_000)
            page.goto(server.url + "/results/games/1")
            page.wait_for_selector("#events li")
            events = page.inner_text("#events")
            assert ("program exited with status 3 before signing up; stderr: hostile bot: cannot start "
                    "<img src=x onerror=alert(1)> & giving up") in events
            assert page.locator("#events img").count() == 0
        finally:
            page.close()

