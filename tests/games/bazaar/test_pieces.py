"""Pebbles, bags (list conventions of §3.12), equations, cards, orders and points."""

from __future__ import annotations

import pytest

from gameroom.games.bazaar.pieces import (
    ALL_CARDS, MAX_COUNT, Bag, Card, Equation, Pebble, bag_less, card_less, covers, eq_less,
    equations_problem, points,
)


def test_colour_order_and_names() -> None:
    assert [p.colour for p in Pebble] == ["red", "white", "blue", "green", "yellow"]
    assert [p.letter for p in Pebble] == list("rwbgy")
    assert Pebble.from_colour("green") is Pebble.GREEN


def test_bag_minus_removes_first_occurrences_and_ignores_absent_pebbles() -> None:
    wallet = Bag.of("r g b r g")
    assert (wallet - Bag.of("g r")).items == Bag.of("b r g").items
    assert (wallet - Bag.of("y r")).items == Bag.of("g b r g").items
    assert (wallet - Bag()).same_list(wallet)


def test_bag_plus_concatenates() -> None:
    assert (Bag.of("r g") + Bag.of("b r")).items == Bag.of("r g b r").items


def test_bag_equality_is_multiset_equality_and_same_list_is_order() -> None:
    a, b = Bag.of("r g b"), Bag.of("b r g")
    assert a == b and hash(a) == hash(b)
    assert not a.same_list(b)
    assert a != Bag.of("r g g")


def test_covers_is_the_sub_bag_test() -> None:
    wallet = Bag.of("r r g y")
    assert wallet.covers(Bag.of("r g"))
    assert wallet.covers(Bag.of("r r"))
    assert not wallet.covers(Bag.of("r r r"))
    assert not wallet.covers(Bag.of("w"))
    assert Bag().covers(Bag())
    assert covers(Bag.of("y y").counts_key, Bag.of("y").counts_key)


def test_bag_counts_letters_and_shorthands() -> None:
    bag = Bag.of("red green blue red")
    assert bag.counts() == (2, 0, 1, 1, 0)
    assert bag.count(Pebble.RED) == 2
    assert bag.letters() == "bgrr"
    assert Bag.of("rgb") == Bag.of("r g b")
    assert bag.add(Pebble.YELLOW).items[-1] is Pebble.YELLOW
    assert bag.remove(Pebble.RED).items == Bag.of("g b r").items
    with pytest.raises(ValueError):
        bag.remove(Pebble.WHITE)


def test_a_bag_refuses_absurd_counts() -> None:
    big = Bag([Pebble.RED] * MAX_COUNT)
    with pytest.raises(ValueError):
        big + Bag.of("r")


def test_bag_order_of_9_5() -> None:
    assert Bag.of("r g b").letters() == "bgr"
    assert bag_less(Bag.of("y"), Bag.of("b b"))           # smaller size first
    assert bag_less(Bag.of("b y"), Bag.of("g g"))         # "by" < "gg"
    assert not bag_less(Bag.of("g g"), Bag.of("g g"))


def test_equation_equality_is_directed_with_multiset_sides() -> None:
    e = Equation.of("r g", "b b")
    assert e == Equation.of("g r", "b b")
    assert e != e.flipped()
    assert e.flipped() == Equation.of("b b", "r g")


def test_equation_validity() -> None:
    assert Equation.of("r", "b b b b").problem() is None
    assert "1 to 4" in Equation.of("r r r r r", "b").problem()
    assert "1 to 4" in Equation(Bag(), Bag.of("b")).problem()
    assert "red" in Equation.of("r g", "r b").problem()


def test_equations_table_validity() -> None:
    e = Equation.of("r", "b")
    assert equations_problem([e, Equation.of("g", "w")]) is None
    assert "repeats" in equations_problem([e, Equation.of("r", "b")])
    assert "flip" in equations_problem([e, e.flipped()])
    eleven = [Equation.of(a, b) for a, b in ["rb", "rg", "rw", "ry", "wb", "wg", "wy", "bg", "by", "gy"]]
    assert equations_problem(eleven) is None
    assert "more than 10" in equations_problem(eleven + [Equation.of("r r", "b")])


def test_eq_order() -> None:
    assert eq_less(Equation.of("r", "b b"), Equation.of("b b", "r"))
    assert eq_less(Equation.of("r", "b"), Equation.of("r", "g"))
    assert not eq_less(Equation.of("r", "g"), Equation.of("r", "b"))


def test_cards_have_five_pebbles_and_compare_as_multisets() -> None:
    with pytest.raises(ValueError):
        Card.of("r r r r")
    assert Card.of("g g g g r") == Card.of("r g g g g")
    assert Card.of("g g g g r") != Card.of("g g g g r", face=True)


def test_card_order_is_not_antisymmetric() -> None:
    plain, face = Card.of("y y y y y"), Card.of("b b b b b", face=True)
    assert card_less(plain, face) and card_less(face, plain)
    assert card_less(Card.of("b b b b b"), Card.of("g g g g g"))


def test_the_card_catalogue() -> None:
    assert len(ALL_CARDS) == 20
    assert ALL_CARDS[0] == Card.of("g g g g r") and not ALL_CARDS[0].face
    assert ALL_CARDS[19] == Card.of("w y r b b", face=True)
    assert ALL_CARDS[0].pebbles.items == Bag.of("g g g g r").items
    assert [c.face for c in ALL_CARDS] == [False, True] * 10


@pytest.mark.parametrize("left, plain, face", [(0, 5, 8), (1, 3, 5), (2, 2, 3), (3, 1, 2), (9, 1, 2)])
def test_points_table(left: int, plain: int, face: int) -> None:
    assert points(False, left) == plain
    assert points(True, left) == face
