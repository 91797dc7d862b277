"""``bodoge bench growth``: the reads people wait on, in stores of more and more kept games.

For each size it makes a store of that many finished games (2 to 4 seats of 50,000 players,
5,000 of them accounts; one player with 2,000 games, one with 5; 10,000 ratings) at this
release's schema, then times, median of ``--rounds``:

* "My games" (``played_tables``, 50) and a profile (200) of the busy and the light player;
* the Finished tab (``finished_tables``, 50);
* the statistics back-fill's look for work (``unsummarised_tables``; there is none);
* a leaderboard (100 of 10,000 ratings);
* the idle-guest look-up (1,000).

Beside the two reads whose query changed, it times the query they had before (``before``),
on the same store in the same run. A read whose time stays flat as the store grows is served
by an index from the player's own rows; one that grows reads the whole store.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
import sqlalchemy as sa
from rich.console import Console
from rich.table import Table

from bodoge.store import open_store, schema, sqlite_url
from bodoge.store.sql import SqlStore

PLAYERS = 50_000
ACCOUNTS = 5_000
RATINGS = 10_000
BUSY_GAMES = 2_000
LIGHT_GAMES = 5
BUSY, LIGHT = "p_busy", "p_light"
DAY_MS = 86_400_000


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "growth", help="the reads people wait on, in stores of more and more kept games"
    )
    parser.add_argument(
        "--games", default="10000,100000", help="store sizes, comma-separated (finished games)"
    )
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds of each read")
    parser.add_argument(
        "--db",
        default=None,
        help="a PostgreSQL server (postgresql+asyncpg://user@host/db): a database of its own"
        " for each size, dropped afterwards (default: SQLite files)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    sizes = [int(n) for n in args.games.split(",")]
    return asyncio.run(_run(sizes, args.rounds, args.db))


async def _run(sizes: list[int], rounds: int, server: str | None) -> int:
    console = Console()
    results: dict[int, dict[str, float]] = {}
    for size in sizes:
        async with _database(server) as url:
            began = time.perf_counter()
            store = await open_store(url)
            try:
                await fill(store, size)
                if store.engine.dialect.name == "postgresql":
                    async with store.engine.connect() as conn:  # as autovacuum would, later
                        await conn.execute(sa.text("ANALYZE"))
                        await conn.commit()
                await store.close()
                store = await open_store(url)  # as a server starts on it: statistics made
                made = time.perf_counter() - began
                console.print(f"{size:,} games ({store.engine.dialect.name}): made in {made:.0f} s")
                results[size] = await _time_reads(store, rounds)
            finally:
                await store.close()
    table = Table(title=f"median ms of each read (rounds: {rounds})")
    table.add_column("read")
    for size in sizes:
        table.add_column(f"{size:,} games", justify="right")
    for read in results[sizes[0]]:
        table.add_row(read, *(f"{results[size][read]:.1f}" for size in sizes))
    console.print(table)
    return 0


class _database:
    """A fresh SQLite file, or a fresh PostgreSQL database on ``server``."""

    def __init__(self, server: str | None) -> None:
        self.server = server
        self.folder: Path | None = None
        self.name = f"bodoge_growth_{uuid.uuid4().hex[:8]}"

    async def __aenter__(self) -> str:
        if self.server is None:
            self.folder = Path(tempfile.mkdtemp(prefix="bodoge-bench-growth-"))
            return sqlite_url(self.folder)
        await self._admin(f'CREATE DATABASE "{self.name}"')
        return sa.engine.make_url(self.server).set(database=self.name).render_as_string(False)

    async def __aexit__(self, *exc: object) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
        else:
            await self._admin(f'DROP DATABASE IF EXISTS "{self.name}"')

    async def _admin(self, sql: str) -> None:
        from sqlalchemy.ext.asyncio import create_async_engine

        assert self.server is not None
        engine = create_async_engine(self.server, isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as conn:
                await conn.execute(sa.text(sql))
        finally:
            await engine.dispose()


async def fill(store: SqlStore, games: int, people: int = PLAYERS, rated: int = RATINGS) -> None:
    """``games`` finished games, their seats, ``people`` players and ``rated`` ratings, in
    bulk (the player ``p_busy`` is at up to 2,000 of the games, ``p_light`` at the oldest 5)."""
    rng = random.Random(games)
    now = int(time.time() * 1000)
    players = [
        {
            "id": f"p_{i:06d}",
            "name": f"P{i}",
            "token_hash": f"{i:064x}",
            "created_at": now - rng.randrange(365) * DAY_MS,
            "seen_at": now - rng.randrange(365) * DAY_MS,
            "account_name": f"a{i}" if i < ACCOUNTS else None,
            "account_key": f"a{i}" if i < ACCOUNTS else None,
        }
        for i in range(people)
    ]
    players += [
        {**players[0], "id": who, "token_hash": who.ljust(64, "0"), "account_key": who}
        for who in (BUSY, LIGHT)
    ]
    # The busy player's games are spread over the year, the light player's are the oldest:
    # a walk of the finished games newest first finds them last.
    busy = set(rng.sample(range(games), min(BUSY_GAMES, games // 2)))
    light = set(range(LIGHT_GAMES))
    statistic = orjson.dumps([{"asked": 3}, {"asked": 4}]).decode()
    result = orjson.dumps({"places": [1, 2]}).decode()
    async with store.engine.begin() as conn:
        await conn.execute(schema.players.insert(), players)
        for start in range(0, games, 5_000):
            tables, seats = [], []
            for g in range(start, min(games, start + 5_000)):
                finished = now - (games - g) * (365 * DAY_MS // games)
                table = f"t_{g:08d}"
                tables.append(
                    {
                        "id": table,
                        "game": "tagiron",
                        "options": {"players": 2},
                        "settings": {},
                        "seed": g,
                        "status": "finished",
                        "host": None,
                        "created_at": finished - 600_000,
                        "started_at": finished - 500_000,
                        "finished_at": finished,
                        "result": orjson.loads(result),
                        "deadlines": {},
                        "statistics": orjson.loads(statistic),
                    }
                )
                who = rng.sample(range(people), rng.choice((2, 3, 4)))
                named = [f"p_{i:06d}" for i in who]
                if g in busy:
                    named[0] = BUSY
                if g in light:
                    named[-1] = LIGHT
                seats += [
                    {"table_id": table, "seat": s, "kind": "human", "player": p}
                    for s, p in enumerate(named)
                ]
            await conn.execute(schema.tables.insert(), tables)
            await conn.execute(schema.seats.insert(), seats)
        await conn.execute(
            schema.ratings.insert(),
            [
                {
                    "player": f"p_{i:06d}",
                    "game": "tagiron",
                    "mu": (mu := rng.gauss(25, 3)),
                    "sigma": (sigma := rng.uniform(1, 8)),
                    "ordinal": mu - 3 * sigma,
                    "games": rng.randrange(1, 40),
                    "updated_at": now,
                }
                for i in range(min(rated, people))
            ],
        )


async def _time_reads(store: SqlStore, rounds: int) -> dict[str, float]:
    now = int(time.time() * 1000)
    reads: dict[str, Callable[[], Awaitable[Any]]] = {
        "My games, 2,000 games": lambda: store.played_tables(BUSY, 50),
        "My games, before": lambda: _played_before(store, BUSY, 50),
        "My games, 5 old games": lambda: store.played_tables(LIGHT, 50),
        "My games, 5 old games, before": lambda: _played_before(store, LIGHT, 50),
        "profile (200), 2,000 games": lambda: store.played_tables(BUSY, 200),
        "Finished tab": lambda: store.finished_tables(50),
        "statistics back-fill's look": lambda: store.unsummarised_tables(100),
        "leaderboard": lambda: store.leaderboard("tagiron", 3, 100),
        "idle guests (1,000)": lambda: store.guests(now - 30 * DAY_MS, 1000),
    }
    timings: dict[str, float] = {}
    for name, read in reads.items():
        await read()  # warm the caches
        took = []
        for _ in range(rounds):
            began = time.perf_counter()
            await read()
            took.append(time.perf_counter() - began)
        timings[name] = statistics.median(took) * 1000
    return timings


async def _played_before(store: SqlStore, player: str, limit: int) -> list[str]:
    """The query ``played_tables`` had before (finished tables whose id is among the
    player's seats' tables), for comparison."""
    t, c = schema.tables.c, schema.seats.c
    held = sa.select(c.table_id).where(sa.or_(c.player == player, c.left_player == player))
    async with store.engine.connect() as conn:
        rows = await conn.execute(
            sa.select(schema.tables)
            .where(t.status == "finished", t.id.in_(held))
            .order_by(t.finished_at.desc(), t.id)
            .limit(limit)
        )
        return [row.id for row in rows]
