"""The reads people wait on are served by indexes, not by reading every kept game.

On a SQLite store of a few thousand finished games (analysed, as a server's start leaves it),
the statements the store runs for "My games", a profile, the Finished tab, the statistics
back-fill's look and a leaderboard are each explained: no plan reads the ``tables``, ``seats``
or ``ratings`` table whole, and the lists that are read newest or best first come in the
index's order, not sorted afterwards. The times they give at 10,000 to 200,000 games are
``bodoge bench growth``'s (docs/performance.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from bodoge.bench.growth import BUSY, LIGHT, fill
from bodoge.store import open_store, sqlite_url
from bodoge.store.sql import SqlStore

WHOLE = ("SCAN tables", "SCAN seats", "SCAN ratings")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of 3,000 finished games, made once for the module."""
    made = tmp_path_factory.mktemp("scale")

    async def make() -> None:
        store = await open_store(sqlite_url(made))
        try:
            await fill(store, 3000, people=2000, rated=2000)
        finally:
            await store.close()

    asyncio.run(make())
    return made


@pytest.fixture
async def store(folder: Path) -> AsyncIterator[SqlStore]:
    opened = await open_store(sqlite_url(folder))  # analysed at its start, as a server's is
    yield opened
    await opened.close()


async def plans(store: SqlStore, read: Any) -> list[list[str]]:
    """The query plan of every statement ``read`` runs."""
    statements: list[tuple[str, Any]] = []

    def seen(conn: Any, cursor: Any, statement: str, parameters: Any, *rest: Any) -> None:
        if statement.lstrip().upper().startswith(("SELECT", "WITH")):
            statements.append((statement, parameters))

    engine = store.engine.sync_engine
    sa.event.listen(engine, "before_cursor_execute", seen)
    try:
        await read()
    finally:
        sa.event.remove(engine, "before_cursor_execute", seen)
    found = []
    async with store.engine.connect() as conn:
        for statement, parameters in statements:
            rows = await conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
            found.append([row[-1] for row in rows])
    return found


@pytest.mark.parametrize("player", [BUSY, LIGHT])
@pytest.mark.parametrize("limit", [50, 200])
async def test_my_games_and_a_profile_start_from_the_players_own_seats(
    store: SqlStore, player: str, limit: int
) -> None:
    (first, *rest) = await plans(store, lambda: store.played_tables(player, limit))
    assert any("seats_by_player (player=?)" in step for step in first), first
    assert any("seats_by_left_player (left_player=?)" in step for step in first), first
    for plan in (first, *rest):
        assert not [step for step in plan if step.startswith(WHOLE)], plan
    bundles = await store.played_tables(player, limit)
    assert bundles, "the player's games"
    times = [b.table.finished_at or 0 for b in bundles]
    assert times == sorted(times, reverse=True)


async def test_the_finished_tab_walks_an_index_newest_first(store: SqlStore) -> None:
    (plan,) = await plans(store, lambda: store.finished_tables(50))
    assert plan == ["SEARCH tables USING INDEX tables_finished_by_time (status=?)"], plan


async def test_the_statistics_back_fill_reads_only_the_tables_without_statistics(
    store: SqlStore,
) -> None:
    (plan,) = await plans(store, lambda: store.unsummarised_tables(100))
    assert plan == ["SCAN tables USING INDEX tables_unsummarised"], plan
    assert await store.unsummarised_tables(100) == []


async def test_a_leaderboard_reads_its_first_rows_from_an_index(store: SqlStore) -> None:
    (plan,) = await plans(store, lambda: store.leaderboard("tagiron", 3, 100))
    assert len(plan) == 1 and plan[0].startswith("SEARCH ratings USING INDEX ratings_by_ordinal"), (
        plan
    )
    board = await store.leaderboard("tagiron", 3, 100)
    shown = [r.mu - 3 * r.sigma for r in board]
    assert shown == sorted(shown, reverse=True) and len(board) == 100
