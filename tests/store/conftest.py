"""The store under test, on SQLite and on PostgreSQL.

Each PostgreSQL test gets a database of its own, created on the server named by
``BODOGE_TEST_PG`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``) and
dropped afterwards, so parallel xdist workers never meet.  Where nothing answers
there, the PostgreSQL tests are skipped, unless ``CI`` is set: then they fail.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

import pytest

from bodoge.store import open_store, sqlite_url
from bodoge.store.sql import SqlStore

PG_ADMIN = os.environ.get("BODOGE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")

BACKENDS = ("sqlite", "postgresql")


def _pg_answers(dsn: str) -> bool:
    parts = urlsplit(dsn)
    socket_dir = parse_qs(parts.query).get("host", [""])[0]
    if socket_dir.startswith("/"):  # a Unix socket (scripts/test.sh starts one if need be)
        return Path(socket_dir, f".s.PGSQL.{parts.port or 5432}").exists()
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 5432), 2):
            return True
    except OSError:
        return False


async def _admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN, timeout=10)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture(params=BACKENDS)
async def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh, empty database's URL: a SQLite file, or a PostgreSQL database of its own."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
        return
    if not _pg_answers(PG_ADMIN):
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but no PostgreSQL answers at {PG_ADMIN}")
        pytest.skip(f"no PostgreSQL answers at {PG_ADMIN}")
    name = f"bodoge_test_{secrets.token_hex(6)}"
    await _admin(f'CREATE DATABASE "{name}"')
    try:
        parts = urlsplit(PG_ADMIN)
        yield urlunsplit(("postgresql+asyncpg", parts.netloc, f"/{name}", parts.query, ""))
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[SqlStore]:
    store = await open_store(store_url)
    yield store
    await store.close()
