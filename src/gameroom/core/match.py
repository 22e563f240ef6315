"""The referee driver's bookkeeping, shared by every game: seats, safe calls, ejections,
the event log observers subscribe to, and the one result type.

A game's referee owns the rules and the turn sequence; for every call to a player it asks
:meth:`Match.call`, which goes through the seat's caller (time limit, exception capture),
validates the reply, and on any failure ejects the player with a recorded reason and
returns :data:`FAILED`. Rule violations found by the game are reported with
:meth:`Match.eject`. The misbehaving list is kept in the order of ejection, as every
game's result requires. Referees report snapshots with :meth:`Match.state` and finish with
:meth:`Match.result`; every call, ejection, snapshot and the end reach the observers as
``core.record`` events, so one vocabulary serves every game. A match whose ``cancel``
event is set stops at its next call (:class:`MatchCancelled`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from time import perf_counter
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.calls import CallFailed, Caller, ThreadedCaller, direct_caller
from gameroom.core.protocol import Codec, Method, Protocol
from gameroom.core.record import CALL, EJECT, END, STATE, Ejection, Event, FailureKind, MatchResult

__all__ = ["FAILED", "Seat", "Match", "MatchCancelled", "trusted_seat", "guarded_seat", "isolated_seat", "observe_every_match",
           "local_seat"]


class _Failed:
    def __repr__(self) -> str:
        return "FAILED"

    def __bool__(self) -> bool:
        return False


FAILED: Any = _Failed()


class MatchCancelled(Exception):
    """The match was cancelled from outside (its ``cancel`` event was set)."""


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


def isolated_seat(name: str, factory: Callable[[], Any], limits: Any = None, sandbox: Any = None) -> Seat:
    """A seat for untrusted code (any bot that is not a built-in): the player is made by
    ``factory`` (picklable) in a child process with resource limits
    (``core.sandbox.ResourceLimits``, the defaults when None), killed when a call fails;
    ``sandbox``: a resolved ``core.sandbox.SandboxPolicy`` to start it in (else a
    process group of its own)."""
    from gameroom.core.isolation import IsolatedCaller, ResourceLimits

    return Seat(name, IsolatedCaller(factory, limits=limits if limits is not None else ResourceLimits(),
                                     sandbox=sandbox), trusted=False)


def local_seat(name: str, player: Any, trusted: bool) -> Seat:
    """A seat for an in-process player; ``trusted`` players skip the thread and the limit."""
    return trusted_seat(name, player) if trusted else guarded_seat(name, player)


_EVERY_MATCH: list[Callable[["Match"], Callable[[Event], Any] | None]] = []


def observe_every_match(factory: Callable[["Match"], Callable[[Event], Any] | None]) -> Callable[[], None]:
    """Process-wide: ``factory(match)`` may give an observer to every Match made from now on
    (how ``gameroom serve --replay`` records games whose referees a server plan starts);
    returns the function that stops it."""
    _EVERY_MATCH.append(factory)
    return lambda: _EVERY_MATCH.remove(factory)


class Match:
    """Safe calls, ejections, events and the result of one game.

    ``observers`` are callables that receive every :class:`~gameroom.core.record.Event`
    (calls and replies with their latency, ejections, state snapshots, the end). With none,
    calls are not timed and nothing is encoded: the record costs a test per call.
    ``state_codec`` encodes state snapshots for events that are read as JSON.
    """

    def __init__(self, protocol: Protocol, seats: Sequence[Seat], time_limit: float | None,
                 observers: Iterable[Callable[[Event], Any]] = (), log: Callable[[str], None] | None = None,
                 state_codec: Codec[Any] | None = None, cancel: threading.Event | None = None) -> None:
        self.protocol = protocol
        self.seats = list(seats)
        self.time_limit = time_limit
        self.observers = list(observers)
        self.log = log
        self.state_codec = state_codec
        self.cancel = cancel
        self.ejections: list[Ejection] = []
        for factory in _EVERY_MATCH:
            observer = factory(self)
            if observer is not None:
                self.observers.append(observer)

    @property
    def watched(self) -> bool:
        return bool(self.observers)

    # -- players ---------------------------------------------------------------------

    def call(self, seat: Seat, method: str, *args: Any, limit: float | None = None) -> Any:
        """Call ``method`` on the seat's player; FAILED (and the seat ejected) on failure."""
        if seat.ejected is not None:
            return FAILED
        if self.cancel is not None and self.cancel.is_set():
            raise MatchCancelled("the match was cancelled")
        spec = self.protocol.by_name[method]
        limit = self.time_limit if limit is None else limit
        started = perf_counter() if self.observers else 0.0
        try:
            result = seat.caller(method, args, limit)
            if spec.check is not None and not seat.trusted:
                result = spec.check(result)
        except CallFailed as exc:
            if started:
                self._called(seat, spec, args, FAILED, started)
            self.eject(seat, exc.reason, spec.wire, exc.kind)
            return FAILED
        except ValueError as exc:
            if started:
                self._called(seat, spec, args, FAILED, started)
            self.eject(seat, f"invalid reply: {exc}", spec.wire, FailureKind.INVALID_REPLY)
            return FAILED
        if started:
            self._called(seat, spec, args, result, started)
        return result

    def _called(self, seat: Seat, spec: Method, args: tuple[Any, ...], result: Any, started: float) -> None:
        latency = perf_counter() - started

        def encode() -> dict[str, Any]:
            reply = None if result is FAILED or spec.one_way else spec.result.encode(result)
            return {"seat": seat.name, "method": spec.wire, "args": spec.encode_args(args), "reply": reply,
                    "latency": latency}

        self.emit(Event(CALL, subject=(args, result), encode=encode))

    def eject(self, seat: Seat, reason: str, method: str = "take-turn",
              kind: FailureKind = FailureKind.ILLEGAL_ACTION) -> None:
        """Record a misbehaving player; it receives no further calls."""
        if seat.ejected is not None:
            return
        seat.ejected = reason
        ejection = Ejection(seat.name, method, kind, reason)
        self.ejections.append(ejection)
        if self.log is not None:
            # A time-out's reason names the limit of its own call (which may differ from
            # the game's usual limit), so nothing is added here.
            self.log(str(ejection))
        if self.observers:
            self.emit(Event(EJECT, {"seat": seat.name, "method": method, "kind": kind.value, "reason": reason},
                            subject=ejection))

    @property
    def misbehaved(self) -> list[str]:
        return [e.name for e in self.ejections]

    # -- events ----------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        """Tell every observer; an observer that fails is dropped and never affects play."""
        for observer in list(self.observers):
            try:
                observer(event)
            except Exception as exc:
                self.observers.remove(observer)
                if self.log is not None:
                    self.log(f"observer {getattr(observer, '__qualname__', type(observer).__name__)} dropped: {exc!r}")

    def state(self, state: Any, caption: str | None = None, detail: Any = None, **notes: Any) -> None:
        """A state snapshot (pass a copy when the referee goes on changing it); ``notes``
        are JSON facts for accounts of the game (who acted, what happened); ``detail`` a
        live object of the game's own for observers in process."""
        if not self.observers:
            return
        codec = self.state_codec

        def encode() -> dict[str, Any]:
            return {"state": codec.encode(state) if codec is not None and state is not None else None}

        self.emit(Event(STATE, {"caption": caption, **notes}, subject=state, encode=encode, detail=detail))

    def result(self, winners: Iterable[str], misbehaved: Iterable[str] | None = None,
               ranking: Iterable[Iterable[str]] = (), scores: dict[str, Any] | None = None) -> MatchResult:
        """The one result of the game (``misbehaved`` defaults to the ejection order); the
        end event carries it."""
        result = MatchResult(list(winners), list(self.misbehaved if misbehaved is None else misbehaved),
                             [list(group) for group in ranking], dict(scores or {}), list(self.ejections))
        if self.observers:
            self.emit(Event(END, {"result": result.to_record()}, subject=result))
        return result
