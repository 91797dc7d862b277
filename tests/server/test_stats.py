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
from bodoge.server.runtime.stats import KEPT, PAUSE_BOUNDS_MS, GcPauses
from bodoge.server.services import collector as collector_module
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
        counted = (await http.get("/api/stats?frozen=1")).json()
        await ann.close()
        await bob.close()
        for _ in range(50):
            after = (await http.get("/api/stats")).json()
            if after["connections"]["open"] <= during["connections"]["open"] - 2:
                break
            await asyncio.sleep(0.1)
    assert during["moves"] >= before["moves"] + 1
    # The move, timed from its frame read to its reply queued.
    assert sum(during["move_ms"]["counts"]) == sum(before["move_ms"]["counts"]) + 1
    assert len(during["move_ms"]["counts"]) == len(during["move_ms"]["bounds_ms"]) + 1
    assert during["frames_sent"] > before["frames_sent"]
    assert during["connections"]["total"] >= before["connections"]["total"] + 2
    assert during["connections"]["open"] >= 2 and during["tables"] >= 1
    assert during["uptime"] > before["uptime"]
    assert after["connections"]["open"] <= during["connections"]["open"] - 2
    collector = during["gc"]
    assert len(collector["generations"]) == 3 and len(collector["threshold"]) == 3
    assert collector["frozen_after_sweep"] > 0 and collector["sweeps"] >= 0
    # Counting the frozen objects walks them all: only when asked.
    assert collector["frozen"] is None and counted["gc"]["frozen"] > 0
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


async def test_a_process_that_grows_is_never_swept_by_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """More tables and people make the heap bigger, and a full pass over it longer: growing
    is no reason for one (it would pause every table for a second at 2,000 tables)."""
    resident = [100 * 2**20]
    monkeypatch.setattr(collector_module, "resident_bytes", lambda: resident[0])
    monkeypatch.setattr(collector_module, "CHECK_SECONDS", 0.01)
    collector = Collector()
    collector.start()
    try:
        for _ in range(5):
            resident[0] *= 4  # far past any growth rule
            await asyncio.sleep(0.03)
        assert collector.sweeps == 0 and collector.sweep_at() is None
    finally:
        collector.stop()
        gc.unfreeze()


async def test_a_sweep_runs_above_the_operators_limit_and_again_only_after_growth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resident = [100 * 2**20]
    monkeypatch.setattr(collector_module, "resident_bytes", lambda: resident[0])
    monkeypatch.setattr(collector_module, "CHECK_SECONDS", 0.01)
    collector = Collector()
    collector.start(sweep_above=150 * 2**20)
    try:
        await asyncio.sleep(0.05)
        assert collector.sweeps == 0  # under the limit
        resident[0] = 160 * 2**20
        await asyncio.sleep(0.05)
        assert collector.sweeps == 1  # over it: once, not at every look
        resident[0] = 250 * 2**20  # half as much again as after that sweep
        await asyncio.sleep(0.05)
        assert collector.sweeps == 2
        assert collector.to_json()["sweep_above"] == 150 * 2**20
    finally:
        collector.stop()
        gc.unfreeze()


def test_every_pass_lands_in_the_pause_histogram_by_wall_and_cpu_time() -> None:
    pauses = GcPauses()
    info = {"generation": 0, "collected": 0, "uncollectable": 0}
    for ms in (0.2, 3.0, 30.0, 700.0):
        pauses._callback("start", info)
        pauses._began -= ms / 1e3  # as if the pass had taken that long
        pauses._callback("stop", info)
    histogram = pauses.to_json()["histogram"]
    assert histogram["bounds_ms"] == list(PAUSE_BOUNDS_MS)
    wall = histogram["wall"]
    assert sum(wall) == 4 and len(wall) == len(PAUSE_BOUNDS_MS) + 1
    assert wall[0] == 1  # under 1 ms
    assert wall[PAUSE_BOUNDS_MS.index(5)] == 1  # 2-5 ms
    assert wall[PAUSE_BOUNDS_MS.index(50)] == 1  # 20-50 ms
    assert wall[-1] == 1  # beyond 500 ms
    assert sum(histogram["cpu"]) == 4  # no CPU was spent: all under 1 ms
    assert histogram["cpu"][0] == 4
