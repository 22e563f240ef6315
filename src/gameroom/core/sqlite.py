"""The settings every SQLite database of gameroom opens with (the results database, the
lobby's journal), given to the DB-API connection SQLAlchemy makes."""

from __future__ import annotations

from typing import Any

__all__ = ["wal_pragmas"]


def wal_pragmas(connection: Any) -> None:
    """Write-ahead log with normal sync: a commit survives the process being killed (the
    kernel has it; only a power cut may lose the last commits), at a fraction of the cost
    of a full sync per commit; readers do not block the writer; a writer waits up to 30 s
    for another."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
