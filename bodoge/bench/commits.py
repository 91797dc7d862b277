"""``bodoge bench commits``: how many commits and moves a second PostgreSQL takes from bodoge.

The database side of the capacity model (docs/scaling.md). Each of ``--writers`` processes
stands for one server process of a cluster: one :class:`~bodoge.store.sql.SqlStore`, whose
group-commit writer holds one connection, and its share of ``--tables`` tables, each a task
appending moves (a move and its table's timers, as a real move writes) back to back, with
no think time: the store at its highest commit rate. As in cluster mode, each move is
fenced: its statement checks that the process still holds its table at the epoch of its claim
(:data:`bodoge.store.writes.PG_APPEND_HELD_MOVE`; ``--no-fence`` leaves it out, as one process
does).

Everything runs on a database of its own (made on ``--pg``, dropped afterwards). Over the
measured window it prints, for each (writers, tables):

* moves committed a second, and **commits** a second (``xact_commit`` of the database in
  ``pg_stat_database``, so the fencing and grouping are counted as PostgreSQL sees them),
  hence moves per commit (the group size the writers reached);
* how long a move waited for its commit (median and p99);
* the CPU of PostgreSQL's backends serving the writers (``/proc/<pid>/stat``; the server
  must run on this machine, else "-") per commit and per move, and the writers' own CPU
  per move: what the database and the server process pay for a stored move. The WAL
  writer's and checkpointer's CPU (shared with every other database) are not included.

Closed loop: each table appends its next move as soon as the last one is committed, so
moves/s is what the writers, the database and the machine's cores together allow; on a
small shared machine the writers' own CPU is often the limit (see its share of a core).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import secrets
import statistics
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from bodoge.bench.backends import pg_figures
from bodoge.bench.cluster import drop_database, make_database, sqlalchemy_url

#: A typical stored Tagiron move.
MOVE = {"type": "ask", "card": "where_5", "choice": None}
#: Seconds every writer plays before the window (connections, caches, groups settle).
WARM_UP = 1.5


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "commits", help="PostgreSQL at high commit rates: moves/s and commits/s through the store"
    )
    parser.add_argument(
        "--pg",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        metavar="DSN",
        help="the PostgreSQL server to make the bench's database on (and drop it)",
    )
    parser.add_argument(
        "--writers",
        type=_counts,
        default=[1, 2],
        metavar="N[,N…]",
        help="writer processes (one store each, as a cluster's processes): 1,2",
    )
    parser.add_argument(
        "--tables",
        type=_counts,
        default=[1, 16, 256],
        metavar="N[,N…]",
        help="tables moving at once, spread over the writers: 1,16,256",
    )
    parser.add_argument("--duration", type=float, default=5.0, help="seconds measured (5)")
    parser.add_argument(
        "--no-fence", action="store_true", help="no fencing of the moves (one process)"
    )
    parser.set_defaults(func=cmd_bench)


def _counts(text: str) -> list[int]:
    """``"1,16,256"`` → ``[1, 16, 256]``.

    >>> _counts("1,16"), _counts("4")
    ([1, 16], [4])
    """
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"not a count (or a list of counts): {text}")
    return counts


@dataclass(frozen=True)
class Plan:
    """One writer process's part of a measurement (picklable: it crosses to the process)."""

    url: str
    name: str
    tables: int
    fence: bool
    duration: float


@dataclass(frozen=True)
class Written:
    """What one writer did in the window."""

    moves: int
    #: Group commits the store's writer made (each one transaction).
    commits: int
    waits: list[float]
    cpu: float


def writer_process(plan: Plan, results: Any, ready: Any, start: Any) -> None:
    """One writer: set up, say so (``ready``), wait for the window's ``start`` (a shared
    ``time.monotonic()``, set once every writer is ready), play, put what it did."""
    results.put(asyncio.run(_write(plan, ready, start)))


class HeldTables:
    """The fence of a writer that holds all its tables at epoch 1, as a cluster process
    holds the tables it runs (:class:`bodoge.store.writes.Fence`)."""

    def __init__(self, process: str) -> None:
        self.process = process

    def claims(self, table_ids: Collection[str]) -> dict[str, int]:
        return dict.fromkeys(table_ids, 1)

    async def refused(self, conn: Any, table_ids: Collection[str]) -> set[str]:
        from bodoge.cluster.ownership import fenced

        return await fenced(conn, self.process, self.claims(table_ids))

    async def lost(self, table_ids: Collection[str]) -> None:
        raise AssertionError(f"nobody else claims the bench's tables: {sorted(table_ids)}")


async def _write(plan: Plan, ready: Any, go: Any) -> Written:
    import sqlalchemy as sa

    from bodoge.store.records import MoveRecord, PlayerRecord, SeatRecord, TableRecord, Timers
    from bodoge.store.sql import SqlStore

    store = SqlStore(plan.url)
    await store.start()
    player = PlayerRecord(f"{plan.name}-p", "Bench", secrets.token_hex(32), 1)
    tables = [f"{plan.name}-{i}" for i in range(plan.tables)]
    await store.create_player(player)
    for table_id in tables:
        record = TableRecord(table_id, "tagiron", {}, {}, 1, "playing", player.id, 1)
        await store.create_table(record, [SeatRecord(0, "human", player.id)])
    if plan.fence:  # as a cluster process holds its tables: owner and epoch in their rows
        async with store.engine.begin() as conn:
            await conn.execute(
                sa.text("UPDATE tables SET owner = :me, owner_epoch = 1 WHERE id = ANY(:ids)"),
                {"me": plan.name, "ids": tables},
            )

        store.fence = HeldTables(plan.name)
    ready.release()
    while go.value == 0:  # the others are still setting up (nothing else runs meanwhile)
        time.sleep(0.01)
    start, end = go.value, go.value + plan.duration
    waits: list[float] = []
    counted = groups = 0

    def on_commit(_: float) -> None:
        nonlocal groups
        groups += start <= time.monotonic() < end

    store.on_commit = on_commit

    async def play(table_id: str) -> None:
        nonlocal counted
        n = 0
        while (now := time.monotonic()) < end:
            n += 1
            at = 1_700_000_000_000 + n
            await store.append_move(
                table_id, MoveRecord(n, 0, MOVE, at), Timers({"0": at + 60_000})
            )
            if now >= start:
                waits.append(time.monotonic() - now)
                counted += 1

    async def window() -> float:
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        started = time.process_time()
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        return time.process_time() - started

    try:
        cpu, *_ = await asyncio.gather(window(), *(play(t) for t in tables))
        assert cpu is not None  # the window's, the others give None
        while go.value > 0:  # the connection stays until its backend's CPU has been read
            await asyncio.sleep(0.05)
    finally:
        await store.close()
    return Written(counted, groups, waits, cpu)


@dataclass
class Row:
    writers: int
    tables: int
    moves: int
    commits: int
    xacts: int
    duration: float
    waits: list[float]
    writer_cpu: float
    backend_cpu: float | None


def measure(args: argparse.Namespace, database: str, writers: int, tables: int) -> Row:
    url = sqlalchemy_url(args.pg, database)
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    ready = ctx.Semaphore(0)
    go = ctx.Value("d", 0.0)
    tag = secrets.token_hex(3)
    procs = []
    for w in range(writers):
        share = tables // writers + (1 if w < tables % writers else 0)
        if share == 0:
            continue
        plan = Plan(url, f"w{tag}{w}", share, not args.no_fence, args.duration)
        proc = ctx.Process(target=writer_process, args=(plan, results, ready, go))
        proc.start()
        procs.append(proc)
    try:
        for _ in procs:
            ready.acquire()
        start = go.value = time.monotonic() + WARM_UP
        time.sleep(max(0.0, start - time.monotonic()))
        commits0, cpu0 = asyncio.run(pg_figures(args.pg, database))
        time.sleep(max(0.0, start + args.duration - time.monotonic()))
        commits1, cpu1 = asyncio.run(pg_figures(args.pg, database))
        go.value = -1.0
        written = [results.get(timeout=120) for _ in procs]
    finally:
        for proc in procs:
            proc.join(30)
    # Only backends alive at both ends count (a writer's connection lives through the run);
    # a /proc that cannot be read (PostgreSQL elsewhere) reads 0: no figure then.
    both = [pid for pid in cpu1 if pid in cpu0]
    backend = sum(cpu1[pid] - cpu0[pid] for pid in both)
    return Row(
        writers=len(procs),
        tables=tables,
        moves=sum(w.moves for w in written),
        commits=sum(w.commits for w in written),
        xacts=commits1 - commits0,
        duration=args.duration,
        waits=[x for w in written for x in w.waits],
        writer_cpu=sum(w.cpu for w in written),
        backend_cpu=backend if backend > 0 else None,
    )


def lines(rows: list[Row]) -> list[str]:
    """The table of figures (one line a measurement)."""
    out = [
        "writers  tables   moves/s  commits/s  moves/commit  PG xact/s  wait median/p99 ms  "
        "PG CPU µs/commit  PG CPU µs/move  writer CPU µs/move (share of a core)"
    ]
    for row in rows:
        per_s = row.moves / row.duration
        commits = row.commits / row.duration
        waits = sorted(row.waits)
        wait = "-"
        if waits:
            p99 = waits[min(len(waits) - 1, round(0.99 * (len(waits) - 1)))]
            wait = f"{statistics.median(waits) * 1e3:.1f} / {p99 * 1e3:.1f}"
        pg_commit = pg_move = "-"
        if row.backend_cpu is not None and row.commits and row.moves:
            pg_commit = f"{row.backend_cpu / row.commits * 1e6:.0f}"
            pg_move = f"{row.backend_cpu / row.moves * 1e6:.0f}"
        writer = "-"
        if row.moves:
            share = row.writer_cpu / row.duration * 100
            writer = f"{row.writer_cpu / row.moves * 1e6:.0f} ({share:.0f}%)"
        ratio = f"{row.moves / row.commits:.1f}" if row.commits else "-"
        out.append(
            f"{row.writers:7d}  {row.tables:6d}  {per_s:8.0f}  {commits:9.0f}  {ratio:>12}  "
            f"{row.xacts / row.duration:9.0f}  "
            f"{wait:>18}  {pg_commit:>16}  {pg_move:>14}  {writer:>20}"
        )
    return out


def cmd_bench(args: argparse.Namespace) -> int:
    if args.duration <= 0:
        print("--duration must be positive")
        return 2
    fence = "no fencing" if args.no_fence else "each group fenced, as in cluster mode"
    print(
        f"bench commits: moves appended back to back (a move and its timers), {fence}, "
        f"{args.duration:g} s measured on {os.cpu_count()} cores "
        f"(load average before: {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    database = make_database(args.pg)
    rows: list[Row] = []
    try:
        for writers in args.writers:
            for tables in args.tables:
                if tables < writers:
                    continue
                rows.append(measure(args, database, writers, tables))
                print("  " + lines(rows)[-1], flush=True)
    finally:
        drop_database(args.pg, database)
    print(f"PostgreSQL at high commit rates (load average after: {os.getloadavg()[0]:.1f}):")
    for line in lines(rows):
        print("  " + line, flush=True)
    return 0
