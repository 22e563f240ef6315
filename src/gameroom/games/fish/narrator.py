"""What ``gameroom play fish`` tells a person: who places a penguin where, every move with
the fish it took and the scores, who is skipped or removed and why; and pictures whose
captions say the same, the last move drawn as an arrow, the last one naming the winners.
Pure: lines are returned, the command line prints them."""

from __future__ import annotations

from typing import Any, Mapping

from gameroom.core.narration import Narrator, winners_caption
from gameroom.games.fish.state import Color

__all__ = ["FishNarrator"]


def _where(position: Any) -> str:
    return f"[{position[0]},{position[1]}]"


class FishNarrator(Narrator):
    """The referee's state events (``placed``, ``moved``, ``skipped``, ``removed``) as
    lines and as the caption of the next picture."""

    def __init__(self, opening: str, names: Mapping[Color, str]) -> None:
        super().__init__([opening])
        self.names = dict(names)
        self.by_color = {color.value: name for color, name in names.items()}
        self.caption: str | None = None
        self.move: Any = None

    def _who(self, color: str) -> str:
        return f"{self.by_color[color]} ({color})"

    def narrate(self, event: Any) -> list[str]:
        what = event.get("event") if event.kind == "state" else None
        color = event.get("color")
        lines: list[str] = []
        if what == "placed":
            self.move = None
            self.caption = f"{self._who(color)} places a penguin on {_where(event.get('position'))}"
            lines.append(self.caption)
        elif what == "skipped":
            self.move = None
            self.caption = f"{self._who(color)} cannot move and is skipped"
            lines.append(self.caption)
        elif what == "removed":
            self.move = None
            self.caption = f"{self._who(color)} is removed: {event.get('reason')}"
            if event.get("turn") is not None:
                lines.append(f"turn {event.get('turn'):3}: {event.get('message')}")
            lines.append(self.caption)
        elif what == "moved":
            source, target = event.get("move")
            self.move = (tuple(source), tuple(target))
            self.caption = (f"turn {event.get('turn')}: {self._who(color)} moves {_where(source)} -> "
                            f"{_where(target)}, +{event.get('fish')} fish")
            scores = ", ".join(f"{self.by_color[p.color.value]} {p.score}" for p in event.subject.players)
            lines.append(f"turn {event.get('turn'):3}: {self._who(color)} moves {_where(source)} -> "
                         f"{_where(target)}, +{event.get('fish')} fish  [{scores}]")
        return lines

    def final_caption(self, outcome: Any) -> str:
        self.move = None
        self.caption = winners_caption(outcome)
        return self.caption

    def picture(self, state: Any, caption: str) -> str:
        from gameroom.games.fish.render import render_svg

        return render_svg(state, self.caption or caption, self.names, self.move)
