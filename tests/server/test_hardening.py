"""The defects an independent client found, each pinned down from the outside.

Floats where whole numbers belong, non-finite numbers, the snapshot at the
start of a game, a retried request, too many connections.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from bodoge.games.tagiron.cards import CARDS
from tests.support.client import Client
from tests.support.live_server import LiveServer


@pytest.fixture
async def ann(live_server: LiveServer):
    client = await Client.connect(live_server.ws_url, "Ann")
    yield client
    await client.close()


def _strict(frame: str) -> dict:
    def refuse(name: str) -> None:
        raise ValueError(name)

    return json.loads(frame, parse_constant=refuse)


# --- 1. floats and booleans are not whole numbers -------------------------------------------


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("tagiron", {"players": 2.0}),
        ("tagiron", {"players": 4.0}),
        ("tagiron", {"players": True}),
        ("illustori", {"players": 5.0}),
        ("illustori", {"deck_size": 60.0}),
    ],
)
async def test_float_options_are_bad_options(ann: Client, game: str, options: dict) -> None:
    reply = await ann.request("table.create", game=game, options=options)
    assert reply["type"] == "error" and reply["code"] == "bad_options", reply


async def test_float_settings_seats_and_choices_are_refused(ann: Client) -> None:
    reply = await ann.request("table.create", game="tagiron", settings={"turn_seconds": 60.0})
    assert reply["code"] == "bad_options"
    reply = await ann.request("table.create", game="tagiron", bots=[{"seat": 1.0, "level": "easy"}])
    assert reply["code"] == "bad_message"
    table = (await ann.ok("table.create", game="tagiron", options={"players": 3}))["table"]
    for seat in (1.0, True):
        reply = await ann.request("table.add_bot", table=table, seat=seat, level="easy")
        assert reply["code"] == "bad_message"
    assert (await ann.request("table.open", table=table, since=0.0))["code"] == "bad_message"
    await ann.ok("table.add_bot", table=table, seat=1, level="easy")
    await ann.ok("table.add_bot", table=table, seat=2, level="easy")
    await ann.ok("table.start", table=table)
    view = (await ann.ok("table.open", table=table))["view"]
    where = next((c for c in view["face_up"] if CARDS[c].choices), None)
    if where is not None:
        move = {"type": "ask", "card": where, "choice": float(CARDS[where].choices[0])}
        assert (await ann.request("move", table=table, move=move))["code"] == "bad_move"


# --- 2. non-finite numbers -------------------------------------------------------------------


@pytest.mark.parametrize(
    "frame",
    [
        '{"type": "ping", "id": NaN}',
        '{"type": "ping", "id": Infinity}',
        '{"type": "ping", "id": -Infinity}',
        '{"type": "ping", "id": 1e400}',
        '{"type": "table.create", "id": 3, "game": "tagiron", "options": {"players": 1e999}}',
    ],
)
async def test_non_finite_numbers_are_bad_json(ann: Client, frame: str) -> None:
    await ann.send(frame)
    error = await ann.wait_type("error")
    assert error["code"] == "bad_json" and "id" not in error
    assert (await ann.ok("ping"))["type"] == "pong"


async def test_ids_are_strings_or_safe_integers(ann: Client) -> None:
    for rid in (1.5, 2**53, -(2**53), True, "x" * 65):
        await ann.send({"type": "ping", "id": rid})
        error = await ann.wait_type("error")
        assert error["code"] == "bad_message" and "id" not in error, rid
    for rid in (0, -7, 2**53 - 1, "", "tab-k3x9-17", "x" * 64):
        await ann.send({"type": "ping", "id": rid})
        assert (await ann.wait_type("pong"))["id"] == rid


async def test_every_frame_is_strict_json(live_server: LiveServer) -> None:
    from websockets.asyncio.client import connect

    async with connect(live_server.ws_url) as ws:
        for frame in ('{"type":"hello","name":"N","id":NaN}', '{"type":"ping","id":1e400}'):
            await ws.send(frame)
            _strict(str(await ws.recv()))  # raises on NaN or Infinity


# --- 3. the snapshot pushed at the start ------------------------------------------------------


async def test_the_snapshot_pushed_at_the_start_says_playing(live_server: LiveServer) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    bob = await Client.connect(live_server.ws_url, "Bob")
    watcher = await Client.connect(live_server.ws_url, "Watcher")
    table = (await ann.ok("table.create", game="tagiron"))["table"]
    await bob.ok("table.join", table=table)
    for client in (ann, bob, watcher):
        await client.ok("table.open", table=table)
    await ann.ok("table.start", table=table)
    for client in (ann, bob, watcher):
        pushed = await client.wait_for(lambda m: m["type"] == "table" and "id" not in m)
        assert pushed["table"]["status"] == "playing"
        assert pushed["view"] is not None
    # Leaving a running game: the snapshot pushed to the leaver shows the bot in the seat.
    await bob.ok("table.leave", table=table)
    pushed = await bob.wait_for(lambda m: m["type"] == "table" and "id" not in m)
    assert pushed["you"] is None
    assert pushed["table"]["seats"][1]["kind"] == "bot"
    for client in (ann, bob, watcher):
        await client.close()


# --- 6. a retried request is answered, not run again -------------------------------------------


async def test_a_repeated_chat_id_makes_one_line(live_server: LiveServer) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    table = (await ann.ok("table.create", game="tagiron"))["table"]
    await ann.ok("table.open", table=table)
    chat = {"type": "chat", "id": "c-1", "table": table, "text": "hello"}
    await ann.send(chat)
    first = await ann.wait_for(lambda m: m.get("id") == "c-1")
    await ann.send(chat)
    second = await ann.wait_for(lambda m: m.get("id") == "c-1")
    assert first == second == {"type": "ack", "id": "c-1", "table": table, "line": 1}
    # A retry after a reconnect, on another connection of the same player.
    again = await Client.connect(live_server.ws_url, name=None)
    await again.hello(token=ann.token)
    await again.send(chat)
    assert await again.wait_for(lambda m: m.get("id") == "c-1") == first
    # The same id with other fields is another request.
    await ann.send({**chat, "text": "hello again"})
    assert (await ann.wait_for(lambda m: m.get("id") == "c-1"))["line"] == 2
    lines = (await ann.ok("table.open", table=table))["chat"]
    assert [line["text"] for line in lines] == ["hello", "hello again"]
    assert len(ann.of_type("chat")) == 2
    # Another player's request with the same id is theirs.
    bob = await Client.connect(live_server.ws_url, "Bob")
    await bob.send(chat)
    assert (await bob.wait_for(lambda m: m.get("id") == "c-1"))["line"] == 3
    for client in (ann, again, bob):
        await client.close()


async def test_a_repeated_move_id_moves_once(live_server: LiveServer) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    table = (await ann.ok("table.create", game="tagiron", bots=[{"seat": 1, "level": "easy"}]))[
        "table"
    ]
    await ann.ok("table.open", table=table)
    start = {"type": "table.start", "id": "s-1", "table": table}
    await ann.send(start)
    started = await ann.wait_for(lambda m: m.get("id") == "s-1")
    await ann.send(start)
    assert (
        await ann.wait_for(lambda m: m.get("id") == "s-1")
        == started
        == {
            "type": "ack",
            "id": "s-1",
            "table": table,
        }
    )
    snapshot = await ann.ok("table.open", table=table)
    if snapshot["to_act"] != [0]:
        await ann.wait_for(lambda m: m["type"] == "event" and m["to_act"] == [0])
        snapshot = await ann.ok("table.open", table=table)
    n = snapshot["n"]
    card = snapshot["view"]["face_up"][0]
    choices = CARDS[card].choices
    choice = choices[0] if choices else None
    move = {"type": "move", "id": "m-1", "table": table, "move": {"type": "ask", "card": card}}
    move["move"]["choice"] = choice
    await ann.send(move)
    acked = await ann.wait_for(lambda m: m.get("id") == "m-1")
    assert acked["type"] == "ack" and acked["n"] == n + 1
    await ann.send(move)
    assert await ann.wait_for(lambda m: m.get("id") == "m-1") == acked
    history = [m for m in ann.of_type("event") if m["seat"] == 0]
    assert len(history) == 1
    # A refused request is remembered too: the retry gets the same refusal.
    bad = {"type": "move", "id": "m-2", "table": table, "move": {"type": "jump"}}
    await ann.send(bad)
    refused = await ann.wait_for(lambda m: m.get("id") == "m-2")
    await ann.send(bad)
    assert await ann.wait_for(lambda m: m.get("id") == "m-2") == refused
    assert refused["code"] == "bad_move"
    await ann.close()


async def test_reading_requests_are_not_remembered(ann: Client) -> None:
    table = (await ann.ok("table.create", game="tagiron"))["table"]
    await ann.send({"type": "table.open", "id": "o", "table": table})
    first = await ann.wait_for(lambda m: m.get("id") == "o")
    await ann.ok("chat", table=table, text="news")
    await ann.send({"type": "table.open", "id": "o", "table": table})
    second = await ann.wait_for(lambda m: m.get("id") == "o")
    assert first["chat"] == [] and [c["text"] for c in second["chat"]] == ["news"]


# --- 7. connection caps --------------------------------------------------------------------------


async def _refused(client: Client) -> dict:
    code = await asyncio.wait_for(client.closed, 10)
    assert code == 4029
    errors = client.of_type("error")
    assert [e["code"] for e in errors] == ["too_many_connections"]
    return errors[0]


async def test_connections_per_address_are_capped(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server(args=("--bot-delay", "0", "--max-connections-per-address", "3"))
    clients = [await Client.connect(server.ws_url, f"c{i}") for i in range(3)]
    extra = await Client.connect(server.ws_url, name=None)
    await _refused(extra)
    await clients[0].close()
    await asyncio.sleep(0.3)  # the server notices the close
    late = await Client.connect(server.ws_url, "Late")
    assert (await late.ok("ping"))["type"] == "pong"
    for client in [*clients[1:], late]:
        await client.close()


async def test_connections_per_player_are_capped(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server(args=("--bot-delay", "0", "--max-connections-per-player", "2"))
    first = await Client.connect(server.ws_url, "Ann")
    second = await Client.connect(server.ws_url, token=first.token, name=None)
    third = await Client.connect(server.ws_url, name=None)
    reply = await third.request("hello", token=first.token)
    assert reply["code"] == "too_many_connections" and reply["id"] == 1
    await _refused(third)
    # Someone else is not affected, and a closed tab frees its place.
    assert (await (await Client.connect(server.ws_url, "Bob")).ok("ping"))["type"] == "pong"
    await second.close()
    await asyncio.sleep(0.3)
    fourth = await Client.connect(server.ws_url, token=first.token, name=None)
    assert fourth.player_id == first.player_id
    for client in (first, fourth):
        await client.close()


def test_the_default_caps() -> None:
    from bodoge.server.runtime.config import Limits

    assert (Limits().connections_per_address, Limits().connections_per_player) == (64, 16)
