"""A Fish state as lines of text, for a person at a terminal (``gameroom connect fish``):
the hex board as the spec lays it out (spec 2.2: the tiles of odd rows sit half a tile to
the right), each tile its fish count, a penguin the first letter of its colour beside the
fish it stands on, a hole a dot; then the players in turn order with their scores and
where their penguins stand. Reads the State JSON the seat's view is (``{"players",
"board"}``, codec.py); pure text.

    the board (fish on each tile; a penguin: its colour's letter; . a hole)
    columns       0       1       2
      row 0    (  2  ) (R 3  ) (  1  )
      row 1        (  4  )     .   (W 2  )
    ...
"""

from __future__ import annotations

from typing import Any

__all__ = ["text_view", "LETTER"]

LETTER = {"red": "R", "white": "W", "brown": "B", "black": "K"}
"""A penguin on the board: its colour's letter (black is K, brown takes B)."""

_PITCH = 8   # characters from one tile of a row to the next; odd rows start half of it later


def _tile(fish: int, penguin: str | None) -> str:
    if fish == 0:
        return "   .   "
    return f"({penguin or ' '} {fish:<2} )"


def _columns(count: int, odd: bool) -> str:
    head = "" if odd else "  columns"
    line = head.ljust(11 + (_PITCH // 2 if odd else 0))
    return line + "".join(f"{c:^7}".ljust(_PITCH) for c in range(count)).rstrip()


def text_view(view: Any) -> str:
    """The board and the players of a State JSON, as lines (no trailing newline)."""
    board: list[list[int]] = view["board"]
    players: list[dict[str, Any]] = view["players"]
    owner = {(r, c): LETTER.get(p["color"], p["color"][:1].upper()) for p in players for r, c in p["places"]}
    width = max((len(row) for row in board), default=0)
    letters = ", ".join(f"{letter} {colour}" for colour, letter in LETTER.items()
                        if any(p["color"] == colour for p in players))
    lines = [f"the board (fish on each tile; a penguin: {letters}; . a hole)", _columns(width, False)]
    for r, row in enumerate(board):
        indent = " " * (_PITCH // 2 if r % 2 else 0)
        tiles = " ".join(_tile(fish, owner.get((r, c))) for c, fish in enumerate(row))
        lines.append(f"  row {r:<3}  {indent}{tiles}".rstrip())
    if len(board) > 1:
        lines.append(_columns(width, True) + "   (odd rows)")
    lines.append("players (the first is to move):")
    for p in players:
        places = ", ".join(f"row {r} column {c}" for r, c in p["places"]) or "none placed yet"
        lines.append(f"  {p['color']} ({LETTER.get(p['color'], '?')}): {p['score']} fish; penguins: {places}")
    return "\n".join(lines)
