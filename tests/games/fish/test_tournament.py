"""Tournament allocation and termination (spec 5.4)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameroom.games.fish.tournament import allocate, in_signup_order, round_ends_tournament


@pytest.mark.parametrize("n, sizes", [
    (1, [1]), (2, [2]), (4, [4]), (5, [3, 2]), (6, [4, 2]), (7, [4, 3]), (8, [4, 4]),
    (9, [4, 3, 2]), (10, [4, 4, 2]), (11, [4, 4, 3]), (12, [4, 4, 4]), (13, [4, 4, 3, 2]),
])
def test_allocation_table(n: int, sizes: list[int]) -> None:
    assert [len(g) for g in allocate(list(range(n)))] == sizes


@pytest.mark.parametrize("n, sizes", [(6, [3, 3]), (7, [4, 3]), (8, [5, 3]), (10, [5, 5]),
                                      (11, [5, 3, 3])])
def test_allocation_with_three_to_five(n: int, sizes: list[int]) -> None:
    assert [len(g) for g in allocate(list(range(n)), 3, 5)] == sizes


def test_spec_b4() -> None:
    assert allocate(list("abcdefghi")) == [list("abcd"), list("efg"), list("hi")]


@given(st.integers(5, 200))
def test_allocation_keeps_order_and_sizes(n: int) -> None:
    games = allocate(list(range(n)))
    assert [p for g in games for p in g] == list(range(n))
    assert all(2 <= len(g) <= 4 for g in games)


def test_termination_rule() -> None:
    a, b, c = object(), object(), object()
    assert round_ends_tournament([a, b, c], [])
    assert round_ends_tournament([a, b], [b, a])
    assert not round_ends_tournament([a, b, c], [a, c])
    assert in_signup_order([c, a], [a, b, c]) == [a, c]
