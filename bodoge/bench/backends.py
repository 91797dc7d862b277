"""What a cluster run costs the parts behind the processes: PostgreSQL, Redis and nginx.

Counts and CPU seconds, read at the start and the end of the measured window, so that the
capacity model (docs/scaling.md) has a measured cost per move for each part:

* PostgreSQL: the group commits of the processes' writers (``bodoge_commit_seconds_count``
  of each ``/metrics``), the transactions of the run's own database (``xact_commit`` in
  ``pg_stat_database``: reads too, such as the lease's and the orphan scan's; a backend
  reports them up to a second late, ten when idle) and the CPU of the backends serving it
  (``/proc/<pid>/stat``, when the server runs on this machine; backends alive at both ends);
* Redis: every command it ran, by name (``INFO commandstats``), its CPU (``INFO cpu``) and
  the bytes in and out (``INFO stats``): with ``--own-redis`` a private ``redis-server``
  holds only the run's commands; on a shared Redis other clients' count too;
* nginx: the CPU of its master and worker processes.

Counts are exact whatever the machine's load; CPU seconds are disturbed little by it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bodoge.bench.processes import cpu_seconds


@dataclass(frozen=True)
class Snapshot:
    """The counters at one instant."""

    redis_calls: dict[str, int] = field(default_factory=dict)
    redis_cpu: float = 0.0
    redis_bytes: tuple[int, int] = (0, 0)  # in, out
    pg_commits: int = 0
    pg_cpu: dict[int, float] = field(default_factory=dict)
    nginx_cpu: float = 0.0
    #: Each process's group commits so far (``bodoge_commit_seconds_count`` of its
    #: ``/metrics``), by its address.
    group_commits: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Costs:
    """What the window cost each part (the difference of two snapshots)."""

    redis_calls: dict[str, int]
    redis_cpu: float
    redis_bytes: tuple[int, int]
    pg_commits: int
    group_commits: int
    pg_cpu: float | None  # None: the backends' /proc could not be read
    nginx_cpu: float
    shared_redis: bool
    #: Whether nginx was in front (``--direct``: not).
    nginx: bool = True

    @property
    def redis_commands(self) -> int:
        return sum(self.redis_calls.values())


def start_redis(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A private ``redis-server`` (no persistence) on a free port; its process and URL."""
    server = shutil.which("redis-server") or "/usr/bin/redis-server"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    folder.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return process, f"redis://127.0.0.1:{port}/0"
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"redis-server did not start on port {port}")
        time.sleep(0.05)


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its children (nginx's master and its workers)."""
    total = cpu_seconds(pid)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                total += cpu_seconds(int(stat.parent.name))
    return total


def group_commits(url: str) -> int | None:
    """The group commits of the process at ws:// ``url`` so far (``None``: no answer)."""
    http = re.sub(r"^ws", "http", url).removesuffix("/ws") + "/metrics"
    try:
        with urllib.request.urlopen(http, timeout=30) as response:
            text = response.read().decode()
    except OSError:
        return None
    found = re.search(r"^bodoge_commit_seconds_count(?:\{[^}]*\})? (\S+)$", text, re.M)
    return None if found is None else int(float(found.group(1)))


def snapshot(
    redis_url: str, pg_dsn: str, database: str, urls: list[str], nginx_pid: int = 0
) -> Snapshot:
    """Read every counter now (``urls``: the processes' ws:// addresses)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        commands = client.info("commandstats")
        cpu = client.info("cpu")
        stats = client.info("stats")
    finally:
        client.close()
    calls = {
        name.removeprefix("cmdstat_"): int(value["calls"])
        for name, value in commands.items()
        if isinstance(value, dict)
    }
    commits, backends = asyncio.run(pg_figures(pg_dsn, database))
    return Snapshot(
        redis_calls=calls,
        redis_cpu=float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"]),
        redis_bytes=(int(stats["total_net_input_bytes"]), int(stats["total_net_output_bytes"])),
        pg_commits=commits,
        pg_cpu=backends,
        nginx_cpu=tree_cpu(nginx_pid) if nginx_pid else 0.0,
        group_commits={url: n for url in urls if (n := group_commits(url)) is not None},
    )


async def pg_figures(dsn: str, database: str) -> tuple[int, dict[int, float]]:
    """The database's commits so far, and the CPU seconds of each backend serving it."""
    import asyncpg

    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        commits = await conn.fetchval(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = $1", database
        )
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            database,
        )
    finally:
        await conn.close()
    return int(commits or 0), {row["pid"]: cpu_seconds(row["pid"]) for row in rows}


def costs(before: Snapshot, after: Snapshot, *, shared_redis: bool, nginx: bool) -> Costs:
    calls = {
        name: n - before.redis_calls.get(name, 0)
        for name, n in after.redis_calls.items()
        if n - before.redis_calls.get(name, 0) > 0
    }
    both = [pid for pid in after.pg_cpu if pid in before.pg_cpu]
    pg_cpu = sum(after.pg_cpu[pid] - before.pg_cpu[pid] for pid in both)
    return Costs(
        redis_calls=calls,
        redis_cpu=after.redis_cpu - before.redis_cpu,
        redis_bytes=(
            after.redis_bytes[0] - before.redis_bytes[0],
            after.redis_bytes[1] - before.redis_bytes[1],
        ),
        pg_commits=after.pg_commits - before.pg_commits,
        # A process killed in the window counts for nothing (its counter died with it).
        group_commits=sum(
            n - before.group_commits[url]
            for url, n in after.group_commits.items()
            if url in before.group_commits
        ),
        pg_cpu=pg_cpu if pg_cpu > 0 else None,
        nginx_cpu=after.nginx_cpu - before.nginx_cpu,
        shared_redis=shared_redis,
        nginx=nginx,
    )


def cost_lines(spent: Costs, moves: int, seconds: float, server_cpu: float) -> list[str]:
    """The parts' costs per 1,000 moves (with moves) and per second, as lines of the report
    (CPU in seconds per 1,000 moves, in milliseconds a second); ``server_cpu``: the server
    processes' CPU seconds over the same ``seconds``."""
    lines = []
    shared = " (a shared Redis: other clients' commands count too)" if spent.shared_redis else ""
    top = sorted(spent.redis_calls.items(), key=lambda item: -item[1])
    scales = [(1 / seconds, 1000.0, "ms", "a second")]
    if moves:
        scales.insert(0, (1000 / moves, 1.0, "s", "per 1,000 moves"))
    for k, to_unit, unit, label in scales:
        each = ", ".join(f"{name} {n * k:.0f}" for name, n in top[:8])
        c = k * to_unit

        def cpu(seconds: float | None, c: float = c, unit: str = unit) -> str:
            return "-" if seconds is None else f"{seconds * c:.2f} {unit}"

        lines += [
            f"{label}: {spent.group_commits * k:.0f} group commits (the processes' writers); "
            f"PostgreSQL {spent.pg_commits * k:.0f} transactions (reads too), its backends' "
            f"CPU {cpu(spent.pg_cpu)}; "
            + (f"nginx CPU {cpu(spent.nginx_cpu)}; " if spent.nginx else "")
            + f"server CPU {cpu(server_cpu)}",
            f"  Redis {spent.redis_commands * k:.0f} commands ({each}), CPU "
            f"{cpu(spent.redis_cpu)}, {spent.redis_bytes[0] * k / 1024:.0f} KiB in, "
            f"{spent.redis_bytes[1] * k / 1024:.0f} KiB out{shared}",
        ]
    return lines
