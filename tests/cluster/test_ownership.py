"""Table ownership on real PostgreSQL: leases, claims, fencing, lapses, orphans, races."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from bodoge.cluster.ownership import (
    DB_NOW,
    NeedsPostgres,
    Ownership,
    fenced,
    prepare,
    rendezvous_winner,
)
from bodoge.store import sqlite_url
from bodoge.store.records import TableRecord
from bodoge.store.sql import SqlStore
from tests.support.databases import own_database
from tests.support.services import PostgresServer

MakeOwnership = Callable[..., Awaitable[Ownership]]


class Cluster:
    """A test database with the store's schema, tables to make, and processes to start."""

    def __init__(self, url: str, engine: AsyncEngine, store: SqlStore) -> None:
        self.url = url
        self.engine = engine
        self.store = store
        self.members: list[Ownership] = []

    async def tables(self, count: int, status: str = "playing", prefix: str = "t") -> list[str]:
        ids = [f"{prefix}{i:04d}" for i in range(count)]
        for table_id in ids:
            record = TableRecord(table_id, "tagiron", {"players": 2}, {}, 1, status, None, 0)  # type: ignore[arg-type]
            await self.store.create_table(record, [])
        return ids

    async def process(self, name: str, *, run: bool = False, **options: object) -> Ownership:
        member = Ownership(self.engine, name, **options)  # type: ignore[arg-type]
        self.members.append(member)
        await member.join(run=run)
        return member

    async def owners(self) -> dict[str, tuple[str | None, int]]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(sa.text("SELECT id, owner, owner_epoch FROM tables"))
            return {row.id: (row.owner, row.owner_epoch) for row in rows}


@pytest.fixture
async def cluster(database_url: str) -> AsyncIterator[Cluster]:
    engine = create_async_engine(database_url)
    store = SqlStore(database_url)
    await store.start()
    await prepare(engine)
    made = Cluster(database_url, engine, store)
    try:
        yield made
    finally:
        for member in made.members:
            await member.stop()
        await store.close()
        await engine.dispose()


async def test_a_table_has_one_owner_and_each_claim_moves_the_epoch(cluster: Cluster) -> None:
    (table,) = await cluster.tables(1)
    a = await cluster.process("a")
    b = await cluster.process("b")
    assert await a.claim(table) == 1
    assert await b.claim(table) is None  # a is alive
    assert await a.claim(table) == 2  # a reloading its own table: the old epoch is void
    assert a.held == {table: 2} and b.held == {}
    assert await cluster.owners() == {table: ("a", 2)}

    assert await a.release(table)  # it left a's memory: dormant, anyone may take it
    assert await cluster.owners() == {table: (None, 2)}
    assert await b.claim(table) == 3
    assert not await a.release(table)  # no longer a's to release
    assert await cluster.owners() == {table: ("b", 3)}

    async with cluster.engine.begin() as conn:
        assert await fenced(conn, "a", {table: 2}) == {table}
        assert await fenced(conn, "b", {table: 2}) == {table}  # b's, but not at that epoch
        assert await fenced(conn, "b", {table: 3}) == set()
        assert await fenced(conn, "b", {}) == set()
        assert await fenced(conn, "b", {"no-such-table": 1}) == {"no-such-table"}


async def test_a_process_paused_past_its_lease_loses_its_tables_and_cannot_write(
    cluster: Cluster,
) -> None:
    """A stands for a process stopped with SIGSTOP: it simply does not renew."""
    tables = await cluster.tables(3)
    lost: list[set[str]] = []

    async def on_lost(gone: set[str]) -> None:
        lost.append(gone)

    a = await cluster.process("a", lease=0.4, on_lost=on_lost)
    assert await a.claim_many(tables) == dict.fromkeys(tables, 1)
    await asyncio.sleep(0.6)  # a is "stopped": its lease runs out
    assert not a.lease_valid
    taken: list[dict[str, int]] = []

    async def on_orphans(claimed: dict[str, int]) -> None:
        taken.append(claimed)

    b = await cluster.process("b", lease=5, on_orphans=on_orphans)
    assert await b.scan() == dict.fromkeys(tables, 2)
    assert taken == [dict.fromkeys(tables, 2)] and b.takeovers == 3

    # a wakes up and tries to commit a move under its old claim: fenced.
    async with cluster.engine.begin() as conn:
        assert await fenced(conn, "a", a.held) == set(tables)
    # Its next renewal finds out, takes its lease again and lets the tables go.
    assert await a.renew() is False
    assert a.lapses == 1 and a.held == {} and lost == [set(tables)]
    assert a.lease_valid
    assert await a.renew() is True  # renewing normally again
    assert {owner for owner, _ in (await cluster.owners()).values()} == {"b"}


async def test_a_lapse_nobody_noticed_keeps_the_tables(cluster: Cluster) -> None:
    """Nobody claimed them meanwhile, so nobody wrote them: the claim stands as it was."""
    tables = await cluster.tables(2)
    lost: list[set[str]] = []

    async def on_lost(gone: set[str]) -> None:
        lost.append(gone)

    a = await cluster.process("a", lease=0.3, on_lost=on_lost)
    await a.claim_many(tables)
    await asyncio.sleep(0.5)
    assert await a.renew() is False
    assert a.held == dict.fromkeys(tables, 1) and lost == []
    async with cluster.engine.begin() as conn:
        assert await fenced(conn, "a", a.held) == set()


async def test_one_table_lost_of_two_while_paused(cluster: Cluster) -> None:
    kept, taken = await cluster.tables(2)
    lost: list[set[str]] = []

    async def on_lost(gone: set[str]) -> None:
        lost.append(gone)

    a = await cluster.process("a", lease=0.3, on_lost=on_lost)
    await a.claim_many([kept, taken])
    await asyncio.sleep(0.5)
    b = await cluster.process("b")
    assert await b.claim(taken) == 2  # b needed this one (someone opened it on b)
    assert await a.renew() is False
    assert a.held == {kept: 1} and lost == [{taken}]
    assert await b.claim(kept) is None  # a is alive again


@pytest.mark.parametrize("driver", ["sqlalchemy", "asyncpg"])
async def test_a_claim_waits_for_a_fenced_commit_in_flight(cluster: Cluster, driver: str) -> None:
    """The check and the commit are one transaction: a claim cannot slip in between."""
    (table,) = await cluster.tables(1)
    a = await cluster.process("a", lease=0.3)
    b = await cluster.process("b")
    epoch = await a.claim(table)
    assert epoch == 1
    await asyncio.sleep(0.5)  # a's lease has run out: b may claim
    insert = "INSERT INTO moves (table_id, n, seat, move, at, actor) VALUES ($1, 1, 0, $2, 0, 'p')"

    async def a_commits_a_move(conn: object, wait: asyncio.Event) -> None:
        if isinstance(conn, asyncpg.Connection):
            async with conn.transaction():
                assert await fenced(conn, "a", {table: 1}) == set()
                wait.set()
                await asyncio.sleep(0.3)  # b's claim comes now, and must wait
                await conn.execute(insert, table, json.dumps({"ask": 1}))
        else:
            async with cluster.engine.begin() as sa_conn:
                assert await fenced(sa_conn, "a", {table: 1}) == set()
                wait.set()
                await asyncio.sleep(0.3)
                await sa_conn.execute(
                    sa.text(
                        "INSERT INTO moves (table_id, n, seat, move, at, actor)"
                        " VALUES (:t, 1, 0, :m, 0, 'p')"
                    ),
                    {"t": table, "m": json.dumps({"ask": 1})},
                )

    raw = (
        await asyncpg.connect(cluster.url.replace("+asyncpg", "")) if driver == "asyncpg" else None
    )
    try:
        checked = asyncio.Event()
        commit = asyncio.create_task(a_commits_a_move(raw, checked))
        await checked.wait()
        began = time.monotonic()
        assert await b.claim(table) == 2
        waited = time.monotonic() - began
        await commit
    finally:
        if raw is not None:
            await raw.close()
    assert waited >= 0.2  # b's claim waited for a's commit to end
    async with cluster.engine.begin() as conn:
        moves = (await conn.execute(sa.text("SELECT count(*) FROM moves"))).scalar()
        assert moves == 1  # a's move was committed before the claim: it stands
        assert await fenced(conn, "a", {table: 1}) == {table}  # a's next commit is fenced


async def test_two_claimers_racing_never_share_a_table(cluster: Cluster) -> None:
    tables = await cluster.tables(40)
    b = await cluster.process("b")
    c = await cluster.process("c")
    for _ in range(5):
        got_b, got_c = await asyncio.gather(b.claim_many(tables), c.claim_many(tables))
        assert not set(got_b) & set(got_c)
        owners = await cluster.owners()
        assert {t for t, (o, _) in owners.items() if o == "b"} == set(b.held)
        assert {t for t, (o, _) in owners.items() if o == "c"} == set(c.held)
        for table in list(b.held):
            await b.release(table)
        for table in list(c.held):
            await c.release(table)
    # One at a time, from both sides: each table still goes to exactly one of them.
    results = await asyncio.gather(*(p.claim(t) for t in tables for p in (b, c)))
    winners = Counter(epoch is not None for epoch in results)
    assert winners[True] == len(tables)


async def test_orphans_are_spread_by_rendezvous_and_only_a_dead_process_tables_move(
    cluster: Cluster,
) -> None:
    tables = await cluster.tables(300)
    await cluster.tables(20, status="finished", prefix="done")
    await cluster.tables(20, status="waiting", prefix="dormant")  # released: owner NULL
    ghost = await cluster.process("ghost", lease=0.3)
    await ghost.claim_many(tables + [f"done{i:04d}" for i in range(20)])
    await asyncio.sleep(0.5)  # ghost died
    members = [await cluster.process(name, lease=5) for name in ("p1", "p2", "p3")]
    claimed = [await m.scan() for m in members]
    assert sum(len(c) for c in claimed) == len(tables)
    assert set().union(*claimed) == set(tables)  # finished and unowned tables are not orphans
    for member, got in zip(members, claimed, strict=True):
        assert 60 <= len(got) <= 140, (member.process, len(got))
        assert all(rendezvous_winner(t, ["p1", "p2", "p3"]) == member.process for t in got)
    assert await members[0].scan() == {}  # nothing left

    # p3 dies: only its tables change hands, and only to p1 and p2.
    before = await cluster.owners()
    p3 = members[2]
    async with cluster.engine.begin() as conn:
        await conn.execute(sa.text("UPDATE cluster_processes SET expires_at = 0 WHERE id = 'p3'"))
    again = [await m.scan() for m in members[:2]]
    after = await cluster.owners()
    moved = {t for t in tables if after[t] != before[t]}
    assert moved == set(p3.held) == set().union(*again)
    assert all(after[t][1] == before[t][1] + 1 for t in moved)


async def test_a_process_that_leaves_hands_its_tables_over_at_once(cluster: Cluster) -> None:
    tables = await cluster.tables(5)
    a = await cluster.process("a")
    b = await cluster.process("b")
    await a.claim_many(tables)
    assert await b.scan() == {}
    assert await a.leave() == set(tables)
    assert a.held == {} and not a.lease_valid
    assert await b.scan() == dict.fromkeys(tables, 2)
    assert "a" not in await b.live_processes()


async def test_the_loops_renew_and_take_over_a_dead_process_within_its_lease(
    cluster: Cluster,
) -> None:
    tables = await cluster.tables(4)
    taken = asyncio.Event()

    async def on_orphans(claimed: dict[str, int]) -> None:
        if set(claimed) == set(tables):
            taken.set()

    # Leases long enough that a busy machine (parallel test workers) never delays a renewal
    # past one, short enough to keep the test quick.
    a = await cluster.process("a", run=True, lease=2.0, scan_interval=0.2)
    b = await cluster.process("b", run=True, lease=2.0, scan_interval=0.2, on_orphans=on_orphans)
    await a.claim_many(tables)
    await asyncio.sleep(2.5)  # past the lease: a's renewals keep it
    assert not taken.is_set() and a.lapses == 0 and a.lease_valid
    await a.stop()  # a dies (kill -9: nothing more from it)
    died = time.monotonic()
    await asyncio.wait_for(taken.wait(), 5)
    took = time.monotonic() - died
    assert took < 2.0 + 1.0, took  # the lease, plus a scan's wait and work on a busy machine
    assert b.takeovers == 4


async def test_a_dead_process_tables_are_claimed_as_its_lease_runs_out(
    cluster: Cluster,
) -> None:
    """The claim follows the lease at once, however long the scan's period: a process
    looks again right when a lease it saw is about to run out."""
    tables = await cluster.tables(2)
    taken = asyncio.Event()

    async def on_orphans(claimed: dict[str, int]) -> None:
        if set(claimed) == set(tables):
            taken.set()

    a = await cluster.process("a", run=True, lease=2.0)
    # A scan period longer than the lease: only the look at the lease's end is in time.
    b = await cluster.process("b", run=True, lease=2.0, scan_interval=4.0, on_orphans=on_orphans)
    await a.claim_many(tables)
    await asyncio.sleep(1.0)  # b has seen a's lease
    await a.stop()  # a dies (kill -9: nothing more from it)
    died = time.monotonic()
    async with cluster.engine.connect() as conn:
        left = (
            await conn.execute(
                sa.text(f"SELECT expires_at - {DB_NOW} FROM cluster_processes WHERE id = 'a'")
            )
        ).scalar_one() / 1000
    await asyncio.wait_for(taken.wait(), 10)
    late = time.monotonic() - died - left
    assert late < 0.75, (late, left)  # the scan's wake-up (20 ms) and work on a busy machine
    assert b.takeovers == 2


async def test_cluster_mode_needs_postgresql(tmp_path: object) -> None:
    engine = create_async_engine(sqlite_url(tmp_path))  # type: ignore[arg-type]
    try:
        with pytest.raises(NeedsPostgres):
            Ownership(engine, "a")
        with pytest.raises(NeedsPostgres):
            await prepare(engine)
    finally:
        await engine.dispose()


OLD_TABLES = (
    "CREATE TABLE tables (id VARCHAR(32) PRIMARY KEY, game VARCHAR(64) NOT NULL,"
    " options JSON NOT NULL, settings JSON NOT NULL, seed BIGINT NOT NULL,"
    " status VARCHAR(16) NOT NULL, host VARCHAR(32), created_at BIGINT NOT NULL,"
    " started_at BIGINT, finished_at BIGINT, result JSON, deadlines JSON NOT NULL,"
    " clock_deadline BIGINT, unwatched_at BIGINT)"
)
OLD_PROCESSES = (
    "CREATE TABLE cluster_processes (id TEXT PRIMARY KEY, address TEXT NOT NULL,"
    " started_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)"
)
OLD_ROW = (
    "INSERT INTO tables VALUES ('t_old', 'tagiron', '{}', '{}', 1, 'playing', NULL, 1,"
    " NULL, NULL, NULL, '{}', NULL, NULL)"
)


@pytest.mark.parametrize("store_first", [True, False], ids=["store-then-cluster", "cluster-first"])
async def test_a_store_from_before_cluster_mode_gains_the_ownership_columns(
    store_first: bool,
) -> None:
    from tests.support.databases import PG_ADMIN, require

    require(PG_ADMIN, 5432, "PostgreSQL")
    async with own_database() as url:
        engine = create_async_engine(url)
        try:
            async with engine.begin() as conn:
                await conn.execute(sa.text(OLD_TABLES))
                await conn.execute(sa.text(OLD_PROCESSES))
                await conn.execute(sa.text(OLD_ROW))
            store = SqlStore(url)
            if store_first:  # the store's own upgrade adds owner_epoch without its default
                await store.start()
                await prepare(engine)
            else:
                await prepare(engine)
                await store.start()
            await prepare(engine)  # a second process starting: nothing left to do
            async with engine.connect() as conn:
                columns = {
                    row.column_name: (row.is_nullable, row.column_default)
                    for row in await conn.execute(
                        sa.text(
                            "SELECT column_name, is_nullable, column_default"
                            " FROM information_schema.columns WHERE table_name = 'tables'"
                        )
                    )
                }
            assert columns["owner"][0] == "YES"
            assert columns["owner_epoch"] == ("NO", "0")
            member = Ownership(engine, "a")
            await member.join(run=False)
            assert await member.claim("t_old") == 1
            new = TableRecord("t_new", "tagiron", {}, {}, 1, "waiting", None, 2)
            await store.create_table(new, [])  # the store's insert leaves the new columns be
            assert await member.claim("t_new") == 1
            # The lease rows gained the count of tables each process holds.
            await member.renew()
            await member.scan()
            assert member.loads == {"a": 2}
            await store.close()
        finally:
            await engine.dispose()


async def test_the_lease_survives_a_postgresql_restart(postgres_server: PostgresServer) -> None:
    """While the database is down renewals fail and are counted; then they go on by themselves."""
    url = postgres_server.url()
    store = SqlStore(url)
    await store.start()
    engine = create_async_engine(url)
    try:
        await prepare(engine)
        await store.create_table(TableRecord("t1", "tagiron", {}, {}, 1, "playing", None, 0), [])
        a = Ownership(engine, "a", lease=3.0, scan_interval=0.2)
        await a.join()
        assert await a.claim("t1") == 1
        postgres_server.stop()
        async with asyncio.timeout(10):
            while a.database_failures == 0:
                await asyncio.sleep(0.05)
        postgres_server.start()
        async with asyncio.timeout(10):
            while a.database_reconnects == 0:
                await asyncio.sleep(0.05)
        assert a.lapses == 0 and a.lease_valid  # back within its lease: nothing was lost
        assert a.held == {"t1": 1}
        async with engine.begin() as conn:
            assert await fenced(conn, "a", a.held) == set()
        await a.stop()
    finally:
        await store.close()
        await engine.dispose()
