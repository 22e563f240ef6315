"""JSON codecs (spec 6.2): round trips, exact key sets, error paths."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.core.wire import WireError
from gameroom.games.fish.board import Board
from gameroom.games.fish.state import COLORS, SKIP, Action, Color, GameState
from gameroom.games.fish.codec import (decode_action, decode_actions, decode_board, decode_color,
                                      decode_colors, decode_move, decode_name, decode_position,
                                      decode_state, encode_action, encode_actions,
                                      encode_board, encode_colors, encode_move, encode_position,
                                      encode_state)
from gameroom.core.protocol import VOID
from tests.games.fish.helpers import boards, example_state, states

positions = st.tuples(st.integers(0, 30), st.integers(0, 30))
moves = st.tuples(positions, positions)
actions: st.SearchStrategy[Action] = st.one_of(st.just(SKIP), moves)


@settings(max_examples=200)
@given(states())
def test_state_round_trip(state: GameState) -> None:
    encoded = encode_state(state)
    assert decode_state(encoded) == state
    assert set(encoded) == {"players", "board"}
    assert all(set(p) == {"color", "score", "places"} for p in encoded["players"])


@given(boards())
def test_board_round_trip_is_full_width(board: Board) -> None:
    rows = encode_board(board)
    assert all(len(r) == board.columns for r in rows)
    if any(board.fish):
        assert decode_board(rows) == board


@given(positions, moves, st.lists(actions, max_size=6), st.permutations(COLORS))
def test_small_values_round_trip(position: Any, move: Any, acts: list[Action],
                                 colors: list[Color]) -> None:
    assert decode_position(encode_position(position)) == position
    assert decode_move(encode_move(move)) == move
    assert decode_actions(encode_actions(acts)) == acts
    assert decode_colors(encode_colors(colors)) == colors


def test_spec_state_example_encodes_as_written() -> None:
    assert encode_state(example_state()) == {
        "players": [{"color": "white", "score": 3, "places": [[2, 1], [0, 0]]},
                    {"color": "red", "score": 5, "places": [[1, 2], [3, 1]]}],
        "board": [[2, 3, 1, 4], [1, 0, 5, 2], [3, 1, 2, 1], [4, 2, 0, 3]]}


def test_ragged_boards_are_padded() -> None:
    assert encode_board(decode_board([[1], [], [2, 3, 0]])) == [[1, 0, 0], [0, 0, 0], [2, 3, 0]]


def test_skip_is_written_as_a_string_and_read_from_false_too() -> None:
    assert encode_action(SKIP) == "skip"
    assert decode_action("skip") is SKIP and decode_action(False) is SKIP


def test_void() -> None:
    assert VOID.encode(None) == "void"
    assert VOID.decode("void") is None
    for bad in ("Void", None, ["void"]):
        with pytest.raises(WireError):
            VOID.decode(bad)


@pytest.mark.parametrize("value, where, fragment", [
    ({"players": [], "board": [[1]], "extra": 1}, "$", "unexpected key(s) extra"),
    ({"players": []}, "$", "missing key(s) board"),
    ({"players": [], "board": []}, "$.board", "length"),
    ({"players": [], "board": [[], []]}, "$.board", "non-empty row"),
    ({"players": [], "board": [[1, 6]]}, "$.board[0][1]", "<= 5"),
    ({"players": [], "board": [[1, -1]]}, "$.board[0][1]", ">= 0"),
    ({"players": [{"color": "red", "score": 0}], "board": [[1]]}, "$.players[0]", "places"),
    ({"players": [{"color": "pink", "score": 0, "places": []}], "board": [[1]]},
     "$.players[0].color", "color"),
    ({"players": [{"color": "red", "score": -2, "places": []}], "board": [[1]]},
     "$.players[0].score", ">= 0"),
    ({"players": [{"color": "red", "score": 0, "places": []},
                  {"color": "white", "score": 0, "places": [[0, 0], [1]]}], "board": [[1]]},
     "$.players[1].places[1]", "position"),
    ({"players": [{"color": "red", "score": 0, "places": []},
                  {"color": "white", "score": 0, "places": [[9, 9]]}], "board": [[1]]},
     "$.players[1].places[0]", "not a tile"),
    ({"players": [{"color": "red", "score": 0, "places": [[0, 0]]},
                  {"color": "white", "score": 0, "places": [[0, 0]]}], "board": [[1]]},
     "$.players[1].places[0]", "two penguins"),
    ({"players": [{"color": "red", "score": 0, "places": []},
                  {"color": "red", "score": 0, "places": []}], "board": [[1]]},
     "$.players[1].color", "more than one"),
    ({"players": [{"color": "red", "score": 1.5, "places": []}], "board": [[1]]},
     "$.players[0].score", "integer"),
])
def test_bad_states_name_the_path(value: Any, where: str, fragment: str) -> None:
    with pytest.raises(WireError) as info:
        decode_state(value)
    assert info.value.where == where
    assert fragment in info.value.detail


def test_strict_states_need_complete_placement() -> None:
    state = {"players": [{"color": "red", "score": 0, "places": [[0, 0]]},
                         {"color": "white", "score": 0, "places": [[0, 1]]}], "board": [[1, 1]]}
    decode_state(state)
    with pytest.raises(WireError) as info:
        decode_state(state, strict=True)
    assert info.value.where == "$.players[0].places"


@pytest.mark.parametrize("value", [[1], [1, 2, 3], "12", [1, True], [1.5, 2], {"r": 1}])
def test_bad_positions(value: Any) -> None:
    with pytest.raises(WireError):
        decode_position(value)


def test_integral_floats_are_numbers() -> None:
    assert decode_position([1.0, 2]) == (1, 2)


@pytest.mark.parametrize("value", ["pass", True, None, [[0, 0]], [[0, 0], [1, 1], [2, 2]]])
def test_bad_actions(value: Any) -> None:
    with pytest.raises(WireError):
        decode_action(value)


def test_names() -> None:
    assert decode_name("Penny") == "Penny"
    for bad in ("", "abcdefghijklm", "P3nny", "Pénny", 7, "a b"):
        with pytest.raises(WireError):
            decode_name(bad)


def test_colors() -> None:
    assert decode_color("brown") is Color.BROWN
    with pytest.raises(WireError) as info:
        decode_colors(["red", "Red"])
    assert info.value.where == "$[1]"
