"""Running an untrusted in-process player in a child process that can be killed.

Python threads cannot be stopped, so a player that spins the CPU forever would slow every
other game in the process. :class:`IsolatedCaller` keeps such a player in its own process:
each call crosses a pipe, and a call that overruns its limit gets the process killed.

Two ways to make that process:

* without a sandbox policy, a ``multiprocessing`` spawn child that leads a process group
  of its own and sets its resource limits (``core.sandbox.ResourceLimits``: CPU seconds,
  memory, processes, file size) *before* it unpickles the player's factory; killing the
  group kills whatever the player forked (unless it left the group);
* with a policy (a league's Python bots), the child is started like a program bot
  (``core.confine``): inside bubblewrap it has its own PID namespace (nothing it forks
  outlives it, ``setsid`` or not), no network at all, a read-only view of the files
  Python imports from and a private ``/tmp``, and its own user when gameroom runs as
  root; the fallback is the process group, limits and sweep. The factory crosses the
  pipe once the limits are set, and the tail of the child's stderr joins the reason when
  it dies.

When a call fails in any way (time-out, exception, a limit reached, the process dead) or
the caller is closed, the child and everything it started are killed, so a referee that
ejected the player never pays for it again.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import select
import socket
import struct
import sys
import traceback
from typing import Any, Callable, Sequence

from gameroom.core.calls import CallFailed, on_threads
from gameroom.core.record import FailureKind
from gameroom.core.sandbox import (ResourceLimits, SandboxPolicy, apply_limits, describe_exit, kill_group,
                                   user_processes)

__all__ = ["IsolatedCaller", "ResourceLimits", "serve_sandboxed"]


def _serve(conn: multiprocessing.connection.Connection, make: Callable[[], Any]) -> None:
    """The child's side: make the player, then answer calls until told to stop."""
    try:
        player = make()
    except BaseException as exc:   # noqa: BLE001 -- reported to the parent, which ejects the player
        conn.send((False, f"could not be created: {type(exc).__name__}: {exc}"))
        return
    conn.send((True, None))
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        method, args = request
        try:
            conn.send((True, getattr(player, method)(*args)))
        except BaseException as exc:   # noqa: BLE001 -- reported to the parent as the call's failure
            detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            try:
                conn.send((False, f"raised {detail}"))
            except Exception:   # noqa: BLE001 -- the traceback goes to the parent instead
                conn.send((False, f"raised an unpicklable exception\n{traceback.format_exc()}"))


def _child(pickled_factory: bytes, conn: multiprocessing.connection.Connection,
           limits: ResourceLimits | None, processes: int) -> None:
    os.setpgid(0, 0)   # a group of its own: killing it kills whatever the player forks
    if limits is not None:
        apply_limits(limits, processes)
    _serve(conn, lambda: pickle.loads(pickled_factory)())


def serve_sandboxed() -> None:
    """The sandboxed child's main (``python -c``): its pipe is the descriptor in argv[1];
    the factory is the first message (its limits are already set by the launcher)."""
    conn = multiprocessing.connection.Connection(int(sys.argv[1]))
    _serve(conn, lambda: pickle.loads(conn.recv_bytes())())


class _Spawned:
    """The player's process as a ``multiprocessing`` spawn child leading its own group."""

    def __init__(self, factory: Callable[[], Any], limits: ResourceLimits | None) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child_end = context.Pipe()
        processes = user_processes() + limits.processes if limits is not None else 0
        self.process = context.Process(target=_child, args=(pickle.dumps(factory), child_end, limits, processes),
                                       daemon=True, name="isolated-player")
        self.process.start()
        child_end.close()
        self.limits = limits

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.is_alive()

    def ending(self) -> str | None:
        self.process.join(1)
        code = self.process.exitcode
        return describe_exit(code, self.limits) if code is not None else None

    def stop(self, seconds: float) -> None:
        self.process.join(seconds)

    def kill(self) -> None:
        if self.process.pid is not None:
            kill_group(self.process.pid)
        self.process.join(5)


class _Sandboxed:
    """The player's process started in a sandbox (``core.confine``)."""

    def __init__(self, factory: Callable[[], Any], limits: ResourceLimits, policy: SandboxPolicy,
                 read: Sequence[str] = ()) -> None:
        from gameroom.core.bwrap import python_paths
        from gameroom.core.confine import Confined

        ours, theirs = socket.socketpair()
        self.conn = multiprocessing.connection.Connection(ours.detach())
        path = os.pathsep.join(os.path.abspath(p) for p in sys.path if p)
        try:
            self.confined = Confined([sys.executable, "-c", "from gameroom.core.isolation import serve_sandboxed; "
                                      "serve_sandboxed()", str(theirs.fileno())], policy, limits,
                                     {"PYTHONPATH": path}, keep=[theirs.fileno()], read=[*python_paths(), *read])
        finally:
            theirs.close()
        self.conn.send_bytes(pickle.dumps(factory))

    @property
    def pid(self) -> int | None:
        return self.confined.pid

    def alive(self) -> bool:
        return self.confined.exit_status() is None

    def ending(self) -> str | None:
        self.confined.wait(1)
        self.confined.kill()
        return self.confined.describe()

    def stop(self, seconds: float) -> None:
        self.confined.wait(seconds)

    def kill(self) -> None:
        self.confined.kill()


_SIZE = struct.Struct("!i")


def _write_message(fd: int, message: Any) -> None:
    """One message in ``multiprocessing.connection``'s framing (the child reads it with a
    ``Connection``): a 4-byte size, then the pickle, in one write when it fits. Connection's
    own ``send``/``recv`` cost several times the pipe round trip in Python (issue 19)."""
    data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    view = memoryview(_SIZE.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _read_message(fd: int) -> Any:
    """One message the child's ``Connection`` sent (it sends one reply a request, so a
    read never takes in the next message). EOFError when the child is gone."""
    data = os.read(fd, 65536)
    while len(data) < 4:
        more = os.read(fd, 65536)
        if not more:
            raise EOFError
        data += more
    size = _SIZE.unpack_from(data)[0]
    start = 4
    if size == -1:   # a message over 2 GiB: an 8-byte size follows
        while len(data) < 12:
            more = os.read(fd, 65536)
            if not more:
                raise EOFError
            data += more
        size, start = struct.unpack_from("!Q", data, 4)[0], 12
    chunks, have = [data], len(data)
    while have < start + size:
        more = os.read(fd, max(start + size - have, 65536))
        if not more:
            raise EOFError
        chunks.append(more)
        have += len(more)
    return pickle.loads(b"".join(chunks)[start:start + size] if len(chunks) > 1 else data[start:start + size])


class IsolatedCaller:
    """A caller whose player lives in a separate, resource-limited process (killed with
    what it started when a call fails). ``factory`` must be picklable (a class or a
    module-level function, or a ``functools.partial`` of one); ``limits=None`` sets no
    resource limits (and, with a ``sandbox``, the defaults); ``sandbox``: a resolved
    policy (``core.sandbox.resolve_policy``) to start the child in; ``read``: more host
    paths it may read there (the player's own module, ``core.bwrap.import_paths``)."""

    together = staticmethod(on_threads)   # a simultaneous round waits for such seats side by side

    def __init__(self, factory: Callable[[], Any], start_limit: float = 30.0,
                 limits: ResourceLimits | None = ResourceLimits(), sandbox: SandboxPolicy | None = None,
                 read: Sequence[str] = ()) -> None:
        self.limits = limits
        self._dead: str | None = None
        self.start_failure: str | None = None   # why the player never started, if it did not
        self._child: _Spawned | _Sandboxed | None = None
        try:
            if sandbox is None:
                self._child = _Spawned(factory, limits)
            else:
                self._child = _Sandboxed(factory, limits or ResourceLimits(), sandbox, read)
        except (OSError, ValueError) as exc:   # its first call fails with the reason
            self._dead = self.start_failure = f"player process could not start: {exc}"
            return
        self._conn = self._child.conn
        # One poll object for every call: Connection.poll builds a selector each time,
        # which was most of an isolated call's cost of its own (issue 19).
        self._fd = self._conn.fileno()
        self._poller = select.poll()
        self._poller.register(self._fd, select.POLLIN)
        if not self._conn.poll(start_limit):
            self._kill(f"player process did not start within {start_limit:g} s")
        else:
            try:
                ok, detail = self._conn.recv()
            except (EOFError, OSError) as exc:
                ok, detail = False, f"process died while starting: {self._why_dead(exc)}"
            if not ok:
                self._kill(f"player {detail}")
        self.start_failure = self._dead

    @property
    def pid(self) -> int | None:
        """The player's process id (its process group's id, when it was spawned)."""
        return self._child.pid if self._child is not None else None

    def _why_dead(self, exc: BaseException) -> str:
        return (self._child.ending() if self._child is not None else None) or repr(exc)

    def _kill(self, reason: str) -> None:
        self._dead = reason
        if self._child is not None:
            self._child.kill()
            self._conn.close()

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        if self._dead is not None:
            raise CallFailed(self._dead, FailureKind.DISCONNECT)
        try:
            _write_message(self._fd, (method, args))
            if not self._poller.poll(None if limit is None else max(limit * 1000.0, 0.0)):
                self._kill(f"no reply within the time limit of {limit:g} s (process group killed)")
                raise CallFailed(self._dead or "time-out", FailureKind.TIMEOUT)
            ok, value = _read_message(self._fd)
        except (EOFError, OSError) as exc:
            self._kill(f"player process died: {self._why_dead(exc)}")
            raise CallFailed(self._dead or "died", FailureKind.DISCONNECT) from None
        if not ok:
            # A player that raised (MemoryError at its memory limit, BlockingIOError when it
            # may fork no more) is ejected: nothing of it may keep running.
            self._kill(f"player {value} (process group killed)")
            raise CallFailed(value)
        return value

    @property
    def alive(self) -> bool:
        return self._dead is None and self._child is not None and self._child.alive()

    def close(self) -> None:
        """End the player: ask its process to stop, then kill it and what it started."""
        if self._dead is None:
            try:
                self._conn.send(None)
            except (OSError, BrokenPipeError):
                pass
            if self._child is not None:
                self._child.stop(2)
            self._kill("closed")
