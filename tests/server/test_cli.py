"""``bodoge serve`` and ``bodoge bench server`` are wired into the command line."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import platformdirs
import pytest

from bodoge.cli import build_parser
from bodoge.server.cli import default_data_dir, serve
from tests.support.client import Client
from tests.support.live_server import DEFAULT_ARGS, LiveServer


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


def test_the_absence_rules_are_the_operators() -> None:
    """``bodoge serve --absent-after-timeouts/--absent-after-days/--turn-abandon-days/
    --vacation-days`` set turn-based play's rules; without them, the defaults of
    ``ServerConfig`` (3 turns, 7 days, 14 days, 30 days a year)."""
    from bodoge.server.cli import turn_rules_of
    from bodoge.server.runtime.config import DAY, ServerConfig

    plain = ServerConfig(db_url="x", **turn_rules_of(build_parser().parse_args(["serve"])))
    assert plain == ServerConfig(db_url="x")
    assert (
        plain.absent_after_timeouts,
        plain.absent_after_seconds,
        plain.turn_abandon_seconds,
        plain.vacation_days_per_year,
    ) == (3, 7 * DAY, 14 * DAY, 30)
    rules = ["--absent-after-timeouts", "5", "--absent-after-days", "2.5"]
    rules += ["--turn-abandon-days", "30", "--vacation-days", "0"]
    args = build_parser().parse_args(["serve", *rules])
    chosen = ServerConfig(db_url="x", **turn_rules_of(args))
    assert (
        chosen.absent_after_timeouts,
        chosen.absent_after_seconds,
        chosen.turn_abandon_seconds,
        chosen.vacation_days_per_year,
    ) == (5, 2.5 * DAY, 30 * DAY, 0)
    for bad in (
        ["--absent-after-timeouts", "0"],
        ["--absent-after-days", "0"],
        ["--turn-abandon-days", "-1"],
        ["--vacation-days", "367"],
        ["--vacation-days", "1.5"],
    ):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", *bad])


async def test_a_server_tells_its_vacation_days_a_year(
    make_live_server: Callable[..., LiveServer],
) -> None:
    """The option reaches the running server: the vacation page is told its days a year."""
    server = make_live_server(args=[*DEFAULT_ARGS, "--vacation-days", "12"])
    ann = await Client.connect(server.ws_url, "Ann")
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            auth = {"Authorization": f"Bearer {ann.token}"}
            found = await http.get("/api/players/me/vacation", headers=auth)
            assert found.json() == {"until": None, "days_left": 12, "days_per_year": 12}
            refused = await http.post("/api/players/me/vacation", json={"days": 13}, headers=auth)
            assert refused.status_code == 400
            assert refused.json()["error"]["code"] == "bad_vacation"
    finally:
        await ann.close()
