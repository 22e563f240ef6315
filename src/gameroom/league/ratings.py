"""Ratings: openskill's Plackett-Luce model, free-for-all, one rating per game and bot.

Every finished game updates the ratings of its 2-8 seats from their ranks (the result's
ranking; ejected players share the last rank), so a bot that crashes or hangs loses
rating like a bot that comes last. The leaderboard orders bots by the ordinal
(mu - 3 sigma), the conservative estimate openskill recommends, and shows games, wins and
ejections.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from openskill.models import PlackettLuce

__all__ = ["Standing", "RatingBook", "leaderboard", "print_leaderboard"]

MODEL = PlackettLuce()


@dataclass
class Standing:
    """One bot's rating and counts in one game."""

    name: str
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0
    wins: int = 0
    ejections: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


class RatingBook:
    """Ratings of every bot by game, updated result by result."""

    def __init__(self) -> None:
        self.standings: dict[str, dict[str, Standing]] = {}

    def of(self, game: str, name: str) -> Standing:
        table = self.standings.setdefault(game, {})
        if name not in table:
            table[name] = Standing(name)
        return table[name]

    def update(self, game: str, ranks: Mapping[str, int], winners: Iterable[str] = (),
               ejected: Iterable[str] = ()) -> None:
        """One result: ``ranks`` maps each seat to its rank (1 = best)."""
        names = list(ranks)
        standings = [self.of(game, name) for name in names]
        winners, ejected = set(winners), set(ejected)
        if len(names) >= 2:
            teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in standings]
            rated = MODEL.rate(teams, ranks=[float(ranks[name]) for name in names])
            for standing, team in zip(standings, rated):
                standing.mu, standing.sigma = team[0].mu, team[0].sigma
        for name, standing in zip(names, standings):
            standing.games += 1
            standing.wins += name in winners
            standing.ejections += name in ejected

    def table(self, game: str) -> list[Standing]:
        """The leaderboard of ``game``: best ordinal first (name breaks ties)."""
        return sorted(self.standings.get(game, {}).values(), key=lambda s: (-s.ordinal, s.name))

    def store(self, session: Any, game: str, bots: Mapping[str, Any]) -> None:
        """Write the ratings of ``bots`` (name -> BotRow) into the ratings table."""
        from sqlalchemy import select

        from gameroom.league.db import RatingRow

        ids = [bot.id for bot in bots.values()]
        existing = {row.bot_id: row for row in
                    session.scalars(select(RatingRow).where(RatingRow.game == game, RatingRow.bot_id.in_(ids)))}
        for name, bot in bots.items():
            standing = self.of(game, name)
            row = existing.get(bot.id)
            if row is None:
                row = RatingRow(game=game, bot_id=bot.id)
                session.add(row)
            row.mu, row.sigma, row.ordinal = standing.mu, standing.sigma, standing.ordinal
            row.games, row.wins, row.ejections = standing.games, standing.wins, standing.ejections

    @classmethod
    def load(cls, engine: Any, game: str | None = None) -> "RatingBook":
        """The ratings stored in the database (of one game, or of all)."""
        from sqlalchemy import select
        from sqlalchemy.orm import Session

        from gameroom.league.db import BotRow, RatingRow

        book = cls()
        with Session(engine) as session:
            query = select(RatingRow, BotRow.name).join(BotRow, BotRow.id == RatingRow.bot_id)
            if game is not None:
                query = query.where(RatingRow.game == game)
            for row, name in session.execute(query):
                book.standings.setdefault(row.game, {})[name] = Standing(name, row.mu, row.sigma, row.games,
                                                                         row.wins, row.ejections)
        return book


def leaderboard(standings: list[Standing], title: str, top: int | None = None) -> Any:
    """A rich table: rank, bot, rating (ordinal), mu, sigma, games, wins, ejections."""
    from rich.table import Table

    table = Table(title=title)
    for heading, justify in (("#", "right"), ("bot", "left"), ("rating", "right"), ("mu", "right"),
                             ("sigma", "right"), ("games", "right"), ("wins", "right"), ("ejections", "right")):
        table.add_column(heading, justify=justify)  # type: ignore[arg-type]
    for place, s in enumerate(standings[:top] if top else standings, 1):
        table.add_row(str(place), s.name, f"{s.ordinal:.2f}", f"{s.mu:.2f}", f"{s.sigma:.2f}", str(s.games),
                      str(s.wins), str(s.ejections))
    return table


def print_leaderboard(standings: list[Standing], title: str) -> None:
    from rich.console import Console

    Console(width=100).print(leaderboard(standings, title))
