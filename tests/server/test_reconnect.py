"""Clients that drop come back with their token and catch up; the others see them gone."""

from __future__ import annotations

import asyncio
import random

from tests.server.tagiron_play import play_seat, random_move
from tests.support.client import Client
from tests.support.live_server import LiveServer


async def _two_player_table(server: LiveServer) -> tuple[Client, Client, str]:
    ann = await Client.connect(server.ws_url, "Ann")
    bob = await Client.connect(server.ws_url, "Bob")
    table = (await ann.ok("table.create", game="tagiron", options={"players": 2}))["table"]
    await bob.ok("table.join", table=table)
    await ann.ok("table.open", table=table)
    await bob.ok("table.open", table=table)
    await ann.ok("table.start", table=table)
    return ann, bob, table


async def _play_until_turn_of(
    clients: dict[int, Client], table: str, seat: int, rng: random.Random
) -> int:
    """Play moves until it is ``seat``'s turn; returns the move number then."""
    watcher = clients[0]
    while True:
        snapshot = await watcher.ok("table.open", table=table)  # a fresh, consistent view
        if seat in snapshot["to_act"] and snapshot["n"] >= 2:
            return snapshot["n"]
        mover = snapshot["to_act"][0]
        view = (await clients[mover].ok("table.open", table=table))["view"]
        await clients[mover].ok("move", table=table, move=random_move(view, rng, declare=0))


async def test_a_dropped_client_catches_up_on_missed_events(live_server: LiveServer) -> None:
    ann, bob, table = await _two_player_table(live_server)
    rng = random.Random(11)
    n = await _play_until_turn_of({0: ann, 1: bob}, table, 0, rng)
    await bob.drop()  # no closing handshake: a laptop lid
    gone = await ann.wait_for(
        lambda m: m["type"] == "table.seats" and not m["seats"][1]["connected"]
    )
    assert gone["seats"][1]["player"]["name"] == "Bob"
    # Ann moves while Bob is away; he misses event n + 1.
    view = (await ann.ok("table.open", table=table))["view"]
    await ann.ok("move", table=table, move=random_move(view, rng, declare=0))
    await ann.ok("chat", table=table, text="where did you go?")
    missed_view = (await ann.wait_type("event", n=n + 1))["view"]

    back = await Client.connect(live_server.ws_url, name=None)
    back.follower = bob.follower  # the page keeps what it had and patches on from there
    await back.hello(token=bob.token)
    assert back.player == bob.player
    reply = await back.ok("table.open", table=table, since=n, chat_since=0)
    assert reply["type"] == "ack" and reply["n"] == n + 1 and reply["you"] == 1
    caught = back.of_type("event")
    assert [e["n"] for e in caught] == [n + 1]
    assert caught[0]["view"]["hand"] != missed_view["hand"]  # Bob's own view, not Ann's
    assert caught[0]["to_act"] == [1] and caught[0]["may_act"]
    # What the frames brought is exactly what a fresh snapshot shows.
    fresh = await Client.connect(live_server.ws_url, name=None)
    await fresh.hello(token=bob.token)
    snapshot = await fresh.ok("table.open", table=table)
    await fresh.close()
    for key in ("n", "view", "to_act", "may_act", "deadlines", "clock", "result"):
        assert caught[0][key] == snapshot[key], key
    assert [c["text"] for c in back.of_type("chat")] == ["where did you go?"]
    assert back.of_type("table.seats")[-1]["seats"][1]["connected"]
    await ann.wait_for(lambda m: m["type"] == "table.seats" and m["seats"][1]["connected"])
    # And the game goes on to the end.
    done = await asyncio.gather(play_seat(ann, table, rng), play_seat(back, table, rng))
    assert done[0]["n"] == done[1]["n"]
    await ann.close()
    await back.close()


async def test_reopening_without_since_or_with_a_bad_since_gives_a_snapshot(
    live_server: LiveServer,
) -> None:
    ann, bob, table = await _two_player_table(live_server)
    rng = random.Random(2)
    n = await _play_until_turn_of({0: ann, 1: bob}, table, 1, rng)
    for since in (None, n + 5, -1):
        fields = {} if since is None else {"since": since}
        reply = await bob.ok("table.open", table=table, **fields)
        assert reply["type"] == "table" and reply["n"] == n and reply["you"] == 1
        assert reply["view"]["hand"] is not None and reply["may_act"]
    up_to_date = await bob.ok("table.open", table=table, since=n)
    assert up_to_date == {"type": "ack", "id": up_to_date["id"], "table": table, "n": n, "you": 1}
    await ann.close()
    await bob.close()
