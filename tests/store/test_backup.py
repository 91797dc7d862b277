"""Backups: ``bodoge admin backup`` while games are played holds every move acknowledged
before it began, and restores (``bodoge admin restore``) to a store that opens and
replays; PostgreSQL's pg_dump and pg_restore make the same round trip (docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bodoge.games import registry
from bodoge.store import open_store, sqlite_url
from bodoge.store.upgrade import head
from tests.server.tagiron_play import random_move
from tests.support.client import Client
from tests.support.databases import PG_ADMIN, own_database, require
from tests.support.live_server import ROOT, LiveServer
from tests.support.old_stores import contents, load_release, psql_url

TABLES = 3


async def _bodoge(*args: str) -> str:
    """Run ``bodoge ARGS`` as the operator would, without stopping the event loop."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bodoge",
        *args,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, out.decode()
    return out.decode()


async def _play(ws_url: str, acknowledged: list[tuple[str, int]], stop: asyncio.Event) -> None:
    """A 2-player Tagiron table played move after move, each acknowledged move noted."""
    ann = await Client.connect(ws_url, "Ann")
    bob = await Client.connect(ws_url, "Bob")
    table = (await ann.ok("table.create", game="tagiron", options={"players": 2}))["table"]
    await bob.ok("table.join", table=table)
    await ann.ok("table.start", table=table)
    clients, rng = {0: ann, 1: bob}, random.Random(table)
    while not stop.is_set():
        snap = await ann.ok("table.open", table=table)
        if snap["result"] or not snap["to_act"]:
            break
        mover = snap["to_act"][0]
        view = (await clients[mover].ok("table.open", table=table))["view"]
        reply = await clients[mover].ok("move", table=table, move=random_move(view, rng, 0))
        acknowledged.append((table, reply["n"]))
    await ann.close()
    await bob.close()


async def test_a_backup_under_play_holds_every_acknowledged_move_and_restores(
    make_live_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    server = make_live_server()
    acknowledged: list[tuple[str, int]] = []
    stop = asyncio.Event()
    players = [asyncio.create_task(_play(server.ws_url, acknowledged, stop)) for _ in range(TABLES)]
    async with asyncio.timeout(30):
        while len(acknowledged) < 10 * TABLES:
            await asyncio.sleep(0.05)
    before = set(acknowledged)  # acknowledged before the backup began
    copy = tmp_path / "backup.sqlite3"
    began = len(acknowledged)
    await _bodoge("admin", "--data", str(server.data), "backup", str(copy))
    while len(acknowledged) < began + TABLES:  # the games went on meanwhile and after
        await asyncio.sleep(0.05)
    stop.set()
    await asyncio.gather(*players)

    db = sqlite3.connect(copy)
    try:
        kept = set(db.execute("SELECT table_id, n FROM moves").fetchall())
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()
    assert before <= kept
    # One commit's state: each table's moves are 1..n, none missing in between.
    for table in {t for t, _ in kept}:
        numbers = sorted(n for t, n in kept if t == table)
        assert numbers == list(range(1, len(numbers) + 1))

    restored = tmp_path / "restored"
    out = await _bodoge("admin", "--data", str(restored), "restore", str(copy))
    assert f"{TABLES} tables" in out
    store = await open_store(sqlite_url(restored))
    try:
        assert store.schema_version == head()
        games = registry()
        for table in {t for t, _ in kept}:
            bundle = await store.load_table(table)
            assert bundle is not None
            assert {(table, m.n) for m in bundle.moves} == {k for k in kept if k[0] == table}
            game = games[bundle.table.game]
            moves = [(m.seat, game.move_from_json(m.move)) for m in bundle.moves]
            options = game.options(bundle.table.options)
            game.replay(options, len(bundle.seats), bundle.table.seed, moves)
    finally:
        await store.close()
    # A server serves the restored store: its tables are back.
    again = LiveServer(restored).start()
    try:
        ann = await Client.connect(again.ws_url, "Ann")
        table = next(iter(kept))[0]
        snap = await ann.ok("table.open", table=table)
        assert snap["n"] == max(n for t, n in kept if t == table)
        await ann.close()
    finally:
        again.stop()


async def test_restore_refuses_a_file_that_is_no_store(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database" * 100)
    command = [sys.executable, "-m", "bodoge", "admin", "--data", str(tmp_path / "d")]
    done = subprocess.run(
        [*command, "restore", str(junk)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "not a SQLite store" in done.stderr


async def test_postgresql_round_trip_with_pg_dump_and_pg_restore(tmp_path: Path) -> None:
    require(PG_ADMIN, 5432, "PostgreSQL")
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.skip("pg_dump and pg_restore make PostgreSQL's backups")
    dump = tmp_path / "bodoge.dump"
    async for url in load_release("today", "postgresql", tmp_path):
        store = await open_store(url)  # upgraded, then dumped
        await store.close()
        before = await contents(url)
        began = time.perf_counter()
        subprocess.run(["pg_dump", "-Fc", "-f", str(dump), psql_url(url)], check=True)
        assert time.perf_counter() - began < 30
    async with own_database() as url:
        subprocess.run(
            ["pg_restore", "--no-owner", "--exit-on-error", "-d", psql_url(url), str(dump)],
            check=True,
        )
        store = await open_store(url)
        try:
            assert store.schema_version == head()
        finally:
            await store.close()
        assert await contents(url) == before
