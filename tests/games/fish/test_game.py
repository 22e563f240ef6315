"""Complete games between trusted strategies (spec 3), and the xref game (spec 10.6) over
every reference fixture through the pure ``play_local_game``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from gameroom.games.fish.board import Position
from gameroom.games.fish.harness import decode_xref_input
from gameroom.games.fish.state import COLORS, SKIP, Color, GameState, Move
from gameroom.games.fish.strategies import GreedyStrategy, MaximinStrategy, NoPlacement, RandomStrategy
from tests.conftest import fixture_cases, read_json_values
from tests.games.fish.pure_game import play_local_game, play_strategies


def test_spec_10_6_examples() -> None:
    assert play_local_game(3, 4, 2, [("zed", 1), ("amy", 2)]) == ["amy", "zed"]
    assert play_local_game(4, 3, 3, [("carl", 2), ("bo", 1), ("al", 1)]) == ["al", "bo", "carl"]


@pytest.mark.parametrize("path", fixture_cases("fish", "xref"))
def test_xref_fixture(path: Path) -> None:
    inputs = read_json_values(path.read_text())
    expected = read_json_values(path.with_name(path.name.replace("-in.json", "-out.json")).read_text())
    got = [play_local_game(*decode_xref_input(v)) for v in inputs]
    assert got == expected


def test_a_greedy_game_places_all_penguins_and_ends_final() -> None:
    state = GameState.create(5, 5, 4, rng=random.Random(11))
    outcome = play_strategies(state, {c: GreedyStrategy() for c in COLORS})
    assert len(outcome.placements) == 4 * 2
    assert outcome.removed == []
    assert outcome.state.is_over()
    assert sorted(c for g in outcome.ranking for c in g) == sorted(COLORS)
    fish = sum(p.score for p in outcome.state.players)
    moves = [a for _, a in outcome.turns if a is not SKIP]
    assert fish == sum(random_board_fish(11)[m[0]] for m in moves)


def random_board_fish(seed: int) -> dict[Position, int]:
    board = GameState.create(5, 5, 4, rng=random.Random(seed)).board
    return {p: board.fish_at(p) for p in board.positions()}


def test_games_are_deterministic_for_a_seed() -> None:
    def play(seed: int) -> list[tuple[Color, object]]:
        state = GameState.create(4, 4, 3, rng=random.Random(seed))
        strategies = {c: RandomStrategy(random.Random(seed + i)) for i, c in enumerate(COLORS[:3])}
        return play_strategies(state, strategies).turns
    assert play(3) == play(3)


def test_placement_failure_removes_the_player_and_still_rotates() -> None:
    # 2x2 board, 3 players x 3 penguins. Round 1: red, white, brown place. Round 2 (three
    # calls, each to the first player of the current state): red places the last tile;
    # white cannot place and is removed (its penguin vanishes), and the rotation still
    # happens, moving brown behind red -- so red is called again and takes white's old
    # tile. Round 3 (two calls): brown cannot place; red takes brown's old tile.
    state = GameState.create(2, 2, 3, fish=1)
    outcome = play_strategies(state, {c: MaximinStrategy(1) for c in COLORS[:3]})
    assert outcome.placements == [(Color.RED, (0, 0)), (Color.WHITE, (0, 1)),
                                  (Color.BROWN, (1, 0)), (Color.RED, (1, 1)),
                                  (Color.RED, (0, 1)), (Color.RED, (1, 0))]
    assert outcome.removed == [Color.BROWN, Color.WHITE]  # most recent first
    assert outcome.ranking == [[Color.RED]]


def test_a_player_that_cannot_move_is_skipped_without_being_asked() -> None:
    # 2x5 board, 3 players x 3 penguins: only (1,4) stays free; red cannot reach it.
    asked: list[Color] = []

    class Recording(MaximinStrategy):
        def move(self, state: GameState) -> Move | None:
            asked.append(state.players[0].color)
            return super().move(state)

    state = GameState.create(2, 5, 3, fish=1)
    outcome = play_strategies(state, {c: Recording(1) for c in COLORS[:3]})
    assert outcome.turns == [(Color.RED, SKIP), (Color.WHITE, ((0, 4), (1, 4)))]
    assert asked == [Color.WHITE]
    assert outcome.ranking == [[Color.WHITE], [Color.BROWN, Color.RED]]


class Cheater:
    """Places like the course strategy, then moves a penguin onto itself."""

    def place(self, state: GameState) -> Position:
        return MaximinStrategy(1).place(state)

    def move(self, state: GameState) -> Move | None:
        p = state.players[0].places[0]
        return (p, p)


class Stuck:
    def place(self, state: GameState) -> Position:
        raise NoPlacement("never")

    def move(self, state: GameState) -> Move | None:
        return None


def test_illegal_moves_remove_the_player_and_its_penguins() -> None:
    state = GameState.create(3, 3, 2, fish=2)
    outcome = play_strategies(state, {Color.RED: Cheater(), Color.WHITE: GreedyStrategy()})
    assert outcome.removed == [Color.RED]
    assert outcome.ranking == [[Color.WHITE]] and outcome.winners == [Color.WHITE]
    assert outcome.state.colors() == [Color.WHITE]


def test_everybody_removed_gives_no_winners() -> None:
    state = GameState.create(3, 3, 2, fish=2)
    outcome = play_strategies(state, {Color.RED: Stuck(), Color.WHITE: Stuck()})
    assert outcome.ranking == [] and outcome.winners == []
    assert outcome.removed == [Color.WHITE, Color.RED]  # most recent removal first
    # 1x1 board: b places, a cannot; in round 2 b cannot place its second penguin
    assert play_local_game(1, 1, 1, [("b", 1), ("a", 1)]) == []
