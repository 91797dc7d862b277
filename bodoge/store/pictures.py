"""Uploaded pictures: sets of pictures (a custom deck), who uploaded them, when a table
last named them, and their bytes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import sqlalchemy as sa

from bodoge.store import mapping, schema
from bodoge.store.engine import SqlEngine
from bodoge.store.records import PictureSetRecord
from bodoge.store.writes import ANY_TIME, Op, Stmt, Write

INSERT_PICTURE_SET = Stmt(
    "INSERT INTO picture_sets (id, size, created_at, owner, bytes, used_at)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
USE_PICTURE_SET = Stmt("UPDATE picture_sets SET used_at = ? WHERE id = ?")
#: A set no table has named since before the time given (nor since it was made).
UNUSED_SET = "COALESCE(picture_sets.used_at, picture_sets.created_at) < ?"
DELETE_UNUSED_PICTURES = Stmt(
    "DELETE FROM pictures WHERE set_id = ? AND EXISTS (SELECT 1 FROM picture_sets"
    f" WHERE picture_sets.id = pictures.set_id AND {UNUSED_SET})"
)
DELETE_UNUSED_SET = Stmt(f"DELETE FROM picture_sets WHERE id = ? AND {UNUSED_SET}")
INSERT_PICTURE = Stmt("INSERT INTO pictures (set_id, n, data, media_type) VALUES (?, ?, ?, ?)")


class PictureQueries(SqlEngine):
    """:class:`~bodoge.store.ports.PictureStore`."""

    async def add_picture_set(
        self,
        set_id: str,
        pictures: Sequence[tuple[bytes, str]],
        created_at: int,
        owner: str | None = None,
    ) -> None:
        size = sum(len(data) for data, _ in pictures)
        row = (set_id, len(pictures), created_at, owner, size, created_at)
        ops: list[Op] = [(INSERT_PICTURE_SET, row)]
        ops += [
            (INSERT_PICTURE, (set_id, n, data, media)) for n, (data, media) in enumerate(pictures)
        ]
        conflict = f"picture set {set_id} already exists"
        await self._write(Write(("picture set", set_id), ops, conflict))

    async def picture_usage(self, owner: str | None = None) -> tuple[int, int]:
        c = schema.picture_sets.c
        query = sa.select(sa.func.count(), sa.func.coalesce(sa.func.sum(c.bytes), 0))
        if owner is not None:
            query = query.where(c.owner == owner)
        async with self.engine.connect() as conn:
            count, size = (await conn.execute(query)).one()
        return int(count), int(size)

    async def use_picture_sets(self, set_ids: Iterable[str], at: int) -> None:
        ops: list[Op] = [(USE_PICTURE_SET, (at, set_id)) for set_id in sorted(set(set_ids))]
        if ops:
            await self._write(Write(("picture sets", ""), ops))

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
            return [mapping.picture_set(r) for r in await conn.execute(query)]

    async def delete_picture_sets(self, set_ids: Iterable[str], unused_before: int | None) -> int:
        wanted = sorted(set(set_ids))
        if not wanted:
            return 0
        before = ANY_TIME if unused_before is None else unused_before
        ops: list[Op] = []
        for set_id in wanted:
            ops.append((DELETE_UNUSED_PICTURES, (set_id, before)))
            ops.append((DELETE_UNUSED_SET, (set_id, before)))
        c = schema.picture_sets.c
        async with self.engine.connect() as conn:
            had = await conn.scalar(sa.select(sa.func.count()).where(c.id.in_(wanted)))
        await self._write(Write(("picture sets", ""), ops))
        async with self.engine.connect() as conn:
            left = await conn.scalar(sa.select(sa.func.count()).where(c.id.in_(wanted)))
        return int(had or 0) - int(left or 0)

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
