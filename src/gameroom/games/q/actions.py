"""What a Q player can do on its turn: pass, exchange its hand, or place tiles.

``PASS`` and ``REPLACE`` are singletons (members of one-member enums, so they compare by
identity and type-check as their own types); a placement request is a tuple of
:class:`Placement` in placement order. :data:`Action` is the union of the three.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple, Union

from gameroom.games.q.pieces import Coord, Tile


class Placement(NamedTuple):
    """One tile put on one coordinate."""

    coord: Coord
    tile: Tile


class Pass(Enum):
    """The type of :data:`PASS`."""

    PASS = "pass"

    def __repr__(self) -> str:
        return "PASS"


class Replace(Enum):
    """The type of :data:`REPLACE` (the spec's exchange request)."""

    REPLACE = "replace"

    def __repr__(self) -> str:
        return "REPLACE"


PASS = Pass.PASS
"""Pass the turn."""

REPLACE = Replace.REPLACE
"""Exchange the whole hand (legal iff pile size >= hand size)."""

Action = Union[Pass, Replace, tuple[Placement, ...]]
"""A turn's action: PASS, REPLACE, or a (non-empty, for a legal request) placement tuple."""

Step = Union[Pass, Replace, Placement]
"""The result of one atomic strategy step (9.1)."""
