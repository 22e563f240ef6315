"""Q's player interface as a declared protocol (q.md 5 and 6.6).

The remote proxies on both sides are derived from this table; the ``check`` of
``take_turn`` holds local players to the same standard as remote replies.
"""

from __future__ import annotations

from typing import Any

from gameroom.core.protocol import Codec, Method, WireProtocol, VOID
from gameroom.core.wire import WireError, describe, expect_bool, expect_list
from gameroom.games.q import codec
from gameroom.games.q.actions import PASS, REPLACE, Placement
from gameroom.games.q.pieces import Tile

__all__ = ["PROTOCOL", "check_action"]


def _decode_tiles(value: Any) -> list[Tile]:
    return [codec.decode_tile(t, f"$[{i}]") for i, t in enumerate(expect_list(value))]


def _encode_tiles(tiles: Any) -> list[Any]:
    return [codec.encode_tile(t) for t in tiles]


PUB = Codec(codec.encode_pub, lambda v: codec.decode_pub(v, require_name=True), "JPub")
TILES = Codec(_encode_tiles, _decode_tiles, "tiles")
CHOICE = Codec(codec.encode_choice, codec.decode_choice, "JChoice")
BOOLEAN = Codec(lambda b: bool(b), expect_bool, "boolean")


def check_action(value: Any) -> Any:
    """A local player's take-turn result must be PASS, REPLACE or placements (non-empty)."""
    if value is PASS or value is REPLACE:
        return value
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(p, Placement) and isinstance(p.tile, Tile)
            and isinstance(p.coord, tuple) and len(p.coord) == 2
            and all(isinstance(c, int) and not isinstance(c, bool) for c in p.coord)
            for p in value):
        return tuple(value)
    raise WireError(f"take-turn must return pass, replace or a non-empty list of placements, got {describe(repr(value))}")


PROTOCOL = WireProtocol("q", (
    Method("setup", "setup", (PUB, TILES), VOID),
    Method("take_turn", "take-turn", (PUB,), CHOICE, check=check_action),
    Method("new_tiles", "new-tiles", (TILES,), VOID),
    Method("win", "win", (BOOLEAN,), VOID, final=True),
))
