"""The web room's accounts in the results database (``gameroom web --db URL``): the
``accounts`` table that migration 0002 of ``league/migrations`` creates, beside the
league's tables. A key is unique in the table itself, so two sign-ups of one name at once
cannot both succeed."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import DateTime, Integer, String, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from gameroom.league.db import Base
from gameroom.web.accounts import Account, AccountError

__all__ = ["AccountRow", "DatabaseAccounts"]


class AccountRow(Base):
    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    key: Mapped[str] = mapped_column(String(200), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    stamp: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DatabaseAccounts:
    """Accounts in the results database behind ``engine`` (every call is a short session)."""

    slow = True

    def __init__(self, engine: Engine, url: str) -> None:
        self.engine = engine
        self.where = f"in the results database {url}"

    def add(self, account: Account, password_hash: str) -> None:
        try:
            with Session(self.engine) as session, session.begin():
                session.add(AccountRow(name=account.name, key=account.key, password_hash=password_hash,
                                       stamp=account.stamp, created_at=datetime.now(timezone.utc)))
        except IntegrityError:
            raise AccountError(409, f"username {account.name!r} is taken") from None

    def find(self, key: str) -> tuple[Account, str] | None:
        with Session(self.engine) as session:
            row = session.scalar(select(AccountRow).where(AccountRow.key == key))
            return None if row is None else (Account(row.name, row.key, row.stamp), row.password_hash)
