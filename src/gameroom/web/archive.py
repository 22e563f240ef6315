"""Finished web matches in the results database (``gameroom web --db URL``), so that a
match's page and replay outlive its eviction from memory.

Each match is recorded by the league's own pieces: a ``league.recording.GameWriter`` per
match (its seats' players and the match's seed) observes the game and, at its end, writes
it with ``league.db.record_game`` — rows, replay — in one transaction, under the label
:data:`LABEL` with the match's number as its index. Web matches do not change ratings:
their seats (``P1``, ``P2``, ...) are whoever sat there, not entrants of a league. The
room's match numbers continue after the largest stored one, so an id names one match
across restarts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from gameroom.core.record import Event
from gameroom.league.db import GameRow
from gameroom.league.recording import GameWriter
from gameroom.web.matches import HUMAN, MatchRequest, Owner

__all__ = ["LABEL", "MatchArchive"]

LABEL = "web room"
"""The ``tournament`` label of every stored web match."""


class MatchArchive:
    """Stores finished web matches in the results database behind ``engine``."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def first_number(self) -> int:
        with Session(self.engine) as session:
            top = session.scalar(select(func.max(GameRow.index)).where(GameRow.tournament == LABEL,
                                                                       GameRow.league_id.is_(None)))
        return (top or 0) + 1

    def observers(self, match_number: int, request: MatchRequest, names: Sequence[str],
                  owner: Owner) -> list[Callable[[Event], Any]]:
        offered = request.policies
        policies = {names[i] for i in request.policy_seats()}
        bots = {name: {"name": name, "person": True} if kind == HUMAN
                else {"name": name, "policy": offered.target(request.game.name, kind), "offered": kind}
                if offered is not None and name in policies else {"name": name, "builtin": kind}
                for name, kind in zip(names, request.seats)}
        config = {"match": f"{match_number}-{request.game.name}", "time_limit": request.time_limit,
                  "pace": request.pace}
        writer = GameWriter(self.engine, request.game.name, LABEL, bots, config, seed=request.seed, ratings=False)
        return writer.observers(names, index=match_number)

    def stored(self, match_number: int, game: str) -> int | None:
        with Session(self.engine) as session:
            return session.scalar(select(GameRow.id).where(GameRow.tournament == LABEL, GameRow.league_id.is_(None),
                                                           GameRow.index == match_number, GameRow.game == game)
                                  .order_by(GameRow.id.desc()).limit(1))
