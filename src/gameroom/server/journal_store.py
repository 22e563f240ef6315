"""Where the lobby's journal is kept (``server.journal``): a SQLite file by default,
PostgreSQL (psycopg) or any SQLAlchemy URL otherwise, in three tables created and upgraded
by the Alembic migrations shipped in ``gameroom/server/journal_migrations`` (their own
history and version table, ``journal_version``, so the journal may share the results
database of a web room):

* ``journal_meta``: the journal's own values (its format, the lobby's base seed, the games
  started, the last moment the lobby was known alive, whether it stopped cleanly);
* ``journal_rooms``: one row per room, its settings and seats as JSON;
* ``journal_entries``: the steps of each room's game in order (``room``, ``seq``).

Every row belongs to a *scope*: ``lobby`` (a lobby's rooms) or ``web`` (a web room's own
matches, ``web.match_journal``), so one database may hold a lobby's journal and a web
room's side by side (a lobby's ``--state`` and a web room's ``--db`` naming one PostgreSQL
database); a store reads and writes its own scope only.

Every row carries the CRC-32 of what it says, checked when the journal is read: a row
damaged on disk is found (and what follows it in its room is not replayed) rather than
replayed wrong. A batch of changes is one transaction (:meth:`JournalStore.write`), so a
half-written batch cannot be read back: SQLite's write-ahead log checksums its frames and
ignores a torn tail, PostgreSQL commits or not.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from gameroom.core.errors import GameroomError
from gameroom.core.sqlite import wal_pragmas

if TYPE_CHECKING:   # SQLAlchemy is imported only when a journal is used
    from sqlalchemy import MetaData

__all__ = ["JournalStore", "JournalError", "Loaded", "StoredEntry", "metadata", "VERSION_TABLE", "journal_url",
           "checksum", "SCOPES"]

VERSION_TABLE = "journal_version"
HEAD = "j0002"
"""The newest revision of the journal's migrations (a journal at it opens without Alembic,
whose import costs a restart half a second; ``tests/lobby/test_journal.py`` checks it is the
migrations' head)."""
MIGRATIONS = Path(__file__).with_name("journal_migrations")
SCOPES = ("lobby", "web")
"""Whose rows a store reads and writes: a lobby's rooms, or a web room's own matches."""
# A database server that does not answer would otherwise hold the lobby's start for the
# kernel's TCP time-out.
_CONNECT_TIMEOUT_S = 10


class JournalError(GameroomError):
    """The journal cannot be opened, read or written (the message says why, in one line)."""


def metadata() -> MetaData:
    """The journal's tables (SQLAlchemy's ``MetaData``; imported only when a journal is used)."""
    global _METADATA
    if _METADATA is None:
        _METADATA = _tables()
    return _METADATA


_METADATA: MetaData | None = None


def _tables() -> MetaData:
    from sqlalchemy import BigInteger, Column, Float, Integer, MetaData, String, Table, Text

    metadata = MetaData()   # as the newest revision (j0002) leaves them
    Table("journal_meta", metadata, Column("scope", String(8), primary_key=True),
          Column("key", String(32), primary_key=True), Column("value", Text, nullable=False))
    Table("journal_rooms", metadata, Column("scope", String(8), primary_key=True),
          Column("room", Integer, primary_key=True), Column("body", Text, nullable=False),
          Column("crc", BigInteger, nullable=False))
    Table("journal_entries", metadata, Column("scope", String(8), primary_key=True),
          Column("room", Integer, primary_key=True), Column("seq", Integer, primary_key=True),
          Column("at", Float, nullable=False), Column("kind", String(16), nullable=False),
          Column("body", Text, nullable=False), Column("crc", BigInteger, nullable=False))
    return metadata


def checksum(*parts: Any) -> int:
    """The CRC-32 of a row's fields, as written."""
    return zlib.crc32("\x1f".join(str(part) for part in parts).encode("utf-8", "surrogatepass"))


def journal_url(where: str) -> str:
    """A SQLAlchemy URL for ``where``: a URL as it is, a file name as a SQLite file."""
    return where if "://" in where else f"sqlite:///{where}"


@dataclass(frozen=True)
class StoredEntry:
    """One step of a room's game as read back."""

    seq: int
    at: float
    kind: str
    body: dict[str, Any]


@dataclass
class Loaded:
    """What a journal holds: its values, each room's row and entries (in order), and what
    was found damaged (one description per room)."""

    meta: dict[str, str] = field(default_factory=dict)
    rooms: dict[int, dict[str, Any]] = field(default_factory=dict)
    entries: dict[int, list[StoredEntry]] = field(default_factory=dict)
    damaged: list[str] = field(default_factory=list)


class JournalStore:
    """One journal database, opened (and migrated to the newest revision) at once; its
    rows of ``scope`` (one of :data:`SCOPES`)."""

    def __init__(self, where: str, scope: str = "lobby") -> None:
        assert scope in SCOPES, scope
        self.scope = scope
        try:
            import alembic  # noqa: F401
            import sqlalchemy  # noqa: F401
        except ImportError:
            raise JournalError("the journal needs SQLAlchemy and Alembic: pip install 'gameroom[state]'") from None
        from sqlalchemy import create_engine, event
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError, SQLAlchemyError

        url = journal_url(where)
        self.where = where
        try:
            parsed = make_url(url)
        except (ArgumentError, ValueError) as exc:
            raise JournalError(f"bad journal URL {where!r}: {exc}") from None
        sqlite = parsed.get_backend_name() == "sqlite"
        if sqlite and (parsed.database in (None, "", ":memory:")):
            raise JournalError(f"{where!r} is an in-memory database: a journal must outlive the lobby; give a file")
        args = {"connect_timeout": _CONNECT_TIMEOUT_S} if parsed.get_backend_name() == "postgresql" else {}
        try:
            self.engine = create_engine(url, connect_args=args)
        except (ArgumentError, ImportError, ValueError) as exc:
            raise JournalError(f"bad journal URL {where!r}: {exc}") from None
        if sqlite:
            @event.listens_for(self.engine, "connect")
            def pragmas(connection: Any, _record: Any) -> None:
                wal_pragmas(connection)   # a commit survives the lobby being killed
        try:
            with self.engine.begin() as connection:
                current = self._revision(connection)
                if current != HEAD:   # a new journal, or an older one: migrated (Alembic)
                    if sqlite:   # what a migration drops (j0001's plain secrets) is overwritten, not left free
                        connection.exec_driver_sql("PRAGMA secure_delete = ON")
                    _migrate(connection, current, where)
                    if sqlite:
                        connection.exec_driver_sql("PRAGMA secure_delete = OFF")
        except JournalError:
            self.engine.dispose()
            raise
        except SQLAlchemyError as exc:
            self.engine.dispose()
            raise JournalError(f"cannot open the journal {where}: {_one_line(exc)}") from None
        self.tables = metadata().tables
        if sqlite and parsed.database and Path(parsed.database).is_file():
            # it holds the reconnect secrets of held seats: its owner's alone
            Path(parsed.database).chmod(0o600)

    @staticmethod
    def _revision(connection: Any) -> str | None:
        from sqlalchemy import inspect, text

        if not inspect(connection).has_table(VERSION_TABLE):
            return None
        found = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()
        return None if found is None else str(found)

    def load(self) -> Loaded:
        """Everything the journal holds; rows whose checksum fails are left out and said
        in ``damaged`` (a room's entries stop at its first damaged one)."""
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        loaded = Loaded()
        meta, rooms, entries = (self.tables[name] for name in ("journal_meta", "journal_rooms", "journal_entries"))
        try:
            with self.engine.connect() as connection:
                scope = self.scope
                loaded.meta = {row.key: row.value
                               for row in connection.execute(select(meta).where(meta.c.scope == scope))}
                for row in connection.execute(select(rooms).where(rooms.c.scope == scope)):
                    if checksum(row.room, row.body) != row.crc:
                        loaded.damaged.append(f"room {row.room}: its row is damaged; the room is left out")
                        continue
                    loaded.rooms[row.room] = json.loads(row.body)
                broken: set[int] = set()
                for row in connection.execute(select(entries).where(entries.c.scope == scope)
                                              .order_by(entries.c.room, entries.c.seq)):
                    if row.room in broken:
                        continue
                    steps = loaded.entries.setdefault(row.room, [])
                    expected = steps[-1].seq + 1 if steps else 0
                    body = _json(row.body)
                    if checksum(row.room, row.seq, row.at, row.kind, row.body) != row.crc or body is None \
                            or row.seq != expected:
                        broken.add(row.room)
                        loaded.damaged.append(f"room {row.room}: entry {row.seq} is damaged or missing; the game "
                                              f"resumes from its last whole step ({len(steps)})")
                        continue
                    steps.append(StoredEntry(row.seq, row.at, row.kind, body))
        except SQLAlchemyError as exc:
            raise JournalError(f"cannot read the journal {self.where}: {_one_line(exc)}") from None
        return loaded

    def write(self, rooms: dict[int, str | None], entries: Iterable[tuple[int, int, float, str, str]],
              meta: dict[str, str], cut: Iterable[tuple[int, int]] = ()) -> None:
        """One batch in one transaction: rooms' rows (None: the room is gone, with its
        entries), new entries (room, seq, at, kind, JSON body), values, and entries cut
        from a room (room, first seq dropped: a damaged tail)."""
        from sqlalchemy import delete
        from sqlalchemy.exc import SQLAlchemyError

        meta_t, rooms_t, entries_t = (self.tables[name] for name in ("journal_meta", "journal_rooms",
                                                                      "journal_entries"))
        scope = self.scope
        rows = [{"scope": scope, "room": r, "seq": s, "at": at, "kind": k, "body": b, "crc": checksum(r, s, at, k, b)}
                for r, s, at, k, b in entries]
        try:
            with self.engine.begin() as connection:
                for room, seq in cut:
                    connection.execute(delete(entries_t).where(entries_t.c.scope == scope, entries_t.c.room == room,
                                                               entries_t.c.seq >= seq))
                gone = [room for room, body in rooms.items() if body is None]
                if rooms:
                    connection.execute(delete(rooms_t).where(rooms_t.c.scope == scope,
                                                             rooms_t.c.room.in_(list(rooms))))
                if gone:
                    connection.execute(delete(entries_t).where(entries_t.c.scope == scope,
                                                               entries_t.c.room.in_(gone)))
                kept = [{"scope": scope, "room": room, "body": body, "crc": checksum(room, body)}
                        for room, body in rooms.items() if body is not None]
                if kept:
                    connection.execute(rooms_t.insert(), kept)
                if rows:
                    connection.execute(entries_t.insert(), rows)
                if meta:
                    connection.execute(delete(meta_t).where(meta_t.c.scope == scope, meta_t.c.key.in_(list(meta))))
                    connection.execute(meta_t.insert(), [{"scope": scope, "key": k, "value": v}
                                                         for k, v in meta.items()])
        except SQLAlchemyError as exc:
            raise JournalError(f"cannot write the journal {self.where}: {_one_line(exc)}") from None

    def close(self) -> None:
        self.engine.dispose()


def _migrate(connection: Any, current: str | None, where: str) -> None:
    """The journal brought to the newest revision, or JournalError for a revision this
    gameroom does not know (a newer one wrote it)."""
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    if current is not None and not _known(config, current):
        raise JournalError(f"the journal {where} is of version {current}, which this gameroom does not know (its "
                           f"newest is {head}): a newer gameroom wrote it; run that one, or move the journal aside "
                           "to start afresh")
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def newest_revision() -> str:
    """The head of the journal's migrations, as Alembic reads them."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def _known(config: Any, revision: str) -> bool:
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    try:
        return ScriptDirectory.from_config(config).get_revision(revision) is not None
    except CommandError:
        return False


def _json(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _one_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None)
    return " ".join(str(orig if orig is not None else exc).split())[:300]
