"""The schema under migrations: new stores, stores of older releases, processes together.

Stores made by older commits (tests/store/fixtures/README.md) upgrade in place on SQLite
and PostgreSQL: every table keeps its record, seats, moves and chat, every game replays,
and a finished one replays to the result stored with it.  After any upgrade the schema
is the models' (``alembic check``'s comparison finds nothing).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from bodoge.games import registry
from bodoge.server.services.identity import hash_token
from bodoge.store import open_store, sqlite_url
from bodoge.store.upgrade import SchemaTooNew, current, differences, head, history, upgrade
from tests.support.databases import PG_ADMIN, own_database, require
from tests.support.old_stores import RELEASES, contents, load_release


@pytest.fixture(params=("sqlite", "postgresql"))
async def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
        return
    require(PG_ADMIN, 5432, "PostgreSQL")
    async with own_database() as url:
        yield url


@pytest.fixture(params=[(r, b) for r in RELEASES for b in ("sqlite", "postgresql")], ids=str)
async def old_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    release, backend = request.param
    async for url in load_release(release, backend, tmp_path):
        yield url


async def test_a_new_store_is_at_the_newest_version_and_matches_the_models(
    empty_url: str,
) -> None:
    store = await open_store(empty_url)
    try:
        assert store.schema_version == head()
        assert await current(store.engine) == head()
        assert await differences(store.engine) == []
    finally:
        await store.close()


async def test_the_comparison_sees_a_schema_change_made_outside_a_migration(
    empty_url: str,
) -> None:
    engine = create_async_engine(empty_url)
    try:
        await upgrade(engine)
        async with engine.begin() as conn:
            await conn.execute(sa.text("DROP INDEX seats_by_player"))
            await conn.execute(sa.text("ALTER TABLE chat ADD COLUMN extra INTEGER"))
        found = [str(d) for d in await differences(engine)]
        assert any("seats_by_player" in d for d in found), found
        assert any("extra" in d for d in found), found
    finally:
        await engine.dispose()


async def test_every_older_store_upgrades_keeps_its_games_and_they_replay(old_url: str) -> None:
    before = await contents(old_url)
    assert {t[5] for t in before["tables"]} == {"finished", "playing", "waiting"}
    assert {t[1] for t in before["tables"]} == {"tagiron", "illustori"}
    for _opening in range(2):  # migrated once; opening again finds nothing to do
        store = await open_store(old_url)
        try:
            assert store.schema_version == head()
            assert await differences(store.engine) == []
            games = registry()
            finished = 0
            for row in before["tables"]:
                bundle = await store.load_table(row[0], chat=1000)
                assert bundle is not None
                table, game = bundle.table, games[bundle.table.game]
                assert (table.seed, table.status, table.result) == (row[4], row[5], row[10])
                moves = [(m.seat, game.move_from_json(m.move)) for m in bundle.moves]
                options = game.options(table.options)
                state = game.replay(options, len(bundle.seats), table.seed, moves)
                result = game.result(state)
                if table.status == "finished":
                    assert result is not None and result.to_json() == table.result
                    finished += 1
                else:
                    assert result is None
            assert finished == 2
        finally:
            await store.close()
        after = await contents(old_url)
        assert after == before  # every move, seat, chat line and player as it was


async def test_a_store_a_newer_bodoge_upgraded_is_refused(empty_url: str) -> None:
    engine = create_async_engine(empty_url)
    try:
        await upgrade(engine)
        async with engine.begin() as conn:
            await conn.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    finally:
        await engine.dispose()
    with pytest.raises(SchemaTooNew, match=rf"version 9999, .*its newest is {head()}"):
        await open_store(empty_url)


async def test_processes_opening_together_migrate_once(empty_url: str, tmp_path: Path) -> None:
    """Many openers at once on an empty store (in one process: engines of their own)."""
    engines = [create_async_engine(empty_url) for _ in range(6)]
    try:
        versions = await asyncio.gather(*(upgrade(engine) for engine in engines))
        assert versions == [head()] * 6
        assert await differences(engines[0]) == []
    finally:
        for engine in engines:
            await engine.dispose()


def test_the_history_begins_with_the_baseline() -> None:
    revisions = history()
    assert revisions[-1].revision == "0001" and revisions[-1].down_revision is None
    assert revisions[0].revision == head()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_a_nullable_owner_epoch_left_by_an_older_upgrade_is_made_not_null(
    backend: str, tmp_path: Path
) -> None:
    """Releases before migrations gave an older store ``owner_epoch`` as a plain nullable
    column (cluster mode set its default on PostgreSQL; on SQLite nothing did).  SQLite's
    table is rebuilt for it, without its moves going with the old table."""
    async for url in load_release("first", backend, tmp_path):
        engine = create_async_engine(url)
        try:
            async with engine.begin() as conn:
                await conn.execute(sa.text("ALTER TABLE tables ADD COLUMN owner_epoch BIGINT"))
            before = await contents(url)
            await upgrade(engine)
            async with engine.connect() as conn:
                columns = await conn.run_sync(lambda c: sa.inspect(c).get_columns("tables"))
            epoch = next(c for c in columns if c["name"] == "owner_epoch")
            assert epoch["nullable"] is False
            assert await differences(engine) == []
        finally:
            await engine.dispose()
        assert await contents(url) == before
        assert len(before["moves"]) > 0


async def test_an_accounts_first_token_becomes_a_sign_in_noted_from_the_upgrade(
    empty_url: str,
) -> None:
    """Revision 0003: the token a guest began with, kept by an account whose
    sign-ins were never all ended, moves to ``sessions``; every sign-in counts as used at the
    upgrade (its expiry runs from then), and every token signs in as before; a guest's
    stays."""
    from alembic import command

    from bodoge.store.upgrade import _config

    engine = create_async_engine(empty_url)
    digests = {who: hash_token(f"token of {who} " * 2) for who in ("guest", "kept", "everywhere")}
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda c: command.upgrade(_config(c), "0001"))
            await conn.execute(
                sa.text(
                    "INSERT INTO players (id, name, token_hash, created_at, account_name,"
                    " account_key, generation) VALUES (:id, :nick, :token, 1000, :name, :key, :gen)"
                ),
                [
                    {
                        "id": "p_guest",
                        "nick": "Guest",
                        "token": digests["guest"],
                        "name": None,
                        "key": None,
                        "gen": None,
                    },
                    {
                        "id": "p_kept",
                        "nick": "Kept",
                        "token": digests["kept"],
                        "name": "Kept",
                        "key": "kept",
                        "gen": 0,
                    },
                    {
                        "id": "p_everywhere",
                        "nick": "E",
                        "token": hash_token("nothing"),
                        "name": "E",
                        "key": "e",
                        "gen": 1,
                    },
                ],
            )
            await conn.execute(
                sa.text(
                    "INSERT INTO sessions (token_hash, player, generation, created_at)"
                    " VALUES (:token, :player, :gen, 2000)"
                ),
                [
                    {"token": hash_token("the phone's token"), "player": "p_kept", "gen": 0},
                    {"token": digests["everywhere"], "player": "p_everywhere", "gen": 1},
                ],
            )
    finally:
        await engine.dispose()
    before = int(time.time() * 1000)
    store = await open_store(empty_url)
    try:
        assert store.schema_version == head()
        assert await differences(store.engine) == []
        for who, digest in digests.items():
            found = await store.player_by_token_hash(digest, before - 1000)
            assert found is not None and found.id == f"p_{who}", who
        phone = await store.player_by_token_hash(hash_token("the phone's token"), before)
        assert phone is not None and phone.id == "p_kept"
        kept = await store.sessions("p_kept", 0)
        assert {s.token_hash for s in kept} == {digests["kept"], hash_token("the phone's token")}
        assert all(s.seen.at >= before for s in kept)
        assert {s.created_at for s in kept} == {1000, 2000}
        assert (await store.players(["p_kept"]))["p_kept"].token_hash != digests["kept"]
        assert (await store.players(["p_guest"]))["p_guest"].token_hash == digests["guest"]
        assert len(await store.sessions("p_everywhere", 0)) == 1
        assert await store.sessions("p_guest", 0) == []
        # Unused from the upgrade on for the limit: expired.
        assert await store.player_by_token_hash(digests["kept"], before + 10**12) is None
    finally:
        await store.close()
