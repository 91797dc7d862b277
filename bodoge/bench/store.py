"""``bodoge bench store``: the event loop's CPU per appended move, before and after.

Each measurement opens a store (on a fresh SQLite file, or on the ``--db``
database), creates ``G`` tables and has them append moves together: every commit
group holds the ``G`` moves, one per table, that the writer finds when ``G``
tables move at once.  ``G`` is 1 (every move commits alone, as in a quiet
server) and 16.  Each move also changes its table's
timers (a turn limit), so it writes two rows, like a real move; ``--no-timers``
writes only the move.

The figure is the CPU time of the thread running the event loop (the server's
main thread) per appended move: what the store costs everything else the server
does.  It is measured for two write paths, alternated in the same run (rounds,
median):

* *before*: the write path before plain statements, SQLAlchemy Core through the
  async engine: a hop to the database thread (SQLite) or a round trip
  (PostgreSQL) per statement, and SQLAlchemy's compiling and parameter handling;
* *after*: :class:`~bodoge.store.sql.SqlStore` as it is.

The CPU of every thread of the process (the database thread included) is printed
beside it.  SQLite runs on a temporary file; ``--db postgresql+asyncpg://...``
adds that database (the bench's tables are deleted afterwards).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the store (and SQLAlchemy) load only when the bench runs
    from rich.console import Console

    from bodoge.store.sql import SqlStore

GROUPS = (1, 16)

#: A typical stored Tagiron move.
MOVE = {"type": "ask", "card": "where_5", "choice": None}


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "store", help="the event loop's CPU per appended move: the old write path and the new"
    )
    parser.add_argument("--rounds", type=int, default=5, help="rounds, alternating (default 5)")
    parser.add_argument(
        "--moves", type=int, default=320, help="moves per measurement (default 320)"
    )
    parser.add_argument(
        "--db", default=None, help="also measure this database (postgresql+asyncpg://...)"
    )
    parser.add_argument(
        "--no-timers", action="store_true", help="moves leave the timers alone (one row each)"
    )
    parser.set_defaults(func=cmd_bench)


def core_writes() -> type[SqlStore]:
    """The write path before plain statements, kept for comparison (of moves: other
    writes, made only to set up, take today's).

    A group is one ``engine.begin()``: the moves inserted, then their timers set, by
    SQLAlchemy Core ``executemany`` through the async engine (for SQLite a hop to
    aiosqlite's thread per statement, and one to commit); a failed group is retried
    one write at a time.
    """
    import sqlalchemy as sa
    from sqlalchemy.exc import IntegrityError
    from sqlalchemy.ext.asyncio import AsyncConnection

    from bodoge.store import schema
    from bodoge.store.failures import ENGINE_UNAVAILABLE, outcome
    from bodoge.store.sql import SqlStore
    from bodoge.store.writes import AnyWrite, MoveWrite, Outcomes

    set_timers = (
        schema.tables.update()
        .where(schema.tables.c.id == sa.bindparam("b_id"))
        .values(deadlines=sa.bindparam("b_deadlines"), clock_deadline=sa.bindparam("b_clock"))
    )

    async def write_moves(conn: AsyncConnection, writes: list[MoveWrite]) -> None:
        await conn.execute(
            schema.moves.insert(),
            [
                {
                    "table_id": w.table_id,
                    "n": w.move.n,
                    "seat": w.move.seat,
                    "move": w.move.move,
                    "at": w.move.at,
                    "actor": w.move.actor,
                }
                for w in writes
            ],
        )
        timers = [
            {
                "b_id": w.table_id,
                "b_deadlines": dict(w.timers.deadlines),
                "b_clock": w.timers.clock_deadline,
            }
            for w in writes
            if w.timers is not None and w.result is None
        ]
        if timers:
            await conn.execute(set_timers, timers)

    class CoreWrites(SqlStore):
        def __init__(self, url: str) -> None:
            super().__init__(url)
            self._sqlite = None  # the engine's connections do all the work

        async def _commit(self, writes: list[AnyWrite]) -> Outcomes:
            if not all(isinstance(write, MoveWrite) for write in writes):
                return await super()._commit(writes)  # setting up: not measured
            try:
                async with self.engine.begin() as conn:
                    await write_moves(conn, writes)  # type: ignore[arg-type]
            except Exception as exc:
                if len(writes) == 1:
                    return [outcome(exc, writes[0], IntegrityError, ENGINE_UNAVAILABLE)]
                return [(await self._commit([write]))[0] for write in writes]
            return [None] * len(writes)

    return CoreWrites


@dataclass
class Series:
    """The figures of one (database, path, group size): µs per move, one per round."""

    main: list[float] = field(default_factory=list)
    process: list[float] = field(default_factory=list)


async def measure(
    make: Callable[[str], SqlStore], url: str, group: int, moves: int, timers: bool
) -> tuple[float, float]:
    """µs of CPU per appended move: the event loop's thread, and the whole process."""
    from bodoge.store.records import MoveRecord, PlayerRecord, SeatRecord, TableRecord, Timers

    store = make(url)
    await store.start()
    prefix = f"bench-{secrets.token_hex(4)}"
    player = PlayerRecord(f"{prefix}-p", "Bench", secrets.token_hex(32), 1)
    tables = [f"{prefix}-{i}" for i in range(group)]
    try:
        await store.create_player(player)
        for table_id in tables:
            record = TableRecord(table_id, "tagiron", {}, {}, 1, "playing", player.id, 1)
            await store.create_table(record, [SeatRecord(0, "human", player.id)])
        n = 0

        async def one_group() -> None:
            nonlocal n
            n += 1
            now = 1_700_000_000_000 + n
            left = Timers({"0": now + 60_000}) if timers else None
            if group == 1:  # as a table's task does
                await store.append_move(tables[0], MoveRecord(n, 0, MOVE, now), left)
                return
            await asyncio.gather(
                *(store.append_move(t, MoveRecord(n, 0, MOVE, now), left) for t in tables)
            )

        for _ in range(3):  # warm up: statement caches, the pool
            await one_group()
        count = max(1, moves // group)
        main, process = time.thread_time(), time.process_time()
        for _ in range(count):
            await one_group()
        main, process = time.thread_time() - main, time.process_time() - process
        return main / (count * group) * 1e6, process / (count * group) * 1e6
    finally:
        for table_id in tables:
            await store.delete_table(table_id)
        await store.close()


async def run(args: argparse.Namespace, console: Console) -> list[tuple[str, int, Series, Series]]:
    from bodoge.store.sql import SqlStore, sqlite_url

    paths: dict[str, Callable[[str], SqlStore]] = {"before": core_writes(), "after": SqlStore}
    with tempfile.TemporaryDirectory(prefix="bodoge-bench-store-") as tmp:
        databases: list[tuple[str, Callable[[str, str], str]]] = [
            ("SQLite", lambda path, i: sqlite_url(f"{tmp}/{path}-{i}"))
        ]
        if args.db:
            databases.append(
                ("PostgreSQL" if "postgres" in args.db else args.db, lambda *_: args.db)
            )
        figures: dict[tuple[str, int, str], Series] = {}
        for round_ in range(args.rounds):
            for name, url in databases:
                for group in GROUPS:
                    for path, make in paths.items():
                        main, process = await measure(
                            make,
                            url(path, f"{group}-{round_}"),
                            group,
                            args.moves,
                            not args.no_timers,
                        )
                        series = figures.setdefault((name, group, path), Series())
                        series.main.append(main)
                        series.process.append(process)
            console.print(f"round {round_ + 1} of {args.rounds} done", style="dim")
        return [
            (name, group, figures[name, group, "before"], figures[name, group, "after"])
            for name, _ in databases
            for group in GROUPS
        ]


def cmd_bench(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    if args.rounds < 1 or args.moves < 1:
        console.print("[red]--rounds and --moves must be at least 1[/]")
        return 2
    rows = asyncio.run(run(args, console))
    what = "a move" if args.no_timers else "a move and its table's timers"
    table = Table(title=f"Store CPU per appended move ({what}), µs, median of {args.rounds} rounds")
    for column in (
        "database",
        "moves per commit",
        "event loop: before",
        "after",
        "before / after",
        "all threads: before",
        "after",
    ):
        table.add_column(column, justify="left" if column == "database" else "right")
    for name, group, before, after in rows:
        old, new = statistics.median(before.main), statistics.median(after.main)
        table.add_row(
            name,
            str(group),
            f"{old:.0f}",
            f"{new:.0f}",
            f"{old / new:.1f}×",
            f"{statistics.median(before.process):.0f}",
            f"{statistics.median(after.process):.0f}",
        )
    console.print(table)
    console.print(
        "before: SQLAlchemy Core through the async engine, a hop to the database thread (or a "
        "round trip) per statement.\nafter: plain statements; on SQLite the event loop commits "
        "the writes of one of its passes as a group on its own connection (no thread); "
        "PostgreSQL sends one executemany per statement kind (a move and its timers are one)."
    )
    return 0
