"""State changes decided by the database, for requests that race: a write transaction that
takes the write lock before it reads, and an insert that does nothing when its row exists.

On SQLite a transaction begins deferred: two requests both read "the code is unused",
then both write (the second may instead fail with "database is locked" when its snapshot
is stale, which a busy time-out cannot cure). :func:`write_transaction` begins with
``BEGIN IMMEDIATE`` there, so the second waits (the busy time-out) and then reads what the
first wrote; on PostgreSQL it is an ordinary transaction, in which the callers take row
locks (a conditional ``UPDATE ... WHERE used_by IS NULL``, ``SELECT ... FOR UPDATE``).
:func:`insert_missing` is ``INSERT ... ON CONFLICT DO NOTHING`` in either dialect: one
row, however many requests insert it at once, and no ``IntegrityError`` to map.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

__all__ = ["insert_missing", "write_transaction"]


@contextlib.contextmanager
def write_transaction(engine: Engine) -> Iterator[Session]:
    """A session in a transaction that holds the database's write lock from its start on
    SQLite (``BEGIN IMMEDIATE``); committed at the end of the block, rolled back on an
    exception."""
    with Session(engine) as session:
        if engine.dialect.name == "sqlite":   # the driver would begin only at the first write
            session.connection().exec_driver_sql("BEGIN IMMEDIATE")
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def insert_missing(session: Session, table: Any, values: dict[str, Any], keys: list[str]) -> bool:
    """Insert ``values`` into ``table`` (a mapped class) unless a row with the same unique
    ``keys`` exists; whether a row was inserted."""
    from sqlalchemy.dialects import postgresql, sqlite

    dialect = session.get_bind().dialect.name
    inserts: dict[str, Any] = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}
    insert = inserts.get(dialect)
    if insert is None:   # another database: look, then insert (the unique constraint still holds)
        from sqlalchemy import select

        found = session.scalar(select(table).filter_by(**{key: values[key] for key in keys}))
        if found is None:
            session.add(table(**values))
            session.flush()
        return found is None
    result = session.execute(insert(table).values(**values).on_conflict_do_nothing(index_elements=keys))
    return bool(getattr(result, "rowcount", 0))
