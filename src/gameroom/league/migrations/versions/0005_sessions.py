"""The web room's sessions kept on the server (a session cookie names a token whose hash
is kept here, so that log-out, a password change and "sign out everywhere" end sessions
for good), and each account's name skeleton (UTS #39), unique, so that two names that look
alike cannot both be accounts. Skeletons of accounts made before are filled in by the web
room when it opens the database (``web.account_rows``): computing one needs the web extra.

Revision ID: 0005_sessions
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_sessions"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as accounts:
        accounts.add_column(sa.Column("skeleton", sa.String(200), nullable=True))
        accounts.create_unique_constraint("one_skeleton", ["skeleton"])
    op.create_table(
        "account_sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("account_key", sa.String(200), nullable=False, index=True),
        sa.Column("opened_at", sa.Float, nullable=False))


def downgrade() -> None:
    op.drop_table("account_sessions")
    with op.batch_alter_table("accounts") as accounts:
        accounts.drop_constraint("one_skeleton", type_="unique")
        accounts.drop_column("skeleton")
