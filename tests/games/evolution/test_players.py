"""The silly player (evolution.md 9.1): choose, the feeding preferences, both
silly_fat_request settings, and its failures."""

from __future__ import annotations

import pytest

from gameroom.games.evolution.actions import Action4
from gameroom.games.evolution.pieces import Species
from gameroom.games.evolution.players import SillyFailed, SillyPlayer, silly_choice, silly_feeding


def sp(pop=1, body=0, food=0, traits=(), fat=0) -> Species:
    return Species(food, body, pop, list(traits), fat)


def test_choose_examples() -> None:
    hand = [(-3, "ambush"), (-2, "ambush"), (-1, "ambush"), (0, "ambush")]
    assert silly_choice([sp()], hand) == Action4(0, ((1, 3),), (), ((1, 2),), ())
    hand += [(1, "ambush"), (2, "ambush")]
    assert silly_choice([sp()], hand) == Action4(0, ((1, 3),), ((1, 4),), ((1, 2),), ((1, 0, 5),))
    # indexes refer to the hand's order, choices to card order
    assert silly_choice([], [(2, "horns"), (-8, "carnivore"), (0, "ambush"), (3, "burrowing")]) == \
        Action4(2, ((0, 0),), (), ((3, 1),), ())
    with pytest.raises(SillyFailed):
        silly_choice([], hand[:3])


def test_fat_tissue_first_both_settings() -> None:
    boards = [sp(pop=2, body=3, traits=["fat-tissue"]), sp(pop=3, body=5, traits=["fat-tissue"], fat=1), sp(pop=2)]
    assert silly_feeding(boards, 2, []) == (1, 2)
    assert silly_feeding(boards, 2, [], "need") == (1, 4)
    player = SillyPlayer("need")
    assert player.feed_next(0, boards, [], 2, []) == (1, 4)


def test_vegetarian_then_carnivore_with_tie_breaks() -> None:
    assert silly_feeding([sp(pop=1), sp(pop=3, food=1), sp(pop=3, food=1)], 5, []) == 1
    hunter = [sp(pop=1, body=3, traits=["carnivore"])]
    plain = sp(pop=1, food=1, body=3)
    others = [[plain.copy(), plain.copy(), plain.copy()], [plain.copy()]]
    assert silly_feeding(hunter, 5, others) == (0, 0, 2)


def test_false_when_only_own_boards_are_targets_and_failure_otherwise() -> None:
    hunter = [sp(pop=1, body=3, traits=["carnivore"])]
    assert silly_feeding(hunter, 5, [[sp(traits=["climbing"])]]) is False
    with pytest.raises(SillyFailed):
        silly_feeding([sp(pop=1, food=1)], 5, [])
