"""The arena's own tables (``gameroom.arena.tables``): members of competitions and their
roles, invite codes (hashed), bot entries (a remote bot's token hashed), each upload as a
version with its status and build log, and each competition's state (paused, frozen, its
final tournament).

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "arena_members",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("competition", sa.String(32), nullable=False),
        sa.Column("account_key", sa.String(200), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.UniqueConstraint("competition", "account_key", name="one_membership"))
    op.create_table(
        "arena_invites",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("competition", sa.String(32), nullable=False),
        sa.Column("code_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("used_by", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False))
    op.create_table(
        "arena_entries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("competition", sa.String(32), nullable=False, index=True),
        sa.Column("name", sa.String(32), nullable=False, unique=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False))
    op.create_table(
        "arena_versions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("entry_id", sa.Integer, sa.ForeignKey("arena_entries.id"), nullable=False, index=True),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("language", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("bot", sa.String(64), nullable=False, unique=True),
        sa.Column("spec", sa.JSON, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("entry_id", "number", name="one_version_number"))
    op.create_table(
        "arena_state",
        sa.Column("competition", sa.String(32), primary_key=True),
        sa.Column("paused", sa.Boolean, nullable=False),
        sa.Column("frozen", sa.Boolean, nullable=False),
        sa.Column("final", sa.JSON, nullable=True))


def downgrade() -> None:
    for table in ("arena_state", "arena_versions", "arena_entries", "arena_invites", "arena_members"):
        op.drop_table(table)
