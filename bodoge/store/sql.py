"""The SQLAlchemy 2 (asyncio) store: SQLite by default, PostgreSQL by URL.

Every write goes through one writer task that commits in groups: writes that
arrive while a commit is running are committed together in the next
transaction ("group commit").  Each caller is answered only after the commit
that holds its write, so an acknowledged write survives ``kill -9``.  If a
group fails (say, a duplicate move number), its writes are retried one by
one so that only the faulty one fails.  Consecutive moves in a group are
inserted with one ``executemany``, which is what makes hundreds of moves per
second cheap: each statement costs a hop to the database thread.

>>> sqlite_url("/tmp/bodoge-data")
'sqlite+aiosqlite:////tmp/bodoge-data/bodoge.sqlite3'
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from bodoge.store import schema
from bodoge.store.base import Conflict, Store
from bodoge.store.records import (
    ChatRecord,
    MoveRecord,
    PlayerRecord,
    SeatRecord,
    TableBundle,
    TableRecord,
    Timers,
)

log = logging.getLogger(__name__)

T = TypeVar("T")
Write = Callable[[AsyncConnection], Awaitable[Any]]


@dataclass(frozen=True)
class _MoveWrite:
    """A move to append: the hot path, written in bulk with its neighbours in a group."""

    table_id: str
    move: MoveRecord
    timers: Timers | None
    result: Mapping[str, object] | None


_set_timers = (
    schema.tables.update()
    .where(schema.tables.c.id == sa.bindparam("b_id"))
    .values(deadlines=sa.bindparam("b_deadlines"), clock_deadline=sa.bindparam("b_clock"))
)

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
    await store.start()
    return store


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
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


class SqlStore(Store):
    """:class:`Store` on any SQLAlchemy async URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.is_sqlite = sa.engine.make_url(url).get_backend_name() == "sqlite"
        # SQLite's driver opens no transaction for reads and every write commits, so the
        # pool's rollback on each return would only cost another hop to the database thread.
        options: dict[str, Any] = {"pool_reset_on_return": None} if self.is_sqlite else {}
        self.engine: AsyncEngine = create_async_engine(url, **options)
        if self.is_sqlite:
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self._queue: asyncio.Queue[tuple[Write | _MoveWrite, asyncio.Future[Any]] | None] = (
            asyncio.Queue()
        )
        self._writer: asyncio.Task[None] | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()

    async def start(self) -> None:
        if self.is_sqlite:
            path = self.engine.url.database
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
        async with self.engine.begin() as conn:
            await conn.run_sync(schema.metadata.create_all)
        self._writer = asyncio.create_task(self._write_loop(), name="store-writer")
        if self.is_sqlite:
            self._checkpointer = asyncio.create_task(self._checkpoint_loop(), name="checkpoints")

    async def close(self) -> None:
        self._closing.set()
        if self._checkpointer is not None:
            await self._checkpointer  # lets a running checkpoint finish
            self._checkpointer = None
        if self._writer is not None:
            self._queue.put_nowait(None)
            await self._writer
            self._writer = None
            if self.is_sqlite:
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

    async def _write(self, write: Write | _MoveWrite) -> Any:
        if self._writer is None or self._writer.done():
            raise RuntimeError("the store is closed")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((write, future))
        return await future

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
            await self._commit_group(group)
            if stop:
                return

    async def _commit_group(
        self, group: list[tuple[Write | _MoveWrite, asyncio.Future[Any]]]
    ) -> None:
        try:
            async with self.engine.begin() as conn:
                results: list[Any] = []
                start = 0
                while start < len(group):
                    end = start
                    while end < len(group) and isinstance(group[end][0], _MoveWrite):
                        end += 1
                    if end > start:
                        moves = [w for w, _ in group[start:end]]
                        await _write_moves(conn, moves)  # type: ignore[arg-type]
                        results += [None] * (end - start)
                        start = end
                    else:
                        write = group[start][0]
                        assert not isinstance(write, _MoveWrite)
                        results.append(await write(conn))
                        start += 1
        except Exception as exc:
            if len(group) == 1:
                if isinstance(exc, IntegrityError):
                    exc = Conflict(str(exc.orig))
                _settle(group[0][1], exc=exc)
                return
            for one in group:  # find the faulty write; the others still commit
                await self._commit_group([one])
            return
        for (_, future), result in zip(group, results, strict=True):
            _settle(future, result=result)

    # --- players ---------------------------------------------------------------

    async def create_player(self, player: PlayerRecord) -> None:
        async def write(conn: AsyncConnection) -> None:
            await conn.execute(
                schema.players.insert().values(
                    id=player.id,
                    name=player.name,
                    token_hash=player.token_hash,
                    created_at=player.created_at,
                )
            )

        await self._write(write)

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(schema.players).where(schema.players.c.token_hash == token_hash)
                )
            ).first()
        return _player(row) if row else None

    async def players(self, ids: Iterable[str]) -> dict[str, PlayerRecord]:
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(schema.players).where(schema.players.c.id.in_(wanted))
            )
            return {row.id: _player(row) for row in rows}

    async def rename_player(self, player_id: str, name: str) -> None:
        async def write(conn: AsyncConnection) -> None:
            await conn.execute(
                schema.players.update().where(schema.players.c.id == player_id).values(name=name)
            )

        await self._write(write)

    # --- tables ------------------------------------------------------------------

    async def create_table(self, table: TableRecord, seats: Iterable[SeatRecord]) -> None:
        seat_rows = [_seat_row(table.id, s) for s in seats]

        async def write(conn: AsyncConnection) -> None:
            await conn.execute(schema.tables.insert().values(**_table_row(table)))
            await conn.execute(schema.seats.insert(), seat_rows)

        await self._write(write)

    async def save_seats(
        self, table_id: str, seats: Iterable[SeatRecord], host: str | None
    ) -> None:
        seat_rows = [_seat_row(table_id, s) for s in seats]

        async def write(conn: AsyncConnection) -> None:
            await _replace_seats(conn, table_id, seat_rows)
            await conn.execute(
                schema.tables.update().where(schema.tables.c.id == table_id).values(host=host)
            )

        await self._write(write)

    async def delete_table(self, table_id: str) -> None:
        async def write(conn: AsyncConnection) -> None:
            for child in (schema.chat, schema.moves, schema.seats):
                await conn.execute(child.delete().where(child.c.table_id == table_id))
            await conn.execute(schema.tables.delete().where(schema.tables.c.id == table_id))

        await self._write(write)

    async def start_table(
        self, table_id: str, started_at: int, seats: Iterable[SeatRecord], timers: Timers
    ) -> None:
        seat_rows = [_seat_row(table_id, s) for s in seats]

        async def write(conn: AsyncConnection) -> None:
            await _replace_seats(conn, table_id, seat_rows)
            await conn.execute(
                schema.tables.update()
                .where(schema.tables.c.id == table_id)
                .values(
                    status="playing",
                    started_at=started_at,
                    deadlines=dict(timers.deadlines),
                    clock_deadline=timers.clock_deadline,
                )
            )

        await self._write(write)

    async def append_move(
        self,
        table_id: str,
        move: MoveRecord,
        timers: Timers | None = None,
        result: Mapping[str, object] | None = None,
    ) -> None:
        await self._write(_MoveWrite(table_id, move, timers, result))

    async def set_timers(self, table_id: str, timers: Timers) -> None:
        async def write(conn: AsyncConnection) -> None:
            await conn.execute(
                _set_timers,
                {
                    "b_id": table_id,
                    "b_deadlines": dict(timers.deadlines),
                    "b_clock": timers.clock_deadline,
                },
            )

        await self._write(write)

    async def add_chat(self, line: ChatRecord) -> None:
        async def write(conn: AsyncConnection) -> None:
            try:
                await conn.execute(
                    schema.chat.insert().values(
                        table_id=line.table_id,
                        line=line.line,
                        player=line.player,
                        name=line.name,
                        text=line.text,
                        at=line.at,
                    )
                )
            except IntegrityError as exc:
                raise Conflict(f"table {line.table_id} already has chat line {line.line}") from exc

        await self._write(write)

    # --- uploaded decks --------------------------------------------------------------

    async def add_deck(
        self, deck_id: str, pictures: Sequence[tuple[bytes, str]], created_at: int
    ) -> None:
        rows = [
            {
                "deck_id": deck_id,
                "n": n,
                "data": data,
                "media_type": media,
                "created_at": created_at,
            }
            for n, (data, media) in enumerate(pictures)
        ]

        async def write(conn: AsyncConnection) -> None:
            try:
                await conn.execute(schema.deck_images.insert(), rows)
            except IntegrityError as exc:
                raise Conflict(f"deck {deck_id} already exists") from exc

        await self._write(write)

    async def deck_count(self, deck_id: str) -> int:
        table = schema.deck_images
        async with self.engine.connect() as conn:
            count = await conn.scalar(
                sa.select(sa.func.count()).select_from(table).where(table.c.deck_id == deck_id)
            )
        return int(count or 0)

    async def deck_picture(self, deck_id: str, n: int) -> tuple[bytes, str] | None:
        table = schema.deck_images
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(table.c.data, table.c.media_type).where(
                        table.c.deck_id == deck_id, table.c.n == n
                    )
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

    async def _bundles(
        self, conn: AsyncConnection, records: list[TableRecord], chat: int
    ) -> list[TableBundle]:
        if not records:
            return []
        ids = [t.id for t in records]
        seats: dict[str, list[SeatRecord]] = {i: [] for i in ids}
        moves: dict[str, list[MoveRecord]] = {i: [] for i in ids}
        lines: dict[str, list[ChatRecord]] = {i: [] for i in ids}
        counts: dict[str, int] = dict.fromkeys(ids, 0)
        # Chunks keep the IN lists well under every database's parameter limit.
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            for row in await conn.execute(
                sa.select(schema.seats)
                .where(schema.seats.c.table_id.in_(chunk))
                .order_by(schema.seats.c.table_id, schema.seats.c.seat)
            ):
                seats[row.table_id].append(_seat(row))
            for row in await conn.execute(
                sa.select(schema.moves)
                .where(schema.moves.c.table_id.in_(chunk))
                .order_by(schema.moves.c.table_id, schema.moves.c.n)
            ):
                moves[row.table_id].append(MoveRecord(row.n, row.seat, row.move, row.at, row.actor))
            for row in await conn.execute(
                sa.select(schema.chat.c.table_id, sa.func.max(schema.chat.c.line))
                .where(schema.chat.c.table_id.in_(chunk))
                .group_by(schema.chat.c.table_id)
            ):
                counts[row[0]] = row[1] or 0
            for row in await conn.execute(
                sa.select(schema.chat)
                .where(schema.chat.c.table_id.in_(chunk))
                .order_by(schema.chat.c.table_id, schema.chat.c.line)
            ):
                if row.line > counts[row.table_id] - chat:
                    lines[row.table_id].append(
                        ChatRecord(row.table_id, row.line, row.player, row.name, row.text, row.at)
                    )
        player_ids = {s.player for ss in seats.values() for s in ss if s.player}
        player_ids |= {s.left for ss in seats.values() for s in ss if s.left}
        player_ids |= {t.host for t in records if t.host}
        known: dict[str, PlayerRecord] = {}
        wanted = sorted(player_ids)
        for start in range(0, len(wanted), 500):
            rows = await conn.execute(
                sa.select(schema.players).where(
                    schema.players.c.id.in_(wanted[start : start + 500])
                )
            )
            known.update({row.id: _player(row) for row in rows})
        return [
            TableBundle(
                table=t,
                seats=tuple(seats[t.id]),
                moves=tuple(moves[t.id]),
                chat=tuple(lines[t.id]),
                chat_count=counts[t.id],
                players={
                    p: known[p]
                    for p in {s.player for s in seats[t.id]}
                    | {s.left for s in seats[t.id]}
                    | {t.host}
                    if p and p in known
                },
            )
            for t in records
        ]


async def _write_moves(conn: AsyncConnection, writes: list[_MoveWrite]) -> None:
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
        await conn.execute(_set_timers, timers)
    for w in writes:
        if w.result is not None:
            await conn.execute(
                schema.tables.update()
                .where(schema.tables.c.id == w.table_id)
                .values(
                    status="finished",
                    finished_at=w.move.at,
                    result=dict(w.result),
                    deadlines={},
                    clock_deadline=None,
                )
            )


def _settle(
    future: asyncio.Future[Any], *, result: Any = None, exc: Exception | None = None
) -> None:
    if future.done():  # the caller gave up waiting (cancelled)
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(result)


async def _replace_seats(conn: AsyncConnection, table_id: str, rows: list[dict[str, Any]]) -> None:
    await conn.execute(schema.seats.delete().where(schema.seats.c.table_id == table_id))
    await conn.execute(schema.seats.insert(), rows)


def _table_row(t: TableRecord) -> dict[str, Any]:
    return {
        "id": t.id,
        "game": t.game,
        "options": t.options,
        "settings": t.settings,
        "seed": t.seed,
        "status": t.status,
        "host": t.host,
        "created_at": t.created_at,
        "started_at": t.started_at,
        "finished_at": t.finished_at,
        "result": t.result,
        "deadlines": t.deadlines,
        "clock_deadline": t.clock_deadline,
    }


def _seat_row(table_id: str, s: SeatRecord) -> dict[str, Any]:
    return {
        "table_id": table_id,
        "seat": s.seat,
        "kind": s.kind,
        "player": s.player,
        "level": s.level,
        "left_player": s.left,
    }


def _player(row: Any) -> PlayerRecord:
    return PlayerRecord(row.id, row.name, row.token_hash, row.created_at)


def _seat(row: Any) -> SeatRecord:
    return SeatRecord(row.seat, row.kind, row.player, row.level, row.left_player)


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
    )
