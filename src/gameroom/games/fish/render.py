"""A self-contained SVG picture of a Fish state: the hex board, the penguins and the scores.

Tile ``(r, c)`` with tile size s has its top-left corner at ``x = 4*s*c (+ 2*s if r is
odd)``, ``y = s*r`` (spec 2.2); a tile is a hexagon 3s wide and 2s high. Tiles show their
fish as small fish shapes, holes are left empty, a penguin is a disc in its player's color
at the left of its tile with the tile's fish still visible beside it (and their number on
the penguin); each tile is a group with ``data-key="tile:ROW,COLUMN"`` (the web room's
board clicks on it). The last move, when given, is drawn as an arrow from the tile left (now a
hole) to the tile reached, which is outlined. The scores are listed under the board by
player name when names are given; the caption is wrapped to the picture's width. Pure
text; nothing is written anywhere.

Shapes a page can make clickable (the web room's board), by attribute:

- ``data-cell="r,c"``: each tile, ``<polygon class="tile">`` (holes are not drawn);
- ``data-penguin="r,c"`` and ``data-color="red"``: each penguin, ``<g class="penguin">``
  on the tile it stands on;
- ``<g class="last-move" data-from="r,c" data-to="r,c">``: the last move's arrow;
- ``<text class="score" data-color="red">``: a player's score line.
"""

from __future__ import annotations

from html import escape
from typing import Any, Mapping

from gameroom.core.pictures import caption_svg
from gameroom.games.fish.state import Color, GameState

TILE = 40
"""The tile size s in pixels."""

FILL: dict[Color, str] = {
    Color.RED: "#d62828",
    Color.WHITE: "#ffffff",
    Color.BROWN: "#8b5a2b",
    Color.BLACK: "#111111",
}


def _hexagon(x: float, y: float, s: float) -> str:
    points = [(x + s, y), (x + 2 * s, y), (x + 3 * s, y + s), (x + 2 * s, y + 2 * s),
              (x + s, y + 2 * s), (x, y + s)]
    return " ".join(f"{px:g},{py:g}" for px, py in points)


def _fish(cx: float, cy: float, s: float) -> str:
    body = (f'<ellipse cx="{cx:g}" cy="{cy:g}" rx="{s * 0.28:g}" ry="{s * 0.13:g}" '
            f'fill="#1d70b8"/>')
    tail = (f'<polygon points="{cx + s * 0.26:g},{cy:g} {cx + s * 0.42:g},{cy - s * 0.12:g} '
            f'{cx + s * 0.42:g},{cy + s * 0.12:g}" fill="#1d70b8"/>')
    return body + tail


def _centre(position: Any, left: float, top: float, s: float) -> tuple[float, float]:
    r, c = position
    return left + 4 * s * c + (2 * s if r % 2 else 0) + 1.5 * s, top + s * r + s


def render_svg(state: GameState, caption: str = "", names: Mapping[Color, str] | None = None,
               move: Any = None) -> str:
    """The SVG text of `state` with an optional caption line above the board; ``names``
    gives the players' names by color, ``move`` (``(from, to)``) the last move to mark."""
    s = TILE
    board = state.board
    names = names or {}
    board_w = 4 * s * (board.columns - 1) + (5 * s if board.rows > 1 else 3 * s)
    board_h = s * (board.rows - 1) + 2 * s
    lines = [f"{names[p.color]} ({p.color.value}): {p.score}" if p.color in names else f"{p.color.value}: {p.score}"
             for p in state.players]
    width = max(board_w + s, 12 * s)
    head = ""
    top = s * 0.5
    if caption:
        head, height = caption_svg(caption, s * 0.5, s, width - s, s * 0.6, "normal")
        top = s + height + s * 0.5
    height = top + board_h + s * 0.5 + (len(lines) + 1) * s
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
           f'viewBox="0 0 {width:g} {height:g}">',
           f'<title>{escape(caption or "Fish state")}</title>',
           f'<rect width="{width:g}" height="{height:g}" fill="#eef6fb"/>']
    if head:
        out.append(head)
    left = s * 0.5
    owner = {q: p.color for p in state.players for q in p.places}
    for (r, c) in board.positions():
        x = left + 4 * s * c + (2 * s if r % 2 else 0)
        y = top + s * r
        n = board.fish_at((r, c))
        if n == 0:
            continue
        # each tile a group keyed by its position: the web room's board makes it a target
        out.append(f'<g data-key="tile:{r},{c}"><polygon class="tile" data-cell="{r},{c}" points="{_hexagon(x, y, s)}" '
                   f'fill="#f4a259" stroke="#7a4b1e" stroke-width="1"/>')
        color = owner.get((r, c))
        # With a penguin on the tile the fish move right so both stay visible.
        cx = x + (1.95 if color is not None else 1.5) * s
        for k in range(n):
            out.append(_fish(cx - s * 0.1, y + s * (0.3 + 1.4 * (k + 0.5) / n), s))
        if color is not None:
            who = names.get(color, color.value)
            ink = "#fff" if color in (Color.BLACK, Color.BROWN, Color.RED) else "#000"
            out.append(f'<g class="penguin" data-penguin="{r},{c}" data-color="{color.value}">'
                       f'<title>{escape(who)} ({color.value}) on {n} fish</title>'
                       f'<circle cx="{x + 0.95 * s:g}" cy="{y + s:g}" r="{s * 0.42:g}" '
                       f'fill="{FILL[color]}" stroke="#000" stroke-width="1.5"/>'
                       f'<text x="{x + 0.95 * s:g}" y="{y + s * 1.2:g}" text-anchor="middle" '
                       f'font-family="sans-serif" font-size="{s * 0.5:g}" fill="{ink}">{n}</text></g>')
        out.append("</g>")
    if move is not None:
        (x1, y1), (x2, y2) = (_centre(p, left, top, s) for p in move)
        x, y = x2 - 1.5 * s, y2 - s
        out.append(f'<g class="last-move" data-from="{move[0][0]},{move[0][1]}" '
                   f'data-to="{move[1][0]},{move[1][1]}"><title>last move {list(move[0])} -> {list(move[1])}</title>'
                   f'<polygon points="{_hexagon(x, y, s)}" fill="none" stroke="#000" stroke-width="3"/>'
                   f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="#000" '
                   f'stroke-width="2" stroke-dasharray="6,3"/>'
                   f'<circle cx="{x1:g}" cy="{y1:g}" r="{s * 0.15:g}" fill="#000"/></g>')
    y = top + board_h + s
    for i, text in enumerate(lines):
        color = state.players[i].color
        out.append(f'<circle cx="{s * 0.9:g}" cy="{y + i * s - s * 0.25:g}" r="{s * 0.3:g}" '
                   f'fill="{FILL[color]}" stroke="#000"/>')
        out.append(f'<text class="score" data-color="{color.value}" x="{s * 1.5:g}" y="{y + i * s:g}" '
                   f'font-family="sans-serif" font-size="{s * 0.6:g}">{escape(text)}</text>')
    out.append("</svg>")
    return "\n".join(out)
