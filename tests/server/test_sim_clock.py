"""``bodoge serve --test-clock``: a test server's simulated time, and who may move it.

* off a loopback address, or in a cluster, the server refuses to start;
* without the flag there is no ``/api/test/clock`` (404);
* with it, ``POST /api/test/clock`` runs the timers due on the way (a turn-based table's
  time per move runs out and the stand-in plays) before it answers, and answers 404 to
  anyone not on this machine;
* a process started with ``--test-clock=START`` reads that time, and says loudly what it is.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from bodoge.core.values import JSON
from bodoge.games.tagiron.cards import CARDS
from bodoge.server.edge.app import App, create_app
from bodoge.server.runtime.clock import ManualClock, SystemClock, use_clock
from bodoge.server.runtime.config import ServerConfig
from bodoge.server.runtime.turns import DAY, HOUR
from bodoge.server.wiring import Server
from bodoge.store import sqlite_url
from tests.server.test_tables import Tab
from tests.support.live_server import ROOT, LiveServer
from tests.support.turn_play import GAMES, ORIGIN, BrowserKeys

START = 1_800_000_000_000  # 2027-01-15T08:00:00Z


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--host", "0.0.0.0"], "--test-clock listens on this machine only"),
        (["--host", "192.0.2.7"], "--test-clock listens on this machine only"),
        (
            ["--db", "postgresql+asyncpg://root@127.0.0.1/x", "--redis", "redis://127.0.0.1"],
            "--test-clock runs one process alone",
        ),
    ],
)
def test_the_test_clock_is_refused_off_this_machine_and_in_a_cluster(
    tmp_path: Path, args: list[str], why: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bodoge", "serve", "--data", str(tmp_path), "--test-clock", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert why in done.stderr
    assert "serving on" not in done.stdout


def client(app: App, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url=ORIGIN)


async def test_without_the_flag_there_is_no_clock_to_move(tmp_path: Path) -> None:
    app = create_app(ServerConfig(db_url=sqlite_url(tmp_path), bot_workers=0))
    async with client(app, "127.0.0.1") as http:
        assert (await http.get("/api/test/clock")).status_code == 404
        moved = await http.post("/api/test/clock", json={"advance": 60})
        assert moved.status_code in (404, 405)
    use_clock(SystemClock())


@pytest.fixture
async def test_app(tmp_path: Path) -> AsyncIterator[tuple[App, Server, ManualClock]]:
    clock = ManualClock(start_ms=START)
    config = ServerConfig(
        db_url=sqlite_url(tmp_path), bot_workers=0, clock=clock, test_hooks=True, games=GAMES
    )
    app = create_app(config)
    try:
        async with app.router.lifespan_context(app):
            yield app, app.state.server, clock
    finally:
        use_clock(SystemClock())


async def test_moving_the_clock_runs_out_a_turn_and_the_stand_in_plays(
    test_app: tuple[App, Server, ManualClock],
) -> None:
    app, server, clock = test_app
    tabs = []
    for name in ("Hana", "Ken"):
        tab = Tab(server)
        await tab.ok("hello", name=name)
        tabs.append(tab)
    created = await tabs[0].ok(
        "table.create",
        game="tagiron",
        options={"players": 2},
        settings={"turn_based": DAY},
        bots=[],
    )
    table_id = str(created["table"])
    await tabs[1].ok("table.join", table=table_id)
    await tabs[0].ok("table.start", table=table_id)
    table = server.tables.live[table_id]
    (seat,) = table.game.to_act(table.state)
    deadline = table.deadlines[seat]
    assert deadline == START + DAY * 1000

    async with client(app, "127.0.0.1") as http:
        assert (await http.get("/api/test/clock")).json() == {
            "now": START,
            "iso": "2027-01-15T08:00:00.000Z",
        }
        moved = await http.post("/api/test/clock", json={"advance": DAY - 1})
        assert moved.json()["now"] == deadline - 1000
        assert table.n == 0 and not table.steps
        # A second on, the turn ran out: answered once the stand-in's move is stored.
        moved = await http.post("/api/test/clock", json={"advance": 1.5})
        assert moved.status_code == 200 and moved.json()["now"] == deadline + 500
        assert table.n == 1
        assert (table.steps[-1].seat, table.steps[-1].actor) == (seat, "timeout")
        assert table.deadlines[1 - seat] == deadline + DAY * 1000
        for wrong in (-1, "60", True, None, 367 * DAY):
            refused = await http.post("/api/test/clock", json={"advance": wrong})
            assert refused.status_code == 400, wrong
            assert refused.json()["error"]["code"] == "bad_request"
    # From another machine the endpoint is not there, and the clock stays where it was.
    async with client(app, "192.0.2.7") as http:
        assert (await http.get("/api/test/clock")).status_code == 404
        assert (await http.post("/api/test/clock", json={"advance": DAY})).status_code == 404
    assert clock.now_ms() == deadline + 500 and table.n == 1


@pytest.mark.parametrize("hooks", [True, False])
async def test_only_a_test_server_takes_a_push_endpoint_on_this_machine(
    tmp_path: Path, hooks: bool
) -> None:
    """A test's push service listens on 127.0.0.1: the flag lets a subscription name it;
    without it, only a push service's https URL is taken."""
    config = ServerConfig(
        db_url=sqlite_url(tmp_path),
        bot_workers=0,
        clock=ManualClock(start_ms=START) if hooks else None,
        test_hooks=hooks,
    )
    app = create_app(config)
    try:
        async with app.router.lifespan_context(app):
            tab = Tab(app.state.server)
            hello = await tab.ok("hello", name="Ken")
            keys = BrowserKeys()
            body = {**keys.subscription("http://127.0.0.1:9/push/ken"), "lang": "ja"}
            async with client(app, "127.0.0.1") as http:
                added = await http.post(
                    "/api/push/subscriptions",
                    json=body,
                    headers={"Authorization": f"Bearer {hello['token']}"},
                )
            if hooks:
                assert added.status_code == 201, added.text
            else:
                assert added.status_code == 400
                assert added.json()["error"]["code"] == "bad_subscription"
    finally:
        use_clock(SystemClock())


def test_a_test_server_starts_at_the_time_it_is_given(tmp_path: Path) -> None:
    server = LiveServer(tmp_path, args=["--bot-workers", "0", "--test-clock=2027-01-15T08:00:00Z"])
    with server:
        answer = httpx.get(server.url + "api/test/clock", timeout=10)
        assert answer.json() == {"now": START, "iso": "2027-01-15T08:00:00.000Z"}
        moved = httpx.post(server.url + "api/test/clock", json={"advance": 90}, timeout=30)
        assert moved.json()["now"] == START + 90_000
        server.args[-1] = f"--test-clock={moved.json()['now']}"
        server.restart()
        again = httpx.get(server.url + "api/test/clock", timeout=10).json()
        assert again["now"] == START + 90_000
    assert "WARNING: --test-clock" in server.log()
    assert "never in production" in server.log()


async def test_moving_the_clock_waits_for_the_bots_it_wakes(
    test_app: tuple[App, Server, ManualClock],
) -> None:
    """Two bots at a turn-based table think one to five minutes each: ten minutes on, both
    have moved by the time the answer comes (each bot's move worked out in a thread, as the
    clock stood at its wake-up)."""
    app, server, _ = test_app
    ann = Tab(server)
    await ann.ok("hello", name="Ann")
    bots: list[JSON] = [{"seat": 1, "level": "easy"}, {"seat": 2, "level": "easy"}]
    created = await ann.ok(
        "table.create",
        game="tagiron",
        options={"players": 3},
        settings={"turn_based": HOUR},
        bots=bots,
    )
    table_id = str(created["table"])
    await ann.ok("table.start", table=table_id)
    table = server.tables.live[table_id]
    async with client(app, "127.0.0.1") as http:
        for _ in range(3):
            if 0 in table.game.to_act(table.state):
                break
            await http.post("/api/test/clock", json={"advance": 5 * 60})
        assert table.game.to_act(table.state) == {0}
        n = table.n
        view = table.game.view(table.state, 0)
        card = next(c for c in view["face_up"] if CARDS[c].choices is None)
        await ann.ok("move", table=table_id, move={"type": "ask", "card": card})
        assert table.n == n + 1 and table.game.to_act(table.state) == {1}
        await http.post("/api/test/clock", json={"advance": 10 * 60})
        assert table.n == n + 3, "both bots moved within their minutes"
        assert [s.actor for s in table.steps[-2:]] == ["bot", "bot"]
        assert table.game.to_act(table.state) == {0}
