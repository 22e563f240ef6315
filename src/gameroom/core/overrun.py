"""A time limit on a call made on the main thread, without a thread hand-off.

A guarded call (``core.calls.GuardedCaller``) must stop waiting for a player at its limit.
Handing each call to a worker thread costs two thread wake-ups and a GIL hand-over a
call (13-15 µs of CPU, 35-55 µs of wall time here), more than a turn of most strategies.
On the main thread the call runs in place instead, watched by one daemon thread: a call
writes its deadline where the watchdog reads it (a clock read and a few stores, no
system call — arming the process's interval timer around every call cost two
``setitimer`` calls, 3-4 µs of a loaded machine's wall time). The watchdog sleeps until
the earliest deadline it knows of; when it wakes and the running call is past its
deadline, it sends SIGALRM to the main thread, whose handler raises :class:`Overrun`
inside the player's code — it interrupts a Python loop at its next instruction and a
blocking wait (``time.sleep``, a lock, a socket read) through EINTR — and it signals
again every :data:`REPEAT` seconds while the call goes on (a player that caught it once and
returned is still reported as a time-out). Whatever the call returns once the limit passed is discarded: the
caller reports a time-out, so nothing the player did after its limit reaches the game.
Calls one after another with the same limit wake the watchdog about once a limit; only a
call whose deadline comes before the watchdog's next look wakes it early.

The handler never raises in this module's own code (it only marks the call overrun),
so the wrapper's bookkeeping cannot be torn. Only the main thread receives signals, so
:func:`available` is false elsewhere (referees on a server's threads) and when another
part of the program owns SIGALRM; callers then use a worker thread. What this cannot
interrupt: a single C call that neither returns to the interpreter nor waits in an
interruptible system call (a huge ``sum(range(10**12))``), nor a player that catches
``BaseException`` inside its endless loop (each interruption lands in that loop, since the
main thread takes it at the same point where it gave the watchdog the interpreter); such
players belong in an isolated seat, whose process is killed.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from time import monotonic
from typing import Any, TypeVar

_T = TypeVar("_T")

__all__ = ["REPEAT", "Overrun", "TimedOut", "available", "call_with_limit"]

REPEAT = 0.005
"""Seconds between repeated interruptions once a call has overrun its limit."""

_MAIN = threading.main_thread().ident
_SIGNALS = hasattr(signal, "pthread_kill") and hasattr(signal, "SIGALRM")
_GLOBALS = globals()
_INFINITY = float("inf")


class Overrun(BaseException):
    """Raised inside a player's call when its time limit passed (a BaseException, so a
    player's ``except Exception`` does not swallow it)."""


class TimedOut(TimeoutError):
    """What :func:`call_with_limit` raises for a call that overran (never the player's
    own TimeoutError, which propagates as the player's exception)."""


class _Watch:
    """The running call, as the watchdog and the signal handler see it."""

    armed = False          # a call is running under the watch
    deadline = _INFINITY   # ... until then
    overran = False        # ... and its limit passed
    wake_at = _INFINITY    # when the watchdog looks next
    ours = False           # SIGALRM's handler is ours and the watchdog runs


_wake = threading.Condition()


def _forked() -> None:
    # A forked child has no watchdog thread: its first watched call starts one.
    global _wake
    _wake = threading.Condition()
    _Watch.ours = _Watch.armed = False
    _Watch.wake_at = _INFINITY


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def _on_alarm(_signum: int, frame: Any) -> None:
    # A late signal (its call ended, or the next call is not overdue) does nothing.
    if not _Watch.armed or monotonic() < _Watch.deadline:
        return
    _Watch.overran = True
    if frame is not None and frame.f_globals is not _GLOBALS:
        raise Overrun


def _watchdog() -> None:
    with _wake:
        while True:
            now = monotonic()
            if _Watch.armed and now >= _Watch.deadline:
                if signal.getsignal(signal.SIGALRM) is not _on_alarm:
                    _Watch.ours = False   # someone took SIGALRM: later calls use a worker
                else:
                    signal.pthread_kill(_MAIN, signal.SIGALRM)   # type: ignore[arg-type]
                wake = now + REPEAT
            else:
                wake = _Watch.deadline if _Watch.armed else _INFINITY
            _Watch.wake_at = wake
            # A call that began since the first look may need an earlier one (the caller
            # wrote its deadline before it read wake_at, so one of us sees the other).
            if _Watch.armed and _Watch.deadline < wake:
                continue
            _wake.wait(None if wake == _INFINITY else max(wake - monotonic(), 0.0))


def available() -> bool:
    """Whether a call on this thread can be limited by the watchdog: the main thread, no
    watched call already running, and SIGALRM free or already ours."""
    if _Watch.ours:
        return not _Watch.armed and threading.get_ident() == _MAIN
    if not _SIGNALS or threading.get_ident() != _MAIN or _Watch.armed:
        return False
    handler = signal.getsignal(signal.SIGALRM)
    if handler is not _on_alarm:
        if handler is not signal.SIG_DFL:
            return False   # someone else's alarm: leave it alone
        signal.signal(signal.SIGALRM, _on_alarm)
    threading.Thread(target=_watchdog, daemon=True, name="gameroom-overrun").start()
    _Watch.ours = True
    return True


def call_with_limit(fn: Callable[..., _T], args: tuple[Any, ...], limit: float) -> _T:
    """``fn(*args)`` on this thread (check :func:`available` first); raises TimedOut
    when ``limit`` seconds passed before it returned (its value, if any, is discarded).
    The player's own exceptions propagate."""
    deadline = monotonic() + limit
    _Watch.overran = False
    _Watch.deadline = deadline
    _Watch.armed = True
    if deadline < _Watch.wake_at:   # the watchdog would look too late: wake it
        with _wake:
            _wake.notify()
    try:
        value = fn(*args)
    except BaseException:
        _Watch.armed = False
        if _Watch.overran:   # Overrun itself, or what the player made of it
            raise TimedOut from None
        raise
    _Watch.armed = False
    if _Watch.overran:
        raise TimedOut
    return value
