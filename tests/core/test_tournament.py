"""The game-agnostic tournament manager, exercised with Q players (fish.md 5.4 rules)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, strategies as st

from gameroom.core.match import Seat, guarded_seat, trusted_seat
from gameroom.core.limits import Limits
from gameroom.core.context import MatchContext
from gameroom.core.record import MatchResult
from gameroom.core.tournament import allocate, run_tournament
from gameroom.games.q.players import RaisingPlayer, StrategyPlayer
from gameroom.games.q.protocol import PROTOCOL
from gameroom.games.q.referee import QRules, run_game
from gameroom.games.q.state import new_game


@pytest.mark.parametrize("n, sizes", [(5, [3, 2]), (6, [4, 2]), (7, [4, 3]), (8, [4, 4]), (9, [4, 3, 2]),
                                      (10, [4, 4, 2]), (11, [4, 4, 3]), (12, [4, 4, 4]), (13, [4, 4, 3, 2])])
def test_allocation_sizes_of_the_spec(n: int, sizes: list[int]) -> None:
    games = allocate(list(range(n)), 2, 4)
    assert [len(g) for g in games] == sizes
    assert [p for g in games for p in g] == list(range(n))


@pytest.mark.parametrize("n, sizes", [(6, [3, 3]), (7, [4, 3]), (8, [5, 3]), (10, [5, 5]), (11, [5, 3, 3])])
def test_allocation_with_other_bounds(n: int, sizes: list[int]) -> None:
    assert [len(g) for g in allocate(list(range(n)), 3, 5)] == sizes


@given(st.integers(2, 60))
def test_allocation_keeps_everyone_in_bounds(n: int) -> None:
    games = allocate(list(range(n)), 2, 4)
    assert [p for g in games for p in g] == list(range(n))
    assert all(2 <= len(g) <= 4 for g in games)


def q_game(seed: int):
    def play(seats: list[Seat]) -> MatchResult:
        rng = random.Random(f"{seed}:{','.join(s.name for s in seats)}")
        return run_game(seats, new_game([s.name for s in seats], rng), MatchContext(limits=Limits(call=1.0)),
                        rules=QRules())
    return play


class Recorder:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def show(self, flag: bool) -> None:
        self.events.append(("show", flag))

    def show_next_round(self, games: list[list[str]]) -> None:
        self.events.append(("round", games))

    def show_winners(self, winners: list[list[str]]) -> None:
        self.events.append(("winners", winners))


def test_q_tournament_runs_rounds_until_a_final() -> None:
    seats = [trusted_seat(f"P{i}", StrategyPlayer(f"P{i}", "dag" if i % 2 else "ldasg")) for i in range(10)]
    seats[3] = guarded_seat("P3", RaisingPlayer("P3", "dag", "take-turn"))
    recorder = Recorder()
    result = run_tournament(seats, q_game(1), protocol=PROTOCOL, observers=[recorder])
    assert [s.name for s in result.failures] == ["P3"]
    assert result.winners and all(s.name != "P3" for s in result.winners)
    assert [len(g) for g in result.rounds[0]] == [4, 4, 2]
    assert recorder.events[0] == ("show", True)
    assert recorder.events[1] == ("round", result.rounds[0])
    # every later round is played by the previous round's winners
    for previous, later in zip(result.rounds, result.rounds[1:]):
        assert set(n for g in later for n in g) <= set(n for g in previous for n in g)


def test_same_seed_same_tournament() -> None:
    def run() -> list[list[str]]:
        seats = [trusted_seat(f"P{i}", StrategyPlayer(f"P{i}", "dag")) for i in range(7)]
        return run_tournament(seats, q_game(5), protocol=PROTOCOL).names()

    assert run() == run()


def test_one_player_wins_without_playing() -> None:
    seat = trusted_seat("Solo", StrategyPlayer("Solo"))
    result = run_tournament([seat], q_game(0), protocol=PROTOCOL)
    assert result.names() == [["Solo"], []] and result.rounds == []
