"""Q's wire format (spec 6): JSON values <-> tiles, coordinates, placements, choices,
maps, player records, public states, referee states and results.

Every ``decode_*`` checks the exact key set of each object and raises
:class:`~gameroom.core.wire.WireError` naming what was wrong and where (a JSON path such
as ``$.players[0].tile*[2].color``). Every ``encode_*`` produces plain JSON values; maps
come out in canonical order (rows ascending, cells ascending, 6.3).
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.wire import (WireError, describe, expect_choice, expect_int, expect_list,
                                expect_natural, expect_object, expect_str)
from gameroom.games.q.actions import PASS, REPLACE, Action, Placement, Step
from gameroom.games.q.qmap import QMap
from gameroom.games.q.state import PlayerRecord, PublicState, RefereeState
from gameroom.games.q.pieces import (ALL_KINDS, COLOR_BY_NAME, KIND_INDEX, COLOR_NAMES, SHAPE_BY_NAME,
                                    SHAPE_NAMES, Coord, Tile)

MAX_NATURAL = 1_000_000
"""Largest accepted score and JPub pile count (2.3)."""

NAME_PATTERN = re.compile(r"[a-zA-Z0-9]{1,20}")
NAME_MAX = 20

_TILE_KEYS = ("color", "shape")
_COORD_KEYS = ("row", "column")
_PLACEMENT_KEYS = ("coordinate", "1tile")
_PLAYER_KEYS = ("name", "score", "tile*")
_PLAYER_KEYS_NAMELESS = ("score", "tile*")
_PUB_KEYS = ("map", "tile*", "players")
_STATE_KEYS = ("map", "tile*", "players")

_TILE_BY_NAMES: dict[tuple[str, str], Tile] = {
    (SHAPE_NAMES[t.shape], COLOR_NAMES[t.color]): t for t in ALL_KINDS}
_KIND_BY_NAMES: dict[tuple[str, str], int] = {names: KIND_INDEX[t] for names, t in _TILE_BY_NAMES.items()}


# -- names -------------------------------------------------------------------------------

def valid_name(s: object) -> bool:
    """A JName: a string of 1 to 20 ASCII letters or digits."""
    return isinstance(s, str) and NAME_PATTERN.fullmatch(s) is not None


def decode_name(value: Any, where: str = "$", lax: bool = False) -> str:
    """A player name; with `lax` any string is accepted (the bonus client, 10.9)."""
    name = expect_str(value, where)
    if not lax and not valid_name(name):
        raise WireError(f"expected a name of 1-20 ASCII letters or digits, got {describe(name)}",
                        where)
    return name


# -- tiles, coordinates, placements ------------------------------------------------------

def encode_tile(tile: Tile) -> dict[str, str]:
    """JTile."""
    return {"color": COLOR_NAMES[tile[1]], "shape": SHAPE_NAMES[tile[0]]}


def decode_tile(value: Any, where: str = "$") -> Tile:
    """JTile -> Tile."""
    if type(value) is dict and len(value) == 2:
        shape, color = value.get("shape"), value.get("color")
        if type(shape) is str and type(color) is str:
            t = _TILE_BY_NAMES.get((shape, color))
            if t is not None:
                return t
    obj = expect_object(value, _TILE_KEYS, where)
    shape = SHAPE_BY_NAME[expect_choice(obj["shape"], SHAPE_NAMES, f"{where}.shape")]
    color = COLOR_BY_NAME[expect_choice(obj["color"], COLOR_NAMES, f"{where}.color")]
    return ALL_KINDS[shape * 6 + color]


def encode_tiles(tiles: Iterable[Tile]) -> list[dict[str, str]]:
    """[JTile, ...]."""
    return [encode_tile(t) for t in tiles]


def decode_tiles(value: Any, where: str = "$") -> list[Tile]:
    """[JTile, ...] -> list of tiles (possibly empty)."""
    items = expect_list(value, where)
    return [decode_tile(v, f"{where}[{i}]") for i, v in enumerate(items)]


def encode_coord(coord: Coord) -> dict[str, int]:
    """JCoordinate."""
    return {"row": coord[0], "column": coord[1]}


def decode_coord(value: Any, where: str = "$") -> Coord:
    """JCoordinate -> (row, column); integral numbers such as 1.0 are accepted (11 #19)."""
    obj = expect_object(value, _COORD_KEYS, where)
    return (expect_int(obj["row"], f"{where}.row"), expect_int(obj["column"], f"{where}.column"))


def encode_placement(placement: Placement) -> dict[str, Any]:
    """J1Placement."""
    return {"coordinate": encode_coord(placement[0]), "1tile": encode_tile(placement[1])}


def decode_placement(value: Any, where: str = "$") -> Placement:
    """J1Placement -> Placement."""
    obj = expect_object(value, _PLACEMENT_KEYS, where)
    return Placement(decode_coord(obj["coordinate"], f"{where}.coordinate"),
                     decode_tile(obj["1tile"], f"{where}.1tile"))


def encode_placements(placements: Iterable[Placement]) -> list[dict[str, Any]]:
    """JPlacements."""
    return [encode_placement(p) for p in placements]


def decode_placements(value: Any, where: str = "$") -> tuple[Placement, ...]:
    """JPlacements -> tuple of placements; the empty array is rejected (spec 11 #3)."""
    items = expect_list(value, where)
    if not items:
        raise WireError("expected a non-empty array of placements, got []", where)
    return tuple(decode_placement(v, f"{where}[{i}]") for i, v in enumerate(items))


# -- choices ------------------------------------------------------------------------------

def encode_choice(action: Action | Step) -> Any:
    """JChoice: "pass", "replace" or JPlacements. A single Placement (an atomic strategy
    step) becomes a bare J1Placement object, as the xstrategy harness prints it."""
    if action is PASS:
        return "pass"
    if action is REPLACE:
        return "replace"
    if isinstance(action, Placement):
        return encode_placement(action)
    return encode_placements(action)


def decode_choice(value: Any, where: str = "$") -> Action:
    """JChoice -> PASS, REPLACE or a non-empty tuple of placements."""
    if value == "pass":
        return PASS
    if value == "replace":
        return REPLACE
    if isinstance(value, list):
        return decode_placements(value, where)
    raise WireError(f'expected "pass", "replace" or an array of placements, got {describe(value)}',
                    where)


# -- maps -----------------------------------------------------------------------------------

# JTile of each kind index: copied for each cell (a fresh dict each time, so no caller
# can change what a later encoding says), which costs less than building it.
_TILE_JSON = tuple({"color": COLOR_NAMES[t[1]], "shape": SHAPE_NAMES[t[0]]} for t in ALL_KINDS)


def encode_map(qmap: QMap) -> list[list[Any]]:
    """JMap in canonical order: rows ascending, cells within a row ascending. (A server
    encodes the whole map for every call: half the time of going through coordinates and
    tiles.)"""
    rows: list[list[Any]] = []
    current: list[Any] = []
    row = None
    tiles = _TILE_JSON
    for r, c, k in qmap.sorted_kinds():
        if r != row:
            row = r
            current = [r]
            rows.append(current)
        current.append([c, tiles[k].copy()])
    return rows


def _well_formed_kinds(rows: list[Any]) -> dict[Coord, int] | None:
    """The cells of a JMap whose every row, column and tile is in its plain form (int
    indexes, two-key tile objects, no repeated column), as (row, column) -> kind index;
    None at the first thing that is not, for decode_map's checking path to name it.
    A remote client decodes the whole map every turn: this path skips the checks' calls."""
    kinds: dict[Coord, int] = {}
    kind_of: Callable[[Any], Any] = _KIND_BY_NAMES.get   # any key: what is not a tile's names is None
    for row in rows:
        if type(row) is not list or len(row) < 2:
            return None
        r = row[0]
        if type(r) is not int:
            return None
        columns = len(kinds)
        row_cells = 0
        for cell in row[1:]:
            if type(cell) is not list or len(cell) != 2:
                return None
            c, t = cell
            if type(c) is not int or type(t) is not dict or len(t) != 2:
                return None
            k = kind_of((t.get("shape"), t.get("color")))
            if k is None:
                return None
            kinds[(r, c)] = k
            row_cells += 1
        if len(kinds) - columns != row_cells:
            return None     # a column repeated (or a row given twice): the checking path
    return kinds


def decode_map(value: Any, where: str = "$") -> QMap:
    """JMap -> QMap. Rows in any order; a row needs at least one cell and no repeated
    column; a repeated row adds to / overrides the earlier one; ``[]`` is the empty map.
    (The reference's odd row-count check, 6.3, is not reproduced: every well-formed map
    is accepted, spec 11 #11.)"""
    rows = expect_list(value, where)
    kinds = _well_formed_kinds(rows)
    if kinds is not None:
        return QMap.from_kinds(kinds)
    cells: dict[Coord, Tile] = {}
    for i, row in enumerate(rows):
        rw = f"{where}[{i}]"
        expect_list(row, rw)
        if len(row) < 2:
            raise WireError("expected a row index followed by at least one cell", rw)
        r = expect_int(row[0], f"{rw}[0]")
        seen: set[int] = set()
        for j in range(1, len(row)):
            cw = f"{rw}[{j}]"
            cell = expect_list(row[j], cw, 2, 2)
            c = expect_int(cell[0], f"{cw}[0]")
            if c in seen:
                raise WireError(f"column {c} appears twice in row {r}", cw)
            seen.add(c)
            cells[(r, c)] = decode_tile(cell[1], f"{cw}[1]")
    return QMap(cells)


# -- players, public states, referee states ----------------------------------------------

def _record_json(name: str | None, score: int, hand: Iterable[Tile]) -> dict[str, Any]:
    """A JPlayer object; the "name" key is left out when there is no name."""
    out: dict[str, Any] = {} if name is None else {"name": name}
    out["score"] = score
    out["tile*"] = encode_tiles(hand)
    return out


def encode_player(record: PlayerRecord) -> dict[str, Any]:
    """JPlayer; the "name" key is left out when the record has no name."""
    return _record_json(record.name, record.score, record.hand)


def decode_player(value: Any, where: str = "$", require_name: bool = True,
                     max_natural: int | None = MAX_NATURAL) -> PlayerRecord:
    """JPlayer -> PlayerRecord. Unless `require_name`, the nameless form
    ``{"score", "tile*"}`` of the early harness fixtures is accepted too (name None).
    The score must not exceed `max_natural` (None: no cap; the harness fixtures hold
    scores such as 9999999)."""
    if not require_name and isinstance(value, dict) and "name" not in value:
        obj = expect_object(value, _PLAYER_KEYS_NAMELESS, where)
        name = None
    else:
        obj = expect_object(value, _PLAYER_KEYS, where)
        name = decode_name(obj["name"], f"{where}.name")
    score = expect_natural(obj["score"], f"{where}.score", max_natural)
    return PlayerRecord(name, score, decode_tiles(obj["tile*"], f"{where}.tile*"))


def encode_pub(pub: PublicState) -> dict[str, Any]:
    """JPub."""
    me = _record_json(pub.name, pub.score, pub.hand)
    return {"map": encode_map(pub.qmap), "tile*": pub.pile_size,
            "players": [me, *pub.other_scores]}


def decode_pub(value: Any, where: str = "$", require_name: bool = True,
                  max_natural: int | None = MAX_NATURAL) -> PublicState:
    """JPub -> PublicState (the active record may lack "name" unless `require_name`;
    scores and the pile count are capped by `max_natural`, None for no cap)."""
    obj = expect_object(value, _PUB_KEYS, where)
    players = expect_list(obj["players"], f"{where}.players", 1)
    me = decode_player(players[0], f"{where}.players[0]", require_name, max_natural)
    others = tuple(expect_natural(s, f"{where}.players[{i}]", max_natural)
                   for i, s in enumerate(players) if i > 0)
    return PublicState(
        qmap=decode_map(obj["map"], f"{where}.map"),
        name=me.name,
        score=me.score,
        hand=tuple(me.hand),
        other_scores=others,
        pile_size=expect_natural(obj["tile*"], f"{where}.tile*", max_natural),
    )


def encode_state(state: RefereeState) -> dict[str, Any]:
    """JState."""
    return {"map": encode_map(state.qmap), "tile*": encode_tiles(state.pile),
            "players": [encode_player(p) for p in state.players]}


def decode_state(value: Any, where: str = "$", require_name: bool = True,
                    max_natural: int | None = None) -> RefereeState:
    """JState -> RefereeState; `players` must be non-empty (6.3).

    States come from configurations and harness inputs, never from a player, so scores
    are not capped by default (the game harness fixtures hold scores such as 9999999);
    pass `max_natural` to cap them."""
    obj = expect_object(value, _STATE_KEYS, where)
    items = expect_list(obj["players"], f"{where}.players", 1)
    players = [decode_player(v, f"{where}.players[{i}]", require_name, max_natural)
               for i, v in enumerate(items)]
    return RefereeState(decode_map(obj["map"], f"{where}.map"), players,
                        deque(decode_tiles(obj["tile*"], f"{where}.tile*")))


# -- results ----------------------------------------------------------------------------------

def encode_result(winners: Iterable[str], misbehaving: Sequence[str]) -> list[list[str]]:
    """JResult: winner names sorted by code points, misbehaving names as given."""
    return [sorted(winners), list(misbehaving)]


def decode_result(value: Any, where: str = "$") -> tuple[list[str], list[str]]:
    """JResult -> (winners, misbehaving)."""
    pair = expect_list(value, where, 2, 2)
    out: list[list[str]] = []
    for k in range(2):
        names = expect_list(pair[k], f"{where}[{k}]")
        out.append([expect_str(n, f"{where}[{k}][{i}]") for i, n in enumerate(names)])
    return out[0], out[1]


__all__ = [
    "MAX_NATURAL", "valid_name", "decode_name",
    "encode_tile", "decode_tile", "encode_tiles", "decode_tiles",
    "encode_coord", "decode_coord", "encode_placement", "decode_placement",
    "encode_placements", "decode_placements", "encode_choice", "decode_choice",
    "encode_map", "decode_map", "encode_player", "decode_player",
    "encode_pub", "decode_pub", "encode_state", "decode_state",
    "encode_result", "decode_result",
]
