"""``bodoge serve`` and ``bodoge bench server`` are wired into the command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import platformdirs

from bodoge.cli import build_parser
from bodoge.server.cli import default_data_dir, serve


def test_serve_defaults() -> None:
    args = build_parser().parse_args(["serve"])
    assert args.func is serve
    assert (args.host, args.port, args.data, args.db) == ("127.0.0.1", 8000, None, None)
    assert default_data_dir() == Path(platformdirs.user_data_dir("bodoge", appauthor=False))


def test_serve_options() -> None:
    args = build_parser().parse_args(
        ["serve", "--host", "0.0.0.0", "--port", "0", "--data", "/tmp/x", "--bot-delay", "0"]
    )
    assert (args.host, args.port, args.data, args.bot_delay) == ("0.0.0.0", 0, Path("/tmp/x"), 0)
    assert build_parser().parse_args(["serve", "--db", "postgresql+asyncpg://h/db"]).db
    # Without --bot-delay each table's bot pace decides.
    assert build_parser().parse_args(["serve"]).bot_delay is None


def test_bench_server_options() -> None:
    args = build_parser().parse_args(["bench", "server", "--tables", "500", "--duration", "60"])
    assert (args.tables, args.duration, args.players) == (500, 60.0, 4)


def test_a_cluster_process_needs_to_know_its_proxy(tmp_path: Path) -> None:
    """Behind nginx every visitor is nginx's address: without --trusted-proxies the rates an
    hour would be the whole site's. A cluster process refuses to start unprepared."""
    command = [sys.executable, "-m", "bodoge", "serve", "--data", str(tmp_path)]
    command += ["--db", "postgresql+asyncpg://bodoge@db.invalid/bodoge", "--redis", "redis://x"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "--trusted-proxies" in run.stderr and "--facing-clients" in run.stderr, run.stderr
