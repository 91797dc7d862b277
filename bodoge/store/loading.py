"""Reading tables back: a table with its seats, moves, chat and players, and the lists of
finished tables; one query per kind of row, for many tables at once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bodoge.store import mapping, schema
from bodoge.store.engine import SqlEngine
from bodoge.store.records import (
    ChatRecord,
    MoveRecord,
    PlayerRecord,
    SeatRecord,
    TableBundle,
    TableRecord,
)

#: Most ids in one ``IN`` list: well under every database's parameter limit.
IN_LIST_LIMIT = 500


class TableLoading(SqlEngine):
    """Tables read back: :class:`~bodoge.store.ports.TableReader`,
    :class:`~bodoge.store.ports.HistoryStore`, and the open tables of
    :class:`~bodoge.store.ports.TablesStore`."""

    async def load_table(self, table_id: str, *, chat: int = 100) -> TableBundle | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(sa.select(schema.tables).where(schema.tables.c.id == table_id))
            ).first()
            if row is None:
                return None
            return (await _bundles(conn, [mapping.table(row)], chat))[0]

    async def load_open_tables(self, *, chat: int = 100) -> list[TableBundle]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(schema.tables)
                .where(schema.tables.c.status.in_(("waiting", "playing")))
                .order_by(schema.tables.c.created_at)
            )
            return await _bundles(conn, [mapping.table(r) for r in rows], chat)

    async def finished_tables(self, limit: int = 50) -> list[TableRecord]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(schema.tables)
                .where(schema.tables.c.status == "finished")
                .order_by(schema.tables.c.finished_at.desc())
                .limit(limit)
            )
            return [mapping.table(r) for r in rows]

    async def played_tables(self, player_id: str, limit: int = 50) -> list[TableBundle]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(played_query(player_id, limit))
            records = [mapping.table(r) for r in rows]
            if not records:
                return []
            ids = [r.id for r in records]
            seats = await _seats_by_table(conn, ids)
            named = {p for r in records for p in _named(r, seats[r.id])}
            known = await players_by_id(conn, named)
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


def played_query(player_id: str, limit: int) -> sa.Select[Any]:
    """The newest ``limit`` finished tables where ``player_id`` held or left a seat.

    The plan starts from the player's own seats (two index lookups) and reads each of their
    tables by its key, so its time follows the player's own games, not every game the store
    has kept: the tables' finished_at index, walked newest first until enough of the player's
    tables turn up, reads the whole store for a player whose games are old.  The seats are
    a materialised CTE, which no planner may fold into the outer query.
    """
    t, c = schema.tables.c, schema.seats.c
    mine = (
        sa.union(
            sa.select(c.table_id).where(c.player == player_id),
            sa.select(c.table_id).where(c.left_player == player_id),
        )
        .cte("mine")
        .prefix_with("MATERIALIZED")
    )
    # The newest first by their keys alone, then the whole rows of those: sorting every one
    # of a busy player's tables whole (options, result, statistics) cost more than reading it.
    newest = (
        sa.select(t.id)
        .join(mine, mine.c.table_id == t.id)
        .where(t.status == sa.literal_column("'finished'"))
        .order_by(t.finished_at.desc(), t.id)
        .limit(limit)
        .cte("newest")
        .prefix_with("MATERIALIZED")
    )
    return (
        sa.select(schema.tables)
        .join(newest, newest.c.id == t.id)
        .order_by(t.finished_at.desc(), t.id)
    )


async def _bundles(
    conn: AsyncConnection, records: list[TableRecord], chat: int
) -> list[TableBundle]:
    """Each table of ``records`` with its seats, moves, last ``chat`` lines and players."""
    if not records:
        return []
    ids = [t.id for t in records]
    seats = await _seats_by_table(conn, ids)
    moves = await _moves_by_table(conn, ids)
    counts, lines = await _chat_by_table(conn, ids, chat)
    removed = await _removed_by_table(conn, ids)
    known = await players_by_id(conn, {p for t in records for p in _named(t, seats[t.id])})
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
        seats[row.table_id].append(mapping.seat(row))
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
        moves[row.table_id].append(mapping.move(row))
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
            lines[row.table_id].append(mapping.chat_line(row))
    return counts, lines


async def players_by_id(conn: AsyncConnection, ids: Iterable[str]) -> dict[str, PlayerRecord]:
    c = schema.players.c
    query = schema.players.select()
    rows = await _select_in(conn, lambda some: query.where(c.id.in_(some)), sorted(set(ids)))
    return {row.id: mapping.player(row) for row in rows}


def _named(table: TableRecord, seats: Iterable[SeatRecord]) -> set[str]:
    """The players a table names: on its seats, gone from them, and its host.

    >>> seats = [SeatRecord(0, "human", "p_a"), SeatRecord(1, "bot", left="p_b")]
    >>> sorted(_named(TableRecord("t_1", "g", {}, {}, 1, "playing", "p_c", 0), seats))
    ['p_a', 'p_b', 'p_c']
    """
    return {p for p in (table.host, *(q for s in seats for q in (s.player, s.left))) if p}
