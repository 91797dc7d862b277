"""Fixtures of the cluster tests: private servers to restart, databases and namespaces of one's own.

Private servers (``tests/support/services.py``) are for tests that stop, kill or pause
them; the others use the shared PostgreSQL and Redis with a database and a namespace of
their own, so parallel workers never meet. Every fixture stops what it started, also when
the test failed.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import suppress

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from bodoge.cluster.namespace import Namespace
from bodoge.store.sql import SqlStore
from tests.support.databases import PG_ADMIN, REDIS, own_database, require
from tests.support.services import NginxServer, PostgresServer, RedisServer


@pytest.fixture
def namespace() -> Namespace:
    """A namespace nobody else uses."""
    return Namespace(f"test:{secrets.token_hex(5)}")


@pytest.fixture
def shared_redis() -> str:
    """The shared Redis server's URL (skipped where none answers, failed in CI)."""
    require(REDIS, 6379, "Redis")
    return REDIS


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A private ``redis-server``, to restart or kill."""
    with RedisServer() as server:
        yield server


@pytest.fixture
def postgres_server() -> Iterator[PostgresServer]:
    """A private PostgreSQL server, to restart or kill (about 2 s to make)."""
    with PostgresServer() as server:
        yield server


@pytest.fixture
def make_nginx() -> Iterator[Callable[[list[int]], NginxServer]]:
    """Start nginx load balancers over given upstream ports; all are stopped afterwards."""
    started: list[NginxServer] = []

    def make(upstreams: list[int]) -> NginxServer:
        server = NginxServer(upstreams)
        started.append(server)
        return server.start()

    yield make
    for server in started:
        with suppress(Exception):
            server.close()


@pytest.fixture
async def database_url() -> AsyncIterator[str]:
    """A database of its own on the shared PostgreSQL, with the store's schema."""
    require(PG_ADMIN, 5432, "PostgreSQL")
    async with own_database() as url:
        store = SqlStore(url)
        await store.start()  # makes the schema exactly as the server would
        await store.close()
        yield url


@pytest.fixture
async def make_engine() -> AsyncIterator[Callable[[str], AsyncEngine]]:
    """SQLAlchemy engines on given URLs, disposed afterwards (before their database is dropped)."""
    engines: list[AsyncEngine] = []

    def make(url: str) -> AsyncEngine:
        engine = create_async_engine(url)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        await engine.dispose()
