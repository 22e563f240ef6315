"""Running an untrusted in-process player in a child process that can be killed.

Python threads cannot be stopped, so a player that spins the CPU forever would slow every
other game in the process. :class:`IsolatedCaller` keeps such a player in its own process:
each call crosses a pipe, and a call that overruns its limit gets the process killed. The
player is built inside the child from a picklable factory, so its code never runs in the
referee's process.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import traceback
from typing import Any, Callable

from gameroom.core.calls import CallFailed
from gameroom.core.record import FailureKind

__all__ = ["IsolatedCaller"]


def _child(factory: Callable[[], Any], conn: multiprocessing.connection.Connection) -> None:
    try:
        player = factory()
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
    """A caller whose player lives in a separate process (killed on time-out)."""

    def __init__(self, factory: Callable[[], Any], start_limit: float = 30.0) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child_end = context.Pipe()
        self._process = context.Process(target=_child, args=(factory, child_end), daemon=True)
        self._process.start()
        child_end.close()
        self._dead: str | None = None
        if not self._conn.poll(start_limit):
            self._kill(f"player process did not start within {start_limit:g} s")
        else:
            ok, detail = self._conn.recv()
            if not ok:
                self._kill(f"player {detail}")

    def _kill(self, reason: str) -> None:
        self._dead = reason
        if self._process.is_alive():
            self._process.kill()
        self._process.join(5)
        self._conn.close()

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        if self._dead is not None:
            raise CallFailed(self._dead, FailureKind.DISCONNECT)
        try:
            self._conn.send((method, args))
            if not self._conn.poll(limit):
                self._kill(f"no reply within the time limit of {limit:g} s (process killed)")
                raise CallFailed(self._dead or "time-out", FailureKind.TIMEOUT)
            ok, value = self._conn.recv()
        except (EOFError, OSError, BrokenPipeError) as exc:
            self._kill(f"player process died: {exc!r}")
            raise CallFailed(self._dead or "died", FailureKind.DISCONNECT) from None
        if not ok:
            raise CallFailed(value)
        return value

    @property
    def alive(self) -> bool:
        return self._dead is None and self._process.is_alive()

    def close(self) -> None:
        if self._dead is None:
            try:
                self._conn.send(None)
            except (OSError, BrokenPipeError):
                pass
            self._process.join(2)
            self._kill("closed")
