"""The arena's intake on a real engine (its SQLite file, its build thread, its sandbox),
without serving pages: uploads unpacked outside the database's write lock, floods and
quotas, fair queues and the qualification share, pacing and matchmaking that spreads
opponents, interpreters behind a shim, whole build logs."""

from __future__ import annotations

import collections
import concurrent.futures
import io
import sqlite3
import sys
import tarfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from gameroom.arena.config import Language, read_config
from gameroom.arena.fairness import FairQueue, Pacer
from gameroom.arena.interpreters import Interpreters
from gameroom.arena.errors import ArenaError
from gameroom.arena.ladder import Arena
from gameroom.arena.ladder_state import Running
from gameroom.arena.matchmaking import meeting, pair
from gameroom.arena.tables import EntryRow, VersionRow
from gameroom.arena.uploads import build
from gameroom.sandbox.policy import SandboxPolicy, resolve_policy
from gameroom.league.db import open_database

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "bots"
GOOD = (EXAMPLES / "python_bot.py").read_bytes()


def make_arena(folder: Path, uploads: str = "", competition: str = "", top: str = "", qualification: int = 0
               ) -> Arena:
    text = (f'database = "sqlite:///arena.db"\ndata = "data"\n{top}\n[uploads]\n{uploads}\n'
            f'[[competitions]]\nname = "c"\ngame = "q"\nqualification = {qualification}\n{competition}\n')
    (folder / "arena.toml").write_text(text)
    config = read_config(folder / "arena.toml")
    return Arena(config, open_database(config.database))


@pytest.fixture
def arenas() -> Iterator[Callable[..., Arena]]:
    made: list[Arena] = []

    def make(folder: Path, **keys: Any) -> Arena:
        made.append(make_arena(folder, **keys))
        return made[-1]

    yield make
    for arena in made:
        arena.stop(grace=1)


def versions(arena: Arena, entry: str) -> dict[int, tuple[str, str]]:
    with Session(arena.engine) as session:
        rows = session.execute(select(VersionRow.number, VersionRow.status, VersionRow.detail).join(EntryRow)
                               .where(EntryRow.name == entry)).all()
    return {number: (status, detail) for number, status, detail in rows}


def settled(arena: Arena, entry: str, count: int, seconds: float = 240) -> dict[int, tuple[str, str]]:
    """The entry's versions once ``count`` of them are neither building nor qualifying."""
    deadline = time.monotonic() + seconds
    while True:
        found = versions(arena, entry)
        if sum(1 for status, _ in found.values() if status not in ("building", "qualifying")) >= count:
            return found
        assert time.monotonic() < deadline, found
        time.sleep(0.1)


def archive(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as packed:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            packed.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_unpacking_happens_outside_the_database_write_lock(tmp_path: Path, arenas: Callable[..., Arena]) -> None:
    """Finding 2: unpacking ran inside the write transaction that inserted the version (a
    sign-up waited 30 s, finished games were lost). Here another connection holds the
    write lock while an upload comes: the upload unpacks all its files meanwhile, then
    waits for the lock only to number and store its version."""
    arena = arenas(tmp_path)
    data = archive({"bot.toml": b'language = "python"\nmain = "main.py"\n', "main.py": GOOD,
                    **{f"data/{at}.txt": bytes(2000) for at in range(150)}})
    holder = sqlite3.connect(tmp_path / "arena.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        upload = pool.submit(arena.upload, "c", "ann", "patient", None, "bot.tgz", data)
        deadline = time.monotonic() + 60
        while not list(arena.scratch.glob("upload-*/bot/data/149.txt")):
            assert not upload.done(), upload.exception()
            assert time.monotonic() < deadline, "not unpacked while the database was locked"
            time.sleep(0.02)
        time.sleep(0.2)
        assert not upload.done()   # it waits for the lock only now, to number its version
        holder.execute("ROLLBACK")
        assert upload.result(timeout=60) == {"bot": "patient", "version": 1, "status": "building"}
    holder.close()
    assert (arena.folder("patient", 1) / "data" / "149.txt").is_file()
    assert not list(arena.scratch.iterdir())


def test_a_flood_of_uploads_replaces_what_waits_and_meets_the_daily_quota(
        tmp_path: Path, arenas: Callable[..., Arena]) -> None:
    """Finding 4: one student's twelve versions in a row were all kept and all qualified
    first. A new version replaces the bot's versions still waiting (their folders go),
    and ``uploads.per_day`` refuses the rest with one line."""
    arena = arenas(tmp_path, uploads="per_day = 5", qualification=2)
    gate = threading.Event()
    arena.builds.submit(gate.wait, 60)   # the build thread busy: the uploads wait behind it
    for number in range(1, 6):
        assert arena.upload("c", "ann", "flood", None, "bot.py", GOOD)["version"] == number
    with pytest.raises(ArenaError) as refused:
        arena.upload("c", "ann", "flood", None, "bot.py", GOOD)
    assert refused.value.status == 429
    assert str(refused.value).startswith("5 versions in the last 24 hours is the most allowed (uploads.per_day)")
    gate.set()
    found = versions(arena, "flood")
    assert [found[n][0] for n in range(1, 5)] == ["failed"] * 4
    assert all(f"replaced by v{n + 1} before it qualified" in found[n][1] for n in range(1, 5))
    assert not any(arena.folder("flood", n).exists() for n in range(1, 5)) and arena.folder("flood", 5).is_dir()
    deadline = time.monotonic() + 120
    while versions(arena, "flood")[5][0] == "building":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert versions(arena, "flood")[5][0] == "qualifying"
    assert arena.upload("c", "ben", "other", None, "bot.py", GOOD)["version"] == 1   # ben's own quota


def test_failed_versions_folders_go_and_only_the_newest_are_kept(tmp_path: Path,
                                                                 arenas: Callable[..., Arena]) -> None:
    arena = arenas(tmp_path, uploads="versions_kept = 2")
    for number in range(1, 5):
        arena.upload("c", "ann", "keeper", None, "bot.py", GOOD)
        settled(arena, "keeper", number)
    broken = arena.upload("c", "ann", "broken", None, "bot.py", b"def broken(:\n    pass\n")
    found = settled(arena, "broken", 1)
    assert found[broken["version"]][0] == "failed" and not arena.folder("broken", 1).exists()
    assert [versions(arena, "keeper")[n][0] for n in range(1, 5)] == ["retired"] * 3 + ["active"]
    assert [arena.folder("keeper", n).exists() for n in range(1, 5)] == [False, False, True, True]


def test_a_failed_builds_log_is_whole_filled_and_line_by_line(tmp_path: Path) -> None:
    """Issue 34, finding 5 and issue 27, finding 10: the log kept only the first line of a
    traceback, one season in four (read before the pipe was), showed ``{main}`` unfilled
    and joined the lines with " | "."""
    sandbox = resolve_policy(SandboxPolicy())
    limits = read_config(_config(tmp_path)).limits
    folder = tmp_path / "v1"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "main.py").write_text("x = 1\ndef broken(:\n    pass\n")
    python = read_config(_config(tmp_path)).language("python")
    assert python is not None
    built, log = build(python, folder / "src" / "main.py", folder, limits, sandbox, 60)
    lines = log.splitlines()
    assert not built and "{main}" not in log and " | " not in log and str(folder) not in log
    assert lines[0].startswith("$ python3 -I -c ") and lines[0].endswith(" src/main.py")
    assert lines[1].startswith("exited with status 1 after ")
    assert "Traceback (most recent call last):" in lines and lines[-1].startswith("SyntaxError")
    assert any(line.strip().startswith('File "src/main.py", line 2') for line in lines)
    talker = Language("talker", (".t",), ("{main}",),
                      (sys.executable, "-c", "import sys\nfor at in range(300): print('line', at, file=sys.stderr)\n"
                                             "print('and on stdout'); sys.exit(2)", "{main}"))
    for _ in range(5):   # the race lost the end now and then: every time, the last line
        built, log = build(talker, folder / "src" / "main.py", folder, limits, sandbox, 60)
        assert not built and log.splitlines()[-1] in ("line 299", "and on stdout") and "line 299" in log
        assert "exited with status 2" in log and "and on stdout" in log


def _config(folder: Path) -> Path:
    path = folder / "arena.toml"
    if not path.exists():
        path.write_text('database = "sqlite:///a.db"\n[[competitions]]\nname = "c"\ngame = "q"\n')
    return path


def test_interpreters_behind_a_shim_and_a_missing_one(tmp_path: Path) -> None:
    """Finding 14: where ``python3`` on the PATH is a shim (pyenv's: a script that needs its
    home), the sandbox held only the script and every build ended with status 127. The
    interpreter is asked on the host where it really is, and its installation bound."""
    home = tmp_path / "home" / "versions" / "real" / "bin"   # the shim's home: never bound by itself
    home.mkdir(parents=True)
    (home / "python3").symlink_to(Path(sys.executable).resolve())
    shims = tmp_path / "shims"
    shims.mkdir()
    (shims / "python3").write_text(f'#!/bin/sh\nexec "{home / "python3"}" "$@"\n')
    (shims / "python3").chmod(0o755)
    sandbox = resolve_policy(SandboxPolicy())
    config = read_config(_config(tmp_path))
    python = config.language("python")
    assert python is not None
    folder = tmp_path / "v1"
    folder.mkdir()
    (folder / "main.py").write_bytes(GOOD)
    shim_path = f"{shims}:/usr/bin:/bin"
    found = Interpreters(shim_path).locate("python3")
    assert found.startswith(str(tmp_path / "home")) or found == str(Path(sys.executable).resolve())
    if sandbox.mode == "bwrap":   # the shim alone, as the sandbox got it before: its home is not there
        from gameroom.sandbox.confine import Confined

        alone = Confined([str(shims / "python3"), "-c", "pass"], sandbox, config.limits, {})
        alone.wait(60)
        assert alone.exit_status() == 127
        alone.kill()
    built, log = build(python, folder / "main.py", folder, config.limits, sandbox, 60, Interpreters(shim_path))
    assert built, log
    missing = Language("rust", (".rs",), ("nosuch-rustc-run", "{main}"), ("nosuch-rustc", "{main}"))
    built, log = build(missing, folder / "main.py", folder, config.limits, sandbox, 60, Interpreters(shim_path))
    assert not built and log == ("rust: the interpreter 'nosuch-rustc-run' is not found on this arena's PATH: ask "
                                 "the staff to install it or to name its full path in arena.toml's [[languages]]")


def _active(arena: Arena, owner: str, entry: str) -> None:
    arena.upload("c", owner, entry, None, "bot.py", GOOD)
    found = settled(arena, entry, 0, 240)
    deadline = time.monotonic() + 240
    while not any(status == "qualifying" for status, _ in found.values()):
        assert time.monotonic() < deadline, found
        time.sleep(0.1)
        found = versions(arena, entry)
    with Session(arena.engine) as session:
        version_id = session.scalars(select(VersionRow.id).join(EntryRow).where(EntryRow.name == entry)).one()
    arena.versions.finish(version_id, "active", "made active for the test")


def test_qualification_keeps_to_its_share_and_students_take_turns(tmp_path: Path,
                                                                  arenas: Callable[..., Arena]) -> None:
    """Finding 4: qualification games went first, always, and the ladder fell from 289
    games in 15 s to none. Here student A has three new bots waiting (six qualification
    games), student B one (two); two bots play the ladder; two workers, one for
    qualification. Games are scheduled as the engine would, finishing one at a time."""
    arena = arenas(tmp_path, qualification=2, top="workers = 2")
    assert arena.config.qualification_workers == 1
    _active(arena, "carl", "ladder-a")
    _active(arena, "dana", "ladder-b")
    for entry in ("a-one", "a-two", "a-three"):
        arena.upload("c", "amy", entry, None, "bot.py", GOOD)
    arena.upload("c", "bob", "b-one", None, "bot.py", GOOD)
    deadline = time.monotonic() + 240
    while len(arena.qualifying) < 8:
        assert time.monotonic() < deadline, len(arena.qualifying)
        time.sleep(0.1)
    started: list[Running] = []
    for _ in range(24):
        while len(arena.running) >= arena.config.workers:   # the oldest game ends
            arena.running.pop(next(iter(arena.running)))
        task = arena.scheduler.next_task()
        assert task is not None
        arena.running[concurrent.futures.Future()] = task[0]
        started.append(task[0])
        assert sum(1 for r in arena.running.values() if r.kind == "qualify") <= 1
    kinds = [r.kind for r in started]
    assert kinds.count("ladder") >= 11 and kinds.count("qualify") == 8
    owners = [r.bots[0].split("-")[0] for r in started if r.kind == "qualify"]
    assert owners[:4] == ["a", "b", "a", "b"]   # bob's bot waits behind one of amy's, not three


def test_fair_queue_and_pacer_on_their_own() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.extend("amy", ["a1", "a2", "a3"])
    queue.put("bob", "b1")
    queue.put("cid", "c1")
    assert [queue.take() for _ in range(5)] == ["a1", "b1", "c1", "a2", "a3"]
    assert queue.take() is None
    now = [1000.0]
    pacer = Pacer(games_per_hour=60, bot_games_per_hour=2, clock=lambda: now[0])
    assert pacer.due()
    pacer.started(["x", "y"])
    assert not pacer.due()
    now[0] += 60
    assert pacer.due() and pacer.allowed("x")
    pacer.started(["x", "z"])
    assert not pacer.allowed("x") and pacer.allowed("y")
    now[0] += 3600
    assert pacer.allowed("x")


def test_the_ladder_keeps_its_pace_and_each_bots_budget(tmp_path: Path, arenas: Callable[..., Arena]) -> None:
    """Finding 11: the ladder ran flat out (875 games in 4 minutes with two bots). With
    ``games_per_hour`` it starts one game every 3600 / N seconds; with
    ``bot_games_per_hour`` a bot plays at most that many games an hour."""
    arena = arenas(tmp_path, competition="games_per_hour = 120\nbot_games_per_hour = 3", qualification=2)
    _active(arena, "ann", "one")
    _active(arena, "ben", "two")
    competition = arena.config.competition("c")
    assert competition is not None and competition.games_per_hour == 120
    now = [0.0]
    arena.pacers["c"] = Pacer(competition.games_per_hour, competition.bot_games_per_hour, clock=lambda: now[0])
    starts = []
    for second in range(0, 7200, 5):
        now[0] = float(second)
        if arena.scheduler.ladder_task(competition) is not None:
            starts.append(second)
    assert starts[:3] == [0, 30, 60]   # one every 30 s
    assert len([s for s in starts if s < 3600]) == 3   # each bot's budget: 3 an hour
    assert len(starts) == 6


def test_matchmaking_spreads_each_bots_opponents_over_a_season() -> None:
    """Finding 11: with the nearest ratings, one bot met the same two opponents for the rest
    of the season. Twelve bots of fixed, distinct ratings play 1,200 two-player games."""
    bots = {f"bot{at:02}": at * 10.0 for at in range(12)}
    games = collections.Counter[str]()
    met: collections.Counter[tuple[str, str]] = collections.Counter()
    tables = []
    for index in range(1200):
        table = pair({bot: (games[bot], rating) for bot, rating in bots.items()}, 2, seed=3, index=index, met=met)
        assert table is not None
        tables.append(table)
        games.update(table)
        met[meeting(*table)] += 1
    for bot in bots:
        mine = {other: count for (a, b), count in met.items() for other in (a, b) if bot in (a, b) and other != bot}
        assert len([o for o, c in mine.items() if c >= 10]) >= 6, (bot, mine)   # half the field, often
        assert sum(sorted(mine.values())[-2:]) <= 0.4 * games[bot], (bot, mine)   # not the nearest two
    assert max(games.values()) <= 1.08 * min(games.values()), games   # the middle plays no more than the ends
    again = collections.Counter[str]()
    again_met: collections.Counter[tuple[str, str]] = collections.Counter()
    for index in range(50):   # seeded: the same season again
        table = pair({bot: (again[bot], rating) for bot, rating in bots.items()}, 2, seed=3, index=index,
                     met=again_met)
        assert table == tables[index]
        again.update(table or [])
        again_met[meeting(*(table or []))] += 1


@pytest.mark.parametrize("top, competition, message", [
    ("[uploads]\nmax_entries = 0\n", "", "uploads.max_entries: must be a whole number in 1..1000000, got 0"),
    ("[uploads]\nper_day = \"many\"\n", "", "uploads.per_day: must be a whole number"),
    ("[uploads]\nversions = 3\n", "", "uploads.versions: unknown key"),
    ("workers = 2\nqualification_workers = 3\n", "", "qualification_workers: must be a whole number in 1..2, got 3"),
    ("", "games_per_hour = -1\n",
     "competitions[1].games_per_hour: must be a whole number of games in 0..10000000 (0: no bound), got -1"),
    ("", "bot_games_per_hour = 1.5\n", "competitions[1].bot_games_per_hour: must be a whole number of games"),
], ids=["entries", "per-day", "unknown", "share", "pace", "budget"])
def test_the_intakes_keys_are_checked(tmp_path: Path, top: str, competition: str, message: str) -> None:
    from gameroom.arena.config import ArenaConfigError

    path = tmp_path / "arena.toml"
    path.write_text(f'database = "sqlite:///a.db"\n{top}[[competitions]]\nname = "c"\ngame = "q"\n{competition}')
    with pytest.raises(ArenaConfigError) as refused:
        read_config(path)
    assert message in str(refused.value) and str(path) in str(refused.value)
