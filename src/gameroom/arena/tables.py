"""The arena's rows in the results database (migration ``0004_arena``), beside the league's
games, seats, results, ejections and ratings and the web room's accounts.

* ``arena_members``: who takes part in which competition, and the administrators
  (competition ``*``);
* ``arena_invites``: invite codes, kept as their SHA-256 (a code is a secret of 128
  bits: a fast hash suffices), each used once;
* ``arena_entries``: a participant's bot in a competition (a remote bot's token hashed);
* ``arena_versions``: each upload of an entry: its language, its status (``building``,
  ``qualifying``, ``active``, ``retired``, ``failed``), the build log or the reason it
  failed, the bot name it plays under (``{entry}-v{n}``, a league bot) and its league
  bot spec;
* ``arena_state``: a competition's pause and freeze, and its season (the frozen table the
  finals are seeded from, the scheduled freeze applied: ``arena.season``);
* ``arena_finals``: every final tournament of a competition, numbered, each kept;
* ``arena_stderr``: the stderr tail of an ejected program whose ejection reason carries
  none (an illegal move: the referee ejects it, not a failed call);
* ``arena_settings``: the arena's own values by name (the remote port it chose once, its
  heartbeat while it serves).

Entries also keep whether staff disabled them (and why), and for a remote bot when its
connection was last seen and why it last dropped out (migration ``0007_arena_season``).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any, TypeVar

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from gameroom.league.atomic import insert_missing, write_transaction
from gameroom.league.db import Base, BotRow

_T = TypeVar("_T")

__all__ = ["MemberRow", "InviteRow", "EntryRow", "VersionRow", "StateRow", "FinalRow", "StderrRow", "SettingRow",
           "ADMIN", "InviteRefused", "digest", "new_secret", "now", "role_of", "make_invites", "redeem", "state_of",
           "set_state", "update_season", "setting", "set_setting", "keep_stderr"]

ADMIN = "*"
"""The competition of an administrator's membership: every competition."""

STATUSES = ("building", "qualifying", "active", "retired", "failed")


class MemberRow(Base):
    __tablename__ = "arena_members"
    __table_args__ = (UniqueConstraint("competition", "account_key", name="one_membership"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    competition: Mapped[str] = mapped_column(String(32))
    account_key: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(16))


class InviteRow(Base):
    __tablename__ = "arena_invites"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    competition: Mapped[str] = mapped_column(String(32))
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    used_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class EntryRow(Base):
    __tablename__ = "arena_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    competition: Mapped[str] = mapped_column(String(32), index=True)
    name: Mapped[str] = mapped_column(String(32), unique=True)
    owner: Mapped[str] = mapped_column(String(200))
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    disabled: Mapped[str | None] = mapped_column(Text, nullable=True)
    """Why staff disabled the bot (it plays no ladder or final game); None: it plays."""
    seen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """A remote bot: when its connection was last seen."""
    note: Mapped[str | None] = mapped_column(Text, nullable=True)
    """A remote bot: what last happened to its connection (why it dropped out)."""


class VersionRow(Base):
    __tablename__ = "arena_versions"
    __table_args__ = (UniqueConstraint("entry_id", "number", name="one_version_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("arena_entries.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    language: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16))
    detail: Mapped[str] = mapped_column(Text)
    bot: Mapped[str] = mapped_column(String(64), unique=True)
    spec: Mapped[Any] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class StateRow(Base):
    __tablename__ = "arena_state"

    competition: Mapped[str] = mapped_column(String(32), primary_key=True)
    paused: Mapped[bool] = mapped_column(Boolean)
    frozen: Mapped[bool] = mapped_column(Boolean)
    season: Mapped[Any] = mapped_column(JSON, nullable=True)
    """``{"table": the frozen table or None, "scheduled": the freeze_at applied}``
    (``arena.season``)."""


class FinalRow(Base):
    __tablename__ = "arena_finals"
    __table_args__ = (UniqueConstraint("competition", "number", name="one_final_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    competition: Mapped[str] = mapped_column(String(32))
    number: Mapped[int] = mapped_column(Integer)
    format: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))   # playing, done, failed, interrupted (arena.final)
    result: Mapped[Any] = mapped_column(JSON, nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class StderrRow(Base):
    __tablename__ = "arena_stderr"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    stderr: Mapped[str] = mapped_column(Text)


class SettingRow(Base):
    __tablename__ = "arena_settings"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret() -> str:
    return secrets.token_urlsafe(16)


def now() -> datetime:
    return datetime.now(timezone.utc)


def role_of(engine: Engine, account_key: str, competition: str | None = None) -> str | None:
    """``admin`` for an administrator, ``participant`` for a member of ``competition`` (of
    any competition when None), else None."""
    with Session(engine) as session:
        rows = session.scalars(select(MemberRow).where(MemberRow.account_key == account_key)).all()
    if any(row.competition == ADMIN for row in rows):
        return "admin"
    if any(competition is None or row.competition == competition for row in rows):
        return "participant"
    return None


def competitions_of(engine: Engine, account_key: str) -> list[str]:
    with Session(engine) as session:
        return list(session.scalars(select(MemberRow.competition).where(MemberRow.account_key == account_key,
                                                                         MemberRow.competition != ADMIN)))


def add_member(session: Session, competition: str, account_key: str, role: str = "participant") -> None:
    """Make ``account_key`` a member (once, however many requests do it at once)."""
    insert_missing(session, MemberRow, {"competition": competition, "account_key": account_key, "role": role},
                   ["competition", "account_key"])


def make_invites(engine: Engine, competition: str, count: int) -> list[str]:
    """``count`` new invite codes for ``competition`` (only their hashes are kept)."""
    codes = [new_secret() for _ in range(count)]
    with Session(engine) as session, session.begin():
        session.add_all(InviteRow(competition=competition, code_hash=digest(code), created_at=now()) for code in codes)
    return codes


class InviteRefused(Exception):
    """An invite code that joins nothing: its HTTP status (404 unknown, 409 used) and why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def redeem(engine: Engine, code: str, account_key: str) -> str:
    """Use an invite code for ``account_key``: the competition it joins; InviteRefused when
    the code is unknown or used. The database decides who gets a code: the write lock is
    taken first (SQLite) and the code is claimed by a conditional update (a row lock on
    PostgreSQL), so of accounts redeeming one code at once exactly one joins (two did,
    about one round in eight, when the code was read and then written)."""
    hashed = digest(code)
    with write_transaction(engine) as session:
        claimed = session.execute(update(InviteRow).where(InviteRow.code_hash == hashed, InviteRow.used_by.is_(None))
                                  .values(used_by=account_key).returning(InviteRow.competition)).first()
        if claimed is None:
            used = session.scalar(select(InviteRow.used_by).where(InviteRow.code_hash == hashed))
            if used is None:
                raise InviteRefused(404, "no such invite code")
            raise InviteRefused(409, "this invite code was used already (each code joins one account)")
        add_member(session, claimed[0], account_key)
        return str(claimed[0])


def state_of(engine: Engine, competition: str) -> StateRow:
    with Session(engine) as session:
        row = session.get(StateRow, competition)
        return row if row is not None else StateRow(competition=competition, paused=False, frozen=False, season=None)


def set_state(engine: Engine, competition: str, **values: Any) -> None:
    with Session(engine) as session, session.begin():
        row = session.get(StateRow, competition)
        if row is None:
            row = StateRow(competition=competition, paused=False, frozen=False, season=None)
            session.add(row)
        for key, value in values.items():
            setattr(row, key, value)


def update_season(engine: Engine, competition: str, change: Callable[[StateRow, dict[str, Any]], _T]) -> _T:
    """Read, change and write a competition's state in one locked transaction: ``change``
    gets the row and a copy of its season (``{}`` when none) to change; the season is
    stored back; its answer is returned."""
    for attempt in range(2):
        try:
            with write_transaction(engine) as session:
                row = session.get(StateRow, competition, with_for_update=True)
                if row is None:
                    row = StateRow(competition=competition, paused=False, frozen=False, season=None)
                    session.add(row)
                    session.flush()
                season = dict(row.season or {})
                answer = change(row, season)
                row.season = season
                return answer
        except IntegrityError:   # two first writers of the row (PostgreSQL): the second reads the first's
            if attempt:
                raise
    raise AssertionError("unreachable")


def setting(engine: Engine, name: str) -> str | None:
    with Session(engine) as session:
        row = session.get(SettingRow, name)
        return None if row is None else row.value


def set_setting(engine: Engine, name: str, value: str | None) -> None:
    """Store (or, with None, remove) one of the arena's settings."""
    with Session(engine) as session, session.begin():
        row = session.get(SettingRow, name)
        if value is None:
            if row is not None:
                session.delete(row)
        elif row is None:
            session.add(SettingRow(name=name, value=value))
        else:
            row.value = value


def keep_stderr(engine: Engine, game_id: int, tails: Mapping[str, str]) -> None:
    """Keep the stderr tails (by bot name) of a stored game's ejected programs whose
    ejection reasons carry none."""
    if not tails:
        return
    with Session(engine) as session, session.begin():
        ids = dict(session.execute(select(BotRow.name, BotRow.id).where(BotRow.name.in_(list(tails)))).all())
        session.add_all(StderrRow(game_id=game_id, bot_id=ids[name], stderr=tail)
                        for name, tail in tails.items() if name in ids)
