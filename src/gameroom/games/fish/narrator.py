"""What a person is told of a game of Fish (``gameroom play fish``, the web room): who
places a penguin where, every move with the fish it took and the scores, who is skipped
or removed and why; and pictures (the dealt board, one per placement and per move) whose
captions say the same, the last move drawn as an arrow, the last one naming the winners. Pure: lines are
returned, the command line prints them."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from gameroom.core.narration import Narrator, winners_caption
from gameroom.games.fish.state import Color, GameState

__all__ = ["FishNarrator", "narrator"]


def _where(position: Any) -> str:
    return f"[{position[0]},{position[1]}]"


class FishNarrator(Narrator):
    """The referee's state events (``dealt``, ``placed``, ``moved``, ``skipped``,
    ``removed``) as lines and as the caption of the next picture."""

    def __init__(self, opening: str, names: Mapping[Color, str]) -> None:
        super().__init__([opening])
        self.names = dict(names)
        self.by_color = {color.value: name for color, name in names.items()}
        self.said: str | None = None
        self.move: Any = None

    def _who(self, color: str) -> str:
        return f"{self.by_color[color]} ({color})"

    def narrate(self, event: Any) -> list[str]:
        what = event.get("event") if event.kind == "state" else None
        color = event.get("color")
        lines: list[str] = []
        if what == "dealt":   # the picture a person places the first penguin on: no move yet
            self.move = None
            self.said = "the board is dealt"
        elif what == "placed":
            self.move = None
            self.said = f"{self._who(color)} places a penguin on {_where(event.get('position'))}"
            lines.append(self.said)
        elif what == "skipped":
            self.move = None
            self.said = f"{self._who(color)} cannot move and is skipped"
            lines.append(self.said)
        elif what == "removed":
            self.move = None
            self.said = f"{self._who(color)} is removed: {event.get('reason')}"
            if event.get("turn") is not None:
                lines.append(f"turn {event.get('turn'):3}: {event.get('message')}")
            lines.append(self.said)
        elif what == "placement-over":
            self.move = None
            self.said = "every penguin is placed: the moves begin"
        elif what == "moved":
            source, target = event.get("move")
            self.move = (tuple(source), tuple(target))
            self.said = (f"{self._who(color)} moves {_where(source)} -> "
                         f"{_where(target)}, +{event.get('fish')} fish")
            scores = ", ".join(f"{self.by_color[p.color.value]} {p.score}" for p in event.subject.players)
            lines.append(f"turn {event.get('turn'):3}: {self._who(color)} moves {_where(source)} -> "
                         f"{_where(target)}, +{event.get('fish')} fish  [{scores}]")
        return lines

    def caption(self, event: Any) -> str | None:
        return self.said or event.get("caption")

    def final_caption(self, outcome: Any) -> str:
        self.move = None
        return winners_caption(outcome)

    def picture(self, state: Any, caption: str) -> str:
        from gameroom.games.fish.render import render_svg

        return render_svg(state, caption, self.names, self.move)


def narrator(state: GameState, names: Sequence[str], opening: str) -> FishNarrator:
    """The narrator of a game from ``state`` (its players in turn order) between seats
    named ``names``."""
    return FishNarrator(opening, {p.color: name for p, name in zip(state.players, names)})
