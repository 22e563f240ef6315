"""The results database: SQLAlchemy 2 models and the one way results are written.

Tables: ``bots`` (every entrant by name, with its JSON form), ``leagues`` (a league's
game, seed, configuration and size, for resuming), ``games`` (one row per finished game:
game name, league and index or tournament label, seed, configuration, the replay as
packed JSON Lines (``league.packing``; NULL once a retention rule let it go, the game's
rows stay) and the head of its digest chain), ``seats`` (who sat where), ``results`` (each seat's rank, score,
win, ejection), ``ejections`` (method, failure kind, reason, in order) and ``ratings``
(openskill per game and bot, with counts).

The schema is created and upgraded by the Alembic migrations shipped in
``gameroom/league/migrations`` (:func:`open_database` runs them programmatically). A
SQLite file by default, PostgreSQL (psycopg) or any SQLAlchemy URL otherwise.

:func:`record_game` writes one finished game — its rows, its replay and the ratings it
changes — in one transaction, so a killed league never leaves half a game behind.
:func:`stored_differences` compares a stored game's rows with its replay's result (what
``gameroom replay verify --db`` reports besides the re-run).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, cast

from sqlalchemy import (JSON, Boolean, DateTime, Float, ForeignKey, Integer, LargeBinary, String, Text,
                        UniqueConstraint, create_engine, func, select, update)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship

from gameroom.core.chain import head_of
from gameroom.core.errors import GameroomError
from gameroom.core.sqlite import wal_pragmas
from gameroom.core.record import MatchRecord, MatchResult
from gameroom.league.packing import pack, unpack

__all__ = ["Base", "BotRow", "LeagueRow", "GameRow", "SeatRow", "ResultRow", "EjectionRow", "RatingRow",
           "open_database", "record_game", "ranks_of", "bot_ranks", "DatabaseError", "replay_of", "DEFAULT_URL",
           "stored_differences", "ReplayNotKept", "NOT_KEPT", "prune_replays"]

DEFAULT_URL = "sqlite:///gameroom.db"


class DatabaseError(GameroomError):
    """The database cannot be opened or used (the message says why)."""


class Base(DeclarativeBase):
    pass


class BotRow(Base):
    __tablename__ = "bots"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    spec: Mapped[Any] = mapped_column(JSON)


class LeagueRow(Base):
    __tablename__ = "leagues"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    game: Mapped[str] = mapped_column(String(32))
    seed: Mapped[int] = mapped_column(Integer)
    planned: Mapped[int] = mapped_column(Integer)
    config: Mapped[Any] = mapped_column(JSON)


class GameRow(Base):
    __tablename__ = "games"
    __table_args__ = (UniqueConstraint("league_id", "index", name="one_game_per_league_index"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(32), index=True)
    league_id: Mapped[int | None] = mapped_column(ForeignKey("leagues.id"), nullable=True)
    index: Mapped[int | None] = mapped_column(Integer, nullable=True)
    tournament: Mapped[str | None] = mapped_column(String(200), nullable=True)
    seed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    config: Mapped[Any] = mapped_column(JSON)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    replay: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)   # None: not kept (retention)
    # The last line's digest of the replay's chain: a replay cut short (or swapped for
    # another) no longer ends in it. None for games stored before replays were chained.
    digest: Mapped[str | None] = mapped_column(String(64), nullable=True)

    seats: Mapped[list["SeatRow"]] = relationship(back_populates="game_row", order_by="SeatRow.position")
    results: Mapped[list["ResultRow"]] = relationship(back_populates="game_row")


class SeatRow(Base):
    __tablename__ = "seats"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    game_row: Mapped[GameRow] = relationship(back_populates="seats")
    bot: Mapped[BotRow] = relationship()


class ResultRow(Base):
    __tablename__ = "results"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), index=True)
    rank: Mapped[int] = mapped_column(Integer)          # 1 = best; the ejected share the last rank
    score: Mapped[Any] = mapped_column(JSON, nullable=True)
    winner: Mapped[bool] = mapped_column(Boolean)
    ejected: Mapped[bool] = mapped_column(Boolean)
    game_row: Mapped[GameRow] = relationship(back_populates="results")
    bot: Mapped[BotRow] = relationship()


class EjectionRow(Base):
    __tablename__ = "ejections"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    position: Mapped[int] = mapped_column(Integer)      # order of ejection within the game
    method: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(Text)


class RatingRow(Base):
    __tablename__ = "ratings"

    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    ejections: Mapped[int] = mapped_column(Integer)
    bot: Mapped[BotRow] = relationship()


MIGRATIONS = Path(__file__).with_name("migrations")


def open_database(url: str, create: bool = True) -> Engine:
    """An engine for ``url`` with the schema migrated to the newest revision. An in-memory
    SQLite database is refused (whatever is written to it is lost when the command ends);
    ``create=False`` (commands that only read) refuses a SQLite file that does not exist
    rather than creating an empty one."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError

    _check_sqlite(url, create)
    try:
        engine = create_engine(url, future=True, connect_args=_connect_args(url))
    except (ArgumentError, ImportError, ValueError) as exc:
        raise DatabaseError(f"bad database URL {url!r}: {exc}") from None
    if engine.dialect.name == "sqlite":
        _sqlite_pragmas(engine)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    except OperationalError as exc:
        raise DatabaseError(f"cannot open database {url!r}: {' '.join(str(exc.orig).split())}") from None
    except SQLAlchemyError as exc:
        raise DatabaseError(f"cannot migrate database {url!r}: {' '.join(str(exc).split())}") from None
    return engine


def _check_sqlite(url: str, create: bool) -> None:
    """DatabaseError for an in-memory SQLite URL, and for a missing file when ``create`` is
    False."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return   # create_engine says what is wrong with it
    if parsed.get_backend_name() != "sqlite":
        return
    database = parsed.database or ""
    if database in ("", ":memory:") or parsed.query.get("mode") == "memory":
        raise DatabaseError(f"{url!r} is an in-memory database: everything written to it is lost when the command "
                            "ends; give a file, e.g. sqlite:///gameroom.db")
    if not create and not database.startswith("file:") and not Path(database).is_file():
        raise DatabaseError(f"no database file {database} ({url!r}): nothing to read")


# A database server that does not answer (a host that drops packets) would otherwise hold
# `league`, `web --db` and every recorded run for the kernel's TCP time-out, minutes long.
CONNECT_TIMEOUT_S = 10


def _connect_args(url: str) -> dict[str, Any]:
    """Driver options for ``url``: a connect time-out for the network databases."""
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except Exception:   # noqa: BLE001 -- a malformed URL: create_engine says what is wrong with it
        return {}
    # a time-out written in the URL (`?connect_timeout=N`) is the user's and stays
    if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
        return {"connect_timeout": CONNECT_TIMEOUT_S}
    return {}


def _sqlite_pragmas(engine: Engine) -> None:
    """Write-ahead log with normal sync: a commit survives the league process being killed
    (only a power cut may lose the last games, which a resumed league plays again), at a
    fraction of the cost of a full sync per game; readers do not block the writer."""
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def pragmas(connection: Any, _record: Any) -> None:
        wal_pragmas(connection)


def bot_rows(session: Session, names: Iterable[str], specs: dict[str, dict[str, Any]]) -> dict[str, BotRow]:
    """The bots of these names (one query), the missing ones created."""
    names = list(names)
    found = {row.name: row for row in session.scalars(select(BotRow).where(BotRow.name.in_(names)))}
    for name in names:
        spec = specs.get(name)
        if name not in found:
            found[name] = bot_row(session, name, spec)
        elif spec is not None and found[name].spec != spec:
            found[name] = bot_row(session, name, spec)
    return found


def bot_row(session: Session, name: str, spec: dict[str, Any] | None = None) -> BotRow:
    """The bot of that name, created (or its JSON form brought up to date) as needed."""
    row = session.scalar(select(BotRow).where(BotRow.name == name))
    spec = spec or {"name": name}
    kind = next((k for k in ("builtin", "python", "command") if k in spec), "remote")
    if row is None:
        row = BotRow(name=name, kind=kind, spec=spec)
        session.add(row)
        session.flush()
    elif row.spec != spec and len(spec) > 1:
        row.spec, row.kind = spec, kind
    return row


def ranks_of(record: MatchRecord) -> dict[int, int]:
    """Each seat's rank (1 = best), by seat index: the result's ranking groups in order,
    seats it does not rank after them (winners first), and every ejected seat last of all."""
    assert record.result is not None
    result = record.result
    ejected = ejected_seats(result)
    ranks: dict[int, int] = {}
    rank = 1
    for group in result.ranking_seats:
        members = [seat for seat in group if seat not in ejected and seat not in ranks]
        for seat in members:
            ranks[seat] = rank
        rank += 1 if members else 0
    winners = set(result.winner_seats)
    unranked = [seat for seat in range(len(record.seats)) if seat not in ranks and seat not in ejected]
    for seat in sorted(unranked, key=lambda s: s not in winners):
        ranks[seat] = rank if seat in winners else rank + 1
    last = max(ranks.values(), default=0) + 1
    for seat in range(len(record.seats)):
        ranks.setdefault(seat, last)
    return ranks


def ejected_seats(result: MatchResult) -> set[int]:
    """The seats the result names as misbehaving or ejected."""
    return set(result.misbehaved_seats) | {e.seat for e in result.ejections}


def bot_ranks(record: MatchRecord) -> tuple[dict[str, int], set[str], set[str]]:
    """What the ratings of bots need from one game: each bot's rank (a bot seated twice
    counts once, at its better rank), the bots that won and those ejected."""
    assert record.result is not None
    ranks: dict[str, int] = {}
    for seat, rank in ranks_of(record).items():
        name = record.seats[seat]
        ranks[name] = min(rank, ranks.get(name, rank))
    result = record.result
    return (ranks, {record.seats[s] for s in result.winner_seats},
            {record.seats[s] for s in ejected_seats(result) if 0 <= s < len(record.seats)})


def record_game(engine: Engine, record: MatchRecord, *, league_id: int | None = None, index: int | None = None,
                tournament: str | None = None, bots: dict[str, dict[str, Any]] | None = None,
                ratings: Any = None, replay: bytes | None = None, digest: str | None = None) -> int:
    """Write one finished game (rows, replay, the ratings it changes) in one transaction;
    its id. ``bots`` maps seat names to their JSON forms; ``ratings`` is a
    ``league.ratings.RatingBook`` updated with this result; ``replay`` the record's JSON
    Lines packed (``league.packing.pack``) when the caller has them already (the record's
    events are then not needed), with ``digest`` the head of their chain (found in them
    otherwise)."""
    if record.result is None:
        raise ValueError("a game without a result cannot be recorded")
    result = record.result
    ranks = ranks_of(record)
    if replay is None:
        text = record.to_jsonl()
        replay, digest = pack(text), head_of(text)
    elif digest is None:
        digest = head_of(unpack(replay))
    with Session(engine) as session, session.begin(), session.no_autoflush:
        rows = bot_rows(session, record.seats, bots or {})
        game = GameRow(game=record.game, league_id=league_id, index=index, tournament=tournament,
                       seed=record.seed if isinstance(record.seed, int) else None, config=record.config,
                       finished_at=datetime.now(timezone.utc), replay=replay, digest=digest)
        session.add(game)
        session.flush()
        ejected = ejected_seats(result)
        added: list[Any] = []
        for position, name in enumerate(record.seats):
            added.append(SeatRow(game_id=game.id, position=position, bot_id=rows[name].id))
            added.append(ResultRow(game_id=game.id, bot_id=rows[name].id, rank=ranks[position],
                                   score=result.seat_scores.get(position), winner=position in result.winner_seats,
                                   ejected=position in ejected))
        for position, ejection in enumerate(result.ejections):
            if 0 <= ejection.seat < len(record.seats):
                added.append(EjectionRow(game_id=game.id, bot_id=rows[record.seats[ejection.seat]].id,
                                         position=position, method=ejection.method, kind=ejection.kind.value,
                                         reason=ejection.reason))
        session.add_all(added)
        if ratings is not None:
            by_bot, winners, ejected_bots = bot_ranks(record)
            ratings.update(record.game, by_bot, winners=winners, ejected=ejected_bots)
            ratings.store(session, record.game, {name: rows[name] for name in record.seats})
        return game.id


def stored_differences(session: Session, row: GameRow, record: MatchRecord) -> list[str]:
    """How the game's ``games``, ``seats``, ``results`` and ``ejections`` rows differ from
    what ``record`` (its replay) says, one line each; empty when they agree. The rows are
    what ratings and leaderboards are made of, so a row changed by hand is reported even
    when the replay itself is intact."""
    out: list[str] = []
    if row.game != record.game:
        out.append(f"games.game is {row.game!r}, the replay's game {record.game!r}")
    seed = record.seed if isinstance(record.seed, int) else None
    if row.seed != seed:
        out.append(f"games.seed is {row.seed!r}, the replay's seed {seed!r}")
    names = {bot.id: bot.name for bot in session.scalars(
        select(BotRow).join(SeatRow, SeatRow.bot_id == BotRow.id).where(SeatRow.game_id == row.id))}
    seats = session.scalars(select(SeatRow).where(SeatRow.game_id == row.id).order_by(SeatRow.position, SeatRow.id))
    seated = [(seat.position, names.get(seat.bot_id, f"bot #{seat.bot_id}")) for seat in seats]
    if seated != list(enumerate(record.seats)):
        out.append(f"seats rows {_pairs(seated)} differ from the replay's seats {_pairs(enumerate(record.seats))}")
    if record.result is None:
        out.append("the replay has no result to compare the results rows with")
        return out
    result = record.result
    # A bot seated twice has a results row per seat; rows are written in seat order, so
    # the rows of one name are compared with that name's seats in order.
    expected: dict[str, list[tuple[Any, ...]]] = {}
    for name, want in zip(record.seats, _result_rows(record)):
        expected.setdefault(name, []).append(want)
    found: dict[str, list[tuple[Any, ...]]] = {}
    for r in session.scalars(select(ResultRow).where(ResultRow.game_id == row.id).order_by(ResultRow.id)):
        name = names.get(r.bot_id) or _bot_name(session, r.bot_id)
        found.setdefault(name, []).append((r.rank, r.score, bool(r.winner), bool(r.ejected)))
    for name in sorted(set(expected) | set(found), key=lambda n: (n not in record.seats, n)):
        rows = found.get(name, [])
        wants = expected.get(name, [])
        if not wants:
            out.append(f"results has {len(rows)} row(s) of {name}, who did not play this game")
        elif not rows:
            out.append(f"results has no row of {name} (the replay: {'; '.join(map(_result_text, wants))})")
        elif len(rows) != len(wants):
            out.append(f"results has {len(rows)} rows of {name}"
                       + (f", who has {len(wants)} seats in the replay" if len(wants) > 1 else ""))
        else:
            for at, (got, want) in enumerate(zip(rows, wants)):
                if got != want:
                    which = f" (its seat {at + 1} of {len(wants)})" if len(wants) > 1 else ""
                    out.append(f"results row of {name}{which} says {_result_text(got)}, the replay {_result_text(want)}")
    ejections = [(e.position, names.get(e.bot_id) or _bot_name(session, e.bot_id), e.method, e.kind, e.reason)
                 for e in session.scalars(select(EjectionRow).where(EjectionRow.game_id == row.id)
                                          .order_by(EjectionRow.position, EjectionRow.id))]
    wanted = [(at, record.seats[e.seat], e.method, e.kind.value, e.reason) for at, e in enumerate(result.ejections)
              if 0 <= e.seat < len(record.seats)]
    if ejections != wanted:
        out.append(f"ejections rows {_ejections_text(ejections)} differ from the replay's {_ejections_text(wanted)}")
    return out


def _result_rows(record: MatchRecord) -> list[tuple[Any, ...]]:
    """Each seat's (rank, score, winner, ejected) in seat order, as :func:`record_game`
    writes them."""
    assert record.result is not None
    result = record.result
    ranks = ranks_of(record)
    ejected = ejected_seats(result)
    return [(ranks[seat], result.seat_scores.get(seat), seat in result.winner_seats, seat in ejected)
            for seat in range(len(record.seats))]


def _bot_name(session: Session, bot_id: int) -> str:
    bot = session.get(BotRow, bot_id)
    return bot.name if bot is not None else f"bot #{bot_id}"


def _pairs(pairs: Iterable[tuple[int, str]]) -> str:
    return "[" + ", ".join(f"{at}: {name}" for at, name in pairs) + "]"


def _result_text(row: tuple[Any, ...]) -> str:
    rank, score, winner, ejected = row
    return (f"rank {rank}, score {json.dumps(score)}, {'winner' if winner else 'not a winner'}"
            + (", ejected" if ejected else ""))


def _ejections_text(rows: list[tuple[Any, ...]]) -> str:
    if not rows:
        return "(none)"
    return "; ".join(f"{name} on {method} [{kind}]: {reason if len(reason) <= 60 else reason[:57] + '...'}"
                     for _at, name, method, kind, reason in rows)


NOT_KEPT = "its replay was not kept (a retention rule keeps a number of replays per bot; results are always kept)"


class ReplayNotKept(GameroomError):
    """A stored game whose replay a retention rule let go (its rows are all there)."""


def replay_of(row: GameRow) -> str:
    """The replay (JSON Lines) stored with a game. ReplayNotKept when a retention rule let
    it go; ValueError when the stored bytes cannot be unpacked."""
    if row.replay is None:
        raise ReplayNotKept(f"game {row.id}: {NOT_KEPT}")
    return unpack(row.replay)


def prune_replays(session: Session, bots: Iterable[str], keep: int, *where: Any) -> int:
    """Let go of the replays no bot of ``bots`` needs any more, and say how many: a bot
    keeps the replays of its ``keep`` latest games among those ``where`` selects (an
    arena's ladder and qualification games), and a game's replay goes when none of its
    seated bots keeps it. Its rows (seats, results, ejections, digest) stay. Called after
    each game with that game's bots, whose windows just moved; with every bot at start."""
    scope = [GameRow.replay.is_not(None), *where]
    pruned = 0
    for name in set(bots):
        bot = session.scalar(select(BotRow.id).where(BotRow.name == name))
        if bot is None:
            continue
        games = select(GameRow.id).join(SeatRow, SeatRow.game_id == GameRow.id).where(SeatRow.bot_id == bot, *where)
        oldest_kept = session.scalar(games.distinct().order_by(GameRow.id.desc()).offset(keep - 1).limit(1)) \
            if keep > 0 else None
        if keep > 0 and oldest_kept is None:
            continue   # fewer games than it keeps
        # the bot's games older than its window that still hold a replay (each checked
        # again after each game while another bot keeps it: at most ``keep`` per such bot)
        older = [GameRow.id < oldest_kept] if oldest_kept is not None else []
        stale = session.scalars(games.where(*scope, *older).distinct()).all()
        for game_id in stale:
            if any(_among_latest(session, other, game_id, keep, where)
                   for other in session.scalars(select(SeatRow.bot_id).where(SeatRow.game_id == game_id)).all()
                   if other != bot):
                continue
            session.execute(update(GameRow).where(GameRow.id == game_id).values(replay=None))
            pruned += 1
    return pruned


def _among_latest(session: Session, bot: int, game_id: int, keep: int, where: tuple[Any, ...]) -> bool:
    """Whether ``game_id`` is among ``bot``'s ``keep`` latest games (of those ``where`` selects)."""
    later = session.scalar(select(func.count(func.distinct(GameRow.id))).join(SeatRow, SeatRow.game_id == GameRow.id)
                           .where(SeatRow.bot_id == bot, GameRow.id > game_id, *where)) or 0
    return later < keep


def count_games(engine: Engine, league_id: int) -> int:
    with Session(engine) as session:
        return session.scalar(select(func.count()).select_from(GameRow).where(GameRow.league_id == league_id)) or 0


def league_games(engine: Engine, league_id: int) -> Iterable[tuple[int, MatchRecord]]:
    """The league's games in index order, as (index, record)."""
    with Session(engine) as session:
        for row in session.scalars(select(GameRow).where(GameRow.league_id == league_id).order_by(GameRow.index)):
            yield cast(int, row.index), MatchRecord.from_jsonl(replay_of(row))   # a league keeps every replay


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
