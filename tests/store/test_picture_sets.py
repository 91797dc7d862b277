"""Sets of uploaded pictures in the store, and the move of a store's older ``deck_images``
table into them, on SQLite and PostgreSQL (see ``conftest.py``)."""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from bodoge.store import Conflict, open_store
from bodoge.store.migrations import baseline
from bodoge.store.sql import SqlStore

PNG, WEBP = (b"\x89PNG\x00\xff", "image/png"), (b"RIFF\x00", "image/webp")


async def test_picture_sets_round_trip_and_their_ids_are_unique(store: SqlStore) -> None:
    await store.add_picture_set("d_1", [PNG, WEBP], 1)
    assert await store.picture_set_size("d_1") == 2 and await store.picture_set_size("d_2") == 0
    assert await store.picture("d_1", 0) == PNG and await store.picture("d_1", 1) == WEBP
    assert await store.picture("d_1", 2) is None and await store.picture("d_2", 0) is None
    with pytest.raises(Conflict, match="picture set d_1 already exists"):
        await store.add_picture_set("d_1", [WEBP], 2)
    assert await store.picture_set_size("d_1") == 2 and await store.picture("d_1", 0) == PNG


async def test_sets_written_in_one_group_stay_apart(store: SqlStore) -> None:
    outcomes = await asyncio.gather(
        store.add_picture_set("d_1", [PNG, WEBP], 1),
        store.add_picture_set("d_2", [WEBP], 1),
        store.add_picture_set("d_1", [WEBP, WEBP, WEBP], 1),
        return_exceptions=True,
    )
    assert [type(o).__name__ for o in outcomes] == ["NoneType", "NoneType", "Conflict"]
    assert [await store.picture_set_size(s) for s in ("d_1", "d_2")] == [2, 1]
    assert await store.picture("d_1", 0) == PNG and await store.picture("d_2", 0) == WEBP


#: The one table of uploaded pictures of stores made before picture sets, as it was.
OLD = sa.MetaData()
DECK_IMAGES = sa.Table(
    "deck_images",
    OLD,
    sa.Column("deck_id", sa.String(64), primary_key=True),
    sa.Column("n", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("data", sa.LargeBinary, nullable=False),
    sa.Column("media_type", sa.String(32), nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
)
OLD_ROWS = [
    {"deck_id": "d_a", "n": 0, "data": PNG[0], "media_type": PNG[1], "created_at": 5},
    {"deck_id": "d_a", "n": 1, "data": WEBP[0], "media_type": WEBP[1], "created_at": 5},
    {"deck_id": "d_a", "n": 2, "data": b"\x00" * 9, "media_type": WEBP[1], "created_at": 5},
    {"deck_id": "d_b", "n": 0, "data": b"b", "media_type": WEBP[1], "created_at": 7},
]


async def _run(url: str, *statements: sa.Executable, create: sa.MetaData | None = None) -> list:
    """Run ``statements`` on the database at ``url`` with a plain engine, as an older
    version would have; the rows of the last one if it returns any."""
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            if create is not None:
                await conn.run_sync(create.create_all)
            result = None
            for statement in statements:
                result = await conn.execute(statement)
            return list(result) if result is not None and result.returns_rows else []
    finally:
        await engine.dispose()


async def _tables(url: str) -> set[str]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda c: sa.inspect(c).get_table_names()))
    finally:
        await engine.dispose()


OLD_PICTURES = [("d_a", 0), ("d_a", 1), ("d_a", 2), ("d_b", 0)]


async def test_an_older_stores_deck_images_become_picture_sets(store_url: str) -> None:
    """A data folder (or database) of an earlier version opens with its uploads intact."""
    await _run(store_url, DECK_IMAGES.insert().values(OLD_ROWS), create=OLD)
    for opening in range(2):  # the move happens once; opening again changes nothing
        store = await open_store(store_url)
        try:
            assert await store.picture_set_size("d_a") == 3
            assert await store.picture_set_size("d_b") == 1
            assert await store.picture("d_a", 1) == WEBP
            assert await store.picture("d_a", 2) == (b"\x00" * 9, WEBP[1])
            assert await store.picture("d_b", 0) == (b"b", WEBP[1])
            # Their bytes are counted when the store is opened (they had no owner).
            sizes = [len((await store.picture(s, n) or (b"",))[0]) for s, n in OLD_PICTURES]
            extra = (1, len(PNG[0])) if opening else (0, 0)  # d_c, added at the first opening
            assert await store.picture_usage() == (2 + extra[0], sum(sizes) + extra[1])
            with pytest.raises(Conflict):
                await store.add_picture_set("d_b", [PNG], 9)
            if opening == 0:
                await store.add_picture_set("d_c", [PNG], 9)
        finally:
            await store.close()
        assert "deck_images" not in await _tables(store_url)
    created = await _run(store_url, sa.text("SELECT id, created_at FROM picture_sets ORDER BY id"))
    assert [tuple(row) for row in created] == [("d_a", 5), ("d_b", 7), ("d_c", 9)]


async def test_the_move_is_all_or_nothing(store_url: str) -> None:
    """If a set cannot move (here its id is taken), the store does not open and keeps the
    old table whole, rather than opening without some pictures."""
    # A release of before migrations (its store has no version to say the move is done)
    # made a set ...
    await _run(
        store_url,
        sa.text("INSERT INTO picture_sets (id, size, created_at) VALUES ('d_b', 1, 1)"),
        sa.text("INSERT INTO pictures VALUES ('d_b', 0, :data, :type)").bindparams(
            data=PNG[0], type=PNG[1]
        ),
        create=baseline.metadata(),
    )
    # ... then an older one ran on the same database and made one of the same id
    await _run(store_url, DECK_IMAGES.insert().values(OLD_ROWS), create=OLD)
    with pytest.raises(sa.exc.IntegrityError):
        await open_store(store_url)
    assert len(await _run(store_url, DECK_IMAGES.select())) == len(OLD_ROWS)
    assert await _run(store_url, sa.text("SELECT set_id FROM pictures")) == [("d_b",)]


async def test_sets_count_their_bytes_and_go_when_unused(store: SqlStore) -> None:
    await store.add_picture_set("d_1", [PNG, WEBP], 1_000, owner="p_a")
    await store.add_picture_set("d_2", [WEBP], 1_000, owner="p_b")
    await store.add_picture_set("d_3", [PNG], 1_000, owner="p_a")
    assert await store.picture_usage("p_a") == (2, 2 * len(PNG[0]) + len(WEBP[0]))
    assert await store.picture_usage() == (3, 2 * len(PNG[0]) + 2 * len(WEBP[0]))
    assert await store.picture_usage("p_z") == (0, 0)
    await store.use_picture_sets(["d_2", "d_9"], 5_000)  # d_9: no such set, ignored
    assert await store.unused_picture_sets(before=2_000) == ["d_1", "d_3"]
    # Only sets still unused are deleted, whatever ids are asked for; their pictures too.
    assert await store.delete_picture_sets(["d_1", "d_2"], unused_before=2_000) == 1
    assert await store.picture_set_size("d_1") == 0 and await store.picture("d_1", 0) is None
    assert await store.picture_set_size("d_2") == 1 and await store.picture_set_size("d_3") == 1
    assert await store.picture_usage() == (2, len(PNG[0]) + len(WEBP[0]))
