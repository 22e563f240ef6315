"""The referee skeleton: ``Match.decide`` (call, reply check, the rules' legality check,
ejection under the call's wire name, the referee's ``on_eject`` hook), the
``MatchContext``, and results that name players by seat, so duplicate names stay apart."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, MatchCancelled, guarded_seat, ranking_by_score, trusted_seat
from gameroom.core.misbehaviour import hang
from gameroom.core.protocol import JSON, VOID, Method, WireProtocol
from gameroom.core.record import (CALL, EJECT, END, STATE, Ejection, FailureKind, MatchRecord, MatchResult,
                                  names_only)

PROTOCOL = WireProtocol("toy", (
    Method("pick", "pick-one", (JSON,), JSON),
    Method("told", "told", (JSON,), VOID),
))


class Picker:
    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def pick(self, options: Any) -> Any:
        return self.answer

    def told(self, _message: Any) -> None:
        return None


class Raiser(Picker):
    def pick(self, options: Any) -> Any:
        raise RuntimeError("boom")


class Sleeper(Picker):
    def pick(self, options: Any) -> Any:
        hang()


def one_of(options: list[int]) -> Any:
    return lambda reply: None if reply in options else f"{reply} is not one of {options}"


def test_a_refused_decision_ejects_under_the_wire_name_and_runs_the_hook_after_the_event() -> None:
    events: list[Any] = []
    hooked: list[tuple[Ejection, int]] = []
    seats = [trusted_seat("A", Picker(2)), trusted_seat("B", Picker(9))]
    match = Match(PROTOCOL, seats, MatchContext(observers=[events.append]),
                  on_eject=lambda ejection: hooked.append((ejection, len(events))))
    assert match.decide(seats[0], "pick", [1, 2, 3], legal=one_of([1, 2, 3])) == 2
    assert match.decide(seats[1], "pick", [1, 2, 3], legal=one_of([1, 2, 3])) is FAILED
    ejection = match.ejections[0]
    assert ejection == Ejection(1, "B", "pick-one", FailureKind.ILLEGAL_ACTION, "9 is not one of [1, 2, 3]")
    assert seats[1].ejected == ejection.reason and seats[0].ejected is None
    assert hooked == [(ejection, 3)]                       # after call, call, eject events
    assert [e.kind for e in events] == [CALL, CALL, EJECT]
    assert match.refused(seats[1]) == 9
    assert match.decide(seats[1], "pick", [9]) is FAILED   # never called again
    assert len(events) == 3


def test_a_failed_call_is_ejected_with_its_kind_and_refuses_nothing() -> None:
    seats = [guarded_seat("R", Raiser(0)), guarded_seat("S", Sleeper(0))]
    hooked: list[Ejection] = []
    match = Match(PROTOCOL, seats, MatchContext(limits=Limits(call=0.2)), on_eject=hooked.append)
    assert match.decide(seats[0], "pick", [], legal=one_of([0])) is FAILED
    assert match.decide(seats[1], "pick", [], legal=one_of([0])) is FAILED
    assert [(e.seat, e.kind) for e in hooked] == [(0, FailureKind.EXCEPTION), (1, FailureKind.TIMEOUT)]
    assert match.refused(seats[0]) is FAILED and "time limit of 0.2 s" in hooked[1].reason


def test_the_context_brings_limits_observers_log_and_cancel() -> None:
    assert MatchContext(observers=iter([print])).observers == (print,)
    assert NO_CONTEXT.limits_or(Limits(call=6.0)) == Limits(call=6.0)
    assert MatchContext(limits=Limits()).limits_or(Limits(call=6.0)) == Limits()
    assert Match(PROTOCOL, [], limits=Limits(call=6.0)).time_limit == 6.0
    assert Match(PROTOCOL, [], MatchContext(limits=Limits(call=1.0)), limits=Limits(call=6.0)).time_limit == 1.0
    logged: list[str] = []
    seat = trusted_seat("A", Raiser(0))
    Match(PROTOCOL, [seat], MatchContext(log=logged.append)).decide(seat, "pick", [])
    assert logged == ["A dropped out on pick-one: raised RuntimeError: boom"]
    cancel = threading.Event()
    cancel.set()
    seat = trusted_seat("A", Picker(0))
    with pytest.raises(MatchCancelled):
        Match(PROTOCOL, [seat], MatchContext(cancel=cancel)).call(seat, "told", "hello")


def test_announce_tells_winners_then_losers_and_keeps_those_who_acknowledged() -> None:
    class Refuses(Picker):
        def told(self, _message: Any) -> None:
            raise RuntimeError("no")

    seats = [trusted_seat("A", Picker(0)), trusted_seat("B", Refuses(0)), trusted_seat("C", Picker(0))]
    events: list[Any] = []
    match = Match(PROTOCOL, seats, MatchContext(observers=[events.append]))
    assert match.announce("told", seats[:2], seats[2:]) == [seats[0]]
    assert [(e.get("seat"), e.get("args")) for e in events if e.kind == CALL] == [("A", [True]), ("B", [True]),
                                                                                    ("C", [False])]
    assert match.ejections[0].seat == 1


def test_results_name_seats_and_keep_duplicate_names_apart() -> None:
    seats = [trusted_seat("twin", Picker(0)), trusted_seat("twin", Raiser(0)), trusted_seat("solo", Picker(0))]
    ends: list[Any] = []
    match = Match(PROTOCOL, seats, MatchContext(observers=[ends.append]))
    for seat in seats:
        match.decide(seat, "pick", [])
    scores = {0: 5, 2: 5}
    result = match.result(match.by_name([2, 0]), ranking=ranking_by_score(scores), scores=scores)
    assert (result.winner_seats, result.misbehaved_seats, result.ranking_seats) == ([2, 0], [1], [[0, 2]])
    assert (result.winners, result.misbehaved, result.to_json()) == (["solo", "twin"], ["twin"],
                                                                    [["solo", "twin"], ["twin"]])
    assert result.ejections[0].seat == 1 and result.seat_scores == {0: 5, 2: 5}
    end = next(e for e in ends if e.kind == END)
    again = MatchResult.from_record(end.data["result"])
    assert again == result


def test_a_result_written_before_seats_were_identity_still_loads() -> None:
    seats = ["A", "twin", "twin", "B"]
    result = MatchResult(seats, [2, 0], [1, 3], [[2, 0]], {2: 7, 0: 7},
                         [Ejection(1, "twin", "setup", FailureKind.TIMEOUT, "late"),
                          Ejection(3, "B", "take-turn", FailureKind.ILLEGAL_ACTION, "bad")])
    old = names_only(result.to_record())
    assert "winner_seats" not in old and all("seat" not in e for e in old["ejections"])
    loaded = MatchResult.from_record(old, seats)
    # A name's k-th occurrence takes the k-th seat of that name: the old record cannot
    # tell the twins apart, so the winner twin comes back as the first one.
    assert loaded.winners == result.winners and loaded.misbehaved == result.misbehaved
    assert loaded.winner_seats == [1, 0] and loaded.misbehaved_seats == [1, 3]
    assert [e.seat for e in loaded.ejections] == [1, 3] and loaded.scores == result.scores
    record = MatchRecord("q", 1, {}, seats, [], result)
    lines = record.lines_list()
    lines[-1] = json.dumps({"result": old})
    assert MatchRecord.from_lines(lines).result.misbehaved_seats == [1, 3]   # type: ignore[union-attr]
    assert MatchResult.from_record(old).names == ["twin", "A", "B"]          # no header: the names as shown


def test_state_snapshots_cost_nothing_unwatched() -> None:
    match = Match(PROTOCOL, [])
    match.state(object(), "not encoded")   # no observer: nothing happens
    seen: list[Any] = []
    Match(PROTOCOL, [], MatchContext(observers=[seen.append])).state(None, "shown", note=1)
    assert [(e.kind, e.get("caption"), e.get("note")) for e in seen] == [(STATE, "shown", 1)]
