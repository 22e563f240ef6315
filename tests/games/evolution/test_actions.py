"""Card actions (evolution.md 3.4): every validity rule, its quirks, and application."""

from __future__ import annotations

import pytest

from gameroom.core.wire import WireError
from gameroom.games.evolution.actions import Action4, apply_action, validate
from gameroom.games.evolution.pieces import Species
from gameroom.games.evolution.codec import as_action4, decode_action4

HAND = [(-3, "ambush"), (0, "horns"), (1, "climbing"), (2, "horns"), (3, "fertile"), (-1, "carnivore"),
        (0, "scavenger"), (1, "burrowing")]


def board(pop=1, body=0, traits=()) -> Species:
    return Species(0, body, pop, list(traits))


def test_the_silly_example_is_valid_and_applied() -> None:
    boards = [board()]
    cards = HAND[:6]
    action = Action4(0, ((1, 3),), ((1, 4),), ((1, 2),), ((1, 0, 5),))
    assert validate(action, boards, cards) is None
    food = apply_action(action, boards, cards)
    assert food == (-3, "ambush")
    assert boards[1] == Species(0, 1, 2, ["carnivore"])
    assert cards == []


@pytest.mark.parametrize("action, problem", [
    (Action4(0, ((0, 0),)), "twice"),
    (Action4(9), "hand holds"),
    (Action4(0, ((2, 1),)), "board 2"),
    (Action4(0, (), (), (), ((0, 2, 1),)), "position 2"),
    (Action4(0, (), (), ((2, 3, 1),)), "trait twice"),
    (Action4(0, (), (), (), ((0, 1, 1),)), "trait twice"),
    (Action4(0, (), (), ((2, 3),), ((1, 1, 4),)), "position 1"),
])
def test_invalid_actions(action: Action4, problem: str) -> None:
    boards = [board(traits=["horns", "climbing"])]
    assert problem in (validate(action, boards, HAND) or "")


def test_growth_limits_and_the_new_board_quirk() -> None:
    boards = [board(pop=6, body=0)]
    assert validate(Action4(0, ((0, 1),)), boards, HAND) is None
    assert "exceed" in validate(Action4(0, ((0, 1), (0, 2))), boards, HAND)
    seven_body = tuple((0, c) for c in range(1, 8))
    assert validate(Action4(0, (), seven_body), boards, HAND) is None
    # a new board may receive at most 6 growth cards of one kind in one action
    hand = HAND + [(v, "foraging") for v in range(-3, 4)]
    six = tuple((1, c) for c in range(2, 8))
    assert validate(Action4(0, (), six, ((1,),)), boards, hand) is None
    seven = tuple((1, c) for c in range(2, 9))
    assert "exceed" in validate(Action4(0, (), seven, ((1,),)), boards, hand)


def test_two_replacements_may_create_a_duplicate() -> None:
    boards = [board(traits=["horns", "climbing"])]
    hand = [(0, "ambush"), (1, "fertile"), (2, "fertile")]
    action = Action4(0, (), (), (), ((0, 0, 1), (0, 1, 2)))
    assert validate(action, boards, hand) is None
    apply_action(action, boards, hand)
    assert boards[0].traits == ["fertile", "fertile"]


def test_shapes() -> None:
    assert as_action4([0, [[1, 3]], [], [[1, 2]], []]) == Action4(0, ((1, 3),), (), ((1, 2),), ())
    assert decode_action4([0, [["population", 1, 3]], [["body", 1, 4]], [], []], tagged=True).grow_body == ((1, 4),)
    for bad in ([], False, 3, [1.0, [], [], [], []], [0, [[1]], [], [], []], [0, [], [], [[1, 2, 3, 4, 5]], []],
                [0, [], [], [], [[1, 2]]], [-1, [], [], [], []]):
        with pytest.raises(WireError):
            as_action4(bad)
