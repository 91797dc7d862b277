"""Table manners on the server: the host removes a person from a waiting table."""

from __future__ import annotations

from tests.support.client import Client
from tests.support.live_server import LiveServer


async def test_the_host_removes_a_player_who_may_not_come_back(live_server: LiveServer) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    bob = await Client.connect(live_server.ws_url, "Bob")
    cat = await Client.connect(live_server.ws_url, "Cat")
    table = (await ann.ok("table.create", game="tagiron", options={"players": 3}))["table"]
    for client in (ann, bob, cat):
        await client.ok("table.open", table=table)
    await bob.ok("table.join", table=table, seat=1)
    await cat.ok("table.join", table=table, seat=2)

    # Only the host, only another person's seat.
    refused = await bob.request("table.remove_player", table=table, seat=2)
    assert refused["code"] == "not_host"
    for seat in (0, 5):
        refused = await ann.request("table.remove_player", table=table, seat=seat)
        assert refused["code"] == "bad_seat"

    removed = await ann.ok("table.remove_player", table=table, seat=1)
    assert removed == {"type": "ack", "id": removed["id"], "table": table, "seat": 1}
    seats = await cat.wait_for(
        lambda m: m.get("type") == "table.seats" and m["seats"][1]["kind"] == "empty"
    )
    assert seats["seats"][2]["player"]["name"] == "Cat"
    again = await bob.request("table.join", table=table)
    assert again["code"] == "removed"
    # Someone else may take the seat; once the game runs nobody is removed.
    await ann.ok("table.add_bot", table=table, seat=1, level="easy")
    await ann.ok("table.start", table=table)
    late = await ann.request("table.remove_player", table=table, seat=2)
    assert late["code"] == "not_waiting"
    for client in (ann, bob, cat):
        await client.close()
