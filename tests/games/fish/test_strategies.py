"""Built-in strategies (spec 9.1-9.4): placement, greedy, random, N-turn maximin."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.games.fish.board import Board
from gameroom.games.fish.state import Color, GameState, Player
from gameroom.games.fish.strategies import (GreedyStrategy, MaximinStrategy, NoPlacement,
                                            RandomStrategy, first_free_tile, greedy_move,
                                            greedy_placement, make_strategy, maximin_move,
                                            maximin_value, tie_break, zigzag_placement)
from gameroom.games.fish.tree import GameTree
from tests.games.fish.helpers import example_state, literal_maximin, literal_value, states


def test_tie_break_is_lexicographic_on_from_then_to() -> None:
    moves = [((2, 1), (0, 1)), ((1, 3), (4, 0)), ((1, 3), (2, 2)), ((1, 4), (0, 0))]
    assert tie_break(moves) == ((1, 3), (2, 2))


def test_greedy_spec_b3() -> None:
    assert greedy_move(example_state()) == ((2, 1), (3, 0))


def test_greedy_placement_takes_the_richest_free_tile_first_in_row_major_order() -> None:
    state = GameState(Board.from_rows([[1, 5, 2], [5, 3, 0]]), [Player(Color.RED), Player(Color.WHITE)])
    assert greedy_placement(state) == (0, 1)
    state.place((0, 1))
    assert greedy_placement(state) == (1, 0)


def test_zigzag_placement_takes_the_first_free_tile() -> None:
    state = GameState(Board.from_rows([[0, 5, 2], [5, 3, 0]]), [Player(Color.RED, 0, [(0, 1)])])
    assert zigzag_placement(state) == (0, 2) == first_free_tile(state)
    state.place((0, 2))
    state.place((1, 0))
    state.place((1, 1))
    assert first_free_tile(state) is None
    with pytest.raises(NoPlacement):
        zigzag_placement(state)
    with pytest.raises(NoPlacement):
        GreedyStrategy().place(state)
    with pytest.raises(NoPlacement):
        RandomStrategy(1).place(state)


def test_no_move_when_the_player_cannot_move() -> None:
    state = GameState(Board.from_rows([[1, 0, 0]]), [Player(Color.RED, 0, [(0, 0)])])
    for strategy in (GreedyStrategy(), RandomStrategy(3), MaximinStrategy(1), MaximinStrategy(2)):
        assert strategy.move(state) is None


def test_random_strategy_picks_a_non_maximal_candidate_reproducibly() -> None:
    state = example_state()
    picks = [RandomStrategy(seed).move(state) for seed in range(30)]
    assert picks == [RandomStrategy(seed).move(state) for seed in range(30)]
    fish = state.board.fish_at
    assert all(p is not None and fish(p[1]) < 4 for p in picks)
    assert len(set(picks)) > 1
    spots = {RandomStrategy(seed).place(GameState(state.board, [Player(Color.RED)]))
             for seed in range(30)}
    assert all(state.board.fish_at(p) < 5 for p in spots)


def test_random_strategy_falls_back_to_greedy_when_all_candidates_are_maximal() -> None:
    state = GameState(Board.uniform(3, 3, 2), [Player(Color.RED, 0, [(1, 1)])])
    assert RandomStrategy(random.Random(4)).move(state) == tie_break(state.legal_moves())
    assert RandomStrategy(4).place(GameState(Board.uniform(2, 2, 3), [Player(Color.RED)])) == (0, 0)


def test_maximin_spec_10_5_examples() -> None:
    assert maximin_move(example_state(), 1) == ((0, 0), (1, 0))
    assert maximin_move(example_state(), 2) == ((0, 0), (2, 0))
    assert MaximinStrategy(2).move(example_state()) == ((0, 0), (2, 0))


def test_last_look_ahead_move_is_worth_the_tile_left() -> None:
    state = example_state()
    tree = GameTree(state.copy())
    for m in tree.moves():
        v1 = literal_value(tree.child(m), 0, Color.WHITE)
        assert v1 == 3 + state.board.fish_at(m[0])


@settings(max_examples=150)
@given(states(max_rows=4, max_columns=4, max_penguins=2, min_players=1), st.integers(1, 2))
def test_maximin_agrees_with_the_literal_spec(state: GameState, depth: int) -> None:
    if not state.players:
        return
    assert maximin_move(state, depth) == literal_maximin(state, depth)
    assert maximin_value(state, depth) == literal_value(GameTree(state.copy()), depth,
                                                        state.players[0].color)


@settings(max_examples=30)
@given(states(max_rows=3, max_columns=4, max_players=3, max_penguins=2, min_players=2))
def test_maximin_depth_three_agrees_with_the_literal_spec(state: GameState) -> None:
    assert maximin_move(state, 3) == literal_maximin(state, 3)


def test_maximin_leaves_the_state_untouched() -> None:
    state = example_state()
    before = state.copy()
    maximin_move(state, 3)
    assert state == before


def test_make_strategy() -> None:
    assert isinstance(make_strategy("greedy"), GreedyStrategy)
    assert isinstance(make_strategy("random", rng=3), RandomStrategy)
    m = make_strategy("maximin", depth=2)
    assert isinstance(m, MaximinStrategy) and m.depth == 2
    with pytest.raises(ValueError):
        make_strategy("clever")
    with pytest.raises(ValueError):
        MaximinStrategy(0)
