"""The store, on SQLite and PostgreSQL (see ``conftest.py``): history round-trips, move
numbers are unique, writes are grouped, and what was acknowledged survives ``kill -9``."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
import threading
import time
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
    engine,
    loading,
    open_store,
    sqlite_url,
    tables,
    writes,
)
from bodoge.store.engine import SWITCH_SECONDS
from bodoge.store.sql import SqlStore


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


async def test_database_is_sqlite_in_wal_mode(tmp_path: Path) -> None:
    store = await open_store(sqlite_url(tmp_path))
    await _with_table(store)
    with sqlite3.connect(tmp_path / "bodoge.sqlite3") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    await store.close()


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


async def test_a_finished_table_keeps_its_rematch(store: SqlStore) -> None:
    await _with_table(store)
    result = {"places": [1, 2], "reason": "declared", "winners": [0]}
    await store.append_move("t_1", MoveRecord(1, 0, {}, 50), result=result)
    bundle = await store.load_table("t_1")
    assert bundle is not None and bundle.table.rematch is None
    await store.set_rematch("t_1", "t_2")
    bundle = await store.load_table("t_1")
    assert bundle is not None and bundle.table.rematch == "t_2"
    assert [t.rematch for t in await store.finished_tables()] == ["t_2"]


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


async def test_many_tables_load_whole_across_the_slices_of_their_ids(
    store: SqlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tables read back in slices of ids (here of 2) each get exactly their own rows."""
    monkeypatch.setattr(loading, "IN_LIST_LIMIT", 2)
    for i in range(5):
        player = PlayerRecord(f"p_{i}", f"P{i}", f"{i}" * 64, 1)
        await store.create_player(player)
        table = TableRecord(f"t_{i}", "g", {}, {}, i, "waiting", None if i == 2 else player.id, i)
        seats = [SeatRecord(0, "human", player.id), SeatRecord(1, "bot", level="easy")]
        if i == 3:
            seats[1] = SeatRecord(1, "bot", level="easy", left="p_0")
        await store.create_table(table, seats)
        for n in range(1, i + 1):
            await store.append_move(table.id, MoveRecord(n, 0, {"i": i, "n": n}, n))
        for line in range(1, i + 1):
            await store.add_chat(ChatRecord(table.id, line, player.id, player.name, "hi", line))
    bundles = await store.load_open_tables(chat=2)
    assert [b.table.id for b in bundles] == [f"t_{i}" for i in range(5)]
    for i, bundle in enumerate(bundles):
        assert [s.player for s in bundle.seats] == [f"p_{i}", None]
        assert [m.move for m in bundle.moves] == [{"i": i, "n": n} for n in range(1, i + 1)]
        assert [c.line for c in bundle.chat] == list(range(max(1, i - 1), i + 1))
        assert bundle.chat_count == i
        assert sorted(bundle.players) == (["p_0", "p_3"] if i == 3 else [f"p_{i}"])
        assert bundle == await store.load_table(bundle.table.id, chat=2)


async def test_players_are_found_by_token_hash_only(store: SqlStore) -> None:
    await store.create_player(PlayerRecord("p_a", "Ann", "a" * 64, 1))
    assert (await store.player_by_token_hash("a" * 64)).id == "p_a"  # type: ignore[union-attr]
    assert await store.player_by_token_hash("b" * 64) is None
    with pytest.raises(Conflict):  # the hash is unique
        await store.create_player(PlayerRecord("p_b", "Bob", "a" * 64, 1))
    await store.rename_player("p_a", "Anne")
    assert (await store.players(["p_a", "p_x"]))["p_a"].name == "Anne"


async def test_history_survives_reopening(store_url: str) -> None:
    store = await open_store(store_url)
    await _with_table(store)
    await store.append_move("t_1", MoveRecord(1, 0, {"x": 1}, 1))
    await store.close()
    again = await open_store(store_url)
    try:
        bundle = await again.load_table("t_1")
        assert bundle is not None and len(bundle.moves) == 1
    finally:
        await again.close()


async def test_checkpoints_run_beside_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "CHECKPOINT_SECONDS", 0.05)
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
    assert store._sqlite is not None  # ... neither on the writer's own connection
    assert await store._sqlite.call(_pragma, "wal_autocheckpoint") == 0
    assert await store._sqlite.call(_pragma, "synchronous") == 1  # NORMAL
    assert await store._sqlite.call(_pragma, "foreign_keys") == 1
    await asyncio.sleep(0.3)  # the background checkpoint copies the WAL into the database
    await asyncio.gather(
        *(store.append_move("t_1", MoveRecord(n, 0, pad, n)) for n in range(200, 400))
    )
    # ... so the writer started the WAL over instead of making it twice as long.
    assert grown > 50_000 and wal.stat().st_size < grown * 1.5
    await store.close()
    assert not wal.exists() or wal.stat().st_size == 0  # truncated on close


def _pragma(db: sqlite3.Connection, name: str) -> object:
    return db.execute(f"PRAGMA {name}").fetchone()[0]


async def test_a_group_of_every_kind_of_write_ends_as_one_by_one(store: SqlStore) -> None:
    """One group: a new table with its seats and first moves, moves elsewhere, chat, timers."""
    await _with_table(store)
    await store.create_table(_table("t_2"), SEATS)
    await store.create_player(PlayerRecord("p_b", "Bob", "b" * 64, 1))
    seats = (SeatRecord(0, "human", "p_a"), SeatRecord(1, "human", "p_b"))
    result = {"places": [1, 2], "reason": "declared", "winners": [0]}
    writes = [
        store.start_table("t_1", 5, seats, Timers({"0": 100})),
        store.create_table(_table("t_3"), SEATS),
        store.append_move("t_1", MoveRecord(1, 0, {"k": 1}, 10), Timers({"1": 110})),
        store.append_move("t_2", MoveRecord(1, 0, {"k": 2}, 11)),
        store.add_chat(ChatRecord("t_1", 1, "p_b", "Bob", "hi", 12)),
        store.start_table("t_3", 13, SEATS, Timers({}, 500)),
        store.append_move("t_3", MoveRecord(1, 1, {"k": 3}, 14), Timers({"0": 140}, 400)),
        store.set_timers("t_2", Timers({"1": 150})),
        store.rename_player("p_b", "Bobby"),
        store.append_move("t_2", MoveRecord(2, 1, {"k": 4}, 15), result=result),
        store.save_seats("t_1", seats, "p_b"),
        store.delete_table("t_3"),
    ]
    await asyncio.gather(*writes)
    one = await store.load_table("t_1")
    assert one is not None
    assert (one.table.status, one.table.started_at, one.table.host) == ("playing", 5, "p_b")
    assert one.table.deadlines == {"1": 110} and one.seats == seats
    assert [(m.n, m.move) for m in one.moves] == [(1, {"k": 1})]
    assert [c.text for c in one.chat] == ["hi"] and one.players["p_b"].name == "Bobby"
    two = await store.load_table("t_2")
    assert two is not None
    assert (two.table.status, two.table.result, two.table.finished_at) == ("finished", result, 15)
    assert two.table.deadlines == {} and [m.n for m in two.moves] == [1, 2]
    assert await store.load_table("t_3") is None
    assert [b.table.id for b in await store.load_open_tables()] == ["t_1"]


async def test_failed_writes_in_a_group_fail_alone(store: SqlStore) -> None:
    """A taken chat line, a move of no table, a move that is not JSON: only they fail."""
    await _with_table(store)
    await store.add_chat(ChatRecord("t_1", 1, "p_a", "Ann", "first", 1))
    writes = [
        store.append_move("t_1", MoveRecord(1, 0, {"k": 1}, 1), Timers({"0": 1})),
        store.add_chat(ChatRecord("t_1", 1, "p_a", "Ann", "again", 2)),
        store.append_move("t_nope", MoveRecord(1, 0, {"k": 1}, 1)),
        store.append_move("t_1", MoveRecord(2, 0, {"k": object()}, 2)),
        store.add_chat(ChatRecord("t_1", 2, "p_a", "Ann", "second", 3)),
        store.append_move("t_1", MoveRecord(2, 0, {"k": 2}, 4), Timers({"0": 4})),
    ]
    outcomes = await asyncio.gather(*writes, return_exceptions=True)
    assert [type(o).__name__ for o in outcomes] == [
        "NoneType",
        "Conflict",
        "Conflict",  # the table does not exist
        "TypeError",  # the JSON encoder's own error
        "NoneType",
        "NoneType",
    ]
    assert "already has chat line 1" in str(outcomes[1])
    bundle = await store.load_table("t_1")
    assert bundle is not None
    assert [(m.n, m.move) for m in bundle.moves] == [(1, {"k": 1}), (2, {"k": 2})]
    assert [c.text for c in bundle.chat] == ["first", "second"]
    assert bundle.table.deadlines == {"0": 4}


async def test_writes_are_refused_once_the_store_is_closed(store_url: str) -> None:
    store = await open_store(store_url)
    await store.close()
    with pytest.raises(RuntimeError, match="closed"):
        await store.create_player(PlayerRecord("p_a", "Ann", "a" * 64, 1))


async def test_an_in_memory_database_writes_through_the_engine() -> None:
    store = await open_store("sqlite+aiosqlite:///:memory:")
    try:
        assert store._sqlite is None
        await _with_table(store)
        outcomes = await asyncio.gather(
            *(
                store.append_move("t_1", MoveRecord(n, 0, {"k": n}, n), Timers({"0": n}))
                for n in (1, 2, 2, 3)
            ),
            return_exceptions=True,
        )
        assert [isinstance(o, Conflict) for o in outcomes] == [False, False, True, False]
        bundle = await store.load_table("t_1")
        assert bundle is not None
        assert [m.n for m in bundle.moves] == [1, 2, 3] and bundle.table.deadlines == {"0": 3}
    finally:
        await store.close()


def test_a_group_is_one_batch_per_statement_kind_in_an_order_that_keeps_its_effect() -> None:
    timers = Timers({"0": 9})
    group = [
        writes.MoveWrite("t_1", MoveRecord(1, 0, {}, 1), timers, None),
        writes.Write(
            ("table", "t_9"), [(tables.DELETE_SEATS, ("t_9",)), (tables.SET_HOST, (None, "t_9"))]
        ),
        writes.MoveWrite("t_2", MoveRecord(1, 0, {}, 1), timers, None),
        writes.MoveWrite("t_3", MoveRecord(1, 0, {}, 1), None, {"winners": [0]}),
        writes.MoveWrite("t_4", MoveRecord(1, 0, {}, 1), timers, None),
        # The same table again: its insert may not pass its timers above.
        writes.MoveWrite("t_1", MoveRecord(2, 0, {}, 2), timers, None),
    ]
    plan = [
        (stmt, [row[-1] if stmt is not writes.INSERT_MOVE else row[:2] for row in rows])
        for stmt, rows in writes.batches(group)
    ]
    assert plan == [
        (writes.INSERT_MOVE, [("t_1", 1), ("t_2", 1), ("t_3", 1), ("t_4", 1)]),
        (writes.SET_TIMERS, ["t_1", "t_2", "t_4"]),
        (tables.DELETE_SEATS, ["t_9"]),
        (tables.SET_HOST, ["t_9"]),
        (writes.FINISH_TABLE, ["t_3"]),
        (writes.INSERT_MOVE, [("t_1", 2)]),
        (writes.SET_TIMERS, ["t_1"]),
    ]
    # PostgreSQL's moves set their timers in the same statement: the moves are one batch.
    pg = [(stmt, [row[:2] for row in rows]) for stmt, rows in writes.batches(group, pg=True)]
    assert pg == [
        (writes.PG_APPEND_MOVE, [("t_1", 1), ("t_2", 1), ("t_3", 1), ("t_4", 1), ("t_1", 2)]),
        (tables.DELETE_SEATS, [("t_9",)]),
        (tables.SET_HOST, [(None, "t_9")]),
        (writes.FINISH_TABLE, [(1, {"winners": [0]})]),
    ]


#: Appends moves to 4 tables at once, printing ``table n`` once each is acknowledged.
WRITER = """
import asyncio, sys
from bodoge.store import MoveRecord, PlayerRecord, SeatRecord, TableRecord, Timers, open_store

async def table(store, table_id):
    n = 0
    while True:
        n += 1
        await store.append_move(table_id, MoveRecord(n, 0, {"n": n}, n), Timers({"0": n}))
        print(table_id, n, flush=True)

async def main(url):
    store = await open_store(url)
    await store.create_player(PlayerRecord("p_a", "Ann", "h" * 64, 1))
    tables = [f"t_{i}" for i in range(4)]
    for t in tables:
        record = TableRecord(t, "tagiron", {}, {}, 1, "playing", "p_a", 1)
        await store.create_table(record, [SeatRecord(0, "human", "p_a")])
    await asyncio.gather(*(table(store, t) for t in tables))

asyncio.run(main(sys.argv[1]))
"""


async def test_what_was_acknowledged_survives_kill_9(store_url: str) -> None:
    root = Path(__file__).resolve().parents[2]
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        WRITER,
        store_url,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        stdout=asyncio.subprocess.PIPE,
    )
    assert child.stdout is not None
    acknowledged: dict[str, int] = {}
    try:
        while sum(acknowledged.values()) < 300:
            line = await asyncio.wait_for(child.stdout.readline(), 60)
            assert line, "the writer stopped"
            table_id, n = line.split()
            acknowledged[table_id.decode()] = int(n)
    finally:
        child.kill()  # SIGKILL, in the middle of its commits
        rest, _ = await child.communicate()
    for line in rest.splitlines(keepends=True):  # acknowledged before it died, not yet read
        if not line.endswith(b"\n"):  # cut short by the kill: not a whole acknowledgement
            continue
        table_id, n = line.split()
        acknowledged[table_id.decode()] = int(n)
    store = await open_store(store_url)
    try:
        for table_id, n in acknowledged.items():
            bundle = await store.load_table(table_id)
            assert bundle is not None
            stored = [m.n for m in bundle.moves]
            assert stored == list(range(1, len(stored) + 1)) and len(stored) >= n
            assert bundle.table.deadlines == {"0": len(stored)}
    finally:
        await store.close()


async def test_each_move_keeps_the_timers_it_left_running(store: SqlStore) -> None:
    """A catch-up tells each move's own deadlines: the move's row keeps them, whatever the
    table's running timers are now; a move stored without them reads back as unknown."""
    await _with_table(store)
    await store.start_table("t_1", 2_000, SEATS, Timers({"0": 9_000}, None))
    first = MoveRecord(1, 0, {"type": "pass"}, 2_500, "player", Timers({"1": 9_500}, 7))
    second = MoveRecord(2, 1, {"type": "pass"}, 2_600, "player", Timers({"0": 9_600}, None))
    await store.append_move("t_1", first, first.timers)
    await store.append_move("t_1", second, second.timers)
    await store.append_move("t_1", MoveRecord(3, 0, {"type": "pass"}, 2_700))  # as before 0002
    await store.set_timers("t_1", Timers({"1": 12_000}, 40))
    bundle = await store.load_table("t_1")
    assert bundle is not None
    assert [m.timers for m in bundle.moves] == [first.timers, second.timers, None]
    assert bundle.moves[:2] == (first, second)
    assert (bundle.table.deadlines, bundle.table.clock_deadline) == ({"1": 12_000}, 40)


async def test_a_sqlite_writer_makes_the_gil_change_hands_often(tmp_path: Path) -> None:
    """The writer thread gets the GIL back after each of SQLite's calls within the switch
    interval, however busy the event loop is: the store shortens it (never lengthens it)."""
    old = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        store = await open_store(sqlite_url(tmp_path))
        assert sys.getswitchinterval() <= SWITCH_SECONDS
        await store.close()
        sys.setswitchinterval(SWITCH_SECONDS / 5)
        store = await open_store(sqlite_url(tmp_path))
        assert sys.getswitchinterval() == pytest.approx(SWITCH_SECONDS / 5)
        await store.close()
    finally:
        sys.setswitchinterval(old)


async def test_a_sqlite_store_commits_a_pass_of_writes_on_the_event_loop(tmp_path: Path) -> None:
    """The writes queued in one pass of the loop are one group, committed in the loop's own
    thread (no hand-over to a thread and back)."""
    store = await open_store(sqlite_url(tmp_path))
    try:
        committed_in: list[int] = []
        store.on_commit = lambda seconds: committed_in.append(threading.get_ident())
        await _with_table(store)  # a player, then a table: two groups
        moves = (store.append_move("t_1", MoveRecord(n, 0, {}, n)) for n in range(1, 6))
        await asyncio.gather(*moves)
        assert committed_in == [threading.get_ident()] * 3
        bundle = await store.load_table("t_1")
        assert bundle is not None and [m.n for m in bundle.moves] == [1, 2, 3, 4, 5]
    finally:
        await store.close()


async def test_a_locked_database_holds_up_the_writes_not_the_event_loop(tmp_path: Path) -> None:
    """Another process holding SQLite's write lock: the writes wait for it on the writer's
    thread, in order, while the loop runs on."""
    store = await open_store(sqlite_url(tmp_path))
    try:
        await _with_table(store)
        other = sqlite3.connect(tmp_path / "bodoge.sqlite3", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            first = asyncio.ensure_future(store.append_move("t_1", MoveRecord(1, 0, {}, 1)))
            await asyncio.sleep(0)
            second = asyncio.ensure_future(store.append_move("t_1", MoveRecord(2, 0, {}, 2)))
            longest, last, began = 0.0, time.perf_counter(), time.perf_counter()
            while time.perf_counter() - began < 0.4:
                await asyncio.sleep(0.01)
                now = time.perf_counter()
                longest, last = max(longest, now - last), now
            assert not first.done() and not second.done()
            assert longest < 0.15  # the loop never waited for the lock
        finally:
            other.execute("COMMIT")
            other.close()
        await asyncio.wait_for(asyncio.gather(first, second), 10)
        bundle = await store.load_table("t_1")
        assert bundle is not None and [m.n for m in bundle.moves] == [1, 2]
    finally:
        await store.close()


async def test_a_transaction_on_the_writer_thread_keeps_the_order_of_writes(
    tmp_path: Path,
) -> None:
    """A call (a transaction that reads first) runs on the writer's thread after the writes
    queued before it and before those queued after it."""
    store = await open_store(sqlite_url(tmp_path))
    try:
        await _with_table(store)
        assert store._sqlite is not None
        first = asyncio.ensure_future(store.append_move("t_1", MoveRecord(1, 0, {}, 1)))
        await asyncio.sleep(0)  # the first move is queued
        counted = store._sqlite.call(
            lambda db: (threading.get_ident(), db.execute("SELECT count(*) FROM moves").fetchone())
        )
        second = asyncio.ensure_future(store.append_move("t_1", MoveRecord(2, 0, {}, 2)))
        thread, (moves,) = await counted
        assert moves == 1 and thread != threading.get_ident()
        await asyncio.gather(first, second)
        bundle = await store.load_table("t_1")
        assert bundle is not None and [m.n for m in bundle.moves] == [1, 2]
    finally:
        await store.close()
