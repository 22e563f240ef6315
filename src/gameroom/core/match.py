"""The referee skeleton, shared by every game: seats, safe calls, decisions checked by the
rules, ejections, the event log observers subscribe to, and the one result type.

A game's referee owns the rules and the turn sequence; everything else is here, written
once. For every decision it asks :meth:`Match.decide` with the rules' legality check:
the call goes through the seat's caller (time limit, exception capture), the reply is
validated against the protocol, then ``legal(reply)`` names a reason or None. On any
failure the seat is ejected under the call's own wire name with the right
:class:`~gameroom.core.record.FailureKind`, the referee's ``on_eject`` hook removes the
player from its state (and reports it), and ``decide`` returns :data:`FAILED`.
Notifications whose replies decide nothing use :meth:`Match.call`, the same path without
a check. The misbehaving list is kept in the order of ejection, as every game's result
requires. Referees report snapshots with :meth:`Match.state` and finish with
:meth:`Match.result`, naming seats by index (their identity; names are for display);
every call, ejection, snapshot and the end reach the observers as ``core.record``
events, so one vocabulary serves every game. A game of simultaneous rounds asks
:meth:`Match.decide_all`: one method of every live seat at once, under one limit, sealed
(no reply is looked at before all are in), then each checked in seat order. A match
takes its limits, observers and cancel event as one
:class:`~gameroom.core.context.MatchContext`; it stops at its next call once the cancel
event is set (:class:`MatchCancelled`). Each ejection is one INFO
line of this module's logger (a server's "... dropped out on ..." lines), which the
commands that print them open (``core.console.show_lines``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from time import perf_counter
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.calls import CallFailed, Caller, ThreadedCaller, direct_caller, in_turn
from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.limits import Limits
from gameroom.core.protocol import Codec, Method, WireProtocol
from gameroom.core.record import CALL, EJECT, END, STATE, Ejection, Event, FailureKind, MatchResult

__all__ = ["FAILED", "Seat", "Match", "MatchCancelled", "trusted_seat", "guarded_seat",
           "isolated_seat", "observe_every_match", "local_seat", "Legal", "ranking_by_score"]

logger = logging.getLogger(__name__)


class _Failed:
    def __repr__(self) -> str:
        return "FAILED"

    def __bool__(self) -> bool:
        return False


FAILED: Any = _Failed()
"""What a call or a decision gives when it failed (the seat is then ejected)."""

Legal = Callable[[Any], str | None]
"""A rules' check of a decision: None when the reply is legal, else the reason it is not."""


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


def isolated_seat(name: str, factory: Callable[[], Any], limits: Any = None, sandbox: Any = None,
                  read: Sequence[str] = ()) -> Seat:
    """A seat for untrusted code (any bot that is not a built-in): the player is made by
    ``factory`` (picklable) in a child process with resource limits
    (``core.sandbox.ResourceLimits``, the defaults when None), killed when a call fails;
    ``sandbox``: a resolved ``core.sandbox.SandboxPolicy`` to start it in (else a
    process group of its own), where it may also read ``read``."""
    from gameroom.core.isolation import IsolatedCaller, ResourceLimits

    return Seat(name, IsolatedCaller(factory, limits=limits if limits is not None else ResourceLimits(),
                                     sandbox=sandbox, read=read), trusted=False)


def local_seat(name: str, player: Any, trusted: bool) -> Seat:
    """A seat for an in-process player; ``trusted`` players skip the thread and the limit."""
    return trusted_seat(name, player) if trusted else guarded_seat(name, player)


def ranking_by_score(scores: dict[int, Any]) -> list[list[int]]:
    """Seats grouped by score, best first; each group in the order of ``scores``."""
    return [[seat for seat, score in scores.items() if score == best]
            for best in sorted(set(scores.values()), reverse=True)]


_EVERY_MATCH: list[Callable[["Match"], Callable[[Event], Any] | None]] = []


def observe_every_match(factory: Callable[["Match"], Callable[[Event], Any] | None]) -> Callable[[], None]:
    """Process-wide: ``factory(match)`` may give an observer to every Match made from now on
    (how ``gameroom serve --replay`` records games whose referees a server plan starts);
    returns the function that stops it."""
    _EVERY_MATCH.append(factory)
    return lambda: _EVERY_MATCH.remove(factory)


class Match:
    """Safe calls, decisions, ejections, events and the result of one game.

    ``context`` brings the limits (``limits``, the game's own, apply when it has none),
    the observers — callables that receive every :class:`~gameroom.core.record.Event`
    (calls and replies with their latency, ejections, state snapshots, the end) — the log
    of ejections and the cancel event. With no observer, calls are not timed and nothing
    is encoded: the record costs a test per call. ``state_codec`` encodes state snapshots
    for events that are read as JSON. ``on_eject(ejection)`` is the referee's hook, run
    after every ejection's event: it removes the player from the game's state and reports
    it (the referee may change it between phases).
    """

    def __init__(self, protocol: WireProtocol, seats: Sequence[Seat], context: MatchContext = NO_CONTEXT, *,
                 limits: Limits | None = None, state_codec: Codec[Any] | None = None,
                 on_eject: Callable[[Ejection], Any] | None = None,
                 ejection_line: Callable[[Ejection], str] = str) -> None:
        self.protocol = protocol
        self.seats = list(seats)
        self.limits = context.limits_or(limits if limits is not None else Limits())
        self.time_limit = self.limits.call
        self.observers = list(context.observers)
        self.ejection_line = ejection_line   # a game's own wording of the line (Evolution's)
        self.cancel = context.cancel
        self.state_codec = state_codec
        self.on_eject = on_eject
        self.ejections: list[Ejection] = []
        self._index: dict[int, int] | None = None   # id(seat) -> index, made when first asked
        self._refused: dict[int, Any] = {}
        for factory in _EVERY_MATCH:
            observer = factory(self)
            if observer is not None:
                self.observers.append(observer)

    @property
    def watched(self) -> bool:
        return bool(self.observers)

    @property
    def names(self) -> list[str]:
        """Each seat's display name, in seat order."""
        return [seat.name for seat in self.seats]

    def index(self, seat: Seat) -> int:
        """The seat's index: its identity in this match."""
        if self._index is None:
            self._index = {id(s): i for i, s in enumerate(self.seats)}
        return self._index[id(seat)]

    def by_name(self, seats: Iterable[int]) -> list[int]:
        """Seat indices sorted by their names (the order results print; ties by seat)."""
        return sorted(seats, key=lambda i: (self.seats[i].name, i))

    # -- players ---------------------------------------------------------------------

    def decide(self, seat: Seat, method: str, *args: Any, legal: Legal | None = None,
               limit: float | None = None) -> Any:
        """Ask the seat's player for a decision: call ``method`` (protocol name) with
        ``args``, validate the reply, then ask ``legal(reply)``. The reply when all is
        well; FAILED once the seat is ejected — for a failed call or invalid reply, or for
        the reason ``legal`` gave (an illegal action, under the call's wire name; the
        refused reply stays readable through :meth:`refused`). ``limit`` replaces the
        match's per-call limit for this call."""
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
        if legal is not None:
            reason = legal(result)
            if reason is not None:
                self.eject(seat, reason, spec.wire, refused=result)
                return FAILED
        return result

    call = decide
    """The same path for a call whose reply decides nothing (a notification, an
    acknowledgement): FAILED, and the seat ejected, when it fails."""

    def decide_all(self, method: str, asks: Sequence[tuple[Seat, tuple[Any, ...]]], *,
                   legal: Callable[[Seat, Any], str | None] | None = None, limit: float | None = None) -> list[Any]:
        """A simultaneous round: ask ``method`` of every seat of ``asks`` (each with its own
        arguments) at once under one limit, and look at no reply before all are in
        (sealed moves, revealed together). Then, in the order of ``asks``, each reply is
        validated and judged by ``legal(seat, reply)`` as :meth:`decide` does, and the
        seats that fail are ejected. Returns the replies in that order, FAILED for a seat
        ejected now or before. Seats whose callers can wait side by side (their
        ``together``: ``core.calls.on_threads`` for guarded, isolated, remote and program
        seats) are asked at once; the others in turn (a trusted seat answers at once)."""
        if self.cancel is not None and self.cancel.is_set():
            raise MatchCancelled("the match was cancelled")
        spec = self.protocol.by_name[method]
        limit = self.time_limit if limit is None else limit
        live = [at for at, (seat, _args) in enumerate(asks) if seat.ejected is None]
        groups: list[tuple[Callable[[Sequence[Callable[[], Any]]], list[Any]], list[int]]] = []
        for at in live:   # by equal runners: one driver's bound method is a new object each time it is read
            runner = getattr(asks[at][0].caller, "together", None) or in_turn
            group = next((members for known, members in groups if known == runner), None)
            if group is None:
                groups.append((runner, [at]))
            else:
                group.append(at)
        answers: dict[int, tuple[bool, Any, float, float]] = {}
        for runner, members in groups:
            calls = [self._sealed(asks[at][0], spec, asks[at][1], limit) for at in members]
            answers.update(zip(members, runner(calls)))
        out: list[Any] = [FAILED] * len(asks)
        for at in live:
            seat, args = asks[at]
            ok, value, started, ended = answers[at]
            if self.observers:
                self._called(seat, spec, args, value if ok else FAILED, started, ended)
            if not ok:
                reason, kind = value
                self.eject(seat, reason, spec.wire, kind)
                continue
            reason = legal(seat, value) if legal is not None else None
            if reason is not None:
                self.eject(seat, reason, spec.wire, refused=value)
                continue
            out[at] = value
        return out

    @staticmethod
    def _sealed(seat: Seat, spec: Method, args: tuple[Any, ...], limit: float | None
                ) -> Callable[[], tuple[bool, Any, float, float]]:
        """One call of a simultaneous round, which never raises: ``(True, reply, started,
        ended)`` or ``(False, (reason, FailureKind), started, ended)``."""
        def call() -> tuple[bool, Any, float, float]:
            started = perf_counter()
            try:
                result = seat.caller(spec.name, args, limit)
                if spec.check is not None and not seat.trusted:
                    result = spec.check(result)
            except CallFailed as exc:
                return False, (exc.reason, exc.kind), started, perf_counter()
            except ValueError as exc:
                return False, (f"invalid reply: {exc}", FailureKind.INVALID_REPLY), started, perf_counter()
            return True, result, started, perf_counter()

        return call

    def _called(self, seat: Seat, spec: Method, args: tuple[Any, ...], result: Any, started: float,
                ended: float | None = None) -> None:
        latency = (perf_counter() if ended is None else ended) - started

        def encode() -> dict[str, Any]:
            reply = None if result is FAILED or spec.one_way else spec.result.encode(result)
            return {"seat": seat.name, "method": spec.wire, "args": spec.encode_args(args), "reply": reply,
                    "latency": latency}

        self.emit(Event(CALL, subject=(args, result), encode=encode))

    def eject(self, seat: Seat, reason: str, method: str, kind: FailureKind = FailureKind.ILLEGAL_ACTION,
              refused: Any = FAILED) -> None:
        """Record a misbehaving player (``method``: the wire name of the call it failed
        on; ``refused``: the reply the rules refused); it receives no further calls, and
        the referee's ``on_eject`` hook runs."""
        if seat.ejected is not None:
            return
        seat.ejected = reason
        ejection = Ejection(self.index(seat), seat.name, method, kind, reason)
        if refused is not FAILED:
            self._refused[ejection.seat] = refused
        self.ejections.append(ejection)
        # A time-out's reason names the limit of its own call (which may differ from the
        # game's usual limit), so nothing is added here.
        logger.info(self.ejection_line(ejection))
        if self.observers:
            self.emit(Event(EJECT, {"seat": seat.name, "method": method, "kind": kind.value, "reason": reason},
                            subject=ejection))
        if self.on_eject is not None:
            self.on_eject(ejection)

    def announce(self, method: str, winners: Iterable[Seat], losers: Iterable[Seat],
                 limit: float | None = None) -> list[Seat]:
        """The end of a game or tournament: ``method(True)`` to each winner in order, then
        ``method(False)`` to each loser; the winners that acknowledged (a failed call
        ejects, as always)."""
        acknowledged = [seat for seat in winners if self.call(seat, method, True, limit=limit) is not FAILED]
        for seat in losers:
            self.call(seat, method, False, limit=limit)
        return acknowledged

    def refused(self, seat: Seat) -> Any:
        """The reply the rules refused from an ejected seat; FAILED when its call failed."""
        return self._refused.get(self.index(seat), FAILED)

    @property
    def misbehaved(self) -> list[str]:
        """The ejected players' names in order of ejection (for display)."""
        return [e.name for e in self.ejections]

    # -- events ----------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        """Tell every observer; an observer that fails is dropped and never affects play."""
        for observer in list(self.observers):
            try:
                observer(event)
            except Exception as exc:
                self.observers.remove(observer)
                line = f"observer {getattr(observer, '__qualname__', type(observer).__name__)} dropped: {exc!r}"
                logger.warning("%s", line, exc_info=True)

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

    def result(self, winners: Iterable[int], misbehaved: Iterable[int] | None = None,
               ranking: Iterable[Iterable[int]] = (), scores: dict[int, Any] | None = None) -> MatchResult:
        """The one result of the game, by seat index (``misbehaved`` defaults to the
        ejection order); the end event carries it."""
        result = MatchResult(self.names, list(winners),
                             [e.seat for e in self.ejections] if misbehaved is None else list(misbehaved),
                             [list(group) for group in ranking], dict(scores or {}), list(self.ejections))
        if self.observers:
            self.emit(Event(END, {"result": result.to_record()}, subject=result))
        return result
