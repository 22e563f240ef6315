"""Test helpers for Q: short tile names, naive reference implementations of the rules
(straight from the spec's prose, no index) to compare the fast ones against, and
hypothesis strategies for maps."""

from __future__ import annotations

from typing import Mapping

from hypothesis import strategies as st

from gameroom.games.q.qmap import QMap
from gameroom.games.q.pieces import ALL_KINDS, Coord, Tile, tile


def T(text: str) -> Tile:
    """A tile from "color shape", e.g. T("red 8star")."""
    color, shape = text.split()
    return tile(shape, color)


def naive_line_ok(a: Tile | None, t: Tile, b: Tile | None) -> bool:
    present = [n for n in (a, b) if n is not None]
    if not present:
        return True
    if len(present) == 1:
        return present[0].shape == t.shape or present[0].color == t.color
    n1, n2 = present
    return (n1.shape == t.shape and n2.shape == t.shape) or (n1.color == t.color
                                                              and n2.color == t.color)


def naive_fits(cells: Mapping[Coord, Tile], coord: Coord, t: Tile) -> bool:
    r, c = coord
    g = cells.get
    return naive_line_ok(g((r, c - 1)), t, g((r, c + 1))) and naive_line_ok(
        g((r - 1, c)), t, g((r + 1, c)))


def naive_count(cells: Mapping[Coord, Tile], coord: Coord) -> int:
    r, c = coord
    return sum(n in cells for n in ((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c)))


def naive_free(cells: Mapping[Coord, Tile]) -> set[Coord]:
    out = set()
    for r, c in cells:
        for n in ((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c)):
            if n not in cells:
                out.add(n)
    return out


def naive_candidates(cells: Mapping[Coord, Tile], t: Tile) -> list[Coord]:
    return sorted(c for c in naive_free(cells) if naive_fits(cells, c, t))


tiles_st = st.sampled_from(ALL_KINDS)
# a small palette makes fits (and so long placements) likely
few_tiles_st = st.sampled_from([t for t in ALL_KINDS if t.shape < 2 and t.color < 3])
coords_st = st.tuples(st.integers(-4, 4), st.integers(-4, 4))


@st.composite
def grown_maps(draw: st.DrawFn, max_tiles: int = 25, palette: st.SearchStrategy[Tile] = tiles_st
               ) -> dict[Coord, Tile]:
    """A connected map grown tile by tile from (0, 0) (tiles need not fit)."""
    cells = {(0, 0): draw(palette)}
    for _ in range(draw(st.integers(0, max_tiles))):
        free = sorted(naive_free(cells))
        cells[draw(st.sampled_from(free))] = draw(palette)
    return cells


@st.composite
def scattered_maps(draw: st.DrawFn) -> dict[Coord, Tile]:
    """Any map, possibly disconnected or empty."""
    return draw(st.dictionaries(coords_st, tiles_st, max_size=30))


def qmap_of(text_cells: Mapping[Coord, str]) -> QMap:
    return QMap({c: T(s) for c, s in text_cells.items()})


def bookkeeping(m: QMap) -> tuple[dict, dict, dict]:
    """A map's incremental bookkeeping (free neighbours and both index tables), without the
    index's empty sets, which are made on first use. The ldasg layers are built if they are
    not yet (they are made on ldasg's first question)."""
    return (dict(m._free), {k: s for k, s in m._index.items() if s},
            {k: s for k, s in m._layers().items() if s})
