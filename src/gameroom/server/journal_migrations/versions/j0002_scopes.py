"""Scopes, and no reconnect secret in plain text.

* Every table gains ``scope`` (``lobby`` or ``web``: a lobby's rooms and a web room's own
  matches side by side in one journal) at the head of its primary key; the rows a j0001
  journal holds are a lobby's. A table's primary key cannot be altered in place on SQLite,
  so each table is made anew, filled from the old one, and takes its name.
* A held seat's reconnect secret (a room row's seat ``secret``) is replaced by its digest
  (``secret_sha256``, ``server.lobby_identity.secret_digest``), the row's checksum made
  again; a row whose checksum already failed is left as it is (read as damaged). Going
  down, the digests are dropped: a digest gives no secret back (such a held seat then goes
  back by its account or its address).

Revision ID: j0002
Revises: j0001
"""

import json

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


def _seats(change: str) -> None:
    """Each room row's seats with their secrets turned into digests (``change`` ``"up"``)
    or their digests dropped (``"down"``), its checksum made again."""
    from gameroom.server.journal_store import checksum
    from gameroom.server.lobby_identity import secret_digest

    bind = op.get_bind()
    for room, body, crc in bind.execute(sa.text("SELECT room, body, crc FROM journal_rooms")).fetchall():
        if checksum(room, body) != crc:
            continue
        try:
            row = json.loads(body)
        except ValueError:
            continue
        changed = False
        for seat in row.get("seats", []) if isinstance(row, dict) else []:
            if not isinstance(seat, dict):
                continue
            if change == "up" and "secret" in seat:
                secret = seat.pop("secret")
                seat["secret_sha256"] = secret_digest(secret) if isinstance(secret, str) else None
                changed = True
            elif change == "down" and "secret_sha256" in seat:
                del seat["secret_sha256"]
                seat["secret"] = None
                changed = True
        if changed:
            text = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
            bind.execute(sa.text("UPDATE journal_rooms SET body = :body, crc = :crc WHERE room = :room"),
                         {"body": text, "crc": checksum(room, text), "room": room})


def upgrade() -> None:
    _seats("up")
    for table in _COLUMNS:
        _remake(table, True, f"pk_{table}")


def downgrade() -> None:
    for table in _COLUMNS:
        _remake(table, False, f"{table}_pkey")
    _seats("down")
