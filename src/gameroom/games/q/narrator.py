"""What ``gameroom play q`` tells a person: one line per turn (who placed which tiles
where, exchanged or passed, with the scores and the pile), and pictures whose captions
say the same, the tiles just placed outlined, the last one naming the winners. Pure:
lines are returned, the command line prints them."""

from __future__ import annotations

from typing import Any, Sequence

from gameroom.core.narration import Narrator, winners_caption
from gameroom.core.record import STATE
from gameroom.games.q.actions import PASS, REPLACE

__all__ = ["QNarrator", "describe"]


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


class QNarrator(Narrator):
    """A turn's snapshot carries ``(name, action)`` as its detail: it becomes a line and
    the caption of the picture drawn next (its tiles outlined)."""

    def __init__(self, players: Sequence[tuple[str, str]], seed: int, pile: int) -> None:
        line = (f"Q: {', '.join(f'{name} ({strategy})' for name, strategy in players)}; seed {seed}; "
                f"{pile} tiles in the pile")
        super().__init__([line])
        self.turn = 0
        self.caption = "start: the first player is at the top"
        self.placed: list[tuple[int, int]] = []

    def narrate(self, event: Any) -> list[str]:
        if event.kind != STATE or event.detail is None:
            return []
        name, action = event.detail
        now = event.subject
        self.turn += 1
        scores = ", ".join(f"{r.name} {r.score}" for r in now.players) if now is not None else ""
        pile = len(now.pile) if now is not None else 0
        self.caption = f"turn {self.turn}: {name} {describe(action)}"
        self.placed = [p.coord for p in action] if isinstance(action, (list, tuple)) else []
        return [f"turn {self.turn:3}: {name} {describe(action)}  [{scores}; pile {pile}]"]

    def final_caption(self, outcome: Any) -> str:
        self.placed = []
        self.caption = winners_caption(outcome)
        return self.caption

    def picture(self, state: Any, _caption: str) -> str:
        from gameroom.games.q.render import render_svg

        return render_svg(state, self.caption, self.placed)
