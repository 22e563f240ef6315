"""Pictures of Q states as self-contained SVG text (``--observe``, the web room, replays).

:func:`render_svg` draws the full referee state: the caption (wrapped to the picture's
width), the map on a grid with row and column labels (free neighbours outlined), each
player's name, score and hand as small tiles (a hand the viewer may not see as tile backs
with their number), the pile size and its first few tiles, and the tiles placed in the
last turn outlined in black. The map fits its bounding box: cells shrink (36 down to 14
pixels) so that a map grown into a long line stays within about 720 x 460 pixels instead
of making the picture a strip hundreds of pixels tall. :func:`tile_svg` draws a single
tile as an SVG fragment and :func:`render_tile_svg` as a whole document. Each of the six
shapes has its own outline — 4-point star, 8-point star, square, circle, clover, diamond
— filled with the tile's colour. Pure: these functions only build text.

Shapes a page can make clickable (the web room's board), by attribute:

- ``data-cell="r,c"``: a map cell — on each placed tile's ``<g class="tile">`` and on each
  free neighbour's ``<rect class="free-cell">`` (where a tile may go);
- ``data-hand="i"``: the i-th tile of a hand the viewer sees (``<g class="tile">`` inside
  the player's ``<g class="player" data-player="NAME">``); a hidden hand's tiles are
  ``<rect class="tile-back">``;
- ``<g class="placed">``: the outlines of the last turn's tiles, each with ``data-cell``;
- ``<g class="pile" data-count="N">``: the pile.

The web room's board (``board.js``, ``docs/boards.md``) finds its targets by ``data-key``:
each free neighbour is ``cell:ROW,COLUMN`` and each tile of a shown hand
``hand:NAME:INDEX`` (with ``data-tile="COLOUR SHAPE"``); the map's group says where cell
``(r, c)`` is drawn (``data-x0 + c * data-size``, ``data-y0 + r * data-size``), so the
board can draw a tile placed this turn, even beyond the picture's edge.
"""

from __future__ import annotations

import math
from typing import Iterable
from xml.sax.saxutils import escape

from gameroom.core.pictures import caption_svg
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
MIN_CELL = 14
MAP_BOX = (720, 460)
"""The box a map fits into (width, height): its cells shrink down to ``MIN_CELL``."""
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


def tile_svg(tile: Tile, x: float, y: float, size: float = CELL, data: str = "", key: str | None = None) -> str:
    """An SVG fragment drawing `tile` in the square with top-left corner (x, y); ``data``
    adds attributes to its group (``data-cell='0,1'``), ``key`` names it for the web
    room's board (``data-key``, with ``data-tile``)."""
    shape, color = tile
    title = f"<title>{COLOR_NAMES[color]} {SHAPE_NAMES[shape]}</title>"
    background = (f"<rect x='{_fmt(x + 1)}' y='{_fmt(y + 1)}' width='{_fmt(size - 2)}' "
                  f"height='{_fmt(size - 2)}' rx='{_fmt(size / 8)}' fill='#f7f3e8' "
                  f"stroke='#999' stroke-width='1'/>")
    keyed = "" if key is None else (f" data-key='{_attr(key)}' "
                                     f"data-tile='{COLOR_NAMES[color]} {SHAPE_NAMES[shape]}'")
    return (f"<g class='tile'{' ' + data if data else ''}{keyed}>{title}{background}"
            f"{_shape_svg(shape, x + size / 2, y + size / 2, size, FILL[color])}</g>")


def render_tile_svg(tile: Tile, size: int = CELL) -> str:
    """A whole SVG document showing one tile."""
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{size}' height='{size}' "
            f"viewBox='0 0 {size} {size}'>{tile_svg(tile, 0, 0, size)}</svg>")


def _text(x: float, y: float, text: str, size: int = 12, anchor: str = "start",
          weight: str = "normal") -> str:
    return (f"<text x='{_fmt(x)}' y='{_fmt(y)}' font-size='{size}' {FONT} "
            f"text-anchor='{anchor}' font-weight='{weight}'>{escape(text)}</text>")


def _attr(text: str) -> str:
    """``text`` safe inside a single-quoted attribute."""
    return escape(text, {"'": "&#39;"})


def _hand(tiles: Iterable[Tile], count: int, x: float, y: float, name: str) -> str:
    """A hand in a row: its tiles (``data-hand``, keyed ``hand:NAME:INDEX`` for the web
    room's board) or, hidden from the viewer, ``count`` backs."""
    shown = list(tiles)
    if shown:
        return "".join(tile_svg(t, x + i * (SMALL + 2), y, SMALL, f"data-hand='{i}'", f"hand:{name}:{i}")
                       for i, t in enumerate(shown))
    return "".join(f"<rect class='tile-back' x='{_fmt(x + i * (SMALL + 2) + 1)}' y='{_fmt(y + 1)}' "
                   f"width='{SMALL - 2}' height='{SMALL - 2}' rx='3' fill='#c9bfa8' stroke='#999'/>"
                   for i in range(count))


def _cell_size(rows: int, cols: int) -> int:
    """The largest cell (at most ``CELL``, at least ``MIN_CELL``) that fits the map in ``MAP_BOX``."""
    return max(MIN_CELL, min(CELL, MAP_BOX[0] // cols, MAP_BOX[1] // rows))


def render_svg(state: RefereeState, caption: str = "", placed: Iterable[tuple[int, int]] = ()) -> str:
    """A self-contained SVG picture of the whole referee state; the tiles at ``placed``
    (the last turn's placements) are outlined so the picture shows what just happened."""
    qmap = state.qmap
    bounds = qmap.bounds()
    rmin, rmax, cmin, cmax = (0, 0, 0, 0) if bounds is None else bounds
    rmin, rmax, cmin, cmax = rmin - 1, rmax + 1, cmin - 1, cmax + 1
    rows, cols = rmax - rmin + 1, cmax - cmin + 1
    cell = _cell_size(rows, cols)
    map_w, map_h = cols * cell, rows * cell

    # the width first (map and players' panel), so the caption can wrap to it
    panel_w = 220
    for i, player in enumerate(state.players):
        name = player.name if player.name is not None else f"player {i + 1}"
        panel_w = max(panel_w, len(player.hand) * (SMALL + 2), 9 * len(name) + 100)
    shown = list(state.pile)[:PILE_SHOWN]
    panel_w = max(panel_w, len(shown) * (SMALL + 2) + 20)
    panel_x = MARGIN + 30 + map_w + 2 * MARGIN
    width = panel_x + panel_w + MARGIN
    parts: list[str] = []
    top: float = MARGIN
    if caption:
        text, height = caption_svg(caption, MARGIN, MARGIN + 6, width - 2 * MARGIN)
        parts.append(text)
        top = MARGIN + 6 + height + 12
    map_x, map_y = MARGIN + 30, top + 18

    grid = [f"<rect x='{map_x}' y='{map_y}' width='{map_w}' height='{map_h}' "
            f"fill='#ffffff' stroke='#bbb'/>"]
    for i in range(1, cols):
        x = map_x + i * cell
        grid.append(f"<line x1='{x}' y1='{map_y}' x2='{x}' y2='{map_y + map_h}' stroke='#eee'/>")
    for j in range(1, rows):
        y = map_y + j * cell
        grid.append(f"<line x1='{map_x}' y1='{y}' x2='{map_x + map_w}' y2='{y}' stroke='#eee'/>")
    parts.append("<g class='grid'>" + "".join(grid) + "</g>")
    every = 1 if cell >= 24 else (2 if cell >= 18 else 3)   # labels that do not overlap
    labels = [_text(map_x + (c - cmin) * cell + cell / 2, map_y - 5, str(c), 10, "middle")
              for c in range(cmin, cmax + 1) if c % every == 0]
    labels += [_text(map_x - 5, map_y + (r - rmin) * cell + cell / 2 + 4, str(r), 10, "end")
               for r in range(rmin, rmax + 1)]
    parts.append("<g class='labels'>" + "".join(labels) + "</g>")
    inset = max(2, cell // 12)
    free = [f"<rect class='free-cell' data-cell='{r},{c}' data-key='cell:{r},{c}' "
            f"x='{map_x + (c - cmin) * cell + inset}' "
            f"y='{map_y + (r - rmin) * cell + inset}' width='{cell - 2 * inset}' height='{cell - 2 * inset}' "
            f"fill='none' stroke='#cfd8dc' stroke-dasharray='3,2' pointer-events='all'/>"
            for r, c in sorted(qmap.free_neighbours())]
    parts.append("<g class='free'>" + "".join(free) + "</g>")
    # where cell (r, c) is drawn: x0 + c * size, y0 + r * size (the web room's board places tiles there)
    parts.append(f"<g class='map' data-x0='{map_x - cmin * cell}' data-y0='{map_y - rmin * cell}' "
                 f"data-size='{cell}'>" + "".join(
        tile_svg(t, map_x + (c - cmin) * cell, map_y + (r - rmin) * cell, cell, f"data-cell='{r},{c}'")
        for (r, c), t in qmap.sorted_items()) + "</g>")
    marks = [f"<rect data-cell='{r},{c}' x='{map_x + (c - cmin) * cell + 1}' y='{map_y + (r - rmin) * cell + 1}' "
             f"width='{cell - 2}' height='{cell - 2}' rx='{_fmt(cell / 8)}' fill='none' "
             f"stroke='#000' stroke-width='3'><title>placed in the last turn</title></rect>"
             for r, c in placed]
    if marks:
        parts.append("<g class='placed'>" + "".join(marks) + "</g>")

    # players and pile
    y = top + 14
    parts.append(_text(panel_x, y, "Players (first = active)", 14, weight="bold"))
    y += 12
    for i, player in enumerate(state.players):
        name = player.name if player.name is not None else f"player {i + 1}"
        hidden = not list(player.hand) and len(player.hand) > 0
        label = f"{'▶ ' if i == 0 else ''}{name}: {player.score}" + (f" ({len(player.hand)} tiles)" if hidden else "")
        parts.append(f"<g class='player' data-player='{_attr(name)}'>"
                     + _text(panel_x, y + 14, label, 13, weight="bold" if i == 0 else "normal")
                     + _hand(player.hand, len(player.hand), panel_x, y + 20, name) + "</g>")
        y += 20 + SMALL + 14
    if not state.players:
        parts.append(_text(panel_x, y + 14, "(no players)", 12))
        y += 24
    y += 10
    pile = [_text(panel_x, y + 14, f"Pile: {len(state.pile)} tile(s)", 14, weight="bold"),
            "".join(tile_svg(t, panel_x + i * (SMALL + 2), y + 20, SMALL) for i, t in enumerate(shown))]
    if len(state.pile) > len(shown):
        pile.append(_text(panel_x + len(shown) * (SMALL + 2) + 4, y + 20 + SMALL - 6, "…", 14))
    parts.append(f"<g class='pile' data-count='{len(state.pile)}'>" + "".join(pile) + "</g>")
    y += 20 + SMALL + 10

    height = max(map_y + map_h, y) + MARGIN
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{_fmt(height)}' "
            f"viewBox='0 0 {width} {_fmt(height)}'>"
            f"<title>{escape(caption or 'Q state')}</title>"
            f"<rect width='100%' height='100%' fill='#fafafa'/>"
            + "".join(parts) + "</svg>")


__all__ = ["render_svg", "tile_svg", "render_tile_svg", "FILL"]
