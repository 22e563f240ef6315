"""A self-contained SVG picture of an Eriantys snapshot (§6.5): the caption (wrapped to the
picture's width) and a line of round, phase, bag and the planning and action orders above
everything else; the island ring with students, towers, no-entry tiles and Mother Nature
(an island grows with its towers, so the ring sits below the text, never under it); the
clouds; each school with entrance, dining room, professors, towers and coins; the character
cards in play. Pure text.

Shapes a page can make clickable (the web room's board), by attribute:

- ``<g class="island" data-island="i">``: an island (its students inside);
- ``<polygon class="mother-nature" data-island="i">``: Mother Nature, on island i;
- ``<g class="cloud" data-cloud="i">``: a cloud and its students;
- ``<g class="school" data-seat="s">``: a school, holding ``<g class="entrance" data-seat="s">``
  and one ``<g class="dining" data-seat="s" data-color="RED">`` per colour;
- ``data-student="COLOR"``: each student (a ``<circle class="student">``) in an entrance,
  a dining room, on an island, a cloud or a character card;
- ``<g class="character" data-card="ID">``: a character card in play.

The web room's board (``board.js``, ``docs/boards.md``) finds its targets by ``data-key``:
``island:I``, ``cloud:C``, ``entrance:SEAT:COLOR`` (the first student of a colour in an
entrance), ``table:SEAT:COLOR`` (a dining room's table), ``assistant:SEAT:VALUE`` (an
assistant card in a hand) and ``character:ID``.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from gameroom.core.pictures import caption_svg
from gameroom.games.eriantys.pieces import CARD_NAMES, COLORS

__all__ = ["render_svg"]

FILL = {"GREEN": "#2e9e44", "RED": "#d62828", "YELLOW": "#f2c300", "PINK": "#e573b5", "BLUE": "#1d70b8"}
TOWER = {"BLACK": "#222222", "WHITE": "#ffffff", "GREY": "#9a9a9a"}
WIDTH, RING = 880, 230
NARROW = 600
"""The width of the picture's one-column layout for narrow screens (the ring and one school)."""
ISLAND_REACH = 34 + 6 * 4 + 12
"""How far the largest island (four towers and more) and its label reach out of the ring."""


def _student(cx: float, cy: float, r: float, name: str, data: str = "") -> str:
    """A student disc; ``data`` adds attributes (a ``data-key`` for the web room's board)."""
    return (f'<circle class="student" data-student="{name}" cx="{cx:g}" cy="{cy:g}" r="{r:g}" '
            f'fill="{FILL[name]}" stroke="#333" stroke-width="0.5"{" " + data if data else ""}/>')


def _students(counts: dict[str, int], x: float, y: float, r: float = 5, per_row: int = 5,
              key: str | None = None) -> list[str]:
    """Students in rows; with ``key`` the first of each colour carries ``data-key="KEY:COLOR"``
    (the web room's board picks a student of that colour there)."""
    out, k = [], 0
    for name in COLORS:
        for n in range(counts[name]):
            keyed = f'data-key="{key}:{name}"' if key is not None and n == 0 else ""
            out.append(_student(x + (k % per_row) * (2 * r + 2), y + (k // per_row) * (2 * r + 2), r, name, keyed))
            k += 1
    return out


def _text(x: float, y: float, text: str, size: int = 12, anchor: str = "start", weight: str = "normal") -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-family="sans-serif" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}">{escape(text)}</text>')


def _islands(snap: dict[str, Any], cx: float, cy: float) -> list[str]:
    out = []
    islands = snap["islands"]
    for i, island in enumerate(islands):
        angle = 2 * math.pi * i / len(islands) - math.pi / 2
        x, y = cx + RING * math.cos(angle), cy + RING * math.sin(angle)
        radius = 34 + 6 * (island["towers"] > 1) * min(island["towers"], 4)
        out.append(f'<g class="island" data-island="{i}" data-key="island:{i}"><title>island {i}</title>')
        out.append(f'<circle cx="{x:g}" cy="{y:g}" r="{radius}" fill="#cde8c3" stroke="#5a7f4f" stroke-width="2"/>')
        out.append(_text(x, y - radius + 12, f"island {i}", 10, "middle"))
        out += _students(island["students"], x - 22, y - 12, 4, 6)
        if island["towers"]:
            color = TOWER[island["towerColor"]]
            out.append(f'<rect x="{x - 10:g}" y="{y + 12:g}" width="12" height="16" fill="{color}" stroke="#000"/>')
            out.append(_text(x + 6, y + 25, f"x{island['towers']}", 11))
        if island["noEntry"]:
            out.append(f'<circle cx="{x + 24:g}" cy="{y + 20:g}" r="8" fill="#b00020"/>')
            out.append(_text(x + 24, y + 24, f"{island['noEntry']}", 10, "middle", "bold"))
        if i == snap["motherNature"]:
            out.append(f'<polygon class="mother-nature" data-island="{i}" points="{x - 30:g},{y + 30:g} '
                       f'{x - 22:g},{y + 14:g} {x - 14:g},{y + 30:g}" fill="#7b2cbf" stroke="#000"/>')
            out.append(_text(x - 22, y + 42, "Mother Nature", 9, "middle"))
        out.append("</g>")
    return out


def _clouds(snap: dict[str, Any], cx: float, cy: float) -> list[str]:
    out = []
    count = len(snap["clouds"])
    for c, cloud in enumerate(snap["clouds"]):
        x = cx - (count * 70) / 2 + c * 70 + 5
        out.append(f'<g class="cloud" data-cloud="{c}" data-key="cloud:{c}"><title>cloud {c}</title>')
        out.append(f'<ellipse cx="{x + 28:g}" cy="{cy:g}" rx="32" ry="20" fill="#eef3fa" stroke="#8aa"/>')
        out.append(_text(x + 28, cy - 24, f"cloud {c}", 10, "middle"))
        out += _students(cloud, x + 10, cy - 5, 5, 4)
        out.append("</g>")
    return out


def _school(snap: dict[str, Any], player: dict[str, Any], x: float, y: float) -> list[str]:
    seat = player["seat"]
    out = [f'<g class="school" data-seat="{seat}">',
           f'<rect x="{x}" y="{y}" width="420" height="150" fill="#faf6ee" stroke="#997" rx="6"/>']
    state = " (ejected)" if player["ejected"] else ""
    current = " - playing" if snap["currentPlayer"] == seat else ""
    coins = "" if player["coins"] is None else f", {player['coins']} coin{'' if player['coins'] == 1 else 's'}"
    played = player["playedAssistant"]
    out.append(_text(x + 8, y + 16, f"seat {seat}: {player['username']} ({player['towerColor']}){state}{current}",
                     13, weight="bold"))
    out.append(_text(x + 8, y + 32, f"assistant {played if played is not None else '-'}, "
                     f"hand {','.join(map(str, player['hand'])) or 'empty'}{coins}", 11))
    out.append(_text(x + 8, y + 52, "entrance", 10))
    out.append(f'<g class="entrance" data-seat="{seat}">')
    out += _students(player["entrance"], x + 62, y + 44, 5, 9, key=f"entrance:{seat}")
    out.append("</g>")
    for k, value in enumerate(player["hand"]):   # the assistant cards in hand, to play by a click
        out.append(f'<g data-key="assistant:{seat}:{value}"><rect x="{x + 262 + k * 15}" y="{y + 38}" width="13" '
                   f'height="18" rx="2" fill="#fff" stroke="#886"/>'
                   + _text(x + 268.5 + k * 15, y + 51, str(value), 9, "middle") + '</g>')
    for row, name in enumerate(COLORS):
        ty = y + 72 + row * 15
        count = player["diningRoom"][name]
        out.append(f'<g class="dining" data-seat="{seat}" data-color="{name}" data-key="table:{seat}:{name}">'
                   f'<rect x="{x + 8}" y="{ty - 6}" width="{10 * 13}" height="12" fill="#faf6ee" stroke="#ccc"/>')
        for k in range(count):
            out.append(_student(x + 14 + k * 13, ty, 5, name))
        out.append("</g>")
        if snap["professors"][name] == seat:
            out.append(f'<polygon points="{x + 150},{ty - 6} {x + 162},{ty - 6} {x + 156},{ty + 6}" '
                       f'fill="{FILL[name]}" stroke="#000"/>')
            out.append(_text(x + 168, ty + 4, f"{name.lower()} professor", 10))
    team = player["towerColor"]
    if seat < len(snap["towers"]):
        towers = snap["towers"][team]
        out.append(_text(x + 280, y + 72, f"towers in supply: {towers}", 11))
        for k in range(towers):
            out.append(f'<rect x="{x + 280 + (k % 8) * 16}" y="{y + 80 + (k // 8) * 22}" width="11" height="16" '
                       f'fill="{TOWER[team]}" stroke="#000"/>')
    out.append("</g>")
    return out


def _cards(snap: dict[str, Any], x: float, top: float) -> list[str]:
    out = []
    for k, card in enumerate(snap["characterCards"]):   # one under the other, right of the ring
        cx, y = x, top + k * 70
        used = ", used" if card["used"] else ""
        active = snap["turn"]["activatedCard"] == card["id"]
        out.append(f'<g class="character" data-card="{card["id"]}" data-key="character:{card["id"]}">'
                   f'<title>{CARD_NAMES[card["id"]]}</title>')
        out.append(f'<rect x="{cx}" y="{y}" width="190" height="60" fill="{"#ffe8a3" if active else "#f3efe0"}" '
                   f'stroke="#997" rx="6"/>')
        out.append(_text(cx + 8, y + 16, f"{card['id']} {CARD_NAMES[card['id']]}", 12, weight="bold"))
        out.append(_text(cx + 8, y + 32, f"price {card['price']}{used}", 11))
        if card["students"] is not None:
            out += _students(card["students"], cx + 14, y + 44, 5, 8)
        if card["noEntryTiles"] is not None:
            out.append(_text(cx + 8, y + 50, f"no-entry tiles: {card['noEntryTiles']}", 11))
        out.append("</g>")
    return out


def render_svg(snap: dict[str, Any], caption: str = "") -> str:
    """The snapshot as an SVG document, captioned."""
    n = snap["numberOfPlayers"]
    parts: list[str] = []
    y: float = 22
    if caption:
        text, height = caption_svg(caption, 10, y, WIDTH - 20)
        parts.append(f'<g data-narrow="hide">{text}</g>')
        y += height + 16
    head = (f'round {snap["round"]}, {snap["phase"].replace("_", " ").lower()}'
            + (f', bag {snap["bag"]}' + (f', bank {snap["bank"]}' if snap["bank"] is not None else ""))
            + (", last round" if snap["lastRound"] else "")
            + (f', winners: {", ".join(snap["winners"]) or "none"}' if snap["finished"] else ""))
    parts.append(_text(10, y, head, 12))
    parts.append(_text(10, y + 16, "planning order: " + " ".join(map(str, snap["planningOrder"]))
                       + "   action order: " + (" ".join(map(str, snap["actionOrder"])) or "-"), 12))
    top = y + 24   # everything below the text: the largest island still clears it
    cy = top + RING + ISLAND_REACH
    schools_top = cy + RING + ISLAND_REACH + 20
    height = schools_top + ((n + 1) // 2) * 160 + 20
    parts += _islands(snap, 300, cy)
    parts += _clouds(snap, 300, cy)
    # a narrow screen (a phone) shows the same shapes in one column of NARROW units: the
    # cards in a row under the ring, the schools one under the other (each group's
    # data-narrow transform, applied by the page; docs/boards.md)
    cards = snap["characterCards"]
    cards_height = 70 if cards else 0
    for k, _card in enumerate(cards):
        parts.append(f'<g data-narrow="translate({10 + k * 197 - 660:g},{schools_top - top - 10 - k * 70:g})">')
        parts += _cards({**snap, "characterCards": [cards[k]]}, 660, top + 10 + k * 70)
        parts.append("</g>")
    for i, player in enumerate(snap["players"]):
        x, y0 = (10 + (i % 2) * 440 if n > 2 else 10 + i * 440), schools_top + (i // 2) * 160
        parts.append(f'<g data-narrow="translate({10 - x:g},{schools_top + cards_height + i * 160 - y0:g})">')
        parts += _school(snap, player, x, y0)
        parts.append("</g>")
    narrow_height = schools_top + cards_height + n * 160 + 20
    return "\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:g}" '
                      f'viewBox="0 0 {WIDTH} {height:g}" data-narrow-viewbox="0 0 {NARROW} {narrow_height:g}">',
                      f'<title>{escape(caption or "Eriantys state")}</title>',
                      '<rect width="100%" height="100%" fill="#e9f4fb"/>', *parts, "</svg>"])
