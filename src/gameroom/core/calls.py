"""Safe calls to players: every referee-to-player call goes through a *caller*.

A caller runs one method of one player with a time limit and turns every way a call can
go wrong (an exception, a time-out, a reply of the wrong kind) into :class:`CallFailed`
with a reason, so a referee has a single failure path to handle.

Three kinds of caller, chosen by how far the player is trusted:

* :func:`direct_caller` — trusted built-in strategies: a plain method call, no thread and
  no time limit, so in-process games run at full speed.
* :class:`GuardedCaller` (also known as ``ThreadedCaller``) — local players that may
  misbehave, with a time limit on every call. On the main thread the call runs in place
  under an interval timer that interrupts it at its limit (``core.overrun``: a loop, a
  sleep or a blocking wait alike), about 1 µs of CPU over a direct call; on other threads
  (a server's referees) it runs on the player's own daemon worker thread, handed over
  through a pair of locks, and the referee stops waiting when the limit passes. Either
  way a call that overran is reported as a time-out and whatever it returned discarded;
  a worker whose call never returns is abandoned and never used again, so a late answer
  cannot disturb the game.
* :class:`gameroom.core.isolation.IsolatedCaller` — untrusted code: the player lives in a
  child process that is killed when a call overruns, so even a CPU-bound infinite loop
  costs nothing after its time-out.

Remote proxies (``gameroom.remote``) are callers of their own: they bound their reads by
the limit.

A simultaneous round (``core.match.Match.decide_all``) asks several seats at once. A
caller says how several of its kind wait side by side through an optional ``together``
attribute, a function from calls (functions of no argument) to their results in order:
:func:`on_threads` for callers that block the calling thread and may be called from any
(guarded, isolated, remote and program seats); a caller without one (a trusted seat,
which answers at once, or a lobby room's seat on the lobby's loop) is called in turn.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Protocol, Sequence

from gameroom.core import overrun
from gameroom.core.errors import CallFailed   # defined with gameroom's other errors
from gameroom.core.handoff import SeatWorker
from gameroom.core.record import FailureKind

__all__ = ["CallFailed", "Caller", "GuardedCaller", "ThreadedCaller", "direct_caller", "in_turn", "on_threads"]

logger = logging.getLogger(__name__)


class Caller(Protocol):
    """Runs ``method(*args)`` on a player within ``limit`` seconds, or raises CallFailed."""

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any: ...


def in_turn(calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` one after the other: how a simultaneous round asks seats whose
    callers offer no way to wait side by side."""
    return [call() for call in calls]


def on_threads(calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` at once, each but the first on a thread of its own (the first on this
    one), and return their results in order once all are back. A call must not raise:
    a simultaneous round's calls return their failure as a value."""
    if len(calls) < 2:
        return in_turn(calls)
    results: list[Any] = [None] * len(calls)

    def run(at: int) -> None:
        results[at] = calls[at]()

    threads = [threading.Thread(target=run, args=(at,), name="round-call", daemon=True)
               for at in range(1, len(calls))]
    for thread in threads:
        thread.start()
    run(0)
    for thread in threads:
        thread.join()
    return results


def _describe_exception(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _timed_out(limit: float | None) -> CallFailed:
    return CallFailed(f"no reply within the time limit of {limit:g} s", FailureKind.TIMEOUT)


def direct_caller(player: Any) -> Caller:
    """A caller for trusted players: no thread, no time limit, exceptions still caught."""

    def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        try:
            return getattr(player, method)(*args)
        except Exception as exc:  # noqa: BLE001 -- a player's bug must not stop the referee: it is reported
            raise CallFailed(f"raised {_describe_exception(exc)}") from None

    return call


class GuardedCaller:
    """A caller with a time limit on every call: in place under the interval timer on the
    main thread, else on the player's own worker thread (see the module's docstring)."""

    together = staticmethod(on_threads)   # a simultaneous round waits for such seats side by side

    def __init__(self, player: Any) -> None:
        self.player = player
        self._worker: SeatWorker | None = None

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        try:
            fn = getattr(self.player, method)
        except AttributeError as exc:
            raise CallFailed(f"raised {_describe_exception(exc)}") from None
        if limit is not None and overrun.available():
            try:
                return overrun.call_with_limit(fn, args, limit)
            except overrun.TimedOut:
                raise _timed_out(limit) from None
            except (Exception, SystemExit) as exc:  # the player's bug, reported with its reason  # noqa: BLE001
                raise CallFailed(f"raised {_describe_exception(exc)}") from None
        try:
            ok, value = self._on_worker(fn, args, limit)
        except TimeoutError:
            raise _timed_out(limit) from None
        if not ok:
            raise CallFailed(f"raised {_describe_exception(value)}")
        return value

    def _on_worker(self, fn: Any, args: tuple[Any, ...], limit: float | None) -> Any:
        worker = self._worker or SeatWorker(f"player-{type(self.player).__name__}")
        self._worker = worker
        try:
            return worker.call(fn, args, limit)
        except TimeoutError:
            # Abandon the worker: it may still be running the call. A fresh worker would be
            # started for a later call, but a referee ejects the player first.
            self._worker = None
            raise

    def close(self) -> None:
        if self._worker is not None:
            self._worker.stop()
            self._worker = None


ThreadedCaller = GuardedCaller
"""The name this caller had when every guarded call ran on a worker thread."""
