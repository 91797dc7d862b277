"""Players: who they are, by their token; their names; and the guests who left no trace."""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa

from bodoge.store import mapping, schema
from bodoge.store.engine import SqlEngine
from bodoge.store.loading import players_by_id
from bodoge.store.records import PlayerRecord
from bodoge.store.writes import ANY_TIME, Op, Stmt, Write

INSERT_PLAYER = Stmt("INSERT INTO players (id, name, token_hash, created_at) VALUES (?, ?, ?, ?)")
RENAME_PLAYER = Stmt("UPDATE players SET name = ? WHERE id = ?")
PLAYER_SEEN = Stmt("UPDATE players SET seen_at = ? WHERE id = ?")

#: A player who left no trace: no seat, no table hosted, no chat line, no picture set.
GUEST = (
    "COALESCE(players.seen_at, players.created_at) < ?"
    " AND players.account_key IS NULL"
    " AND NOT EXISTS (SELECT 1 FROM seats WHERE seats.player = players.id)"
    " AND NOT EXISTS (SELECT 1 FROM seats WHERE seats.left_player = players.id)"
    " AND NOT EXISTS (SELECT 1 FROM tables WHERE tables.host = players.id)"
    " AND NOT EXISTS (SELECT 1 FROM chat WHERE chat.player = players.id)"
    " AND NOT EXISTS (SELECT 1 FROM picture_sets WHERE picture_sets.owner = players.id)"
)
DELETE_GUEST = Stmt(f"DELETE FROM players WHERE id = ? AND {GUEST}")
#: What a removed guest leaves behind: their notification choices, their browsers' push
#: subscriptions, what was waiting to be sent to them, their puzzle answers and puzzle
#: rating (only once their row is gone; an account keeps all of it).
DELETE_LEFT_BEHIND = [
    Stmt(
        f"DELETE FROM {table} WHERE player = ?"
        " AND NOT EXISTS (SELECT 1 FROM players WHERE players.id = ?)"
    )
    for table in (
        "notify_settings",
        "push_subscriptions",
        "notify_outbox",
        "puzzle_attempts",
        "puzzle_players",
    )
]


class PlayerQueries(SqlEngine):
    """:class:`~bodoge.store.ports.PlayerStore` and :class:`~bodoge.store.ports.GuestStore`."""

    async def create_player(self, player: PlayerRecord) -> None:
        row = (player.id, player.name, player.token_hash, player.created_at)
        await self._write(Write(("player", player.id), [(INSERT_PLAYER, row)]))

    async def player_by_token_hash(
        self, token_hash: str, used_since: int = 0
    ) -> PlayerRecord | None:
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
                            sa.func.coalesce(s.seen_at, s.created_at) >= used_since,
                        )
                    )
                ).first()
        return mapping.player(row) if row else None

    async def players(self, ids: Iterable[str]) -> dict[str, PlayerRecord]:
        wanted = set(ids)
        if not wanted:
            return {}
        async with self.engine.connect() as conn:
            return await players_by_id(conn, wanted)

    async def rename_player(self, player_id: str, name: str) -> None:
        await self._write(Write(("player", player_id), [(RENAME_PLAYER, (name, player_id))]))

    async def player_seen(self, player_id: str, at: int) -> None:
        await self._write(Write(("player", player_id), [(PLAYER_SEEN, (at, player_id))]))

    async def guests(self, seen_before: int, limit: int = 1000) -> list[PlayerRecord]:
        query = sa.text(
            f"SELECT * FROM players WHERE {GUEST.replace('?', ':before')}"
            " ORDER BY COALESCE(seen_at, created_at), id LIMIT :limit"
        )
        async with self.engine.connect() as conn:
            rows = await conn.execute(query, {"before": seen_before, "limit": limit})
            return [mapping.player(row) for row in rows]

    async def delete_guests(self, ids: Iterable[str], seen_before: int | None) -> int:
        wanted = sorted(set(ids))
        if not wanted:
            return 0
        before = ANY_TIME if seen_before is None else seen_before
        rows = [(player_id, before) for player_id in wanted]
        ops: list[Op] = [(DELETE_GUEST, row) for row in rows]
        ops += [(stmt, (p, p)) for p in wanted for stmt in DELETE_LEFT_BEHIND]
        await self._write(Write(("guests", ""), ops))
        gone = await self.players(wanted)
        return len(wanted) - len(gone)
