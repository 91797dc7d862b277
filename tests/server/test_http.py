"""The HTTP side: health, games, pages, static files, table summaries and histories."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import httpx
import pytest

from bodoge.games import get
from bodoge.server.edge.pages import WEB_STATIC, game_web_dir
from bodoge.store.upgrade import head
from tests.server.tagiron_play import play_seat
from tests.support.client import Client
from tests.support.live_server import LiveServer


@pytest.fixture
async def http(live_server: LiveServer):
    async with httpx.AsyncClient(base_url=live_server.url, timeout=20) as client:
        yield client


async def test_healthz(http: httpx.AsyncClient) -> None:
    response = await http.get("/healthz")
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"status", "process", "database", "schema"}
    assert body["status"] == "ok" and body["database"]["ok"] is True
    assert body["schema"]["version"] == body["schema"]["process"] == head()
    assert body["process"].split("-")[-2].isdigit()  # host-pid-random
    assert response.headers["cache-control"] == "no-store"


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    from prometheus_client.parser import text_string_to_metric_families

    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


async def test_metrics(live_server: LiveServer, http: httpx.AsyncClient) -> None:
    process = (await http.get("/healthz")).json()["process"]
    response = await http.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    before = _samples(response.text)
    assert before[("bodoge_process_info", (("process", process),))] == 1
    ann = await Client.connect(live_server.ws_url, "Ann")
    bots = [{"seat": 1, "level": "easy"}]
    table = (await ann.ok("table.create", game="tagiron", bots=bots))["table"]
    await ann.ok("table.open", table=table)
    await ann.ok("table.start", table=table)
    n = (await play_seat(ann, table, random.Random(3)))["n"]
    during = _samples((await http.get("/metrics")).text)
    await ann.close()
    assert during[("bodoge_connections", ())] >= 1
    assert during[("bodoge_tables_owned", ())] >= 1
    assert during[("bodoge_moves_total", ())] - before[("bodoge_moves_total", ())] >= n
    for histogram in ("bodoge_move_fanout_seconds_count", "bodoge_commit_seconds_count"):
        assert during[(histogram, ())] - before[(histogram, ())] >= n


async def test_games_lists_the_registry(http: httpx.AsyncClient) -> None:
    games = {g["id"]: g for g in (await http.get("/api/games")).json()}
    assert games["tagiron"]["bot_levels"] == ["easy", "normal", "expert"]
    assert games["tagiron"]["defaults"] == {"players": 2}
    assert (games["tagiron"]["min_seats"], games["tagiron"]["max_seats"]) == (2, 4)


@pytest.mark.parametrize("path", ["/", "/t/t_anything1", "/account"])
async def test_pages_serve_the_front_end(http: httpx.AsyncClient, path: str) -> None:
    response = await http.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["x-content-type-options"] == "nosniff"
    index = WEB_STATIC / "index.html"
    if index.is_file():
        assert response.text == index.read_text()


async def test_static_files_and_game_assets(http: httpx.AsyncClient) -> None:
    assert (await http.get("/static/no/such/file.js")).status_code == 404
    assert (await http.get("/static/games/tagiron/no-such.js")).status_code == 404
    assert (await http.get("/static/../pyproject.toml")).status_code == 404
    shipped = [p for p in WEB_STATIC.rglob("*") if p.is_file()] if WEB_STATIC.is_dir() else []
    if shipped:
        some = shipped[0]
        response = await http.get("/static/" + some.relative_to(WEB_STATIC).as_posix())
        assert response.status_code == 200 and response.content == some.read_bytes()
    assets = game_web_dir(get("tagiron"))
    files = [p for p in assets.rglob("*") if p.is_file()] if assets.is_dir() else []
    if files:
        response = await http.get(
            "/static/games/tagiron/" + files[0].relative_to(assets).as_posix()
        )
        assert response.status_code == 200 and response.content == files[0].read_bytes()


def test_game_assets_live_beside_the_game() -> None:
    assert game_web_dir(get("tagiron")) == (
        Path(__file__).resolve().parents[2] / "bodoge" / "games" / "tagiron" / "web"
    )


async def test_table_summary_and_history(live_server: LiveServer, http: httpx.AsyncClient) -> None:
    missing = await http.get("/api/tables/t_nosuchtable")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "unknown_table"
    assert (await http.get("/api/tables/nonsense")).status_code == 404
    assert (await http.get("/api/tables/t_nosuchtable/history")).status_code == 404
    ann = await Client.connect(live_server.ws_url, "Ann")
    bots = [{"seat": 1, "level": "easy"}]
    table = (await ann.ok("table.create", game="tagiron", bots=bots))["table"]
    summary = (await http.get(f"/api/tables/{table}")).json()
    assert summary["id"] == table and summary["status"] == "waiting"
    assert table in [t["id"] for t in (await http.get("/api/tables")).json()["tables"]]
    await ann.ok("table.open", table=table)
    await ann.ok("table.start", table=table)
    running = await http.get(f"/api/tables/{table}/history")
    assert running.status_code == 409 and running.json()["error"]["code"] == "not_finished"
    final = await play_seat(ann, table, random.Random(8))
    hist = (await http.get(f"/api/tables/{table}/history")).json()
    n = final["n"]
    assert len(hist["moves"]) == len(hist["events"]) == n and len(hist["views"]) == n + 1
    assert hist["views"][0]["hand"] is None and hist["views"][-1]["revealed"] is not None
    assert hist["result"] == final["result"]
    own = {"Authorization": f"Bearer {ann.token}"}
    mine = (await http.get(f"/api/tables/{table}/history?seat=0", headers=own)).json()
    assert mine["views"][0]["hand"] is not None and mine["seat"] == 0
    assert (await http.get(f"/api/tables/{table}/history?seat=7", headers=own)).status_code == 400
    # a seat's own history is its player's alone: no token, a forged one, another seat
    for headers in ({}, {"Authorization": "Bearer " + "x" * 43}, {"Authorization": ann.token}):
        refused = await http.get(f"/api/tables/{table}/history?seat=0", headers=headers)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_seated"
    other = await http.get(f"/api/tables/{table}/history?seat=1", headers=own)
    assert other.status_code == 403
    finished = (await http.get("/api/tables?status=finished")).json()["tables"]
    assert table in [t["id"] for t in finished]
    assert (await http.get("/api/tables?status=bogus")).status_code == 400
    await ann.close()


async def test_a_finished_games_review(live_server: LiveServer, http: httpx.AsyncClient) -> None:
    """``/review``: every seat judged, once the game is over; worked out once, then kept."""
    assert (await http.get("/api/tables/t_nosuchtable/review")).status_code == 404
    ann = await Client.connect(live_server.ws_url, "Ann")
    bots = [{"seat": 1, "level": "normal"}, {"seat": 2, "level": "easy"}]
    options = {"players": 3}
    table = (await ann.ok("table.create", game="tagiron", options=options, bots=bots))["table"]
    await ann.ok("table.open", table=table)
    await ann.ok("table.start", table=table)
    running = await http.get(f"/api/tables/{table}/review")
    assert running.status_code == 409 and running.json()["error"]["code"] == "not_finished"
    await play_seat(ann, table, random.Random(4), timeout=90)
    # asked three times at once: one computation, one answer
    replies = await asyncio.gather(*(http.get(f"/api/tables/{table}/review") for _ in range(3)))
    assert [r.status_code for r in replies] == [200] * 3
    review = replies[0].json()
    assert replies[1].json() == replies[2].json() == review
    hist = (await http.get(f"/api/tables/{table}/history")).json()
    asked = [m["seat"] for m in hist["moves"] if m["move"]["type"] == "ask"]
    assert review["players"] == 3 and [s["seat"] for s in review["seats"]] == [0, 1, 2]
    for s in review["seats"]:
        assert len(s["questions"]) == asked.count(s["seat"])
        assert len(s["candidates"]) == len(hist["moves"]) + 1
        assert 0 <= s["score"] <= 100 and s["summary"].startswith(f"score {s['score']}:")
    # The same review as the command line's, from the same history.
    from bodoge.games.tagiron.review import review_history

    assert review == json.loads(json.dumps(review_history(hist).to_json()))
    assert (await http.get(f"/api/tables/{table}/review")).json() == review
    await ann.close()
