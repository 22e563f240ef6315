"""Writing games played outside a league (tournaments, served games) to the results
database: an observer per game that records its match and, at its end event, writes the
game, its replay and the ratings it changes — for any game, from any mode. A game without
a seed (a tournament's) cannot be re-dealt, so its replay keeps its state snapshots: the
web room draws it from them."""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterable

from gameroom.core.record import END, Event
from gameroom.league.replay import ReplayRecorder

__all__ = ["GameWriter"]


class GameWriter:
    """Makes one recording observer per game; every finished game goes to the database.

    ``label`` names the tournament (or session) the games belong to; ``bots`` maps seat
    names to their JSON forms. Games that run concurrently (a tournament's round) are
    written one at a time. ``ratings=False`` stores the games without touching the
    ratings (the web room's casual matches, whose seats are not entrants); ``ids`` are
    the stored games' ids in the order written."""

    def __init__(self, engine: Any, game: str, label: str, bots: dict[str, dict[str, Any]] | None = None,
                 config: dict[str, Any] | None = None, seed: Any = None, ratings: bool = True) -> None:
        from gameroom.league.ratings import RatingBook

        self.engine, self.game, self.label = engine, game, label
        self.bots = dict(bots or {})
        self.config = dict(config or {})
        self.seed = seed
        self.ratings = RatingBook.load(engine, game) if ratings else None
        self.written = 0
        self.ids: list[int] = []
        self._lock = threading.Lock()

    def observers(self, seats: Iterable[Any], index: int | None = None) -> list[Callable[[Event], None]]:
        """The observers of one game between ``seats`` (Seat objects or names); ``index``
        numbers the game within its label (how the web room finds a match it stored)."""
        names = [getattr(seat, "name", seat) for seat in seats]
        config = {**self.config, "tournament": self.label,
                  "seats": [{"name": n, "bot": self.bots.get(n, {"name": n})} for n in names]}
        recorder = ReplayRecorder(self.game, self.seed, config, names, states=self.seed is None)

        def observe(event: Event) -> None:
            recorder(event)
            if event.kind == END:
                self._write(recorder, index)

        return [observe]

    def _write(self, recorder: ReplayRecorder, index: int | None) -> None:
        from gameroom.league.db import record_game

        with self._lock:
            self.ids.append(record_game(self.engine, recorder.record, tournament=self.label, index=index,
                                        bots=self.bots, ratings=self.ratings))
            self.written += 1
