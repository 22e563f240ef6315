"""The referee driver's bookkeeping, shared by every game: seats, safe calls, ejections,
observers and the outcome.

A game's referee owns the rules and the turn sequence; for every call to a player it asks
:meth:`Match.call`, which goes through the seat's caller (time limit, exception capture),
validates the reply, and on any failure ejects the player with a recorded reason and
returns :data:`FAILED`. Rule violations found by the game are reported with
:meth:`Match.eject`. The misbehaving list is kept in the order of ejection, as every
game's result requires.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.calls import CallFailed, Caller, ThreadedCaller, direct_caller
from gameroom.core.protocol import Protocol

__all__ = ["FAILED", "Seat", "Failure", "Outcome", "Match", "trusted_seat", "guarded_seat"]


class _Failed:
    def __repr__(self) -> str:
        return "FAILED"

    def __bool__(self) -> bool:
        return False


FAILED: Any = _Failed()


@dataclass(eq=False)
class Seat:
    """One player at the table: its name, how to call it, and whether it still plays."""

    name: str
    caller: Caller
    trusted: bool = False
    player: Any = None
    ejected: str | None = None   # the reason, once ejected

    @property
    def active(self) -> bool:
        return self.ejected is None


def trusted_seat(name: str, player: Any) -> Seat:
    """A seat for a built-in strategy: direct calls, no thread, no time limit."""
    return Seat(name, direct_caller(player), trusted=True, player=player)


def guarded_seat(name: str, player: Any) -> Seat:
    """A seat for a local player that may misbehave: calls on a worker thread, timed."""
    return Seat(name, ThreadedCaller(player), trusted=False, player=player)


@dataclass(frozen=True)
class Failure:
    """Why a player was ejected: the method it failed on and the reason."""

    name: str
    method: str
    reason: str

    def __str__(self) -> str:
        return f"{self.name} dropped out on {self.method}: {self.reason}"


@dataclass
class Outcome:
    """A finished game: winners (sorted as the game prescribes) and misbehaving players in
    the order they were ejected, with reasons."""

    winners: list[str]
    misbehaved: list[str]
    failures: list[Failure] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> list[list[str]]:
        return [list(self.winners), list(self.misbehaved)]


class Match:
    """Safe calls, ejections and observers for one game."""

    def __init__(self, protocol: Protocol, seats: Sequence[Seat], time_limit: float | None,
                 observers: Iterable[Any] = (), log: Callable[[str], None] | None = None) -> None:
        self.protocol = protocol
        self.seats = list(seats)
        self.time_limit = time_limit
        self.observers = list(observers)
        self.log = log
        self.failures: list[Failure] = []

    # -- players ---------------------------------------------------------------------

    def call(self, seat: Seat, method: str, *args: Any, limit: float | None = None) -> Any:
        """Call ``method`` on the seat's player; FAILED (and the seat ejected) on failure."""
        if seat.ejected is not None:
            return FAILED
        spec = self.protocol.by_name[method]
        limit = self.time_limit if limit is None else limit
        try:
            result = seat.caller(method, args, limit)
            if spec.check is not None and not seat.trusted:
                result = spec.check(result)
        except CallFailed as exc:
            self.eject(seat, exc.reason, spec.wire)
            return FAILED
        except ValueError as exc:
            self.eject(seat, f"invalid reply: {exc}", spec.wire)
            return FAILED
        return result

    def eject(self, seat: Seat, reason: str, method: str = "take-turn") -> None:
        """Record a misbehaving player; it receives no further calls."""
        if seat.ejected is not None:
            return
        seat.ejected = reason
        failure = Failure(seat.name, method, reason)
        self.failures.append(failure)
        if self.log is not None:
            # A time-out's reason names the limit of its own call (which may differ from
            # the game's usual limit), so nothing is added here.
            self.log(str(failure))

    @property
    def misbehaved(self) -> list[str]:
        return [f.name for f in self.failures]

    # -- observers -------------------------------------------------------------------

    def observe(self, event: str, *args: Any) -> None:
        """Tell every observer; an observer that fails is dropped and never affects play."""
        for observer in list(self.observers):
            handler = getattr(observer, event, None)
            if handler is None:
                continue
            try:
                handler(*args)
            except Exception as exc:
                self.observers.remove(observer)
                if self.log is not None:
                    self.log(f"observer {type(observer).__name__} dropped: {exc!r}")

    def outcome(self, winners: Iterable[str], **extra: Any) -> Outcome:
        return Outcome(sorted(winners), self.misbehaved, list(self.failures), dict(extra))
