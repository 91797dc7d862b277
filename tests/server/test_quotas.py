"""Quotas, hit from a client: each refusal has its code, and changes nothing.

A server of its own per test (the shared one has no quotas), with small limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import sqlite3
from collections.abc import Callable

import httpx
from PIL import Image

from bodoge.server.runtime.config import DAY, Quotas
from tests.support.client import Client
from tests.support.live_server import LiveServer

BASE = ("--bot-delay", "0", "--max-connections-per-address", "0")


async def _stats(server: LiveServer) -> dict:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        return (await http.get("/api/stats")).json()


async def _hosted(server: LiveServer, player_id: str) -> list[str]:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        tables = (await http.get("/api/tables")).json()["tables"]
    return sorted(t["id"] for t in tables if t["host"] == player_id)


def _players(server: LiveServer) -> list[str]:
    """The players the server's store holds."""
    with contextlib.closing(sqlite3.connect(server.data / "bodoge.sqlite3")) as db:
        return sorted(row[0] for row in db.execute("SELECT id FROM players"))


# --- guests ----------------------------------------------------------------------------


async def test_new_players_per_address_are_a_rate(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server(args=(*BASE, "--new-players-per-hour", "2"))
    # A hello refused for its name makes nobody, and uses up nothing of the rate.
    first = await Client.connect(server.ws_url, name=None)
    assert (await first.request("hello", name=" "))["code"] == "bad_name"
    ann = await Client.connect(server.ws_url, "Ann")
    await Client.connect(server.ws_url, "Bob")
    before = _players(server)
    third = await Client.connect(server.ws_url, name=None)
    reply = await third.request("hello", name="Cid")
    assert reply["code"] == "new_player_rate_limited" and " s" in reply["message"]
    assert _players(server) == before  # nobody was made
    # The connection stays open and a known player may still say hello on it (or anywhere).
    assert (await third.request("hello", token=ann.token))["type"] == "welcome"
    await Client.connect(server.ws_url, token=ann.token, name=None)
    stats = (await _stats(server))["quotas"]
    assert stats["refused_by_rate"] == {"new_player_rate_limited": 1}
    assert _players(server) == before


async def test_idle_guests_are_removed(make_live_server: Callable[..., LiveServer]) -> None:
    args = (*BASE, "--guest-idle-days", str(1 / DAY), "--cleanup-every", "0.2")
    server = make_live_server(args=args)
    idle = await Client.connect(server.ws_url, "Idle")  # never sits down
    seated = await Client.connect(server.ws_url, "Seated")
    await seated.ok("table.create", game="tagiron")
    chatty = await Client.connect(server.ws_url, "Chatty")
    table = (await seated.ok("table.create", game="illustori"))["table"]
    await chatty.ok("table.open", table=table)
    await chatty.ok("chat", table=table, text="hi")
    await seated.close()
    await chatty.close()
    here = await Client.connect(server.ws_url, "Here")  # idle too, but connected
    await idle.close()
    deadline = asyncio.get_running_loop().time() + 15
    while idle.player_id in _players(server):
        assert asyncio.get_running_loop().time() < deadline, "the idle guest was not removed"
        await asyncio.sleep(0.2)
    await asyncio.sleep(1.5)  # several more sweeps
    left = _players(server)
    assert {seated.player_id, chatty.player_id, here.player_id} <= set(left)
    assert idle.player_id not in left
    back = await Client.connect(server.ws_url, name=None)
    assert (await back.request("hello", token=idle.token))["code"] == "bad_token"
    assert (await back.request("hello", token=seated.token))["type"] == "welcome"
    assert (await _stats(server))["quotas"]["guests_removed"] >= 1
    await here.close()


# --- tables per player ----------------------------------------------------------------


async def test_waiting_tables_per_player_are_capped(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server(args=(*BASE, "--waiting-tables-per-player", "2"))
    ann = await Client.connect(server.ws_url, "Ann")
    first = (await ann.ok("table.create", game="tagiron"))["table"]
    await ann.ok("table.create", game="tagiron")
    before = await _hosted(server, ann.player_id)
    reply = await ann.request("table.create", game="tagiron")
    assert reply["type"] == "error" and reply["code"] == "too_many_tables"
    assert await _hosted(server, ann.player_id) == before  # no third table
    # Someone else may still host; and once Ann's table is gone she may again.
    bob = await Client.connect(server.ws_url, "Bob")
    await bob.ok("table.create", game="tagiron")
    await ann.ok("table.leave", table=first)
    third = (await ann.ok("table.create", game="tagiron"))["table"]
    assert third not in before and len(await _hosted(server, ann.player_id)) == 2
    refused = (await _stats(server))["quotas"]["refused_by_quota"]
    assert refused == {"too_many_tables": 1}
    for client in (ann, bob):
        await client.close()


async def test_a_running_game_is_not_a_waiting_table(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server(args=(*BASE, "--waiting-tables-per-player", "1"))
    ann = await Client.connect(server.ws_url, "Ann")
    table = (await ann.ok("table.create", game="tagiron", bots=[{"seat": 1, "level": "easy"}]))[
        "table"
    ]
    assert (await ann.request("table.create", game="tagiron"))["code"] == "too_many_tables"
    await ann.ok("table.start", table=table)
    await ann.ok("table.create", game="tagiron")
    await ann.close()


async def test_tables_per_hour_are_a_rate(make_live_server: Callable[..., LiveServer]) -> None:
    server = make_live_server(
        args=(*BASE, "--waiting-tables-per-player", "0", "--tables-per-hour", "3")
    )
    ann = await Client.connect(server.ws_url, "Ann")
    made = [(await ann.ok("table.create", game="tagiron"))["table"] for _ in range(3)]
    for table in made:  # leaving does not give the tokens back
        await ann.ok("table.leave", table=table)
    reply = await ann.request("table.create", game="tagiron")
    assert reply["code"] == "table_rate_limited" and " s" in reply["message"]
    assert await _hosted(server, ann.player_id) == []
    # A refused request (an unknown game) takes no token; another player has their own.
    bob = await Client.connect(server.ws_url, "Bob")
    assert (await bob.request("table.create", game="chess"))["code"] == "unknown_game"
    for _ in range(3):
        await bob.ok("table.create", game="tagiron", bots=[{"seat": 1, "level": "easy"}])
    stats = (await _stats(server))["quotas"]
    assert stats["refused_by_rate"] == {"table_rate_limited": 1}
    for client in (ann, bob):
        await client.close()


def test_the_default_table_quotas() -> None:
    assert (Quotas().waiting_tables_per_player, Quotas().tables_per_hour) == (5, 60)


# --- uploads ------------------------------------------------------------------------------


def noise(side: int = 200) -> bytes:
    """A picture that compresses badly: some 31 KB as stored at 200 px."""
    buffer = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(buffer, "PNG")
    return buffer.getvalue()


def _decks(server: LiveServer) -> list[tuple[str, str | None]]:
    """The stored sets and their owners."""
    with contextlib.closing(sqlite3.connect(server.data / "bodoge.sqlite3")) as db:
        return sorted(db.execute("SELECT id, owner FROM picture_sets"))


async def _upload(server: LiveServer, token: str | None, picture: bytes) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=server.url, timeout=30, headers=headers) as http:
        return await http.post("/api/decks", files=[("files", ("a.png", picture, "image/png"))])


def _code(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


async def test_uploads_need_a_player_and_count_against_the_rate_and_the_decks(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server(args=(*BASE, "--uploads-per-hour", "3", "--decks-per-player", "2"))
    red = noise(8)
    for token in (None, "x" * 43):  # no player, or a token the server never gave
        assert _code(await _upload(server, token, red)) == (401, "bad_token")
    assert _decks(server) == []
    ann = await Client.connect(server.ws_url, "Ann")
    for _ in range(2):
        assert (await _upload(server, ann.token, red)).status_code == 201
    stored = _decks(server)
    assert [owner for _, owner in stored] == [ann.player_id] * 2
    assert _code(await _upload(server, ann.token, red)) == (403, "too_many_decks")
    # Three uploads from this address this hour: Bob's is one too many, whoever he is.
    bob = await Client.connect(server.ws_url, "Bob")
    response = await _upload(server, bob.token, red)
    assert _code(response) == (429, "upload_rate_limited")
    assert 1 <= int(response.headers["retry-after"]) <= 1200
    assert _decks(server) == stored
    quotas = (await _stats(server))["quotas"]
    assert quotas["refused_by_quota"] == {"too_many_decks": 1}
    assert quotas["refused_by_rate"] == {"upload_rate_limited": 1}
    assert quotas["uploads_stored"] == 2 and quotas["upload_bytes_stored"] > 0
    assert quotas["decks_kept"] == 2 and quotas["deck_bytes_kept"] == quotas["upload_bytes_stored"]
    for client in (ann, bob):
        await client.close()


async def test_the_bytes_of_decks_have_a_quota_per_player_and_in_all(
    make_live_server: Callable[..., LiveServer],
) -> None:
    args = (*BASE, "--uploads-per-hour", "0", "--deck-mb-per-player", "0.05")
    server = make_live_server(args=(*args, "--deck-mb-total", "0.08"))
    ann, bob, cid = [await Client.connect(server.ws_url, n) for n in ("Ann", "Bob", "Cid")]
    assert (await _upload(server, ann.token, noise())).status_code == 201  # some 31 KB
    before = _decks(server)
    assert _code(await _upload(server, ann.token, noise())) == (403, "too_many_deck_bytes")
    assert _decks(server) == before
    assert (await _upload(server, bob.token, noise())).status_code == 201
    before = _decks(server)
    assert _code(await _upload(server, cid.token, noise())) == (507, "server_full")
    assert _decks(server) == before
    assert (await _stats(server))["quotas"]["refused_by_quota"] == {
        "too_many_deck_bytes": 1,
        "server_full": 1,
    }
    for client in (ann, bob, cid):
        await client.close()


async def test_decks_no_table_uses_are_deleted(
    make_live_server: Callable[..., LiveServer],
) -> None:
    args = (*BASE, "--deck-unused-days", str(1 / DAY), "--cleanup-every", "0.2")
    server = make_live_server(args=args)
    ann = await Client.connect(server.ws_url, "Ann")
    unused = (await _upload(server, ann.token, noise(8))).json()["deck"]
    used = (await _upload(server, ann.token, noise(8))).json()["deck"]
    options = {"players": 3, "custom_deck": used, "deck_size": 30}
    await ann.ok("table.create", game="illustori", options=options)
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        deadline = asyncio.get_running_loop().time() + 15
        while (await http.get(f"/api/decks/{unused}/0")).status_code != 404:
            assert asyncio.get_running_loop().time() < deadline, "the unused deck stayed"
            await asyncio.sleep(0.2)
        await asyncio.sleep(1.5)  # more sweeps: the deck the table names stays
        assert (await http.get(f"/api/decks/{used}/0")).status_code == 200
    assert [deck for deck, _ in _decks(server)] == [used]
    assert (await _stats(server))["quotas"]["decks_removed"] == 1
    await ann.close()
