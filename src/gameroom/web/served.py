"""What the web room's module-level endpoints find on ``app.state``: the room, its match
book, the games, the lobby server's listing, the results database and its viewer.

``web.app.create_app`` puts one :class:`Served` there; an endpoint reads it with
:func:`served`. The room alone is also ``app.state.room`` (``web.room.room_of``), which the
arena's endpoints and the log-in pages use.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.requests import HTTPConnection

from gameroom.core.game import GameDescriptor
from gameroom.web.book import MatchBook
from gameroom.web.lobby import LobbyRooms
from gameroom.web.room import Room

if TYPE_CHECKING:   # types only: a room without a results database never loads the league's modules
    from gameroom.web.results import Results
    from gameroom.web.viewer import Viewer

__all__ = ["LOBBY_KEPT", "NO_DATABASE", "Recent", "Served", "served"]

LOBBY_KEPT = 2.0
"""Seconds a listing of the lobby server's rooms is shared."""
NO_DATABASE = "no results database: start the web room with gameroom web --db URL"


class Recent:
    """The answer of a slow question (``ask``, run on a worker thread), asked by one request
    at a time and shared for ``keep`` seconds: the lobby page's listing would otherwise open a
    connection to the lobby server per request of anyone."""

    def __init__(self, ask: Callable[[], Any], keep: float) -> None:
        self.ask, self.keep = ask, keep
        self._lock = asyncio.Lock()
        self._at = float("-inf")
        self._value: Any = None

    async def __call__(self) -> Any:
        async with self._lock:
            if time.monotonic() - self._at >= self.keep:
                self._value = await asyncio.to_thread(self.ask)
                self._at = time.monotonic()
            return self._value


@dataclass
class Served:
    """One web room's application state (see the module)."""

    room: Room
    games: dict[str, GameDescriptor[Any, Any]]
    lobby: LobbyRooms | None = None
    results: Results | None = None           # with a results database (gameroom web --db)
    viewer: Viewer | None = None             # the stored games' steps, over it
    listing: Recent | None = None            # the lobby server's rooms, shared LOBBY_KEPT seconds
    drawing: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(1))
    """A stored replay is drawn by re-running its game: one at a time."""

    @property
    def book(self) -> MatchBook:
        return self.room.book


def served(connection: HTTPConnection) -> Served:
    """The web room's state of the application that took ``connection``."""
    state: Served = connection.app.state.served
    return state
