"""``GET /api/stats``, the collector's pauses (``bodoge/server/runtime/stats.py``) and the
collector policy (``bodoge/server/services/collector.py``)."""

from __future__ import annotations

import asyncio
import gc
import random
import weakref
from collections.abc import AsyncIterator

import httpx
import pytest

from bodoge.bench.moves import pick_move
from bodoge.server.runtime.stats import KEPT, GcPauses
from bodoge.server.services.collector import Collector
from tests.support.client import Client
from tests.support.live_server import LiveServer


async def test_stats_count_connections_moves_and_collections(live_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=20) as http:
        before = (await http.get("/api/stats")).json()
        ann = await Client.connect(live_server.ws_url, "Ann")
        bob = await Client.connect(live_server.ws_url, "Bob")
        table = (await ann.ok("table.create", game="tagiron", options={"players": 2}))["table"]
        await bob.ok("table.join", table=table)
        await ann.ok("table.open", table=table)
        await bob.ok("table.open", table=table)
        await ann.ok("table.start", table=table)
        snapshot = await ann.ok("table.open", table=table)
        mover = (ann, bob)[snapshot["to_act"][0]]
        view = (await mover.ok("table.open", table=table))["view"]
        await mover.ok("move", table=table, move=pick_move(view, random.Random(1)))
        during = (await http.get("/api/stats")).json()
        await ann.close()
        await bob.close()
        for _ in range(50):
            after = (await http.get("/api/stats")).json()
            if after["connections"]["open"] <= during["connections"]["open"] - 2:
                break
            await asyncio.sleep(0.1)
    assert during["moves"] >= before["moves"] + 1
    assert during["frames_sent"] > before["frames_sent"]
    assert during["connections"]["total"] >= before["connections"]["total"] + 2
    assert during["connections"]["open"] >= 2 and during["tables"] >= 1
    assert during["uptime"] > before["uptime"]
    assert after["connections"]["open"] <= during["connections"]["open"] - 2
    collector = during["gc"]
    assert len(collector["generations"]) == 3 and len(collector["threshold"]) == 3
    assert collector["frozen_after_sweep"] > 0 and collector["sweeps"] >= 0
    for generation in collector["generations"]:
        assert generation["collections"] >= 0 and generation["longest_ms"] >= 0
    for at, generation, took, cpu in collector["long_pauses"]:
        assert 0 <= at <= during["uptime"] and generation in (0, 1, 2)
        assert took >= 1 and cpu >= 0


def test_every_collection_is_timed_by_generation() -> None:
    pauses = GcPauses()
    pauses.install()
    try:
        gc.collect(0)
        gc.collect(2)
    finally:
        pauses.uninstall()
    assert pauses.collections[0] >= 1 and pauses.collections[2] >= 1
    assert pauses.seconds[2] > 0 and pauses.longest[2] > 0
    reported = pauses.to_json()["generations"][2]
    assert reported["collections"] == pauses.collections[2] and reported["total_ms"] > 0


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
async def collector() -> AsyncIterator[Collector]:
    threshold = gc.get_threshold()
    collector = Collector()
    collector.start()
    try:
        yield collector
    finally:
        collector.stop()
        gc.unfreeze()
        gc.set_threshold(*threshold)


async def test_survivors_of_a_pass_are_frozen_and_a_sweep_frees_frozen_cycles(
    collector: Collector,
) -> None:
    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle
    await asyncio.sleep(0.2)  # young passes ran: it survived, so it is frozen
    assert not any(o is a for o in gc.get_objects())
    gone = weakref.ref(a)
    del a, b
    gc.collect()  # frozen: not even a full pass looks at it
    assert gone() is not None
    assert collector.sweep() >= 2
    assert gone() is None and collector.sweeps == 1 and collector.swept >= 2


def test_the_last_long_pauses_are_kept_oldest_first() -> None:
    pauses = GcPauses()
    for i in range(KEPT + 5):  # as the callback writes them
        pauses._pauses[pauses._written % KEPT] = (float(i), 0, 0.002, 0.001)
        pauses._written += 1
    kept = pauses.long_pauses
    assert len(kept) == KEPT and kept[0][0] == 5.0 and kept[-1][0] == KEPT + 4.0
    assert pauses.to_json()["long_pauses"][0] == [5.0, 0, 2.0, 1.0]
