"""A self-contained SVG picture of the dealer's state (spec 8.3 Configuration JSON): one row
per player in turn order with its id, bag, hand size and score (a bag of None, concealed
from the viewer, shows as "?"), and its species boards as
cards showing traits, population, body, food and fat food; the watering hole and the deck
size on top. A seat's picture (its own hand known) also shows the hand as cards and an
empty slot for a new species, and keys the shapes a person clicks in the web room
(``data-key``: ``card:I``, ``newboard``, ``species:ROW:I``, and on its own species
``pop:I``, ``body:I``, ``trait:I:J``). Pure text; nothing is written anywhere.
"""

from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["render_svg"]

BOARD_W, BOARD_H, GAP, LABEL_W, ROW_H, TOP = 150, 96, 8, 190, 112, 56
CARD_W, CARD_H = 104, 44


def _fields(entries: list[Any]) -> dict[str, Any]:
    return {key: value for key, value in entries}


def _board(x: int, y: int, species: list[Any], key: str, own: int | None) -> list[str]:
    """A species board, a group keyed ``key``; of the viewer's own species (``own``: its
    index) the population, the body and each trait are keyed too (``pop:B``, ``body:B``,
    ``trait:B:I``), for the web room's board."""
    s = _fields(species)
    traits = s["traits"]
    fill = "#f6d6d6" if "carnivore" in traits else "#dcefd8"
    out = [f'<g data-key="{key}"><rect x="{x}" y="{y}" width="{BOARD_W}" height="{BOARD_H}" rx="8" fill="{fill}" '
           f'stroke="#555"/>',
           f'<text x="{x + 8}" y="{y + 18}" font-size="12">pop {s["population"]}  body {s["body"]}  '
           f'food {s["food"]}</text>']
    if own is not None:
        out.append(f'<rect x="{x + 4}" y="{y + 5}" width="44" height="18" fill="none" stroke="none" data-key="pop:{own}"/>')
        out.append(f'<rect x="{x + 50}" y="{y + 5}" width="48" height="18" fill="none" stroke="none" data-key="body:{own}"/>')
        for i, _trait in enumerate(traits):
            out.append(f'<rect x="{x + 4}" y="{y + 40 + 14 * i}" width="{BOARD_W - 8}" height="15" fill="none" '
                       f'stroke="none" data-key="trait:{own}:{i}"/>')
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
    out.append("</g>")
    return out


def render_svg(configuration: Any, caption: str = "") -> str:
    """The picture of a Configuration ``[players, wateringHole, deck]``."""
    players, hole, deck = configuration
    # the viewer's own row: the one whose hand is known (a seat's picture); its hand is drawn
    mine = next((row for row, p in enumerate(players)
                 if _fields(p).get("cards") and all(c is not None for c in _fields(p)["cards"])), None)
    hand = _fields(players[mine])["cards"] if mine is not None else []
    widest = max((len(_fields(p)["species"]) + (row == mine) for row, p in enumerate(players)), default=0)
    width = max(LABEL_W + max(widest, 1) * (BOARD_W + GAP) + GAP, GAP + min(len(hand), 8) * (CARD_W + GAP) + GAP)
    hand_h = 0 if not hand else 28 + ((len(hand) + 7) // 8) * (CARD_H + GAP)
    height = TOP + len(players) * ROW_H + GAP + hand_h
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
            out += _board(LABEL_W + i * (BOARD_W + GAP), y, species, f"species:{row}:{i}", i if row == mine else None)
        if row == mine:   # where a new species board goes
            x = LABEL_W + len(boards) * (BOARD_W + GAP)
            out.append(f'<g data-key="newboard"><rect x="{x}" y="{y}" width="{BOARD_W}" height="{BOARD_H}" rx="8" '
                       f'fill="#fafafa" stroke="#bbb" stroke-dasharray="5,4"/>'
                       f'<text x="{x + BOARD_W / 2}" y="{y + BOARD_H / 2 + 4}" font-size="12" text-anchor="middle" '
                       f'fill="#888">new species</text></g>')
    if hand:
        y = TOP + len(players) * ROW_H + GAP
        out.append(f'<text x="{GAP}" y="{y + 16}" font-size="14" font-weight="bold">your hand</text>')
        for i, (value, trait) in enumerate(hand):
            x, cy = GAP + (i % 8) * (CARD_W + GAP), y + 24 + (i // 8) * (CARD_H + GAP)
            out.append(f'<g data-key="card:{i}"><rect x="{x}" y="{cy}" width="{CARD_W}" height="{CARD_H}" rx="6" '
                       f'fill="#fff8e1" stroke="#a08030"/>'
                       f'<text x="{x + 6}" y="{cy + 18}" font-size="14" font-weight="bold">{value:+d}</text>'
                       f'<text x="{x + 6}" y="{cy + 36}" font-size="11">{escape(str(trait))}</text></g>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
