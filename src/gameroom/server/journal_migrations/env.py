"""Alembic environment of the lobby's journal: run programmatically by
``gameroom.server.journal_store.JournalStore``, which passes its connection in
``config.attributes``. Its own history, in its own version table (``journal_version``),
so a journal shares a database with the results (the web room's ``--db``) without the
two histories meeting."""

from alembic import context

from gameroom.server.journal_store import VERSION_TABLE, metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run the journal's migrations through gameroom.server.journal_store.JournalStore")
context.configure(connection=connection, target_metadata=metadata(), render_as_batch=True,
                  version_table=VERSION_TABLE)
with context.begin_transaction():
    context.run_migrations()
