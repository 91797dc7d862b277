"""The SQLAlchemy 2 (asyncio) store: SQLite by default, PostgreSQL by URL.

Every write goes through one writer that commits in groups: writes that arrive
while a commit is running are committed together in the next transaction
("group commit").  Each caller is answered only after the commit that holds its
write, so an acknowledged write survives ``kill -9``.  If a group fails (say, a
duplicate move number), its writes are retried one by one so that only the
faulty one fails.

Writes are plain SQL statements (:class:`_Stmt`), not SQLAlchemy Core: on the
hot path (a move, and the timers it leaves) Core's compiling and parameter
handling, and a hop to aiosqlite's thread per statement, cost the event loop
some 20 times what SQLite itself does.  A group is planned into one
``executemany`` per statement kind (:func:`_batches`) and committed in one go:

* SQLite (a database file): the writer is a thread of its own with its own
  ``sqlite3`` connection (:class:`_SqliteWriter`).  It takes whatever writes
  are pending as its next group and commits it, retries included, without the
  event loop, which it answers with one callback per group;
* PostgreSQL through asyncpg: a writer task holds one connection from
  SQLAlchemy's engine and sends each batch with asyncpg's pipelined
  ``executemany``, in one transaction (a group of one batch needs none:
  ``executemany`` is atomic).  A move and its timers are one statement there,
  so a group of moves is one round trip;
* any other URL (an in-memory SQLite database, another driver): the writer
  task sends the same statements through an SQLAlchemy connection.

Reads, the schema and WAL checkpoints go through SQLAlchemy's engine.

>>> sqlite_url("/tmp/bodoge-data")
'sqlite+aiosqlite:////tmp/bodoge-data/bodoge.sqlite3'
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import orjson
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from bodoge.store import schema
from bodoge.store.base import Conflict, Fenced, Store, StoreUnavailable
from bodoge.store.records import (
    AccountRecord,
    ChallengeRecord,
    ChatRecord,
    MoveRecord,
    PasskeyRecord,
    PictureSetRecord,
    PlayerRecord,
    RatingRecord,
    SeatRecord,
    TableBundle,
    TableRecord,
    Timers,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Most writes committed in one transaction.
GROUP_LIMIT = 256
SQLITE_BUSY_TIMEOUT_MS = 5000
#: Seconds between WAL checkpoints, which run beside the writer instead of inside its commits.
CHECKPOINT_SECONDS = 2.0


def sqlite_url(data_dir: str | os.PathLike[str]) -> str:
    """The default database: ``bodoge.sqlite3`` in the data folder."""
    return f"sqlite+aiosqlite:///{Path(data_dir) / 'bodoge.sqlite3'}"


async def open_store(url: str) -> SqlStore:
    """Open (and create if needed) the store at ``url``."""
    store = SqlStore(url)
    try:
        await store.start()
    except BaseException:
        await store.close()  # the engine's connections, even if the schema could not be made
        raise
    return store


def _sqlite_pragmas(dbapi_connection: Any, _record: Any = None) -> None:
    # WAL lets readers run beside the writer; synchronous=NORMAL in WAL mode
    # still survives a crash of the process (only a power cut may lose the
    # last commits), and the busy timeout covers a second process on the file.
    # Checkpoints (the fsyncs) would stall whichever commit triggers them, and
    # every table waits on the one writer: a background task does them instead.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.close()


# --- writes: plain statements ----------------------------------------------------------


def _dumps(value: Any) -> str:
    """JSON text of a column: orjson, several times faster than ``json.dumps`` per move."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


class _Stmt:
    """One write statement in plain SQL (``?`` placeholders), with its PostgreSQL and
    SQLAlchemy spellings.  Parameters at the positions in ``json_at`` are JSON columns: the
    store encodes them (:func:`_dumps`: JSON text, as SQLAlchemy's JSON type wrote) when it
    runs them.
    """

    __slots__ = ("json_at", "keys", "pg", "sql", "text")

    def __init__(self, sql: str, json_at: Iterable[int] = ()) -> None:
        parts = sql.split("?")
        self.sql = sql
        self.pg = "".join(f"{p}${i}" for i, p in enumerate(parts[:-1], 1)) + parts[-1]
        self.keys = tuple(f"p{i}" for i in range(len(parts) - 1))
        self.text = sa.text("".join(f"{p}:p{i}" for i, p in enumerate(parts[:-1])) + parts[-1])
        self.json_at = frozenset(json_at)

    def encode(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        if not self.json_at:
            return row
        return tuple(_dumps(v) if i in self.json_at else v for i, v in enumerate(row))

    def __repr__(self) -> str:
        return f"_Stmt({self.sql!r})"


_INSERT_PLAYER = _Stmt("INSERT INTO players (id, name, token_hash, created_at) VALUES (?, ?, ?, ?)")
_RENAME_PLAYER = _Stmt("UPDATE players SET name = ? WHERE id = ?")
_PLAYER_SEEN = _Stmt("UPDATE players SET seen_at = ? WHERE id = ?")
#: A time after every time stored (ms): "unseen since before it" holds for anyone.
ANY_TIME = 2**62

#: A player who left no trace: no seat, no table hosted, no chat line, no picture set.
_GUEST = (
    "COALESCE(players.seen_at, players.created_at) < ?"
    " AND players.account_key IS NULL"
    " AND NOT EXISTS (SELECT 1 FROM seats WHERE seats.player = players.id)"
    " AND NOT EXISTS (SELECT 1 FROM seats WHERE seats.left_player = players.id)"
    " AND NOT EXISTS (SELECT 1 FROM tables WHERE tables.host = players.id)"
    " AND NOT EXISTS (SELECT 1 FROM chat WHERE chat.player = players.id)"
    " AND NOT EXISTS (SELECT 1 FROM picture_sets WHERE picture_sets.owner = players.id)"
)
_MAKE_ACCOUNT = _Stmt(
    "UPDATE players SET account_name = ?, account_key = ?, password_hash = ?, generation = 0"
    " WHERE id = ? AND account_key IS NULL"
)
_SET_PASSWORD = _Stmt("UPDATE players SET password_hash = ? WHERE id = ?")
_INSERT_SESSION = _Stmt(
    "INSERT INTO sessions (token_hash, player, generation, created_at) VALUES (?, ?, ?, ?)"
)
_DELETE_SESSION = _Stmt("DELETE FROM sessions WHERE token_hash = ?")
_REPLACE_TOKEN = _Stmt("UPDATE players SET token_hash = ? WHERE token_hash = ?")
_NEXT_GENERATION = _Stmt("UPDATE players SET generation = ?, token_hash = ? WHERE id = ?")
_DELETE_OLD_SESSIONS = _Stmt("DELETE FROM sessions WHERE player = ? AND generation < ?")
_INSERT_PASSKEY = _Stmt(
    "INSERT INTO passkeys (id, player, public_key, sign_count, name, created_at, used_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_USE_PASSKEY = _Stmt("UPDATE passkeys SET sign_count = ?, used_at = ? WHERE id = ?")
_DELETE_PASSKEY = _Stmt("DELETE FROM passkeys WHERE player = ? AND id = ?")
_RATING_PENDING = _Stmt("INSERT INTO rating_pending (table_id, at) VALUES (?, ?)")
_DELETE_GUEST = _Stmt(f"DELETE FROM players WHERE id = ? AND {_GUEST}")
_INSERT_TABLE = _Stmt(
    "INSERT INTO tables (id, game, options, settings, seed, status, host, created_at,"
    " started_at, finished_at, result, deadlines, clock_deadline)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    json_at=(2, 3, 10, 11),
)
_SET_HOST = _Stmt("UPDATE tables SET host = ? WHERE id = ?")
_SET_SETTINGS = _Stmt("UPDATE tables SET settings = ? WHERE id = ?", json_at=(0,))
_SET_OPTIONS = _Stmt("UPDATE tables SET options = ? WHERE id = ?", json_at=(0,))
_START_TABLE = _Stmt(
    "UPDATE tables SET status = 'playing', started_at = ?, deadlines = ?, clock_deadline = ?"
    " WHERE id = ?",
    json_at=(1,),
)
_SET_TIMERS = _Stmt(
    "UPDATE tables SET deadlines = ?, clock_deadline = ? WHERE id = ?", json_at=(0,)
)
_FINISH_TABLE = _Stmt(
    "UPDATE tables SET status = 'finished', finished_at = ?, result = ?, deadlines = '{}',"
    " clock_deadline = NULL WHERE id = ?",
    json_at=(1,),
)
_SET_STATISTICS = _Stmt("UPDATE tables SET statistics = ? WHERE id = ?", json_at=(0,))
_DELETE_TABLE = _Stmt("DELETE FROM tables WHERE id = ?")
_SET_UNWATCHED = _Stmt("UPDATE tables SET unwatched_at = ? WHERE id = ?")
_SET_REMATCH = _Stmt("UPDATE tables SET rematch = ? WHERE id = ?")
_INSERT_SEAT = _Stmt(
    "INSERT INTO seats (table_id, seat, kind, player, level, left_player) VALUES (?, ?, ?, ?, ?, ?)"
)
_DELETE_SEATS = _Stmt("DELETE FROM seats WHERE table_id = ?")
_INSERT_REMOVED = _Stmt("INSERT INTO removed_players (table_id, player) VALUES (?, ?)")
_DELETE_REMOVED = _Stmt("DELETE FROM removed_players WHERE table_id = ?")
_INSERT_MOVE = _Stmt(
    "INSERT INTO moves (table_id, n, seat, move, at, actor) VALUES (?, ?, ?, ?, ?, ?)",
    json_at=(3,),
)
#: PostgreSQL's: a move and its table's timers (if parameter 10, ``changed``) in one
#: statement, so that the moves of a group are one ``executemany``: one round trip.
_PG_APPEND_MOVE = _Stmt(
    "WITH appended AS (INSERT INTO moves (table_id, n, seat, move, at, actor)"
    " VALUES (?, ?, ?, ?, ?, ?))"
    " UPDATE tables SET deadlines = ?, clock_deadline = ? WHERE id = ? AND ?",
    json_at=(3, 6),
)
_DELETE_MOVES = _Stmt("DELETE FROM moves WHERE table_id = ?")
_INSERT_CHAT = _Stmt(
    "INSERT INTO chat (table_id, line, player, name, text, at) VALUES (?, ?, ?, ?, ?, ?)"
)
_DELETE_CHAT = _Stmt("DELETE FROM chat WHERE table_id = ?")
_INSERT_PICTURE_SET = _Stmt(
    "INSERT INTO picture_sets (id, size, created_at, owner, bytes, used_at)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
_USE_PICTURE_SET = _Stmt("UPDATE picture_sets SET used_at = ? WHERE id = ?")
#: A set no table has named since before the time given (nor since it was made).
_UNUSED_SET = "COALESCE(picture_sets.used_at, picture_sets.created_at) < ?"
_DELETE_UNUSED_PICTURES = _Stmt(
    "DELETE FROM pictures WHERE set_id = ? AND EXISTS (SELECT 1 FROM picture_sets"
    f" WHERE picture_sets.id = pictures.set_id AND {_UNUSED_SET})"
)
_DELETE_UNUSED_SET = _Stmt(f"DELETE FROM picture_sets WHERE id = ? AND {_UNUSED_SET}")
_INSERT_PICTURE = _Stmt("INSERT INTO pictures (set_id, n, data, media_type) VALUES (?, ?, ?, ?)")

Op = tuple[_Stmt, tuple[Any, ...]]


class _Write:
    """One write: its statements, all about one thing (``key``: a table, a player, a picture set).

    ``conflict`` is the message of the :class:`Conflict` raised if it breaks a uniqueness
    rule (the database's own message otherwise).
    """

    __slots__ = ("conflict", "key", "statements")

    def __init__(self, key: tuple[str, str], statements: list[Op], conflict: str = "") -> None:
        self.key = key
        self.statements = statements
        self.conflict = conflict

    def ops(self, pg: bool = False) -> list[Op]:
        return self.statements


class _MoveWrite:
    """A move to append, the hot path: its statements are made where the group is planned."""

    __slots__ = ("move", "rated", "result", "statistics", "table_id", "timers")
    conflict = ""

    def __init__(
        self,
        table_id: str,
        move: MoveRecord,
        timers: Timers | None,
        result: Mapping[str, object] | None,
        rated: bool = False,
        statistics: Sequence[Mapping[str, int]] | None = None,
    ) -> None:
        self.table_id = table_id
        self.move = move
        self.timers = timers
        self.result = result
        self.rated = rated
        self.statistics = statistics

    @property
    def key(self) -> tuple[str, str]:
        return ("table", self.table_id)

    def ops(self, pg: bool = False) -> list[Op]:
        """Its statements (``pg``: PostgreSQL's, the move and its timers in one)."""
        m, table_id, timers, result = self.move, self.table_id, self.timers, self.result
        move = (table_id, m.n, m.seat, m.move, m.at, m.actor)
        ops: list[Op]
        if pg:
            if timers is None or result is not None:
                ops = [(_PG_APPEND_MOVE, (*move, None, None, table_id, False))]
            else:
                row = (*move, dict(timers.deadlines), timers.clock_deadline, table_id, True)
                ops = [(_PG_APPEND_MOVE, row)]
        else:
            ops = [(_INSERT_MOVE, move)]
            if timers is not None and result is None:
                row = (dict(timers.deadlines), timers.clock_deadline, table_id)
                ops.append((_SET_TIMERS, row))
        if result is not None:
            ops.extend(_finish_ops(table_id, m.at, result, self.statistics))
            if self.rated:
                ops.append((_RATING_PENDING, (table_id, m.at)))
        return ops


def _finish_ops(
    table_id: str,
    at: int,
    result: Mapping[str, object],
    statistics: Sequence[Mapping[str, int]] | None,
) -> list[Op]:
    """Finish a table; its statistics too, if given (never a JSON null: NULL means
    "not made yet", which the start-up looks for)."""
    ops: list[Op] = [(_FINISH_TABLE, (at, dict(result), table_id))]
    if statistics is not None:
        ops.append((_SET_STATISTICS, ([dict(s) for s in statistics], table_id)))
    return ops


AnyWrite = _Write | _MoveWrite
#: Per write of a group: ``None`` (committed) or what its caller gets raised.
Outcomes = list[BaseException | None]
#: A cluster's check at the start of a group commit: given the writer's connection (inside
#: the group's transaction) and the tables the group writes, the tables it may not write.
Fence = Callable[[Any, Collection[str]], Awaitable[Collection[str]]]


def _tables_written(writes: Sequence[AnyWrite]) -> set[str]:
    return {write.key[1] for write in writes if write.key[0] == "table"}


async def _apply_fence(
    fence: Fence, conn: Any, writes: list[AnyWrite], outcomes: Outcomes
) -> list[AnyWrite]:
    """Run ``fence``; fail the refused tables' writes in ``outcomes``; return the others."""
    refused = set(await fence(conn, _tables_written(writes)))
    if not refused:
        return writes
    kept = []
    for i, write in enumerate(writes):
        if write.key[0] == "table" and write.key[1] in refused:
            outcomes[i] = Fenced([write.key[1]])
        else:
            kept.append(write)
    return kept


def _batches(
    writes: Sequence[AnyWrite], pg: bool = False
) -> list[tuple[_Stmt, list[tuple[Any, ...]]]]:
    """The statements of ``writes`` as few ``executemany`` batches as keep their effect.

    A statement joins the last batch of its kind unless a later batch holds a statement
    about the same thing (the same ``key``): statements about different things touch
    different rows and commute, and those about one thing keep their order.  So the
    moves of a group of tables are one insert and their timers one update, whatever
    came between them.  (An order the database refuses only fails the group, and
    failed groups are retried one write at a time, in order.)
    """
    batches: list[tuple[_Stmt, list[tuple[Any, ...]]]] = []
    last_of_kind: dict[_Stmt, int] = {}
    last_of_key: dict[tuple[str, str], int] = {}
    for write in writes:
        key = write.key
        for stmt, row in write.ops(pg):
            at = last_of_kind.get(stmt, -1)
            if at < 0 or at < last_of_key.get(key, -1):
                at = last_of_kind[stmt] = len(batches)
                batches.append((stmt, []))
            batches[at][1].append(row)
            last_of_key[key] = at
    return batches


Kinds = type[BaseException] | tuple[type[BaseException], ...]

#: What the database raises when it cannot write now, for the SQLite writer thread (disk
#: full, an I/O error, a lock held too long) and SQLAlchemy's engine.
SQLITE_UNAVAILABLE: Kinds = sqlite3.OperationalError
ENGINE_UNAVAILABLE: Kinds = OperationalError


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached or written now (it is restarting,
    down, out of disk), rather than a bug: the caller answers ``store_unavailable``.

    Writes already fail with :class:`StoreUnavailable`; this also covers a read that meets
    a connection the database closed (SQLAlchemy's ``InterfaceError``, asyncpg's own).

    >>> is_unavailable(StoreUnavailable("disk full")), is_unavailable(KeyError("x"))
    (True, False)
    """
    if isinstance(exc, StoreUnavailable | SQLITE_UNAVAILABLE | OperationalError | InterfaceError):
        return True
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    try:
        kinds = _asyncpg_unavailable()
    except ImportError:
        return False
    return isinstance(exc, kinds)


def _asyncpg_unavailable() -> Kinds:
    """asyncpg's: the server is gone or going, or out of disk or memory.

    ``InternalClientError`` is a connection left mid-operation by a lost server ("cannot
    switch to state …"): the statement was never sent, and the connection is dropped.
    """
    import asyncpg

    return (
        OSError,
        TimeoutError,
        asyncpg.InterfaceError,
        asyncpg.InternalClientError,
        asyncpg.PostgresConnectionError,
        asyncpg.InsufficientResourcesError,
        asyncpg.OperatorInterventionError,
    )


def _outcome(exc: Exception, write: AnyWrite, integrity: Kinds, unavailable: Kinds) -> Exception:
    """What the caller of a write that failed alone gets: a broken rule is a :class:`Conflict`,
    a database that cannot write now :class:`StoreUnavailable`.
    """
    if isinstance(exc, integrity):
        return Conflict(write.conflict or str(getattr(exc, "orig", None) or exc))
    if _caused_by(exc, unavailable):
        return StoreUnavailable(str(getattr(exc, "orig", None) or exc))
    return exc


def _caused_by(exc: BaseException, kinds: Kinds) -> bool:
    """Whether ``exc`` or what it wraps (SQLAlchemy's ``orig``, an exception's cause) is one
    of ``kinds``: a connection the engine could not open, for instance, while PostgreSQL
    is starting up, reaches the writer wrapped in SQLAlchemy's errors."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, kinds):
            return True
        orig = getattr(current, "orig", None)
        todo += [orig if isinstance(orig, BaseException) else None, current.__cause__]
    return False


def _commit_sqlite(db: sqlite3.Connection, writes: Sequence[AnyWrite]) -> Outcomes:
    """Commit a group on the writer thread; a failed group is retried one write at a time."""
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            for stmt, rows in _batches(writes):
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
            return [_outcome(exc, writes[0], sqlite3.IntegrityError, SQLITE_UNAVAILABLE)]
        return [_commit_sqlite(db, [write])[0] for write in writes]
    return [None] * len(writes)


class _Call:
    """A function for the writer thread to run with its connection (tests look with it)."""

    __slots__ = ("args", "fn")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.fn = fn
        self.args = args


class _SqliteWriter:
    """The SQLite writer: a thread with its own ``sqlite3`` connection to the database file.

    The event loop appends each write to ``pending`` (and rings ``bell`` only if the
    thread sleeps); the thread takes every write pending when it gets to them as its
    next group, commits it (:func:`_commit_sqlite`) and answers the whole group with a
    single callback on the loop.  So a group costs the event loop one hop back, and a
    wake-up only when the writer was idle: under load the thread is busy and is never
    woken, it just finds the next group waiting.
    """

    def __init__(self, path: str) -> None:
        self._path = path
        #: Given each group commit's seconds, on the writer thread (see SqlStore.on_commit).
        self.on_commit: Callable[[float], None] | None = None
        self._pending: deque[tuple[AnyWrite | _Call, asyncio.Future[Any]]] = deque()
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
        self._pending.append((_Call(lambda db: None, ()), opened))  # raises if it can't open
        self._ring()
        try:
            await opened
        except BaseException:
            await self.close()
            raise

    def write(self, job: AnyWrite | _Call) -> asyncio.Future[Any]:
        """Queue a write (or a call); the future is answered once the commit holding it is."""
        if self._done is None or self._done.done() or self._closing:
            raise RuntimeError("the store is closed")
        future = self._loop.create_future()
        self._pending.append((job, future))
        if self._idle:
            self._ring()
        return future

    def call(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """``fn(connection, *args)`` on the writer thread, between two groups."""
        return self.write(_Call(fn, args))

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
        loop, pending = self._loop, self._pending
        assert loop is not None
        db: sqlite3.Connection | None = None
        try:
            while True:
                self._idle = True
                if not pending:  # (checked after saying so: a write then rings)
                    if self._closing:
                        return
                    self._bell.get()  # a ring, or a spare one from an earlier ring
                self._idle = False
                group: list[tuple[AnyWrite | _Call, asyncio.Future[Any]]] = []
                while pending and len(group) < GROUP_LIMIT:
                    if isinstance(pending[0][0], _Call) and group:
                        break
                    group.append(pending.popleft())
                    if isinstance(group[0][0], _Call):
                        break
                if not group:
                    continue
                outcomes: list[Any]
                try:
                    if db is None:
                        db = sqlite3.connect(self._path, isolation_level=None)
                        _sqlite_pragmas(db)
                    job = group[0][0]
                    if isinstance(job, _Call):
                        outcomes = [(job.fn(db, *job.args), None)]
                    else:
                        began = time.perf_counter()
                        done = _commit_sqlite(db, [write for write, _ in group])  # type: ignore[misc]
                        if self.on_commit is not None:
                            self.on_commit(time.perf_counter() - began)
                        outcomes = [(None, error) for error in done]
                except Exception as exc:  # could not even open the database
                    if isinstance(exc, SQLITE_UNAVAILABLE):
                        exc = StoreUnavailable(str(exc))
                    outcomes = [(None, exc)] * len(group)
                with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                    loop.call_soon_threadsafe(_answer, group, outcomes)
        finally:
            if db is not None:
                db.close()
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_answer, [(None, self._done)], [(None, None)])


def _answer(
    group: list[tuple[Any, asyncio.Future[Any]]], outcomes: list[tuple[Any, BaseException | None]]
) -> None:
    for (_, future), (result, error) in zip(group, outcomes, strict=True):
        if future.done():  # the caller gave up waiting (cancelled)
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)


class SqlStore(Store):
    """:class:`Store` on any SQLAlchemy async URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        parsed = sa.engine.make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        # SQLite's driver opens no transaction for reads, so the pool's rollback on each
        # return would only cost another hop to the database thread.
        options: dict[str, Any] = {"pool_reset_on_return": None} if self.is_sqlite else {}
        self.engine: AsyncEngine = create_async_engine(url, **options)
        if self.is_sqlite:
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        path = parsed.database
        #: The writer thread of a SQLite file (an in-memory database lives in the engine's
        #: one connection, so its writes go through the engine).
        self._sqlite = (
            _SqliteWriter(path)
            if self.is_sqlite and path and path != ":memory:" and not parsed.query
            else None
        )
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
        async with self.engine.begin() as conn:
            await conn.run_sync(schema.metadata.create_all)
            await conn.run_sync(_add_new_columns)
            await conn.run_sync(_add_new_indexes)
            await conn.run_sync(_move_deck_images)
            await conn.run_sync(_count_picture_bytes)
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
        while not self._closing.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), CHECKPOINT_SECONDS)
            if not self._closing.is_set():
                await self._checkpoint("PASSIVE")

    async def _checkpoint(self, mode: str) -> tuple[int, int, int] | None:
        """Copy the WAL into the database; PASSIVE never waits for (or blocks) the writer.

        Returns SQLite's answer: (busy, frames in the WAL, frames copied).
        """
        try:
            async with self.engine.connect() as conn:
                row = (await conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")).first()
                return None if row is None else (row[0], row[1], row[2])
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
            if self._on_commit is not None:
                self._on_commit(time.perf_counter() - began)
            for (_, future), outcome in zip(group, outcomes, strict=True):
                if not future.done():  # the caller gave up waiting (cancelled)
                    if outcome is None:
                        future.set_result(None)
                    else:
                        future.set_exception(outcome)
            if stop:
                return

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
            fence = self.fence if _tables_written(writes) else None
            if fence is None and len(batches := _batches(writes, pg=True)) == 1:
                stmt, rows = batches[0]
                await pg.executemany(stmt.pg, [stmt.encode(row) for row in rows])  # atomic
            else:
                async with pg.transaction():
                    kept = (
                        writes if fence is None else await _apply_fence(fence, pg, writes, outcomes)
                    )
                    for stmt, rows in _batches(kept, pg=True):
                        await pg.executemany(stmt.pg, [stmt.encode(row) for row in rows])
        except Exception as exc:
            if self._pg is not None and (
                self._pg[1].is_closed() or not isinstance(exc, asyncpg.PostgresError)
            ):
                await self._drop_pg(invalidate=True)
            if len(writes) == 1:
                integrity = asyncpg.IntegrityConstraintViolationError
                return [_outcome(exc, writes[0], integrity, _asyncpg_unavailable())]
            return [(await self._commit_asyncpg([write]))[0] for write in writes]
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
                if self.fence is not None and _tables_written(writes):
                    kept = await _apply_fence(self.fence, conn, writes, outcomes)
                for stmt, rows in _batches(kept):
                    await conn.execute(
                        stmt.text,
                        [dict(zip(stmt.keys, stmt.encode(row), strict=True)) for row in rows],
                    )
        except Exception as exc:
            if len(writes) == 1:
                return [_outcome(exc, writes[0], IntegrityError, ENGINE_UNAVAILABLE)]
            return [(await self._commit_engine([write]))[0] for write in writes]
        return outcomes

    # --- players ---------------------------------------------------------------

    async def create_player(self, player: PlayerRecord) -> None:
        row = (player.id, player.name, player.token_hash, player.created_at)
        await self._write(_Write(("player", player.id), [(_INSERT_PLAYER, row)]))

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        p, s = schema.players.c, schema.sessions.c
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(sa.select(schema.players).where(p.token_hash == token_hash))
            ).first()
            if row is None:  # a sign-in of an account, of its current generation
                row = (
                    await conn.execute(
                        sa.select(schema.players)
                        .join(schema.sessions, s.player == p.id)
                        .where(
                            s.token_hash == token_hash,
                            s.generation == sa.func.coalesce(p.generation, 0),
                        )
                    )
                ).first()
        return _player(row) if row else None

    # --- accounts ----------------------------------------------------------------

    async def account(self, player_id: str) -> AccountRecord | None:
        return await self._account(schema.players.c.id == player_id)

    async def account_by_key(self, key: str) -> AccountRecord | None:
        return await self._account(schema.players.c.account_key == key)

    async def _account(self, where: Any) -> AccountRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(schema.players).where(where))).first()
        if row is None or row.account_key is None:
            return None
        return AccountRecord(
            _player(row), row.account_name, row.account_key, row.password_hash, row.generation or 0
        )

    async def make_account(
        self, player_id: str, name: str, key: str, password_hash: str | None
    ) -> None:
        row = (name, key, password_hash, player_id)
        conflict = "this account name is taken"
        await self._write(_Write(("player", player_id), [(_MAKE_ACCOUNT, row)], conflict))

    async def set_password(self, player_id: str, password_hash: str | None) -> None:
        row = (password_hash, player_id)
        await self._write(_Write(("player", player_id), [(_SET_PASSWORD, row)]))

    async def add_session(self, token_hash: str, player_id: str, generation: int, at: int) -> None:
        row = (token_hash, player_id, generation, at)
        await self._write(_Write(("player", player_id), [(_INSERT_SESSION, row)]))

    async def end_session(self, token_hash: str, replacement: str) -> None:
        ops: list[Op] = [
            (_DELETE_SESSION, (token_hash,)),
            (_REPLACE_TOKEN, (replacement, token_hash)),
        ]
        await self._write(_Write(("session", token_hash), ops))

    async def end_sessions(self, player_id: str, generation: int, replacement: str) -> None:
        ops: list[Op] = [
            (_NEXT_GENERATION, (generation, replacement, player_id)),
            (_DELETE_OLD_SESSIONS, (player_id, generation)),
        ]
        await self._write(_Write(("player", player_id), ops))

    async def add_passkey(self, passkey: PasskeyRecord) -> None:
        k = passkey
        row = (k.id, k.player, k.public_key, k.sign_count, k.name, k.created_at, k.used_at)
        conflict = "this passkey is known already"
        await self._write(_Write(("player", k.player), [(_INSERT_PASSKEY, row)], conflict))

    async def passkey(self, credential_id: str) -> PasskeyRecord | None:
        c = schema.passkeys.c
        async with self.engine.connect() as conn:
            query = schema.passkeys.select().where(c.id == credential_id)
            row = (await conn.execute(query)).first()
        return _passkey(row) if row else None

    async def passkeys(self, player_id: str) -> list[PasskeyRecord]:
        c = schema.passkeys.c
        query = schema.passkeys.select().where(c.player == player_id).order_by(c.created_at, c.id)
        async with self.engine.connect() as conn:
            return [_passkey(row) for row in await conn.execute(query)]

    async def use_passkey(self, credential_id: str, sign_count: int, at: int) -> None:
        row = (sign_count, at, credential_id)
        await self._write(_Write(("passkey", credential_id), [(_USE_PASSKEY, row)]))

    async def delete_passkey(self, player_id: str, credential_id: str) -> None:
        row = (player_id, credential_id)
        await self._write(_Write(("player", player_id), [(_DELETE_PASSKEY, row)]))

    # --- passkey challenges ------------------------------------------------------------

    async def add_challenge(self, challenge: ChallengeRecord, now: int, limit: int) -> bool:
        return await self._transaction(_add_challenge, challenge, now, limit)

    async def take_challenge(self, challenge_id: str, now: int) -> ChallengeRecord | None:
        return await self._transaction(_take_challenge, challenge_id, now)

    async def _transaction(self, body: Callable[..., T], *args: Any) -> T:
        """``body(run, *args)`` in a transaction of its own (on SQLite's writer thread)."""
        if self._sqlite is not None:
            return await self._sqlite.call(_on_sqlite, body, *args)
        try:
            async with self.engine.begin() as conn:
                return await conn.run_sync(lambda c: body(_sa_runner(c), *args))
        except Exception as exc:  # as for a write: PostgreSQL gone is no bug of the caller
            if is_unavailable(exc) and not isinstance(exc, StoreUnavailable):
                raise StoreUnavailable(str(exc)) from exc
            raise

    async def players(self, ids: Iterable[str]) -> dict[str, PlayerRecord]:
        wanted = set(ids)
        if not wanted:
            return {}
        async with self.engine.connect() as conn:
            return await _players_by_id(conn, wanted)

    async def rename_player(self, player_id: str, name: str) -> None:
        await self._write(_Write(("player", player_id), [(_RENAME_PLAYER, (name, player_id))]))

    async def player_seen(self, player_id: str, at: int) -> None:
        await self._write(_Write(("player", player_id), [(_PLAYER_SEEN, (at, player_id))]))

    async def guests(self, seen_before: int, limit: int = 1000) -> list[PlayerRecord]:
        query = sa.text(
            f"SELECT * FROM players WHERE {_GUEST.replace('?', ':before')}"
            " ORDER BY COALESCE(seen_at, created_at), id LIMIT :limit"
        )
        async with self.engine.connect() as conn:
            rows = await conn.execute(query, {"before": seen_before, "limit": limit})
            return [_player(row) for row in rows]

    async def delete_guests(self, ids: Iterable[str], seen_before: int | None) -> int:
        wanted = sorted(set(ids))
        if not wanted:
            return 0
        before = ANY_TIME if seen_before is None else seen_before
        rows = [(player_id, before) for player_id in wanted]
        ops: list[Op] = [(_DELETE_GUEST, row) for row in rows]
        await self._write(_Write(("guests", ""), ops))
        gone = await self.players(wanted)
        return len(wanted) - len(gone)

    # --- tables ------------------------------------------------------------------

    async def create_table(self, table: TableRecord, seats: Iterable[SeatRecord]) -> None:
        t = table
        row = (
            t.id,
            t.game,
            t.options,
            t.settings,
            t.seed,
            t.status,
            t.host,
            t.created_at,
            t.started_at,
            t.finished_at,
            t.result,
            dict(t.deadlines),
            t.clock_deadline,
        )
        ops: list[Op] = [(_INSERT_TABLE, row), *_seat_ops(t.id, seats)]
        await self._write(_Write(("table", t.id), ops))

    async def save_seats(
        self, table_id: str, seats: Iterable[SeatRecord], host: str | None
    ) -> None:
        ops = [
            (_DELETE_SEATS, (table_id,)),
            *_seat_ops(table_id, seats),
            (_SET_HOST, (host, table_id)),
        ]
        await self._write(_Write(("table", table_id), ops))

    async def remove_from_table(
        self, table_id: str, seats: Iterable[SeatRecord], host: str | None, player: str
    ) -> None:
        ops = [
            (_DELETE_SEATS, (table_id,)),
            *_seat_ops(table_id, seats),
            (_SET_HOST, (host, table_id)),
            (_INSERT_REMOVED, (table_id, player)),
        ]
        await self._write(_Write(("table", table_id), ops, f"{player} was removed already"))

    async def save_settings(
        self,
        table_id: str,
        settings: Mapping[str, object],
        options: Mapping[str, object] | None = None,
    ) -> None:
        ops: list[Op] = [(_SET_SETTINGS, (dict(settings), table_id))]
        if options is not None:
            ops.append((_SET_OPTIONS, (dict(options), table_id)))
        await self._write(_Write(("table", table_id), ops))

    async def delete_table(self, table_id: str) -> None:
        children = (_DELETE_CHAT, _DELETE_MOVES, _DELETE_SEATS, _DELETE_REMOVED)
        ops = [(stmt, (table_id,)) for stmt in children]
        ops.append((_DELETE_TABLE, (table_id,)))
        await self._write(_Write(("table", table_id), ops))

    async def start_table(
        self, table_id: str, started_at: int, seats: Iterable[SeatRecord], timers: Timers
    ) -> None:
        ops = [
            (_DELETE_SEATS, (table_id,)),
            *_seat_ops(table_id, seats),
            (
                _START_TABLE,
                (started_at, dict(timers.deadlines), timers.clock_deadline, table_id),
            ),
        ]
        await self._write(_Write(("table", table_id), ops))

    async def append_move(
        self,
        table_id: str,
        move: MoveRecord,
        timers: Timers | None = None,
        result: Mapping[str, object] | None = None,
        rated: bool = False,
        statistics: Sequence[Mapping[str, int]] | None = None,
    ) -> None:
        await self._write(_MoveWrite(table_id, move, timers, result, rated, statistics))

    async def set_timers(self, table_id: str, timers: Timers) -> None:
        row = (dict(timers.deadlines), timers.clock_deadline, table_id)
        await self._write(_Write(("table", table_id), [(_SET_TIMERS, row)]))

    async def set_unwatched(self, table_id: str, since: int | None) -> None:
        await self._write(_Write(("table", table_id), [(_SET_UNWATCHED, (since, table_id))]))

    async def set_rematch(self, table_id: str, rematch: str) -> None:
        await self._write(_Write(("table", table_id), [(_SET_REMATCH, (rematch, table_id))]))

    async def unwatched_tables(self, before: int) -> list[str]:
        t = schema.tables.c
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(t.id).where(t.status == "playing", t.unwatched_at < before)
            )
            return [row.id for row in rows]

    async def waiting_tables_hosted(self, player_id: str) -> int:
        t = schema.tables.c
        query = sa.select(sa.func.count()).where(t.host == player_id, t.status == "waiting")
        async with self.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def end_table(
        self,
        table_id: str,
        at: int,
        result: Mapping[str, object],
        statistics: Sequence[Mapping[str, int]] | None = None,
    ) -> None:
        ops = _finish_ops(table_id, at, result, statistics)
        await self._write(_Write(("table", table_id), ops))

    # --- statistics ------------------------------------------------------------------

    async def unsummarised_tables(self, limit: int = 100) -> list[str]:
        t = schema.tables.c
        query = (
            sa.select(t.id)
            .where(t.status == "finished", t.statistics.is_(None))
            .order_by(t.finished_at, t.id)
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            return [row.id for row in await conn.execute(query)]

    async def save_statistics(self, table_id: str, statistics: Sequence[Mapping[str, int]]) -> None:
        # Not a "table" write: a finished table has no owner in a cluster to fence it.
        row = ([dict(s) for s in statistics], table_id)
        await self._write(_Write(("statistics", table_id), [(_SET_STATISTICS, row)]))

    # --- ratings -------------------------------------------------------------------

    async def pending_ratings(self) -> list[str]:
        c = schema.rating_pending.c
        async with self.engine.connect() as conn:
            rows = await conn.execute(sa.select(c.table_id).order_by(c.at, c.table_id))
            return [row.table_id for row in rows]

    async def settle_ratings(
        self,
        table_id: str,
        game: str,
        players: Sequence[str],
        update: Callable[[dict[str, RatingRecord]], list[RatingRecord]],
    ) -> bool:
        args = (table_id, game, tuple(players), update)
        if self._sqlite is not None:
            return await self._sqlite.call(_on_sqlite, _settle, *args)
        async with self.engine.begin() as conn:
            pg = conn.dialect.name == "postgresql"
            return await conn.run_sync(lambda c: _settle(_sa_runner(c), *args, lock=pg))

    async def ratings_of(self, player: str) -> list[RatingRecord]:
        c = schema.ratings.c
        query = schema.ratings.select().where(c.player == player).order_by(c.game)
        async with self.engine.connect() as conn:
            return [_rating(row) for row in await conn.execute(query)]

    async def rating_history(self, player: str, game: str, limit: int = 200) -> list[RatingRecord]:
        c = schema.rating_history.c
        query = (
            schema.rating_history.select()
            .where(c.player == player, c.game == game)
            .order_by(c.at.desc(), c.table_id.desc())
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = [
                RatingRecord(r.player, r.game, r.mu, r.sigma, r.games, r.at, r.table_id)
                for r in await conn.execute(query)
            ]
        return rows[::-1]

    async def leaderboard(self, game: str, min_games: int, limit: int = 100) -> list[RatingRecord]:
        c = schema.ratings.c
        query = (
            schema.ratings.select()
            .where(c.game == game, c.games >= min_games, ~c.player.like("bot:%"))
            .order_by((c.mu - 3 * c.sigma).desc(), c.player)
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            return [_rating(row) for row in await conn.execute(query)]

    async def bot_ratings(self, game: str) -> list[RatingRecord]:
        c = schema.ratings.c
        query = schema.ratings.select().where(c.game == game, c.player.like("bot:%"))
        async with self.engine.connect() as conn:
            return [_rating(row) for row in await conn.execute(query.order_by(c.player))]

    async def add_chat(self, line: ChatRecord) -> None:
        row = (line.table_id, line.line, line.player, line.name, line.text, line.at)
        conflict = f"table {line.table_id} already has chat line {line.line}"
        await self._write(_Write(("table", line.table_id), [(_INSERT_CHAT, row)], conflict))

    # --- uploaded pictures -----------------------------------------------------------

    async def add_picture_set(
        self,
        set_id: str,
        pictures: Sequence[tuple[bytes, str]],
        created_at: int,
        owner: str | None = None,
    ) -> None:
        size = sum(len(data) for data, _ in pictures)
        row = (set_id, len(pictures), created_at, owner, size, created_at)
        ops: list[Op] = [(_INSERT_PICTURE_SET, row)]
        ops += [
            (_INSERT_PICTURE, (set_id, n, data, media)) for n, (data, media) in enumerate(pictures)
        ]
        conflict = f"picture set {set_id} already exists"
        await self._write(_Write(("picture set", set_id), ops, conflict))

    async def picture_usage(self, owner: str | None = None) -> tuple[int, int]:
        c = schema.picture_sets.c
        query = sa.select(sa.func.count(), sa.func.coalesce(sa.func.sum(c.bytes), 0))
        if owner is not None:
            query = query.where(c.owner == owner)
        async with self.engine.connect() as conn:
            count, size = (await conn.execute(query)).one()
        return int(count), int(size)

    async def use_picture_sets(self, set_ids: Iterable[str], at: int) -> None:
        ops: list[Op] = [(_USE_PICTURE_SET, (at, set_id)) for set_id in sorted(set(set_ids))]
        if ops:
            await self._write(_Write(("picture sets", ""), ops))

    async def unused_picture_sets(self, before: int, limit: int = 1000) -> list[str]:
        c = schema.picture_sets.c
        query = (
            sa.select(c.id)
            .where(sa.func.coalesce(c.used_at, c.created_at) < before)
            .order_by(c.id)
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            return [row.id for row in await conn.execute(query)]

    async def picture_sets(self, owner: str | None = None) -> list[PictureSetRecord]:
        c = schema.picture_sets.c
        query = sa.select(schema.picture_sets).order_by(c.created_at, c.id)
        if owner is not None:
            query = query.where(c.owner == owner)
        async with self.engine.connect() as conn:
            return [
                PictureSetRecord(r.id, r.size, r.created_at, r.owner, r.bytes or 0, r.used_at)
                for r in await conn.execute(query)
            ]

    async def delete_picture_sets(self, set_ids: Iterable[str], unused_before: int | None) -> int:
        wanted = sorted(set(set_ids))
        if not wanted:
            return 0
        before = ANY_TIME if unused_before is None else unused_before
        ops: list[Op] = []
        for set_id in wanted:
            ops.append((_DELETE_UNUSED_PICTURES, (set_id, before)))
            ops.append((_DELETE_UNUSED_SET, (set_id, before)))
        c = schema.picture_sets.c
        async with self.engine.connect() as conn:
            before = await conn.scalar(sa.select(sa.func.count()).where(c.id.in_(wanted)))
        await self._write(_Write(("picture sets", ""), ops))
        async with self.engine.connect() as conn:
            after = await conn.scalar(sa.select(sa.func.count()).where(c.id.in_(wanted)))
        return int(before or 0) - int(after or 0)

    async def picture_set_size(self, set_id: str) -> int:
        c = schema.picture_sets.c
        async with self.engine.connect() as conn:
            size = await conn.scalar(sa.select(c.size).where(c.id == set_id))
        return int(size or 0)

    async def picture(self, set_id: str, n: int) -> tuple[bytes, str] | None:
        c = schema.pictures.c
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(c.data, c.media_type).where(c.set_id == set_id, c.n == n)
                )
            ).first()
        return (bytes(row.data), row.media_type) if row else None

    # --- reading tables back -------------------------------------------------------

    async def load_table(self, table_id: str, *, chat: int = 100) -> TableBundle | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(sa.select(schema.tables).where(schema.tables.c.id == table_id))
            ).first()
            if row is None:
                return None
            return (await self._bundles(conn, [_table(row)], chat))[0]

    async def load_open_tables(self, *, chat: int = 100) -> list[TableBundle]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(schema.tables)
                .where(schema.tables.c.status.in_(("waiting", "playing")))
                .order_by(schema.tables.c.created_at)
            )
            return await self._bundles(conn, [_table(r) for r in rows], chat)

    async def finished_tables(self, limit: int = 50) -> list[TableRecord]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(schema.tables)
                .where(schema.tables.c.status == "finished")
                .order_by(schema.tables.c.finished_at.desc())
                .limit(limit)
            )
            return [_table(r) for r in rows]

    async def played_tables(self, player_id: str, limit: int = 50) -> list[TableBundle]:
        t, c = schema.tables.c, schema.seats.c
        held = sa.select(c.table_id).where(
            sa.or_(c.player == player_id, c.left_player == player_id)
        )
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(schema.tables)
                .where(t.status == "finished", t.id.in_(held))
                .order_by(t.finished_at.desc(), t.id)
                .limit(limit)
            )
            records = [_table(r) for r in rows]
            if not records:
                return []
            ids = [r.id for r in records]
            seats = await _seats_by_table(conn, ids)
            named = {p for r in records for p in _named(r, seats[r.id])}
            known = await _players_by_id(conn, named)
        return [
            TableBundle(
                table=r,
                seats=tuple(seats[r.id]),
                moves=(),
                chat=(),
                chat_count=0,
                players={p: known[p] for p in _named(r, seats[r.id]) if p in known},
            )
            for r in records
        ]

    async def _bundles(
        self, conn: AsyncConnection, records: list[TableRecord], chat: int
    ) -> list[TableBundle]:
        """Each table of ``records`` with its seats, moves, last ``chat`` lines and players."""
        if not records:
            return []
        ids = [t.id for t in records]
        seats = await _seats_by_table(conn, ids)
        moves = await _moves_by_table(conn, ids)
        counts, lines = await _chat_by_table(conn, ids, chat)
        removed = await _removed_by_table(conn, ids)
        known = await _players_by_id(conn, {p for t in records for p in _named(t, seats[t.id])})
        return [
            TableBundle(
                table=t,
                seats=tuple(seats[t.id]),
                moves=tuple(moves[t.id]),
                chat=tuple(lines[t.id]),
                chat_count=counts[t.id],
                players={p: known[p] for p in _named(t, seats[t.id]) if p in known},
                removed=frozenset(removed[t.id]),
            )
            for t in records
        ]


# --- reading tables back: one query per kind of row, for many tables at once ------------

#: Most ids in one ``IN`` list: well under every database's parameter limit.
IN_LIST_LIMIT = 500


async def _select_in(
    conn: AsyncConnection, query: Callable[[Sequence[str]], sa.Select[Any]], ids: Sequence[str]
) -> list[Any]:
    """The rows ``query(some_ids)`` gives over all of ``ids``, a slice at a time, in order."""
    rows: list[Any] = []
    for start in range(0, len(ids), IN_LIST_LIMIT):
        rows.extend(await conn.execute(query(ids[start : start + IN_LIST_LIMIT])))
    return rows


async def _seats_by_table(conn: AsyncConnection, ids: Sequence[str]) -> dict[str, list[SeatRecord]]:
    c = schema.seats.c
    seats: dict[str, list[SeatRecord]] = {i: [] for i in ids}
    query = schema.seats.select().order_by(c.table_id, c.seat)
    for row in await _select_in(conn, lambda some: query.where(c.table_id.in_(some)), ids):
        seats[row.table_id].append(_seat(row))
    return seats


async def _removed_by_table(conn: AsyncConnection, ids: Sequence[str]) -> dict[str, set[str]]:
    c = schema.removed_players.c
    removed: dict[str, set[str]] = {i: set() for i in ids}
    query = schema.removed_players.select()
    for row in await _select_in(conn, lambda some: query.where(c.table_id.in_(some)), ids):
        removed[row.table_id].add(row.player)
    return removed


async def _moves_by_table(conn: AsyncConnection, ids: Sequence[str]) -> dict[str, list[MoveRecord]]:
    c = schema.moves.c
    moves: dict[str, list[MoveRecord]] = {i: [] for i in ids}
    query = schema.moves.select().order_by(c.table_id, c.n)
    for row in await _select_in(conn, lambda some: query.where(c.table_id.in_(some)), ids):
        moves[row.table_id].append(MoveRecord(row.n, row.seat, row.move, row.at, row.actor))
    return moves


async def _chat_by_table(
    conn: AsyncConnection, ids: Sequence[str], last: int
) -> tuple[dict[str, int], dict[str, list[ChatRecord]]]:
    """Per table: the number of its last chat line (0: none), and its last ``last`` lines."""
    c = schema.chat.c
    counts: dict[str, int] = dict.fromkeys(ids, 0)
    latest = sa.select(c.table_id, sa.func.max(c.line)).group_by(c.table_id)
    for row in await _select_in(conn, lambda some: latest.where(c.table_id.in_(some)), ids):
        counts[row[0]] = row[1] or 0
    lines: dict[str, list[ChatRecord]] = {i: [] for i in ids}
    query = schema.chat.select().order_by(c.table_id, c.line)
    for row in await _select_in(conn, lambda some: query.where(c.table_id.in_(some)), ids):
        if row.line > counts[row.table_id] - last:
            lines[row.table_id].append(
                ChatRecord(row.table_id, row.line, row.player, row.name, row.text, row.at)
            )
    return counts, lines


async def _players_by_id(conn: AsyncConnection, ids: Iterable[str]) -> dict[str, PlayerRecord]:
    c = schema.players.c
    query = schema.players.select()
    rows = await _select_in(conn, lambda some: query.where(c.id.in_(some)), sorted(set(ids)))
    return {row.id: _player(row) for row in rows}


def _named(table: TableRecord, seats: Iterable[SeatRecord]) -> set[str]:
    """The players a table names: on its seats, gone from them, and its host.

    >>> seats = [SeatRecord(0, "human", "p_a"), SeatRecord(1, "bot", left="p_b")]
    >>> sorted(_named(TableRecord("t_1", "g", {}, {}, 1, "playing", "p_c", 0), seats))
    ['p_a', 'p_b', 'p_c']
    """
    return {p for p in (table.host, *(q for s in seats for q in (s.player, s.left))) if p}


def _seat_ops(table_id: str, seats: Iterable[SeatRecord]) -> list[Op]:
    return [(_INSERT_SEAT, (table_id, s.seat, s.kind, s.player, s.level, s.left)) for s in seats]


def _player(row: Any) -> PlayerRecord:
    return PlayerRecord(row.id, row.name, row.token_hash, row.created_at, row.seen_at)


# --- ratings: one transaction that reads, computes and writes -------------------------

#: Runs one statement (``?`` placeholders) in the transaction: its rows and its row count.
Runner = Callable[[str, Sequence[Any]], tuple[list[Any], int]]

_UPSERT_RATING = (
    "INSERT INTO ratings (player, game, mu, sigma, games, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (player, game) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
    " games = excluded.games, updated_at = excluded.updated_at"
)
_INSERT_RATING_POINT = (
    "INSERT INTO rating_history (table_id, player, game, mu, sigma, games, at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)


def _settle(
    run: Runner,
    table_id: str,
    game: str,
    players: Sequence[str],
    update: Callable[[dict[str, RatingRecord]], list[RatingRecord]],
    *,
    lock: bool = False,
) -> bool:
    """The body of :meth:`SqlStore.settle_ratings`, inside its transaction."""
    _, taken = run("DELETE FROM rating_pending WHERE table_id = ?", (table_id,))
    if taken != 1:
        return False
    wanted = sorted(set(players))
    current: dict[str, RatingRecord] = {}
    if wanted:
        marks = ", ".join("?" * len(wanted))
        rows, _ = run(
            "SELECT player, game, mu, sigma, games, updated_at FROM ratings"
            f" WHERE game = ? AND player IN ({marks}) ORDER BY player"
            + (" FOR UPDATE" if lock else ""),
            (game, *wanted),
        )
        current = {r[0]: RatingRecord(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows}
    for r in update(current):
        run(_UPSERT_RATING, (r.player, game, r.mu, r.sigma, r.games, r.at))
        run(_INSERT_RATING_POINT, (table_id, r.player, game, r.mu, r.sigma, r.games, r.at))
    return True


def _on_sqlite(db: sqlite3.Connection, body: Callable[..., T], *args: Any) -> T:
    """``body(run, *args)`` on the SQLite writer thread, in a transaction of its own."""

    def run(sql: str, params: Sequence[Any]) -> tuple[list[Any], int]:
        cursor = db.execute(sql, tuple(params))
        return cursor.fetchall(), cursor.rowcount

    db.execute("BEGIN IMMEDIATE")
    try:
        done = body(run, *args)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return done


# --- passkey challenges: taken once, whichever process asks ---------------------------

_CHALLENGE_COLUMNS = "id, challenge, purpose, player, name, rp_id, expires_at"


def _add_challenge(run: Runner, c: ChallengeRecord, now: int, limit: int) -> bool:
    run("DELETE FROM passkey_challenges WHERE expires_at < ?", (now,))
    rows, _ = run("SELECT COUNT(*) FROM passkey_challenges", ())
    if rows[0][0] >= limit:
        return False
    row = (c.id, c.challenge, c.purpose, c.player, c.name, c.rp_id, c.expires_at)
    run(f"INSERT INTO passkey_challenges ({_CHALLENGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", row)
    return True


def _take_challenge(run: Runner, challenge_id: str, now: int) -> ChallengeRecord | None:
    rows, _ = run(
        f"SELECT {_CHALLENGE_COLUMNS} FROM passkey_challenges WHERE id = ?", (challenge_id,)
    )
    # Two processes may read it at once: the one whose delete takes the row has it.
    _, taken = run("DELETE FROM passkey_challenges WHERE id = ?", (challenge_id,))
    if not rows or taken != 1:
        return None
    r = rows[0]
    found = ChallengeRecord(r[0], bytes(r[1]), r[2], r[3], r[4], r[5], r[6])
    return found if found.expires_at >= now else None


def _sa_runner(conn: sa.Connection) -> Runner:
    def run(sql: str, params: Sequence[Any]) -> tuple[list[Any], int]:
        stmt = _Stmt(sql)
        result = conn.execute(stmt.text, dict(zip(stmt.keys, params, strict=True)))
        rows = list(result) if result.returns_rows else []
        return rows, result.rowcount

    return run


def _rating(row: Any) -> RatingRecord:
    return RatingRecord(row.player, row.game, row.mu, row.sigma, row.games, row.updated_at)


def _passkey(row: Any) -> PasskeyRecord:
    return PasskeyRecord(
        row.id,
        row.player,
        bytes(row.public_key),
        row.sign_count,
        row.name,
        row.created_at,
        row.used_at,
    )


def _seat(row: Any) -> SeatRecord:
    return SeatRecord(row.seat, row.kind, row.player, row.level, row.left_player)


def _add_new_columns(conn: sa.Connection) -> None:
    """Give a store made by an earlier version the columns added since (nullable ones)."""
    for table in schema.metadata.sorted_tables:
        have = {c["name"] for c in sa.inspect(conn).get_columns(table.name)}
        for column in table.columns:
            if column.name not in have:
                kind = column.type.compile(dialect=conn.dialect)
                conn.execute(sa.text(f"ALTER TABLE {table.name} ADD COLUMN {column.name} {kind}"))


def _add_new_indexes(conn: sa.Connection) -> None:
    """Give a store made by an earlier version the indexes added since."""
    for index in schema.NEW_INDEXES:
        index.create(conn, checkfirst=True)


def _move_deck_images(conn: sa.Connection) -> None:
    """Move the pictures of a store made before picture sets into ``picture_sets`` and
    ``pictures``, in the transaction that opens the store: all of them, or none and the
    old table stays.  (Its rows were picture ``n`` of the set named ``deck_id``.)
    """
    if not sa.inspect(conn).has_table("deck_images"):
        return
    columns = ("deck_id", "n", "data", "media_type", "created_at")
    old = sa.table("deck_images", *(sa.column(name) for name in columns)).c
    sets = sa.select(old.deck_id, sa.func.count(), sa.func.min(old.created_at))
    conn.execute(
        schema.picture_sets.insert().from_select(
            ["id", "size", "created_at"], sets.group_by(old.deck_id)
        )
    )
    conn.execute(
        schema.pictures.insert().from_select(
            ["set_id", "n", "data", "media_type"],
            sa.select(old.deck_id, old.n, old.data, old.media_type),
        )
    )
    conn.execute(sa.text("DROP TABLE deck_images"))


def _count_picture_bytes(conn: sa.Connection) -> None:
    """Count the bytes of the sets stored before sets kept their size in bytes."""
    sets, pictures = schema.picture_sets, schema.pictures
    size = (
        sa.select(sa.func.coalesce(sa.func.sum(sa.func.length(pictures.c.data)), 0))
        .where(pictures.c.set_id == sets.c.id)
        .scalar_subquery()
    )
    conn.execute(sets.update().where(sets.c.bytes.is_(None)).values(bytes=size))


def _table(row: Any) -> TableRecord:
    return TableRecord(
        id=row.id,
        game=row.game,
        options=row.options,
        settings=row.settings,
        seed=row.seed,
        status=row.status,
        host=row.host,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
        result=row.result,
        deadlines=dict(row.deadlines or {}),
        clock_deadline=row.clock_deadline,
        unwatched_at=row.unwatched_at,
        rematch=row.rematch,
        statistics=row.statistics,
    )
