"""Real ``bodoge serve --redis`` processes: an owner killed, paused past its lease, stopped.

Two processes on a database and a namespace of their own (the shared PostgreSQL and
Redis), with a lease of one second. The clients connect to each process directly and
move to the other one when theirs is gone (tests/cluster/test_nginx_cluster.py puts
nginx in front). Checked:
every acknowledged move kept, event numbers contiguous on every connection after a
resync, no tile shown to a seat that may not see it, no traceback in any log.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from bodoge.cluster.namespace import Namespace
from tests.server.tagiron_play import Truth, history, leaks, play_seat, random_move
from tests.support.client import Client
from tests.support.live_server import DEFAULT_ARGS, LiveServer

LEASE = 1.0


@pytest.fixture
async def make_process(
    tmp_path: Path, database_url: str, shared_redis: str, namespace: Namespace
) -> AsyncIterator[Callable[..., Any]]:
    """Started cluster processes; all are stopped (or killed) afterwards."""
    started: list[LiveServer] = []

    async def make(lease: float = LEASE, extra: Sequence[str] = ()) -> LiveServer:
        args = [
            *DEFAULT_ARGS,
            *extra,
            "--db",
            database_url,
            "--redis",
            shared_redis,
            "--redis-namespace",
            namespace.prefix,
            "--lease",
            str(lease),
            "--facing-clients",
            "--bot-workers",
            "0",
            "--log-level",
            "info",
        ]
        server = LiveServer(tmp_path / f"p{len(started)}", args=args)
        started.append(server)
        return await asyncio.to_thread(server.start)

    yield make
    for server in started:
        if server.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(server.pid, signal.SIGCONT)
        await asyncio.to_thread(server.stop)
    for server in started:
        assert "Traceback" not in server.log_path.read_text(errors="replace"), server.log()


@pytest.fixture
def engine(database_url: str, make_engine: Callable[[str], AsyncEngine]) -> AsyncEngine:
    return make_engine(database_url)


async def _stored(engine: AsyncEngine, table: str) -> tuple[list[int], str | None]:
    async with engine.connect() as conn:
        moves = [
            row[0]
            for row in await conn.execute(
                sa.text("SELECT n FROM moves WHERE table_id = :t ORDER BY n"), {"t": table}
            )
        ]
        owner = (
            await conn.execute(sa.text("SELECT owner FROM tables WHERE id = :t"), {"t": table})
        ).scalar()
    return moves, owner


def _acknowledged(client: Client, table: str) -> set[int]:
    return {
        m["n"]
        for m in client.received
        if m.get("type") == "ack"
        and m.get("table") == table
        and isinstance(m.get("n"), int)
        and "seat" not in m
    }


def _events(client: Client, table: str) -> list[int]:
    return [m["n"] for m in client.received if m.get("type") == "event" and m["table"] == table]


async def _game(server: LiveServer) -> tuple[list[Client], str]:
    ann = await Client.connect(server.ws_url, "Ann")
    bob = await Client.connect(server.ws_url, "Bob")
    table = (await ann.ok("table.create", game="tagiron", options={"players": 2}))["table"]
    await bob.ok("table.join", table=table)
    for client in (ann, bob):
        await client.ok("table.open", table=table)
    await ann.ok("table.start", table=table)
    return [ann, bob], table


async def _play_until(clients: list[Client], table: str, moves: int, seed: int) -> None:
    """The seats play ``moves`` moves, one at a time, then stop (the game goes on)."""
    rng = random.Random(seed)
    for _ in range(moves):
        states = [
            m
            for c in clients
            for m in c.received
            if m.get("type") in ("table", "event") and _of(m, table) and m.get("view")
        ]
        state = max(states, key=lambda m: m["n"])
        n = state["n"]
        for seat, client in enumerate(clients):
            mine = [m for m in client.received if m.get("type") in ("table", "event")]
            view = mine[-1]
            if view.get("may_act") or (view.get("to_act") and seat in view["to_act"]):
                move = random_move(view["view"], rng, declare=0.0)
                await client.ok("move", table=table, move=move)
                break
        for client in clients:
            await client.wait_for(lambda m, n=n: m.get("type") == "event" and m.get("n") == n + 1)


async def _taken(engine: AsyncEngine, server: LiveServer, table: str) -> None:
    """Wait until ``server`` runs ``table`` (it took it over), unless the game is over."""
    for _ in range(200):
        async with engine.connect() as conn:
            owner, status = (
                await conn.execute(
                    sa.text("SELECT owner, status FROM tables WHERE id = :t"), {"t": table}
                )
            ).one()
        if status == "finished" or (owner and owner.split("-")[-2] == str(server.pid)):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the table was never taken over: {owner}")


async def _resync(clients: list[Client], server: LiveServer, table: str) -> list[Client]:
    """Each client's player opens the table again on ``server``, from its last event.

    Any process serves any table (through a replica when another one runs it).
    """
    again = []
    for old in clients:
        since = max(_events(old, table), default=0)
        new = await Client.connect(server.ws_url, None, token=old.token)
        for _ in range(100):  # until the server runs the table (it takes it over)
            reply = await new.request("table.open", table=table, since=since)
            if reply["type"] != "error":
                break
            assert reply["code"] == "table_unavailable", reply
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the table was never taken over")
        again.append(new)
    return again


async def _finish(old: list[Client], new: list[Client], table: str, base_url: str) -> None:
    """Play the game out on ``new``; then check every connection and the stored history."""
    for client in new:  # a snapshot to play from (a resync with nothing missed sends none)
        await client.ok("table.open", table=table)
        client._cursor = 0
    await asyncio.gather(
        *(play_seat(c, table, random.Random(50 + i), out_of_turn=0) for i, c in enumerate(new))
    )
    hist = await history(base_url, table)
    truth = Truth(hist)
    numbers = [m["n"] for m in hist["moves"]]
    assert numbers == list(range(1, len(numbers) + 1))
    for seat, (before, after) in enumerate(zip(old, new, strict=True)):
        assert _acknowledged(before, table) <= set(numbers)  # every acknowledged move kept
        first = _events(before, table)
        assert first == list(range(1, len(first) + 1))
        resumed = _events(after, table)
        assert resumed == list(range(max(first, default=0) + 1, len(numbers) + 1))
        assert leaks(before.received, seat, truth) == []
        assert leaks(after.received, seat, truth) == []


async def test_an_owner_killed_mid_game_is_taken_over(
    make_process: Callable[..., Any], engine: AsyncEngine
) -> None:
    a, b = await make_process(), await make_process()
    clients, table = await _game(a)
    await _play_until(clients, table, 6, seed=1)
    moves, owner = await _stored(engine, table)
    assert owner is not None and owner.split("-")[-2] == str(a.pid)
    loop = asyncio.get_running_loop()
    killed = loop.time()
    await asyncio.to_thread(a.kill)
    await _taken(engine, b, table)
    took = loop.time() - killed
    again = await _resync(clients, b, table)
    assert took < LEASE + 3, f"taken over after {took:.1f} s"
    assert (await _stored(engine, table))[0][: len(moves)] == moves
    await _finish(clients, again, table, b.url)


async def test_a_paused_owner_cannot_write_after_its_lease(
    make_process: Callable[..., Any], engine: AsyncEngine
) -> None:
    a, b = await make_process(), await make_process()
    clients, table = await _game(a)
    await _play_until(clients, table, 2, seed=2)
    await asyncio.sleep(0.3)  # replies in flight arrive
    before, _ = await _stored(engine, table)
    async with engine.connect() as conn:
        status = "SELECT status FROM tables WHERE id = :t"
        assert (await conn.execute(sa.text(status), {"t": table})).scalar() == "playing"
    n = len(before)
    os.kill(a.pid, signal.SIGSTOP)
    try:
        # Both seats write to the paused owner (a chat line): it waits in its socket.
        stale = [asyncio.create_task(_stale_write(c, table)) for c in clients]
        await _taken(engine, b, table)  # b takes the table over meanwhile
        again = await _resync(clients, b, table)
    finally:
        os.kill(a.pid, signal.SIGCONT)
    outcomes = await asyncio.gather(*stale)
    # A write a sent on once it woke up and saw b run the table is b's (acknowledged and
    # stored); a itself wrote nothing.
    assert set(outcomes) <= {"closed 1012", "table_unavailable", "ack"}, outcomes
    async with engine.connect() as conn:
        count = "SELECT count(*) FROM chat WHERE table_id = :t"
        stored = (await conn.execute(sa.text(count), {"t": table})).scalar()
    assert stored == outcomes.count("ack")
    moves, owner = await _stored(engine, table)
    assert moves == before and owner is not None and owner.split("-")[-2] == str(b.pid)
    assert len(moves) == n
    await _finish(clients, again, table, b.url)
    log = a.log()
    assert "lease had lapsed" in log or "no longer owns" in log, log


def _of(message: dict[str, Any], table: str) -> bool:
    where = message.get("table")
    return where == table or (isinstance(where, dict) and where.get("id") == table)


async def _stale_write(client: Client, table: str) -> str:
    """A chat line (a write, whoever's turn it is) sent to the paused owner: what came of it."""
    try:
        reply = await client.request("chat", table=table, text="stale", timeout=30)
    except ConnectionError:
        return f"closed {client.closed.result()}"
    return str(reply.get("code", reply["type"]))


async def test_a_stopping_process_hands_its_tables_over(
    make_process: Callable[..., Any], engine: AsyncEngine
) -> None:
    a, b = await make_process(lease=30), await make_process(lease=30)
    clients, table = await _game(a)
    await _play_until(clients, table, 4, seed=3)
    loop = asyncio.get_running_loop()
    began = loop.time()
    await asyncio.to_thread(a.stop)  # SIGTERM
    await _taken(engine, b, table)
    assert loop.time() - began < 5  # the lease is 30 s: handed over, not waited out
    assert "Traceback" not in a.log_path.read_text()
    again = await _resync(clients, b, table)
    await _finish(clients, again, table, b.url)
