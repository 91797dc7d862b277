"""Tables as they are played: made, seated, set up, started, moved, finished, deleted;
their chat, and the statistics of finished tables."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import sqlalchemy as sa

from bodoge.store import mapping, schema
from bodoge.store.engine import SqlEngine
from bodoge.store.records import ChatRecord, MoveRecord, SeatRecord, TableRecord, Timers
from bodoge.store.writes import SET_STATISTICS, SET_TIMERS, MoveWrite, Op, Stmt, Write, finish_ops

INSERT_TABLE = Stmt(
    "INSERT INTO tables (id, game, options, settings, seed, status, host, created_at,"
    " started_at, finished_at, result, deadlines, clock_deadline)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    json_at=(2, 3, 10, 11),
)
SET_HOST = Stmt("UPDATE tables SET host = ? WHERE id = ?")
SET_SETTINGS = Stmt("UPDATE tables SET settings = ? WHERE id = ?", json_at=(0,))
SET_OPTIONS = Stmt("UPDATE tables SET options = ? WHERE id = ?", json_at=(0,))
START_TABLE = Stmt(
    "UPDATE tables SET status = 'playing', started_at = ?, deadlines = ?, clock_deadline = ?"
    " WHERE id = ?",
    json_at=(1,),
)
DELETE_TABLE = Stmt("DELETE FROM tables WHERE id = ?")
SET_UNWATCHED = Stmt("UPDATE tables SET unwatched_at = ? WHERE id = ?")
SET_REMATCH = Stmt("UPDATE tables SET rematch = ? WHERE id = ?")
INSERT_SEAT = Stmt(
    "INSERT INTO seats (table_id, seat, kind, player, level, left_player) VALUES (?, ?, ?, ?, ?, ?)"
)
DELETE_SEATS = Stmt("DELETE FROM seats WHERE table_id = ?")
INSERT_REMOVED = Stmt("INSERT INTO removed_players (table_id, player) VALUES (?, ?)")
DELETE_REMOVED = Stmt("DELETE FROM removed_players WHERE table_id = ?")
DELETE_MOVES = Stmt("DELETE FROM moves WHERE table_id = ?")
INSERT_CHAT = Stmt(
    "INSERT INTO chat (table_id, line, player, name, text, at) VALUES (?, ?, ?, ?, ?, ?)"
)
DELETE_CHAT = Stmt("DELETE FROM chat WHERE table_id = ?")


class TableQueries(SqlEngine):
    """:class:`~bodoge.store.ports.TableStore`; the rest of
    :class:`~bodoge.store.ports.TablesStore` (but the open tables, read back by
    :mod:`~bodoge.store.loading`) and of :class:`~bodoge.store.ports.StatisticsStore`."""

    async def create_table(self, table: TableRecord, seats: Iterable[SeatRecord]) -> None:
        ops: list[Op] = [(INSERT_TABLE, mapping.table_row(table)), *_seat_ops(table.id, seats)]
        await self._write(Write(("table", table.id), ops))

    async def save_seats(
        self, table_id: str, seats: Iterable[SeatRecord], host: str | None
    ) -> None:
        ops = [
            (DELETE_SEATS, (table_id,)),
            *_seat_ops(table_id, seats),
            (SET_HOST, (host, table_id)),
        ]
        await self._write(Write(("table", table_id), ops))

    async def remove_from_table(
        self, table_id: str, seats: Iterable[SeatRecord], host: str | None, player: str
    ) -> None:
        ops = [
            (DELETE_SEATS, (table_id,)),
            *_seat_ops(table_id, seats),
            (SET_HOST, (host, table_id)),
            (INSERT_REMOVED, (table_id, player)),
        ]
        await self._write(Write(("table", table_id), ops, f"{player} was removed already"))

    async def save_settings(
        self,
        table_id: str,
        settings: Mapping[str, object],
        options: Mapping[str, object] | None = None,
    ) -> None:
        ops: list[Op] = [(SET_SETTINGS, (dict(settings), table_id))]
        if options is not None:
            ops.append((SET_OPTIONS, (dict(options), table_id)))
        await self._write(Write(("table", table_id), ops))

    async def delete_table(self, table_id: str) -> None:
        children = (DELETE_CHAT, DELETE_MOVES, DELETE_SEATS, DELETE_REMOVED)
        ops: list[Op] = [(stmt, (table_id,)) for stmt in children]
        ops.append((DELETE_TABLE, (table_id,)))
        await self._write(Write(("table", table_id), ops))

    async def start_table(
        self, table_id: str, started_at: int, seats: Iterable[SeatRecord], timers: Timers
    ) -> None:
        ops = [
            (DELETE_SEATS, (table_id,)),
            *_seat_ops(table_id, seats),
            (
                START_TABLE,
                (started_at, dict(timers.deadlines), timers.clock_deadline, table_id),
            ),
        ]
        await self._write(Write(("table", table_id), ops))

    async def append_move(
        self,
        table_id: str,
        move: MoveRecord,
        timers: Timers | None = None,
        result: Mapping[str, object] | None = None,
        rated: bool = False,
        statistics: Sequence[Mapping[str, int]] | None = None,
    ) -> None:
        await self._write(MoveWrite(table_id, move, timers, result, rated, statistics))

    async def set_timers(self, table_id: str, timers: Timers) -> None:
        row = (dict(timers.deadlines), timers.clock_deadline, table_id)
        await self._write(Write(("table", table_id), [(SET_TIMERS, row)]))

    async def set_unwatched(self, table_id: str, since: int | None) -> None:
        await self._write(Write(("table", table_id), [(SET_UNWATCHED, (since, table_id))]))

    async def set_rematch(self, table_id: str, rematch: str) -> None:
        await self._write(Write(("table", table_id), [(SET_REMATCH, (rematch, table_id))]))

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
        ops = finish_ops(table_id, at, result, statistics)
        await self._write(Write(("table", table_id), ops))

    async def add_chat(self, line: ChatRecord) -> None:
        row = (line.table_id, line.line, line.player, line.name, line.text, line.at)
        conflict = f"table {line.table_id} already has chat line {line.line}"
        await self._write(Write(("table", line.table_id), [(INSERT_CHAT, row)], conflict))

    # --- statistics ------------------------------------------------------------------

    async def unsummarised_tables(self, limit: int = 100) -> list[str]:
        # Served by the partial index tables_unsummarised, whose condition the query states
        # literally (SQLite matches it against the query's text, not its parameters). SQLite's
        # statistics have no row for an empty index, so its planner would prefer the finished
        # tables' index and read every finished table: INDEXED BY names it.
        hint = "INDEXED BY tables_unsummarised" if self.is_sqlite else ""
        query = sa.text(
            f"SELECT id FROM tables {hint} WHERE status = 'finished' AND statistics IS NULL"
            " ORDER BY finished_at, id LIMIT :limit"
        )
        async with self.engine.connect() as conn:
            return [row.id for row in await conn.execute(query, {"limit": limit})]

    async def save_statistics(self, table_id: str, statistics: Sequence[Mapping[str, int]]) -> None:
        # Not a "table" write: a finished table has no owner in a cluster to fence it.
        row = ([dict(s) for s in statistics], table_id)
        await self._write(Write(("statistics", table_id), [(SET_STATISTICS, row)]))


def _seat_ops(table_id: str, seats: Iterable[SeatRecord]) -> list[Op]:
    return [(INSERT_SEAT, (table_id, s.seat, s.kind, s.player, s.level, s.left)) for s in seats]
