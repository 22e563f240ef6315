"""Game state and rules (spec 2.5-2.6, 3): placing, moving, turn order, skipping, game over,
ranking, apply/undo."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.games.fish.board import Board
from gameroom.games.fish.state import (COLORS, SKIP, Color, GameState, IllegalAction, Player,
                                       penguins_per_player)
from tests.games.fish.helpers import example_state, literal_actions, states


def test_create_assigns_colors_in_order() -> None:
    state = GameState.create(3, 4, 3, fish=2)
    assert state.colors() == [Color.RED, Color.WHITE, Color.BROWN]
    assert all(p.score == 0 and p.places == [] for p in state.players)
    assert state.board == Board.uniform(3, 4, 2)
    seeded = GameState.create(3, 4, 2, rng=random.Random(5))
    assert seeded == GameState.create(3, 4, 2, rng=random.Random(5))


def test_penguins_per_player() -> None:
    assert [penguins_per_player(n) for n in (2, 3, 4)] == [4, 3, 2]


def test_place_puts_the_penguin_at_the_front_without_rotating() -> None:
    state = GameState.create(2, 3, 2, fish=1)
    state.place((0, 0))
    state.place((1, 2))
    assert state.players[0].places == [(1, 2), (0, 0)]
    assert state.colors() == [Color.RED, Color.WHITE]
    with pytest.raises(IllegalAction):
        state.place((0, 0))  # occupied
    state.board.remove_tile((0, 1))
    with pytest.raises(IllegalAction):
        state.place((0, 1))  # hole
    with pytest.raises(IllegalAction):
        state.place((5, 5))  # off the board


def test_move_scores_the_tile_left_and_puts_the_target_first() -> None:
    state = example_state()
    assert state.move(((0, 0), (2, 0))) == 2
    white = state.players[0]
    assert white.score == 5 and white.places == [(2, 0), (2, 1)]
    assert state.board.fish_at((0, 0)) == 0
    assert state.colors() == [Color.WHITE, Color.RED]  # no rotation
    state.rotate()
    assert state.colors() == [Color.RED, Color.WHITE]


def test_canonical_action_order_spec_b2() -> None:
    assert example_state().legal_moves() == [
        ((0, 0), (1, 0)), ((0, 0), (2, 0)), ((2, 1), (0, 1)), ((2, 1), (3, 0)), ((2, 1), (1, 0))]


@settings(max_examples=300)
@given(states())
def test_legal_moves_follow_the_spec_literally(state: GameState) -> None:
    if state.players:
        assert state.legal_moves() == literal_actions(state)


def test_skip_and_final_states() -> None:
    # red is boxed in at (0,0) by holes; white can still move
    board = Board.from_rows([[1, 0, 0], [0, 0, 2], [0, 3, 3]])
    state = GameState(board, [Player(Color.RED, 0, [(0, 0)]), Player(Color.WHITE, 0, [(1, 2)])])
    assert state.legal_moves() == []
    assert state.must_skip() and not state.is_over()
    assert state.possible_actions() is SKIP and state.actions() == [SKIP]
    assert state.is_legal(SKIP)
    state.apply(SKIP)
    assert state.colors() == [Color.WHITE, Color.RED]
    assert state.legal_moves() == [((1, 2), (2, 2))]
    state.board.remove_tile((2, 2))
    assert state.is_over() and state.possible_actions() == [] and state.actions() == []
    assert not state.is_legal(SKIP)


def test_removing_a_player_can_unstick_another() -> None:
    board = Board.from_rows([[1], [1], [1]])
    state = GameState(board, [Player(Color.RED, 0, [(0, 0)]), Player(Color.WHITE, 0, [(1, 0)]),
                              Player(Color.BROWN, 0, [(2, 0)])])
    assert not state.can_move(state.players[0])
    state.remove_player(Color.WHITE)
    assert state.legal_moves() == [((0, 0), (1, 0))]
    assert state.board.fish_at((1, 0)) == 1  # the tiles stay
    with pytest.raises(IllegalAction):
        state.remove_player(Color.WHITE)


def test_ranking_groups_by_score_keeping_turn_order_among_ties() -> None:
    state = GameState(Board.uniform(1, 1, 1), [
        Player(Color.BROWN, 3), Player(Color.RED, 5), Player(Color.WHITE, 3), Player(Color.BLACK, 5)])
    assert state.ranking() == [[Color.RED, Color.BLACK], [Color.BROWN, Color.WHITE]]
    assert state.winners() == [Color.RED, Color.BLACK]
    assert GameState(Board.uniform(1, 1, 1), []).ranking() == []
    assert GameState(Board.uniform(1, 1, 1), []).winners() == []


def test_score_queries() -> None:
    state = example_state()
    assert state.score(Color.RED) == 5 and state.score(Color.BLACK) is None
    assert state.player(Color.WHITE) is state.players[0]


def test_after_leaves_the_original_alone() -> None:
    state = example_state()
    before = state.copy()
    after = state.after(((2, 1), (3, 0)))
    assert state == before
    assert after.colors() == [Color.RED, Color.WHITE]
    assert after.players[1].places == [(3, 0), (0, 0)] and after.players[1].score == 4


@settings(max_examples=200)
@given(states(min_players=1), st.randoms(use_true_random=False))
def test_apply_then_undo_restores_the_state_exactly(state: GameState, rnd: random.Random) -> None:
    original = state.copy()
    undos = []
    for _ in range(12):
        actions = state.actions()
        if not actions:
            break
        action = rnd.choice(actions)
        assert state.is_legal(action)
        undos.append(state.apply(action))
    for undo in reversed(undos):
        state.undo(undo)
    assert state == original


@settings(max_examples=100)
@given(states(min_players=2), st.randoms(use_true_random=False))
def test_every_move_removes_a_tile_so_games_end(state: GameState, rnd: random.Random) -> None:
    tiles = len(state.board.tiles())
    turns = 0
    while True:
        actions = state.actions()
        if not actions:
            break
        action = rnd.choice(actions)
        if action is not SKIP:
            turns += 1
        state.apply(action)
        assert turns <= tiles
    assert state.is_over()
    assert all(not state.can_move(p) for p in state.players)


def test_colors_are_the_four_in_order() -> None:
    assert [c.value for c in COLORS] == ["red", "white", "brown", "black"]
