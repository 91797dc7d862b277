"""The store under test, on SQLite and on PostgreSQL.

Each PostgreSQL test gets a database of its own (``tests/support/databases.py``), dropped
afterwards, so parallel xdist workers never meet.  Where no PostgreSQL answers, the
PostgreSQL tests are skipped, unless ``CI`` is set: then they fail.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bodoge.store import open_store, sqlite_url
from bodoge.store.sql import SqlStore
from tests.support.databases import PG_ADMIN, own_database, require

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(params=BACKENDS)
async def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh, empty database's URL: a SQLite file, or a PostgreSQL database of its own."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
        return
    require(PG_ADMIN, 5432, "PostgreSQL")
    async with own_database() as url:
        yield url


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[SqlStore]:
    store = await open_store(store_url)
    yield store
    await store.close()
