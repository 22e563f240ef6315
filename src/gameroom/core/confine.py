"""One untrusted process in its sandbox: started by the policy, its stderr tail kept, killed whole.

:class:`Confined` starts ``argv`` through the launcher (``core.launcher``), inside
bubblewrap (``core.bwrap``) or, in the fallback, in a session of its own (the modes are
described in ``core.sandbox``). It keeps the last :data:`STDERR_TAIL_BYTES` of the
process's standard error (read on a thread of its own, so a bot that floods it costs a
bounded buffer) and its exit status, and :meth:`Confined.describe` says both for an
ejection reason. :meth:`Confined.kill` ends everything the bot started:

* bubblewrap: SIGKILL to the sandbox's first process (PID 1 of its namespace), whose end
  makes the kernel kill every process in the namespace; bubblewrap itself then exits,
  and once it has been reaped nothing of the bot runs;
* fallback: SIGKILL to its process group, to every descendant found before that, to
  every process of its pids cgroup, and to any process still carrying the bot's tag in
  its environment (a double fork with ``setsid`` leaves the group but keeps the tag),
  repeated until none is left; then its temporary directory is removed.

In the fallback the kernel exempts root from the process limit (``RLIMIT_NPROC`` never
applies to user id 0, even in a user namespace of its own), so when gameroom runs as
root each bot also gets a pids cgroup of its own (``pids.max``, cgroup v1 or v2, where
the hierarchy is writable): the limit holds and the sweep sees every process in it.

When gameroom runs as root, every bubblewrapped bot gets a user and group id of its own
(:data:`UID_BASE` + the starting process's id x 64 + a counter), so its process limit
counts its processes alone and it owns no file of the host.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Sequence

from gameroom.core import bwrap
from gameroom.core.sandbox import ResourceLimits, SandboxPolicy, describe_exit, user_processes

__all__ = ["Confined", "STDERR_TAIL_BYTES", "SANDBOX_PORT", "UID_BASE", "tagged_processes", "pids_cgroup",
           "fallback_bounds_processes"]

STDERR_TAIL_BYTES = 2048
SANDBOX_PORT = 7001          # the game port inside a bot's own network namespace
UID_BASE = 0x5000_0000       # below 2**31: user namespaces refuse larger ids
TAG = "GAMEROOM_SANDBOX_TAG"
_PASSED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")   # the host environment a bubblewrapped bot sees

_counter = itertools.count()
_counter_lock = threading.Lock()


def _own_ids() -> int:
    with _counter_lock:
        serial = next(_counter) % 64
    return UID_BASE + (os.getpid() % (1 << 22)) * 64 + serial


class _Tail:
    """The last ``size`` bytes of a pipe, read to its end on a daemon thread."""

    def __init__(self, stream: object, size: int) -> None:
        self.size = size
        self.data = bytearray()
        self._fd = stream.fileno()  # type: ignore[attr-defined]
        self._stream = stream
        self._thread = threading.Thread(target=self._read, daemon=True, name="bot-stderr")
        self._thread.start()

    def _read(self) -> None:
        try:
            while True:
                chunk = os.read(self._fd, 65536)
                if not chunk:
                    return
                self.data += chunk
                if len(self.data) > self.size:
                    del self.data[:-self.size]
        except OSError:
            return

    def wait(self, seconds: float) -> None:
        self._thread.join(seconds)

    def text(self) -> str:
        """The tail as one line: undecodable bytes and control characters replaced, lines
        joined by `` | ``."""
        text = bytes(self.data).decode("utf-8", "replace")
        lines = ["".join(c if c.isprintable() else "\ufffd" for c in line).strip() for line in text.splitlines()]
        return " | ".join(line for line in lines if line)

    def close(self) -> None:
        if not self._thread.is_alive():
            self._stream.close()  # type: ignore[attr-defined]


def tagged_processes(tag: str) -> list[int]:
    """Live processes whose environment carries ``GAMEROOM_SANDBOX_TAG=tag``."""
    needle = f"{TAG}={tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as environ:
                    if needle in environ.read().split(b"\0"):
                        found.append(int(entry))
            except OSError:
                continue
    return found


@functools.lru_cache(maxsize=1)
def _pids_hierarchy() -> str | None:
    """Where a pids cgroup can be made: the cgroup v1 ``pids`` mount, else a cgroup v2
    mount whose root offers the pids controller to its children; None elsewhere."""
    try:
        with open("/proc/self/mountinfo") as mounts:
            lines = mounts.read().splitlines()
    except OSError:
        return None
    found = []
    for line in lines:
        fields = line.split(" - ")
        if len(fields) != 2:
            continue
        mount_point, (kind, _source, options) = fields[0].split()[4], fields[1].split()[:3]
        if kind == "cgroup" and "pids" in options.split(","):
            found.insert(0, mount_point)
        elif kind == "cgroup2" and os.path.exists(os.path.join(mount_point, "cgroup.subtree_control")):
            try:
                with open(os.path.join(mount_point, "cgroup.subtree_control")) as control:
                    if "pids" in control.read().split():
                        found.append(mount_point)
            except OSError:
                continue
    return found[0] if found else None


def pids_cgroup(name: str, limit: int) -> str | None:
    """A new pids cgroup holding at most ``limit`` processes (as root, where one can be
    made); its path, or None."""
    root = _pids_hierarchy() if os.geteuid() == 0 else None
    if root is None:
        return None
    path = os.path.join(root, name)
    try:
        os.mkdir(path)
        with open(os.path.join(path, "pids.max"), "w") as limit_file:
            limit_file.write(str(limit))
        return path
    except OSError:
        _remove_cgroup(path)
        return None


def _cgroup_members(path: str) -> list[int]:
    try:
        with open(os.path.join(path, "cgroup.procs")) as procs:
            return [int(pid) for pid in procs.read().split()]
    except (OSError, ValueError):
        return []


def _remove_cgroup(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass


def fallback_bounds_processes() -> bool:
    """Whether the fallback holds a bot to its process limit here: always for a user
    other than root; for root, only with a pids cgroup."""
    return os.geteuid() != 0 or _pids_hierarchy() is not None


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (by parent links, read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _kill(pids: Sequence[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class Confined:
    """``argv`` (``argv[0]`` looked up on the PATH) running in the sandbox ``policy`` (a
    resolved one: ``bwrap`` or ``rlimits``) with ``limits``; ``env`` is added to its
    environment. ``listen``: the program's game port; with a network namespace of its own
    the launcher listens there inside and :meth:`receive_listener` gets the socket.
    ``keep``: descriptors the process inherits. Raises FileNotFoundError when the
    program is not found, OSError when it cannot be started."""

    def __init__(self, argv: Sequence[str], policy: SandboxPolicy, limits: ResourceLimits, env: dict[str, str],
                 listen: int | None = None, keep: Sequence[int] = ()) -> None:
        if policy.mode not in ("bwrap", "rlimits"):
            raise ValueError(f"resolve the sandbox policy first (mode {policy.mode!r})")
        found = shutil.which(argv[0]) if "/" not in argv[0] else (argv[0] if os.path.exists(argv[0]) else None)
        if found is None:
            raise FileNotFoundError(f"{argv[0]!r} is not found{' on the PATH' if '/' not in argv[0] else ''}")
        self.argv = [os.path.abspath(found), *argv[1:]]
        self.policy, self.limits = policy, limits
        self.wrapped = policy.mode == "bwrap"
        self.tag = f"{os.getpid()}-{time.monotonic_ns()}"
        self.temporary: str | None = None
        self.cgroup: str | None = None
        self._ctl: socket.socket | None = None
        self._killed_running = False
        self._dead = False
        root = os.geteuid() == 0
        spec: dict[str, object] = {"keep": list(keep), "nice": policy.nice}
        pass_fds = list(keep)
        cwd = os.getcwd()
        if self.wrapped:
            spec["limits"] = limits.rlimits(limits.processes + (0 if root else 1))   # + bubblewrap's PID 1
            if root:
                spec["uid"] = _own_ids()
            prefix = bwrap.command([*bwrap.command_paths(self.argv, cwd, policy.read), *bwrap.python_paths()],
                                   cwd, policy.tmp_mb * 1024 * 1024, policy.network, root)
            environment = {key: os.environ[key] for key in _PASSED if key in os.environ}
            environment.update({"HOME": "/tmp", "TMPDIR": "/tmp", **env})
            if listen is not None and not policy.network:
                parent_end, child_end = socket.socketpair()
                self._ctl = parent_end
                spec.update({"listen": listen, "ctl": child_end.fileno()})
                pass_fds.append(child_end.fileno())
        else:
            spec["limits"] = limits.rlimits(limits.processes)
            spec.update({"userns": True, "nproc_shared": user_processes() + limits.processes})
            self.cgroup = pids_cgroup(f"gameroom-bot-{self.tag}", limits.processes)
            if self.cgroup is not None:
                spec["cgroup"] = self.cgroup
            self.temporary = tempfile.mkdtemp(prefix="gameroom-bot-")
            prefix = []
            environment = {**os.environ, "TMPDIR": self.temporary, TAG: self.tag, **env}
        command = [*prefix, os.path.realpath(sys.executable), "-I", "-S", bwrap.launcher_path(), json.dumps(spec),
                   "--", *self.argv]
        try:
            self.process = subprocess.Popen(command, env=environment, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                            start_new_session=True, pass_fds=pass_fds)
        except BaseException:
            self._cleanup()
            raise
        finally:
            if self._ctl is not None:
                child_end.close()
        assert self.process.stderr is not None
        self._tail = _Tail(self.process.stderr, STDERR_TAIL_BYTES)

    @property
    def pid(self) -> int:
        return self.process.pid

    def receive_listener(self, seconds: float) -> socket.socket | None:
        """The listening socket the launcher made in the bot's network namespace (None
        when it did not come within ``seconds``: the bot could not start)."""
        if self._ctl is None:
            return None
        self._ctl.settimeout(seconds)
        try:
            _message, fds, _flags, _address = socket.recv_fds(self._ctl, 64, 1)
        except OSError:
            return None
        finally:
            self._ctl.close()
            self._ctl = None
        return socket.socket(fileno=fds[0]) if fds else None

    def exit_status(self) -> int | None:
        return self.process.poll()

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the process to end by itself; True when it has."""
        try:
            self.process.wait(seconds)
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill(self) -> None:
        """End the bot and everything it started, reap it, free its resources (idempotent)."""
        if self._dead:
            return
        self._dead = True
        if self.process.poll() is None:
            self._killed_running = True
        if self.wrapped:
            self._kill_namespace()
        else:
            self._kill_sweep()
        self._tail.wait(1.0)
        self._tail.close()
        self._cleanup()

    def _kill_namespace(self) -> None:
        pid = self.process.pid
        try:   # bubblewrap's child is PID 1 of the bot's namespace: its end ends them all
            with open(f"/proc/{pid}/task/{pid}/children") as children:
                _kill([int(child) for child in children.read().split()])
        except (OSError, ValueError):
            pass
        if not self.wait(5.0):
            _kill([pid])
            self.wait(5.0)

    def _kill_sweep(self) -> None:
        pid = self.process.pid
        below = _descendants(pid)
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        _kill([pid, *below])
        self.wait(5.0)
        for _ in range(200):   # what it forked may still be forking: until none is left
            left = [p for p in tagged_processes(self.tag) if p != os.getpid()]
            if self.cgroup is not None:
                left += _cgroup_members(self.cgroup)
            if not left:
                break
            _kill(left)
            time.sleep(0.01)

    def _cleanup(self) -> None:
        if self._ctl is not None:
            self._ctl.close()
            self._ctl = None
        if self.temporary is not None:
            shutil.rmtree(self.temporary, ignore_errors=True)
            self.temporary = None
        if self.cgroup is not None:
            _remove_cgroup(self.cgroup)
            self.cgroup = None

    def stderr_tail(self) -> str:
        return self._tail.text()

    def ending(self) -> str:
        """How the process ended: ``exited with status 1``, ``killed by SIGXCPU (its CPU
        limit of 120 s)``, or ``killed by the league while still running``."""
        if self._killed_running:
            return "killed by the league while still running"
        return describe_exit(self.process.poll(), self.limits, wrapped=self.wrapped)

    def stderr_note(self) -> str:
        """``; stderr: <tail>`` (or ``; no stderr``) to follow a reason."""
        tail = self.stderr_tail()
        return f"; stderr: {tail}" if tail else "; no stderr"

    def describe(self) -> str:
        """How the process ended and its stderr tail, e.g. ``exited with status 1;
        stderr: Traceback ... | ZeroDivisionError: division by zero``."""
        return self.ending() + self.stderr_note()
