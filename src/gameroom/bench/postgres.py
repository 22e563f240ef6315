"""A private PostgreSQL server for a benchmark: initdb into a fresh directory, started on a
free port of 127.0.0.1 (as the ``postgres`` user when run as root, which cannot run a
server), stopped and removed at the end. None when PostgreSQL is not installed."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

__all__ = ["private_postgres"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def private_postgres() -> Iterator[str | None]:
    """A SQLAlchemy URL of a fresh server with its default durability (each commit
    flushed), or None (with the reason on standard output) when none can be started."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    root = os.geteuid() == 0
    if not found or root and shutil.which("runuser") is None:
        print("  (no PostgreSQL server could be started: install the Debian package postgresql)")
        yield None
        return
    bindir = Path(found[-1]).parent
    data = Path(tempfile.mkdtemp(prefix="gameroom-bench-pg-"))
    prefix: list[str] = []
    if root:
        shutil.chown(data, "postgres", "postgres")
        data.chmod(0o700)
        prefix = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    try:
        subprocess.run([*prefix, str(bindir / "initdb"), "-D", str(data / "db"), "-U", "gameroom", "--auth=trust",
                        "-E", "UTF8"], check=True, capture_output=True, timeout=300)
        subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data / "db"), "-l", str(data / "log"), "-w", "-t",
                        "120", "-o", f"-p {port} -k {data} -c listen_addresses=127.0.0.1", "start"],
                       check=True, capture_output=True, timeout=300)
        yield f"postgresql+psycopg://gameroom@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data / "db"), "-m", "immediate", "stop"],
                       capture_output=True, timeout=120)
        shutil.rmtree(data, ignore_errors=True)
