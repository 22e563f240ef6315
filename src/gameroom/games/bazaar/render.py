"""A picture of a Bazaar game state as a self-contained SVG document (pure text).

Shows the caption (wrapped to the picture's width), the equations table, the bank (pebbles
per colour), the visible cards (five pebbles each, a smiley for a face card), the size of
the hidden pile, and one row per player in turn order: the active marker, name, score,
wallet pebbles and cards owned.

Shapes a page can make clickable (the web room's board), by attribute:

- ``data-equation="i"``: the i-th equation's row, ``<g class="equation">``;
- ``data-card="i"``: the i-th visible card, ``<g class="card">``;
- ``data-bank="colour"``: the bank's pebble of each colour;
- ``data-player="NAME"``: a player's row, ``<g class="player">`` (its wallet's pebbles
  carry ``data-wallet="i"``).

The web room's board (``board.js``, ``docs/boards.md``) finds its targets by ``data-key``:
``bank`` (over the bank's row), each side of an equation (``trade:GIVEN>TAKEN``, sorted
colours, a group inside the equation's) and each visible card
(``card:COLOURS:face|plain``, on the card's group).
"""

from __future__ import annotations

from html import escape
from typing import Sequence

from gameroom.core.pictures import caption_svg
from gameroom.games.bazaar.pieces import COLOURS, Bag, Card, Equation, Pebble
from gameroom.games.bazaar.state import GameState

FILL = {Pebble.RED: "#d62728", Pebble.WHITE: "#ffffff", Pebble.BLUE: "#1f77b4",
        Pebble.GREEN: "#2ca02c", Pebble.YELLOW: "#f2c500"}
R = 7            # pebble radius
STEP = 2 * R + 3  # distance between pebble centres
WIDTH = 960
FONT = 'font-family="sans-serif"'


def _pebble(x: float, y: float, p: Pebble, data: str = "") -> str:
    return (f'<circle{" " + data if data else ""} cx="{x:.0f}" cy="{y:.0f}" r="{R}" fill="{FILL[p]}" stroke="#444" '
            f'stroke-width="1"><title>{p.colour}</title></circle>')


def _pebbles(x: float, y: float, bag: Bag | Sequence[Pebble], limit: int = 40,
             data: str = "") -> tuple[list[str], float]:
    """Pebbles in a row from (x, y); returns the elements and the x after the row
    (``data``: the attribute numbering each pebble, e.g. ``data-wallet``)."""
    out = []
    items = list(bag)
    for i, p in enumerate(items[:limit]):
        out.append(_pebble(x + R + i * STEP, y, p, f'{data}="{i}"' if data else ""))
    x += min(len(items), limit) * STEP
    if len(items) > limit:
        out.append(f'<text x="{x + 2:.0f}" y="{y + 4:.0f}" {FONT} font-size="12">+{len(items) - limit}</text>')
        x += 30
    return out, x


def _text(x: float, y: float, text: str, size: int = 14, weight: str = "normal") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" {FONT} font-size="{size}" font-weight="{weight}">'
            f'{escape(text)}</text>')


def _trade_key(give: Bag, get: Bag) -> str:
    """``trade:red,white>blue``: the sorted colours given and taken (the web room's board)."""
    return f"trade:{','.join(sorted(p.colour for p in give))}>{','.join(sorted(p.colour for p in get))}"


def _card_key(card: Card) -> str:
    """``card:blue,red,red,white,white:face`` (or ``:plain``): a visible card by its looks."""
    return f"card:{','.join(sorted(p.colour for p in card.pebbles))}:{'face' if card.face else 'plain'}"


def _card(x: float, y: float, card: Card, index: int) -> list[str]:
    w, h = 110, 70
    out = [f'<g class="card" data-card="{index}" data-key="{_card_key(card)}"><title>card {index + 1}: '
           f'{card.pebbles.letters()}{" (face)" if card.face else ""}</title>'
           f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="8" fill="#f7f1e3" '
           f'stroke="#8a6d3b" stroke-width="2"/>']
    items = list(card.pebbles)
    for i, p in enumerate(items[:3]):
        out.append(_pebble(x + 22 + i * 33, y + 20, p))
    for i, p in enumerate(items[3:5]):
        out.append(_pebble(x + 38 + i * 33, y + 42, p))
    if card.face:
        cx, cy = x + w - 14, y + h - 12
        out.append(f'<g stroke="#8a6d3b" fill="none" stroke-width="1.5"><circle cx="{cx}" cy="{cy}" r="8"/>'
                   f'<path d="M {cx - 4} {cy + 2} Q {cx} {cy + 6} {cx + 4} {cy + 2}"/></g>'
                   f'<circle cx="{cx - 3}" cy="{cy - 2}" r="1.2" fill="#8a6d3b"/>'
                   f'<circle cx="{cx + 3}" cy="{cy - 2}" r="1.2" fill="#8a6d3b"/>')
    out.append("</g>")
    return out


def render_svg(state: GameState, caption: str = "", equations: Sequence[Equation] | None = None) -> str:
    """An SVG picture of ``state`` (its equations, or ``equations`` when given)."""
    eqs = list(state.equations if equations is None else equations)
    parts: list[str] = []
    y: float = 28
    if caption:
        text, height = caption_svg(caption, 16, y, WIDTH - 32, 18)
        parts.append(text)
        y += height + 22

    # equations (left column) and bank, cards (right column)
    top = y
    parts.append(_text(16, y, "Equations", 15, "bold"))
    ey = y + 22
    for i, eq in enumerate(eqs):
        parts.append(f'<g class="equation" data-equation="{i}"><title>equation {i + 1}: '
                     f'{eq.left.letters()} = {eq.right.letters()}</title>')
        # each side a group: a person in the web room gives that side for the other
        give = f'<g data-key="{_trade_key(eq.left, eq.right)}"><rect x="14" y="{ey - R - 3}" ' \
               f'width="{len(list(eq.left)) * STEP + 10}" height="{2 * R + 6}" rx="4" fill="#fdfbf6" stroke="none"/>'
        row, x = _pebbles(20, ey, eq.left)
        parts += [give, *row, "</g>"]
        parts.append(_text(x + 8, ey + 5, "⇄", 16))
        take = f'<g data-key="{_trade_key(eq.right, eq.left)}"><rect x="{x + 24:.0f}" y="{ey - R - 3}" ' \
               f'width="{len(list(eq.right)) * STEP + 10}" height="{2 * R + 6}" rx="4" fill="#fdfbf6" stroke="none"/>'
        row, _ = _pebbles(x + 30, ey, eq.right)
        parts += [take, *row, "</g>"]
        parts.append("</g>")
        ey += STEP + 4
    if not eqs:
        parts.append(_text(20, ey + 4, "(none)", 13))
        ey += STEP

    bx = 330
    parts.append(_text(bx, top, f"Bank ({len(state.bank)} pebbles)", 15, "bold"))
    counts = state.bank.counts()
    for i, p in enumerate(COLOURS):
        cx = bx + 4 + i * 70
        parts.append(_pebble(cx + R, top + 22, p, f'data-bank="{p.colour}"'))
        parts.append(_text(cx + 2 * R + 5, top + 27, f"× {counts[i]}", 13))
    # over the bank's row (unpainted): where a person in the web room clicks for a pebble
    parts.append(f'<rect x="{bx - 6}" y="{top + 8}" width="{len(COLOURS) * 70 + 4}" height="28" rx="6" fill="none" '
                 f'stroke="none" data-key="bank"/>')

    cy = top + 50
    parts.append(_text(bx, cy, f"Cards (visible {len(state.visibles)}, hidden {len(state.hidden)})", 15, "bold"))
    cy += 12
    for i, card in enumerate(state.visibles):
        parts += _card(bx + i * 120, cy, card, i)
    if state.hidden:
        hx = bx + len(state.visibles) * 120
        for k in range(min(3, len(state.hidden)) - 1, -1, -1):
            parts.append(f'<rect x="{hx + 4 * k}" y="{cy + 4 * k}" width="110" height="70" rx="8" '
                         f'fill="#8a6d3b" stroke="#5c4827" stroke-width="2"/>')
        parts.append(f'<text x="{hx + 55}" y="{cy + 42}" {FONT} font-size="16" fill="#fff" '
                     f'text-anchor="middle">{len(state.hidden)}</text>')
    y = max(ey, cy + 90) + 16

    # players
    parts.append(_text(16, y, "Players", 15, "bold"))
    y += 24
    for i, player in enumerate(state.players):
        name = player.name or f"player {i}"
        parts.append(f'<g class="player" data-player="{escape(name)}">')
        if i == 0:
            parts.append(f'<path d="M 16 {y - 10} L 26 {y - 4} L 16 {y + 2} Z" fill="#333"/>')
        parts.append(_text(32, y, name, 14, "bold" if i == 0 else "normal"))
        parts.append(_text(200, y, f"score {player.score}", 14))
        parts.append(_text(290, y, f"cards {len(player.cards)}", 14))
        row, _ = _pebbles(370, y - 5, player.wallet, 28, "data-wallet")
        parts += row
        parts.append("</g>")
        y += STEP + 10
    if not state.players:
        parts.append(_text(32, y, "(no players remain)", 13))
        y += STEP + 10

    height = y + 10
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}">'
            f'<title>{escape(caption or "Bazaar state")}</title>'
            f'<rect width="{WIDTH}" height="{height}" fill="#fdfbf6"/>'
            + "".join(parts) + "</svg>")


__all__ = ["render_svg"]
