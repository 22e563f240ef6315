"""Tiles, the complete set, the canonical kind order and the tile order (spec 2.1)."""

from __future__ import annotations

from collections import Counter

from gameroom.games.q.pieces import (ALL_KINDS, COLOR_NAMES, SHAPE_NAMES, Color, Shape, Tile,
                                    full_set, kind_index, neighbours)


def test_shape_and_colour_order_follow_the_spec() -> None:
    assert [s.json_name for s in Shape] == ["star", "8star", "square", "circle", "clover",
                                            "diamond"]
    assert [c.json_name for c in Color] == ["red", "green", "blue", "yellow", "orange",
                                            "purple"]
    assert SHAPE_NAMES[Shape.eight_star] == "8star" and COLOR_NAMES[Color.purple] == "purple"


def test_canonical_kind_order_is_shape_major() -> None:
    assert len(ALL_KINDS) == 36
    assert ALL_KINDS[:2] == (Tile(Shape.star, Color.red), Tile(Shape.star, Color.green))
    assert ALL_KINDS[6] == Tile(Shape.eight_star, Color.red)
    assert ALL_KINDS[-1] == Tile(Shape.diamond, Color.purple)
    assert all(kind_index(t) == i for i, t in enumerate(ALL_KINDS))


def test_tile_order_is_shape_then_colour() -> None:
    assert Tile(Shape.star, Color.purple) < Tile(Shape.eight_star, Color.red)
    assert Tile(Shape.square, Color.red) < Tile(Shape.square, Color.green)
    assert sorted(reversed(ALL_KINDS)) == list(ALL_KINDS)


def test_full_set_is_thirty_concatenated_copies() -> None:
    tiles = full_set()
    assert len(tiles) == 1080
    assert tiles[:36] == list(ALL_KINDS) and tiles[36:72] == list(ALL_KINDS)
    assert set(Counter(tiles).values()) == {30}


def test_neighbours_are_left_right_top_below() -> None:
    assert neighbours((2, 5)) == ((2, 4), (2, 6), (1, 5), (3, 5))
