"""What a person is told of a game of Q (``gameroom play q``, the web room): one line per
turn (who placed which tiles where, exchanged or passed, with the scores and the pile),
and pictures whose captions say who did what, the tiles just placed outlined, the last
one naming the winners. Pure: lines are returned, the command line prints them."""

from __future__ import annotations

import random
from typing import Any, Sequence

from gameroom.core.narration import Narrator, winners_caption
from gameroom.core.record import STATE
from gameroom.games.q.actions import PASS, REPLACE
from gameroom.games.q.state import new_game

__all__ = ["QNarrator", "describe", "narrator", "opening"]


def _tile(tile: Any) -> str:
    return f"{tile.color.name} {tile.shape.name.replace('_', '-')}"


def describe(action: Any) -> str:
    """A turn in words: ``places 2 tiles: RED STAR at (0,1), ...``, ``passes``, ..."""
    if action is PASS:
        return "passes"
    if action is REPLACE:
        return "exchanges its hand"
    if not action:
        return "is ejected"
    where = ", ".join(f"{_tile(p.tile)} at ({p.coord[0]},{p.coord[1]})" for p in action)
    return f"places {len(action)} tile{'s' if len(action) > 1 else ''}: {where}"


def opening(players: Sequence[str], seed: int, pile: int) -> str:
    """The first line: the players (with their strategies, when known), the seed, the pile."""
    return f"Q: {', '.join(players)}; seed {seed}; {pile} tiles in the pile"


class QNarrator(Narrator):
    """A turn's snapshot carries ``(name, action)`` as its detail: it becomes a line and
    the caption of the picture drawn next (its tiles outlined)."""

    def __init__(self, first_line: str) -> None:
        super().__init__([first_line])
        self.turn = 0
        self.said = "start: the first player is at the top"
        self.placed: list[tuple[int, int]] = []

    def narrate(self, event: Any) -> list[str]:
        if event.kind != STATE or event.subject is None:
            return []
        if event.detail is None:
            self.said, self.placed = "start: the first player is at the top", []
            return []
        name, action = event.detail
        now = event.subject
        self.turn += 1
        scores = ", ".join(f"{r.name} {r.score}" for r in now.players)
        self.said = f"{name} {describe(action)}"
        # in row-major order, as the browser's drawing (drawing.js) finds them
        self.placed = sorted(p.coord for p in action) if isinstance(action, (list, tuple)) else []
        return [f"turn {self.turn:3}: {self.said}  [{scores}; pile {len(now.pile)}]"]

    def caption(self, event: Any) -> str:
        return self.said

    def final_caption(self, outcome: Any) -> str:
        self.placed = []
        return winners_caption(outcome)

    def picture(self, state: Any, caption: str) -> str:
        from gameroom.games.q.render import render_svg

        return render_svg(state, caption, self.placed)


def narrator(seed: int, names: Sequence[str]) -> QNarrator:
    """The narrator of a game the descriptor's ``play`` deals from ``seed``."""
    return QNarrator(opening(names, seed, len(new_game(list(names), random.Random(seed)).pile)))
