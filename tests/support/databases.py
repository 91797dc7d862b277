"""The shared PostgreSQL and Redis servers the tests use, and a database of one's own on them.

PostgreSQL is named by ``BODOGE_TEST_PG`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``; scripts/test.sh points it at a Unix
socket when it started Debian's server itself), Redis by ``BODOGE_TEST_REDIS`` (default
``redis://127.0.0.1:6379/0``). Where nothing answers, tests that need them are skipped,
unless ``CI`` is set: then they fail.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

import pytest

PG_ADMIN = os.environ.get("BODOGE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS = os.environ.get("BODOGE_TEST_REDIS", "redis://127.0.0.1:6379/0")


def answers(url: str, default_port: int) -> bool:
    """Whether something listens where ``url`` points (a TCP port or a Unix socket folder)."""
    parts = urlsplit(url)
    socket_dir = parse_qs(parts.query).get("host", [""])[0]
    if socket_dir.startswith("/"):  # a Unix socket (scripts/test.sh starts one if need be)
        return Path(socket_dir, f".s.PGSQL.{parts.port or default_port}").exists()
    try:
        with socket.create_connection(
            (parts.hostname or "127.0.0.1", parts.port or default_port), 2
        ):
            return True
    except OSError:
        return False


def require(url: str, default_port: int, what: str) -> None:
    """Skip the test where nothing answers at ``url`` (fail it in CI)."""
    if not answers(url, default_port):
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but no {what} answers at {url}")
        pytest.skip(f"no {what} answers at {url}")


async def admin(sql: str, dsn: str = PG_ADMIN) -> None:
    import asyncpg

    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@asynccontextmanager
async def own_database(dsn: str = PG_ADMIN) -> AsyncIterator[str]:
    """A new, empty database on the server of ``dsn``; its SQLAlchemy URL; dropped after."""
    name = f"bodoge_test_{secrets.token_hex(6)}"
    await admin(f'CREATE DATABASE "{name}"', dsn)
    try:
        parts = urlsplit(dsn)
        yield urlunsplit(("postgresql+asyncpg", parts.netloc, f"/{name}", parts.query, ""))
    finally:
        await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', dsn)
