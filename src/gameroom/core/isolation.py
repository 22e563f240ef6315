"""Running an untrusted in-process player in a child process that can be killed.

Python threads cannot be stopped, so a player that spins the CPU forever would slow every
other game in the process. :class:`IsolatedCaller` keeps such a player in its own process:
each call crosses a pipe, and a call that overruns its limit gets the process killed.

The child leads a process group of its own and sets its resource limits
(``core.sandbox.ResourceLimits``: CPU seconds, memory, processes) *before* it unpickles
the player's factory, so none of the player's code - not even its module's top level -
runs unlimited. When a call fails in any way (time-out, exception, a limit reached, the
process dead) or the caller is closed, the whole group is killed with SIGKILL: whatever
the player forked goes with it, and a referee that ejected the player never pays for it
again.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import traceback
from typing import Any, Callable

from gameroom.core.calls import CallFailed
from gameroom.core.record import FailureKind
from gameroom.core.sandbox import ResourceLimits, apply_limits, describe_exit, kill_group, user_processes

__all__ = ["IsolatedCaller", "ResourceLimits"]


def _child(pickled_factory: bytes, conn: multiprocessing.connection.Connection,
           limits: ResourceLimits | None, processes: int) -> None:
    os.setpgid(0, 0)   # a group of its own: killing it kills whatever the player forks
    if limits is not None:
        apply_limits(limits, processes)
    try:
        player = pickle.loads(pickled_factory)()
    except BaseException as exc:
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
        except BaseException as exc:
            detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            try:
                conn.send((False, f"raised {detail}"))
            except Exception:
                conn.send((False, f"raised an unpicklable exception\n{traceback.format_exc()}"))


class IsolatedCaller:
    """A caller whose player lives in a separate, resource-limited process group (killed
    when a call fails). ``factory`` must be picklable (a class or a module-level function,
    or a ``functools.partial`` of one); ``limits=None`` sets no resource limits."""

    def __init__(self, factory: Callable[[], Any], start_limit: float = 30.0,
                 limits: ResourceLimits | None = ResourceLimits()) -> None:
        self.limits = limits
        context = multiprocessing.get_context("spawn")
        self._conn, child_end = context.Pipe()
        processes = user_processes() + limits.processes if limits is not None else 0
        self._process = context.Process(target=_child, args=(pickle.dumps(factory), child_end, limits, processes),
                                        daemon=True, name="isolated-player")
        self._process.start()
        child_end.close()
        self._dead: str | None = None
        if not self._conn.poll(start_limit):
            self._kill(f"player process did not start within {start_limit:g} s")
        else:
            try:
                ok, detail = self._conn.recv()
            except (EOFError, OSError) as exc:
                ok, detail = False, f"process died while starting: {self._why_dead(exc)}"
            if not ok:
                self._kill(f"player {detail}")

    @property
    def pid(self) -> int | None:
        """The player's process id, which is also its process group id."""
        return self._process.pid

    def _why_dead(self, exc: BaseException) -> str:
        self._process.join(1)
        code = self._process.exitcode
        return describe_exit(code, self.limits) if code is not None else repr(exc)

    def _kill(self, reason: str) -> None:
        self._dead = reason
        if self._process.pid is not None:
            kill_group(self._process.pid)
        self._process.join(5)
        self._conn.close()

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        if self._dead is not None:
            raise CallFailed(self._dead, FailureKind.DISCONNECT)
        try:
            self._conn.send((method, args))
            if not self._conn.poll(limit):
                self._kill(f"no reply within the time limit of {limit:g} s (process group killed)")
                raise CallFailed(self._dead or "time-out", FailureKind.TIMEOUT)
            ok, value = self._conn.recv()
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
        return self._dead is None and self._process.is_alive()

    def close(self) -> None:
        """End the player: ask its process to stop, then kill its whole group."""
        if self._dead is None:
            try:
                self._conn.send(None)
            except (OSError, BrokenPipeError):
                pass
            self._process.join(2)
            self._kill("closed")
