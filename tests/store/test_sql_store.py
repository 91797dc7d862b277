"""The SQLite store: history round-trips, move numbers are unique, writes are grouped."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bodoge.store import (
    ChatRecord,
    Conflict,
    MoveRecord,
    PlayerRecord,
    SeatRecord,
    TableRecord,
    Timers,
    open_store,
    sqlite_url,
)
from bodoge.store.sql import SqlStore


@pytest.fixture
async def store(tmp_path: Path):
    store = await open_store(sqlite_url(tmp_path))
    yield store
    await store.close()


def _table(table_id: str = "t_1", status: str = "waiting") -> TableRecord:
    return TableRecord(
        id=table_id,
        game="tagiron",
        options={"players": 2},
        settings={"turn_seconds": None},
        seed=12345,
        status=status,  # type: ignore[arg-type]
        host="p_a",
        created_at=1_000,
    )


SEATS = (SeatRecord(0, "human", "p_a"), SeatRecord(1, "bot", level="easy"))


async def _with_table(store: SqlStore, table_id: str = "t_1") -> None:
    await store.create_player(PlayerRecord("p_a", "<b>Ann</b>", "h" * 64, 1))
    await store.create_table(_table(table_id), SEATS)


async def test_database_is_sqlite_in_wal_mode(store: SqlStore, tmp_path: Path) -> None:
    await _with_table(store)
    with sqlite3.connect(tmp_path / "bodoge.sqlite3") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_table_history_round_trips(store: SqlStore) -> None:
    await _with_table(store)
    await store.start_table("t_1", 2_000, SEATS, Timers({"0": 9_000}, None))
    await store.append_move(
        "t_1", MoveRecord(1, 0, {"type": "pass"}, 2_500), Timers({"1": 9_500}, 7)
    )
    await store.append_move("t_1", MoveRecord(2, 1, {"type": "pass"}, 2_600))  # timers unchanged
    await store.add_chat(ChatRecord("t_1", 1, "p_a", "<b>Ann</b>", "<script>x</script>", 2_600))
    bundle = await store.load_table("t_1")
    assert bundle is not None
    assert bundle.table.status == "playing"
    assert bundle.table.deadlines == {"1": 9_500}
    assert bundle.table.clock_deadline == 7
    assert bundle.seats == SEATS
    assert bundle.moves == (
        MoveRecord(1, 0, {"type": "pass"}, 2_500, "player"),
        MoveRecord(2, 1, {"type": "pass"}, 2_600, "player"),
    )
    assert [c.text for c in bundle.chat] == ["<script>x</script>"]
    assert bundle.players["p_a"].name == "<b>Ann</b>"
    assert [b.table.id for b in await store.load_open_tables()] == ["t_1"]


async def test_two_moves_can_never_both_be_move_n(store: SqlStore) -> None:
    await _with_table(store)
    await store.append_move("t_1", MoveRecord(1, 0, {"type": "a"}, 1))
    with pytest.raises(Conflict):
        await store.append_move("t_1", MoveRecord(1, 1, {"type": "b"}, 2), Timers({"0": 5}))
    bundle = await store.load_table("t_1")
    assert bundle is not None
    assert [m.move for m in bundle.moves] == [{"type": "a"}]
    assert bundle.table.deadlines == {}  # the failed write changed nothing


async def test_a_conflict_in_a_group_commit_fails_only_its_own_write(store: SqlStore) -> None:
    await _with_table(store)
    writes = [
        store.append_move("t_1", MoveRecord(n, 0, {"k": n}, n), Timers({"0": n}))
        for n in (1, 2, 2, 3)
    ]
    outcomes = await asyncio.gather(*writes, return_exceptions=True)
    assert [isinstance(o, Conflict) for o in outcomes] == [False, False, True, False]
    bundle = await store.load_table("t_1")
    assert bundle is not None
    assert [m.n for m in bundle.moves] == [1, 2, 3]
    assert bundle.table.deadlines == {"0": 3}


async def test_finishing_a_table_removes_it_from_open_tables(store: SqlStore) -> None:
    await _with_table(store)
    result = {"places": [1, 2], "reason": "declared", "winners": [0]}
    await store.append_move("t_1", MoveRecord(1, 0, {}, 50), Timers({"0": 60}), result=result)
    assert await store.load_open_tables() == []
    finished = await store.finished_tables()
    assert [(t.id, t.result, t.finished_at) for t in finished] == [("t_1", result, 50)]
    assert finished[0].deadlines == {}  # a finished table has no timers


async def test_deleting_a_table_deletes_its_history(store: SqlStore) -> None:
    await _with_table(store)
    await store.append_move("t_1", MoveRecord(1, 0, {}, 50))
    await store.delete_table("t_1")
    assert await store.load_table("t_1") is None


async def test_only_the_last_chat_lines_are_loaded(store: SqlStore) -> None:
    await _with_table(store)
    for line in range(1, 8):
        await store.add_chat(ChatRecord("t_1", line, "p_a", "Ann", f"hi {line}", line))
    bundle = await store.load_table("t_1", chat=3)
    assert bundle is not None
    assert bundle.chat_count == 7
    assert [c.line for c in bundle.chat] == [5, 6, 7]


async def test_players_are_found_by_token_hash_only(store: SqlStore) -> None:
    await store.create_player(PlayerRecord("p_a", "Ann", "a" * 64, 1))
    assert (await store.player_by_token_hash("a" * 64)).id == "p_a"  # type: ignore[union-attr]
    assert await store.player_by_token_hash("b" * 64) is None
    with pytest.raises(Conflict):  # the hash is unique
        await store.create_player(PlayerRecord("p_b", "Bob", "a" * 64, 1))
    await store.rename_player("p_a", "Anne")
    assert (await store.players(["p_a", "p_x"]))["p_a"].name == "Anne"


async def test_history_survives_reopening(tmp_path: Path) -> None:
    store = await open_store(sqlite_url(tmp_path))
    await _with_table(store)
    await store.append_move("t_1", MoveRecord(1, 0, {"x": 1}, 1))
    await store.close()
    again = await open_store(sqlite_url(tmp_path))
    try:
        bundle = await again.load_table("t_1")
        assert bundle is not None and len(bundle.moves) == 1
    finally:
        await again.close()


async def test_checkpoints_run_beside_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bodoge.store import sql

    monkeypatch.setattr(sql, "CHECKPOINT_SECONDS", 0.05)
    store = await open_store(sqlite_url(tmp_path))
    await _with_table(store)
    wal = tmp_path / "bodoge.sqlite3-wal"
    pad = {"pad": "x" * 500}
    # Each batch is committed in a few groups, quicker than the checkpoint interval.
    await asyncio.gather(
        *(store.append_move("t_1", MoveRecord(n, 0, pad, n)) for n in range(1, 200))
    )
    grown = wal.stat().st_size
    async with store.engine.connect() as conn:  # commits never checkpoint by themselves
        assert (await conn.exec_driver_sql("PRAGMA wal_autocheckpoint")).scalar() == 0
    await asyncio.sleep(0.3)  # the background checkpoint copies the WAL into the database
    await asyncio.gather(
        *(store.append_move("t_1", MoveRecord(n, 0, pad, n)) for n in range(200, 400))
    )
    # ... so the writer started the WAL over instead of making it twice as long.
    assert grown > 50_000 and wal.stat().st_size < grown * 1.5
    await store.close()
    assert not wal.exists() or wal.stat().st_size == 0  # truncated on close
