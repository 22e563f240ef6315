"""What every match takes besides its seats and the game's own options, as one value.

A :class:`MatchContext` holds the cross-cutting arguments that every referee's
``run_game`` and every descriptor's ``play`` used to take one by one: the time limits, the
observers of the match's events and the event that cancels the match (ejections are
logged by ``core.match``'s logger, shown where the command opens its lines). Callers build one and pass it on unchanged; a game's own options (Q's bonuses,
Eriantys's expert mode, Fish's board) stay keyword arguments of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gameroom.core.limits import Limits

__all__ = ["NO_CONTEXT", "MatchContext", "Observer"]

Observer = Callable[[Any], Any]
"""A callable that receives every ``core.record.Event`` of a match."""


@dataclass(frozen=True)
class MatchContext:
    """The cross-cutting part of one match.

    ``limits``: the seconds a player is given (None: the game's own ``LIMITS``; a
    ``Limits()`` means no limit at all). ``observers``: callables that receive every
    ``cancel``: setting this event stops the match at its next call
    (``core.match.MatchCancelled``).
    """

    limits: Limits | None = None
    observers: Sequence[Observer] = ()
    cancel: threading.Event | None = None

    def __post_init__(self) -> None:
        # Any sequence (or iterable) of observers is accepted; the frozen value keeps a tuple.
        if not isinstance(self.observers, tuple):
            object.__setattr__(self, "observers", tuple(self.observers))

    def limits_or(self, default: Limits) -> Limits:
        """The limits of this match: its own, or the game's ``default``."""
        return default if self.limits is None else self.limits


NO_CONTEXT = MatchContext()
"""No observers, no cancel, the game's own limits: the default of every match."""
