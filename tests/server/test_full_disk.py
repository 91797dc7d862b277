"""A full disk loses nothing: the server's database on a small tmpfs filled to the brim.

While the database cannot write, moves, chat, new tables, new players and uploads are
refused with ``store_unavailable`` (503 over HTTP); what was acknowledged before is kept,
nothing refused shows up later, the database is intact, and once space is freed the server
serves again by itself, without a restart.  (Mounting a tmpfs needs root; the test is
skipped, saying so, where that is not possible.)
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import random
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from bodoge.bench.moves import pick_move
from tests.support.client import Client
from tests.support.live_server import DEFAULT_ARGS, LiveServer

DISK_BYTES = 4 * 2**20


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs of our own, unmounted afterwards."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> Path:
    """Write a file until the disk has no byte left."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for chunk in (2**16, 2**12, 2**9, 1):
            while True:
                try:
                    os.write(fd, b"\xa5" * chunk)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
    finally:
        os.close(fd)
    return filler


async def _upload(server: LiveServer, token: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        return await http.post(
            "/api/decks",
            files=[("files", ("a.png", PNG, "image/png"))],
            headers={"Authorization": f"Bearer {token}"},
        )


def _png() -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), "teal").save(buffer, "PNG")
    return buffer.getvalue()


PNG = _png()


async def test_a_full_disk_refuses_writes_loses_nothing_and_recovers(
    small_disk: Path, make_live_server: Callable[..., LiveServer]
) -> None:
    database = small_disk / "bodoge.sqlite3"
    server = make_live_server(args=(*DEFAULT_ARGS, "--db", f"sqlite+aiosqlite:///{database}"))
    ann = await Client.connect(server.ws_url, "Ann")
    bob = await Client.connect(server.ws_url, "Bob")
    table = (await ann.ok("table.create", game="tagiron"))["table"]
    await bob.ok("table.join", table=table)
    await ann.ok("table.start", table=table)
    snapshots = {c: await c.ok("table.open", table=table) for c in (ann, bob)}
    mover = next(c for c, s in snapshots.items() if s["you"] in s["to_act"])
    move = pick_move(snapshots[mover]["view"], random.Random(7))
    acked = ["before the disk filled"]
    await ann.ok("chat", table=table, text=acked[0])

    filler = fill(small_disk)
    # The WAL file may still have room from before: lines go in until it has none.
    for k in range(5000):
        reply = await ann.request("chat", table=table, text=f"line {k}")
        if reply["type"] == "error":
            assert reply["code"] == "store_unavailable", reply
            break
        acked.append(f"line {k}")
    else:
        pytest.fail("the full disk never refused a write")
    assert (await mover.request("move", table=table, move=move))["code"] == "store_unavailable"
    assert (await ann.request("table.create", game="tagiron"))["code"] == "store_unavailable"
    newcomer = await Client.connect(server.ws_url, name=None)
    assert (await newcomer.request("hello", name="Cid"))["code"] == "store_unavailable"
    refused = await _upload(server, ann.token)
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "store_unavailable"
    # Nothing refused happened: no event, no chat line beyond the acknowledged ones.
    assert not [m for c in (ann, bob) for m in c.of_type("event")]
    said = [m["text"] for m in bob.of_type("chat")]
    assert said == acked
    # Reading still works: a tab that opens the table sees it as it was.
    again = await bob.ok("table.open", table=table)
    assert again["n"] == 0 and [c["text"] for c in again["chat"]] == acked[-100:]

    filler.unlink()
    for _ in range(100):  # the server notices by itself: no restart, no signal
        reply = await ann.request("chat", table=table, text="after")
        if reply["type"] == "ack":
            break
        assert reply["code"] == "store_unavailable", reply
        await asyncio.sleep(0.1)
    else:
        pytest.fail("the server did not write again once space was freed")
    acked.append("after")
    assert (await mover.ok("move", table=table, move=move))["n"] == 1
    assert (await _upload(server, ann.token)).status_code == 201
    assert (await newcomer.request("hello", name="Cid"))["type"] == "welcome"

    # Nothing lost, nothing extra, nothing corrupted, even after kill -9.
    for client in (ann, bob, newcomer):
        await client.close()
    server.restart(crash=True)
    with contextlib.closing(sqlite3.connect(database)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        lines = [r[0] for r in db.execute("SELECT text FROM chat ORDER BY line")]
        moves = db.execute("SELECT n FROM moves WHERE table_id = ?", (table,)).fetchall()
        tables = db.execute("SELECT COUNT(*) FROM tables").fetchone()
    assert lines == acked and moves == [(1,)] and tables == (1,)
    ann = await Client.connect(server.ws_url, token=ann.token, name=None)
    reopened = await ann.ok("table.open", table=table)
    assert [c["text"] for c in reopened["chat"]][-1] == "after"
    await ann.close()
