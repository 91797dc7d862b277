"""A closed connection leaves no cyclic garbage: reference counting alone frees it.

Garbage in reference cycles waits for the cyclic collector, whose passes pause
every table; with thousands of connections coming and going it adds up.  These
run connections in-process (no sockets) with the collector off, close them all
— normally, flooded (4008), too slow (4009), one too many (4029) — and check
that a collection then finds nothing of theirs.
"""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bodoge.core.values import JSON
from bodoge.server.edge.connection import Connection
from bodoge.server.runtime.config import Limits, ServerConfig
from bodoge.server.wiring import Server
from bodoge.store import sqlite_url
from tests.games.relay.game import RelayGame


class Transport:
    def __init__(self, stuck: bool = False) -> None:
        self.stuck = stuck  # a client that stopped reading
        self.closed_with: int | None = None
        self.replies: asyncio.Queue[dict[str, JSON]] = asyncio.Queue()

    def send_now(self, text: str) -> bool:
        if self.stuck:
            return False
        self.replies.put_nowait(json.loads(text))
        return True

    async def send(self, text: str) -> None:
        if self.stuck:
            await asyncio.Event().wait()
        self.replies.put_nowait(json.loads(text))

    async def close(self, code: int) -> None:
        self.closed_with = code


class Tab:
    """One connection served by :meth:`Connection.run`, fed frames through a queue."""

    def __init__(self, server: Server, *, stuck: bool = False) -> None:
        self.transport = Transport(stuck)
        self.frames: asyncio.Queue[str | None] = asyncio.Queue()
        self.ids = 0
        self.connection = server.connect(self.transport, "10.0.0.1")
        self.done = asyncio.ensure_future(self.connection.run(self._receive))

    async def _receive(self) -> str | None:
        await asyncio.sleep(0)  # as a socket would: the writer runs between frames
        return await self.frames.get()

    def send(self, type: str, **fields: JSON) -> int:
        self.ids += 1
        self.frames.put_nowait(json.dumps({"type": type, "id": self.ids, **fields}))
        return self.ids

    async def ok(self, type: str, **fields: JSON) -> dict[str, JSON]:
        rid = self.send(type, **fields)
        while True:
            reply = await asyncio.wait_for(self.transport.replies.get(), 5)
            if reply.get("id") == rid:
                assert reply["type"] != "error", reply
                return reply

    async def leave(self) -> None:
        self.frames.put_nowait(None)
        await asyncio.wait_for(self.done, 10)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    config = ServerConfig(
        db_url=sqlite_url(tmp_path),
        bot_delay=0.0,
        bot_workers=0,
        games={"relay": RelayGame()},
        limits=Limits(outbox=4, connections_per_address=12),
    )
    server = Server(config)
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def no_collector() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


async def _closed(*tabs: Tab) -> None:
    """Wait until the server closed each of ``tabs`` (a loaded machine may take a while)."""

    async def poll() -> None:
        while any(tab.transport.closed_with is None for tab in tabs):
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), 10)


async def _connections(server: Server, rounds: int) -> None:
    """``rounds`` times: a game of two, a flooder, a stuck client and one too many."""
    for r in range(rounds):
        ann, bob = Tab(server), Tab(server)
        await ann.ok("hello", token=None, name=f"ann{r}")
        await bob.ok("hello", token=None, name=f"bob{r}")
        table = (await ann.ok("table.create", game="relay", options={"players": 2}))["table"]
        await bob.ok("table.join", table=table)
        await ann.ok("table.open", table=table)
        await bob.ok("table.open", table=table)
        await ann.ok("table.start", table=table)
        await ann.ok("move", table=table, move={"type": "say", "word": "ringo"})
        await bob.ok("chat", table=table, text="hi")

        flooder = Tab(server)
        for _ in range(100):
            flooder.send("ping")
        stuck = Tab(server, stuck=True)
        for _ in range(10):
            stuck.send("ping")
        crowd = [Tab(server) for _ in range(10)]  # 2 + 3 + 10 > 12: some are refused
        await _closed(flooder, stuck, crowd[-1])
        assert flooder.transport.closed_with == 4008
        assert stuck.transport.closed_with == 4009
        assert any(tab.transport.closed_with == 4029 for tab in crowd)
        for tab in [ann, bob, flooder, stuck, *crowd]:
            await tab.leave()
    for _ in range(5):  # the tables' own tasks handle the closes
        await asyncio.sleep(0.02)


async def test_closed_connections_leave_no_cyclic_garbage(
    server: Server, no_collector: None
) -> None:
    await _connections(server, 1)  # warm up: first-time caches, the store's pool
    gc.collect()
    rounds = 10
    await _connections(server, rounds)
    gc.set_debug(gc.DEBUG_SAVEALL)
    found = gc.collect()
    ours = [o for o in gc.garbage if isinstance(o, Connection | Transport | Tab)]
    assert not ours, f"{len(ours)} connections in cycles, {found} objects in all"
    # 15 connections a round; before the fix each left about 20 objects behind.
    assert found < rounds, sorted({type(o).__name__ for o in gc.garbage})


async def test_an_idle_connection_holds_no_outbox_and_no_writer_task(server: Server) -> None:
    """Thousands of connections wait for their next frame at once: one with nothing to send
    holds no queue and no task (they exist only while frames wait to be sent)."""
    tab = Tab(server)
    await tab.ok("hello", token=None, name="idle")
    await tab.ok("lobby.subscribe")
    await asyncio.sleep(0.05)  # the writer sent the replies and ended
    connection = tab.connection
    assert connection._outbox is None and connection._writer is None
    writers = [t for t in asyncio.all_tasks() if "Connection._write" in repr(t.get_coro())]
    assert writers == []
    await tab.ok("ping")  # and it still answers
    await tab.leave()
