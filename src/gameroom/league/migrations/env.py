"""Alembic environment of the results database: run programmatically by
``gameroom.league.db.open_database``, which passes its connection in ``config.attributes``."""

from alembic import context

from gameroom.league.db import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run the gameroom migrations through gameroom.league.db.open_database")
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
