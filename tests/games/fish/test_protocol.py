"""The six remote calls (spec 6.3), the take-turn action list (5.2), and the in-process
players (9.5, 9.6)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameroom.core.wire import WireError
from gameroom.games.fish.players import BaddiePlayer, CannotMove, Misbehaved, StrategyPlayer
from gameroom.core.protocol import TAGGED
from gameroom.games.fish.protocol import (PROTOCOL, WIRE_NAMES, actions_since_last_turn,
                                          check_move, check_position, decode_call, ready_time_applies)
from gameroom.games.fish.state import SKIP, Color, GameState, Player
from gameroom.games.fish.board import Board
from gameroom.games.fish.strategies import MaximinStrategy
from tests.games.fish.helpers import example_state


def _method(name: str) -> Any:
    return PROTOCOL.by_wire.get(name) or PROTOCOL.by_name[name]


def encode_call(name: str, *args: Any) -> Any:
    return TAGGED.encode_call(_method(name), args)


def encode_reply(name: str, result: Any) -> Any:
    return _method(name).result.encode(result)


def decode_reply(name: str, value: Any) -> Any:
    return _method(name).result.decode(value)


def test_the_six_calls_and_their_wire_shapes() -> None:
    assert tuple(PROTOCOL.by_wire) == WIRE_NAMES
    state = example_state()
    assert encode_call("start", True) == ["start", [True]]
    assert encode_call("playing-as", Color.WHITE) == ["playing-as", ["white"]]
    assert encode_call("playing-with", [Color.RED, Color.BROWN]) == ["playing-with", [["red", "brown"]]]
    assert encode_call("end", False) == ["end", [False]]
    setup = encode_call("setup", state)
    assert setup[0] == "setup" and setup[1][0]["players"][0]["color"] == "white"
    turn = encode_call("take_turn", state, [((0, 1), (2, 1)), SKIP])
    assert turn[1][1] == [[[0, 1], [2, 1]], "skip"]
    assert PROTOCOL.by_wire["end"].final


def test_calls_decode_back_to_logical_arguments() -> None:
    state = example_state()
    for name, args in [("start", (True,)), ("playing-as", (Color.BLACK,)),
                       ("playing-with", ([Color.RED],)), ("setup", (state,)),
                       ("take-turn", (state, [SKIP, ((3, 0), (1, 0))])), ("end", (True,))]:
        method, decoded = decode_call(encode_call(name, *args))
        assert method.wire == name and decoded == args


@pytest.mark.parametrize("value, where", [
    (["dance", []], "$[0]"),
    (["start", [True, False]], "$[1]"),
    (["start", ["yes"]], "$[1][0]"),
    (["playing-with", ["red"]], "$[1][0]"),
    (["take-turn", [{"players": [], "board": [[1]]}, ["pass"]]], "$[1][1][0]"),
    (["setup", [{"players": [], "board": [[1]], "x": 0}]], "$[1][0]"),
    ("start", "$"),
])
def test_bad_calls_name_the_path(value: Any, where: str) -> None:
    with pytest.raises(WireError) as info:
        decode_call(value)
    assert info.value.where == where


def test_replies() -> None:
    assert encode_reply("setup", (0, 2)) == [0, 2]
    assert encode_reply("take-turn", ((3, 0), (1, 0))) == [[3, 0], [1, 0]]
    assert encode_reply("playing-as", None) == "void"
    assert decode_reply("setup", [0, 2]) == (0, 2)
    assert decode_reply("take-turn", [[3, 0], [1, 0]]) == ((3, 0), (1, 0))
    assert decode_reply("end", "void") is None
    for method, bad in [("setup", [1, 0, 2]), ("setup", "(0 2)"), ("take-turn", "skip"),
                        ("take-turn", [[0, 0]]), ("start", "timeout"), ("end", "ERROR")]:
        with pytest.raises(WireError):
            decode_reply(method, bad)


def test_local_results_are_checked_like_replies() -> None:
    assert check_position([1, 2]) == (1, 2)
    assert check_move(([1, 2], (0, 0))) == ((1, 2), (0, 0))
    for bad in [False, (1,), (1, -1), (True, 0), "12"]:
        with pytest.raises(WireError):
            check_position(bad)
    for bad in [SKIP, ((1, 2),), ((1, 2), (0, "0")), None]:
        with pytest.raises(WireError):
            check_move(bad)


def test_actions_since_last_turn_spec_5_2() -> None:
    a, b, c, d, e = [((i, 0), (i, 1)) for i in range(5)]
    assert actions_since_last_turn([], 3) == []
    assert actions_since_last_turn([a, b, c], 3) == []  # first player's second turn
    assert actions_since_last_turn([a, b, c, d], 3) == [c, d]
    assert actions_since_last_turn([a, SKIP, c, d, e], 2) == [e]


@given(st.lists(st.integers(0, 9), max_size=20), st.integers(1, 4))
def test_actions_since_last_turn_lengths(history: list[int], n: int) -> None:
    got = actions_since_last_turn(history, n)  # type: ignore[arg-type]
    if len(history) <= n:
        assert got == []
    else:
        assert got == history[len(history) - (n - 1):] if n > 1 else got == []
        assert len(got) == n - 1


def test_ready_time_applies_during_the_first_round_only() -> None:
    assert ready_time_applies(0, 3, False) and ready_time_applies(2, 3, False)
    assert not ready_time_applies(3, 3, False)
    assert not ready_time_applies(0, 3, True)


def test_strategy_player() -> None:
    player = StrategyPlayer(MaximinStrategy(2), "Penny")
    player.start_of_tournament(True)
    player.playing_as(Color.WHITE)
    player.playing_with([Color.RED])
    assert player.color is Color.WHITE and player.others == [Color.RED]
    assert player.take_turn(example_state(), []) == ((0, 0), (2, 0))
    empty = GameState(Board.uniform(1, 2, 1), [Player(Color.WHITE), Player(Color.RED)])
    assert player.initial(empty) == (0, 0)
    stuck = GameState(Board.from_rows([[1, 0]]), [Player(Color.WHITE, 0, [(0, 0)])])
    with pytest.raises(CannotMove):
        player.take_turn(stuck, [])
    player.end_of_tournament(True)
    assert player.won is True


def test_baddie_players_misbehave_in_exactly_one_method() -> None:
    state = example_state()
    for name, method in [("bad-playing-as", "playing_as"), ("bad-playing-with", "playing_with"),
                         ("bad-end-of-tournament", "end_of_tournament"),
                         ("bad-start-of-tournament", "end_of_tournament")]:
        baddie = BaddiePlayer(name)
        baddie.start_of_tournament(True)
        calls = {"playing_as": (Color.RED,), "playing_with": ([Color.WHITE],),
                 "end_of_tournament": (True,)}
        for other, args in calls.items():
            if other == method:
                with pytest.raises(Misbehaved):
                    getattr(baddie, other)(*args)
            else:
                getattr(baddie, other)(*args)
        assert baddie.take_turn(state, []) == ((2, 1), (3, 0))  # greedy otherwise
    assert BaddiePlayer("bad-turn-choice").take_turn(state, []) == ((2, 1), (2, 1))
    assert BaddiePlayer("bad-init-choice").initial(state) == (2, 1)
    fresh = GameState(Board.uniform(2, 2, 1), [Player(Color.RED), Player(Color.WHITE)])
    assert BaddiePlayer("bad-init-choice").initial(fresh) is False
    hung: list[str] = []

    def hang() -> None:
        hung.append("hung")

    with pytest.raises(Misbehaved):
        BaddiePlayer("bad-init-time", hang=hang).initial(fresh)
    with pytest.raises(Misbehaved):
        BaddiePlayer("bad-turn-time", hang=hang).take_turn(state, [])
    assert hung == ["hung", "hung"]
    with pytest.raises(ValueError):
        BaddiePlayer("no-name")
