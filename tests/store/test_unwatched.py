"""Games nobody watches: the store remembers since when, finds them, and ends them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bodoge.store import SeatRecord, TableRecord, Timers, open_store, sqlite_url
from bodoge.store.sql import SqlStore


async def _playing(store: SqlStore, table_id: str) -> None:
    record = TableRecord(table_id, "tagiron", {"players": 2}, {}, 7, "waiting", None, 1)
    await store.create_table(record, [SeatRecord(0), SeatRecord(1)])
    await store.start_table(table_id, 2, [SeatRecord(0), SeatRecord(1)], Timers({"0": 99}))


async def test_unwatched_games_are_found_and_ended(store: SqlStore) -> None:
    for table_id in ("t_a", "t_b", "t_c"):
        await _playing(store, table_id)
    await store.set_unwatched("t_a", 1_000)
    await store.set_unwatched("t_b", 5_000)
    await store.set_unwatched("t_c", 1_000)
    await store.set_unwatched("t_c", None)  # someone came back
    assert await store.unwatched_tables(before=2_000) == ["t_a"]
    assert sorted(await store.unwatched_tables(before=9_000)) == ["t_a", "t_b"]
    bundle = await store.load_table("t_b")
    assert bundle is not None and bundle.table.unwatched_at == 5_000
    ended = {"places": [None, None], "reason": "abandoned", "winners": []}
    await store.end_table("t_a", 3_000, ended)
    bundle = await store.load_table("t_a")
    assert bundle is not None
    assert (bundle.table.status, bundle.table.finished_at, bundle.table.result) == (
        "finished",
        3_000,
        ended,
    )
    assert bundle.table.deadlines == {}
    assert await store.unwatched_tables(before=9_000) == ["t_b"]


async def test_a_store_from_before_the_column_gains_it(tmp_path: Path) -> None:
    """A data folder made by an earlier version opens: the new column is added."""
    old = sqlite3.connect(tmp_path / "bodoge.sqlite3")
    old.execute(
        "CREATE TABLE tables (id VARCHAR(32) PRIMARY KEY, game VARCHAR(64) NOT NULL,"
        " options JSON NOT NULL, settings JSON NOT NULL, seed BIGINT NOT NULL,"
        " status VARCHAR(16) NOT NULL, host VARCHAR(32), created_at BIGINT NOT NULL,"
        " started_at BIGINT, finished_at BIGINT, result JSON, deadlines JSON NOT NULL,"
        " clock_deadline BIGINT)"
    )
    old.execute(
        """INSERT INTO tables VALUES ('t_old', 'tagiron', '{"players": 2}', '{}', 1,"""
        " 'waiting', NULL, 1, NULL, NULL, NULL, '{}', NULL)"
    )
    old.commit()
    old.close()
    store = await open_store(sqlite_url(tmp_path))
    try:
        bundle = await store.load_table("t_old")
        assert bundle is not None and bundle.table.unwatched_at is None
        assert bundle.table.rematch is None  # a column added later still
        await store.set_unwatched("t_old", 5)
        await store.set_rematch("t_old", "t_new")
    finally:
        await store.close()
