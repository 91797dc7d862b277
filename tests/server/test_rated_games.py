"""Rated games: every seat's rating moves exactly once, through the server and across a
crash at the game's end; profiles, rating charts and leaderboards."""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest

from bodoge.games import registry
from bodoge.server.services.ratings import ANCHOR, DEFAULT, Ratings, Seat, rate
from bodoge.store import MoveRecord, PlayerRecord, SeatRecord, TableRecord, Timers, open_store
from tests.server.tagiron_play import play_seat
from tests.server.test_accounts import PASSWORD, bearer, unique
from tests.support.client import Client
from tests.support.live_server import LiveServer

# --- the store: pending with the result, settled once ------------------------------------


async def _finished_rated_table(store, table_id: str, seats, places, *, rated: bool = True) -> None:
    record = TableRecord(
        table_id, "tagiron", {"players": len(seats)}, {"rated": rated}, 7, "waiting", None, 1
    )
    await store.create_table(record, seats)
    await store.start_table(table_id, 2, seats, Timers())
    result = {"places": places, "reason": "places_decided", "winners": [0]}
    await store.append_move(
        table_id, MoveRecord(1, 0, {"type": "pass"}, 3), None, result, rated=rated
    )


async def test_a_rated_end_counts_once_even_after_a_crash(tmp_path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"
    store = await open_store(url)
    for pid in ("p_ann", "p_bob", "p_guest"):
        await store.create_player(PlayerRecord(pid, pid, f"hash-{pid}", 0))
    await store.make_account("p_ann", "Ann", "ann", None)
    await store.make_account("p_bob", "Bob", "bob", None)
    seats = [
        SeatRecord(0, "human", "p_ann"),
        SeatRecord(1, "bot", level="expert"),
        SeatRecord(2, "bot", level="normal", left="p_bob"),  # Bob left; a bot finished for him
        SeatRecord(3, "human", "p_guest"),
    ]
    await _finished_rated_table(store, "t_one", seats, [1, 2, None, 3])
    await _finished_rated_table(store, "t_unrated", seats, [1, 2, 3, 4], rated=False)
    # The server "crashed" here: the result is stored, the ratings are not.
    assert await store.pending_ratings() == ["t_one"]
    await store.close()

    store = await open_store(url)  # the restart
    try:
        ratings = Ratings(store, registry())
        assert await ratings.settle_pending() == 1
        assert await ratings.settle_pending() == 0
        assert await ratings.settle("t_one") is False  # asked again: nothing changes
        want = rate(
            [
                Seat("p_ann", DEFAULT),
                Seat("bot:expert", ANCHOR, fixed=True),
                Seat("p_bob", DEFAULT),
                Seat("p_guest", DEFAULT, fixed=True),
            ],
            [1, 2, None, 3],
        )
        ann = {r.game: r for r in await store.ratings_of("p_ann")}["tagiron"]
        bob = {r.game: r for r in await store.ratings_of("p_bob")}["tagiron"]
        assert (ann.mu, ann.sigma, ann.games) == (want[0].mu, want[0].sigma, 1)
        assert (bob.mu, bob.sigma, bob.games) == (want[2].mu, want[2].sigma, 1)
        # The guest and the anchor keep nothing; every rated seat has one point of history.
        assert await store.ratings_of("p_guest") == []
        assert await store.bot_ratings("tagiron") == []
        assert [(p.table_id, p.games) for p in await store.rating_history("p_ann", "tagiron")] == [
            ("t_one", 1)
        ]
        board = await store.leaderboard("tagiron", 1)
        best_first = sorted([ann, bob], key=lambda r: r.mu - 3 * r.sigma, reverse=True)
        assert [r.player for r in board] == [r.player for r in best_first]
    finally:
        await store.close()


async def test_two_tables_settled_at_once_both_count(tmp_path) -> None:
    store = await open_store(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        await store.create_player(PlayerRecord("p_ann", "Ann", "h1", 0))
        await store.make_account("p_ann", "Ann", "ann", None)
        seats = [SeatRecord(0, "human", "p_ann"), SeatRecord(1, "bot", level="easy")]
        for table_id in ("t_a", "t_b", "t_c"):
            await _finished_rated_table(store, table_id, seats, [1, 2])
        ratings = Ratings(store, registry())
        done = await asyncio.gather(*(ratings.settle(t) for t in ("t_a", "t_b", "t_c", "t_a")))
        assert sorted(done) == [False, True, True, True]
        ann = (await store.ratings_of("p_ann"))[0]
        easy = (await store.bot_ratings("tagiron"))[0]
        assert (ann.games, easy.games) == (3, 3)
        assert ann.mu > 25 > easy.mu
    finally:
        await store.close()


# --- through the server --------------------------------------------------------------------


async def _account(server: LiveServer, http: httpx.AsyncClient, name: str) -> Client:
    client = await Client.connect(server.ws_url, name)
    made = await http.post(
        "/api/account",
        json={"name": unique(name), "password": PASSWORD},
        headers=bearer(client.token),
    )
    assert made.status_code == 201, made.text
    return client


async def _play_rated(client: Client, bots: list[dict[str, object]], players: int) -> str:
    table = (
        await client.ok(
            "table.create",
            game="tagiron",
            options={"players": players},
            settings={"rated": True},
            bots=bots,
        )
    )["table"]
    await client.ok("table.open", table=table)
    await client.ok("table.start", table=table)
    await play_seat(client, table, random.Random(11))
    return table


async def test_a_rated_game_through_the_server(live_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30) as http:
        ann = await _account(live_server, http, "Ann")
        bots = [{"seat": 1, "level": "normal"}, {"seat": 2, "level": "expert"}]
        table = await _play_rated(ann, bots, 3)
        summary = (await http.get(f"/api/tables/{table}")).json()
        assert summary["settings"]["rated"] is True

        async def profile() -> dict:
            for _ in range(100):
                found = (await http.get(f"/api/players/{ann.player_id}")).json()
                if found["ratings"]:
                    return found
                await asyncio.sleep(0.1)
            raise AssertionError("no rating after the game")

        found = await profile()
        assert found["player"] == ann.player and found["account"] is True
        (rating,) = found["ratings"]
        assert (
            rating["game"] == "tagiron" and rating["games"] == 1 and rating["provisional"] is True
        )
        assert found["games"][0]["id"] == table and found["games"][0]["rated"] is True
        assert found["stats"][0]["games"] == 1 and found["stats"][0]["rated"] == 1
        chart = await http.get(f"/api/players/{ann.player_id}/ratings/tagiron.svg")
        assert chart.headers["content-type"].startswith("image/svg+xml")
        assert chart.text.count("<circle") == 1 and f">{rating['rating']}<" in chart.text
        board = (await http.get("/api/leaderboard/tagiron?min_games=1")).json()
        assert ann.player_id in [p["player"]["id"] for p in board["players"]]
        bots_seen = {b["level"]: b for b in board["bots"]}
        assert bots_seen["expert"]["anchor"] is True and bots_seen["expert"]["mu"] == ANCHOR.mu
        assert bots_seen["normal"]["games"] >= 1
        # Unknown players and games, and bad requests.
        assert (await http.get("/api/players/p_nobody00")).status_code == 404
        assert (await http.get("/api/leaderboard/chess")).json()["error"]["code"] == "unknown_game"
        assert (await http.get("/api/leaderboard/tagiron?min_games=x")).status_code == 400
        await ann.close()


async def test_an_unrated_table_moves_no_rating(live_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30) as http:
        kim = await _account(live_server, http, "Kim")
        table = (await kim.ok("table.create", game="tagiron", bots=[{"seat": 1, "level": "easy"}]))[
            "table"
        ]
        await kim.ok("table.open", table=table)
        await kim.ok("table.start", table=table)
        await play_seat(kim, table, random.Random(2))
        await asyncio.sleep(0.5)
        assert (await http.get(f"/api/players/{kim.player_id}")).json()["ratings"] == []
        await kim.close()


@pytest.mark.parametrize("wait_ms", [0, 300])
async def test_a_crash_at_the_games_end_counts_it_once(make_live_server, wait_ms: int) -> None:
    server = make_live_server()
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        lee = await _account(server, http, "Lee")
        table = await _play_rated(lee, [{"seat": 1, "level": "expert"}], 2)
        await asyncio.sleep(wait_ms / 1000)
        server.kill()  # kill -9, whether the ratings were settled yet or not
        await lee.close()
        server.restart()
        for _ in range(100):
            ratings = (await http.get(f"/api/players/{lee.player_id}")).json()["ratings"]
            if ratings:
                break
            await asyncio.sleep(0.1)
        assert [r["games"] for r in ratings] == [1]
        history = await http.get(f"/api/players/{lee.player_id}/ratings/tagiron.svg")
        assert history.text.count("<circle") == 1
        assert table
