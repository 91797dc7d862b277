"""Alembic's environment: always given a connection by :mod:`bodoge.store.upgrade`."""

from __future__ import annotations

from alembic import context

from bodoge.store import schema


def run() -> None:
    """Alembic's run of the revisions, on the connection the upgrade gave it."""
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


# Alembic runs this file with its context set; anything else that imports it (pytest's
# doctest collector walks the package) finds no context and runs nothing.
if hasattr(context, "config"):
    run()
