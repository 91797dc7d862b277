"""``bodoge bench trace-move`` traces a move through a server in a process of its own and
counts the bodoge files and functions it entered (the clients' code not among them)."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

from bodoge.bench.trace_move import trace
from bodoge.server.runtime.table import LiveTable

ROOT = Path(__file__).resolve().parents[2]
#: LiveTable's module, as the tracer names files.
TABLE = Path(inspect.getfile(LiveTable)).resolve().relative_to(ROOT).as_posix()


def test_a_traced_move_passes_through_the_table() -> None:
    (move,) = trace(ROOT, warm_up=1, moves=1)
    files = [entry["file"] for entry in move["files"]]
    assert TABLE in files, files
    assert len(files) > 5 and move["functions"] >= len(files), move
    assert move["calls"] >= move["functions"] and 0 < move["changes"] < move["calls"], move
    assert not [f for f in files if f.startswith("bodoge/bench/")], files
    assert move["move"]["type"] in ("ask", "pass") and move["n"] == 2, move


def test_the_command_prints_its_table_and_the_files() -> None:
    command = [sys.executable, "-m", "bodoge", "bench", "trace-move", "--moves", "2", "--files"]
    env = dict(os.environ, COLUMNS="200", PYTHONPATH=str(ROOT))
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "one move through the server of" in out and "changes of file" in out, out
    assert "median" in out and TABLE in out, out
