"""A self-contained SVG picture of the dealer's state (spec 8.3 Configuration JSON): one row
per player in turn order with its id, bag, hand size and score (a bag of None, concealed
from the viewer, shows as "?"), and its species boards as
cards showing traits, population, body, food and fat food; the watering hole and the deck
size on top. Pure text; nothing is written anywhere.
"""

from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["render_svg"]

BOARD_W, BOARD_H, GAP, LABEL_W, ROW_H, TOP = 150, 96, 8, 190, 112, 56


def _fields(entries: list[Any]) -> dict[str, Any]:
    return {key: value for key, value in entries}


def _board(x: int, y: int, species: list[Any]) -> list[str]:
    s = _fields(species)
    traits = s["traits"]
    fill = "#f6d6d6" if "carnivore" in traits else "#dcefd8"
    out = [f'<rect x="{x}" y="{y}" width="{BOARD_W}" height="{BOARD_H}" rx="8" fill="{fill}" stroke="#555"/>',
           f'<text x="{x + 8}" y="{y + 18}" font-size="12">pop {s["population"]}  body {s["body"]}  '
           f'food {s["food"]}</text>']
    if s.get("fat-food"):
        out.append(f'<text x="{x + 8}" y="{y + 34}" font-size="12">fat food {s["fat-food"]}</text>')
    for i, trait in enumerate(traits):
        out.append(f'<text x="{x + 8}" y="{y + 52 + 14 * i}" font-size="12" font-style="italic">'
                   f'{escape(str(trait))}</text>')
    # a bar of food eaten against the population
    if s["population"]:
        width = (BOARD_W - 16) * s["food"] // s["population"]
        out.append(f'<rect x="{x + 8}" y="{y + BOARD_H - 12}" width="{BOARD_W - 16}" height="6" fill="#ddd"/>')
        out.append(f'<rect x="{x + 8}" y="{y + BOARD_H - 12}" width="{width}" height="6" fill="#3a7d44"/>')
    return out


def render_svg(configuration: Any, caption: str = "") -> str:
    """The picture of a Configuration ``[players, wateringHole, deck]``."""
    players, hole, deck = configuration
    widest = max((len(_fields(p)["species"]) for p in players), default=0)
    width = LABEL_W + max(widest, 1) * (BOARD_W + GAP) + GAP
    height = TOP + len(players) * ROW_H + GAP
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="{GAP}" y="22" font-size="16" font-weight="bold">{escape(caption)}</text>',
           f'<text x="{GAP}" y="44" font-size="14">watering hole: {hole}  deck: {len(deck)} card(s)</text>']
    for row, player in enumerate(players):
        p = _fields(player)
        boards = p["species"]
        # a concealed bag (None: another player's, seen from a seat or the stands) hides the score
        bag = "?" if p["bag"] is None else p["bag"]
        score = "?" if p["bag"] is None else p["bag"] + len(boards) + sum(len(_fields(s)["traits"]) for s in boards)
        y = TOP + row * ROW_H
        out.append(f'<text x="{GAP}" y="{y + 20}" font-size="14" font-weight="bold">{escape(str(p["id"]))}</text>')
        out.append(f'<text x="{GAP}" y="{y + 40}" font-size="12">bag {bag}  score {score}</text>')
        out.append(f'<text x="{GAP}" y="{y + 58}" font-size="12">{len(p.get("cards", []))} card(s) in hand</text>')
        for i, species in enumerate(boards):
            out += _board(LABEL_W + i * (BOARD_W + GAP), y, species)
    out.append("</svg>")
    return "\n".join(out) + "\n"
