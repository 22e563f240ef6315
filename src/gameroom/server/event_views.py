"""Views of a room played by events (docs/lobby.md, "Rooms played by events"): what the
lobby tells the seats that asked for ``views`` (and the spectators that did) after every
change of the game, so that a client that keeps no model of the game — the web room's
board page — can show it and play it.

Such a ``GAME_STATE`` is the game's complete public state (``LobbyGame.snapshot``, as
``GET_GAME_STATE`` answers) with the fields of a room played by calls: ``step``, the
narrator's lines of the broadcasts since the last one (``narration``, the lines
``gameroom connect`` prints, from the game's terminal words' ``narrator``) and their last
line as ``caption``; ``svg``, the game's picture (the descriptor's ``render`` of the
snapshot read back by its state codec) for a client that asked for ``pictures``; and, to a
person's seat the game waits for, ``moves``: the events it may send (``LobbyGame.moves``),
each ``{"label", "action"}`` (``action`` is the event to send as a ``GAME_EVENT``).

A client of eriantys.md asks for none of this and is sent none of it. Game-agnostic.
"""

from __future__ import annotations

from typing import Any

from gameroom.core.record import Event
from gameroom.server.lobby_games import Hosted

__all__ = ["EventViews"]


class EventViews:
    """The story and views of one room's game played by events, made when the first
    client that wants them is in the room (its narrator starts from the game as it is)."""

    def __init__(self, hosted: Hosted, players: list[str], snapshot: dict[str, Any] | None = None) -> None:
        assert hosted.events is not None
        self.hosted, self.events = hosted, hosted.events
        make = getattr(self.events.terminal, "narrator", None)
        self.narrator: Any = None
        if make is not None:
            self.narrator = make(list(players)) if snapshot is None else make(list(players), snapshot)
        self.step = 0
        self.lines: list[str] = []    # told since the last view was made
        self.narration: list[str] = []   # the lines of the latest view
        self._made: tuple[Any, dict[str, Any]] | None = None   # (the state, its view without pictures or moves)
        self._picture: tuple[Any, str | None] | None = None   # (the state, its picture)
        self.failed = False           # the narrator or the picture failed once: no more of it

    def heard(self, message: dict[str, Any]) -> None:
        """One broadcast of the room, told by the game's narrator."""
        if self.narrator is None:
            return
        try:
            self.lines += self.narrator.narrate(Event("message", {"message": message}))
        except Exception:   # noqa: BLE001 - a narrator's bug costs the story, never the room
            self.narrator = None

    def message(self, state: Any, seat: int | None, pictures: bool, person: bool = False) -> dict[str, Any]:
        """``GAME_STATE`` of ``state`` for ``seat`` (None: a spectator)."""
        if self._made is None or self._made[0] is not state:
            self.step += 1
            self.narration, self.lines = self.lines, []
            self._made = (state, {"type": "GAME_STATE", "step": self.step,
                                  "caption": self.narration[-1].strip() if self.narration else None,
                                  "narration": self.narration, "state": self.events.snapshot(state)})
        message = dict(self._made[1])
        if pictures:
            message["svg"] = self._svg(state, message)
        if person and seat is not None and self.events.moves is not None and self.events.current(state) == seat:
            message["moves"] = [{"label": label, "action": event}
                                for label, event in self.events.moves(message["state"], seat)]
        return message

    def _svg(self, state: Any, message: dict[str, Any]) -> str | None:
        """The game's picture of the snapshot (made once a state), None without one."""
        if self._picture is not None and self._picture[0] is state:
            return self._picture[1]
        svg = None
        descriptor = self.hosted.descriptor
        if descriptor is not None and not self.failed:
            try:
                shown = descriptor.state_codec.decode(message["state"])
                svg = descriptor.picture(shown, None, message["caption"] or f"step {message['step']}")
            except Exception:   # noqa: BLE001 - a picture that cannot be drawn: the views go on without
                self.failed = True
        self._picture = (state, svg)
        return svg
