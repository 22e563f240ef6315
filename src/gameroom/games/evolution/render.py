"""A self-contained SVG picture of the dealer's state (spec 8.3 Configuration JSON): the
caption (wrapped to the picture's width), the watering hole and the deck size on top, then
one row per player in turn order with its id, bag, score and hand size, its species boards
as cards showing traits, population, body, food and fat food, and the cards of its hand
when the viewer may see them (as small cards with their trait and food value). A bag of
None (concealed from the viewer while the game goes on) shows as "?", and so does the
score it is part of. Pure text; nothing is written anywhere.

Shapes a page can make clickable (the web room's board), by attribute:

- ``<g class="player" data-player="ID">``: a player's row;
- ``data-species="i"``: its i-th species board, ``<g class="species">`` inside the row;
- ``data-card="i"``: the i-th card of a hand the viewer sees, ``<g class="card">``
  (``data-trait`` and ``data-food`` say which card);
- ``<g class="watering-hole" data-food="N">``: the watering hole.

A seat's picture (its own hand known: the first row whose hand is drawn) also shows an
empty slot for a new species in that row, and keys the shapes a person clicks in the web
room's board (``board.js``, ``docs/boards.md``) with ``data-key``: every species board
``species:ROW:I``, and in the viewer's row its cards ``card:I``, the slot ``newboard``,
and on each of its species the population ``pop:I``, the body ``body:I`` and each trait
``trait:I:J``.
"""

from __future__ import annotations

from html import escape
from typing import Any

from gameroom.core.pictures import caption_svg

__all__ = ["render_svg"]

BOARD_W, BOARD_H, GAP, LABEL_W = 150, 96, 8, 190
CARD_W, CARD_H, CARDS_PER_ROW = 86, 40, 8
MIN_WIDTH = 640


def _fields(entries: list[Any]) -> dict[str, Any]:
    return {key: value for key, value in entries}


def _board(x: float, y: float, index: int, species: list[Any], key: str, own: bool) -> list[str]:
    """A species board, a group keyed ``key``; of the viewer's own species (``own``) the
    population, the body and each trait are keyed too (``pop:I``, ``body:I``,
    ``trait:I:J``), for the web room's board."""
    s = _fields(species)
    traits = s["traits"]
    fill = "#f6d6d6" if "carnivore" in traits else "#dcefd8"
    out = [f'<g class="species" data-species="{index}" data-key="{key}"><title>species {index}</title>',
           f'<rect x="{x}" y="{y}" width="{BOARD_W}" height="{BOARD_H}" rx="8" fill="{fill}" stroke="#555"/>',
           f'<text x="{x + 8}" y="{y + 18}" font-size="12">#{index}  pop {s["population"]}  body {s["body"]}  '
           f'food {s["food"]}</text>']
    if own:   # over "pop N" and "body N" (after "#I  ") and over each trait's line
        out.append(f'<rect x="{x + 26}" y="{y + 5}" width="46" height="18" fill="none" stroke="none" '
                   f'data-key="pop:{index}"/>')
        out.append(f'<rect x="{x + 74}" y="{y + 5}" width="50" height="18" fill="none" stroke="none" '
                   f'data-key="body:{index}"/>')
        for i, _trait in enumerate(traits):
            out.append(f'<rect x="{x + 4}" y="{y + 40 + 14 * i}" width="{BOARD_W - 8}" height="15" fill="none" '
                       f'stroke="none" data-key="trait:{index}:{i}"/>')
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


def _card(x: float, y: float, index: int, card: Any, key: str | None = None) -> str:
    """A card of a shown hand; ``key`` names it for the web room's board (``data-key``)."""
    food, trait = card
    keyed = "" if key is None else f' data-key="{key}"'
    return (f'<g class="card" data-card="{index}" data-trait="{escape(str(trait))}" data-food="{food}"{keyed}>'
            f'<title>card {index}: {escape(str(trait))} ({food:+d})</title>'
            f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="5" fill="#fff8e1" stroke="#8d6e63"/>'
            f'<text x="{x + 5}" y="{y + 16}" font-size="11" font-style="italic">{escape(str(trait))}</text>'
            f'<text x="{x + 5}" y="{y + 32}" font-size="11">food {food:+d}</text></g>')


def _hand(cards: list[Any]) -> list[Any] | None:
    """The cards the viewer may see, or None (a concealed hand: blank cards, or none)."""
    return cards if cards and all(c is not None for c in cards) else None


def render_svg(configuration: Any, caption: str = "") -> str:
    """The picture of a Configuration ``[players, wateringHole, deck]``."""
    players, hole, deck = configuration
    hands = [_hand(_fields(p).get("cards", [])) for p in players]
    # the viewer's own row: the first whose hand is known (a seat's picture); it gets the keys
    mine = next((row for row, hand in enumerate(hands) if hand is not None), None)
    widest = max((len(_fields(p)["species"]) + (row == mine) for row, p in enumerate(players)), default=0)
    cards_wide = max((min(len(h), CARDS_PER_ROW) for h in hands if h), default=0)
    width = max(MIN_WIDTH, LABEL_W + max(widest, 1) * (BOARD_W + GAP) + GAP,
                LABEL_W + cards_wide * (CARD_W + GAP) + GAP)
    out: list[str] = []
    y: float = GAP + 16
    if caption:
        text, height = caption_svg(caption, GAP, y, width - 2 * GAP)
        out.append(text)
        y += height + 20
    out.append(f'<g class="watering-hole" data-food="{hole}"><text x="{GAP}" y="{y}" font-size="14">'
               f'watering hole: {hole}  deck: {len(deck)} card(s)</text></g>')
    y += 16
    for row, (player, hand) in enumerate(zip(players, hands)):
        p = _fields(player)
        boards = p["species"]
        # a concealed bag (None: another player's, seen from a seat or the stands) hides the score
        bag = "?" if p["bag"] is None else p["bag"]
        score = "?" if p["bag"] is None else p["bag"] + len(boards) + sum(len(_fields(s)["traits"]) for s in boards)
        rows = 0 if hand is None else -(-len(hand) // CARDS_PER_ROW)
        top = BOARD_H + GAP if boards or row == mine else 28   # the hand's first row, under the boards
        height = max(top + rows * (CARD_H + GAP), 64) + 16
        out.append(f'<g class="player" data-player="{escape(str(p["id"]))}">')
        # the player's name: the spec's "name#seat" id is for its reports (data-player keeps it)
        name = str(p["id"]).rsplit("#", 1)[0]
        out.append(f'<text x="{GAP}" y="{y + 20}" font-size="14" font-weight="bold">{escape(name)}</text>')
        out.append(f'<text x="{GAP}" y="{y + 40}" font-size="12">bag {bag}  score {score}</text>')
        out.append(f'<text x="{GAP}" y="{y + 58}" font-size="12">{len(p.get("cards", []))} card(s) in hand</text>')
        for i, species in enumerate(boards):
            out += _board(LABEL_W + i * (BOARD_W + GAP), y, i, species, f"species:{row}:{i}", row == mine)
        if row == mine:   # where a new species board goes
            x = LABEL_W + len(boards) * (BOARD_W + GAP)
            out.append(f'<g data-key="newboard"><rect x="{x}" y="{y}" width="{BOARD_W}" height="{BOARD_H}" rx="8" '
                       f'fill="#fafafa" stroke="#bbb" stroke-dasharray="5,4"/>'
                       f'<text x="{x + BOARD_W / 2}" y="{y + BOARD_H / 2 + 4}" font-size="12" text-anchor="middle" '
                       f'fill="#888">new species</text></g>')
        elif not boards:
            out.append(f'<text x="{LABEL_W}" y="{y + 20}" font-size="12" fill="#777">no species</text>')
        for i, card in enumerate(hand or ()):
            row_of_cards, column = divmod(i, CARDS_PER_ROW)
            out.append(_card(LABEL_W + column * (CARD_W + GAP), y + top + row_of_cards * (CARD_H + GAP), i, card,
                             f"card:{i}" if row == mine else None))
        out.append("</g>")
        y += height
    y += GAP
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y:g}" viewBox="0 0 {width} {y:g}" '
            f'font-family="sans-serif">',
            f'<title>{escape(caption or "Evolution state")}</title>',
            f'<rect width="{width}" height="{y:g}" fill="#ffffff"/>']
    return "\n".join(head + out + ["</svg>"]) + "\n"
