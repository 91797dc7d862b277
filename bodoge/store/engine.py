"""The store's engine: a database opened through SQLAlchemy, and the one writer that
commits in groups.

Every write goes through one writer that commits in groups: writes that arrive
while a commit is running are committed together in the next transaction
("group commit").  Each caller is answered only after the commit that holds its
write, so an acknowledged write survives ``kill -9``.  If a group fails (say, a
duplicate move number), its writes are retried one by one so that only the
faulty one fails.  A group is planned into one ``executemany`` per statement kind
(:func:`~bodoge.store.writes.batches`) and committed in one go:

* SQLite (a database file): the event loop commits the writes of each of its passes on
  its own ``sqlite3`` connection; a transaction that reads first, and a group the loop
  could not commit (the database locked by another process, a failed write), go to a
  thread with a connection of its own (:class:`SqliteWriter`, below);
* PostgreSQL through asyncpg: a writer task holds one connection from
  SQLAlchemy's engine and sends each batch with asyncpg's pipelined
  ``executemany``, in one transaction (a group of one batch needs none:
  ``executemany`` is atomic).  A move and its timers are one statement there,
  so a group of moves is one round trip.  In a cluster (a ``fence``), a group of
  moves to tables this process holds is one round trip too: each move's statement
  checks the claim itself (:data:`~bodoge.store.writes.PG_APPEND_HELD_MOVE`); any
  other group of table writes runs the fencing query first in its transaction;
* any other URL (an in-memory SQLite database, another driver): the writer
  task sends the same statements through an SQLAlchemy connection.

Reads, the schema and WAL checkpoints go through SQLAlchemy's engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bodoge.store.base import Fenced, StoreUnavailable
from bodoge.store.failures import (
    ENGINE_UNAVAILABLE,
    SQLITE_UNAVAILABLE,
    asyncpg_unavailable,
    is_unavailable,
    outcome,
)
from bodoge.store.opening import make_engine, sqlite_file, sqlite_pragmas
from bodoge.store.transactions import on_sqlite, sa_runner
from bodoge.store.upgrade import upgrade
from bodoge.store.writes import (
    GROUP_LIMIT,
    PG_APPEND_HELD_MOVE,
    AnyWrite,
    Fence,
    Outcomes,
    apply_fence,
    batches,
    held_appends,
    tables_written,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Rows of each index SQLite's ANALYZE samples (its documentation suggests 100 to 1000).
ANALYSIS_LIMIT = 1000
#: Checkpoints between two ``PRAGMA optimize`` (once an hour).
OPTIMIZE_EVERY = 1800
#: Seconds between WAL checkpoints, which run beside the writer instead of inside its commits.
CHECKPOINT_SECONDS = 2.0
#: The interpreter's switch interval (seconds) at most, once a SQLite store is open.
#: A thread running SQLite (the writer's transactions, the engine's reads) lets go of the
#: GIL at each of SQLite's calls and must get it back to go on; while the event loop is
#: busy, that took up to the default interval (5 ms) each time. When every group commit
#: ran on the writer thread: at 1,000 tables on a loaded 2-core machine, 82 group commits
#: in 30 s and a move's commit start to its frames a median over 2.5 s; with 0.5 ms, 655
#: groups and 0.5–1 s (``bodoge bench server --tables 1000 --ab``, alternated).
SWITCH_SECONDS = 0.0005


class SqlEngine:
    """A database opened through SQLAlchemy and the group-commit writer in front of it:
    what every area of the store's queries (:mod:`bodoge.store.sql`) reads and writes through.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        parsed = sa.engine.make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        self.engine: AsyncEngine = make_engine(url)
        path = sqlite_file(url)
        #: The writer thread of a SQLite file (an in-memory database lives in the engine's
        #: one connection, so its writes go through the engine).
        self._sqlite = SqliteWriter(path) if path is not None else None
        self._asyncpg = parsed.get_driver_name() == "asyncpg"
        #: The PostgreSQL writer's connection from the engine, and asyncpg's under it.
        self._pg: tuple[AsyncConnection, Any] | None = None
        self._queue: asyncio.Queue[tuple[AnyWrite, asyncio.Future[None]] | None] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._open = False
        self._on_commit: Callable[[float], None] | None = None
        #: In a cluster (PostgreSQL only), the owner's check run first in each group commit
        #: that writes tables; the writes of the tables it refuses fail with :class:`Fenced`.
        self.fence: Fence | None = None
        #: The schema version the store is at once started (bodoge/store/upgrade.py).
        self.schema_version: str | None = None
        #: Times the writer found the database again after it could not write a group (the
        #: metric ``bodoge_database_reconnects``, with the cluster lease's own).
        self.reconnects = 0
        self._unreachable = False

    @property
    def on_commit(self) -> Callable[[float], None] | None:
        """Given each group commit's duration in seconds, if set (the metrics' histogram).

        On a SQLite file it runs on the writer thread, so it must be thread-safe.
        """
        return self._on_commit

    @on_commit.setter
    def on_commit(self, observe: Callable[[float], None] | None) -> None:
        self._on_commit = observe
        if self._sqlite is not None:
            self._sqlite.on_commit = observe

    async def start(self) -> None:
        if self.is_sqlite:
            path = self.engine.url.database
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.schema_version = await upgrade(self.engine)
        if self.is_sqlite:
            await self._optimize(first=True)
        if self._sqlite is not None:
            await self._sqlite.start()
        else:
            self._writer = asyncio.create_task(self._write_loop(), name="store-writer")
        self._open = True
        if self.is_sqlite:
            self._checkpointer = asyncio.create_task(self._checkpoint_loop(), name="checkpoints")

    async def close(self) -> None:
        was_open, self._open = self._open, False
        self._closing.set()
        if self._checkpointer is not None:
            await self._checkpointer  # lets a running checkpoint finish
            self._checkpointer = None
        if self._sqlite is not None:
            await self._sqlite.close()
        if self._writer is not None:
            self._queue.put_nowait(None)
            await self._writer
            self._writer = None
        await self._drop_pg(invalidate=False)
        if was_open and self.is_sqlite:
            await self._checkpoint("TRUNCATE")
        await self.engine.dispose()

    async def _checkpoint_loop(self) -> None:
        checkpoints = 0
        while not self._closing.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), CHECKPOINT_SECONDS)
            if not self._closing.is_set():
                await self._checkpoint("PASSIVE")
                checkpoints += 1
                if checkpoints % OPTIMIZE_EVERY == 0:
                    await self._optimize(first=False)

    async def _optimize(self, *, first: bool) -> None:
        """Keep SQLite's statistics of the indexes current (``PRAGMA optimize``), as its
        documentation asks of a long-lived connection: without them the planner guesses,
        and once chose the status index for the Finished tab, reading every finished game.

        At each start a sampled ``ANALYZE`` (``analysis_limit`` rows an index) makes them
        anew in milliseconds, even on a store of hundreds of thousands of games: a store
        analysed while it was empty, or before a release added indexes, would mislead the
        planner until the next ``optimize`` (which, before SQLite 3.46, looks only at the
        tables its own connection has queried).
        """
        try:
            async with self.engine.begin() as conn:
                await conn.exec_driver_sql(f"PRAGMA analysis_limit={ANALYSIS_LIMIT}")
                await conn.exec_driver_sql("ANALYZE" if first else "PRAGMA optimize")
        except Exception:
            log.warning("updating SQLite's statistics failed", exc_info=True)

    async def _checkpoint(self, mode: str) -> tuple[int, int, int] | None:
        """Copy the WAL into the database; PASSIVE never waits for (or blocks) the writer.

        Returns SQLite's answer: (busy, frames in the WAL, frames copied).
        """
        try:
            async with self.engine.connect() as conn:
                row = (await conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")).first()
                if row is None:
                    return None
                busy, frames, copied = tuple(row)
                return (busy, frames, copied)
        except Exception:
            log.warning("WAL checkpoint failed", exc_info=True)
            return None

    # --- the writer ----------------------------------------------------------

    async def _write(self, write: AnyWrite) -> None:
        if not self._open:
            raise RuntimeError("the store is closed")
        if self._sqlite is not None:
            await self._sqlite.write(write)
            return
        if self._writer is None or self._writer.done():
            raise RuntimeError("the store is closed")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((write, future))
        await future

    async def _write_loop(self) -> None:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            group = [item]
            stop = False
            while len(group) < GROUP_LIMIT and not self._queue.empty():
                more = self._queue.get_nowait()
                if more is None:
                    stop = True
                    break
                group.append(more)
            writes = [write for write, _ in group]
            began = time.perf_counter()
            try:
                outcomes = await self._commit(writes)
            except Exception as exc:  # the database is gone: every write of the group failed
                outcomes = [StoreUnavailable(str(exc))] * len(group)
            self._note_reach(outcomes)
            if self._on_commit is not None:
                self._on_commit(time.perf_counter() - began)
            for (_, future), failed in zip(group, outcomes, strict=True):
                if not future.done():  # the caller gave up waiting (cancelled)
                    if failed is None:
                        future.set_result(None)
                    else:
                        future.set_exception(failed)
            if stop:
                return

    def _note_reach(self, outcomes: Outcomes) -> None:
        """Count a reconnection when a group commits after groups the database refused."""
        if any(isinstance(failed, StoreUnavailable) for failed in outcomes):
            self._unreachable = True
        elif self._unreachable:
            self._unreachable = False
            self.reconnects += 1
            log.warning("the database takes writes again")

    async def _commit(self, writes: list[AnyWrite]) -> Outcomes:
        """Commit a group for the writer task (not SQLite's): what became of each write."""
        if self._asyncpg:
            return await self._commit_asyncpg(writes)
        return await self._commit_engine(writes)

    async def _commit_asyncpg(self, writes: list[AnyWrite]) -> Outcomes:
        import asyncpg

        outcomes: Outcomes = [None] * len(writes)
        try:
            pg = await self._pg_connection()
            fence = self.fence if tables_written(writes) else None
            held = None if fence is None else held_appends(writes, fence)
            if fence is not None and held is not None:
                return await self._append_held(pg, fence, writes, *held)
            if fence is None and len(planned := batches(writes, pg=True)) == 1:
                stmt, rows = planned[0]
                await pg.executemany(stmt.pg, [stmt.encode(row) for row in rows])  # atomic
            else:
                async with pg.transaction():
                    kept = (
                        writes if fence is None else await apply_fence(fence, pg, writes, outcomes)
                    )
                    for stmt, rows in batches(kept, pg=True):
                        await pg.executemany(stmt.pg, [stmt.encode(row) for row in rows])
        except Exception as exc:
            if self._pg is not None and (
                self._pg[1].is_closed() or not isinstance(exc, asyncpg.PostgresError)
            ):
                await self._drop_pg(invalidate=True)
            if len(writes) == 1:
                integrity = asyncpg.IntegrityConstraintViolationError
                return [outcome(exc, writes[0], integrity, asyncpg_unavailable())]
            return [(await self._commit_asyncpg([write]))[0] for write in writes]
        return outcomes

    async def _append_held(
        self,
        pg: Any,
        fence: Fence,
        writes: list[AnyWrite],
        order: list[int],
        rows: list[tuple[Any, ...]],
    ) -> Outcomes:
        """Append a group of moves to held tables in one pipelined round trip, each move
        fenced in its own statement (:data:`~bodoge.store.writes.PG_APPEND_HELD_MOVE`)."""
        stmt = PG_APPEND_HELD_MOVE
        appended = await pg.fetchmany(stmt.pg, [stmt.encode(row) for row in rows])  # atomic
        lost = {writes[i].key[1] for i, (count,) in zip(order, appended, strict=True) if not count}
        if not lost:
            return [None] * len(writes)
        outcomes: Outcomes = [
            Fenced([write.key[1]]) if write.key[1] in lost else None for write in writes
        ]
        await fence.lost(lost)
        return outcomes

    async def _pg_connection(self) -> Any:
        if self._pg is None:
            conn = await self.engine.connect()
            try:
                raw = await conn.get_raw_connection()
            except BaseException:
                await conn.close()
                raise
            self._pg = (conn, raw.driver_connection)
        return self._pg[1]

    async def _drop_pg(self, *, invalidate: bool) -> None:
        """Give the writer's connection back (``invalidate``: it may be broken, close it)."""
        if self._pg is None:
            return
        conn, self._pg = self._pg[0], None
        with contextlib.suppress(Exception):
            if invalidate:
                await conn.invalidate()
            await conn.close()

    async def _commit_engine(self, writes: list[AnyWrite]) -> Outcomes:
        outcomes: Outcomes = [None] * len(writes)
        try:
            async with self.engine.begin() as conn:
                kept = writes
                if self.fence is not None and tables_written(writes):
                    kept = await apply_fence(self.fence, conn, writes, outcomes)
                for stmt, rows in batches(kept):
                    await conn.execute(
                        stmt.text,
                        [dict(zip(stmt.keys, stmt.encode(row), strict=True)) for row in rows],
                    )
        except Exception as exc:
            if len(writes) == 1:
                return [outcome(exc, writes[0], IntegrityError, ENGINE_UNAVAILABLE)]
            return [(await self._commit_engine([write]))[0] for write in writes]
        return outcomes

    async def _transaction(self, body: Callable[..., T], *args: Any) -> T:
        """``body(run, *args)`` in a transaction of its own (on SQLite's writer thread)."""
        if self._sqlite is not None:
            return await self._sqlite.call(on_sqlite, body, *args)
        try:
            async with self.engine.begin() as conn:
                return await conn.run_sync(lambda c: body(sa_runner(c), *args))
        except Exception as exc:  # as for a write: PostgreSQL gone is no bug of the caller
            if is_unavailable(exc) and not isinstance(exc, StoreUnavailable):
                raise StoreUnavailable(str(exc)) from exc
            raise


def commit_group(db: sqlite3.Connection, writes: Sequence[AnyWrite]) -> None:
    """Commit a group in one transaction, or raise and leave nothing of it."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for stmt, rows in batches(writes):
            if stmt.json_at:
                rows = [stmt.encode(row) for row in rows]
            db.executemany(stmt.sql, rows)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def commit_sqlite(db: sqlite3.Connection, writes: Sequence[AnyWrite]) -> Outcomes:
    """Commit a group; a failed group is retried one write at a time."""
    try:
        commit_group(db, writes)
    except Exception as exc:
        if len(writes) == 1:
            return [outcome(exc, writes[0], sqlite3.IntegrityError, SQLITE_UNAVAILABLE)]
        return [commit_sqlite(db, [write])[0] for write in writes]
    return [None] * len(writes)


def connect_sqlite(path: str, *, busy_ms: int | None = None) -> sqlite3.Connection:
    """A writer's connection to the database file (``busy_ms``: its own busy timeout)."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        sqlite_pragmas(db)
        if busy_ms is not None:
            db.execute(f"PRAGMA busy_timeout={busy_ms}")
    except BaseException:
        db.close()
        raise
    return db


class Call:
    """A function for the writer thread to run with its connection (tests look with it)."""

    __slots__ = ("args", "fn")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.fn = fn
        self.args = args


Job = tuple[AnyWrite | Call, asyncio.Future[Any]]


class SqliteWriter:
    """The SQLite writer: group commits on the event loop, transactions on a thread.

    The writes queued while the event loop runs one pass (every move played in it, the
    timers they left, a new table and its seats...) are one group, committed at the start
    of the next pass on the loop's own ``sqlite3`` connection, and answered there.  In WAL
    mode with ``synchronous=NORMAL`` a commit writes its pages to the WAL file and waits for
    no disk (the checkpoints, which do, run beside it): 0.08–0.16 ms for a group of a few
    moves.  A thread committing them cost more than that in hand-overs: it took the GIL back
    from a busy loop after each of SQLite's calls (half a millisecond each at most, the
    switch interval), and each time the loop stopped until the kernel had run the thread.

    The loop never waits for a lock: its connection's busy timeout is 0.  A group that finds
    the database locked (another process writing: ``bodoge admin``, or the engine's
    ``ANALYZE``) or that fails goes to the writer's thread, which waits for the lock as long
    as the store's busy timeout and retries a failed group one write at a time.  So do the
    transactions that read before they write (:meth:`call`: accounts, notifications), which
    may take long.  While a job is on the thread the next groups wait for it, so writes
    are committed in the order they were queued.
    """

    def __init__(self, path: str) -> None:
        self._path = path
        #: Given each group commit's seconds (on the loop, or the thread: see SqlStore.on_commit).
        self.on_commit: Callable[[float], None] | None = None
        self._pending: deque[Job] = deque()
        #: The loop's connection, and the thread's (opened and used on the thread only).
        self._db: sqlite3.Connection | None = None
        self._thread_db: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="store-writer")
        self._loop: asyncio.AbstractEventLoop | None = None
        #: A pass of the loop is to commit what is pending.
        self._scheduled = False
        #: The job on the thread, while one is: groups wait for it.
        self._away: asyncio.Future[list[tuple[Any, BaseException | None]]] | None = None
        self._closing = False

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        if sys.getswitchinterval() > SWITCH_SECONDS:  # (the process's: see SWITCH_SECONDS)
            sys.setswitchinterval(SWITCH_SECONDS)
        try:
            try:
                self._db = connect_sqlite(self._path, busy_ms=0)
            except SQLITE_UNAVAILABLE as exc:
                raise StoreUnavailable(str(exc)) from exc
            await self.call(lambda db: None)  # opens the thread's connection, or raises
        except BaseException:
            await self.close()
            raise

    def write(self, job: AnyWrite | Call) -> asyncio.Future[Any]:
        """Queue a write (or a call); the future is answered once the commit holding it is."""
        loop = self._loop
        if loop is None or self._closing:
            raise RuntimeError("the store is closed")
        future = loop.create_future()
        self._pending.append((job, future))
        self._schedule()
        return future

    def call(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """``fn(connection, *args)`` on the writer thread, between two groups."""
        return self.write(Call(fn, args))

    async def close(self) -> None:
        """Commit what is pending, then close the connections and end the thread."""
        if self._loop is None or self._closing:
            return
        self._closing = True
        while self._away is not None or self._pending:
            if self._away is not None:
                with contextlib.suppress(BaseException):
                    await self._away  # (its done callback, run first, answers its jobs)
                await asyncio.sleep(0)
            elif self._db is None:  # could not open: nothing can be written
                closed = StoreUnavailable("the store is closed")
                answer(list(self._pending), [(None, closed)] * len(self._pending))
                self._pending.clear()
            else:
                self._flush()
        if self._db is not None:
            self._db.close()
            self._db = None
        await self._loop.run_in_executor(self._thread, self._close_thread_db)
        self._thread.shutdown(wait=True)

    def _schedule(self) -> None:
        """Have the loop's next pass commit what is pending, unless a job is on the thread
        (its return schedules it) or the pass is already due."""
        if self._pending and not self._scheduled and self._away is None and self._loop:
            self._scheduled = True
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        """Commit the pending groups on the loop until one must go to the thread."""
        self._scheduled = False
        pending, db = self._pending, self._db
        while pending and self._away is None and db is not None:
            if isinstance(pending[0][0], Call):
                self._send_away([pending.popleft()])
                return
            group: list[Job] = []
            while pending and len(group) < GROUP_LIMIT and not isinstance(pending[0][0], Call):
                group.append(pending.popleft())
            writes = cast(list[AnyWrite], [write for write, _ in group])
            began = time.perf_counter()
            try:
                commit_group(db, writes)
            except Exception:  # locked by another process, or a write fails: the thread's
                self._send_away(group)
                return
            if self.on_commit is not None:
                self.on_commit(time.perf_counter() - began)
            answer(group, [(None, None)] * len(group))

    def _send_away(self, group: list[Job]) -> None:
        loop = self._loop
        assert loop is not None
        jobs = [job for job, _ in group]
        self._away = away = loop.run_in_executor(self._thread, self._on_thread, jobs)
        away.add_done_callback(lambda done: self._back(group, done))

    def _back(
        self, group: list[Job], done: asyncio.Future[list[tuple[Any, BaseException | None]]]
    ) -> None:
        self._away = None
        if done.cancelled():
            outcomes: list[tuple[Any, BaseException | None]] = [
                (None, StoreUnavailable("the store is closed"))
            ] * len(group)
        elif (error := done.exception()) is not None:
            outcomes = [(None, error)] * len(group)
        else:
            outcomes = done.result()
        answer(group, outcomes)
        self._schedule()

    def _on_thread(self, jobs: list[AnyWrite | Call]) -> list[tuple[Any, BaseException | None]]:
        """A call, or a group the loop could not commit, on the writer thread."""
        try:
            if self._thread_db is None:
                self._thread_db = connect_sqlite(self._path)
            db, job = self._thread_db, jobs[0]
            if isinstance(job, Call):
                return [(job.fn(db, *job.args), None)]
            began = time.perf_counter()
            done = commit_sqlite(db, cast(list[AnyWrite], jobs))
            if self.on_commit is not None:
                self.on_commit(time.perf_counter() - began)
            return [(None, error) for error in done]
        except Exception as exc:  # could not even open the database
            if isinstance(exc, SQLITE_UNAVAILABLE):
                exc = StoreUnavailable(str(exc))
            return [(None, exc)] * len(jobs)

    def _close_thread_db(self) -> None:
        if self._thread_db is not None:
            self._thread_db.close()
            self._thread_db = None


def answer(
    group: list[tuple[Any, asyncio.Future[Any]]], outcomes: list[tuple[Any, BaseException | None]]
) -> None:
    for (_, future), (result, error) in zip(group, outcomes, strict=True):
        if future.done():  # the caller gave up waiting (cancelled)
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
