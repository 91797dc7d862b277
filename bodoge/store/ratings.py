"""Ratings: the tables whose ratings are pending, settled in one transaction that reads,
computes and writes; each player's rating, its history, and the leaderboards."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sqlalchemy as sa

from bodoge.store import mapping, schema
from bodoge.store.engine import SqlEngine
from bodoge.store.records import RatingRecord
from bodoge.store.transactions import Runner, on_sqlite, sa_runner

_UPSERT_RATING = (
    "INSERT INTO ratings (player, game, mu, sigma, games, updated_at, ordinal)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (player, game) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
    " games = excluded.games, updated_at = excluded.updated_at, ordinal = excluded.ordinal"
)
_INSERT_RATING_POINT = (
    "INSERT INTO rating_history (table_id, player, game, mu, sigma, games, at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)


class RatingQueries(SqlEngine):
    """:class:`~bodoge.store.ports.RatingStore`."""

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
            return await self._sqlite.call(on_sqlite, _settle, *args)
        async with self.engine.begin() as conn:
            pg = conn.dialect.name == "postgresql"
            return await conn.run_sync(lambda c: _settle(sa_runner(c), *args, lock=pg))

    async def ratings_of(self, player: str) -> list[RatingRecord]:
        c = schema.ratings.c
        query = schema.ratings.select().where(c.player == player).order_by(c.game)
        async with self.engine.connect() as conn:
            return [mapping.rating(row) for row in await conn.execute(query)]

    async def rating_history(self, player: str, game: str, limit: int = 200) -> list[RatingRecord]:
        c = schema.rating_history.c
        query = (
            schema.rating_history.select()
            .where(c.player == player, c.game == game)
            .order_by(c.at.desc(), c.table_id.desc())
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = [mapping.rating_point(r) for r in await conn.execute(query)]
        return rows[::-1]

    async def leaderboard(self, game: str, min_games: int, limit: int = 100) -> list[RatingRecord]:
        c = schema.ratings.c
        query = (
            schema.ratings.select()
            .where(c.game == game, c.games >= min_games, ~c.player.like("bot:%"))
            .order_by(c.ordinal.desc(), c.player.desc())  # the index read backwards
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            return [mapping.rating(row) for row in await conn.execute(query)]

    async def bot_ratings(self, game: str) -> list[RatingRecord]:
        c = schema.ratings.c
        query = schema.ratings.select().where(c.game == game, c.player.like("bot:%"))
        async with self.engine.connect() as conn:
            return [mapping.rating(row) for row in await conn.execute(query.order_by(c.player))]


def _settle(
    run: Runner,
    table_id: str,
    game: str,
    players: Sequence[str],
    update: Callable[[dict[str, RatingRecord]], list[RatingRecord]],
    *,
    lock: bool = False,
) -> bool:
    """The body of :meth:`RatingQueries.settle_ratings`, inside its transaction."""
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
        ordinal = r.mu - 3 * r.sigma
        run(_UPSERT_RATING, (r.player, game, r.mu, r.sigma, r.games, r.at, ordinal))
        run(_INSERT_RATING_POINT, (table_id, r.player, game, r.mu, r.sigma, r.games, r.at))
    return True
