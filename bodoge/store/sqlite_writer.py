"""The SQLite writer: a thread of its own with its own ``sqlite3`` connection to the
database file.

It takes whatever writes are pending as its next group and commits it, retries
included, without the event loop, which it answers with one callback per group.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from bodoge.store.base import StoreUnavailable
from bodoge.store.failures import SQLITE_UNAVAILABLE, outcome
from bodoge.store.opening import sqlite_pragmas
from bodoge.store.writes import GROUP_LIMIT, AnyWrite, Outcomes, batches

T = TypeVar("T")


def commit_sqlite(db: sqlite3.Connection, writes: Sequence[AnyWrite]) -> Outcomes:
    """Commit a group on the writer thread; a failed group is retried one write at a time."""
    try:
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
    except Exception as exc:
        if len(writes) == 1:
            return [outcome(exc, writes[0], sqlite3.IntegrityError, SQLITE_UNAVAILABLE)]
        return [commit_sqlite(db, [write])[0] for write in writes]
    return [None] * len(writes)


class Call:
    """A function for the writer thread to run with its connection (tests look with it)."""

    __slots__ = ("args", "fn")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.fn = fn
        self.args = args


class SqliteWriter:
    """The SQLite writer: a thread with its own ``sqlite3`` connection to the database file.

    The event loop appends each write to ``pending`` (and rings ``bell`` only if the
    thread sleeps); the thread takes every write pending when it gets to them as its
    next group, commits it (:func:`commit_sqlite`) and answers the whole group with a
    single callback on the loop.  So a group costs the event loop one hop back, and a
    wake-up only when the writer was idle: under load the thread is busy and is never
    woken, it just finds the next group waiting.
    """

    def __init__(self, path: str) -> None:
        self._path = path
        #: Given each group commit's seconds, on the writer thread (see SqlStore.on_commit).
        self.on_commit: Callable[[float], None] | None = None
        self._pending: deque[tuple[AnyWrite | Call, asyncio.Future[Any]]] = deque()
        self._bell: queue.SimpleQueue[None] = queue.SimpleQueue()
        #: Set by the thread before it looks for work and may sleep: then a write rings.
        self._idle = False
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="store-writer", daemon=True)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._done: asyncio.Future[None] | None = None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._done = self._loop.create_future()
        opened = self._loop.create_future()
        self._thread.start()
        self._pending.append((Call(lambda db: None, ()), opened))  # raises if it can't open
        self._ring()
        try:
            await opened
        except BaseException:
            await self.close()
            raise

    def write(self, job: AnyWrite | Call) -> asyncio.Future[Any]:
        """Queue a write (or a call); the future is answered once the commit holding it is."""
        loop, done = self._loop, self._done
        if loop is None or done is None or done.done() or self._closing:
            raise RuntimeError("the store is closed")
        future = loop.create_future()
        self._pending.append((job, future))
        if self._idle:
            self._ring()
        return future

    def call(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """``fn(connection, *args)`` on the writer thread, between two groups."""
        return self.write(Call(fn, args))

    async def close(self) -> None:
        """Commit what is pending, then close the connection and end the thread."""
        if self._done is None or self._closing:
            return
        self._closing = True
        self._ring()
        await self._done
        self._thread.join()

    def _ring(self) -> None:
        self._idle = False  # one ring is enough until the thread looks again
        self._bell.put(None)

    def _run(self) -> None:
        loop, pending, finished = self._loop, self._pending, self._done
        assert loop is not None and finished is not None  # set by start, before the thread
        db: sqlite3.Connection | None = None
        try:
            while True:
                self._idle = True
                if not pending:  # (checked after saying so: a write then rings)
                    if self._closing:
                        return
                    self._bell.get()  # a ring, or a spare one from an earlier ring
                self._idle = False
                group: list[tuple[AnyWrite | Call, asyncio.Future[Any]]] = []
                while pending and len(group) < GROUP_LIMIT:
                    if isinstance(pending[0][0], Call) and group:
                        break
                    group.append(pending.popleft())
                    if isinstance(group[0][0], Call):
                        break
                if not group:
                    continue
                outcomes: list[Any]
                try:
                    if db is None:
                        db = sqlite3.connect(self._path, isolation_level=None)
                        sqlite_pragmas(db)
                    job = group[0][0]
                    if isinstance(job, Call):
                        outcomes = [(job.fn(db, *job.args), None)]
                    else:
                        began = time.perf_counter()
                        # A call is always a group of its own, so this group holds writes.
                        writes = cast(list[AnyWrite], [write for write, _ in group])
                        done = commit_sqlite(db, writes)
                        if self.on_commit is not None:
                            self.on_commit(time.perf_counter() - began)
                        outcomes = [(None, error) for error in done]
                except Exception as exc:  # could not even open the database
                    if isinstance(exc, SQLITE_UNAVAILABLE):
                        exc = StoreUnavailable(str(exc))
                    outcomes = [(None, exc)] * len(group)
                with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                    loop.call_soon_threadsafe(answer, group, outcomes)
        finally:
            if db is not None:
                db.close()
            closed: list[tuple[Any, asyncio.Future[Any]]] = [(None, finished)]
            ok: list[tuple[Any, BaseException | None]] = [(None, None)]
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(answer, closed, ok)


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
