"""The store's schema version, and its upgrade: one process migrates, the others wait.

Opening a store (:meth:`SqlStore.start`), cluster mode's start-up and ``bodoge db upgrade``
all call :func:`upgrade`.  A store already at the newest version known here is only read
(no lock).  Otherwise one process at a time takes the schema lock — a PostgreSQL advisory
lock held by the migrating transaction, or an exclusive ``flock`` on ``<file>.lock`` beside
a SQLite file — reads the version again (another process may have just migrated), and
migrates: a store made before migrations (no version table) is first brought to the
baseline by :mod:`bodoge.store.migrations.legacy` and stamped, then Alembic runs the
revisions after it.  PostgreSQL's DDL is transactional, and SQLite's is run inside one
explicit transaction too: an upgrade cut short leaves the store as it was.

A store at a version this code does not know was upgraded by a newer bodoge:
:class:`SchemaTooNew` says so, naming both versions, and the process does not serve it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bodoge.store.migrations import legacy

SCRIPTS = Path(__file__).with_name("migrations")
#: The revision a store made before migrations is stamped with once it matches it.
BASELINE = "0001"
#: The advisory lock key that serialises schema upgrades of processes starting together
#: (cluster mode took it for its tables before there were migrations: the same key).
SCHEMA_LOCK = 0x626F646F6765  # "bodoge"


class SchemaTooNew(RuntimeError):
    """The store's schema is at a version this code does not know (a newer bodoge's)."""

    def __init__(self, found: str, newest: str) -> None:
        super().__init__(
            f"the store's schema is at version {found}, newer than this bodoge knows"
            f" (its newest is {newest}): a newer bodoge upgraded it. Run that version,"
            " or restore a backup taken before the upgrade."
        )
        self.found = found
        self.newest = newest


@dataclass(frozen=True)
class Revision:
    revision: str
    down_revision: str | None
    doc: str


def _config(connection: sa.Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(_config())


def head() -> str:
    """The newest schema version this code knows."""
    found = scripts().get_current_head()
    assert found is not None
    return found


def history() -> list[Revision]:
    """Every revision, newest first."""
    return [
        Revision(
            str(script.revision),
            script.down_revision if isinstance(script.down_revision, str) else None,
            (script.doc or "").strip(),
        )
        for script in scripts().walk_revisions()
    ]


def _known(revision: str) -> bool:
    return revision in {r.revision for r in history()}


def _version(conn: sa.Connection) -> str | None:
    """The version stamped in the store (``None``: empty, or made before migrations)."""
    return MigrationContext.configure(conn).get_current_revision()


async def current(engine: AsyncEngine) -> str | None:
    """The store's schema version; ``None`` for an empty store or one made before migrations."""
    async with engine.connect() as conn:
        return await conn.run_sync(_version)


async def refuse_newer(url: str) -> None:
    """Raise :class:`SchemaTooNew` if the store at ``url`` is newer than this code (before a
    server binds its port: an operator reads one line, not a failed start-up's traceback)."""
    from sqlalchemy.ext.asyncio import create_async_engine

    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        return  # a new store, made at the newest version
    engine = create_async_engine(url)
    try:
        found = await current(engine)
    finally:
        await engine.dispose()
    if found is not None and not _known(found):
        raise SchemaTooNew(found, head())


async def upgrade(engine: AsyncEngine) -> str:
    """Bring the store at ``engine`` to the newest version known here; return that version.

    Raises :class:`SchemaTooNew` for a store a newer bodoge upgraded.
    """
    newest = head()
    found = await current(engine)
    if found == newest:
        return newest
    if found is not None and not _known(found):
        raise SchemaTooNew(found, newest)
    async with _locked(engine) as conn:
        await conn.run_sync(_migrate, newest)
    return newest


def _migrate(conn: sa.Connection, newest: str) -> None:
    """Under the schema lock: migrate unless another process just did."""
    sqlite = conn.dialect.name == "sqlite"
    if sqlite:
        # Off before the transaction begins (SQLite ignores it inside one): a revision that
        # rebuilds a table drops the old one, which would otherwise delete its children's rows.
        conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    try:
        found = _version(conn)
        if found == newest:
            return
        if found is not None and not _known(found):
            raise SchemaTooNew(found, newest)
        if found is None and legacy.is_legacy(conn):
            legacy.to_baseline(conn)
            MigrationContext.configure(conn).stamp(scripts(), BASELINE)
        command.upgrade(_config(conn), "head")
        if sqlite:
            broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise RuntimeError(f"the upgrade broke foreign keys: {broken[:5]}")
            conn.commit()  # PostgreSQL's commits as the locked block ends
    finally:
        if sqlite:
            conn.rollback()  # nothing left after the commit; all of it after a failure
            conn.exec_driver_sql("PRAGMA foreign_keys=ON")


@contextlib.asynccontextmanager
async def _locked(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection holding the schema lock until the block ends."""
    if engine.dialect.name == "postgresql":
        async with engine.begin() as conn:
            # Released with the transaction: by its commit, or by the server if we die.
            await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
            yield conn
        return
    path = engine.url.database if engine.dialect.name == "sqlite" else None
    if not path or path == ":memory:":  # a database only this process sees
        async with engine.connect() as conn:
            yield conn
        return
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        # Released when the file is closed, or by the kernel if we die.
        await asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX)
        async with engine.connect() as conn:
            yield conn
    finally:
        os.close(fd)


def _differences(conn: sa.Connection) -> list[object]:
    from alembic.autogenerate import compare_metadata

    from bodoge.store import schema

    context = MigrationContext.configure(
        conn, opts={"compare_type": True, "compare_server_default": True}
    )
    return list(compare_metadata(context, schema.metadata))


async def differences(engine: AsyncEngine) -> list[object]:
    """What differs between the store's schema and ``bodoge/store/schema.py`` (as
    ``alembic check`` sees it): empty when every schema change has its migration."""
    async with engine.connect() as conn:
        return await conn.run_sync(_differences)
