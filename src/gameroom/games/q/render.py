"""Pictures of Q states as self-contained SVG text (used by observers and the replay viewer).

:func:`render_svg` draws the full referee state: the map on a grid with row and column
labels (free neighbours outlined), each player's name, score and hand as small tiles, the
pile size and its first few tiles, an optional caption, and the tiles placed in the last
turn outlined in black. :func:`tile_svg` draws a
single tile as an SVG fragment and :func:`render_tile_svg` as a whole document. Each of the
six shapes has its own outline — 4-point star, 8-point star, square, circle, clover,
diamond — filled with the tile's colour. The web room's board clicks on the picture: the
free neighbours carry ``data-key="cell:ROW,COLUMN"``, the tiles of a hand
``data-key="hand:NAME:INDEX"``, and the map group where cells are drawn (``data-x0``,
``data-y0``, ``data-cell``). Pure: these functions only build text.
"""

from __future__ import annotations

import math
from typing import Iterable
from xml.sax.saxutils import escape

from gameroom.games.q.state import RefereeState
from gameroom.games.q.pieces import COLOR_NAMES, SHAPE_NAMES, Shape, Tile

FILL: dict[int, str] = {
    0: "#d62728",  # red
    1: "#2ca02c",  # green
    2: "#1f77b4",  # blue
    3: "#e8c000",  # yellow
    4: "#ff7f0e",  # orange
    5: "#8e44ad",  # purple
}
CELL = 36
SMALL = 24
MARGIN = 28
PILE_SHOWN = 12
FONT = "font-family='sans-serif'"


def _fmt(v: float) -> str:
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _star_points(cx: float, cy: float, outer: float, inner: float, tips: int) -> str:
    pts = []
    for i in range(2 * tips):
        radius = outer if i % 2 == 0 else inner
        angle = math.pi * i / tips - math.pi / 2
        pts.append(f"{_fmt(cx + radius * math.cos(angle))},{_fmt(cy + radius * math.sin(angle))}")
    return " ".join(pts)


def _shape_svg(shape: int, cx: float, cy: float, size: float, fill: str) -> str:
    r = size * 0.36
    paint = f"fill='{fill}' stroke='#222' stroke-width='{_fmt(max(size / 40, 0.5))}'"
    if shape == Shape.star:
        return f"<polygon points='{_star_points(cx, cy, r, r * 0.38, 4)}' {paint}/>"
    if shape == Shape.eight_star:
        return f"<polygon points='{_star_points(cx, cy, r, r * 0.62, 8)}' {paint}/>"
    if shape == Shape.square:
        side = r * 1.6
        return (f"<rect x='{_fmt(cx - side / 2)}' y='{_fmt(cy - side / 2)}' "
                f"width='{_fmt(side)}' height='{_fmt(side)}' {paint}/>")
    if shape == Shape.circle:
        return f"<circle cx='{_fmt(cx)}' cy='{_fmt(cy)}' r='{_fmt(r * 0.9)}' {paint}/>"
    if shape == Shape.clover:
        leaf = r * 0.48
        d = r * 0.5
        leaves = "".join(f"<circle cx='{_fmt(cx + dx)}' cy='{_fmt(cy + dy)}' r='{_fmt(leaf)}'/>"
                         for dx, dy in ((0, -d), (d, 0), (0, d), (-d, 0)))
        centre = f"<circle cx='{_fmt(cx)}' cy='{_fmt(cy)}' r='{_fmt(leaf * 0.8)}'/>"
        return f"<g {paint}>{leaves}{centre}</g>"
    # diamond
    return (f"<polygon points='{_fmt(cx)},{_fmt(cy - r)} {_fmt(cx + r * 0.75)},{_fmt(cy)} "
            f"{_fmt(cx)},{_fmt(cy + r)} {_fmt(cx - r * 0.75)},{_fmt(cy)}' {paint}/>")


def tile_svg(tile: Tile, x: float, y: float, size: float = CELL, key: str | None = None) -> str:
    """An SVG fragment drawing `tile` in the square with top-left corner (x, y); ``key``
    names it for the web room's board (``data-key``)."""
    shape, color = tile
    title = f"<title>{COLOR_NAMES[color]} {SHAPE_NAMES[shape]}</title>"
    background = (f"<rect x='{_fmt(x + 1)}' y='{_fmt(y + 1)}' width='{_fmt(size - 2)}' "
                  f"height='{_fmt(size - 2)}' rx='{_fmt(size / 8)}' fill='#f7f3e8' "
                  f"stroke='#999' stroke-width='1'/>")
    keyed = "" if key is None else f" data-key='{escape(key)}' data-tile='{COLOR_NAMES[color]} {SHAPE_NAMES[shape]}'"
    return (f"<g class='tile'{keyed}>{background}{title}"
            f"{_shape_svg(shape, x + size / 2, y + size / 2, size, FILL[color])}</g>")


def render_tile_svg(tile: Tile, size: int = CELL) -> str:
    """A whole SVG document showing one tile."""
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{size}' height='{size}' "
            f"viewBox='0 0 {size} {size}'>{tile_svg(tile, 0, 0, size)}</svg>")


def _text(x: float, y: float, text: str, size: int = 12, anchor: str = "start",
          weight: str = "normal") -> str:
    return (f"<text x='{_fmt(x)}' y='{_fmt(y)}' font-size='{size}' {FONT} "
            f"text-anchor='{anchor}' font-weight='{weight}'>{escape(text)}</text>")


def _tile_row(tiles: Iterable[Tile], x: float, y: float, size: float = SMALL, key: str | None = None) -> str:
    return "".join(tile_svg(t, x + i * (size + 2), y, size, None if key is None else f"{key}:{i}")
                   for i, t in enumerate(tiles))


def render_svg(state: RefereeState, caption: str = "", placed: Iterable[tuple[int, int]] = ()) -> str:
    """A self-contained SVG picture of the whole referee state; the tiles at ``placed``
    (the last turn's placements) are outlined so the picture shows what just happened."""
    qmap = state.qmap
    bounds = qmap.bounds()
    rmin, rmax, cmin, cmax = (0, 0, 0, 0) if bounds is None else bounds
    rmin, rmax, cmin, cmax = rmin - 1, rmax + 1, cmin - 1, cmax + 1
    rows, cols = rmax - rmin + 1, cmax - cmin + 1
    top = MARGIN + (24 if caption else 0)
    map_x, map_y = MARGIN + 30, top + 18
    map_w, map_h = cols * CELL, rows * CELL

    parts: list[str] = []
    # grid, labels
    grid = [f"<rect x='{map_x}' y='{map_y}' width='{map_w}' height='{map_h}' "
            f"fill='#ffffff' stroke='#bbb'/>"]
    for i in range(1, cols):
        x = map_x + i * CELL
        grid.append(f"<line x1='{x}' y1='{map_y}' x2='{x}' y2='{map_y + map_h}' stroke='#eee'/>")
    for j in range(1, rows):
        y = map_y + j * CELL
        grid.append(f"<line x1='{map_x}' y1='{y}' x2='{map_x + map_w}' y2='{y}' stroke='#eee'/>")
    parts.append("<g class='grid'>" + "".join(grid) + "</g>")
    labels = [_text(map_x + (c - cmin) * CELL + CELL / 2, map_y - 5, str(c), 10, "middle")
              for c in range(cmin, cmax + 1)]
    labels += [_text(map_x - 5, map_y + (r - rmin) * CELL + CELL / 2 + 4, str(r), 10, "end")
               for r in range(rmin, rmax + 1)]
    parts.append("<g class='labels'>" + "".join(labels) + "</g>")
    free = [f"<rect x='{map_x + (c - cmin) * CELL + 3}' y='{map_y + (r - rmin) * CELL + 3}' "
            f"width='{CELL - 6}' height='{CELL - 6}' fill='none' stroke='#cfd8dc' "
            f"stroke-dasharray='3,2' data-key='cell:{r},{c}'/>"
            for r, c in sorted(qmap.free_neighbours())]
    parts.append("<g class='free'>" + "".join(free) + "</g>")
    # where cell (r, c) is drawn: x0 + c * CELL, y0 + r * CELL (the web room's board places tiles there)
    parts.append(f"<g class='map' data-x0='{map_x - cmin * CELL}' data-y0='{map_y - rmin * CELL}' "
                 f"data-cell='{CELL}'>" + "".join(
        tile_svg(t, map_x + (c - cmin) * CELL, map_y + (r - rmin) * CELL)
        for (r, c), t in qmap.sorted_items()) + "</g>")
    marks = [f"<rect x='{map_x + (c - cmin) * CELL + 1}' y='{map_y + (r - rmin) * CELL + 1}' "
             f"width='{CELL - 2}' height='{CELL - 2}' rx='{_fmt(CELL / 8)}' fill='none' "
             f"stroke='#000' stroke-width='3'><title>placed in the last turn</title></rect>"
             for r, c in placed]
    if marks:
        parts.append("<g class='placed'>" + "".join(marks) + "</g>")

    # players and pile
    panel_x = map_x + map_w + 2 * MARGIN
    y = top + 14
    side: list[str] = [_text(panel_x, y, "Players (first = active)", 14, weight="bold")]
    y += 12
    panel_w = 220
    for i, player in enumerate(state.players):
        name = player.name if player.name is not None else f"player {i + 1}"
        side.append(_text(panel_x, y + 14, f"{'▶ ' if i == 0 else ''}{name}: {player.score}", 13,
                          weight="bold" if i == 0 else "normal"))
        side.append(_tile_row(player.hand, panel_x, y + 20, key=f"hand:{name}"))
        panel_w = max(panel_w, len(player.hand) * (SMALL + 2), 9 * len(name) + 60)
        y += 20 + SMALL + 14
    if not state.players:
        side.append(_text(panel_x, y + 14, "(no players)", 12))
        y += 24
    y += 10
    shown = list(state.pile)[:PILE_SHOWN]
    side.append(_text(panel_x, y + 14, f"Pile: {len(state.pile)} tile(s)", 14, weight="bold"))
    side.append(_tile_row(shown, panel_x, y + 20))
    if len(state.pile) > len(shown):
        side.append(_text(panel_x + len(shown) * (SMALL + 2) + 4, y + 20 + SMALL - 6, "…", 14))
    panel_w = max(panel_w, len(shown) * (SMALL + 2) + 20)
    y += 20 + SMALL + 10
    parts.append("<g class='players'>" + "".join(side) + "</g>")

    width = panel_x + panel_w + MARGIN
    height = max(map_y + map_h, y) + MARGIN
    if caption:
        parts.insert(0, _text(MARGIN, MARGIN + 6, caption, 16, weight="bold"))
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
            f"viewBox='0 0 {width} {height}'>"
            f"<title>{escape(caption or 'Q state')}</title>"
            f"<rect width='100%' height='100%' fill='#fafafa'/>"
            + "".join(parts) + "</svg>")


__all__ = ["render_svg", "tile_svg", "render_tile_svg", "FILL"]
