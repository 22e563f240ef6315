"""The results database: bots, leagues, games, seats, results, ejections, ratings.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("spec", sa.JSON, nullable=False))
    op.create_table(
        "leagues",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("planned", sa.Integer, nullable=False),
        sa.Column("config", sa.JSON, nullable=False))
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game", sa.String(32), nullable=False, index=True),
        sa.Column("league_id", sa.Integer, sa.ForeignKey("leagues.id"), nullable=True),
        sa.Column("index", sa.Integer, nullable=True),
        sa.Column("tournament", sa.String(200), nullable=True),
        sa.Column("seed", sa.Integer, nullable=True),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("replay", sa.LargeBinary, nullable=False),
        sa.UniqueConstraint("league_id", "index", name="one_game_per_league_index"))
    op.create_table(
        "seats",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False, index=True),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bots.id"), nullable=False))
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False, index=True),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bots.id"), nullable=False, index=True),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("score", sa.JSON, nullable=True),
        sa.Column("winner", sa.Boolean, nullable=False),
        sa.Column("ejected", sa.Boolean, nullable=False))
    op.create_table(
        "ejections",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False, index=True),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bots.id"), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("method", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("reason", sa.Text, nullable=False))
    op.create_table(
        "ratings",
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bots.id"), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("ordinal", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("ejections", sa.Integer, nullable=False))


def downgrade() -> None:
    for table in ("ratings", "ejections", "results", "seats", "games", "leagues", "bots"):
        op.drop_table(table)
