"""Every reference fixture of the pure harnesses (spec 10.2-10.5) run in-process through
``HARNESSES`` and compared as JSON values; the xref fixtures run through
``play_local_game`` in ``test_game.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gameroom.core.wire import WireError
from gameroom.games.fish.harness import HARNESSES, decode_xref_input
from tests.conftest import fixture_cases, read_json_values

PURE = ["xboard", "xstate", "xtree", "xstrategy"]
CASES = [pytest.param(h, *case.values, id=f"{h}/{case.id}", marks=case.marks)
         for h in PURE for case in fixture_cases("fish", h)]


@pytest.mark.parametrize("harness, path", CASES)
def test_fixture(harness: str, path: Path | None) -> None:
    assert path is not None
    inputs = read_json_values(path.read_text())
    expected = read_json_values(path.with_name(path.name.replace("-in.json", "-out.json")).read_text())
    assert HARNESSES[harness](inputs) == expected


def test_harness_table() -> None:
    assert set(HARNESSES) == set(PURE) | {"xref"}


def test_spec_examples() -> None:
    board = [[2, 3, 1, 4], [1, 0, 5, 2], [3, 1, 2, 1], [4, 2, 0, 3]]
    state = {"players": [{"color": "white", "score": 3, "places": [[2, 1], [0, 0]]},
                         {"color": "red", "score": 5, "places": [[1, 2], [3, 1]]}],
             "board": board}
    assert HARNESSES["xboard"]([{"board": board, "position": [2, 1]}]) == [5]
    assert HARNESSES["xstate"]([state]) == [{
        "players": [{"color": "red", "score": 5, "places": [[1, 2], [3, 1]]},
                    {"color": "white", "score": 4, "places": [[0, 1], [0, 0]]}],
        "board": [[2, 3, 1, 4], [1, 0, 5, 2], [3, 0, 2, 1], [4, 2, 0, 3]]}]
    tree_in = {"state": {"players": [{"color": "white", "score": 0, "places": [[0, 0]]},
                                     {"color": "red", "score": 0, "places": [[3, 2], [2, 2]]},
                                     {"color": "brown", "score": 0, "places": [[3, 0]]}],
                         "board": [[1, 2, 3], [2, 1, 4], [3, 3, 1], [1, 2, 2]]},
               "from": [0, 0], "to": [2, 1]}
    assert HARNESSES["xtree"]([tree_in]) == [[[2, 2], [0, 1]]]
    assert HARNESSES["xstrategy"]([[1, state], [2, state]]) == [[[0, 0], [1, 0]], [[0, 0], [2, 0]]]


def test_false_answers() -> None:
    empty = {"players": [], "board": [[1, 1]]}
    assert HARNESSES["xstate"]([empty]) == [False]
    assert HARNESSES["xstate"]([{"players": [{"color": "red", "score": 0, "places": []}],
                                 "board": [[1]]}]) == [False]
    assert HARNESSES["xstrategy"]([[2, empty]]) == [False]


@pytest.mark.parametrize("harness, value, where", [
    ("xboard", {"board": [[1]]}, "$"),
    ("xboard", {"board": [[1]], "position": [0]}, "$.position"),
    ("xstate", {"players": [], "board": [[7]]}, "$.board[0][0]"),
    ("xtree", {"state": {"players": [{"color": "red", "score": 0, "places": [[0, 0]]}],
                         "board": [[1, 1]]}, "from": [0, 1], "to": [0, 0]}, "$.from"),
    ("xtree", {"state": {"players": [{"color": "red", "score": 0, "places": [[0, 0]]}],
                         "board": [[1, 1]]}, "from": [0, 0], "to": [0, 1]}, "$.to"),
    ("xstrategy", [0, {"players": [], "board": [[1]]}], "$[0]"),
    ("xstrategy", [1], "$"),
])
def test_bad_inputs_raise_wire_errors(harness: str, value: Any, where: str) -> None:
    with pytest.raises(WireError) as info:
        HARNESSES[harness]([value])
    assert info.value.where == where


def test_xref_input_decoder() -> None:
    assert decode_xref_input({"row": 3, "column": 4, "players": [["zed", 1], ["amy", 2]],
                              "fish": 2}) == (3, 4, 2, [("zed", 1), ("amy", 2)])
    with pytest.raises(WireError) as info:
        decode_xref_input({"row": 3, "column": 4, "players": [["zed", 0]], "fish": 2})
    assert info.value.where == "$.players[0][1]"
