"""Stored replays packed with Zstandard (``league.packing``) instead of zlib, and a replay
that a retention rule let go kept as NULL (``games.replay`` nullable; the game's rows stay).

Every zlib replay is packed again, a few at a time: a long Q game's 3.3 MB becomes about
190 KB. The text is the same, so the digest chain and ``games.digest`` hold as they were.
A blob that cannot be read (altered by hand) is left as it is, for ``replay verify`` to
report. A SQLite file keeps its size until ``VACUUM``; later games fill the space freed.

Revision ID: 0006_compressed_records
Revises: 0005_sessions
"""

import zlib
from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0006_compressed_records"
down_revision = "0005_sessions"
branch_labels = None
depends_on = None

BATCH = 50
games = sa.table("games", sa.column("id", sa.Integer), sa.column("replay", sa.LargeBinary))


def _repack(convert: Callable[[bytes], bytes | None]) -> None:
    """Every stored replay through ``convert`` (blob -> blob or None to leave it), by id."""
    bind = op.get_bind()
    last = 0
    while True:
        rows = bind.execute(sa.select(games.c.id, games.c.replay).where(games.c.id > last)
                            .order_by(games.c.id).limit(BATCH)).all()
        if not rows:
            return
        for game_id, blob in rows:
            new = convert(bytes(blob)) if blob is not None else None
            if new is not None:
                bind.execute(sa.update(games).where(games.c.id == game_id).values(replay=new))
        last = rows[-1][0]


def _to_zstd(blob: bytes) -> bytes | None:
    from gameroom.league.packing import is_packed, pack

    if is_packed(blob):
        return None
    try:
        return pack(zlib.decompress(blob).decode("utf-8"))
    except (zlib.error, UnicodeDecodeError):
        return None


def _to_zlib(blob: bytes) -> bytes | None:
    from gameroom.league.packing import is_packed, unpack

    if not is_packed(blob):
        return None
    try:
        return zlib.compress(unpack(blob).encode("utf-8"), 1)
    except (ValueError, UnicodeDecodeError):
        return None


def upgrade() -> None:
    _repack(_to_zstd)
    with op.batch_alter_table("games") as batch:
        batch.alter_column("replay", existing_type=sa.LargeBinary, nullable=True)


def downgrade() -> None:
    _repack(_to_zlib)
    op.execute(sa.update(games).where(games.c.replay.is_(None)).values(replay=zlib.compress(b"")))
    with op.batch_alter_table("games") as batch:
        batch.alter_column("replay", existing_type=sa.LargeBinary, nullable=False)
