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


def test_the_websocket_ping_follows_the_mode(tmp_path: Path) -> None:
    """A cluster process pings each socket more often than nginx's 3 s read timeout
    (docs/deploy.md); a lone process keeps uvicorn's 20 s; a negative interval is refused."""
    from bodoge.cluster.nginx import WS_PING, WS_TIMEOUT
    from bodoge.server.cli import ws_ping

    cluster = build_parser().parse_args(["serve", "--redis", "redis://x"])
    alone = build_parser().parse_args(["serve"])
    told = build_parser().parse_args(["serve", "--redis", "redis://x", "--ws-ping", "0"])
    assert (ws_ping(cluster), ws_ping(alone), ws_ping(told)) == (WS_PING, 20.0, 0.0)
    assert WS_PING + 2 <= WS_TIMEOUT  # a busy process's late timer still beats the timeout
    command = [sys.executable, "-m", "bodoge", "serve", "--data", str(tmp_path), "--ws-ping"]
    run = subprocess.run([*command, "-1"], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "--ws-ping must be 0 or more" in run.stderr, run.stderr


def test_bodoge_nginx_prints_the_configuration_for_the_processes_named() -> None:
    from bodoge.cluster.nginx import nginx_config

    command = [sys.executable, "-m", "bodoge", "nginx", "--listen", "203.0.113.7:80"]
    command += ["--upstream", "10.0.0.1:8001", "--upstream", "10.0.0.2:8001"]
    command += ["--operator", "10.0.0.5:8081", "--allow", "10.0.0.9", "--ws-timeout", "12"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    expected = nginx_config(
        ["10.0.0.1:8001", "10.0.0.2:8001"], "203.0.113.7:80", "10.0.0.5:8081", ["10.0.0.9"], 12
    )
    assert run.stdout == expected
    assert "allow 127.0.0.1;" not in run.stdout  # --allow replaces the default, loopback
    # The WebSocket's location alone takes the longer timeout; plain HTTP keeps 3 s.
    assert run.stdout.count("proxy_read_timeout 12s;") == 1
    assert run.stdout.count("proxy_read_timeout 3s;") == 2  # the site's /, the operator's
