"""The capacity model's measurements (docs/scaling.md): ``bodoge bench commits``, and what a
cluster run's moves cost PostgreSQL, Redis and nginx. Figures are printed, not checked;
what must hold whatever the machine's load is checked (a move is at least one commit, each
move is published, the writers group the moves of tables moving at once).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from bodoge.bench.backends import tree_cpu
from bodoge.bench.processes import cpu_seconds
from tests.support.databases import PG_ADMIN, REDIS, require

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> str:
    command = [sys.executable, "-m", "bodoge", "bench", *args]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "dropping the bench's database" not in done.stderr, done.stderr
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    return done.stdout


def test_the_commits_bench_prints_its_table() -> None:
    require(PG_ADMIN, 5432, "PostgreSQL")
    out = _run(
        "commits", "--pg", PG_ADMIN, "--writers", "1,2", "--tables", "1,8", "--duration", "1"
    )
    assert "each group fenced, as in cluster mode" in out, out
    table = out.split("PostgreSQL at high commit rates", 1)[1].splitlines()[2:]
    rows = [line.split() for line in table if line.strip()]
    assert [(row[0], row[1]) for row in rows] == [("1", "1"), ("1", "8"), ("2", "8")], out
    for row in rows:
        moves, commits = float(row[2]), float(row[3])
        assert moves > 0 and commits > 0, out
    # Eight tables moving at once on one writer share commits; one table commits alone.
    assert float(rows[0][4]) == 1.0 and float(rows[1][4]) > 1.5, out


def test_a_cluster_run_prints_what_its_moves_cost_postgresql_redis_and_nginx() -> None:
    require(PG_ADMIN, 5432, "PostgreSQL")
    out = _run(
        *("server", "--cluster-pg", PG_ADMIN, "--cluster-redis", REDIS, "--own-redis"),
        *("--cluster", "1", "--tables", "2", "--players", "2", "--duration", "4"),
        *("--think", "0.05", "--arrival", "0.3"),
    )
    costs = re.search(
        r"per 1,000 moves: (\d+) group commits \(the processes' writers\); PostgreSQL "
        r"(\d+) transactions \(reads too\), its backends' CPU ([\d.]+) s; "
        r"nginx CPU ([\d.]+) s; server CPU [\d.]+ s\n"
        r"\s+Redis (\d+) commands \((.*)\), CPU ([\d.]+) s",
        out,
    )
    assert costs, out
    # Each move is committed, alone or in a group with other tables' moves; the lease and
    # the orphan scan add transactions of their own.
    assert 300 <= int(costs.group(1)) <= 1500, out
    assert int(costs.group(2)) >= int(costs.group(1)) // 2, out  # reported late, or grouped
    commands = dict(part.rsplit(" ", 1) for part in costs.group(6).split(", "))
    # One process: no other follows a table, so its moves are published to nobody (the
    # lobby's changes are); nothing is noted before a move runs, its reply noted after.
    assert int(commands.get("publish", "0")) < 1000, out
    # The reply notes go to Redis in one script call every 50 ms (and the lease's renewals
    # are scripts too): fewer than one a move, whatever the moves' rate.
    assert int(commands.get("evalsha", "0")) < 1000, out
    assert 0 < int(commands.get("set", "0")) <= 1500, out
    # A private Redis: only the run's commands, so no "shared" caveat.
    assert "shared Redis" not in out, out


def test_nginx_cpu_counts_its_workers(tmp_path: Path) -> None:
    """nginx proxies in its worker processes: the master's own CPU is next to nothing."""
    done = tmp_path / "burnt"
    child = (
        "import time, pathlib\n"
        "t = time.process_time()\n"
        "while time.process_time() - t < 0.3: pass\n"
        f"pathlib.Path({str(done)!r}).touch()\n"
        "time.sleep(60)\n"
    )
    script = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}])"
    parent = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert done.exists()
        assert tree_cpu(parent.pid) >= cpu_seconds(parent.pid) + 0.25
    finally:
        os.killpg(parent.pid, signal.SIGKILL)  # the child too
        parent.wait()
