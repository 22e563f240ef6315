"""The web room's accounts in the results database (``gameroom web --db URL``): the
``accounts`` table that migration 0002 of ``league/migrations`` creates, beside the
league's tables, and its sessions (``account_sessions``, migration 0005_sessions). A key
and a name's skeleton are unique in the table itself, so two sign-ups of one name (or of
two names that look alike) at once cannot both succeed; the database decides."""

from __future__ import annotations

from datetime import datetime, timezone

import logging

from sqlalchemy import DateTime, Float, Integer, String, delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from gameroom.league.db import Base
from gameroom.web.accounts import SESSION_SECONDS, SESSIONS_KEPT, Account, AccountError, looks_like, name_skeleton

__all__ = ["AccountRow", "DatabaseAccounts", "SessionRow"]

logger = logging.getLogger(__name__)


class AccountRow(Base):
    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    key: Mapped[str] = mapped_column(String(200), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    stamp: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    skeleton: Mapped[str | None] = mapped_column(String(200), unique=True, nullable=True)


class SessionRow(Base):
    __tablename__ = "account_sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    account_key: Mapped[str] = mapped_column(String(200), index=True)
    opened_at: Mapped[float] = mapped_column(Float)


class DatabaseAccounts:
    """Accounts in the results database behind ``engine`` (every call is a short session)."""

    slow = True

    def __init__(self, engine: Engine, url: str) -> None:
        self.engine = engine
        self.where = f"in the results database {url}"
        self._fill_skeletons()

    def _fill_skeletons(self) -> None:
        """Give the accounts made before skeletons were kept theirs (a later one whose name
        looks like an earlier one's keeps none: both stay, and no third may join them)."""
        with Session(self.engine) as session:
            rows = session.scalars(select(AccountRow).where(AccountRow.skeleton.is_(None))
                                   .order_by(AccountRow.id)).all()
            taken = set(session.scalars(select(AccountRow.skeleton).where(AccountRow.skeleton.is_not(None))))
            for row in rows:
                skeleton = name_skeleton(row.name)
                if skeleton in taken:
                    logger.warning("account %r looks like an earlier account's name; both are kept", row.name)
                    continue
                row.skeleton = skeleton
                taken.add(skeleton)
            session.commit()

    def add(self, account: Account, password_hash: str) -> None:
        skeleton = account.skeleton
        try:
            with Session(self.engine) as session, session.begin():
                session.add(AccountRow(name=account.name, key=account.key, password_hash=password_hash,
                                       stamp=account.stamp, created_at=datetime.now(timezone.utc), skeleton=skeleton))
        except IntegrityError:
            with Session(self.engine) as session:
                taken = session.scalar(select(AccountRow.id).where(AccountRow.key == account.key))
            if taken is None:
                raise AccountError(409, looks_like(account.name)) from None
            raise AccountError(409, f"username {account.name!r} is taken") from None

    def find(self, key: str) -> tuple[Account, str] | None:
        with Session(self.engine) as session:
            row = session.scalar(select(AccountRow).where(AccountRow.key == key))
            return None if row is None else (Account(row.name, row.key, row.stamp), row.password_hash)

    def set_password(self, key: str, password_hash: str, stamp: str) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.scalar(select(AccountRow).where(AccountRow.key == key))
            if row is not None:
                row.password_hash, row.stamp = password_hash, stamp

    def open_session(self, key: str, digest: str, now: float) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(delete(SessionRow).where(SessionRow.account_key == key,
                                                     SessionRow.opened_at <= now - SESSION_SECONDS))
            kept = session.scalars(select(SessionRow.id).where(SessionRow.account_key == key)
                                   .order_by(SessionRow.opened_at.desc(), SessionRow.id.desc())
                                   .offset(SESSIONS_KEPT - 1)).all()
            if kept:
                session.execute(delete(SessionRow).where(SessionRow.id.in_(kept)))
            session.add(SessionRow(digest=digest, account_key=key, opened_at=now))

    def session(self, digest: str, now: float) -> tuple[Account, str] | None:
        with Session(self.engine) as session:
            row = session.execute(select(AccountRow).join(SessionRow, SessionRow.account_key == AccountRow.key)
                                  .where(SessionRow.digest == digest,
                                         SessionRow.opened_at > now - SESSION_SECONDS)).scalar()
            return None if row is None else (Account(row.name, row.key, row.stamp), row.password_hash)

    def close_session(self, digest: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(delete(SessionRow).where(SessionRow.digest == digest))

    def close_sessions(self, key: str, keep: str | None = None) -> int:
        with Session(self.engine) as session, session.begin():
            where = [SessionRow.account_key == key] + ([SessionRow.digest != keep] if keep is not None else [])
            result = session.execute(delete(SessionRow).where(*where))
            return int(getattr(result, "rowcount", 0) or 0)
