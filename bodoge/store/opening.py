"""Opening a database: its URL, its engine, and SQLite's settings on every connection.

>>> sqlite_url("/tmp/bodoge-data")
'sqlite+aiosqlite:////tmp/bodoge-data/bodoge.sqlite3'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

SQLITE_BUSY_TIMEOUT_MS = 5000


def sqlite_url(data_dir: str | os.PathLike[str]) -> str:
    """The default database: ``bodoge.sqlite3`` in the data folder."""
    return f"sqlite+aiosqlite:///{Path(data_dir) / 'bodoge.sqlite3'}"


def sqlite_pragmas(dbapi_connection: Any, _record: Any = None) -> None:
    # WAL lets readers run beside the writer; synchronous=NORMAL in WAL mode
    # still survives a crash of the process (only a power cut may lose the
    # last commits), and the busy timeout covers a second process on the file.
    # Checkpoints (the fsyncs) would stall whichever commit triggers them, and
    # every table waits on the one writer: a background task does them instead.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.close()


def make_engine(url: str) -> AsyncEngine:
    """SQLAlchemy's engine for ``url`` (SQLite's connections with :func:`sqlite_pragmas`)."""
    is_sqlite = sa.engine.make_url(url).get_backend_name() == "sqlite"
    # SQLite's driver opens no transaction for reads, so the pool's rollback on each
    # return would only cost another hop to the database thread.
    options: dict[str, Any] = {"pool_reset_on_return": None} if is_sqlite else {}
    engine = create_async_engine(url, **options)
    if is_sqlite:
        event.listen(engine.sync_engine, "connect", sqlite_pragmas)
    return engine


def sqlite_file(url: str) -> str | None:
    """The database file of a SQLite URL; ``None`` for an in-memory database (it lives in
    the engine's one connection) or any other database."""
    parsed = sa.engine.make_url(url)
    path = parsed.database
    if parsed.get_backend_name() == "sqlite" and path and path != ":memory:" and not parsed.query:
        return path
    return None
