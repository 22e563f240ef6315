"""Uploads over HTTP to a real arena process (SQLite, then PostgreSQL): the odd archives
of a season (a file ``x`` then ``x/y``, a 300-character member name, a too-long path,
a directory bomb, a bzip2 tar named ``.tgz``) are one 4xx line each naming the rule, with
nothing left on disk; six simultaneous first uploads of a new bot by one student are six
versions, numbered 1 to 6, and six students racing for one new bot name give exactly one
winner and five 409s — never a 500 (the next version number was read, then written)."""

from __future__ import annotations

import gzip
import io
import signal
import subprocess
import tarfile
import threading
from pathlib import Path
from typing import Iterator

import httpx
import pytest
from tests.arena.running import EXAMPLES, login, start_arena
from tests.driver import free_port

from gameroom.bench.archives import directory_bomb, long_name_bomb

STUDENTS = [f"s{at}" for at in range(6)]
ACCOUNTS = "username,password\n" + "".join(f"{name},password-{name}-1\n" for name in STUDENTS)
GOOD = (EXAMPLES / "python_bot.py").read_bytes()


def _config(database: str) -> str:
    return (f'listen = "127.0.0.1:{free_port()}"\ndatabase = "{database}"\ndata = "data"\nworkers = 1\n'
            '[uploads]\nper_day = 50\n[[competitions]]\nname = "c"\ngame = "q"\nqualification = 1\n')


def _tar(files: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return gzip.compress(out.getvalue())


@pytest.fixture(scope="module")
def sqlite_arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("races")
    url, process = start_arena(folder, _config("sqlite:///arena.db"), ACCOUNTS, "c")
    try:
        yield url, folder
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)


ODD = [
    ("bot.tgz", _tar([("x", b"1"), ("x/y", b"2")]), "archive member 'x/y': 'x' is a file, not a directory"),
    ("bot.tgz", _tar([("n" * 300, b"1")]), "a path of 300 characters, more than 200 (uploads.max_path)"),
    ("bot.tgz", _tar([("d/" * 120 + "f", b"1")]), "(uploads.max_path)"),
    ("bot.tgz", _tar([("/".join("d" * 20), b"1")]), "20 levels deep, more than 16 (uploads.max_depth)"),
    ("bot.tgz", long_name_bomb(8 << 20), "the name says a gzip-compressed tar, but the upload is a bzip2"),
    ("bot.tar.bz2", long_name_bomb(8 << 20), "a long-name record of 8388608 bytes"),
    ("bot.tar.bz2", directory_bomb(50_000), "(uploads.max_entries)"),
]


@pytest.mark.parametrize("filename, data, rule", ODD, ids=["x-then-x/y", "300-characters", "long-path", "deep",
                                                           "bzip2-named-tgz", "long-name-record", "directory-bomb"])
def test_an_odd_archive_is_one_4xx_line_and_leaves_nothing(sqlite_arena: tuple[str, Path], filename: str,
                                                           data: bytes, rule: str) -> None:
    url, folder = sqlite_arena
    client = login(url, "s0", "password-s0-1")
    answer = client.post("/api/arena/c/bots", params={"name": "odd", "filename": filename}, content=data)
    assert answer.status_code == 400, answer.text
    message = answer.json()["error"]
    assert rule in message and "\n" not in message
    assert not (folder / "data" / "builds" / "odd").exists()
    assert not list((folder / "data" / "scratch").iterdir())


def _race(url: str, uploads: list[tuple[str, str]]) -> list[httpx.Response]:
    """Each (student, bot name) upload sent at the same moment, a client of its own each."""
    clients = [login(url, student, f"password-{student}-1") for student, _ in uploads]
    barrier = threading.Barrier(len(uploads))
    answers: list[httpx.Response | None] = [None] * len(uploads)

    def send(at: int) -> None:
        barrier.wait()
        answers[at] = clients[at].post("/api/arena/c/bots", params={"name": uploads[at][1], "filename": "bot.py"},
                                       content=GOOD)

    threads = [threading.Thread(target=send, args=(at,)) for at in range(len(uploads))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert all(answer is not None for answer in answers)
    return [answer for answer in answers if answer is not None]


def _check_races(url: str, tag: str) -> None:
    same = _race(url, [("s1", f"{tag}-mine")] * 6)
    assert sorted(answer.status_code for answer in same) == [201] * 6, [a.text for a in same]
    assert sorted(answer.json()["version"] for answer in same) == [1, 2, 3, 4, 5, 6]
    names = _race(url, [(student, f"{tag}-ours") for student in STUDENTS])
    codes = sorted(answer.status_code for answer in names)
    assert codes == [201] + [409] * 5, [a.text for a in names]
    assert all(answer.json()["error"] == f"the bot name '{tag}-ours' is taken" for answer in names
               if answer.status_code == 409)


def test_simultaneous_uploads_on_sqlite(sqlite_arena: tuple[str, Path]) -> None:
    url, folder = sqlite_arena
    _check_races(url, "lite")
    assert not list((folder / "data" / "scratch").iterdir())


def test_simultaneous_uploads_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    import psycopg

    plain = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as connection:
        connection.execute("CREATE DATABASE intake_races")
    url, process = start_arena(tmp_path, _config(postgres_url.rsplit("/", 1)[0] + "/intake_races"), ACCOUNTS, "c")
    try:
        _check_races(url, "pg")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(120) == 0
