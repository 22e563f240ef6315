"""How many replays the arena keeps: every one (the default), or each bot's latest N
(``arena.toml``'s ``[retention] replays_per_bot``). Results are always kept.

A season's ladder stores thousands of games, and a replay is most of a stored game (a long
Q game's is about 190 KB packed, its rows a few hundred bytes). With a number N, a bot
keeps the replays of its N latest ladder and qualification games of its competition, and
a game's replay is let go once none of its bots keeps it (``league.db.prune_replays``):
its rows — seats, ranks, scores, ejections, the digest head — and so the standings, the
ratings and every count stay. Finals are never pruned. The window moves after each game
the ladder writes, for that game's bots; a sweep at start applies a number that changed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from gameroom.league.db import BotRow, GameRow, SeatRow, prune_replays

__all__ = ["Retention"]

logger = logging.getLogger(__name__)


def qualify_label(competition: str) -> str:
    """The ``tournament`` label of a competition's qualification games (as the ladder writes them)."""
    return f"arena:{competition}:qualify"


class Retention:
    """The arena's rule for replays over its results database: ``keep`` replays per bot
    (None: all) among each competition's ladder games (``league_ids``) and qualification
    games."""

    def __init__(self, engine: Engine, keep: int | None, league_ids: Mapping[str, int]) -> None:
        self.engine, self.keep, self.league_ids = engine, keep, league_ids

    def _scope(self, competition: str) -> Any:
        return or_(GameRow.league_id == self.league_ids[competition], GameRow.tournament == qualify_label(competition))

    def after_game(self, competition: str, bots: Iterable[str]) -> int:
        """Let go of the replays that fell out of the windows of a new game's ``bots``;
        how many. A failure is logged and left for the next game or the next start: the
        game itself is written already."""
        if self.keep is None:
            return 0
        try:
            with Session(self.engine) as session, session.begin():
                return prune_replays(session, bots, self.keep, self._scope(competition))
        except Exception:   # noqa: BLE001 -- retention is housekeeping: the ladder goes on, the next game prunes
            logger.warning("could not prune the replays of %s", competition, exc_info=True)
            return 0

    def sweep(self) -> int:
        """Apply the rule to every bot of every competition (at start); how many replays went."""
        if self.keep is None:
            return 0
        pruned = 0
        for competition in self.league_ids:
            with Session(self.engine) as session, session.begin():
                scope = self._scope(competition)
                bots = session.scalars(select(BotRow.name).join(SeatRow, SeatRow.bot_id == BotRow.id)
                                       .join(GameRow, GameRow.id == SeatRow.game_id).where(scope).distinct()).all()
                pruned += prune_replays(session, bots, self.keep, scope)
        if pruned:
            logger.info("retention", extra={"fields": {"replays_let_go": pruned, "kept_per_bot": self.keep}})
        return pruned
