"""Board geometry (spec 2.2-2.4): steps, lines, neighbours, reachability, board factory."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.games.fish.board import (DIRECTIONS, Board, Direction, line, make_board,
                                       max_one_fish_tiles, step)
from tests.games.fish.helpers import EXAMPLE_BOARD, boards, literal_reachable


def test_canonical_direction_order() -> None:
    assert [d.name for d in DIRECTIONS] == ["N", "NE", "SE", "S", "SW", "NW"]


@pytest.mark.parametrize("direction, even, odd", [
    (Direction.N, (-2, 0), (-2, 0)),
    (Direction.NE, (-1, 0), (-1, 1)),
    (Direction.SE, (1, 0), (1, 1)),
    (Direction.S, (2, 0), (2, 0)),
    (Direction.SW, (1, -1), (1, 0)),
    (Direction.NW, (-1, -1), (-1, 0)),
])
def test_step_deltas_depend_on_the_parity_of_the_row(direction: Direction, even: tuple[int, int],
                                                     odd: tuple[int, int]) -> None:
    assert step((4, 4), direction) == (4 + even[0], 4 + even[1])
    assert step((5, 4), direction) == (5 + odd[0], 4 + odd[1])


@given(st.integers(0, 20), st.integers(0, 20), st.sampled_from(DIRECTIONS))
def test_opposite_directions_undo_each_other(row: int, column: int, d: Direction) -> None:
    back = Direction((d + 3) % 6)
    assert step(step((row, column), d), back) == (row, column)


def test_line_recomputes_parity_at_every_step() -> None:
    # SE from (0,0): (1,0) [even: +1,0], then (2,1) [odd: +1,+1], then (3,1), (4,2)
    assert line((0, 0), Direction.SE, 5, 5) == [(1, 0), (2, 1), (3, 1), (4, 2)]
    assert line((4, 0), Direction.NE, 5, 5) == [(3, 0), (2, 1), (1, 1), (0, 2)]


def test_spec_example_reachability() -> None:
    board = Board.from_rows(EXAMPLE_BOARD)
    assert board.reachable((2, 1)) == [(0, 1), (3, 1), (3, 0), (1, 0), (0, 0)]


def test_spec_example_with_penguins_blocking() -> None:
    board = Board.from_rows(EXAMPLE_BOARD)
    blocked = [(2, 1), (0, 0), (1, 2), (3, 1)]
    assert board.reachable((2, 1), blocked) == [(0, 1), (3, 0), (1, 0)]


def test_holes_stop_lines_and_are_never_jumped() -> None:
    board = Board.from_rows([[1], [1], [1], [1], [1], [1], [1]])  # one zig-zag column
    # SE (1,0), then S (2,0), (4,0), (6,0)
    assert board.reachable((0, 0)) == [(1, 0), (2, 0), (4, 0), (6, 0)]
    board.remove_tile((4, 0))
    assert board.reachable((0, 0)) == [(1, 0), (2, 0)]


def test_ragged_rows_are_padded_with_holes() -> None:
    board = Board.from_rows([[1, 3], [0, 0, 0, 0], [3, 0, 1, 2, 5]])
    assert (board.rows, board.columns) == (3, 5)
    assert board.to_rows()[0] == [1, 3, 0, 0, 0]
    assert board.reachable((0, 0)) == [(2, 0)]


def test_lookup_off_the_board_is_a_hole() -> None:
    board = Board.uniform(2, 3, 4)
    assert board.fish_at((5, 5)) == 0 and board.fish_at((-1, 0)) == 0
    assert board.is_hole((2, 0)) and not board.is_tile((0, 3))
    assert board.reachable((7, 7)) == [] and board.neighbours((7, 7)) == []


def test_neighbours_are_one_step_tiles_in_canonical_order() -> None:
    board = Board.from_rows(EXAMPLE_BOARD)
    # from (2,1): N (0,1), NE (1,1) hole, SE (3,1), S off, SW (3,0), NW (1,0)
    assert board.neighbours((2, 1)) == [(0, 1), (3, 1), (3, 0), (1, 0)]


def test_remove_tile_returns_its_fish_and_leaves_a_hole() -> None:
    board = Board.from_rows(EXAMPLE_BOARD)
    assert board.remove_tile((1, 2)) == 5
    assert board.fish_at((1, 2)) == 0
    assert board.remove_tile((1, 2)) == 0
    with pytest.raises(ValueError):
        board.remove_tile((9, 9))


def test_copy_is_independent_and_equality_is_by_value() -> None:
    board = Board.from_rows(EXAMPLE_BOARD)
    other = board.copy()
    assert other == board
    other.remove_tile((0, 0))
    assert other != board and board.fish_at((0, 0)) == 2


def test_bad_boards_are_refused() -> None:
    with pytest.raises(ValueError):
        Board.from_rows([[], []])
    with pytest.raises(ValueError):
        Board(1, 2, [1, 6])
    with pytest.raises(ValueError):
        Board(0, 2, [])


@settings(max_examples=300)
@given(boards(), st.data())
def test_reachable_follows_the_spec_literally(board: Board, data: st.DataObject) -> None:
    start = data.draw(st.sampled_from(list(board.positions())))
    blocked = set(data.draw(st.lists(st.sampled_from(list(board.positions())), max_size=6)))
    assert board.reachable(start, blocked) == literal_reachable(board, start, blocked)


@settings(max_examples=300)
@given(boards(), st.data())
def test_reachable_positions_lie_on_straight_lines_and_jump_nothing(board: Board,
                                                                    data: st.DataObject) -> None:
    start = data.draw(st.sampled_from(list(board.positions())))
    blocked = set(data.draw(st.lists(st.sampled_from(list(board.positions())), max_size=6)))
    found = board.reachable(start, blocked)
    assert start not in found and len(set(found)) == len(found)
    for target in found:
        assert board.is_tile(target) and target not in blocked
        # some direction's straight line reaches the target through tiles only
        paths = []
        for d in DIRECTIONS:
            path = line(start, d, board.rows, board.columns)
            if target in path:
                paths.append(path[:path.index(target) + 1])
        assert paths, f"{target} is not on a straight line from {start}"
        assert any(all(board.is_tile(p) and p not in blocked for p in path) for path in paths)


def test_fixed_fish_ignores_holes() -> None:
    board = make_board(3, 4, fixed=2, holes=[(0, 0), (1, 1)])
    assert board == Board.uniform(3, 4, 2)


def test_random_boards_are_seeded_and_respect_holes_and_the_one_fish_quota() -> None:
    a = make_board(4, 5, rng=random.Random(7), holes=[(0, 0), (3, 4)], min_one_fish=3)
    b = make_board(4, 5, rng=random.Random(7), holes=[(0, 0), (3, 4)], min_one_fish=3)
    assert a == b
    assert a.fish_at((0, 0)) == 0 and a.fish_at((3, 4)) == 0
    assert sum(1 for n in a.fish if n == 1) >= 3
    assert all(1 <= a.fish_at(p) <= 5 for p in a.positions() if p not in [(0, 0), (3, 4)])


@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 10 ** 6))
def test_one_fish_quota_is_always_met(rows: int, columns: int, seed: int) -> None:
    quota = max_one_fish_tiles(rows, columns)
    board = make_board(rows, columns, rng=random.Random(seed), min_one_fish=quota)
    assert sum(1 for n in board.fish if n == 1) >= quota
    assert all(1 <= n <= 5 for n in board.fish)


def test_board_factory_refuses_bad_requests() -> None:
    with pytest.raises(ValueError):
        make_board(2, 2)  # random fish need a random.Random
    with pytest.raises(ValueError):
        make_board(2, 2, rng=random.Random(1), min_one_fish=max_one_fish_tiles(2, 2) + 1)
    with pytest.raises(ValueError):
        make_board(2, 2, rng=random.Random(1), holes=[(2, 0)])
    with pytest.raises(ValueError):
        make_board(2, 2, fixed=6)
