"""``bodoge bench lobby``: thousands watching the lobby while tables are made at a steady rate.

The bench starts ``bodoge serve``, connects ``--watchers`` WebSocket clients (in ``--procs``
processes) that each say hello and subscribe to the lobby, then for ``--duration`` seconds
makes ``--rate`` tables a second through a few other clients: each table is created (a
2-player Tagiron), joined and started — three lobby changes. It prints:

* the server's CPU time per lobby change, and per change and watcher;
* the frames each watcher received per second and their size;
* the time from a table's ``table.create`` being acknowledged to a watcher's list showing it
  (median, p99, max), over the tables made in the window and one watcher in
  :data:`SAMPLE` (the others only count their frames).

It reads the old lobby messages (``lobby.table``, ``lobby.removed``) as well as
``lobby.update``, so ``--checkout`` (or ``--ab OLD_PATH``) measures a server from another
source tree the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import shutil
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from bodoge.bench.client import Stats, open_seat, settle_heap
from bodoge.bench.processes import HERE, cpu_seconds, proc_status, start_server, tree_error
from bodoge.bench.report import percentile

#: One watcher in this many notes when it first saw each table (the latency sample).
SAMPLE = 10


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("lobby", help="lobby watchers while tables are made at a steady rate")
    parser.add_argument("--watchers", type=int, default=5000, help="clients watching the lobby")
    parser.add_argument("--rate", type=float, default=10.0, help="tables made a second")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--procs", type=int, default=2, help="watcher processes")
    parser.add_argument("--checkout", type=Path, default=None, metavar="PATH")
    parser.add_argument("--ab", type=Path, default=None, metavar="OLD_PATH")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each side with --ab")
    parser.set_defaults(func=run)


@dataclass
class Seen:
    """What one watcher process saw."""

    watchers: int = 0
    frames: int = 0
    frame_bytes: int = 0
    #: Per sampled watcher: the table ids with when (``time.monotonic()``) it first saw each.
    first_seen: list[dict[str, float]] = field(default_factory=list)


def _listed(message: dict[str, Any]) -> list[str]:
    """The ids of the tables a lobby message shows (old and new protocol)."""
    kind = message.get("type")
    if kind == "lobby.update" or kind == "lobby":
        return [t["id"] for t in message["tables"]]
    if kind == "lobby.table":
        return [message["table"]["id"]]
    return []


async def _watch(url: str, count: int, offset: int, ready: Any, opened: Any, closed: Any) -> Seen:
    """``count`` watchers on the lean client (bodoge/bench/lean_socket.py, as ``bench
    server``'s seats): each frame is handled as it is read, so what is measured is how soon
    the server sends a change, not how far behind a client's own reading falls."""
    from bodoge.bench.lean_socket import LeanSocket, connect

    seen = Seen(watchers=count)
    gate = asyncio.Semaphore(64)
    loop = asyncio.get_running_loop()
    counting = False
    subscribed = 0
    sockets: list[LeanSocket] = []

    async def one(index: int) -> None:
        first: dict[str, float] | None = {} if (offset + index) % SAMPLE == 0 else None
        if first is not None:
            seen.first_seen.append(first)
        hello: asyncio.Future[None] = loop.create_future()

        def on_frame(frame: bytes) -> None:
            nonlocal subscribed
            message = orjson.loads(frame)
            kind = message.get("type")
            if not hello.done():
                if message.get("id") == 1:
                    hello.set_result(None)
                return
            if kind == "lobby":
                subscribed += 1
            if counting and kind != "lobby":
                seen.frames += 1
                seen.frame_bytes += len(frame)
            if first is not None:
                now = time.monotonic()
                for table_id in _listed(message):
                    first.setdefault(table_id, now)

        async with gate:
            ws = await connect(url, open_timeout=120)
            sockets.append(ws)
            ws.deliver(on_frame, lambda: None)
            name = f"w{offset + index}"
            ws.send(orjson.dumps({"type": "hello", "id": 1, "token": None, "name": name}))
            await hello
            ws.send(orjson.dumps({"type": "lobby.subscribe", "id": 2}))

    await asyncio.gather(*(one(i) for i in range(count)))
    while subscribed < count:
        await asyncio.sleep(0.1)
    # What the watchers hold is frozen and no full collector pass runs (see client.settle_heap).
    settle_heap(ready.release)
    await asyncio.to_thread(opened.wait)
    counting = True
    await asyncio.to_thread(closed.wait)
    counting = False
    await asyncio.sleep(2)  # the last updates arrive
    for ws in sockets:
        ws.abort()
    return seen


def _watcher_process(
    url: str, count: int, offset: int, results: Any, ready: Any, opened: Any, closed: Any
) -> None:
    import uvloop

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        results.put(runner.run(_watch(url, count, offset, ready, opened, closed)))


async def _make_tables(
    url: str, rate: float, duration: float
) -> tuple[list[tuple[str, float]], int]:
    """``rate`` tables a second for ``duration`` seconds, each created, joined and started:
    returns each table with when its creation was acknowledged, and the lobby changes made."""
    stats = Stats()
    hosts = [await open_seat(url, f"host{i}", stats) for i in range(8)]
    guests = [await open_seat(url, f"guest{i}", stats) for i in range(8)]
    made: list[tuple[str, float]] = []
    changes = 0

    async def one(k: int) -> None:
        nonlocal changes
        host, guest = hosts[k % len(hosts)], guests[k % len(guests)]
        async with locks[k % len(hosts)]:
            reply = await host.request("table.create", game="tagiron", options={"players": 2})
            made.append((str(reply["table"]), time.monotonic()))
            await guest.request("table.join", table=reply["table"])
            await host.request("table.start", table=reply["table"])
            changes += 3

    locks = [asyncio.Lock() for _ in hosts]
    started = time.monotonic()
    tasks = []
    k = 0
    while time.monotonic() < started + duration:
        tasks.append(asyncio.create_task(one(k)))
        k += 1
        await asyncio.sleep(max(0.0, started + k / rate - time.monotonic()))
    await asyncio.gather(*tasks)
    await asyncio.gather(*(seat.close() for seat in hosts + guests))
    return made, changes


@dataclass
class Outcome:
    watchers: int
    duration: float
    changes: int = 0
    cpu: float = 0.0
    frames: int = 0
    frame_bytes: int = 0
    latencies: list[float] = field(default_factory=list)
    missed: int = 0
    peak_kib: int = 0


def measure(args: argparse.Namespace, tree: Path) -> Outcome:
    from bodoge.server.cli import raise_file_limit

    raise_file_limit()
    data = Path(tempfile.mkdtemp(prefix="bodoge-bench-lobby-"))
    server, url = start_server(data, tree)
    output = server.stdout
    assert output is not None
    threading.Thread(target=output.read, daemon=True).start()
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    ready = ctx.Semaphore(0)
    opened, closed = ctx.Event(), ctx.Event()
    procs = max(1, args.procs)
    workers = []
    try:
        offset = 0
        for p in range(procs):
            count = args.watchers // procs + (1 if p < args.watchers % procs else 0)
            worker = ctx.Process(
                target=_watcher_process, args=(url, count, offset, results, ready, opened, closed)
            )
            offset += count
            worker.start()
            workers.append(worker)
        for _ in workers:
            ready.acquire()
        outcome = Outcome(args.watchers, args.duration)
        opened.set()  # watchers count from now
        cpu, wall = cpu_seconds(server.pid), time.monotonic()
        made, outcome.changes = asyncio.run(_make_tables(url, args.rate, args.duration))
        outcome.cpu = cpu_seconds(server.pid) - cpu
        # The last tables may be made after --duration on a loaded machine: rates are per
        # second of the window as it was.
        outcome.duration = time.monotonic() - wall
        outcome.peak_kib = proc_status(server.pid, "VmHWM")
        closed.set()
        seen = [results.get(timeout=600) for _ in workers]
        for s in seen:
            outcome.frames += s.frames
            outcome.frame_bytes += s.frame_bytes
            for first in s.first_seen:
                for table_id, acked in made:
                    if table_id in first:
                        outcome.latencies.append(max(0.0, first[table_id] - acked))
                    else:
                        outcome.missed += 1
        return outcome
    finally:
        for worker in workers:
            worker.join(30)
            if worker.is_alive():
                worker.kill()
        server.terminate()
        server.wait(20)
        shutil.rmtree(data, ignore_errors=True)


def report(outcome: Outcome, indent: str = "  ") -> None:
    changes = max(1, outcome.changes)
    per_watcher = outcome.frames / max(1, outcome.watchers) / outcome.duration
    lines = [
        f"lobby changes: {outcome.changes} in {outcome.duration:g} s "
        f"({outcome.changes / outcome.duration:.1f}/s)",
        f"server CPU: {outcome.cpu / changes * 1e3:.2f} ms per lobby change, "
        f"{outcome.cpu / changes / max(1, outcome.watchers) * 1e6:.2f} µs per change and "
        f"watcher, {outcome.cpu / outcome.duration * 100:.0f}% of one core; "
        f"peak memory {outcome.peak_kib / 1024:.0f} MiB",
        f"frames to each watcher: {per_watcher:.1f}/s, "
        f"{outcome.frame_bytes / max(1, outcome.frames):.0f} bytes each",
    ]
    if outcome.latencies:
        lines.append(
            "table created → a watcher lists it: "
            f"median {statistics.median(outcome.latencies) * 1e3:.0f} ms, "
            f"p99 {percentile(outcome.latencies, 0.99) * 1e3:.0f} ms, "
            f"max {max(outcome.latencies) * 1e3:.0f} ms "
            f"(over {len(outcome.latencies)} sampled; {outcome.missed} never listed)"
        )
    for line in lines:
        print(indent + line, flush=True)


def run(args: argparse.Namespace) -> int:
    for source in (args.checkout, args.ab):
        error = None if source is None else tree_error(source.resolve())
        if error:
            print(error, file=sys.stderr)
            return 2
    new = (args.checkout or HERE).resolve()
    sides = [("", new)]
    if args.ab is not None:
        sides = [("old", args.ab.resolve()), ("new", new)] * args.rounds
    for side, tree in sides:
        print(
            f"bench lobby{' ' + side if side else ''}: {args.watchers} watchers in "
            f"{args.procs} process(es), {args.rate:g} tables/s (created, joined, started), "
            f"{args.duration:g} s measured; server from {tree}",
            flush=True,
        )
        report(measure(args, tree))
    return 0
