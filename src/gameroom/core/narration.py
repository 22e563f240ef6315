"""What a person is told about a game, as text: a :class:`Narrator` turns the game's
events into lines and gives the pictures their captions; a :class:`Story` is one match
told that way, the same for ``gameroom play``, the web room and stored games.

Narrators are pure: they return lines, and the command line prints them (and writes the
pictures), the web room sends them. A game's narrator lives in its package and is made
for a match by the descriptor's ``narrator(seed, names)``; :class:`Narrator` itself is
the one every game gets without writing any (an opening line naming the players and the
seed, the event's own caption as the line of each state, the winners on the last
picture). Game-agnostic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from gameroom.core.record import STATE

__all__ = ["Narrator", "Story", "Told", "Ending", "winners_caption"]


def winners_caption(outcome: Any) -> str:
    """The caption of a game's last picture: who won, with the final scores."""
    scores = ", ".join(f"{n} {s}" for n, s in outcome.named_scores())
    label = "winner" if len(outcome.winners) == 1 else "winners"
    return f"game over: {label} {', '.join(outcome.winners) or 'none'}" + (f" ({scores})" if scores else "")


class Narrator:
    """The lines of one game and the captions of its pictures.

    ``opening()`` is told before the game; ``narrate(event)`` is called with every event
    of the match (``core.record.Event``) as it happens, in order, and returns its lines
    (one line per move: who did what); ``caption(event)``, asked right after ``narrate``
    of a state event, is the caption of that state's picture (who did what, never a bare
    step number; default: the caption the event carries, else its lines);
    ``closing(outcome)`` is told after the game. ``final_caption(outcome)`` is the
    caption of one last picture of the last state (None: the last state's own picture
    already names the winners). ``picture(state, caption)`` draws a state as SVG text,
    or None to leave it to the game's own picture (the descriptor's ``render``); a
    narrator may draw its own (Q outlines the tiles just placed, Fish draws the last move
    as an arrow). The state it is given may be concealed for its viewer
    (``SeatViews.picture_state``), so a narrator draws only from what the state shows.
    """

    def __init__(self, opening: Sequence[str] = ()) -> None:
        self._opening = list(opening)
        self._told: list[str] = []

    def opening(self) -> list[str]:
        return list(self._opening)

    def narrate(self, event: Any) -> list[str]:
        self._told = []
        if event.kind == STATE and event.subject is not None and event.get("caption"):
            self._told = [str(event.get("caption"))]
        return list(self._told)

    def caption(self, event: Any) -> str | None:
        given = event.get("caption")
        return str(given) if given else ("; ".join(getattr(self, "_told", ())) or None)

    def closing(self, outcome: Any) -> list[str]:
        return []

    def final_caption(self, outcome: Any) -> str | None:
        return winners_caption(outcome)

    def picture(self, state: Any, caption: str) -> str | None:
        return None


@dataclass
class Told:
    """What one event tells: its ``lines``, and for an event with a state to draw, the
    ``state`` (the live object) and its ``caption``."""

    lines: list[str]
    state: Any = None
    caption: str | None = None

    @property
    def drawn(self) -> bool:
        return self.state is not None


@dataclass
class Ending:
    """What the end of a game tells: the narrator's ``closing`` lines and the ``caption``
    of one more picture of the ``state`` last drawn (None: no such picture)."""

    lines: list[str]
    state: Any = None
    caption: str | None = None


@dataclass
class Story:
    """One match told: every event goes to the narrator in order (:meth:`tell`), each
    state to draw gets its caption, and :meth:`draw` makes its picture — the narrator's
    own or the game's ``render`` — so ``gameroom play --observe``, the web room and a
    stored game's pictures are the same. The last state drawn is kept for the ending's
    picture (:meth:`end`)."""

    narrator: Narrator
    render: Callable[[Any, str], str]
    steps: int = 0
    last: Any = field(default=None, repr=False)

    def opening(self) -> list[str]:
        return self.narrator.opening()

    def tell(self, event: Any) -> Told:
        lines = self.narrator.narrate(event)
        if event.kind != STATE or event.subject is None:
            return Told(lines)
        self.steps += 1
        self.last = event.subject
        caption = self.narrator.caption(event) or f"step {self.steps}"
        return Told(lines, event.subject, caption)

    def draw(self, state: Any, caption: str) -> str:
        """The picture of ``state`` (possibly concealed for its viewer) with ``caption``."""
        picture = self.narrator.picture(state, caption)
        return picture if picture is not None else self.render(state, caption)

    def end(self, outcome: Any) -> Ending:
        caption = self.narrator.final_caption(outcome) if self.last is not None else None
        return Ending(self.narrator.closing(outcome), self.last if caption is not None else None, caption)
