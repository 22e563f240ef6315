"""One untrusted process in its sandbox: started by the policy, its stderr tail kept, killed whole.

:class:`Confined` starts ``argv`` in the sandbox of a resolved ``core.sandbox``
policy, three ways:

* bubblewrap as root (the usual case): bubblewrap (``core.bwrap``) keeps only
  CAP_SETUID/CAP_SETGID, and ``setpriv`` (util-linux) drops to the bot's own user and
  group before the bot runs. Bubblewrap reports its first process and waits
  (``--info-fd``, ``--block-fd``) while the league sets that process's limits and
  priority and, for the game port, makes the listening socket inside the bot's network
  namespace (``core.netns``); then it lets it go on;
* bubblewrap as another user: the launcher (``core.launcher``, a Python script) listens
  inside and hands the socket over, then becomes the bot;
* the fallback: the program itself, in a session of its own, as root in a pids cgroup of
  its own (``core.sweep``), in a user namespace of its own where allowed, with a
  temporary directory removed afterwards.

Resource limits and the lower priority are set before any of the bot's code runs: as
root on bubblewrap's held first process (``prlimit``, ``setpriority``: the spawn needs no
``preexec_fn``, so it does not fork the whole worker), on the launcher's way by the
launcher, in the fallback between fork and exec. The last :data:`STDERR_TAIL_BYTES` of the process's standard error are kept
(read on a thread of its own, so a bot that floods it costs a bounded buffer) and
:meth:`Confined.describe` says how it ended, for an ejection reason. :meth:`Confined.kill`
ends everything the bot started:

* bubblewrap: SIGKILL to the sandbox's first process (PID 1 of its namespace), whose end
  makes the kernel kill every process in the namespace; bubblewrap itself then exits,
  and once it has been reaped nothing of the bot runs;
* fallback: SIGKILL to its process group, to every descendant found before that, to
  every process of its pids cgroup, and to any process still carrying the bot's tag in
  its environment, repeated until none is left; then its temporary directory goes.

For a benchmark, :func:`account` names two CPU-accounting groups (``core.cpuacct``): a
root-started bubblewrapped sandbox joins the first when bubblewrap lets it go (its
namespaces and mounts are made by then and stay the platform's), and
:meth:`Confined.signed_up` moves it to the second, so a bot's start (its own user, its
interpreter, its imports, up to its sign-up) and its play are counted apart from
everything else.

When gameroom runs as root, every bubblewrapped bot gets a user and group id of its own
(:data:`UID_BASE` + the starting process's id x 64 + a counter), so its process limit
counts its processes alone and it owns no file of the host.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import itertools
import json
import os
import resource
import select
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Callable, Sequence

from gameroom.core import bwrap
from gameroom.core.cpuacct import CpuGroup, descendants, move
from gameroom.core.sandbox import ResourceLimits, SandboxPolicy, describe_exit, user_processes
from gameroom.core.sweep import TAG, cgroup_members, kill_all, pids_cgroup, related, remove_cgroup

__all__ = ["Confined", "STDERR_TAIL_BYTES", "SANDBOX_PORT", "UID_BASE", "account"]

STDERR_TAIL_BYTES = 2048
SANDBOX_PORT = 7001          # the game port inside a bot's own network namespace
HOLD_SECONDS = 15.0          # for bubblewrap to report the sandbox's first process
UID_BASE = 0x5000_0000       # below 2**31: user namespaces refuse larger ids
CLONE_NEWUSER = 0x10000000
_PASSED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")   # the host environment a bubblewrapped bot sees
_RLIMITS = {"cpu": resource.RLIMIT_CPU, "as": resource.RLIMIT_AS, "nproc": resource.RLIMIT_NPROC,
            "fsize": resource.RLIMIT_FSIZE, "core": resource.RLIMIT_CORE}

_accounting: tuple[CpuGroup, CpuGroup] | None = None


def account(starting: CpuGroup | None, playing: CpuGroup | None) -> None:
    """Count the CPU of this process's sandboxes in ``starting`` until their bot signs up,
    then in ``playing`` (a benchmark's measure; None, None: stop)."""
    global _accounting
    _accounting = (starting, playing) if starting is not None and playing is not None else None


def _blocked(pid: int, fd: int, seconds: float) -> None:
    """Wait (up to ``seconds``) until process ``pid`` waits on reading ``fd``: bubblewrap has
    made the sandbox and waits to be let go."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/syscall") as syscall:
                fields = syscall.read().split()
        except OSError:
            return
        if len(fields) > 1 and fields[0] != "running" and int(fields[1], 16) == fd:
            return
        time.sleep(0.0005)


_counter = itertools.count()
_counter_lock = threading.Lock()


def _own_ids() -> int:
    with _counter_lock:
        serial = next(_counter) % 64
    return UID_BASE + (os.getpid() % (1 << 22)) * 64 + serial


def _unshare() -> Callable[[int], int] | None:
    """libc's unshare, looked up here: between fork and exec nothing may take the loader's lock."""
    try:
        return ctypes.CDLL(None, use_errno=True).unshare
    except (OSError, AttributeError):
        return None


def _user_namespaces() -> bool:
    """Whether this system lets a process make a user namespace of its own."""
    try:
        with open("/proc/sys/user/max_user_namespaces") as allowed:
            return int(allowed.read()) > 0
    except (OSError, ValueError):
        return False


def _preexec(limits: dict[str, int], nice: int, cgroup: str | None = None, own_users: bool = False,
             shared_nproc: int | None = None) -> Callable[[], None]:
    """What runs between fork and exec: join the pids cgroup, leave for a user namespace of
    its own (a bot started by root then keeps no capability outside it, so it cannot lift
    its limits), lower the priority, set the limits."""
    unshare = _unshare() if own_users else None

    def apply() -> None:
        if cgroup is not None:
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as procs:
                procs.write(str(os.getpid()))
        values = dict(limits)
        if own_users and (unshare is None or unshare(CLONE_NEWUSER) != 0) and shared_nproc is not None:
            values["nproc"] = shared_nproc
        if nice:
            os.nice(nice)
        for name, value in values.items():
            resource.setrlimit(_RLIMITS[name], (value, value + 1 if name == "cpu" else value))

    return apply


class _Readers:
    """One daemon thread reading the standard error of every sandboxed process of this
    process (a thread per process cost its start and its wake-ups on every bot of every
    game). Tails are handed over through a list and a wake-up pipe, so only the thread
    touches its selector."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[_Tail] = []
        self._thread: threading.Thread | None = None
        self._wake_read, self._wake_write = -1, -1

    def add(self, tail: "_Tail") -> None:
        with self._lock:
            if self._thread is None:
                self._wake_read, self._wake_write = os.pipe()
                os.set_blocking(self._wake_read, False)
                self._thread = threading.Thread(target=self._run, args=(self._wake_read,), daemon=True,
                                                name="bot-stderr")
                self._thread.start()
            self._pending.append(tail)
            os.write(self._wake_write, b"x")

    def forget(self) -> None:
        """In a forked child: the parent's thread is not here (a new one starts on demand)."""
        self._lock = threading.Lock()
        self._pending, self._thread = [], None

    def _run(self, wake: int) -> None:
        selector = selectors.DefaultSelector()
        selector.register(wake, selectors.EVENT_READ, None)
        while True:
            for key, _events in selector.select():
                tail = key.data
                if tail is None:
                    try:
                        os.read(wake, 4096)
                    except BlockingIOError:
                        pass
                    with self._lock:
                        added, self._pending = self._pending, []
                    for new in added:
                        try:
                            selector.register(new.fd, selectors.EVENT_READ, new)
                        except (OSError, ValueError):   # closed before it got here: nothing to read
                            new.finish()
                elif not tail.read_once():
                    selector.unregister(tail.fd)
                    tail.finish()


_readers = _Readers()
os.register_at_fork(after_in_child=_readers.forget)

_netns: concurrent.futures.ThreadPoolExecutor | None = None
_netns_lock = threading.Lock()


def _netns_thread() -> concurrent.futures.ThreadPoolExecutor:
    """The thread that makes game sockets inside bots' network namespaces: a namespace is
    the thread's, so it is a thread that does nothing else (made once: a thread per bot
    cost its start every game)."""
    global _netns
    with _netns_lock:
        if _netns is None:
            _netns = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="bot-netns")
        return _netns


def _forget_netns() -> None:
    global _netns, _netns_lock
    _netns, _netns_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_netns)


class _Tail:
    """The last ``size`` bytes of a pipe, read to its end by the process's reader thread."""

    def __init__(self, stream: object, size: int) -> None:
        self.size = size
        self.data = bytearray()
        self.total = 0   # bytes read, kept or not
        self.fd = stream.fileno()  # type: ignore[attr-defined]
        self._stream = stream
        self._ended = threading.Event()
        _readers.add(self)

    def read_once(self) -> bool:
        """Read what the pipe has (it is readable); False at its end."""
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:
            return False
        if not chunk:
            return False
        self.total += len(chunk)
        self.data += chunk
        if len(self.data) > self.size:
            del self.data[:-self.size]
        return True

    def finish(self) -> None:
        """At its end (every process holding it has ended): nothing else reads it."""
        self._stream.close()  # type: ignore[attr-defined]
        self._ended.set()

    def wait(self, seconds: float) -> bool:
        return self._ended.wait(seconds)

    def lines(self) -> str:
        """The tail as lines (a build log): undecodable bytes and control characters
        replaced, a note first when earlier bytes were not kept."""
        text = bytes(self.data).decode("utf-8", "replace")
        lines = ["".join(c if c.isprintable() or c == "\t" else "\ufffd" for c in line).rstrip()
                 for line in text.splitlines()]
        cut = self.total - len(self.data)
        note = [f"[{cut} earlier bytes not kept]"] if cut > 0 else []
        return "\n".join(note + lines).strip("\n")

    def text(self) -> str:
        """The tail as one line: undecodable bytes and control characters replaced, lines
        joined by `` | ``."""
        text = bytes(self.data).decode("utf-8", "replace")
        lines = ["".join(c if c.isprintable() else "\ufffd" for c in line).strip() for line in text.splitlines()]
        return " | ".join(line for line in lines if line)


class Confined:
    """``argv`` (``argv[0]`` looked up on the PATH) running in the sandbox ``policy`` (a
    resolved one: ``bwrap`` or ``rlimits``) with ``limits``; ``env`` is added to its
    environment. ``listen``: the program's game port; with a network namespace of its own
    :meth:`receive_listener` gives the socket listening there. ``keep``: descriptors the
    process inherits; ``read``: more host paths a bubblewrapped process may read;
    ``output_bytes``: the tail kept; ``stdout_too``: its standard output goes to the same
    tail (a build's output). Raises FileNotFoundError when the program is not found,
    OSError when it cannot be started."""

    def __init__(self, argv: Sequence[str], policy: SandboxPolicy, limits: ResourceLimits, env: dict[str, str],
                 listen: int | None = None, keep: Sequence[int] = (), read: Sequence[str] = (),
                 output_bytes: int = STDERR_TAIL_BYTES, stdout_too: bool = False) -> None:
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
        self._ctl: socket.socket | None = None       # the launcher's hand-over
        self._info: int | None = None                # bubblewrap's report (as root)
        self._release: int | None = None             # bubblewrap waits until this is written
        self._block: int | None = None               # that pipe's number in bubblewrap
        self._first: int | None = None               # the sandbox's first process (as root)
        self._port = listen if self.wrapped and not policy.network else None
        self._killed_running = False
        self._dead = False
        own: list[int] = []                          # descriptors for the child only
        try:
            command, environment, preexec = self._command(env, list(keep), read, own)
            self.process = subprocess.Popen(command, env=environment, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.PIPE if stdout_too else subprocess.DEVNULL,
                                            stderr=subprocess.STDOUT if stdout_too else subprocess.PIPE,
                                            start_new_session=True, pass_fds=[*keep, *own], preexec_fn=preexec)
        except BaseException:
            self._cleanup()
            raise
        finally:
            for fd in own:
                os.close(fd)
        stream = self.process.stdout if stdout_too else self.process.stderr
        assert stream is not None
        self._tail = _Tail(stream, output_bytes)
        if self._info is not None:
            self._hold()

    def _hold(self) -> None:
        """Bubblewrap as root reports its first process and waits: set that process's
        limits and priority (everything the bot runs inherits them, and none of its code
        has run yet), then let it go on unless the game socket is still to be made in its
        namespace (:meth:`receive_listener`). OSError when the sandbox did not start."""
        pid = self._first_process(HOLD_SECONDS)
        try:
            if pid is None:
                raise OSError(f"the sandbox did not start: {self._status_note()}")
            for name, value in self.limits.rlimits(self.limits.processes).items():
                resource.prlimit(pid, _RLIMITS[name], (value, value + 1 if name == "cpu" else value))
            if self.policy.nice:
                os.setpriority(os.PRIO_PROCESS, pid, min(19, os.getpriority(os.PRIO_PROCESS, 0) + self.policy.nice))
        except BaseException:
            self.kill()
            raise
        self._first = pid
        if self._port is None:
            self._let_go()

    def _status_note(self) -> str:
        self.wait(1.0)
        self._tail.wait(1.0)
        return self.describe()

    def _command(self, env: dict[str, str], keep: list[int], read: Sequence[str], own: list[int]
                 ) -> tuple[list[str], dict[str, str], Callable[[], None] | None]:
        policy, limits = self.policy, self.limits
        if not self.wrapped:
            self.cgroup = pids_cgroup(f"gameroom-bot-{self.tag}", limits.processes)
            self.temporary = tempfile.mkdtemp(prefix="gameroom-bot-")
            shared = None if _user_namespaces() else user_processes() + limits.processes
            preexec = _preexec(limits.rlimits(limits.processes), policy.nice, self.cgroup, True, shared)
            return self.argv, {**os.environ, "TMPDIR": self.temporary, TAG: self.tag, **env}, preexec
        root = os.geteuid() == 0
        setpriv = shutil.which("setpriv") if root else None
        cwd = os.getcwd()
        paths = [*bwrap.command_paths(self.argv, cwd, policy.read), *read]
        environment = {key: os.environ[key] for key in _PASSED if key in os.environ}
        environment.update({"HOME": "/tmp", "TMPDIR": "/tmp", **env})
        if setpriv is not None:   # root: setpriv drops to the bot's user; bubblewrap waits to be let go
            prefix = bwrap.command(paths, cwd, policy.tmp_mb * 1024 * 1024, policy.network, True)
            info_read, info_write = os.pipe()
            block_read, block_write = os.pipe()
            self._info, self._release, self._block = info_read, block_write, block_read
            own += [info_write, block_read]
            prefix[-1:] = ["--info-fd", str(info_write), "--block-fd", str(block_read), "--"]
            ids = _own_ids()
            prefix += [setpriv, f"--reuid={ids}", f"--regid={ids}", "--clear-groups", "--inh-caps=-all", "--"]
            # no preexec_fn: the limits go on the sandbox's first process while bubblewrap
            # holds it (see _hold), so the spawn needs no fork of this whole process
            return [*prefix, *self.argv], environment, None
        spec: dict[str, Any] = {"keep": keep, "nice": policy.nice,
                                "limits": limits.rlimits(limits.processes + (0 if root else 1))}  # + its PID 1
        if root:
            spec["uid"] = _own_ids()
        if self._port is not None:
            parent_end, child_end = socket.socketpair()
            self._ctl = parent_end
            own.append(child_end.detach())
            spec.update({"listen": self._port, "ctl": own[-1]})
        prefix = bwrap.command([*paths, *bwrap.python_paths()], cwd, policy.tmp_mb * 1024 * 1024, policy.network,
                               root)
        launcher = [os.path.realpath(sys.executable), "-I", "-S", bwrap.launcher_path(), json.dumps(spec), "--"]
        return [*prefix, *launcher, *self.argv], environment, None

    @property
    def pid(self) -> int:
        return self.process.pid

    def _let_go(self) -> None:
        if self._release is not None and self._first is not None and _accounting is not None:
            _blocked(self._first, self._block or 0, 2.0)   # bench only: a late start merely counts as setup
            move([self._first], _accounting[0])
        if self._release is not None:
            try:
                os.write(self._release, b"x")
            except OSError:
                pass
            os.close(self._release)
            self._release = None
        if self._info is not None:
            os.close(self._info)
            self._info = None

    def _first_process(self, seconds: float) -> int | None:
        """The host pid of the sandbox's first process, from bubblewrap's report."""
        assert self._info is not None
        deadline, text = time.monotonic() + seconds, b""
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._info], [], [], left)[0]:
                return None
            chunk = os.read(self._info, 4096)
            if not chunk:
                return None
            text += chunk
            try:
                return int(json.loads(text)["child-pid"])
            except (ValueError, KeyError, TypeError):
                continue

    def receive_listener(self, seconds: float) -> socket.socket | None:
        """The socket listening on the game port in the bot's network namespace (None when
        it could not be made within ``seconds``: the bot could not start)."""
        if self._release is not None or self._first is not None:
            try:
                pid = self._first
                if pid is None or self._port is None:
                    return None
                from gameroom.core.netns import listen_inside

                try:
                    return _netns_thread().submit(listen_inside, pid, self._port).result()
                except OSError:
                    return None
            finally:
                self._let_go()
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

    def signed_up(self) -> None:
        """The bot has signed up: under :func:`account`, its sandbox's CPU counts as play
        from now on."""
        if _accounting is not None and self._first is not None:
            move(descendants(self._first), _accounting[1])

    def exit_status(self) -> int | None:
        return self.process.poll()

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the process to end by itself; True when it has. The
        kernel says when (a pidfd): ``Popen.wait`` with a time-out polls, waking up to
        twenty times while a sandbox ends."""
        if self.process.poll() is not None:
            return True
        try:
            fd = os.pidfd_open(self.process.pid)
        except OSError:   # reaped meanwhile by another thread's poll
            return self.process.poll() is not None
        try:
            waiting = select.poll()
            waiting.register(fd, select.POLLIN)
            ended = bool(waiting.poll(max(0.0, seconds) * 1000))
        finally:
            os.close(fd)
        if ended:
            self.process.wait()   # it has ended: reaps it at once
        return ended

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
        self._cleanup()

    def _kill_namespace(self) -> None:
        pid = self.process.pid
        try:   # bubblewrap's child is PID 1 of the bot's namespace: its end ends them all
            with open(f"/proc/{pid}/task/{pid}/children") as children:
                kill_all([int(child) for child in children.read().split()])
        except (OSError, ValueError):
            pass
        if not self.wait(5.0):
            kill_all([pid])
            self.wait(5.0)

    def _kill_sweep(self) -> None:
        pid = self.process.pid
        below = related(pid, self.tag)   # before the kill, while parent links still lead from it
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        kill_all([pid, *below])
        self.wait(5.0)
        for _ in range(200):   # what it forked may still be forking: until none is left
            left = related(pid, self.tag) - {os.getpid()}
            if self.cgroup is not None:
                left.update(cgroup_members(self.cgroup))
            if not left:
                break
            kill_all(sorted(left))
            time.sleep(0.01)

    def _cleanup(self) -> None:
        self._let_go()
        if self._ctl is not None:
            self._ctl.close()
            self._ctl = None
        if self.temporary is not None:
            shutil.rmtree(self.temporary, ignore_errors=True)
            self.temporary = None
        if self.cgroup is not None:
            remove_cgroup(self.cgroup)
            self.cgroup = None

    def stderr_tail(self) -> str:
        return self._tail.text()

    def output(self, seconds: float) -> str:
        """The whole kept tail as lines, once its pipe has ended (the process and all it
        started are gone), waiting up to ``seconds`` for the reader to take what is still
        in the pipe: read at once, a process's last lines could still be on their way."""
        self._tail.wait(seconds)
        return self._tail.lines()

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
