"""A program bot's files carried to a node (``league.builds``): packed the same wherever and
whenever, placed once per node after their digest is checked, and found by the program
where its spec names them (``TableTask.places``), without Ray."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

import pytest

from gameroom.league.builds import BuildError, NodeCache, own_paths, pack, place
from gameroom.league.table import TableTask, play_table
from tests.league.conftest import EXAMPLES


def _folder(root: Path) -> Path:
    (root / "lib").mkdir(parents=True)
    (root / "main.py").write_text("print('hi')\n")
    (root / "lib" / "data.txt").write_text("some data\n")
    (root / "run").write_text("#!/bin/sh\n")
    os.chmod(root / "run", 0o700)
    os.chmod(root / "main.py", 0o600)
    return root


def test_the_same_files_pack_to_the_same_bytes_and_digest(tmp_path: Path) -> None:
    """Owner, times and modes other than the owner's execute bit do not change a build's
    digest; its contents do."""
    first = pack(_folder(tmp_path / "a"))
    second_root = _folder(tmp_path / "b")
    os.utime(second_root / "main.py", (1, 1))
    os.chmod(second_root / "lib" / "data.txt", 0o666)
    time.sleep(0.01)
    second = pack(second_root)
    assert first.digest == second.digest and first.data == second.data and first.name is None
    (second_root / "lib" / "data.txt").write_text("other data\n")
    assert pack(second_root).digest != first.digest
    one = pack(second_root / "main.py")
    assert one.name == "main.py" and one.digest != first.digest


def test_a_node_places_a_build_once_and_only_its_digest(tmp_path: Path) -> None:
    """Unpacked once (later games find it without fetching), readable by every user,
    executable where it was; bytes that are not the digest's are refused and leave nothing."""
    build = pack(_folder(tmp_path / "bot"))
    cache = NodeCache(tmp_path / "cache")
    fetched: list[str] = []

    def fetch(digest: str) -> bytes:
        fetched.append(digest)
        return build.data

    places = place([("/arena/data/builds/bot/v1", build.digest, None)], fetch, cache)
    assert places == (("/arena/data/builds/bot/v1", str(tmp_path / "cache" / build.digest)),)
    placed = Path(places[0][1])
    assert (placed / "lib" / "data.txt").read_text() == "some data\n"
    assert stat.S_IMODE((placed / "run").stat().st_mode) == 0o755
    assert stat.S_IMODE((placed / "main.py").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "cache").stat().st_mode) == 0o755
    assert place([("/x", build.digest, None)], fetch, cache) == (("/x", str(placed)),)
    assert fetched == [build.digest]
    forged = pack(tmp_path / "bot" / "main.py")
    with pytest.raises(BuildError, match="has another digest"):
        cache.folder(forged.digest, lambda: build.data)
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [build.digest]
    with pytest.raises(BuildError, match="not a SHA-256 digest"):
        cache.folder("../../etc", lambda: build.data)


def test_a_cache_others_may_write_to_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    build = pack(_folder(tmp_path / "bot"))
    with pytest.raises(BuildError, match="others may write to it"):
        NodeCache(shared).folder(build.digest, lambda: build.data)


def test_a_link_out_of_a_build_is_not_unpacked(tmp_path: Path) -> None:
    root = _folder(tmp_path / "bot")
    (root / "escape").symlink_to("/etc/passwd")
    build = pack(root)
    with pytest.raises(BuildError, match="cannot be unpacked"):
        NodeCache(tmp_path / "cache").folder(build.digest, lambda: build.data)
    assert [p.name for p in (tmp_path / "cache").iterdir()] == []


def test_what_travels_is_the_bots_own_files(tmp_path: Path) -> None:
    """Its ``read`` folders and the files its argv names, not the system's programs, not
    Python's installation, not what a carried folder holds already; bare names are on
    the PATH."""
    build = _folder(tmp_path / "build")
    script = tmp_path / "bot.py"
    script.write_text("pass\n")
    spec = {"name": "b", "command": [sys.executable, str(script), str(build / "main.py"), "/usr/bin/env",
                                     "perl", "{port}", "--fast"], "read": [str(build)]}
    assert own_paths(spec, str(tmp_path)) == [str(build), str(script)]
    # argv[0] named bare is a program on the PATH even where the folder has a file of that name
    assert own_paths({"name": "b", "command": ["bot.py", "./bot.py", "bot.py"]}, str(tmp_path)) == ["./bot.py",
                                                                                                  "bot.py"]
    assert own_paths({"name": "b", "builtin": "dag"}) == []


def test_a_program_found_where_the_node_placed_it(tmp_path: Path) -> None:
    """A spec naming a path this machine does not have plays from where ``places`` says
    its files are; the game's record keeps the spec as written."""
    placed = tmp_path / "cache" / "abc"
    placed.mkdir(parents=True)
    (placed / "python_bot.py").write_bytes((EXAMPLES / "python_bot.py").read_bytes())
    os.chmod(tmp_path, 0o755)
    written = "/nowhere/builds/py/v1"
    spec = {"name": "py", "command": [sys.executable, f"{written}/python_bot.py", "{port}"], "read": [written]}
    task = TableTask("q", 0, 5, (spec, {"name": "dag", "builtin": "dag"}), places=((written, str(placed)),))
    outcome = play_table(task)
    assert outcome.record.result is not None and not outcome.record.result.ejections, outcome.record.result
    assert outcome.record.config["seats"][0]["bot"]["command"][1] == f"{written}/python_bot.py"
