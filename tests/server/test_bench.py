"""``bodoge bench server`` runs end to end and prints its figures."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_server_bench_prints_its_figures() -> None:
    command = [sys.executable, "-m", "bodoge", "bench", "server"]
    command += ["--tables", "3", "--players", "2", "--duration", "3", "--think", "0.05"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "clients connected: 6" in out
    moves = re.search(r"= ([\d.]+) moves/s", out)
    assert moves and float(moves.group(1)) > 5, out
    assert re.search(r"median [\d.]+ ms, p99 [\d.]+ ms", out), out
    peak = re.search(r"peak memory \(VmHWM\) (\d+) MiB", out)
    assert peak and int(peak.group(1)) > 10, out
    assert "errors" not in out, out
