"""``bodoge bench server``: many tables played by real WebSocket clients against a real server.

The bench starts ``bodoge serve`` as a subprocess on a temporary data folder,
opens one WebSocket client per seat (``--tables`` × ``--players``), and has
every table play Tagiron games back to back for ``--duration`` seconds.  The
clients pick moves cheaply (a random face-up question, or a pass), after a
think time of about ``--think`` seconds, so that the figures measure the
server rather than bots.  It prints:

* moves per second (acknowledged moves in the measured window);
* the time from a move being sent to **every other seat** having its event,
  median and 99th percentile;
* the server's peak memory (``VmHWM`` in ``/proc/<pid>/status``) and CPU use.

Clients run in ``--procs`` processes; they share the machine's cores with the
server, so on a small machine the client side inflates the latencies.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import multiprocessing
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JSON = Any


def register_bench(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("server", help="tables of clients against a running server")
    parser.add_argument("--tables", type=int, default=100, help="concurrent tables")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds measured")
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument(
        "--think", type=float, default=1.0, help="mean seconds a client waits before moving"
    )
    parser.add_argument("--procs", type=int, default=1, help="client processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--url",
        default=None,
        help="use this running server's ws:// URL instead of starting one (no memory figures)",
    )
    parser.set_defaults(func=run)


# --- the clients -------------------------------------------------------------------


@dataclass
class Stats:
    moves: int = 0
    games: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)
    clients: int = 0
    #: How late the client process's own event loop ran (its share of the latencies).
    lags: list[float] = field(default_factory=list)


class Seat:
    """One WebSocket client: replies by id, state messages to a callback."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, JSON]]] = {}
        self.on_state: Callable[[dict[str, JSON]], None] = lambda m: None
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for frame in self.ws:
                message = json.loads(frame)
                future = self.waiting.pop(message.get("id"), None)
                if future is not None:
                    if not future.done():
                        future.set_result(message)
                elif message["type"] in ("event", "table"):
                    self.on_state(message)

    async def request(self, type: str, **fields: JSON) -> dict[str, JSON]:
        rid = next(self.ids)
        future: asyncio.Future[dict[str, JSON]] = asyncio.get_running_loop().create_future()
        self.waiting[rid] = future
        await self.ws.send(json.dumps({"type": type, "id": rid, **fields}))
        reply = await asyncio.wait_for(future, 60)
        if reply["type"] == "error":
            raise RuntimeError(f"{type}: {reply['code']} {reply['message']}")
        return reply


def pick_move(view: dict[str, JSON], rng: random.Random) -> dict[str, JSON] | None:
    """A cheap legal Tagiron move: a random face-up question, else a pass."""
    from bodoge.games.tagiron.cards import CARDS

    if view["may_ask"]:
        card = rng.choice(view["face_up"])
        choices = CARDS[card].choices
        return {"type": "ask", "card": card, "choice": rng.choice(choices) if choices else None}
    if view["may_pass"]:
        return {"type": "pass"}
    return None


class TableRun:
    """The clients of one table playing games back to back until ``stop``."""

    def __init__(self, seats: list[Seat], think: float, stats: Stats, rng: random.Random):
        self.seats = seats
        self.think = think
        self.stats = stats
        self.rng = rng
        self.measuring = False
        self.stop = False
        self.table = ""
        self.sent: dict[int, float] = {}
        self.missing: dict[int, int] = {}
        self.over: asyncio.Event = asyncio.Event()

    def _state(self, index: int, message: dict[str, JSON]) -> None:
        if message["type"] == "event":
            if message.get("table") != self.table:
                return
            n = message["n"]
            if message["seat"] != index and n in self.missing:
                self.missing[n] -= 1
                if self.missing[n] == 0:
                    started = self.sent.pop(n)
                    del self.missing[n]
                    if self.measuring:
                        self.stats.latencies.append(time.perf_counter() - started)
        elif message["table"]["id"] != self.table:
            return
        if message.get("result") is not None:
            self.over.set()
            return
        view = message.get("view")
        if view is not None and message["may_act"] and index in message["to_act"]:
            move = pick_move(view, self.rng)
            if move is not None:
                asyncio.get_running_loop().create_task(self._move(index, message["n"], move))

    async def _move(self, index: int, n: int, move: dict[str, JSON]) -> None:
        await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
        if self.stop:
            return
        self.sent[n + 1] = time.perf_counter()
        self.missing[n + 1] = len(self.seats) - 1
        try:
            await self.seats[index].request("move", table=self.table, move=move)
        except Exception:
            self.stats.errors += 1
            return
        if self.measuring:
            self.stats.moves += 1

    async def play(self) -> None:
        for index, seat in enumerate(self.seats):
            seat.on_state = lambda m, i=index: self._state(i, m)
        host, *others = self.seats
        while not self.stop:
            self.over = asyncio.Event()
            self.sent.clear()
            self.missing.clear()
            try:
                created = await host.request(
                    "table.create", game="tagiron", options={"players": len(self.seats)}
                )
                self.table = created["table"]
                for seat in others:
                    await seat.request("table.join", table=self.table)
                for seat in self.seats:
                    await seat.request("table.open", table=self.table)
                await host.request("table.start", table=self.table)
                await self.over.wait()
                if self.measuring:
                    self.stats.games += 1
                for seat in self.seats:
                    await seat.request("table.close", table=self.table)
            except Exception:
                self.stats.errors += 1
                await asyncio.sleep(1)


async def _clients(
    url: str,
    tables: int,
    players: int,
    think: float,
    duration: float,
    seed: int,
    ready: Callable[[], None],
    go: Callable[[], Any],
) -> Stats:
    from websockets.asyncio.client import connect

    stats = Stats()
    rng = random.Random(seed)
    gate = asyncio.Semaphore(64)  # do not knock on the server's door 2,000 times at once

    async def open_seat(name: str) -> Seat:
        async with gate:
            ws = await connect(url, compression=None, max_size=2**22, open_timeout=120)
            seat = Seat(ws)
            await seat.request("hello", token=None, name=name)
            return seat

    runs = []
    for t in range(tables):
        seats = await asyncio.gather(*(open_seat(f"b{seed}-{t}-{s}") for s in range(players)))
        runs.append(TableRun(list(seats), think, stats, random.Random(rng.random())))
    stats.clients = tables * players
    tasks = [asyncio.create_task(run.play()) for run in runs]
    ready()
    await asyncio.to_thread(go)
    await asyncio.sleep(min(5.0, duration / 5))  # warm up: first games started
    for run in runs:
        run.measuring = True

    async def watch_lag() -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(0.01)
            stats.lags.append(time.perf_counter() - started - 0.01)

    watcher = asyncio.create_task(watch_lag())
    await asyncio.sleep(duration)
    watcher.cancel()
    for run in runs:
        run.measuring = False
        run.stop = True
    for task in tasks:
        task.cancel()
    for run in runs:
        for seat in run.seats:
            with contextlib.suppress(Exception):
                await seat.ws.close()
    return stats


def _client_process(url: str, args: tuple[Any, ...], results: Any, ready: Any, go: Any) -> None:
    tables, players, think, duration, seed = args
    stats = asyncio.run(
        _clients(url, tables, players, think, duration, seed, ready.release, go.wait)
    )
    results.put(stats)


# --- the server -----------------------------------------------------------------------


def _start_server(data: Path) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable,
        "-m",
        "bodoge",
        "serve",
        "--port",
        "0",
        "--data",
        str(data),
        "--bot-workers",
        "0",
        # Every client of the bench comes from this machine's address.
        "--max-connections-per-address",
        "0",
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
    )
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"serving on (http://\S+?/)\s", line)
        if found:
            return process, found.group(1).replace("http://", "ws://") + "ws"
    raise RuntimeError("the server did not start")


def _proc_status(pid: int, key: str) -> int:
    """A ``/proc/<pid>/status`` figure in KiB (0 where there is no /proc)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(rf"^{key}:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) if found else 0


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(args: argparse.Namespace) -> int:
    from bodoge.server.cli import raise_file_limit

    raise_file_limit()
    data = Path(tempfile.mkdtemp(prefix="bodoge-bench-"))
    server: subprocess.Popen[str] | None = None
    if args.url:
        url, pid = args.url, 0
    else:
        server, url = _start_server(data)
        pid = server.pid
        # The server's output would fill the pipe: drain it in the background.
        output = server.stdout
        assert output is not None
        threading.Thread(target=output.read, daemon=True).start()
    ctx = multiprocessing.get_context("spawn")
    procs = max(1, min(args.procs, args.tables))
    results = ctx.Queue()
    ready = ctx.Semaphore(0)
    go = ctx.Event()
    workers = []
    try:
        for p in range(procs):
            share = args.tables // procs + (1 if p < args.tables % procs else 0)
            worker = ctx.Process(
                target=_client_process,
                args=(
                    url,
                    (share, args.players, args.think, args.duration, args.seed * 1000 + p),
                    results,
                    ready,
                    go,
                ),
            )
            worker.start()
            workers.append(worker)
        print(
            f"bench server: {args.tables} tables × {args.players} seats "
            f"= {args.tables * args.players} clients in {procs} process(es), "
            f"think ~{args.think:g} s, measuring {args.duration:g} s "
            f"on {os.cpu_count()} cores (load average before: {os.getloadavg()[0]:.1f})",
            flush=True,
        )
        for _ in workers:
            ready.acquire()
        go.set()
        time.sleep(min(5.0, args.duration / 5))  # the clients' warm-up
        cpu_start, wall_start = _cpu_seconds(pid), time.monotonic()
        stats = [results.get(timeout=args.duration + 600) for _ in workers]
        cpu = (_cpu_seconds(pid) - cpu_start) / max(1e-9, time.monotonic() - wall_start)
        peak = _proc_status(pid, "VmHWM")
        rss = _proc_status(pid, "VmRSS")
    finally:
        for worker in workers:
            worker.join(30)
        if server is not None:
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(20)
        shutil.rmtree(data, ignore_errors=True)
    moves = sum(s.moves for s in stats)
    latencies = [x for s in stats for x in s.latencies]
    print(f"  clients connected: {sum(s.clients for s in stats)}")
    print(
        f"  moves: {moves} in {args.duration:g} s = {moves / args.duration:.1f} moves/s "
        f"({sum(s.games for s in stats)} games finished)"
    )
    if latencies:
        print(
            "  move sent → every other seat has it: "
            f"median {statistics.median(latencies) * 1e3:.1f} ms, "
            f"p99 {_percentile(latencies, 0.99) * 1e3:.1f} ms (over {len(latencies)} moves)"
        )
    lags = [x for s in stats for x in s.lags]
    if lags:
        print(
            f"  the clients' own event-loop lag: median {statistics.median(lags) * 1e3:.1f} ms, "
            f"p99 {_percentile(lags, 0.99) * 1e3:.1f} ms"
        )
    if pid:
        print(
            f"  server: peak memory (VmHWM) {peak / 1024:.0f} MiB, now {rss / 1024:.0f} MiB; "
            f"CPU {cpu * 100:.0f}% of one core"
        )
    errors = sum(s.errors for s in stats)
    if errors:
        print(f"  errors: {errors}")
    return 0
