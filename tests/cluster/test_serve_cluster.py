"""Servers in cluster mode, in-process on the shared PostgreSQL and Redis: ownership wired in.

Each test has a database and a namespace of its own. Two :class:`Server` objects in one
event loop stand for two processes; connections are driven frame by frame (``Tab``).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from starlette.applications import Starlette

from bodoge.cluster.namespace import Namespace
from bodoge.server.api import api_routes
from bodoge.server.config import ServerConfig
from bodoge.server.metrics import health
from bodoge.server.service import Server
from bodoge.store import Fenced, MoveRecord, SeatRecord, TableRecord
from bodoge.store.sql import SqlStore
from tests.games.relay.game import RelayGame
from tests.server.test_tables import Tab
from tests.support.services import PostgresServer

Make = Callable[..., Any]


@pytest.fixture
async def make_node(
    database_url: str, shared_redis: str, namespace: Namespace
) -> AsyncIterator[Make]:
    """Cluster servers on one database and namespace; all are stopped afterwards."""
    servers: list[Server] = []

    async def make(**config: Any) -> Server:
        settings = {
            "db_url": database_url,
            "redis_url": shared_redis,
            "redis_namespace": namespace.prefix,
            "bot_delay": 0.0,
            "bot_workers": 0,
            "games": {"relay": RelayGame()},
            "lease_seconds": 1.0,
            **config,
        }
        server = Server(ServerConfig(**settings))
        await server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        await server.stop()


async def _players(server: Server, count: int) -> list[Tab]:
    tabs = []
    for i in range(count):
        tab = Tab(server)
        welcome = await tab.ok("hello", name=f"p{i}")
        tab.player, tab.token = welcome["player"], welcome["token"]
        tabs.append(tab)
    return tabs


async def _relay(tabs: list[Tab], **options: Any) -> str:
    table = (
        await tabs[0].ok("table.create", game="relay", options={"players": len(tabs), **options})
    )["table"]
    for tab in tabs[1:]:
        await tab.ok("table.join", table=table)
    for tab in tabs:
        await tab.ok("table.open", table=table)
    await tabs[0].ok("table.start", table=table)
    return table


async def _owner(server: Server, table: str) -> tuple[str | None, int]:
    async with server.store.engine.connect() as conn:  # type: ignore[attr-defined]
        row = (
            await conn.execute(
                sa.text("SELECT owner, owner_epoch FROM tables WHERE id = :t"), {"t": table}
            )
        ).one()
    return row[0], row[1]


async def _moves(server: Server, table: str) -> list[int]:
    bundle = await server.store.load_table(table)
    assert bundle is not None
    return [m.n for m in bundle.moves]


async def _until(condition: Callable[[], Any], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_a_new_table_is_its_makers_and_unavailable_elsewhere(make_node: Make) -> None:
    a, b = await make_node(), await make_node()
    tabs = await _players(a, 2)
    table = await _relay(tabs)
    assert await _owner(a, table) == (a.process, 1)
    said = await tabs[0].ok("move", table=table, move={"type": "say", "word": "ringo"})
    assert said["n"] == 1 and await _moves(a, table) == [1]

    (elsewhere,) = await _players(b, 1)
    refused = await elsewhere.request("table.open", table=table)
    assert refused["type"] == "error" and refused["code"] == "table_unavailable"
    assert table not in b.tables.live and await _owner(a, table) == (a.process, 1)
    http = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=Starlette(routes=api_routes(b))), base_url="http://b"
    )
    async with http:
        for path in (f"/api/tables/{table}", f"/api/tables/{table}/history"):
            answer = await http.get(path)
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"]["code"] == "table_unavailable"

    status, body = await health(a.process, a.probes())
    assert status == 200 and body["redis"]["ok"] and body["database"]["ok"]


async def test_a_stale_owner_is_fenced_and_lets_go(make_node: Make) -> None:
    a, b = await make_node(), await make_node()
    tabs = await _players(a, 3)
    table = await _relay(tabs, vote_seconds=0.3)  # a rule clock: the table moves by itself
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "ringo"})
    # a stops renewing (as if paused): its lease runs out and b takes the table over.
    await a.cluster.ownership.stop()
    async with a.store.engine.begin() as conn:  # type: ignore[attr-defined]
        await conn.execute(
            sa.text("UPDATE cluster_processes SET expires_at = 0 WHERE id = :me"),
            {"me": a.process},
        )
    b.cluster.ownership.wake()

    async def taken() -> bool:
        return table in b.tables.live

    await _until(taken)
    owner, epoch = await _owner(b, table)
    assert owner == b.process and epoch == 2
    before = await _moves(a, table)

    # a still believes it runs the table: its next write (a chat line, whatever the state of
    # the game; or its clock's move) is fenced, it lets the table go and its watchers are
    # sent to reconnect.
    await tabs[1].conn.receive(json.dumps({"type": "chat", "table": table, "text": "stale"}))
    await _until(lambda: _true(tabs[1].transport.closed_with == 1012))
    assert table not in a.tables.live
    moved = await _moves(a, table)
    assert moved[: len(before)] == before and moved == list(range(1, len(moved) + 1))
    stored = await a.store.load_table(table)
    assert stored is not None and not stored.chat  # the fenced line was not written
    assert all(tab.transport.closed_with == 1012 for tab in tabs)

    # b runs the table now: the players reconnect there (what the load balancer does) and play on.
    again = []
    for tab in tabs:
        back = Tab(b)
        await back.ok("hello", token=tab.token)
        again.append(back)

    async def vote_over() -> bool:  # b's clock ends the vote a started
        return not b.tables.live[table].state.voting

    await _until(vote_over)
    opened = [await back.ok("table.open", table=table) for back in again]
    n = opened[0]["n"]
    assert n == len(await _moves(b, table)) >= len(moved) and all(o["n"] == n for o in opened)
    turn = opened[0]["view"]["turn"]
    said = await again[turn].ok("move", table=table, move={"type": "say", "word": "gorilla"})
    assert said["n"] == n + 1 and await _moves(b, table) == list(range(1, n + 2))
    assert b.cluster.takeovers == 1


async def _true(value: bool) -> bool:
    return value


async def test_a_leaving_process_hands_its_tables_over_at_once(make_node: Make) -> None:
    a, b = await make_node(lease_seconds=30.0), await make_node(lease_seconds=30.0)
    tabs = await _players(a, 2)
    table = await _relay(tabs, vote_seconds=0.3)
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "ringo"})  # a vote runs
    loop = asyncio.get_running_loop()
    began = loop.time()
    await a.stop()

    async def taken() -> bool:
        return table in b.tables.live

    await _until(taken, timeout=5)
    assert loop.time() - began < 5  # far sooner than the 30 s lease
    assert (await _owner(b, table))[0] == b.process

    async def vote_over() -> bool:  # the clock of the vote runs on b
        return await _moves(b, table) == [1, 2]

    await _until(vote_over)


async def test_the_writer_fails_the_fenced_tables_writes_only(database_url: str) -> None:
    store = SqlStore(database_url)
    await store.start()
    refused: set[str] = set()
    seen: list[tuple[bool, set[str]]] = []

    async def fence(conn: Any, tables: Any) -> set[str]:
        seen.append((conn.is_in_transaction(), set(tables)))
        return refused & set(tables)

    store.fence = fence
    try:
        for table in ("t_kept", "t_fenced"):
            record = TableRecord(table, "relay", {}, {}, 1, "playing", None, 0)
            await store.create_table(record, [SeatRecord(0), SeatRecord(1)])
        refused.add("t_fenced")
        moves = [
            store.append_move(t, MoveRecord(1, 0, {"type": "say"}, 5, "player"), None, None)
            for t in ("t_kept", "t_fenced")
        ]
        kept, fenced = await asyncio.gather(*moves, return_exceptions=True)
        assert kept is None and isinstance(fenced, Fenced) and fenced.tables == {"t_fenced"}
        assert all(in_transaction for in_transaction, _ in seen)
        assert {"t_kept", "t_fenced"} <= set().union(*(tables for _, tables in seen))
        for table, count in (("t_kept", 1), ("t_fenced", 0)):
            bundle = await store.load_table(table)
            assert bundle is not None and len(bundle.moves) == count
    finally:
        await store.close()


def test_serve_refuses_redis_without_postgres(tmp_path: Any) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bodoge", "serve", "--data", str(tmp_path), "--redis", "redis://x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert "--redis needs a PostgreSQL --db" in run.stderr


async def test_play_resumes_by_itself_after_postgresql_restarts(
    postgres_server: PostgresServer, shared_redis: str, namespace: Namespace
) -> None:
    """Moves are store_unavailable while PostgreSQL is down, past the lease; then play goes on.

    The lease lapsed meanwhile, but nobody could claim the table: the process keeps it at
    its epoch, and nothing it acknowledged is lost.
    """
    config = ServerConfig(
        db_url=postgres_server.url(),
        redis_url=shared_redis,
        redis_namespace=namespace.prefix,
        bot_delay=0.0,
        bot_workers=0,
        games={"relay": RelayGame()},
        lease_seconds=1.0,
    )
    server = Server(config)
    await server.start()
    try:
        tabs = await _players(server, 2)
        table = await _relay(tabs)
        await tabs[0].ok("move", table=table, move={"type": "say", "word": "ringo"})
        vote = {"type": "vote", "ok": True}
        await asyncio.to_thread(postgres_server.stop)
        refused = await tabs[1].request("move", table=table, move=vote)
        assert refused["type"] == "error" and refused["code"] == "store_unavailable", refused
        await asyncio.sleep(1.5)  # past the lease
        await asyncio.to_thread(postgres_server.start)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while (reply := await tabs[1].request("move", table=table, move=vote))["type"] == "error":
            assert reply["code"] == "store_unavailable", reply
            assert loop.time() < deadline, "play did not resume"
            await asyncio.sleep(0.2)
        assert reply["n"] == 2
        ownership = server.cluster.ownership

        async def renewed() -> bool:
            return ownership.lapses >= 1 and ownership.lease_valid

        await _until(renewed)  # it found its lease lapsed, took it again, kept its table
        assert await _owner(server, table) == (server.process, 1)
        assert await _moves(server, table) == [1, 2]
        assert table in server.tables.live
    finally:
        await server.stop()
