"""``bodoge bench server --cluster N``: N cluster processes, the clients spread over them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.support.databases import PG_ADMIN, REDIS, require

ROOT = Path(__file__).resolve().parents[2]


def test_the_cluster_bench_prints_the_same_figures() -> None:
    require(PG_ADMIN, 5432, "PostgreSQL")
    require(REDIS, 6379, "Redis")
    command = [sys.executable, "-m", "bodoge", "bench", "server", "--cluster", "2"]
    command += ["--cluster-pg", PG_ADMIN, "--cluster-redis", REDIS]
    command += ["--tables", "2", "--players", "2", "--duration", "3", "--think", "0.05"]
    command += ["--arrival", "0.3"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "2 cluster processes, clients spread seat by seat" in out, out
    assert "clients connected: 4" in out
    moves = re.search(r"= ([\d.]+) moves/s", out)
    assert moves and float(moves.group(1)) > 3, out
    assert re.search(r"median [\d.]+ ms, p99 [\d.]+ ms", out), out
    assert re.search(r"server CPU \(2 processes together\): [\d.]+ s per 1,000 moves", out), out
    peak = re.search(r"peak \(VmHWM\) (\d+) MiB", out)
    assert peak and int(peak.group(1)) > 20, out
    assert "errors" not in out, out
    assert "dropping the bench's database" not in done.stderr, done.stderr
