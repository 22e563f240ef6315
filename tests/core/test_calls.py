"""Safe calls: exceptions, time-outs and bad replies become ejections with reasons."""

import logging
import threading
import time

import pytest

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.calls import CallFailed, ThreadedCaller, direct_caller
from gameroom.sandbox.isolation import IsolatedCaller
from gameroom.core.match import FAILED, Match, guarded_seat, trusted_seat
from gameroom.core.misbehaviour import hang
from gameroom.core.protocol import Method, WireProtocol, VOID
from gameroom.core.wire import WireError

from tests.conftest import logged_lines
from tests.core.toy_players import Spinner, Toy


def check_int(value):
    if not isinstance(value, int):
        raise WireError(f"expected an int, got {value!r}")
    return value


PROTOCOL = WireProtocol("toy", (
    Method("ask", "ask", (), check=check_int, result=VOID),
    Method("bye", "bye", (), VOID, final=True),
))


class Good:
    def ask(self):
        return 42

    def bye(self):
        return None


class Raises(Good):
    def ask(self):
        raise RuntimeError("boom")


class Hangs(Good):
    def ask(self):
        hang()


class Garbage(Good):
    def ask(self):
        return "not a number"


def test_direct_caller_catches_exceptions():
    call = direct_caller(Raises())
    with pytest.raises(CallFailed, match="RuntimeError: boom"):
        call("ask", (), None)


def test_threaded_caller_stops_waiting_at_the_limit():
    call = ThreadedCaller(Hangs())
    with pytest.raises(CallFailed, match="time limit of 0.2 s"):
        call("ask", (), 0.2)


def test_match_ejects_in_order_with_reasons():
    seats = [guarded_seat("G", Good()), guarded_seat("R", Raises()), guarded_seat("H", Hangs()),
             guarded_seat("X", Garbage())]
    match = Match(PROTOCOL, seats, limits=Limits(call=0.3))
    results = [match.call(seat, "ask") for seat in seats]
    assert results[0] == 42 and all(r is FAILED for r in results[1:])
    assert match.misbehaved == ["R", "H", "X"]
    reasons = [f.reason for f in match.ejections]
    assert "boom" in reasons[0] and "time limit" in reasons[1] and "expected an int" in reasons[2]
    # an ejected player is never called again
    assert match.call(seats[1], "ask") is FAILED and match.misbehaved == ["R", "H", "X"]


def test_trusted_seat_skips_the_thread():
    seat = trusted_seat("G", Good())
    match = Match(PROTOCOL, [seat], limits=Limits(call=1))
    before = threading.active_count()
    assert match.call(seat, "ask") == 42
    assert threading.active_count() == before


def test_failing_observer_is_dropped_and_does_not_stop_play():
    def bad_observer(_event):
        raise ValueError("broken observer")

    seen = []
    match = Match(PROTOCOL, [], MatchContext(observers=[bad_observer, seen.append]), limits=Limits(call=1))
    match.state(1)
    match.state(2)
    assert [e.subject for e in seen] == [1, 2] and len(match.observers) == 1


def test_isolated_caller_kills_a_cpu_bound_loop():
    caller = IsolatedCaller(Spinner)
    assert caller("ask", (), 10) == 7
    started = time.monotonic()
    with pytest.raises(CallFailed, match="process group killed"):
        caller("spin", (), 0.5)
    assert not caller.alive
    # the spinning process is gone: later calls fail at once
    with pytest.raises(CallFailed):
        caller("ask", (), 10)
    assert time.monotonic() - started < 10


def test_isolated_caller_reports_exceptions_and_ends_the_player():
    caller = IsolatedCaller(Toy)
    assert caller("divide", (6, 3), 10) == 2
    with pytest.raises(CallFailed, match="ZeroDivisionError"):
        caller("divide", (1, 0), 10)
    # a failed call ejects the player: nothing of it keeps running
    assert not caller.alive
    with pytest.raises(CallFailed):
        caller("divide", (6, 3), 10)


class Sleeps(Good):
    def ask(self):
        time.sleep(1.0)
        return 42


def test_a_time_out_is_logged_with_the_limit_of_its_own_call(caplog: pytest.LogCaptureFixture):
    """Issue 8: Fish logged "... time limit of 30 s [time limit 10]", the match's usual
    limit appended to a call that had its own."""
    caplog.set_level(logging.INFO, logger="gameroom")
    seat = guarded_seat("slow", Sleeps())
    match = Match(PROTOCOL, [seat], limits=Limits(call=10))
    assert match.call(seat, "ask", limit=0.1) is FAILED
    assert logged_lines(caplog, "gameroom.core.match") == ["slow dropped out on ask: no reply within the time limit of 0.1 s"]
