"""``bodoge bench pings`` prices the pings a cluster process sends on every WebSocket."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_pings_bench_prints_each_interval_and_pinging_costs_more() -> None:
    command = [sys.executable, "-m", "bodoge", "bench", "pings", "--sockets", "200"]
    command += ["--every", "0,0.2", "--duration", "2", "--rounds", "1"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "200 open, silent sockets" in out, out
    rows = dict(re.findall(r"^\s+(none|0\.2)\s+([\d.]+)\s+", out, re.MULTILINE))
    assert set(rows) == {"none", "0.2"}, out
    # 1,000 pings a second and their pongs: measurably more than sockets left alone.
    assert float(rows["0.2"]) > float(rows["none"]), out
