"""What the members and spectators of a room played by calls see of its game: the latest
state, its step, caption and the narrator's lines, as ``GAME_STATE`` messages made once a
step for each seat and for the spectators (``server.referee_rooms``).

A state's messages are made at most once a step however often they are asked for: a
seat's own view (with its picture for a member that asked for ``pictures``), and the
spectators' public view, drawn and encoded once and shared by every spectator (a picture
drawn for every request cost 779 states a second to 64 watchers). The game's narrator
tells each event in the words ``gameroom play`` and the web room use; a narrator's or a
picture's bug costs its lines or its picture, never the game.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from gameroom.core.game import GameDescriptor
from gameroom.core.narration import Story
from gameroom.core.record import STATE, Event, MatchResult

__all__ = ["StepViews"]

logger = logging.getLogger(__name__)


class StepViews:
    """The latest state of one room's game and its messages (see the module); ``log`` says
    a line of the room's, ``encode`` makes a message's bytes once for every spectator, and
    ``drawn`` counts each picture drawn (the lobby's figure)."""

    def __init__(self, game: GameDescriptor[Any, Any], names: list[str], seed: int, log: Callable[[str], None],
                 encode: Callable[[dict[str, Any]], bytes], drawn: Callable[[], None]) -> None:
        self.game, self.names = game, names
        self._log, self._encode, self._drawn = log, encode, drawn
        self.state: Any = None             # the latest state the referee reported
        self.step = 0
        self.caption: str | None = None
        self.narration: list[str] = []     # the narrator's lines of the latest state's event and those before it
        self.told: list[str] = []          # lines of events since the latest state
        try:   # the game's own narrator, as gameroom play and the web room tell a match
            self.story: Story | None = game.story(seed, names)
        except Exception as exc:   # noqa: BLE001 - no story: the captions of the referee's events
            log(f"no narrator: {type(exc).__name__}: {exc}")
            self.story = None
        # GAME_STATE of the latest step, made once: pictures? -> (step, message, encoded) for
        # spectators, (seat, pictures?) -> (step, message) for seats; a picture is drawn once a step
        self._spectators: dict[bool, tuple[int, dict[str, Any], bytes]] = {}
        self._seats: dict[tuple[int, bool], tuple[int, dict[str, Any]]] = {}

    def tell(self, event: Event) -> bool:
        """Takes ``event`` in: True when it is a new state (the step moved on)."""
        lines, caption = self._told(event)
        if event.kind != STATE or event.subject is None:
            self.told += lines
            return False
        self.state, self.step = event.subject, self.step + 1
        self.caption = caption
        self.narration, self.told = self.told + lines, []
        return True

    def end_lines(self, result: MatchResult) -> list[str]:
        """The narrator's lines since the latest state and of the end."""
        lines = list(self.told)
        if self.story is not None:
            try:
                lines += self.story.end(result).lines
            except Exception as exc:   # noqa: BLE001 - the narrator's bug costs its lines only
                self._log(f"the narrator failed: {type(exc).__name__}: {exc}")
        return lines

    def seat_message(self, index: int, pictures: bool) -> dict[str, Any]:
        """``GAME_STATE`` of the latest state as seat ``index`` may see it (with its picture
        when ``pictures``): made once a step for the seat, however often it asks."""
        made = self._seats.get((index, pictures))
        if made is None or made[0] != self.step:
            name = self.names[index]
            view = None if self.state is None else self.game.views.seat(self.state, name)
            message = {"type": "GAME_STATE", "step": self.step, "caption": self.caption,
                       "narration": self.narration, "state": view}
            if pictures:
                message["svg"] = self._picture(name)
            made = self._seats[(index, pictures)] = (self.step, message)
        return made[1]

    def spectator_message(self, pictures: bool = False) -> tuple[dict[str, Any], bytes | None]:
        """``GAME_STATE`` of the latest state as a spectator may see it: made, drawn and
        encoded once a step (with its picture and without), shared by every spectator."""
        made = self._spectators.get(pictures)
        if made is None or made[0] != self.step:
            view = None if self.state is None else self.game.views.spectator(self.state)
            message = {"type": "GAME_STATE", "step": self.step, "caption": self.caption,
                       "narration": self.narration, "state": view}
            if pictures:
                message["svg"] = self._picture(None)
            made = self._spectators[pictures] = (self.step, message, self._encode(message))
        return made[1], made[2]

    def _told(self, event: Event) -> tuple[list[str], str | None]:
        """The narrator's lines of ``event`` and, for a state, its caption."""
        if self.story is not None:
            try:
                told = self.story.tell(event)
                return told.lines, told.caption
            except Exception as exc:   # noqa: BLE001 - a narrator's bug: the referee's captions from now on
                self._log(f"the narrator failed: {type(exc).__name__}: {exc}")
                self.story = None
        return [], event.get("caption") if event.kind == STATE else None

    def _picture(self, viewer: str | None) -> str | None:
        """The game's picture of the latest state as ``viewer`` (None: a spectator) may see
        it, drawn by the narrator as ``gameroom play`` draws it; None when the game cannot
        conceal its secrets, or the picture fails (the views go on without it)."""
        if self.state is None:
            return None
        self._drawn()
        try:
            return self.game.picture(self.state, viewer, self.caption or f"step {self.step}",
                                     self.story.draw if self.story is not None else None)
        except Exception as exc:   # noqa: BLE001 - a picture's bug costs the picture
            self._log(f"the picture failed: {type(exc).__name__}: {exc}")
            return None
