"""Untrusted local bots in isolated process groups: a bot that spins, eats memory or forks
is stopped at its limit, its whole process group is gone, and the game goes on."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from gameroom.core.calls import CallFailed
from gameroom.core.context import MatchContext
from gameroom.sandbox.isolation import IsolatedCaller, isolated_seat
from gameroom.core.limits import Limits
from gameroom.core.record import FailureKind
from gameroom.sandbox.policy import ResourceLimits
from gameroom.games import registry
from gameroom.bench.processes import in_group
from tests.sandbox.hostile_bots import HostileBot


def gone(pid: int) -> bool:
    """The process no longer runs (absent, or a zombie waiting for its parent)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return True


def group_gone(pgid: int) -> bool:
    return not in_group(pgid)


def play_q_with(seat_factory, attack: str, **extra):
    q = registry.game("q")
    seats = q.seats(["dag", "dag"], 3)
    bad = seat_factory(attack, **extra)
    outcome = q.play(3, [bad, *seats], context=MatchContext(limits=Limits(call=2.0)))
    return bad, outcome


def hostile_seat(attack: str, pids_file: str = "", limits: ResourceLimits | None = None):
    return isolated_seat("Bad", functools.partial(HostileBot, "Bad", attack, pids_file), limits)


def test_a_spinning_bot_is_killed_at_its_time_limit_and_the_game_goes_on() -> None:
    bad, outcome = play_q_with(hostile_seat, "spin")
    assert outcome.misbehaved == ["Bad"] and outcome.winners
    assert "time limit" in outcome.ejections[0].reason and "process group killed" in outcome.ejections[0].reason
    assert group_gone(bad.caller.pid)


def test_a_bot_that_eats_memory_stops_at_its_memory_limit() -> None:
    bad, outcome = play_q_with(hostile_seat, "eat", limits=ResourceLimits(memory_mb=400))
    assert outcome.misbehaved == ["Bad"] and outcome.winners
    # MemoryError at the limit; on a loaded machine the time limit may come first
    reason = outcome.ejections[0].reason
    assert "MemoryError" in reason or "time limit" in reason, reason
    assert group_gone(bad.caller.pid)


def test_a_bot_that_forks_is_stopped_and_every_child_goes_with_its_group(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    bad, outcome = play_q_with(hostile_seat, "fork", pids_file=str(pids_file), limits=ResourceLimits(processes=8))
    assert outcome.misbehaved == ["Bad"] and outcome.winners
    pids = [int(line) for line in pids_file.read_text().split()]
    assert pids, "the bot forked nothing"
    assert all(gone(pid) for pid in pids)
    assert group_gone(bad.caller.pid)


def test_a_cpu_limit_stops_a_bot_before_its_time_limit() -> None:
    caller = IsolatedCaller(functools.partial(HostileBot, "Bad", "spin"), limits=ResourceLimits(cpu_seconds=1))
    with pytest.raises(CallFailed, match="CPU limit of 1 s") as failure:
        caller("take_turn", (None,), 60.0)
    assert failure.value.kind is FailureKind.DISCONNECT
    assert group_gone(caller.pid)


def test_a_python_league_bot_sits_in_an_isolated_seat() -> None:
    from gameroom.league.bots import Bot

    seat = Bot("careful", "python", "tests.league.bots.pybot:CarefulBot", {"memory_mb": 800}).local_seat(
        registry.game("q"), "careful", 1)
    try:
        assert isinstance(seat.caller, IsolatedCaller) and not seat.trusted
        assert seat.caller.limits == ResourceLimits(memory_mb=800)
        assert seat.caller("name", (), 10.0) == "careful"
    finally:
        seat.caller.close()
    assert group_gone(seat.caller.pid)
