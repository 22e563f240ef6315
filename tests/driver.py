"""Drivers that run the real ``gameroom`` command as separate processes, the way the
reference test drivers do: harnesses with JSON on stdin, and a server plus its clients
on a free TCP port of 127.0.0.1. Slow cases (sign-up periods, 6 s time-outs) are
submitted to a shared pool so they run concurrently; each test waits for its own case.
"""

from __future__ import annotations

import errno
import os
import re
import signal
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
from typing import Callable, Sequence, TypeVar

# Test modules import this one as ``driver`` (tests/ is on sys.path) and as ``tests.driver``.
# Two module objects would mean two pools and two port walks from the same starting port:
# a port handed to one test's server before it bound could be handed to another's. One
# object under both names.
sys.modules.setdefault("tests.driver" if __name__ == "driver" else "driver", sys.modules[__name__])

GAMEROOM = [sys.executable, "-m", "gameroom"]
T = TypeVar("T")
# The budgets are for the whole run: under pytest-xdist every worker process imports this
# module and starts its own pools, so each takes its share. Without that, `-n 2` doubled
# the threads that start processes and the processes alive at once (up to ~350 Pythons).
_WORKERS = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))


def _share(variable: str, default: int) -> int:
    return max(2, int(os.environ.get(variable, str(default))) // _WORKERS)


# The harness runs are CPU-bound: more of them at once than a few per core finishes no
# sooner, and only adds load to the machine on which the other tests' servers and clients
# must answer within their time limits (24 at once made a load of 24 on two cores).
_POOL = ThreadPoolExecutor(max_workers=_share("GAMEROOM_TEST_CONCURRENCY", 4 * len(os.sched_getaffinity(0))))
# Cases that mostly wait (sign-up windows, time-outs) get their own workers, so they do not
# queue behind the CPU-bound harness runs.
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


def listening(port: int) -> bool:
    """Whether a socket listens on TCP ``port`` of this machine (``/proc/net/tcp``, state
    0A): a server is seen ready without a connection, which it would take for a sign-up."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as rows:
                next(rows, None)
                for row in rows:
                    fields = row.split()
                    if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        return True
        except OSError:
            continue
    return False


def wait_listening(process: subprocess.Popen, port: int, seconds: float = 300) -> bool:
    """Wait until ``process`` listens on ``port`` (however long a loaded machine takes to
    start it, up to ``seconds``); False when it ended first or never listened."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        if listening(port):
            return True
        time.sleep(0.02)
    return False


# The system call numbers of read(2), by machine: a process blocked in read on descriptor
# 0 is waiting for its standard input (``/proc/PID/syscall``).
_READ = {"x86_64": 0, "aarch64": 63, "riscv64": 63, "ppc64le": 3, "s390x": 3}


def wait_reading_stdin(process: subprocess.Popen, seconds: float = 300) -> None:
    """Wait until ``process`` is blocked reading its standard input, i.e. it has loaded
    everything it loads before it reads its input (up to ``seconds``; at once on a
    machine whose ``/proc/PID/syscall`` this does not know)."""
    number = _READ.get(os.uname().machine)
    deadline = time.monotonic() + seconds
    while number is not None and time.monotonic() < deadline and process.poll() is None:
        try:
            with open(f"/proc/{process.pid}/syscall") as syscall:
                fields = syscall.read().split()
        except OSError:
            return
        if fields and fields[0] == "running":
            fields = []
        if len(fields) > 1 and int(fields[0]) == number and int(fields[1], 16) == 0:
            return
        time.sleep(0.02)


# What a server says when the machine, not the program under test, decided a run: a call
# that outlived its time limit, or a sign-up period that closed before every client came.
DISTURBED = re.compile(r"dropped out on .*within the time limit|for \d+ player records|too few players signed up")


def until_undisturbed(run: Callable[[], T], expected: Callable[[T], bool], tries: int = 3,
                      log: Callable[[T], str] = lambda outcome: outcome.stderr) -> T:
    """``run()``, run again (``tries`` runs in all) while its outcome is not ``expected``
    and its server's log (``log(outcome)``) shows the machine disturbed it (:data:`DISTURBED`).

    For runs whose limits are the spec's own and cannot be made generous (a conformance
    fixture's 4 s per call, 20 s sign-up windows): on a loaded machine an honest client
    may miss one. A program that is wrong is wrong on every run and still fails; a run
    that is right is never repeated."""
    for _ in range(tries - 1):
        outcome = run()
        if expected(outcome) or not DISTURBED.search(log(outcome)):
            return outcome
    return run()


class WaitingClients:
    """``gameroom clients GAME`` started ahead of its server and left waiting for its input
    (loaded: blocked reading standard input); :meth:`go` hands it the input once the server
    listens.

    A sign-up period starts when the server listens, and the clients must sign up inside
    it at the spec's pace (2 s apart): the time a loaded machine takes to start a process
    (15 s and more was seen) must not count against it."""

    def __init__(self, game: str, port: int, *flags: str, **options) -> None:
        self.port = port
        self.process = spawn(["clients", game, "--port", str(port), *flags], stdin=subprocess.PIPE, **options)
        wait_reading_stdin(self.process)

    def go(self, server: subprocess.Popen, stdin: bytes = b"") -> subprocess.Popen:
        """Once ``server`` listens on the port (or has ended), the input; the process."""
        wait_listening(server, self.port)
        try:
            self.process.stdin.write(stdin)
            self.process.stdin.close()
        except BrokenPipeError:
            pass   # it ended already: its status and output say why
        self.process.stdin = None   # written and closed: communicate() must not flush it
        return self.process

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


def connected_from(address: str, port: int, timeout: float = 60) -> socket.socket:
    """A TCP connection to 127.0.0.1:``port`` from ``address`` (any 127.x.y.z is this
    machine: a server sees another client address, as its quotas per address need)."""
    sock = socket.socket()
    sock.bind((address, 0))
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    return sock


def read_to_end(sock: socket.socket) -> bytes:
    """What the peer sent until it closed the connection (reset: what was read before)."""
    got = b""
    while True:
        try:
            data = sock.recv(65536)
        except ConnectionResetError:
            return got
        if not data:
            return got
        got += data


def run_server_and_clients(game: str, server_input: bytes, client_input: bytes,
                           client_flags: Sequence[str] = (), server_timeout: float = 200,
                           expected: Callable[[Run], bool] | None = None) -> Run:
    """Start ``gameroom clients GAME`` (waiting for its input) and ``gameroom serve GAME``
    on one free port, the clients' input once the server listens (:class:`WaitingClients`);
    the server's output once it exits; the clients are killed afterwards. With
    ``expected``, a run the machine disturbed is run again (:func:`until_undisturbed`)."""
    if expected is not None:
        return until_undisturbed(lambda: run_server_and_clients(game, server_input, client_input, client_flags,
                                                                server_timeout), expected)
    port = free_port()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        clients = WaitingClients(game, port, *client_flags, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            server = spawn(["serve", game, "--port", str(port)], stdin=subprocess.PIPE, stdout=out, stderr=err)
            server.stdin.write(server_input)
            server.stdin.close()
            clients.go(server, client_input)
            try:
                server.wait(timeout=server_timeout)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        finally:
            clients.kill()
        out.seek(0)
        err.seek(0)
        return Run(out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"), server.returncode)


class Server:
    """``gameroom serve GAME ARGS`` on a free port, in a session of its own, its standard
    error read line by line as it comes (``lines``): a test waits for what the server says
    (``wait_for``) instead of a fixed time."""

    def __init__(self, game: str, stdin: bytes = b"", *flags: str, port: int | None = None) -> None:
        self.port = free_port() if port is None else port
        self.process = spawn(["serve", game, "--port", str(self.port), *flags], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        self.process.stdin.write(stdin)
        self.process.stdin.close()
        self.process.stdin = None
        self.lines: list[str] = []
        self._said = threading.Condition()
        self._ended = False
        # the reader alone reads standard error (communicate() reads standard output only)
        stderr, self.process.stderr = self.process.stderr, None
        self._reader = threading.Thread(target=self._read, args=(stderr,), daemon=True)
        self._reader.start()

    def _read(self, stderr) -> None:
        for raw in stderr:
            with self._said:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self._said.notify_all()
        with self._said:
            self._ended = True
            self._said.notify_all()

    def wait_for(self, pattern: str, timeout: float = 300) -> str:
        """The first line matching ``pattern`` (a regular expression), once the server said
        it; fails when the server ends (or ``timeout`` passes) without saying it."""
        found: list[str] = []

        def said() -> bool:
            found[:] = [line for line in self.lines if re.search(pattern, line)][:1]
            return bool(found) or self._ended

        with self._said:
            self._said.wait_for(said, timeout)
        if not found:
            raise AssertionError(f"the server never logged {pattern!r}: {self.lines[-10:]}")
        return found[0]

    def finish(self, timeout: float = 300) -> tuple[str, str]:
        """Its standard output and error once it ends by itself (killed after ``timeout``)."""
        try:
            out, _ = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            out, _ = self.process.communicate()
        self._reader.join(30)
        return out.decode("utf-8", "replace"), "\n".join(self.lines)

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)
        self._reader.join(30)


def submit(key: tuple, fn, *args, waits: bool = False) -> Future:
    """Run ``fn(*args)`` on the shared pool once per key; ``waits`` for a case that spends
    its time waiting rather than computing (a server, a client, a time-out), which must
    not queue behind the harness runs of the other pool.

    A test may submit its siblings' cases too (``selected_params``): the suite runs with
    ``--dist loadfile`` (pyproject.toml), so one pytest-xdist worker runs the whole module;
    every worker collects every test, and under plain ``load`` each worker started every
    case."""
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


def wait_catching_sigint(process: subprocess.Popen, seconds: float = 120.0) -> None:
    """Wait until the process's interpreter has put its SIGINT handler in place (the
    kernel's caught-signals mask), however long a busy machine takes to start it: an
    interrupt before that kills the process outright instead of testing the command."""
    bit = 1 << (signal.SIGINT - 1)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with open(f"/proc/{process.pid}/status") as status:
                caught = next(int(line.split()[1], 16) for line in status if line.startswith("SigCgt:"))
        except (OSError, StopIteration):
            caught = 0
        if caught & bit:
            return
        time.sleep(0.02)


def wait_loaded(process: subprocess.Popen, library: str, seconds: float = 120.0) -> None:
    """Wait until ``process`` has mapped a shared library whose path holds ``library``
    (``/proc/PID/maps``): it is then past the interpreter's own start (an interrupt during
    ``site`` is Python's fatal error, not the program's) and inside the program's imports."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with open(f"/proc/{process.pid}/maps") as maps:
                if any(library in line for line in maps):
                    return
        except OSError:
            pass
        time.sleep(0.01)
    raise AssertionError(f"the process never loaded {library!r}")


def assert_usage_error(run: Run, message: str) -> None:
    """A bad command line or input: exit status 2 and exactly one error line naming it."""
    assert run.returncode == 2, run.stdout
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr
