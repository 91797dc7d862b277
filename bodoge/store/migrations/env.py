"""Alembic's environment: always given a connection by :mod:`bodoge.store.upgrade`."""

from __future__ import annotations

from alembic import context

from bodoge.store import schema

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=schema.metadata,
    # SQLite alters a table by copying it: batch mode does that where a revision asks.
    render_as_batch=connection.dialect.name == "sqlite",
    transaction_per_migration=False,
)
with context.begin_transaction():
    context.run_migrations()
