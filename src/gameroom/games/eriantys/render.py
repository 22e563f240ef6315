"""A self-contained SVG picture of an Eriantys snapshot (§6.5): the island ring with
students, towers, no-entry tiles and Mother Nature; the clouds; each school with entrance,
dining room, professors, towers and coins; the character cards in play. The shapes a person clicks in the web room carry
``data-key``: ``island:I``, ``cloud:C``, ``entrance:SEAT:COLOR`` (the first student of a
colour), ``table:SEAT:COLOR``, ``assistant:SEAT:VALUE``, ``character:ID``. Pure text."""

from __future__ import annotations

import math
from html import escape
from typing import Any

from gameroom.games.eriantys.pieces import CARD_NAMES, COLORS

__all__ = ["render_svg"]

FILL = {"GREEN": "#2e9e44", "RED": "#d62828", "YELLOW": "#f2c300", "PINK": "#e573b5", "BLUE": "#1d70b8"}
TOWER = {"BLACK": "#222222", "WHITE": "#ffffff", "GREY": "#9a9a9a"}
WIDTH, RING = 1100, 230


def _students(counts: dict[str, int], x: float, y: float, r: float = 5, per_row: int = 5,
              key: str | None = None) -> list[str]:
    """Students in rows; with ``key`` the first of each colour carries ``data-key="KEY:COLOR"``
    (the web room's board picks a student of that colour there)."""
    out, k = [], 0
    for name in COLORS:
        for n in range(counts[name]):
            cx, cy = x + (k % per_row) * (2 * r + 2), y + (k // per_row) * (2 * r + 2)
            keyed = f' data-key="{key}:{name}"' if key is not None and n == 0 else ""
            out.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="{FILL[name]}" stroke="#333" '
                       f'stroke-width="0.5"{keyed}/>')
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
        out.append(f'<g data-key="island:{i}"><circle cx="{x:g}" cy="{y:g}" r="{radius}" fill="#cde8c3" '
                   f'stroke="#5a7f4f" stroke-width="2"/>')
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
            out.append(f'<polygon points="{x - 30:g},{y + 30:g} {x - 22:g},{y + 14:g} {x - 14:g},{y + 30:g}" '
                       f'fill="#7b2cbf" stroke="#000"/>')
            out.append(_text(x - 22, y + 42, "Mother Nature", 9, "middle"))
        out.append("</g>")
    return out


def _clouds(snap: dict[str, Any], cx: float, cy: float) -> list[str]:
    out = []
    count = len(snap["clouds"])
    for c, cloud in enumerate(snap["clouds"]):
        x = cx - (count * 70) / 2 + c * 70 + 5
        out.append(f'<g data-key="cloud:{c}"><ellipse cx="{x + 28:g}" cy="{cy:g}" rx="32" ry="20" fill="#eef3fa" '
                   f'stroke="#8aa"/>')
        out.append(_text(x + 28, cy - 24, f"cloud {c}", 10, "middle"))
        out += _students(cloud, x + 10, cy - 5, 5, 4)
        out.append("</g>")
    return out


def _school(snap: dict[str, Any], player: dict[str, Any], x: float, y: float) -> list[str]:
    out = [f'<rect x="{x}" y="{y}" width="420" height="150" fill="#faf6ee" stroke="#997" rx="6"/>']
    seat = player["seat"]
    state = " (ejected)" if player["ejected"] else ""
    current = " - playing" if snap["currentPlayer"] == seat else ""
    coins = "" if player["coins"] is None else f", {player['coins']} coin{'' if player['coins'] == 1 else 's'}"
    played = player["playedAssistant"]
    out.append(_text(x + 8, y + 16, f"seat {seat}: {player['username']} ({player['towerColor']}){state}{current}",
                     13, weight="bold"))
    out.append(_text(x + 8, y + 32, f"assistant {played if played is not None else '-'}, "
                     f"hand {','.join(map(str, player['hand'])) or 'empty'}{coins}", 11))
    out.append(_text(x + 8, y + 52, "entrance", 10))
    out += _students(player["entrance"], x + 62, y + 44, 5, 9, key=f"entrance:{seat}")
    for k, value in enumerate(player["hand"]):   # the assistant cards in hand, to play by a click
        out.append(f'<g data-key="assistant:{seat}:{value}"><rect x="{x + 262 + k * 15}" y="{y + 38}" width="13" '
                   f'height="18" rx="2" fill="#fff" stroke="#886"/>'
                   + _text(x + 268.5 + k * 15, y + 51, str(value), 9, "middle") + '</g>')
    for row, name in enumerate(COLORS):
        ty = y + 72 + row * 15
        count = player["diningRoom"][name]
        out.append(f'<g data-key="table:{seat}:{name}"><rect x="{x + 8}" y="{ty - 6}" width="{10 * 13}" height="12" '
                   f'fill="#faf6ee" stroke="#ccc"/>')
        for k in range(count):
            out.append(f'<circle cx="{x + 14 + k * 13}" cy="{ty}" r="5" fill="{FILL[name]}"/>')
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
    return out


def _cards(snap: dict[str, Any], x: float, y: float) -> list[str]:
    out = []
    for k, card in enumerate(snap["characterCards"]):
        cx = x + k * 200
        used = ", used" if card["used"] else ""
        active = snap["turn"]["activatedCard"] == card["id"]
        out.append(f'<g data-key="character:{card["id"]}"><rect x="{cx}" y="{y}" width="190" height="60" '
                   f'fill="{"#ffe8a3" if active else "#f3efe0"}" stroke="#997" rx="6"/>')
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
    schools_top = 640
    height = schools_top + ((n + 1) // 2) * 160 + 20
    head = (f'round {snap["round"]}, {snap["phase"].replace("_", " ").lower()}'
            + (f', bag {snap["bag"]}' + (f', bank {snap["bank"]}' if snap["bank"] is not None else ""))
            + (", last round" if snap["lastRound"] else "")
            + (f', winners: {", ".join(snap["winners"]) or "none"}' if snap["finished"] else ""))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
             f'viewBox="0 0 {WIDTH} {height}">', f'<rect width="{WIDTH}" height="{height}" fill="#e9f4fb"/>',
             _text(10, 22, caption, 16, weight="bold"), _text(10, 40, head, 12),
             _text(490, 150, "planning order: " + " ".join(map(str, snap["planningOrder"]))
                   + "   action order: " + (" ".join(map(str, snap["actionOrder"])) or "-"), 12)]
    parts += _islands(snap, 300, 320)
    parts += _clouds(snap, 300, 320)
    parts += _cards(snap, 490, 60)
    for i, player in enumerate(snap["players"]):
        parts += _school(snap, player, 10 + (i % 2) * 440 if n > 2 else 10 + i * 440, schools_top + (i // 2) * 160)
    parts.append("</svg>")
    return "\n".join(parts)
