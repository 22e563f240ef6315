"""Simultaneous rounds in the referee skeleton: ``Match.decide_all`` asks every seat at
once under one limit, looks at no reply before all are in, then checks each in seat order."""

from __future__ import annotations

import threading
from typing import Any

from gameroom.core.calls import on_threads
from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, guarded_seat, trusted_seat
from gameroom.core.protocol import JSON, Method, WireProtocol
from gameroom.core.record import CALL, EJECT, FailureKind

PROTOCOL = WireProtocol("sealed", (Method("bid", "bid", (JSON,), JSON),))


class Bidder:
    """Bids ``answer``; with a barrier, only once every bidder of the round is being asked."""

    def __init__(self, answer: Any, barrier: threading.Barrier | None = None, raises: bool = False) -> None:
        self.answer, self.barrier, self.raises = answer, barrier, raises

    def bid(self, prize: Any) -> Any:
        if self.barrier is not None:
            self.barrier.wait(timeout=60)   # raises BrokenBarrierError unless all were asked at once
        if self.raises:
            raise RuntimeError("no bid")
        return self.answer


def test_guarded_seats_are_asked_at_once_and_judged_in_seat_order() -> None:
    barrier = threading.Barrier(3)
    seats = [guarded_seat("A", Bidder(3, barrier)), guarded_seat("B", Bidder(9, barrier)),
             guarded_seat("C", Bidder(5, barrier, raises=True))]
    events: list[Any] = []
    match = Match(PROTOCOL, seats, MatchContext(limits=Limits(call=60.0), observers=[events.append]))
    replies = match.decide_all("bid", [(seat, (10,)) for seat in seats],
                               legal=lambda seat, bid: None if bid <= 5 else f"bid {bid} over 5")
    assert replies == [3, FAILED, FAILED]
    assert [(e.seat, e.method, e.kind) for e in match.ejections] == [
        (1, "bid", FailureKind.ILLEGAL_ACTION), (2, "bid", FailureKind.EXCEPTION)]
    assert match.refused(seats[1]) == 9 and match.ejections[1].reason == "raised RuntimeError: no bid"
    kinds = [(event.kind, event.get("seat")) for event in events]
    assert kinds == [(CALL, "A"), (CALL, "B"), (EJECT, "B"), (CALL, "C"), (EJECT, "C")]
    # ejected seats are not asked again; a trusted seat answers in turn beside a guarded one
    seats[0].player.barrier = None
    trusted = trusted_seat("D", Bidder(2))
    again = match.decide_all("bid", [(seats[1], (4,)), (seats[0], (4,)), (trusted, (4,))])
    assert again == [FAILED, 3, 2] and len(match.ejections) == 2


def test_one_limit_for_the_round_and_a_late_seat_is_ejected_alone() -> None:
    never = threading.Event()

    class Late(Bidder):
        def bid(self, prize: Any) -> Any:
            never.wait(30)
            return 1

    seats = [guarded_seat("A", Bidder(1)), guarded_seat("B", Late(1))]
    match = Match(PROTOCOL, seats, MatchContext(limits=Limits(call=0.5)))
    try:
        assert match.decide_all("bid", [(seat, (1,)) for seat in seats]) == [1, FAILED]
    finally:
        never.set()
    assert match.ejections[0].kind is FailureKind.TIMEOUT and match.ejections[0].name == "B"


def test_on_threads_keeps_the_order_of_the_calls() -> None:
    assert on_threads([lambda i=i: i * i for i in range(5)]) == [0, 1, 4, 9, 16]
    assert on_threads([]) == [] and on_threads([lambda: "one"]) == ["one"]
