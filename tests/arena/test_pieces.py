"""The arena's pieces on their own: arena.toml errors (one line naming file and key, exit
2), safe unpacking of uploads, the matchmaking rule, and recompute finding a standing that
is not the games'."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from tests.arena.running import competition_text

from gameroom.arena.config import UploadLimits, read_config
from gameroom.arena.matchmaking import pair
from gameroom.arena.uploads import UploadError, read_manifest, unpack

GOOD = 'database = "sqlite:///a.db"\n[[competitions]]\nname = "c"\ngame = "q"\n'


@pytest.mark.parametrize("text, message", [
    ('colour = 1\n' + GOOD, "colour: unknown key"),
    ('listen = "nowhere"\n' + GOOD, "listen: must be HOST:PORT"),
    ('workers = 0\n' + GOOD, "workers: must be a whole number"),
    ('backend = "cloud"\n' + GOOD, "backend: must be local or ray"),
    ('[uploads]\nmax_bytes = -1\n[[competitions]]\nname = "c"\ngame = "q"\n', "uploads.max_bytes"),
    ('[[competitions]]\nname = "c"\ngame = "chess"\n', "competitions[1].game: 'chess' is not a registered game"),
    ('[[competitions]]\nname = "c"\ngame = "q"\nplayers = 9\n', "competitions[1].players: q takes 2..4"),
    ('[[competitions]]\nname = "C D"\ngame = "q"\n', "competitions[1].name"),
    (GOOD + '[[languages]]\nname = "rust"\nsuffixes = [".rs"]\n', "languages[1].run: is missing"),
    ('[bots]\nmemory_mb = "lots"\n[[competitions]]\nname = "c"\ngame = "q"\n', "bots.memory_mb"),
    ('', "competitions: give at least one"),
    ('x = [', "is not TOML"),
    # the game's own options (test_options)
    (competition_text("q", "colour = 1"), "competitions[1].options.colour: q has no such option; its options are "
                                      "q-bonus, finish-bonus"),
    (competition_text("q", '"q-bonus" = 99'), "competitions[1].options.q-bonus: q-bonus must lie in 0..10, got 99"),
    (competition_text("q", '"q-bonus" = "six"'), "competitions[1].options.q-bonus: expected a whole number"),
    (competition_text("eriantys", 'expert = "yes"'), "competitions[1].options.expert: expected true or false"),
    (competition_text("fish", "rows = 2\ncolumns = 3"), "competitions[1].options: a 2 x 3 board has 6 tiles, too few "
                                                    "for the 8 penguins of 2 players (players = 2)"),
    ('database = "sqlite:///a.db"\n[[competitions]]\nname = "c"\ngame = "q"\noptions = 3\n',
     "competitions[1].options: must be a table of the game's options"),
])
def test_a_bad_arena_file_is_one_line_naming_the_key_and_exit_2(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "arena.toml"
    path.write_text(text)
    run = subprocess.run([sys.executable, "-m", "gameroom", "arena", "recompute", "--config", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert message in run.stderr and str(path) in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_a_good_file_with_defaults(tmp_path: Path) -> None:
    path = tmp_path / "arena.toml"
    path.write_text(GOOD)
    config = read_config(path)
    assert config.host == "127.0.0.1" and config.workers == 2 and config.backend == "local"
    assert config.database == f"sqlite:///{tmp_path / 'a.db'}"
    assert {lang.name for lang in config.languages} == {"python", "javascript", "command"}
    assert config.competitions[0].players == 2


def _tar(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return out.getvalue()


def _info(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info


def _zip(files: dict[str, bytes], link: str | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        if link is not None:   # a Unix symbolic link, as zip -y stores one
            info = zipfile.ZipInfo(link)
            info.external_attr = (0o120777 << 16)
            archive.writestr(info, "/etc/passwd")
    return out.getvalue()


LIMITS = UploadLimits(max_bytes=1 << 20, max_files=5, max_unpacked_bytes=100_000)


@pytest.mark.parametrize("data, name, message", [
    (_tar([(_info("/etc/evil"), b"x")]), "b.tar.gz", "an absolute path"),
    (_tar([(_info("../evil"), b"x")]), "b.tar.gz", "'..'"),
    (_tar([(_info("link", tarfile.SYMTYPE, "/etc/passwd"), None)]), "b.tar.gz", "a link"),
    (_tar([(_info("hard", tarfile.LNKTYPE, "bot.toml"), None)]), "b.tar.gz", "a link"),
    (_tar([(_info("dev", tarfile.CHRTYPE), None)]), "b.tar.gz", "a device"),
    (_tar([(_info("fifo", tarfile.FIFOTYPE), None)]), "b.tar.gz", "a device"),
    (_zip({f"f{i}.py": b"" for i in range(6)}), "b.zip", "more than 5 files"),
    (_zip({"bomb.txt": b"0" * 1_000_000}), "b.zip", "more than 100000 bytes"),
    (_zip({"a/../../x": b"x"}), "b.zip", "'..'"),
    (_zip({}, link="passwd"), "b.zip", "a link"),
    (b"PK\x03\x04 not a zip", "b.zip", "not a readable zip"),
    (b"", "bot.py", "empty"),
    (b"x" * ((1 << 20) + 1), "bot.py", "uploads.max_bytes"),
], ids=["absolute", "dotdot", "symlink", "hardlink", "device", "fifo", "files", "bomb", "zip-dotdot", "zip-link",
        "bad-zip",
        "empty", "too-big"])
def test_unpacking_refuses_what_could_escape_or_explode(tmp_path: Path, data: bytes, name: str, message: str) -> None:
    with pytest.raises(UploadError, match=message.replace("(", r"\(").replace(".", r"\.")):
        unpack(data, name, tmp_path / "v1", LIMITS)
    assert not (tmp_path / "etc").exists() and not (tmp_path / "evil").exists() and not Path("/x").exists()


def test_an_archive_with_a_manifest(tmp_path: Path) -> None:
    data = _zip({"bot.toml": b'language = "python"\nmain = "src/main.py"\n', "src/main.py": b"print(1)\n"})
    assert unpack(data, "bot.zip", tmp_path / "v1", LIMITS) is True
    assert read_manifest(tmp_path / "v1") == ("python", "src/main.py")
    assert (tmp_path / "v1" / "src" / "main.py").stat().st_mode & 0o777 == 0o644
    missing = _zip({"bot.toml": b'language = "python"\nmain = "nope.py"\n'})
    unpack(missing, "bot.zip", tmp_path / "v2", LIMITS)
    with pytest.raises(UploadError, match="not a file of the archive"):
        read_manifest(tmp_path / "v2")


def test_matchmaking_takes_the_least_played_and_close_ratings() -> None:
    bots = {"a": (10, 30.0), "b": (3, 10.0), "c": (10, 11.0), "d": (10, 12.0), "e": (10, 40.0), "f": (10, 0.0)}
    for index in range(50):
        table = pair(bots, 2, seed=1, index=index)
        assert table is not None and "b" in table                      # the least played always plays
        other = next(bot for bot in table if bot != "b")
        assert other in ("c", "d", "f")                                # among the nearer half by rating
        assert pair(bots, 2, seed=1, index=index) == table            # reproducible from seed and index
    assert pair({"a": (0, 0.0)}, 2, seed=1, index=0) is None
    three = pair(bots, 3, seed=2, index=0)
    assert three is not None and len(set(three)) == 3


SLOW = '''
import time as _time

_answer = answer
_turns = []


def answer(game, method, args):
    if method == "take-turn" and not _turns:   # the first turn only: the game stays short
        _turns.append(1)
        _time.sleep(0.6)
    return _answer(game, method, args)


if __name__ == "__main__":
    main()
'''


@pytest.mark.parametrize("call_seconds, ejected", [(None, False), (0.2, True)])
def test_a_competitions_call_limit_replaces_the_games(tmp_path: Path, call_seconds: float | None,
                                                      ejected: bool) -> None:
    """A bot that takes 0.6 s over its first turn plays Q (6 s a call) whole, and is timed
    out at that turn when the competition's ``call_seconds`` is 0.2."""
    from gameroom.league.table import TableTask, record_table

    source = (Path(__file__).resolve().parents[2] / "examples" / "bots" / "python_bot.py").read_text()
    slow = tmp_path / "slow_bot.py"
    slow.write_text(source.rpartition('if __name__ == "__main__":')[0] + SLOW)
    example = Path(__file__).resolve().parents[2] / "examples" / "bots" / "python_bot.py"
    bots = ({"name": "slow", "command": [sys.executable, str(slow), "{port}"]},
            {"name": "quick", "command": [sys.executable, str(example), "{port}"]})
    record = record_table(TableTask("q", 0, 3, bots, call_seconds=call_seconds))
    assert record.result is not None
    failures = [e for e in record.result.ejections if e.name == "slow"]
    assert bool(failures) == ejected
    if ejected:
        assert failures[0].method == "take-turn" and "0.2 s" in failures[0].reason
        assert record.config["call_seconds"] == 0.2
