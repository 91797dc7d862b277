"""``bodoge bench upgrade``: how long the upgrade of a store with many games takes, and a backup.

A store is made with the first release's schema (its tables as they were, ``deck_images``
included) and filled with ``--tables`` finished 2-player games of ``--moves`` moves and a
chat line each, then upgraded to the newest version (:func:`bodoge.store.upgrade.upgrade`:
the fix-ups to the baseline, then the migrations).  ``--nullable-epoch`` starts instead
from that store as a later release left it before migrations (``tables.owner_epoch``
added nullable), which on SQLite rebuilds the ``tables`` table.  Then the store is backed
up: ``bodoge admin backup`` on SQLite, ``pg_dump -Fc`` on PostgreSQL (``--db``).

    bodoge bench upgrade --tables 3000
    bodoge bench upgrade --tables 3000 --db postgresql+asyncpg://localhost/scratch
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import orjson
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from bodoge.store.opening import sqlite_url

#: The first release's tables (3b767fa's bodoge/store/schema.py), indexes included.
FIRST = sa.MetaData()
sa.Table(
    "players",
    FIRST,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("created_at", sa.BigInteger, nullable=False),
)
sa.Table(
    "tables",
    FIRST,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("options", sa.JSON, nullable=False),
    sa.Column("settings", sa.JSON, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("status", sa.String(16), nullable=False, index=True),
    sa.Column("host", sa.String(32), nullable=True),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("started_at", sa.BigInteger, nullable=True),
    sa.Column("finished_at", sa.BigInteger, nullable=True, index=True),
    sa.Column("result", sa.JSON, nullable=True),
    sa.Column("deadlines", sa.JSON, nullable=False),
    sa.Column("clock_deadline", sa.BigInteger, nullable=True),
)


def _table_id() -> sa.Column[str]:
    fk = sa.ForeignKey("tables.id", ondelete="CASCADE")
    return sa.Column("table_id", sa.String(32), fk, primary_key=True)


sa.Table(
    "seats",
    FIRST,
    _table_id(),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("player", sa.String(32), nullable=True),
    sa.Column("level", sa.String(32), nullable=True),
    sa.Column("left_player", sa.String(32), nullable=True),
)
sa.Table(
    "moves",
    FIRST,
    _table_id(),
    sa.Column("n", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("move", sa.JSON, nullable=False),
    sa.Column("at", sa.BigInteger, nullable=False),
    sa.Column("actor", sa.String(16), nullable=False),
)
sa.Table(
    "chat",
    FIRST,
    _table_id(),
    sa.Column("line", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("player", sa.String(32), nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("at", sa.BigInteger, nullable=False),
)
sa.Table(
    "deck_images",
    FIRST,
    sa.Column("deck_id", sa.String(64), primary_key=True),
    sa.Column("n", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("data", sa.LargeBinary, nullable=False),
    sa.Column("media_type", sa.String(32), nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
)


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "upgrade", help="upgrade a store of many games from the first release's schema; back up"
    )
    parser.add_argument("--tables", type=int, default=3000, help="finished games in the store")
    parser.add_argument("--moves", type=int, default=40, help="moves per game")
    parser.add_argument("--db", default=None, help="an empty PostgreSQL database's URL instead")
    parser.add_argument(
        "--nullable-epoch",
        action="store_true",
        help="as a later release left it: owner_epoch nullable (SQLite rebuilds tables)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    folder = Path(tempfile.mkdtemp(prefix="bodoge-bench-upgrade-"))
    try:
        return asyncio.run(_run(args, args.db or sqlite_url(folder), folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _fill(engine: AsyncEngine, tables: int, moves: int, nullable_epoch: bool) -> None:
    move = orjson.dumps({"type": "ask", "card": "sum_all"}).decode()
    result = orjson.dumps({"winners": [0], "draw": False}).decode()
    async with engine.begin() as conn:
        await conn.run_sync(FIRST.create_all)
        await conn.execute(
            sa.text("INSERT INTO players VALUES (:id, :name, :token, 0)"),
            [{"id": f"p_{i}", "name": f"P{i}", "token": f"{i:064x}"} for i in range(2)],
        )
        for start in range(0, tables, 500):
            ids = [f"t_{i:08d}" for i in range(start, min(tables, start + 500))]
            await conn.execute(
                sa.text(
                    "INSERT INTO tables VALUES (:id, 'tagiron', '{\"players\": 2}', '{}', 7,"
                    " 'finished', 'p_0', 1, 2, 3, :result, '{}', NULL)"
                ),
                [{"id": t, "result": result} for t in ids],
            )
            await conn.execute(
                sa.text("INSERT INTO seats VALUES (:t, :s, 'human', :p, NULL, NULL)"),
                [{"t": t, "s": s, "p": f"p_{s}"} for t in ids for s in range(2)],
            )
            await conn.execute(
                sa.text("INSERT INTO moves VALUES (:t, :n, :s, :move, :at, 'player')"),
                [
                    {"t": t, "n": n, "s": n % 2, "move": move, "at": n}
                    for t in ids
                    for n in range(moves)
                ],
            )
            await conn.execute(
                sa.text("INSERT INTO chat VALUES (:t, 0, 'p_0', 'P0', 'good game', 3)"),
                [{"t": t} for t in ids],
            )
        await conn.execute(
            sa.text("INSERT INTO deck_images VALUES (:d, :n, :data, 'image/webp', 1)"),
            [{"d": f"d_{d}", "n": n, "data": b"\0" * 20_000} for d in range(20) for n in range(30)],
        )
        if nullable_epoch:
            await conn.execute(sa.text("ALTER TABLE tables ADD COLUMN owner_epoch BIGINT"))


async def _run(args: argparse.Namespace, url: str, folder: Path) -> int:
    from bodoge.store import backup
    from bodoge.store.upgrade import differences, upgrade

    engine = create_async_engine(url)
    try:
        began = time.perf_counter()
        await _fill(engine, args.tables, args.moves, args.nullable_epoch)
        made = time.perf_counter() - began
        began = time.perf_counter()
        version = await upgrade(engine)
        took = time.perf_counter() - began
        assert await differences(engine) == [], "the upgraded schema differs from the models"
    finally:
        await engine.dispose()
    what = f"{args.tables} games of {args.moves} moves, 600 pictures"
    print(f"store: {what} ({engine.dialect.name}), made in {made:.1f} s")
    start = " (owner_epoch nullable)" if args.nullable_epoch else ""
    print(f"upgrade from the first release's schema{start} to {version}: {took:.2f} s")
    began = time.perf_counter()
    if url.startswith("sqlite"):
        size = backup.backup(url, folder / "backup.sqlite3")
        how = "bodoge admin backup"
    else:
        dump = folder / "bodoge.dump"
        pg_url = sa.engine.make_url(url).set(drivername="postgresql").render_as_string(False)
        subprocess.run(["pg_dump", "-Fc", "-f", str(dump), pg_url], check=True)
        size, how = dump.stat().st_size, "pg_dump -Fc"
    print(f"backup ({how}): {time.perf_counter() - began:.2f} s, {size / 2**20:.1f} MB")
    return 0
