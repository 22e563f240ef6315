"""A time limit on a call made on the main thread, without a thread hand-off.

A guarded call (``core.calls.ThreadedCaller``) must stop waiting for a player at its limit.
Handing each call to a worker thread costs two thread wake-ups and a GIL hand-over a
call (13 µs of CPU, 35-55 µs of wall time here), more than a turn of most strategies.
On the main thread the call runs in place instead, under the process's real-time
interval timer: ``setitimer(ITIMER_REAL)`` is armed for the limit before the call and
disarmed after it (about 1 µs of CPU for both). When the limit passes, SIGALRM's handler
raises :class:`Overrun` inside the player's code — it interrupts a Python loop at its
next instruction and a blocking wait (``time.sleep``, a lock, a socket read) through
EINTR — and the timer fires again every :data:`REPEAT` seconds, so a player that catches
the exception is hit again until it lets go. Whatever the call returns once the limit
passed is discarded: the caller reports a time-out, so nothing the player did after its
limit reaches the game.

The handler never raises in this module's own code (it only marks the call overrun),
so the wrapper's bookkeeping cannot be torn. Only the main thread receives signals, so
:func:`available` is false elsewhere (referees on a server's threads) and when another
part of the program owns SIGALRM; callers then use a worker thread. What this cannot
interrupt: a single C call that neither returns to the interpreter nor waits in an
interruptible system call (a huge ``sum(range(10**12))``); such a player belongs in an
isolated seat.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["REPEAT", "Overrun", "TimedOut", "available", "call_with_limit"]

REPEAT = 0.005
"""Seconds between repeated interruptions once a call has overrun its limit."""

_MAIN = threading.main_thread().ident
_SIGNALS = hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")
_GLOBALS = globals()


class Overrun(BaseException):
    """Raised inside a player's call when its time limit passed (a BaseException, so a
    player's ``except Exception`` does not swallow it)."""


class TimedOut(TimeoutError):
    """What :func:`call_with_limit` raises for a call that overran (never the player's
    own TimeoutError, which propagates as the player's exception)."""


class _Timer:
    armed = False     # a call is running under the timer
    overran = False   # ... and its limit passed


def _on_alarm(_signum: int, frame: Any) -> None:
    if not _Timer.armed:
        return   # a late signal of a call that already ended
    _Timer.overran = True
    if frame is None or frame.f_globals is not _GLOBALS:
        raise Overrun


def available() -> bool:
    """Whether a call on this thread can be limited by the timer: the main thread, no
    timed call already running, and SIGALRM free or already ours."""
    if not _SIGNALS or threading.get_ident() != _MAIN or _Timer.armed:
        return False
    handler = signal.getsignal(signal.SIGALRM)
    if handler is _on_alarm:
        return True
    if handler is not signal.SIG_DFL:
        return False   # someone else's alarm: leave it alone
    signal.signal(signal.SIGALRM, _on_alarm)
    return True


def call_with_limit(fn: Callable[..., Any], args: tuple[Any, ...], limit: float) -> Any:
    """``fn(*args)`` on this thread (check :func:`available` first); raises TimedOut
    when ``limit`` seconds passed before it returned (its value, if any, is discarded).
    The player's own exceptions propagate."""
    _Timer.overran = False
    _Timer.armed = True
    signal.setitimer(signal.ITIMER_REAL, max(limit, 1e-6), REPEAT)
    try:
        value = fn(*args)
    except BaseException:
        _disarm()
        if _Timer.overran:   # Overrun itself, or what the player made of it
            raise TimedOut from None
        raise
    _disarm()
    if _Timer.overran:
        raise TimedOut
    return value


def _disarm() -> None:
    _Timer.armed = False
    signal.setitimer(signal.ITIMER_REAL, 0)
