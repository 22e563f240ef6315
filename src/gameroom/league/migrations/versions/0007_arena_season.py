"""The arena's season (``gameroom.arena.season``, ``final``, ``remote``): a bot entry that
staff disabled (and why), when its remote connection was last seen and why it last
dropped out; each competition's season state (the frozen table the finals are seeded
from, the scheduled freeze applied); every final kept in a row of its own (the one
``final`` of ``arena_state`` moves there as final 1); the stderr tail of each ejected
program whose ejection reason does not carry one (an illegal move); and the arena's own
settings (the remote port it chose, its heartbeat while it serves).

Revision ID: 0007_arena_season
Revises: 0006_compressed_records
"""

import json
from datetime import datetime, timezone

import sqlalchemy as sa
from alembic import op

revision = "0007_arena_season"
down_revision = "0006_compressed_records"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("arena_entries") as batch:
        batch.add_column(sa.Column("disabled", sa.Text, nullable=True))
        batch.add_column(sa.Column("seen_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("note", sa.Text, nullable=True))
    op.create_table(
        "arena_finals",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("competition", sa.String(32), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result", sa.JSON, nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("competition", "number", name="one_final_number"))
    op.create_table(
        "arena_stderr",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False, index=True),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bots.id"), nullable=False),
        sa.Column("stderr", sa.Text, nullable=False))
    op.create_table(
        "arena_settings",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False))
    bind = op.get_bind()
    state = sa.table("arena_state", sa.column("competition", sa.String), sa.column("final", sa.JSON))
    kept = sa.table("arena_finals", sa.column("competition", sa.String), sa.column("number", sa.Integer),
                    sa.column("format", sa.String), sa.column("status", sa.String), sa.column("result", sa.JSON),
                    sa.column("started_at", sa.DateTime(timezone=True)))
    for competition, final in bind.execute(sa.select(state.c.competition, state.c.final)).all():
        if final is None:
            continue
        result = json.loads(final) if isinstance(final, str) else final
        bind.execute(kept.insert().values(competition=competition, number=1, format=str(result.get("format", "?")),
                                          status="done", result=result, started_at=datetime.now(timezone.utc)))
    with op.batch_alter_table("arena_state") as batch:
        batch.drop_column("final")
        batch.add_column(sa.Column("season", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("arena_state") as batch:
        batch.drop_column("season")
        batch.add_column(sa.Column("final", sa.JSON, nullable=True))
    for table in ("arena_settings", "arena_stderr", "arena_finals"):
        op.drop_table(table)
    with op.batch_alter_table("arena_entries") as batch:
        for column in ("note", "seen_at", "disabled"):
            batch.drop_column(column)
