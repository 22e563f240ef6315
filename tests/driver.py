"""Drivers that run the real ``gameroom`` command as separate processes, the way the
reference test drivers do: harnesses with JSON on stdin, and a server plus its clients
on a free TCP port of 127.0.0.1. Slow cases (sign-up periods, 6 s time-outs) are
submitted to a shared pool so they run concurrently; each test waits for its own case.
"""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

GAMEROOM = [sys.executable, "-m", "gameroom"]
# The budgets are for the whole run: under pytest-xdist every worker process imports this
# module and starts its own pools, so each takes its share. Without that, `-n 2` doubled
# the threads that start processes and the processes alive at once (up to ~350 Pythons).
_WORKERS = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))


def _share(variable: str, default: int) -> int:
    return max(2, int(os.environ.get(variable, str(default))) // _WORKERS)


_POOL = ThreadPoolExecutor(max_workers=_share("GAMEROOM_TEST_CONCURRENCY", 24))
# Cases that mostly wait (sign-up windows, time-outs) get their own workers, so they do not
# hold back the CPU-bound harness runs queued behind them.
_WAIT_POOL = ThreadPoolExecutor(max_workers=_share("GAMEROOM_TEST_WAITING", 64))
# One process start at a time per test process. subprocess starts children with vfork():
# the child borrows the calling thread's stack and the parent's memory until it execs,
# while the other threads of the parent run on. Dozens of threads doing that at once is
# where `OSError: [Errno 14] Bad address` came from under `-n 2` (the child's system call
# met memory that another thread had changed); a start takes milliseconds, so serialising
# only the start costs nothing, and the children still run concurrently.
_SPAWN_LOCK = threading.Lock()
_CACHE: dict[tuple, Future] = {}
_LOCK = threading.Lock()
_PORT_LOCK = threading.Lock()
_USED_PORTS: set[int] = set()


@dataclass
class Run:
    stdout: str
    stderr: str
    returncode: int


# Errors of a process start that say the machine was short of something for a moment
# (processes, memory, a page the starting child read) rather than that the command is wrong.
_TRANSIENT = {errno.EAGAIN, errno.ENOMEM, errno.EFAULT}


def _start(args: list[str], options: dict) -> subprocess.Popen:
    """Popen under _SPAWN_LOCK, trying a start that failed for a transient reason again."""
    for attempt in range(5):
        try:
            with _SPAWN_LOCK:
                return subprocess.Popen(args, **options)
        except OSError as error:
            if error.errno not in _TRANSIENT or attempt == 4:
                raise
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


def run_gameroom(args: Sequence[str], stdin: bytes, timeout: float = 300, cwd: Path | None = None) -> Run:
    proc = _start(GAMEROOM + list(args), dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              stderr=subprocess.PIPE, cwd=cwd))
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return Run(out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), proc.returncode)


def spawn(args: Sequence[str], **options) -> subprocess.Popen:
    """Start ``gameroom ARGS`` (one start at a time, see _SPAWN_LOCK)."""
    return _start(GAMEROOM + list(args), options)


def _port_range() -> list[int]:
    """The ports this test process may hand out: a slice of 10000-32767, below the kernel's
    ephemeral range (32768-60999 on Linux), one slice per pytest-xdist worker. A port bound
    to 0 and released comes from the ephemeral range, where any outgoing connection of the
    suite (or the other worker) may take it before the server binds it: that race gave
    "address already in use" on a loaded machine.

    The slice is walked from a point that depends on the test run (xdist's run id, shared
    by its workers, else this process): two suites on one machine (two checkouts) started
    at the same port of the same slice, so one's clients signed up at the other's server
    and both failed. A port is also probed free before it is handed out."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    size = (32768 - 10000) // _WORKERS
    low, high = 10000 + index * size, 10000 + (index + 1) * size
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or str(os.getpid())
    start = low + zlib.crc32(run.encode()) % (high - low)
    return [*range(start, high), *range(low, start)]


_PORTS = iter(())  # filled on first use


def free_port() -> int:
    """A port that is free now and not handed to another concurrent case."""
    global _PORTS
    with _PORT_LOCK:
        for _ in range(2):
            for port in _PORTS:
                if port in _USED_PORTS:
                    continue
                with socket.socket() as probe:
                    try:
                        probe.bind(("127.0.0.1", port))
                    except OSError:
                        continue
                _USED_PORTS.add(port)
                return port
            _PORTS = iter(_port_range())
        raise RuntimeError("no free port left in this test process's range")


def connected_from(address: str, port: int, timeout: float = 60) -> socket.socket:
    """A TCP connection to 127.0.0.1:``port`` from ``address`` (any 127.x.y.z is this
    machine: a server sees another client address, as its quotas per address need)."""
    sock = socket.socket()
    sock.bind((address, 0))
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    return sock


def run_server_and_clients(game: str, server_input: bytes, client_input: bytes,
                           client_flags: Sequence[str] = (), server_timeout: float = 200) -> Run:
    """Start ``gameroom serve GAME`` then ``gameroom clients GAME`` on one free port; the
    server's output once it exits; the clients are killed afterwards."""
    port = free_port()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        server = spawn(["serve", game, "--port", str(port)], stdin=subprocess.PIPE, stdout=out, stderr=err)
        server.stdin.write(server_input)
        server.stdin.close()
        clients = spawn(["clients", game, "--port", str(port), *client_flags],
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
