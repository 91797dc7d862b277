"""Whole games through a real server process, with real WebSocket clients."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from tests.server.tagiron_play import Truth, history, leaks, play_seat
from tests.support.client import Client
from tests.support.live_server import LiveServer
from tests.support.lobby import gone, shown


def _numbers(client: Client, table: str) -> list[int]:
    return [m["n"] for m in client.of_type("event") if m["table"] == table]


async def test_two_clients_play_a_whole_game_watched_by_a_spectator(
    live_server: LiveServer,
) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    bob = await Client.connect(live_server.ws_url, "Bob")
    eve = await Client.connect(live_server.ws_url, "Eve")
    table = (await ann.ok("table.create", game="tagiron", options={"players": 2}))["table"]
    assert (await bob.ok("table.join", table=table))["seat"] == 1
    for client in (ann, bob, eve):
        await client.ok("table.open", table=table)
    await bob.ok("table.start", table=table)
    rng = random.Random(7)
    finals = await asyncio.gather(
        play_seat(ann, table, rng, declare=0.2), play_seat(bob, table, rng, declare=0.2)
    )
    final = await eve.wait_for(lambda m: m.get("type") == "event" and m["result"] is not None)
    n = final["n"]
    assert finals[0]["n"] == finals[1]["n"] == n
    # Every seat and the spectator got every move, in order, once.
    for client in (ann, bob, eve):
        assert _numbers(client, table) == list(range(1, n + 1))
    hist = await history(live_server.url, table)
    assert [m["n"] for m in hist["moves"]] == list(range(1, n + 1))
    assert hist["result"] == final["result"]
    truth = Truth(hist)
    assert leaks(ann.received, 0, truth) == []
    assert leaks(bob.received, 1, truth) == []
    assert leaks(eve.received, None, truth) == []
    # The spectator saw the hands only once it was over, and may not move.
    assert final["view"]["revealed"]["hands"] == truth.hand_lists
    reply = await eve.request("move", table=table, move={"type": "pass"})
    assert reply["code"] == "game_finished"
    for client in (ann, bob, eve):
        await client.close()


@pytest.mark.parametrize("level", ["easy", "expert"])
async def test_a_four_player_game_with_three_bots(live_server: LiveServer, level: str) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    bots = [{"seat": s, "level": level} for s in (1, 2, 3)]
    table = (await ann.ok("table.create", game="tagiron", options={"players": 4}, bots=bots))[
        "table"
    ]
    snapshot = await ann.ok("table.open", table=table)
    assert [s["kind"] for s in snapshot["table"]["seats"]] == ["human", "bot", "bot", "bot"]
    await ann.ok("table.start", table=table)
    final = await play_seat(ann, table, random.Random(3), timeout=90)
    assert final["result"] is not None
    assert _numbers(ann, table) == list(range(1, final["n"] + 1))
    hist = await history(live_server.url, table)
    assert {m["actor"] for m in hist["moves"] if m["seat"] != 0} == {"bot"}
    assert {m["seat"] for m in hist["moves"]} >= {1, 2, 3}
    assert leaks(ann.received, 0, Truth(hist)) == []
    await ann.close()


async def test_the_lobby_is_live_updated(live_server: LiveServer) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    watcher = await Client.connect(live_server.ws_url, "Watcher")
    lobby = await watcher.ok("lobby.subscribe")
    assert lobby["type"] == "lobby"
    table = (await ann.ok("table.create", game="tagiron", options={"players": 3}))["table"]
    summary = shown(await watcher.wait_type("lobby.update"), table)
    assert summary is not None
    assert [s["kind"] for s in summary["seats"]] == ["human", "empty", "empty"]
    await ann.ok("table.add_bot", table=table, seat=2, level="easy")

    def with_bot(m: dict[str, Any]) -> bool:
        summary = shown(m, table)
        return summary is not None and summary["seats"][2]["kind"] == "bot"

    summary = shown(await watcher.wait_for(with_bot), table)
    assert summary is not None and summary["seats"][2]["level"] == "easy"
    await ann.ok("table.leave", table=table)  # the last person leaves: the table goes
    await watcher.wait_for(lambda m: gone(m, table))
    assert (await ann.request("table.open", table=table))["code"] == "unknown_table"
    again = await watcher.ok("lobby.subscribe")
    assert table not in [t["id"] for t in again["tables"]]
    await ann.close()
    await watcher.close()


async def test_seats_join_leave_and_start_rules(live_server: LiveServer) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    bob = await Client.connect(live_server.ws_url, "Bob")
    table = (await ann.ok("table.create", game="tagiron", options={"players": 2}))["table"]
    assert (await ann.request("table.join", table=table))["code"] == "already_seated"
    assert (await bob.request("table.join", table=table, seat=0))["code"] == "seat_taken"
    assert (await bob.request("table.join", table=table, seat=5))["code"] == "bad_seat"
    assert (await ann.request("table.start", table=table))["code"] == "not_full"
    assert (await bob.request("table.start", table=table))["code"] == "not_seated"
    assert (await bob.request("table.add_bot", table=table, seat=1, level="easy"))[
        "code"
    ] == "not_seated"
    await ann.ok("table.add_bot", table=table, seat=1, level="easy")
    assert (await bob.request("table.join", table=table))["code"] == "table_full"
    await ann.ok("table.remove_bot", table=table, seat=1)
    await bob.ok("table.join", table=table)
    await ann.ok("table.leave", table=table)  # the host leaves: Bob hosts
    summary = (await bob.ok("table.open", table=table))["table"]
    assert summary["host"] == bob.player_id
    assert [s["kind"] for s in summary["seats"]] == ["empty", "human"]
    await ann.close()
    await bob.close()


async def test_a_player_who_leaves_a_running_game_is_replaced_by_a_bot(
    live_server: LiveServer,
) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    bob = await Client.connect(live_server.ws_url, "Bob")
    table = (
        await ann.ok(
            "table.create",
            game="tagiron",
            options={"players": 2},
            settings={"timeout_bot": "easy"},
        )
    )["table"]
    await bob.ok("table.join", table=table)
    await ann.ok("table.open", table=table)
    await bob.ok("table.open", table=table)
    await ann.ok("table.start", table=table)
    await bob.ok("table.leave", table=table)
    # Bob now watches as a spectator: a fresh snapshot without his hand.
    spectator = await bob.wait_for(lambda m: m["type"] == "table" and m["you"] is None)
    assert spectator["view"]["hand"] is None
    seats = await ann.wait_for(
        lambda m: m["type"] == "table.seats" and m["seats"][1]["kind"] == "bot"
    )
    assert seats["seats"][1]["left"]["id"] == bob.player_id
    final = await play_seat(ann, table, random.Random(5))
    assert final["result"] is not None
    await ann.close()
    await bob.close()


async def test_chat_is_stored_and_shared(live_server: LiveServer) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    bob = await Client.connect(live_server.ws_url, "Bob")
    table = (await ann.ok("table.create", game="tagiron"))["table"]
    await ann.ok("table.open", table=table)
    await bob.ok("table.open", table=table)
    ack = await bob.ok("chat", table=table, text="hello there")
    line = await ann.wait_type("chat")
    assert line["line"] == ack["line"] == 1
    assert line["from"] == bob.player and line["text"] == "hello there"
    later = await Client.connect(live_server.ws_url, "Cat")
    snapshot = await later.ok("table.open", table=table)
    assert [c["text"] for c in snapshot["chat"]] == ["hello there"]
    for client in (ann, bob, later):
        await client.close()
