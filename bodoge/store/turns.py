"""Turn-based play's reads and writes: a player's vacation, and the open tables one sits at."""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa

from bodoge.store import mapping, schema
from bodoge.store.engine import SqlEngine
from bodoge.store.loading import _named, _seats_by_table, players_by_id
from bodoge.store.records import TableBundle, VacationRecord
from bodoge.store.writes import Stmt, Write

SET_VACATION = Stmt(
    "INSERT INTO vacations (player, until, year, days_used) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (player) DO UPDATE SET until = excluded.until, year = excluded.year,"
    " days_used = excluded.days_used"
)


class TurnQueries(SqlEngine):
    """:class:`~bodoge.store.ports.TurnStore`."""

    async def vacation(self, player_id: str) -> VacationRecord | None:
        v = schema.vacations.c
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(sa.select(schema.vacations).where(v.player == player_id))
            ).first()
        return VacationRecord(row.player, row.until, row.year, row.days_used) if row else None

    async def set_vacation(self, vacation: VacationRecord) -> None:
        row = (vacation.player, vacation.until, vacation.year, vacation.days_used)
        await self._write(Write(("player", vacation.player), [(SET_VACATION, row)]))

    async def away_until(self, player_ids: Iterable[str], now: int) -> dict[str, int]:
        wanted = sorted(set(player_ids))
        if not wanted:
            return {}
        v = schema.vacations.c
        query = sa.select(v.player, v.until).where(v.player.in_(wanted), v.until > now)
        async with self.engine.connect() as conn:
            return {row.player: int(row.until) for row in await conn.execute(query)}

    async def open_tables_of(self, player_id: str) -> list[TableBundle]:
        t, c = schema.tables.c, schema.seats.c
        query = (
            sa.select(schema.tables)
            .join(schema.seats, c.table_id == t.id)
            .where(c.player == player_id, c.kind == "human", t.status.in_(("waiting", "playing")))
            .order_by(t.created_at, t.id)
        )
        async with self.engine.connect() as conn:
            records = [mapping.table(r) for r in await conn.execute(query)]
            if not records:
                return []
            seats = await _seats_by_table(conn, [r.id for r in records])
            known = await players_by_id(conn, {p for r in records for p in _named(r, seats[r.id])})
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
