"""The benchmark times only games that were played: a game whose seat was ejected (an
isolated player that could not be made, a call that failed) stops it with the reason."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest

from gameroom.bench import seats
from gameroom.core.record import Ejection, FailureKind, MatchResult
from gameroom.core.workload import Lineup
from gameroom.games import registry


def test_a_game_with_an_ejected_seat_is_not_timed() -> None:
    fish = registry.game("fish")
    broken = dataclasses.replace(fish, strategies={**fish.strategies, "broken": lambda name, seed: object()})
    lineup = Lineup("fish, broken", ("broken", "greedy"))
    with pytest.raises(seats.GameNotPlayed, match=r"fish game of seed 0 on guarded seats was not played: 1 of 2 "
                                                  r"seats ejected; the first, P1, on .*: raised AttributeError"):
        seats.play_games(broken, lineup, "guarded", 1)
    assert seats.play_games(fish, Lineup("fish", ("greedy", "greedy")), "guarded", 2).games == 2


def test_every_kind_of_missing_result_is_refused() -> None:
    fish = registry.game("fish")
    with pytest.raises(seats.GameNotPlayed, match="gave no result"):
        seats.check_played(fish, "isolated", 3, None)
    ejected = MatchResult(["P1", "P2"], [], [0, 1], ejections=[
        Ejection(0, "P1", "start", FailureKind.DISCONNECT, "player could not be created: KeyError: 'goofspiel'"),
        Ejection(1, "P2", "start", FailureKind.DISCONNECT, "player could not be created: KeyError: 'goofspiel'")])
    with pytest.raises(seats.GameNotPlayed, match="2 of 2 seats ejected; the first, P1, on start: player could not "
                                                  "be created: KeyError: 'goofspiel'"):
        seats.check_played(fish, "isolated", 3, ejected)
    seats.check_played(fish, "trusted", 3, MatchResult(["P1", "P2"], [0]))


def test_the_command_says_why_in_one_line_and_fails() -> None:
    env = {**os.environ, "GAMEROOM_SANDBOX": "nowhere"}   # isolated seats cannot be made
    run = subprocess.run([sys.executable, "-m", "gameroom.bench", "fish", "--games", "1", "--isolated-games", "1"],
                         capture_output=True, text=True, env=env, timeout=300, check=False)
    assert run.returncode == 1 and run.stderr.strip() == (
        "gameroom.bench: error: GAMEROOM_SANDBOX must be one of auto, bwrap, rlimits, got 'nowhere'"), run.stderr
    assert "isolated" not in run.stdout   # no figure of the games that were not played
