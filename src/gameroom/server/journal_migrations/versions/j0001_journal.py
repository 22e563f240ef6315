"""The lobby's journal: its rooms, the entries of their games, and its own values.

Revision ID: j0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "j0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "journal_meta",
        sa.Column("key", sa.String(32), primary_key=True),
        sa.Column("value", sa.Text, nullable=False))
    op.create_table(
        "journal_rooms",
        sa.Column("room", sa.Integer, primary_key=True),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("crc", sa.BigInteger, nullable=False))
    op.create_table(
        "journal_entries",
        sa.Column("room", sa.Integer, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("crc", sa.BigInteger, nullable=False))


def downgrade() -> None:
    op.drop_table("journal_entries")
    op.drop_table("journal_rooms")
    op.drop_table("journal_meta")
