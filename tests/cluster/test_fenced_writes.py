"""The store writer's fence on real PostgreSQL, as a cluster process's writer runs it.

A group of moves to tables the process holds is one pipelined statement per move, each
checking the claim on the table's row (``PG_APPEND_HELD_MOVE``); any other group of table
writes runs the fencing query first, in its transaction. Either way a table claimed by
another process since is written nothing, and the process lets it go.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from bodoge.cluster.namespace import Namespace
from bodoge.cluster.service import ClusterService
from bodoge.store import Conflict, Fenced, MoveRecord, SeatRecord, TableRecord, Timers
from bodoge.store.sql import SqlStore
from bodoge.store.writes import PG_APPEND_HELD_MOVE


class Writer:
    """A cluster process's store and its end of the cluster (never started: no Redis is
    spoken to), with the tables it has claimed; and what its fence was asked."""

    def __init__(self, url: str, store: SqlStore, service: ClusterService) -> None:
        self.url = url
        self.store = store
        self.service = service
        self.checked: list[set[str]] = []  # groups checked by the fencing query
        self.let_go: list[set[str]] = []  # tables the process was told it lost

    async def tables(self, *ids: str) -> None:
        for table_id in ids:
            record = TableRecord(table_id, "relay", {}, {}, 1, "playing", None, 0)
            with self.service.creating(table_id):
                await self.store.create_table(record, [SeatRecord(0), SeatRecord(1)])
        assert set(await self.service.claim_many(ids)) == set(ids)
        self.checked.clear()  # the inserts were checked (tables being made pass the check)

    async def claim_elsewhere(self, table_id: str) -> None:
        """Another process claims ``table_id`` (as after this one's lease ran out)."""
        async with self.store.engine.begin() as conn:
            await conn.execute(
                sa.text(
                    "UPDATE tables SET owner = 'elsewhere', owner_epoch = owner_epoch + 1"
                    " WHERE id = :t"
                ),
                {"t": table_id},
            )

    async def moves(self, table_id: str) -> list[int]:
        async with self.store.engine.connect() as conn:
            rows = await conn.execute(
                sa.text("SELECT n FROM moves WHERE table_id = :t ORDER BY n"), {"t": table_id}
            )
            return [row.n for row in rows]

    async def row(self, table_id: str) -> Any:
        async with self.store.engine.connect() as conn:
            query = "SELECT deadlines, clock_deadline, owner, owner_epoch FROM tables WHERE id = :t"
            return (await conn.execute(sa.text(query), {"t": table_id})).one()


@pytest.fixture
async def writer(database_url: str, namespace: Namespace) -> AsyncIterator[Writer]:
    engine = create_async_engine(database_url)
    store = SqlStore(database_url)
    await store.start()
    made: Writer

    async def on_lost(tables: set[str]) -> None:
        made.let_go.append(tables)

    service = ClusterService(engine, "redis://127.0.0.1:1/0", namespace, "a", on_lost=on_lost)
    await service.ownership.join(run=False)
    refused = service.refused

    async def counted(conn: Any, table_ids: Any) -> set[str]:
        made.checked.append(set(table_ids))
        return await refused(conn, table_ids)

    service.refused = counted  # type: ignore[method-assign]
    store.fence = service
    made = Writer(database_url, store, service)
    try:
        yield made
    finally:
        await store.close()
        await engine.dispose()


def _move(n: int, at: int = 5) -> MoveRecord:
    return MoveRecord(n, 0, {"type": "say", "word": f"w{n}"}, at, "player")


async def test_held_moves_commit_in_one_statement_each_without_the_fencing_query(
    writer: Writer,
) -> None:
    await writer.tables("t_a", "t_b")
    moves = [  # one group, the tables interleaved: each table's timers are its last move's
        writer.store.append_move(table, _move(n), Timers({"1": 8_000 + n}, 12_000 + n))
        for n in (1, 2)
        for table in ("t_b", "t_a")
    ]
    assert await asyncio.gather(*moves) == [None] * 4
    assert await writer.moves("t_a") == [1, 2] and await writer.moves("t_b") == [1, 2]
    deadlines, clock, owner, epoch = await writer.row("t_a")
    assert deadlines == {"1": 8_002} and clock == 12_002
    assert (owner, epoch) == ("a", 1)
    assert writer.checked == []  # no group needed the fencing query
    assert writer.service.ownership.held == {"t_a": 1, "t_b": 1}


async def test_a_table_claimed_elsewhere_is_written_nothing_and_let_go(writer: Writer) -> None:
    """The stale owner's moves fail with Fenced; the other table's in the same group stand."""
    await writer.tables("t_kept", "t_taken")
    await writer.store.append_move("t_taken", _move(1))
    await writer.claim_elsewhere("t_taken")
    moves = [
        writer.store.append_move(table, _move(n), Timers({"0": 1}, None))
        for n in (2, 3)
        for table in ("t_kept", "t_taken")
    ]
    outcomes = await asyncio.gather(*moves, return_exceptions=True)
    taken = [o for o in outcomes if isinstance(o, Fenced)]
    assert len(taken) == 2 and all(o.tables == {"t_taken"} for o in taken)
    assert outcomes.count(None) == 2
    assert await writer.moves("t_kept") == [2, 3]
    assert await writer.moves("t_taken") == [1]  # nothing after the claim
    deadlines, _, owner, epoch = await writer.row("t_taken")
    assert deadlines == {} and (owner, epoch) == ("elsewhere", 2)
    assert writer.let_go == [{"t_taken"}]
    assert writer.service.ownership.held == {"t_kept": 1}
    # Not held any more: its next write is checked by the fencing query, and refused too.
    with pytest.raises(Fenced):
        await writer.store.append_move("t_taken", _move(4))
    assert writer.checked == [{"t_taken"}]
    assert await writer.moves("t_taken") == [1]


async def test_other_table_writes_are_fenced_in_their_transaction(writer: Writer) -> None:
    await writer.tables("t_kept", "t_taken")
    await writer.claim_elsewhere("t_taken")
    result = {"winner": 0}
    finish = writer.store.append_move("t_kept", _move(1), None, result)
    unwatched = writer.store.set_unwatched("t_taken", 7)
    outcomes = await asyncio.gather(finish, unwatched, return_exceptions=True)
    assert outcomes[0] is None and isinstance(outcomes[1], Fenced)
    assert set().union(*writer.checked) == {"t_kept", "t_taken"}
    async with writer.store.engine.connect() as conn:
        rows = await conn.execute(sa.text("SELECT id, status, unwatched_at FROM tables"))
        assert {row.id: (row.status, row.unwatched_at) for row in rows} == {
            "t_kept": ("finished", None),
            "t_taken": ("playing", None),
        }
    assert writer.let_go == [{"t_taken"}]


async def test_a_duplicate_move_in_a_held_group_fails_alone(writer: Writer) -> None:
    await writer.tables("t_a", "t_b")
    await writer.store.append_move("t_a", _move(1))
    moves = [
        writer.store.append_move("t_a", _move(1)),  # numbered twice
        writer.store.append_move("t_b", _move(1)),
        writer.store.append_move("t_a", _move(2)),
    ]
    again, other, next_one = await asyncio.gather(*moves, return_exceptions=True)
    assert isinstance(again, Conflict)
    assert other is None and next_one is None
    assert await writer.moves("t_a") == [1, 2] and await writer.moves("t_b") == [1]
    assert writer.checked == [] and writer.let_go == []


async def test_a_claim_waits_for_a_held_move_in_flight_and_one_in_flight_waits_for_a_claim(
    writer: Writer,
) -> None:
    """The statement locks the table's row FOR SHARE as the fencing query does: a claim
    cannot slip in before its commit, and a move behind a claim sees the new epoch."""
    await writer.tables("t_1", "t_2")
    stmt = PG_APPEND_HELD_MOVE
    row = ("t_1", "a", 1, 1, 0, {"type": "say"}, 5, "player", None, None, None, None, False)
    claim = "UPDATE tables SET owner = 'b', owner_epoch = owner_epoch + 1 WHERE id = $1"
    raw = await asyncpg.connect(writer.url.replace("+asyncpg", ""))
    claimer = await asyncpg.connect(writer.url.replace("+asyncpg", ""))
    try:
        async with raw.transaction():  # a move's statement, its commit held back
            assert await raw.fetchval(stmt.pg, *stmt.encode(row)) == 1
            claimed = asyncio.create_task(claimer.execute(claim, "t_1"))
            await asyncio.sleep(0.3)
            assert not claimed.done()  # the claim waits for the move's commit
        await claimed
        # The other way round: a claim not yet committed holds a move back, which then
        # finds the new epoch and writes nothing.
        async with claimer.transaction():
            await claimer.execute(claim, "t_2")
            move = asyncio.create_task(writer.store.append_move("t_2", _move(1)))
            await asyncio.sleep(0.3)
            assert not move.done()
        with pytest.raises(Fenced):
            await move
    finally:
        await raw.close()
        await claimer.close()
    assert await writer.moves("t_1") == [1] and await writer.moves("t_2") == []
    assert writer.let_go == [{"t_2"}]
    assert writer.checked == []
