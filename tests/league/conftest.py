"""Fixtures of the league tests: the real command, bots files, and a real PostgreSQL server
started on a private port and data directory (skipped with a message where the
``postgresql`` package is not installed; ``.ci/run`` installs it)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator, Sequence

import pytest
from tests.driver import free_port

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "bots"
MISBEHAVING = Path(__file__).with_name("bots") / "misbehaving.py"
GAMEROOM = [sys.executable, "-m", "gameroom"]


def gameroom(*args: str, timeout: float = 600, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GAMEROOM, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)


def toml_bots(entries: Sequence[dict]) -> str:
    """A bots file: each entry's keys as TOML (strings, lists of strings and integers)."""
    def value(v: object) -> str:
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, int):
            return str(v)
        return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'

    return "".join("[[bots]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in e.items()) for e in entries)




@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A private PostgreSQL server for the session: initdb into a fresh directory, started
    on a free port with a Unix socket in that directory; as root it runs as the
    ``postgres`` user (root cannot run a server)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.skip("PostgreSQL is not installed (Debian package 'postgresql'; .ci/run installs it)")
    bindir = Path(found[-1]).parent
    root = os.geteuid() == 0
    if root and shutil.which("runuser") is None:
        pytest.skip("running as root without runuser: cannot start PostgreSQL as another user")
    data = Path(tempfile.mkdtemp(prefix="gameroom-pg-"))
    prefix: list[str] = []
    if root:
        import pwd

        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("no 'postgres' user to run the PostgreSQL server as")
        shutil.chown(data, "postgres", "postgres")
        data.chmod(0o700)
        prefix = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    subprocess.run([*prefix, str(bindir / "initdb"), "-D", str(data / "db"), "-U", "gameroom", "--auth=trust",
                    "-E", "UTF8"], check=True, capture_output=True, timeout=300)
    subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data / "db"), "-l", str(data / "log"), "-w", "-t", "120",
                    "-o", f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                   check=True, capture_output=True, timeout=300)
    try:
        yield f"postgresql+psycopg://gameroom@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data / "db"), "-m", "immediate", "stop"],
                       capture_output=True, timeout=120)
        shutil.rmtree(data, ignore_errors=True)
