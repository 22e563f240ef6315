"""Fish tournaments on the core manager (spec 5.4): allocation, rounds, the stagnation rule,
start/end calls, failures across games, the observer, and reproducible random boards."""

from __future__ import annotations

from typing import Any

import pytest

from gameroom.core.match import Seat, guarded_seat, trusted_seat
from gameroom.core.misbehaviour import hang
from gameroom.core.tournament import allocate
from gameroom.games.fish.players import BaddiePlayer, StrategyPlayer
from gameroom.games.fish.strategies import GreedyStrategy, MaximinStrategy
from gameroom.games.fish.tournament import fish_game, run_fish_tournament
from tests.core.test_tournament import Recorder


def greedy(name: str) -> Seat:
    return trusted_seat(name, StrategyPlayer(GreedyStrategy(), name))


def baddie(kind: str, name: str) -> Seat:
    return guarded_seat(name, BaddiePlayer(kind, name, hang=hang))


def test_spec_b4_allocation() -> None:
    assert allocate(list("abcdefghi")) == [list("abcd"), list("efg"), list("hi")]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 10, 13])
def test_every_size_ends_with_known_players(n: int) -> None:
    seats = [greedy(f"P{i}") for i in range(n)]
    result = run_fish_tournament(seats, seed=n)
    assert result.failures == []
    assert 1 <= len(result.winners) <= max(1, n)
    assert set(result.winners) <= set(seats)
    if n <= 4:
        assert len(result.rounds) == (0 if n < 2 else 1)


def test_ten_players_round_structure_and_observer() -> None:
    seats = [greedy(f"P{i}") for i in range(10)]
    recorder = Recorder()
    result = run_fish_tournament(seats, seed=3, observers=[recorder])
    assert [len(g) for g in result.rounds[0]] == [4, 4, 2]
    assert recorder.events[0] == ("show", True)
    assert recorder.events[1] == ("round", result.rounds[0])
    for previous, later in zip(result.rounds, result.rounds[1:]):
        assert set(n for g in later for n in g) < set(n for g in previous for n in g)
    assert all(s.player.won is True for s in result.winners)
    assert all(s.player.won is False for s in seats if s not in result.winners)


def test_same_seed_same_tournament_different_seed_may_differ() -> None:
    def run(seed: int) -> Any:
        seats = [greedy(f"P{i}") for i in range(9)]
        result = run_fish_tournament(seats, seed=seed)
        return result.names(), result.rounds

    assert run(4) == run(4)
    assert len({str(run(s)) for s in range(6)}) > 1


def test_baddies_fail_and_the_tournament_goes_on() -> None:
    seats = [greedy(f"G{i}") for i in range(5)]
    kinds = ["bad-start-of-tournament", "bad-playing-as", "bad-playing-with", "bad-turn-choice",
             "bad-end-of-tournament", "bad-init-choice", "bad-init-time", "bad-turn-time"]
    seats += [baddie(k, f"B{i}") for i, k in enumerate(kinds)]
    result = run_fish_tournament(seats, fish=2, time_limit=0.3, ready_time=0.3)
    failed = {s.name for s in result.failures}
    assert {"B1", "B2", "B3", "B5", "B6", "B7"} <= failed
    assert not failed & {f"G{i}" for i in range(5)}
    assert result.winners and all(s.name not in failed for s in result.winners)
    # bad-start / bad-end fail at the end only, whether they won or lost
    assert {"B0", "B4"} <= failed


def test_scenario_seven_in_process() -> None:
    """Five baddies only (scenarios.json #7): nobody wins, everyone fails."""
    kinds = ["bad-start-of-tournament", "bad-playing-as", "bad-playing-with", "bad-turn-choice",
             "bad-end-of-tournament"]
    seats = [baddie(k, f"B{i}") for i, k in enumerate(kinds)]
    assert run_fish_tournament(seats, fish=2, time_limit=0.5).counts() in ([0, 5], [0, 4])


def test_start_failure_drops_a_player_before_any_game() -> None:
    class NoStart(StrategyPlayer):
        def start_of_tournament(self, start: bool) -> None:
            raise RuntimeError("no")

    seats = [greedy("A"), greedy("B"), guarded_seat("C", NoStart(GreedyStrategy(), "C"))]
    result = run_fish_tournament(seats, fish=2)
    assert [s.name for s in result.failures] == ["C"]
    assert result.rounds == [[["A", "B"]]]


def test_stagnation_stops_when_nobody_is_eliminated() -> None:
    """Identical players on uniform boards tie in every game: round one eliminates nobody."""
    seats = [greedy(f"P{i}") for i in range(6)]
    winners_by_game: list[Any] = []
    play = fish_game(rows=2, columns=9, fish=1)

    def counting(game: list[Seat]) -> Any:
        record = play(game)
        winners_by_game.append(len(record.winners) == len(game))
        return record

    from gameroom.core.tournament import run_tournament
    from gameroom.games.fish.protocol import PROTOCOL

    result = run_tournament(seats, counting, protocol=PROTOCOL, start_method="start_of_tournament",
                            end_method="end_of_tournament")
    if all(winners_by_game[: len(result.rounds[0])]):
        assert len(result.rounds) == 1 and len(result.winners) == 6


def test_maximin_players_in_a_tournament() -> None:
    seats = [trusted_seat(f"M{i}", StrategyPlayer(MaximinStrategy(1 + i % 2), f"M{i}")) for i in range(6)]
    result = run_fish_tournament(seats, seed=1)
    assert result.winners and not result.failures


def test_a_tournament_of_one_name_fails_exactly_the_misbehaving_seat() -> None:
    """Every player is called "P" (spec 7 allows it): the failures and winners are seats."""
    seats = [greedy("P") for _ in range(6)]
    seats[3] = baddie("bad-turn-choice", "P")
    result = run_fish_tournament(seats, fish=2)
    assert result.failures == [seats[3]]
    assert result.winners and seats[3] not in result.winners and set(result.winners) <= set(seats)
