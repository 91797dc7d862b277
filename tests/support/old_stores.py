"""Stores made by older releases (tests/store/fixtures/README.md): a copy to upgrade, and
what a store holds, read with plain SQL whatever its schema."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson
import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from bodoge.store import sqlite_url
from tests.support.databases import PG_ADMIN, own_database, require

FIXTURES = Path(__file__).resolve().parents[1] / "store" / "fixtures"
RELEASES = ("first", "accounts_before", "today")


def psql_url(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(("postgresql", parts.netloc, parts.path, parts.query, ""))


async def load_release(release: str, backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """The URL of a copy of the store ``release`` made (``empty``: a new database)."""
    if backend == "sqlite":
        if release == "empty":
            yield sqlite_url(tmp_path)
            return
        shutil.copy(FIXTURES / f"{release}.sqlite3", tmp_path / "bodoge.sqlite3")
        yield sqlite_url(tmp_path)
        return
    require(PG_ADMIN, 5432, "PostgreSQL")
    if shutil.which("psql") is None:
        pytest.skip("psql loads the PostgreSQL fixtures")
    async with own_database() as url:
        if release == "empty":
            yield url
            return
        subprocess.run(
            [
                "psql",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-f",
                str(FIXTURES / f"{release}.pg.sql"),
                psql_url(url),
            ],
            check=True,
            capture_output=True,
        )
        yield url


def _json(value: Any) -> Any:
    return orjson.loads(value) if isinstance(value, str | bytes) else value


async def contents(url: str) -> dict[str, Any]:
    """Every table's record, seats, moves and chat, read with plain SQL (any schema)."""
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:

            async def rows(sql: str) -> list[tuple[Any, ...]]:
                return [tuple(row) for row in await conn.execute(sa.text(sql))]

            tables = await rows(
                "SELECT id, game, options, settings, seed, status, host, created_at,"
                " started_at, finished_at, result, deadlines, clock_deadline FROM tables"
            )
            moves = await rows("SELECT table_id, n, seat, move, at, actor FROM moves")
            return {
                "tables": sorted(
                    (*t[:2], *map(_json, t[2:4]), *t[4:10], *map(_json, t[10:12]), t[12])
                    for t in tables
                ),
                "moves": sorted((*m[:3], _json(m[3]), *m[4:]) for m in moves),
                "seats": sorted(await rows("SELECT * FROM seats")),
                "chat": sorted(await rows("SELECT table_id, line, player, text, at FROM chat")),
                "players": sorted(await rows("SELECT id, name, token_hash FROM players")),
            }
    finally:
        await engine.dispose()
