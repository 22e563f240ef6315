"""Scopes: a lobby's rooms and a web room's own matches side by side in one journal.

Every table gains ``scope`` (``lobby`` or ``web``) at the head of its primary key; the rows
a j0001 journal holds are a lobby's. A table's primary key cannot be altered in place on
SQLite, so each table is made anew, filled from the old one, and takes its name.

Revision ID: j0002
Revises: j0001
"""

import sqlalchemy as sa
from alembic import op

revision = "j0002"
down_revision = "j0001"
branch_labels = None
depends_on = None

# Each table's columns after its key, as j0001 made them; and its key.
_COLUMNS = {
    "journal_meta": (("key", lambda: sa.String(32)), ("value", lambda: sa.Text)),
    "journal_rooms": (("room", lambda: sa.Integer), ("body", lambda: sa.Text), ("crc", lambda: sa.BigInteger)),
    "journal_entries": (("room", lambda: sa.Integer), ("seq", lambda: sa.Integer), ("at", lambda: sa.Float),
                        ("kind", lambda: sa.String(16)), ("body", lambda: sa.Text), ("crc", lambda: sa.BigInteger)),
}
_KEYS = {"journal_meta": ("key",), "journal_rooms": ("room",), "journal_entries": ("room", "seq")}


def _remake(table: str, scoped: bool, key_name: str) -> None:
    """``table`` made again with (or, going down, without) the scope column; its rows kept
    (going down, the lobby's only)."""
    new = f"{table}_remade"
    columns = [sa.Column(name, kind(), nullable=False) for name, kind in _COLUMNS[table]]
    key = (("scope",) if scoped else ()) + _KEYS[table]
    op.create_table(new, *([sa.Column("scope", sa.String(8), nullable=False)] if scoped else []), *columns,
                    sa.PrimaryKeyConstraint(*key, name=key_name))
    names = ", ".join(name for name, _kind in _COLUMNS[table])
    if scoped:
        op.execute(f"INSERT INTO {new} (scope, {names}) SELECT 'lobby', {names} FROM {table}")
    else:
        op.execute(f"INSERT INTO {new} ({names}) SELECT {names} FROM {table} WHERE scope = 'lobby'")
    op.drop_table(table)
    op.rename_table(new, table)


def upgrade() -> None:
    for table in _COLUMNS:
        _remake(table, True, f"pk_{table}")


def downgrade() -> None:
    for table in _COLUMNS:
        _remake(table, False, f"{table}_pkey")
