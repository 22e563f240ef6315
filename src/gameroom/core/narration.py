"""What ``gameroom play`` tells a person about a local game, as text: a :class:`Narrator`
turns the game's events into lines and gives the pictures their captions.

Narrators are pure: they return lines, and the command line prints them (and writes the
pictures). A game's narrator lives in its package; :class:`Narrator` itself is the one
every game gets without writing any (an opening line naming the players and the seed,
nothing during the game, the winners on the last picture). Game-agnostic.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["Narrator", "winners_caption"]


def winners_caption(outcome: Any) -> str:
    """The caption of a game's last picture: who won, with the final scores."""
    scores = ", ".join(f"{n} {s}" for n, s in outcome.named_scores())
    label = "winner" if len(outcome.winners) == 1 else "winners"
    return f"game over: {label} {', '.join(outcome.winners) or 'none'}" + (f" ({scores})" if scores else "")


class Narrator:
    """The lines of one local game and the captions of its pictures.

    ``opening()`` is printed before the game; ``narrate(event)`` is called with every
    event of the match (``core.record.Event``) as it happens, before the picture of a
    state is drawn, and its lines are printed at once; ``closing(outcome)`` is printed
    after the game, before the generic summary. ``final_caption(outcome)`` is the caption
    of one last picture of the last state (None: no such picture). ``picture(state,
    caption)`` draws a state for ``--observe`` as SVG text, or None to leave it to the
    game's own picture (the descriptor's ``render``) with the caption the event carries;
    a narrator may draw its own (Q outlines the tiles just placed).
    """

    def __init__(self, opening: Sequence[str] = ()) -> None:
        self._opening = list(opening)

    def opening(self) -> list[str]:
        return list(self._opening)

    def narrate(self, event: Any) -> list[str]:
        return []

    def closing(self, outcome: Any) -> list[str]:
        return []

    def final_caption(self, outcome: Any) -> str | None:
        return winners_caption(outcome)

    def picture(self, state: Any, caption: str) -> str | None:
        return None
