"""Q's pieces: the six shapes, the six colours, tiles, the complete set, coordinates.

The enum values are the spec's indices (2.1), so a :class:`Tile` compares in the spec's
*tile order* (shape first, then colour) and a :data:`Coord` ``(row, column)`` compares in
*row-major order*. Every tile kind also has a *kind index* ``shape * 6 + colour``, its
position in the canonical kind order; the map and the strategies work with kind indices
internally because small integers are cheaper than tuples of enums.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

Coord = tuple[int, int]
"""A map position ``(row, column)``; rows grow downward, columns rightward."""


class Shape(IntEnum):
    """The six shapes, in spec order (their values are the spec's indices)."""

    star = 0
    eight_star = 1
    square = 2
    circle = 3
    clover = 4
    diamond = 5

    @property
    def json_name(self) -> str:
        """The JSON string of the shape (``"8star"`` for :attr:`eight_star`)."""
        return SHAPE_NAMES[self]


class Color(IntEnum):
    """The six colours, in spec order (their values are the spec's indices)."""

    red = 0
    green = 1
    blue = 2
    yellow = 3
    orange = 4
    purple = 5

    @property
    def json_name(self) -> str:
        """The JSON string of the colour."""
        return COLOR_NAMES[self]


SHAPE_NAMES: tuple[str, ...] = ("star", "8star", "square", "circle", "clover", "diamond")
COLOR_NAMES: tuple[str, ...] = ("red", "green", "blue", "yellow", "orange", "purple")
SHAPE_BY_NAME: dict[str, Shape] = {name: Shape(i) for i, name in enumerate(SHAPE_NAMES)}
COLOR_BY_NAME: dict[str, Color] = {name: Color(i) for i, name in enumerate(COLOR_NAMES)}


class Tile(NamedTuple):
    """A tile: a shape and a colour. Tuple order is the spec's tile order."""

    shape: Shape
    color: Color

    def __str__(self) -> str:
        return f"{COLOR_NAMES[self.color]} {SHAPE_NAMES[self.shape]}"


NKINDS = 36
"""Number of tile kinds."""

COPIES = 30
"""Copies of each kind in a complete set."""

ALL_KINDS: tuple[Tile, ...] = tuple(Tile(s, c) for s in Shape for c in Color)
"""The 36 kinds in canonical order (shape-major); ``ALL_KINDS[kind_index(t)] == t``."""

KIND_INDEX: dict[Tile, int] = {t: i for i, t in enumerate(ALL_KINDS)}
"""Tile -> its kind index (position in :data:`ALL_KINDS`)."""


def kind_index(tile: Tile) -> int:
    """The position of the tile's kind in the canonical kind order."""
    return KIND_INDEX[tile]


def tile(shape: str, color: str) -> Tile:
    """The tile with the given JSON shape and colour names, e.g. ``tile("8star", "red")``."""
    return ALL_KINDS[SHAPE_BY_NAME[shape] * 6 + COLOR_BY_NAME[color]]


def full_set() -> list[Tile]:
    """The complete set: 30 concatenated copies of the canonical kind order (1080 tiles)."""
    return list(ALL_KINDS) * COPIES


def neighbours(coord: Coord) -> tuple[Coord, Coord, Coord, Coord]:
    """The four neighbours of a coordinate: left, right, top, below."""
    r, c = coord
    return (r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c)
