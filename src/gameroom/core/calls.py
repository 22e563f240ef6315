"""Safe calls to players: every referee-to-player call goes through a *caller*.

A caller runs one method of one player with a time limit and turns every way a call can
go wrong (an exception, a time-out, a reply of the wrong kind) into :class:`CallFailed`
with a reason, so a referee has a single failure path to handle.

Three kinds of caller, chosen by how far the player is trusted:

* :func:`direct_caller` — trusted built-in strategies: a plain method call, no thread and
  no time limit, so in-process games run at full speed.
* :class:`ThreadedCaller` — local players that may misbehave: each call runs on the
  player's own daemon worker thread and the referee stops waiting when the limit passes.
  A call that never returns leaves its worker abandoned; the player is ejected and the
  worker is never used again, so a late answer cannot disturb the game.
* :class:`gameroom.core.isolation.IsolatedCaller` — untrusted code: the player lives in a
  child process that is killed when a call overruns, so even a CPU-bound infinite loop
  costs nothing after its time-out.

Remote proxies (``gameroom.remote``) are callers of their own: they bound their reads by
the limit.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from gameroom.core.errors import CallFailed   # defined with gameroom's other errors
from gameroom.core.handoff import Worker
from gameroom.core.record import FailureKind

__all__ = ["CallFailed", "Caller", "direct_caller", "ThreadedCaller"]

logger = logging.getLogger(__name__)


class Caller(Protocol):
    """Runs ``method(*args)`` on a player within ``limit`` seconds, or raises CallFailed."""

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any: ...


def _describe_exception(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def direct_caller(player: Any) -> Caller:
    """A caller for trusted players: no thread, no time limit, exceptions still caught."""

    def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        try:
            return getattr(player, method)(*args)
        except Exception as exc:  # noqa: BLE001 -- a player's bug must not stop the referee: it is reported
            raise CallFailed(f"raised {_describe_exception(exc)}") from None

    return call


class ThreadedCaller:
    """A caller that runs each call on the player's own worker thread, with a time limit."""

    def __init__(self, player: Any) -> None:
        self.player = player
        self._worker: Worker | None = None

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        worker = self._worker or Worker(f"player-{type(self.player).__name__}")
        self._worker = worker
        try:
            ok, value = worker.call(getattr(self.player, method), args, limit)
        except AttributeError as exc:
            raise CallFailed(f"raised {_describe_exception(exc)}") from None
        except TimeoutError:
            # Abandon the worker: it may still be running the call. A fresh worker would be
            # started for a later call, but a referee ejects the player first.
            self._worker = None
            raise CallFailed(f"no reply within the time limit of {limit:g} s", FailureKind.TIMEOUT) from None
        if not ok:
            raise CallFailed(f"raised {_describe_exception(value)}")
        return value

    def close(self) -> None:
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
