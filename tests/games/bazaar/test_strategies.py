"""The reference strategy (§9.2-§9.5): useful equations, pebble or exchanges, the purchase
search and its tie-breakers, the exchange search, and the orders."""

from __future__ import annotations

from gameroom.games.bazaar.pieces import Bag, Card, Equation
from gameroom.games.bazaar.strategies import (
    Policy, buy_cards, cards_less, racket_sort, seq_less, trade_then_purchase, trades_less,
    useful_equations, wants_pebble,
)

POINTS, SIZE = Policy.PURCHASE_POINTS, Policy.PURCHASE_SIZE
R5, G5, B5 = Card.of("r r r r r"), Card.of("g g g g g"), Card.of("b b b b b")


def test_useful_equations_come_in_reverse_enumeration_order() -> None:
    e1, e2 = Equation.of("r", "b"), Equation.of("g", "w")
    wallet, bank = Bag.of("r g b w"), Bag.of("r g b w")
    assert useful_equations([e1, e2], wallet, bank) == [e2.flipped(), e1.flipped(), e2, e1]
    assert useful_equations([e1, e2], Bag.of("r"), Bag.of("b w")) == [e1]


def test_wants_pebble_only_with_a_non_empty_bank_and_nothing_useful() -> None:
    e = Equation.of("r", "b")
    assert wants_pebble([e], Bag.of("g"), Bag.of("y"))
    assert not wants_pebble([e], Bag.of("r"), Bag.of("b"))
    assert not wants_pebble([e], Bag.of("g"), Bag())      # empty bank: never a pebble


def test_buy_cards_never_stops_while_a_card_is_affordable() -> None:
    purchase = buy_cards([R5, G5], Bag.of("r r r r r g g g g g y"), SIZE)
    assert len(purchase.cards) == 2
    assert purchase.points == 1 + 3 and purchase.wallet == Bag.of("y")


def test_buy_cards_prefers_more_points_then_cards_by_card_order() -> None:
    # both orders buy both cards for 4 points and leave "y": cards< prefers g g g g g first
    assert buy_cards([R5, G5], Bag.of("r r r r r g g g g g y"), POINTS).cards == (G5, R5)
    # the order matters for points: plain then face earns 1 + 8, face then plain 2 + 5
    face = Card.of("g g g g g", face=True)
    best = buy_cards([R5, face], Bag.of("r r r r r g g g g g"), SIZE)
    assert best.cards == (R5, face) and best.points == 9
    # one of two cards; the face card earns more points
    assert buy_cards([R5, face], Bag.of("r r r r g g g g g"), SIZE).cards == (face,)


def test_buy_cards_breaks_ties_by_the_smaller_final_wallet_under_bag_order() -> None:
    x, y = Card.of("r r r r b"), Card.of("r r r r g")
    purchase = buy_cards([x, y], Bag.of("r r r r b g"), POINTS)
    assert purchase.cards == (y,)                 # leaves "b", and "b" bag< "g"
    assert purchase.wallet.items == Bag.of("b").items


def test_policies_differ() -> None:
    face = Card.of("r r r r r", face=True)
    visibles = [face, G5, B5]
    wallet = Bag.of("r r r r r g g g g g b b b b b")
    assert buy_cards(visibles, Bag.of("r r r r r"), POINTS).points == 8
    assert len(buy_cards(visibles, wallet, SIZE).cards) == 3


def test_trade_then_purchase_returns_no_trades_when_trading_does_not_help() -> None:
    eq = Equation.of("g g b", "r w")
    plan = trade_then_purchase([eq], [Card.of("w y r b b"), G5], Bag.of("r g b r g r"),
                               Bag.of("b r r w y r b b"), POINTS)
    assert plan.trades == () and plan.purchase.cards == ()


def test_trade_then_purchase_finds_the_shortest_sequence_to_the_best_purchase() -> None:
    eq = Equation.of("r", "g g g")
    visibles = [Card.of("g g g g g")]
    plan = trade_then_purchase([eq], visibles, Bag.of("r r y y w"), Bag.of("g g g g g g g g"), POINTS)
    assert plan.trades == (eq, eq)
    assert plan.purchase.cards == (G5,) and plan.purchase.points == 1
    assert plan.purchase.wallet == Bag.of("y y w g")


def test_instructor_fixture_two_trades_then_two_cards() -> None:
    eqs = [Equation.of("r", "g g g g"), Equation.of("r", "b b b b")]
    plan = trade_then_purchase(eqs, [B5, G5], Bag.of("r r b g"), Bag.of("g g g g g b b b b r"), POINTS)
    assert plan.trades == (Equation.of("r", "b b b b"), Equation.of("r", "g g g g"))
    assert plan.purchase.cards == (B5, G5) and plan.purchase.points == 6


def test_sequence_orders() -> None:
    assert seq_less(lambda a, b: a < b, [1, 2], [1, 3])
    assert not seq_less(lambda a, b: a < b, [1, 3], [1, 2])
    assert not seq_less(lambda a, b: a < b, [1], [1, 2])          # running out -> false
    assert cards_less([B5], [G5]) and cards_less([R5], [B5, G5])
    e, f = Equation.of("r", "b"), Equation.of("r", "g")
    assert trades_less([e], [f]) and trades_less([f], [f, f]) and not trades_less([f], [e])


def test_racket_sort_small_cases_with_an_inconsistent_order() -> None:
    always = lambda a, b: True  # noqa: E731 - every element "less" than every other
    assert racket_sort([1, 2], always) == [2, 1]
    assert racket_sort([1, 2, 3], always) == [3, 2, 1]
    assert racket_sort([3, 1, 2], lambda a, b: a < b) == [1, 2, 3]
    assert racket_sort([5, 1, 4, 2, 3, 0], lambda a, b: a < b) == [0, 1, 2, 3, 4, 5]
    pairs = [(1, "a"), (0, "b"), (1, "c"), (0, "d"), (1, "e")]
    assert racket_sort(pairs, lambda a, b: a[0] < b[0]) == [(0, "b"), (0, "d"), (1, "a"), (1, "c"), (1, "e")]


def test_racket_sort_is_stable_for_consistent_orders_of_any_length() -> None:
    import random
    rng = random.Random(5)
    for n in (4, 5, 15, 16, 17, 40):
        xs = [(rng.randint(0, 3), i) for i in range(n)]
        assert racket_sort(xs, lambda a, b: a[0] < b[0]) == sorted(xs, key=lambda x: x[0])


def test_racket_sort_merges_halves_as_racket_does() -> None:
    always = lambda a, b: True  # noqa: E731
    # halves [1, 2] -> [2, 1] and [3, 4] -> [4, 3]; the merge then always prefers the second half
    assert racket_sort([1, 2, 3, 4], always) == [4, 3, 2, 1]
    # insertion sort of a 3-element half moves every element to the front
    assert racket_sort([1, 2, 3, 4, 5, 6], always) == [6, 5, 4, 3, 2, 1]
