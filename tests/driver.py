"""Drivers that run the real ``gameroom`` command as separate processes, the way the
reference test drivers do: harnesses with JSON on stdin, and a server plus its clients
on a free TCP port of 127.0.0.1. Slow cases (sign-up periods, 6 s time-outs) are
submitted to a shared pool so they run concurrently; each test waits for its own case.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

GAMEROOM = [sys.executable, "-m", "gameroom"]
_POOL = ThreadPoolExecutor(max_workers=int(os.environ.get("GAMEROOM_TEST_CONCURRENCY", "24")))
# Cases that mostly wait (sign-up windows, time-outs) get their own workers, so they do not
# hold back the CPU-bound harness runs queued behind them.
_WAIT_POOL = ThreadPoolExecutor(max_workers=int(os.environ.get("GAMEROOM_TEST_WAITING", "64")))
_CACHE: dict[tuple, Future] = {}
_LOCK = threading.Lock()
_PORT_LOCK = threading.Lock()
_USED_PORTS: set[int] = set()


@dataclass
class Run:
    stdout: str
    stderr: str
    returncode: int


def run_gameroom(args: Sequence[str], stdin: bytes, timeout: float = 300, cwd: Path | None = None) -> Run:
    proc = subprocess.run(GAMEROOM + list(args), input=stdin, capture_output=True, timeout=timeout, cwd=cwd)
    return Run(proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"), proc.returncode)


def free_port() -> int:
    """A port that is free now and not handed to another concurrent case."""
    with _PORT_LOCK:
        while True:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            if port not in _USED_PORTS:
                _USED_PORTS.add(port)
                return port


def run_server_and_clients(game: str, server_input: bytes, client_input: bytes,
                           client_flags: Sequence[str] = (), server_timeout: float = 200) -> Run:
    """Start ``gameroom serve GAME`` then ``gameroom clients GAME`` on one free port; the
    server's output once it exits; the clients are killed afterwards."""
    port = free_port()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        server = subprocess.Popen(GAMEROOM + ["serve", game, "--port", str(port)], stdin=subprocess.PIPE,
                                  stdout=out, stderr=err)
        server.stdin.write(server_input)
        server.stdin.close()
        clients = subprocess.Popen(GAMEROOM + ["clients", game, "--port", str(port), *client_flags],
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        clients.stdin.write(client_input)
        clients.stdin.close()
        try:
            server.wait(timeout=server_timeout)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        finally:
            clients.kill()
            clients.wait()
        out.seek(0)
        err.seek(0)
        return Run(out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"), server.returncode)


def submit(key: tuple, fn, *args, waits: bool = False) -> Future:
    """Run ``fn(*args)`` on the shared pool once per key; ``waits`` for a case that spends
    its time waiting rather than computing."""
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = (_WAIT_POOL if waits else _POOL).submit(fn, *args)
        return _CACHE[key]


def submit_all(jobs: dict[tuple, tuple], waits: bool = False) -> None:
    """Submit many jobs at once (key -> (fn, *args)) so they overlap."""
    for key, (fn, *args) in jobs.items():
        submit(key, fn, *args, waits=waits)


def read_bytes(path: Path) -> bytes:
    return path.read_bytes()


def selected_params(request, function: str, *names: str) -> list[tuple]:
    """The parameter tuples of every selected test item of ``function`` in this session,
    so a test can start all of its siblings' slow cases at once."""
    out = []
    for item in request.session.items:
        if getattr(item, "originalname", None) == function and hasattr(item, "callspec"):
            if item.path == request.node.path:
                out.append(tuple(item.callspec.params.get(n) for n in names))
    return out


def assert_usage_error(run: Run, message: str) -> None:
    """A bad command line or input: exit status 2 and exactly one error line naming it."""
    assert run.returncode == 2, run.stdout
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr
