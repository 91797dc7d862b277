"""``LoopWatch`` (``bodoge/server/services/loop_watch.py``): how late the event loop runs,
and whose each stall was — the process's own work, the collector, or waiting for a CPU."""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
import threading
import time

import httpx

from bodoge.server.services.loop_watch import (
    KEPT,
    LAG_BOUNDS_MS,
    STALL_SECONDS,
    LoopWatch,
    frame_lines,
    place,
    stack_of,
)
from tests.support.live_server import LiveServer


class Clocks:
    """Four clocks a test moves by hand: wall, CPU, run queue, collector."""

    def __init__(self) -> None:
        self.now = [0.0, 0.0, 0.0, 0.0]

    def watch(self, tick: float = 0.02, lags: list[float] | None = None) -> LoopWatch:
        return LoopWatch(
            tick,
            clock=lambda: self.now[0],
            cpu=lambda: self.now[1],
            queued=lambda: self.now[2],
            collected=lambda: self.now[3],
            lags=lags,
        )

    def advance(self, wall: float, cpu: float = 0.0, queued: float = 0.0, gc: float = 0.0) -> None:
        for i, step in enumerate((wall, cpu, queued, gc)):
            self.now[i] += step


def test_a_tick_on_time_is_no_stall_and_a_late_one_is_split_by_whose_time_it_was() -> None:
    clocks = Clocks()
    lags: list[float] = []
    watch = clocks.watch(lags=lags)
    watch._last = watch._read()
    clocks.advance(0.021, cpu=0.001)
    watch.note(watch._read())
    # 300 ms late: 100 ms of its own work (40 of them the collector's), 190 waiting for a CPU.
    clocks.advance(0.32, cpu=0.1, queued=0.19, gc=0.04)
    watch.note(watch._read())
    # Late while neither running nor ready (a blocking call).
    clocks.advance(0.02 + STALL_SECONDS, cpu=0.0)
    watch.note(watch._read())
    data = watch.to_json()
    assert data["ticks"] == 3
    assert [round(x, 3) for x in lags] == [0.001, 0.3, STALL_SECONDS]
    assert data["longest_ms"] == 300.0
    assert sum(data["histogram"]["lag"]) == 3
    buckets = data["histogram"]["lag"]
    assert buckets[LAG_BOUNDS_MS.index(2)] == 1  # 1 ms late: the 1-2 ms bucket
    assert buckets[LAG_BOUNDS_MS.index(500)] == 1  # 300 ms: the 200-500 ms bucket
    assert buckets[LAG_BOUNDS_MS.index(50)] == 1  # 50 ms: up to 50 ms
    stalls = data["stalls"]
    assert [s[1:] for s in stalls] == [[300.0, 100.0, 40.0, 190.0], [50.0, 0.0, 0.0, 0.0]]
    assert stalls[0][0] <= stalls[1][0]
    stalled = {"late": 350.0, "cpu": 100.0, "collector": 40.0, "run_queue": 190.0}
    assert data["stalled_ms"] == stalled


def test_only_the_last_stalls_are_kept() -> None:
    clocks = Clocks()
    watch = clocks.watch()
    watch._last = watch._read()
    for i in range(KEPT + 10):
        clocks.advance(0.02 + STALL_SECONDS + i / 1e6, cpu=0.01)
        watch.note(watch._read())
    stalls = watch.to_json()["stalls"]
    assert len(stalls) == KEPT
    assert min(s[1] for s in stalls) > STALL_SECONDS * 1e3 + 9 / 1e3  # the first ten are gone


def test_the_places_are_read_while_the_sampling_thread_counts_new_ones() -> None:
    # GET /api/stats reads the places on the loop while the watch's thread adds new ones:
    # read as they changed, a place added between two steps of the read failed the request.
    watch = LoopWatch()
    watch.places.update({f"bodoge.x:{i}": 1 for i in range(20_000)})
    stop = threading.Event()

    def count() -> None:
        for i in range(200_000):
            if stop.is_set():
                return
            watch.places[f"bodoge.y:{i}"] += 1

    counter = threading.Thread(target=count)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    counter.start()
    try:
        while counter.is_alive():
            assert len(watch.to_json()["stalled_in"]) == 12
    finally:
        stop.set()
        counter.join()
        sys.setswitchinterval(interval)


async def test_a_busy_loop_is_its_own_work_and_a_blocked_one_is_not() -> None:
    watch = LoopWatch(0.01)
    watch.start()
    try:
        await asyncio.sleep(0.05)
        spin_until = time.perf_counter() + 0.2
        while time.perf_counter() < spin_until:  # a callback that keeps the loop busy
            pass
        await asyncio.sleep(0.05)
        time.sleep(0.2)  # a callback that blocks without running
        await asyncio.sleep(0.05)
    finally:
        watch.stop()
    busy, blocked = sorted(watch.stalls, key=lambda s: s[0])[-2:]
    # Busy: running or ready to run all along (on a loaded machine, much of it waiting).
    assert busy[1] >= 0.15 and busy[2] + busy[4] >= 0.8 * busy[1], busy
    # Blocked: neither running nor waiting for a CPU.
    assert blocked[1] >= 0.15 and blocked[2] + blocked[4] < 0.5 * blocked[1], blocked
    # Where: both stalls sampled in this function (the spinning line, the sleeping one).
    here = [where for where in watch.places if where.startswith("test_loop_watch.py:")]
    assert len(here) >= 2, watch.places
    assert sum(watch.places.values()) >= 3  # a look every SAMPLE_SECONDS (50 ms) once overdue


def test_a_place_is_bodoges_innermost_lines() -> None:
    def inner() -> str:
        return place(frame_lines(sys._getframe()))

    where = inner()  # test code: only the innermost line, then bodoge's (none here)
    assert re.fullmatch(r"test_loop_watch\.py:\d+", where), where
    from bodoge.core import values  # any module of bodoge

    assert place([(values.__file__, 7)]) == "bodoge.core.values:7"


def test_another_threads_stack_is_read_in_one_call() -> None:
    """The sampling thread reads the main thread's stack through faulthandler, as the
    interpreter keeps it, never by walking its frame objects."""
    ready, done = threading.Event(), threading.Event()

    def waiting_here() -> None:
        ready.set()
        done.wait(10)

    worker = threading.Thread(target=waiting_here)
    worker.start()
    try:
        ready.wait(10)
        with tempfile.TemporaryFile("w+") as scratch:
            stack = stack_of(worker.ident or 0, scratch)
            assert stack_of(-1, scratch) == []
    finally:
        done.set()
        worker.join()
    assert any(path == __file__ for path, _ in stack), stack
    assert place(stack).startswith("threading.py:"), place(stack)


async def test_the_stats_show_the_loop(live_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=20) as http:
        first = (await http.get("/api/stats")).json()["loop"]
        await asyncio.sleep(0.3)
        loop = (await http.get("/api/stats")).json()["loop"]
    assert loop["ticks"] > first["ticks"]
    assert loop["histogram"]["bounds_ms"] == list(LAG_BOUNDS_MS)
    assert sum(loop["histogram"]["lag"]) == loop["ticks"]
    assert set(loop["stalled_ms"]) == {"late", "cpu", "collector", "run_queue"}
    assert all(isinstance(where, str) and n >= 1 for where, n in loop["stalled_in"])
