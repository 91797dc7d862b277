"""One run: the servers started, the clients played, the figures collected."""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from bodoge.bench.backends import Costs, Snapshot, costs, snapshot, start_redis, tree_cpu
from bodoge.bench.client import Stats
from bodoge.bench.cluster import (
    drop_database,
    lost_moves,
    make_database,
    sqlalchemy_url,
    start_nginx,
)
from bodoge.bench.kill import Kill, kill_owner
from bodoge.bench.load import FIRST_GAMES, GAME_MOVES, Gates, Plan, client_process
from bodoge.bench.processes import (
    HERE,
    cpu_seconds,
    proc_status,
    run_queue_seconds,
    server_stats,
    start_server,
)
from bodoge.core.values import JSON


@dataclass
class Outcome:
    """The figures of one run."""

    stats: list[Stats]
    duration: float
    pid: int
    players: int = 4
    #: Every server process (a cluster has several; ``pid`` is the first).
    pids: list[int] = field(default_factory=list)
    #: Server CPU seconds and wall seconds over the measured window.
    cpu: float = 0.0
    wall: float = 0.0
    peak_kib: int = 0
    #: The servers' resident memory at the end of the window, every client still connected.
    rss_kib: int = 0
    #: ... and once the clients hung up.
    rss_end_kib: int = 0
    #: The servers' resident memory once started, before any client (KiB, all together).
    idle_kib: int = 0
    tables: int = 0
    #: ``/api/stats`` at the start and the end of the window (``None``: not served).
    before: dict[str, JSON] | None = None
    after: dict[str, JSON] | None = None
    #: nginx in front of a cluster: its pid and CPU seconds over the window (0: none).
    nginx_pid: int = 0
    nginx_cpu: float = 0.0
    #: ``--kill-owner-after``: the process killed, when (``time.monotonic()``), and the
    #: live tables it owned then.
    killed: Kill | None = None
    #: Acknowledged moves not in the database at the end (``None``: not checked).
    lost: list[tuple[str, int, int]] | None = None
    #: When each stored move was committed (``at``, ms), by table and number (a cluster).
    committed: dict[tuple[str, int], int] | None = None
    #: A cluster: what the window cost PostgreSQL, Redis and nginx (bodoge/bench/backends.py).
    costs: Costs | None = None
    #: Seconds the servers' main threads waited for a CPU over the window (all together).
    server_waited: float = 0.0
    #: The client processes' CPU seconds, and the seconds their main threads waited for a CPU.
    clients_cpu: float = 0.0
    clients_waited: float = 0.0
    #: The machine's load average (1 minute) as the window began and as it ended.
    load: tuple[float, float] = (0.0, 0.0)

    @property
    def moves(self) -> int:
        return sum(s.moves for s in self.stats)

    @property
    def cpu_per_1000_moves(self) -> float | None:
        return self.cpu / self.moves * 1000 if self.pid and self.moves else None


def measure(args: argparse.Namespace, tree: Path | None) -> Outcome:
    """Start a server (from ``tree``, or use ``--url``), play, and collect the figures."""
    from bodoge.server.cli import raise_file_limit

    raise_file_limit()
    data = Path(tempfile.mkdtemp(prefix="bodoge-bench-"))
    servers: list[subprocess.Popen[str]] = []
    urls: list[str] = []
    database: str | None = None
    nginx: subprocess.Popen[bytes] | None = None
    redis: subprocess.Popen[bytes] | None = None
    probe: Callable[[int], Snapshot] | None = None
    idle_kib = 0
    try:
        if args.url:
            urls = [args.url]
        else:
            extras: list[list[str]] = [[]]
            if args.cluster:
                database = args.cluster_database = make_database(args.cluster_pg)
                namespace = f"bench:{os.urandom(5).hex()}"
                redis_url = args.cluster_redis
                if getattr(args, "own_redis", False):
                    redis, redis_url = start_redis(data / "redis")
                flags = ["--db", sqlalchemy_url(args.cluster_pg, database)]
                flags += ["--redis", redis_url, "--redis-namespace", namespace]
                # The clients come from this machine, through nginx or directly.
                flags += ["--trusted-proxies", "127.0.0.1"]
                extras = [flags] * args.cluster
            for i, extra in enumerate(extras):  # one after another: the first makes the schema
                server, url = start_server(data / f"p{i}", tree or HERE, extra)
                servers.append(server)
                urls.append(url)
                idle_kib += proc_status(server.pid, "VmRSS")
                # The server's output would fill the pipe: drain it in the background.
                output = server.stdout
                assert output is not None
                threading.Thread(target=output.read, daemon=True).start()
        if database is not None:
            probe = partial(snapshot, redis_url, args.cluster_pg, database, urls)
        clients = urls
        if args.cluster and not args.direct:
            nginx, balancer = start_nginx(data / "nginx", urls, 2 * args.tables * args.players)
            clients = [balancer]
        outcome = _play(args, clients, urls, [server.pid for server in servers], nginx, probe)
        outcome.idle_kib = idle_kib
        if database is not None:
            acked = [a for s in outcome.stats for a in s.acked]
            url = sqlalchemy_url(args.cluster_pg, database)
            outcome.lost, outcome.committed = lost_moves(url, acked)
        return outcome
    finally:
        if nginx is not None:
            nginx.kill()
            nginx.wait()
        for server in servers:
            server.terminate()
        for server in servers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(20)
        if redis is not None:
            redis.kill()
            redis.wait()
        if database is not None:
            drop_database(args.cluster_pg, database)
        shutil.rmtree(data, ignore_errors=True)


def _play(
    args: argparse.Namespace,
    urls: list[str],
    direct: list[str],
    pids: list[int],
    nginx: subprocess.Popen[bytes] | None = None,
    probe: Callable[[int], Snapshot] | None = None,
) -> Outcome:
    """The clients against ``urls``; the figures of the processes ``pids`` (at ``direct``);
    ``probe(nginx_pid)`` reads the counters of the parts behind them (a cluster)."""
    arrival = 0.0 if args.burst else args.arrival
    # A server that has run for hours holds tables at every point of their games; tables that
    # all began together would start, end and start again in step, a rush every game's length.
    # With --steady the first games start spread over about a game's length.
    stagger = GAME_MOVES * args.think if getattr(args, "steady", False) else 0.0
    # After every table's first game has started: long enough for the server to have caught
    # up with that rush (it makes, fills and starts every table at once) and for the games'
    # moves to have spread out.
    warm_up = min(5.0, args.duration / 5) + 3 * arrival
    ctx = multiprocessing.get_context("spawn")
    procs = max(1, min(args.procs, args.tables))
    results = ctx.Queue()
    gates = Gates.made(ctx)
    workers = []
    try:
        for p in range(procs):
            share = args.tables // procs + (1 if p < args.tables % procs else 0)
            plan = Plan(
                urls,
                share,
                args.players,
                args.think,
                arrival,
                stagger,
                args.duration,
                args.seed * 1000 + p,
            )
            worker = ctx.Process(target=client_process, args=(plan, results, gates))
            worker.start()
            workers.append(worker)
        for _ in workers:
            gates.ready.acquire()
        gates.go.set()
        for _ in workers:
            gates.begun.acquire(timeout=FIRST_GAMES + 60)
        time.sleep(warm_up)
        gates.measure.set()
        outcome = Outcome([], args.duration, pids[0] if pids else 0, args.players, pids)
        outcome.tables = args.tables
        outcome.nginx_pid = nginx.pid if nginx is not None else 0
        # The collector's figures are those of one process that lives to the end.
        befores = [server_stats(url) for url in direct]
        cpu_start, wall_start = sum(map(cpu_seconds, pids)), time.monotonic()
        clients = [worker.pid for worker in workers if worker.pid is not None]
        waited_start = sum(map(run_queue_seconds, pids))
        clients_start = (sum(map(cpu_seconds, clients)), sum(map(run_queue_seconds, clients)))
        load_start = os.getloadavg()[0]
        nginx_start = tree_cpu(outcome.nginx_pid) if nginx else 0.0
        counters = probe(outcome.nginx_pid) if probe is not None else None
        kill_after = getattr(args, "kill_owner_after", None)
        cpu_dead, peak_dead = 0.0, 0
        if kill_after is not None:
            time.sleep(kill_after)
            # The victim's CPU time and memory so far count; it has none after.
            so_far = {pid: (cpu_seconds(pid), proc_status(pid, "VmHWM")) for pid in pids}
            # Until the run ends: the kill, then the victim's tables being claimed.
            outcome.killed = kill_owner(args, pids, args.duration - kill_after)
            if outcome.killed is not None:
                cpu_dead, peak_dead = so_far[outcome.killed.pid]
            else:
                time.sleep(args.duration - kill_after)
        else:
            time.sleep(args.duration)
        for _ in workers:  # every client's window ended (they stop playing, still connected)
            gates.ended.acquire(timeout=60)
        victim = outcome.killed.pid if outcome.killed is not None else 0
        alive = [pid for pid in pids if pid != victim]
        outcome.cpu = sum(map(cpu_seconds, alive)) + cpu_dead - cpu_start
        outcome.wall = time.monotonic() - wall_start
        # Before the clients hang up: their CPU and waits are the window's.
        outcome.clients_cpu = sum(map(cpu_seconds, clients)) - clients_start[0]
        outcome.clients_waited = sum(map(run_queue_seconds, clients)) - clients_start[1]
        if victim == 0:
            outcome.server_waited = sum(map(run_queue_seconds, pids)) - waited_start
        outcome.load = (load_start, os.getloadavg()[0])
        # While every client is still connected: what holding them costs (once they hang up,
        # 2,000 closing handshakes at once leave more behind than the players held).
        outcome.rss_kib = sum(proc_status(pid, "VmRSS") for pid in alive)
        if nginx is not None:
            # Its workers do the proxying: the master's own CPU is next to nothing.
            outcome.nginx_cpu = tree_cpu(outcome.nginx_pid) - nginx_start
        if probe is not None and counters is not None:
            shared = not getattr(args, "own_redis", False)
            after = probe(outcome.nginx_pid)
            outcome.costs = costs(counters, after, shared_redis=shared, nginx=nginx is not None)
        for pid, url, before in zip(pids or [0], direct, befores, strict=False):
            if outcome.killed is None or pid != outcome.killed.pid:
                outcome.before, outcome.after = before, server_stats(url, frozen=True)
                break
        gates.hang_up.set()
        outcome.stats = [results.get(timeout=args.duration + 600) for _ in workers]
        outcome.peak_kib = sum(proc_status(pid, "VmHWM") for pid in alive) + peak_dead
        outcome.rss_end_kib = sum(proc_status(pid, "VmRSS") for pid in alive)
    finally:
        gates.hang_up.set()
        for worker in workers:
            worker.join(30)
    return outcome
