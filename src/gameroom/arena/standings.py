"""A competition's table of standings, and standings rebuilt from the stored games: the
rating history of every bot (for the sparklines) and ``gameroom arena recompute``.

:func:`table_rows` is the one table of a competition — every entry with a version, its
owner, its playing and latest versions, its rating and counts (the playing version's
ladder games: what its rating is made of), remote or not, disabled or not — which the
standings page shows live and :mod:`arena.season` keeps as the frozen table the finals
are seeded from.

A competition's ladder games are its league's games (``league.db``); the ladder writes
each with the ratings it changes in one transaction, in the order the games finished,
which is the order of their ids. Replaying every stored result in that order through a
fresh ``RatingBook`` must give exactly the stored ratings and counts: :func:`recompute`
does it and lists every difference (and, asked to, writes the rebuilt figures).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from gameroom.arena.tables import EntryRow, VersionRow
from gameroom.league.db import BotRow, GameRow, LeagueRow, RatingRow, ResultRow
from gameroom.league.ratings import RatingBook
from gameroom.web.account_rows import AccountRow

if TYPE_CHECKING:
    from gameroom.arena.config import Competition

__all__ = ["league_name", "Rebuilt", "rebuild", "recompute", "table_rows", "place_order"]

TOLERANCE = 1e-9


def league_name(competition: str) -> str:
    """The league that holds a competition's ladder games."""
    return f"arena:{competition}"


def place_order(row: dict[str, Any]) -> tuple[bool, float, str]:
    """How the table is ordered: rated bots by rating (ordinal) best first, then the
    entries without a playing version; the bot's name breaks ties."""
    return row["rating"] is None, -(row["rating"] or 0.0), row["bot"]


def table_rows(engine: Engine, competition: "Competition", book: RatingBook) -> list[dict[str, Any]]:
    """The competition's table: one row per entry with a version, ordered by
    :func:`place_order` and numbered (``rank``). ``book`` holds the ratings (the engine's,
    equal to the stored ones; or ``RatingBook.load``)."""
    with Session(engine) as session:
        rows = session.execute(select(EntryRow, VersionRow, AccountRow.name)
                               .join(VersionRow, VersionRow.entry_id == EntryRow.id)
                               .outerjoin(AccountRow, AccountRow.key == EntryRow.owner)
                               .where(EntryRow.competition == competition.name)
                               .order_by(EntryRow.id, VersionRow.number)).all()
    entries: dict[int, dict[str, Any]] = {}
    for entry, version, owner in rows:
        item = entries.setdefault(entry.id, {"bot": entry.name, "owner": owner or entry.owner, "playing": None,
                                             "playing_version": None, "version": None,
                                             "remote": False, "disabled": entry.disabled})
        item["version"] = {"version": version.number, "status": version.status, "language": version.language}
        if version.status == "active":
            item["playing"], item["playing_version"] = version.bot, version.number
        # remote: the playing version connects with its token (else the latest would)
        if version.status == "active" or item["playing"] is None:
            item["remote"] = version.language == "remote"
    table = []
    for item in entries.values():
        playing = item["playing"]
        standing = book.of(competition.game, playing) if playing is not None else None
        table.append({**item,
                      "rating": round(standing.ordinal, 3) if standing else None,
                      "mu": round(standing.mu, 3) if standing else None,
                      "sigma": round(standing.sigma, 3) if standing else None,
                      "games": standing.games if standing else 0, "wins": standing.wins if standing else 0,
                      "ejections": standing.ejections if standing else 0})
    table.sort(key=place_order)
    for place, row in enumerate(table, 1):
        row["rank"] = place
    return table


@dataclass
class Rebuilt:
    """A competition's ratings and each bot's rating (ordinal) after each of its games."""

    game: str
    book: RatingBook
    history: dict[str, list[float]]
    games: int


@contextlib.contextmanager
def snapshot(engine: Engine) -> Iterator[Session]:
    """A session whose reads all see one state of the database, while the arena goes on
    writing games: SQLite's driver begins no transaction for reads by itself, so one is
    begun (WAL readers see the database as of their first read); elsewhere REPEATABLE READ."""
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            connection.exec_driver_sql("BEGIN")
        else:
            connection = connection.execution_options(isolation_level="REPEATABLE READ")
        with Session(bind=connection) as session:
            yield session
        connection.rollback()


def rebuild(engine: Engine, competition: str, game: str, session: Session | None = None) -> Rebuilt:
    """Replay every stored result of the competition's ladder, in the order written."""
    if session is None:
        with snapshot(engine) as fresh:
            return rebuild(engine, competition, game, fresh)
    book = RatingBook()
    history: dict[str, list[float]] = {}
    count = 0
    league = session.scalar(select(LeagueRow.id).where(LeagueRow.name == league_name(competition)))
    if league is None:
        return Rebuilt(game, book, history, 0)
    query = (select(GameRow.id, BotRow.name, ResultRow.rank, ResultRow.winner, ResultRow.ejected)
             .join(ResultRow, ResultRow.game_id == GameRow.id).join(BotRow, BotRow.id == ResultRow.bot_id)
             .where(GameRow.league_id == league).order_by(GameRow.id, ResultRow.id))
    current: int | None = None
    ranks: dict[str, int] = {}
    winners: set[str] = set()
    ejected: set[str] = set()

    def flush() -> None:
        book.update(game, ranks, winners, ejected)
        for name in ranks:
            history.setdefault(name, []).append(round(book.of(game, name).ordinal, 4))

    for game_id, name, rank, winner, was_ejected in session.execute(query):
        if game_id != current:
            if current is not None:
                flush()
                count += 1
            current, ranks, winners, ejected = game_id, {}, set(), set()
        ranks[name] = rank
        if winner:
            winners.add(name)
        if was_ejected:
            ejected.add(name)
    if current is not None:
        flush()
        count += 1
    return Rebuilt(game, book, history, count)


def recompute(engine: Engine, competition: str, game: str, write: bool = False) -> tuple[Rebuilt, list[str]]:
    """Rebuild the competition's standings from its games; the differences from the stored
    ratings, one line each (none: the stored standings are exactly the games'). ``write``
    stores the rebuilt figures where they differ."""
    differences: list[str] = []
    with snapshot(engine) as session:
        rebuilt = rebuild(engine, competition, game, session)
        names = list(rebuilt.book.standings.get(game, {}))
        stored = {name: row for row, name in session.execute(
            select(RatingRow, BotRow.name).join(BotRow, BotRow.id == RatingRow.bot_id)
            .where(RatingRow.game == game, BotRow.name.in_(names)))}
        for name in sorted(names):
            fresh = rebuilt.book.of(game, name)
            row = stored.get(name)
            if row is None:
                differences.append(f"{name}: no stored rating; the games give {fresh.games} games, "
                                   f"mu {fresh.mu:.4f}, sigma {fresh.sigma:.4f}")
                continue
            problems = [f"{what} stored {have} but the games give {want}"
                        for what, have, want in (("games", row.games, fresh.games), ("wins", row.wins, fresh.wins),
                                                 ("ejections", row.ejections, fresh.ejections))
                        if have != want]
            problems += [f"{what} stored {have:.6f} but the games give {want:.6f}"
                         for what, have, want in (("mu", row.mu, fresh.mu), ("sigma", row.sigma, fresh.sigma))
                         if abs(have - want) > TOLERANCE]
            if problems:
                differences.append(f"{name}: " + "; ".join(problems))
    if write and differences:
        with Session(engine) as session, session.begin():
            bots = {row.name: row for row in session.scalars(select(BotRow).where(BotRow.name.in_(names)))}
            rebuilt.book.store(session, game, bots)
    return rebuilt, differences
