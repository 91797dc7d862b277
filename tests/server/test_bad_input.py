"""Bad input gets an error and nothing else: connection, table and store stay as they were."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bodoge.server.edge.connection import HANDLERS
from bodoge.server.runtime.protocol import CLIENT_MESSAGES
from tests.server.tagiron_play import random_move
from tests.support.client import Client
from tests.support.live_server import LiveServer

LIMIT = 16 * 1024


@pytest.fixture
async def ann(live_server: LiveServer):
    client = await Client.connect(live_server.ws_url, "Ann")
    yield client
    await client.close()


async def _error(client: Client) -> dict:
    return await client.wait_for(lambda m: m["type"] == "error")


async def test_malformed_json_gets_bad_json_and_the_connection_lives(ann: Client) -> None:
    for frame in ("{not json", "[1, 2]", '"hello"', "", '{"type": "ping", "id": "\\ud800"}'):
        await ann.send(frame)
        error = await _error(ann)
        assert error["code"] == "bad_json", frame
        assert "id" not in error
    assert (await ann.ok("ping"))["type"] == "pong"


async def test_binary_frames_are_refused(ann: Client) -> None:
    await ann.ws.send(b'{"type": "ping"}')
    assert (await _error(ann))["code"] == "bad_json"


async def test_unknown_types_and_fields_get_bad_message_with_the_id(ann: Client) -> None:
    assert (await ann.request("dance"))["code"] == "bad_message"
    reply = await ann.request("ping", extra=1)
    assert reply["code"] == "bad_message" and "extra" in reply["message"]
    assert (await ann.request("table.join", table=5))["code"] == "bad_message"
    assert (await ann.request("table.join", table="t_abcd1234", seat="1"))["code"] == "bad_message"
    await ann.send({"type": 3})
    assert (await _error(ann))["code"] == "bad_message"
    await ann.send({"type": "ping", "id": {"nested": True}})
    assert (await _error(ann))["code"] == "bad_message"


def test_every_client_message_after_hello_has_a_handler() -> None:
    assert {command.TYPE for command in HANDLERS} == set(CLIENT_MESSAGES) - {"ping", "hello"}


async def test_oversized_messages_get_too_large(ann: Client, live_server: LiveServer) -> None:
    table = (await ann.ok("table.create", game="tagiron"))["table"]
    await ann.ok("table.open", table=table)
    big = json.dumps({"type": "chat", "table": table, "text": "x" * LIMIT})
    await ann.send(big)
    assert (await _error(ann))["code"] == "too_large"
    # Multi-byte text counts in bytes: 6000 kana are 18000 bytes.
    await ann.send(
        json.dumps({"type": "chat", "table": table, "text": "あ" * 6000}, ensure_ascii=False)
    )
    assert (await _error(ann))["code"] == "too_large"
    assert (await ann.ok("table.open", table=table))["chat"] == []  # nothing was stored
    # Far beyond the hard limit the WebSocket layer closes the connection.
    huge = await Client.connect(live_server.ws_url, "Huge")
    with contextlib.suppress(ConnectionClosed):  # the server may close before it is all sent
        await huge.send("x" * (2 * 1024 * 1024))
    assert await asyncio.wait_for(huge.closed, 10) == 1009


async def test_everything_but_hello_needs_hello(live_server: LiveServer) -> None:
    client = await Client.connect(live_server.ws_url, name=None)
    assert (await client.request("table.create", game="tagiron"))["code"] == "need_hello"
    assert (await client.request("lobby.subscribe"))["code"] == "need_hello"
    assert (await client.request("ping"))["type"] == "pong"
    await client.hello(name="Late")
    assert (await client.request("hello", name="Again"))["code"] == "bad_message"
    await client.close()


async def test_forged_and_stale_tokens_get_bad_token(live_server: LiveServer) -> None:
    real = await Client.connect(live_server.ws_url, "Real")
    for token in ("x" * 43, real.token[:-1] + ("A" if real.token[-1] != "A" else "B"), "", 7):
        client = await Client.connect(live_server.ws_url, name=None)
        reply = await client.request("hello", token=token, name="Mallory")
        assert reply["code"] == "bad_token"
        # Still anonymous: nothing else is allowed until a good hello.
        assert (await client.request("lobby.subscribe"))["code"] == "need_hello"
        fresh = await client.ok("hello", token=None, name="Mallory")
        assert fresh["player"]["id"] != real.player_id and fresh["token"] != real.token
        await client.close()
    again = await Client.connect(live_server.ws_url, name=None)
    assert (await again.hello(token=real.token))["player"] == real.player
    await real.close()
    await again.close()


async def test_bad_names_are_refused(live_server: LiveServer) -> None:
    client = await Client.connect(live_server.ws_url, name=None)
    for name in ("", "   ", "x" * 25, "a\nb", "a\x00b", 12, None):
        assert (await client.request("hello", token=None, name=name))["code"] == "bad_name"
    await client.close()


async def test_html_in_names_and_chat_is_stored_verbatim(live_server: LiveServer) -> None:
    name = "<script>alert(1)</script"  # 24 characters
    text = '<img src=x onerror="alert(1)"> & <b>bold</b>'
    mal = await Client.connect(live_server.ws_url, name)
    assert mal.player["name"] == name
    table = (await mal.ok("table.create", game="tagiron"))["table"]
    await mal.ok("table.open", table=table)
    await mal.ok("chat", table=table, text=text)
    line = await mal.wait_type("chat")
    assert line["text"] == text and line["from"]["name"] == name
    other = await Client.connect(live_server.ws_url, "Other")
    snapshot = await other.ok("table.open", table=table)  # read back from the table's record
    assert snapshot["chat"][0]["text"] == text
    assert snapshot["table"]["seats"][0]["player"]["name"] == name
    for bad in ("", "   ", "x" * 301, "a\x00b", 5):
        assert (await mal.request("chat", table=table, text=bad))["code"] == "bad_text"
    await mal.close()
    await other.close()


async def test_unknown_tables_and_games(ann: Client) -> None:
    for table in ("t_doesnotexist", "../../etc/passwd", "T_ABC", "t_" + "a" * 40):
        assert (await ann.request("table.open", table=table))["code"] == "unknown_table"
        reply = await ann.request("move", table=table, move={"type": "pass"})
        assert reply["code"] == "unknown_table"
    assert (await ann.request("table.create", game="chess"))["code"] == "unknown_game"
    for options in ({"players": 5}, {"players": "2"}, {"colour": "red"}):
        reply = await ann.request("table.create", game="tagiron", options=options)
        assert reply["code"] == "bad_options"
    for settings in ({"turn_seconds": 1}, {"timeout_bot": "godlike"}, {"speed": 2}):
        reply = await ann.request("table.create", game="tagiron", settings=settings)
        assert reply["code"] == "bad_options"
    reply = await ann.request("table.create", game="tagiron", bots=[{"seat": 0, "level": "easy"}])
    assert reply["code"] == "bad_seat"


@pytest.mark.parametrize(
    ("bot", "code"),
    [
        # docs/protocol.md: `seat` not a whole number is bad_message, as is a `level` that is
        # not a string; a whole number the table has no seat for is bad_seat.
        ({"seat": True, "level": "easy"}, "bad_message"),
        ({"seat": 1.0, "level": "easy"}, "bad_message"),
        ({"seat": "1", "level": "easy"}, "bad_message"),
        ({"seat": None, "level": "easy"}, "bad_message"),
        ({"seat": 1, "level": 5}, "bad_message"),
        ({"seat": 1, "level": None}, "bad_message"),
        ({"seat": 9, "level": "easy"}, "bad_seat"),
        ({"seat": -1, "level": "easy"}, "bad_seat"),
        ({"seat": 1, "level": "godlike"}, "bad_options"),
    ],
)
async def test_a_bot_seat_gets_the_code_the_field_table_gives(
    ann: Client, bot: dict, code: str
) -> None:
    for game, options in (("tagiron", {"players": 3}), ("illustori", {"players": 3})):
        reply = await ann.request("table.create", game=game, options=options, bots=[bot])
        assert reply["type"] == "error" and reply["code"] == code, (game, bot, reply)


async def _started_two_player_game(server: LiveServer) -> tuple[Client, Client, str, dict]:
    ann = await Client.connect(server.ws_url, "Ann")
    bob = await Client.connect(server.ws_url, "Bob")
    table = (await ann.ok("table.create", game="tagiron", options={"players": 2}))["table"]
    await bob.ok("table.join", table=table)
    await ann.ok("table.start", table=table)
    snapshot = await ann.ok("table.open", table=table)
    return ann, bob, table, snapshot


async def test_moves_for_another_seat_are_refused(live_server: LiveServer) -> None:
    ann, bob, table, snapshot = await _started_two_player_game(live_server)
    clients = {0: ann, 1: bob}
    turn = snapshot["to_act"][0]
    waiting = clients[1 - turn]
    view = (await clients[turn].ok("table.open", table=table))["view"]
    move = random_move(view, random.Random(1), declare=0)
    assert (await waiting.request("move", table=table, move=move))["code"] == "not_your_turn"
    # There is no seat field: the token decides whose move it is.
    reply = await waiting.request("move", table=table, move=move, seat=turn)
    assert reply["code"] == "bad_message"
    stranger = await Client.connect(live_server.ws_url, "Stranger")
    assert (await stranger.request("move", table=table, move=move))["code"] == "not_seated"
    after = await clients[turn].ok("table.open", table=table)
    assert after["n"] == 0 and after["view"] == view
    for client in (ann, bob, stranger):
        await client.close()


async def test_an_illegal_move_leaves_the_table_unchanged(live_server: LiveServer) -> None:
    ann, bob, table, snapshot = await _started_two_player_game(live_server)
    mover = {0: ann, 1: bob}[snapshot["to_act"][0]]
    before = await mover.ok("table.open", table=table)
    face_down = next(
        c
        for c in ("total_sum", "red_sum", "blue_sum", "odd_count", "pairs")
        if c not in before["view"]["face_up"]
    )
    wrong = [
        ({"type": "ask", "card": face_down, "choice": None}, "card_not_face_up"),
        ({"type": "ask", "card": "no_such_card"}, "unknown_card"),
        ({"type": "pass"}, "may_not_pass"),
        ({"type": "declare", "tiles": ["R1", "R1", "R1", "R1", "R1"]}, "bad_declaration"),
        ({"type": "jump"}, "bad_move"),
        ({"type": "ask", "card": before["view"]["face_up"][0], "bogus": 1}, "bad_move"),
    ]
    for move, code in wrong:
        reply = await mover.request("move", table=table, move=move)
        assert reply["type"] == "error" and reply["code"] == code, (move, reply)
    assert (await mover.request("move", table=table, move="pass"))["code"] == "bad_message"
    after = await mover.ok("table.open", table=table)
    assert (after["n"], after["view"], after["to_act"]) == (0, before["view"], before["to_act"])
    assert ann.of_type("event") == [] and bob.of_type("event") == []
    await ann.close()
    await bob.close()


async def test_moves_before_the_start_and_after_the_end(live_server: LiveServer) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    table = (await ann.ok("table.create", game="tagiron"))["table"]
    reply = await ann.request("move", table=table, move={"type": "pass"})
    assert reply["code"] == "not_playing"
    await ann.close()


async def test_a_flood_is_rate_limited_then_disconnected(live_server: LiveServer) -> None:
    flood = await Client.connect(live_server.ws_url, "Flood")
    for _ in range(150):
        await flood.send({"type": "ping"})
    code = await asyncio.wait_for(flood.closed, 10)
    assert code == 4008
    assert flood.of_type("error") and {e["code"] for e in flood.of_type("error")} == {
        "rate_limited"
    }
    assert 35 <= len(flood.of_type("pong")) <= 60  # the burst got through
    # A polite client on the same server is unaffected.
    polite = await Client.connect(live_server.ws_url, "Polite")
    assert (await polite.ok("ping"))["type"] == "pong"
    await polite.close()


async def test_a_burst_within_the_limit_is_served(live_server: LiveServer) -> None:
    client = await Client.connect(live_server.ws_url, "Burst")
    replies = await asyncio.gather(*(client.request("ping") for _ in range(30)))
    assert {r["type"] for r in replies} == {"pong"}
    await client.close()


async def test_raw_websocket_without_our_client(live_server: LiveServer) -> None:
    """A minimal client needs nothing but JSON text frames."""
    async with connect(live_server.ws_url) as ws:
        await ws.send('{"type": "hello", "name": "raw", "id": "a"}')
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome" and welcome["id"] == "a"
        assert len(welcome["token"]) == 43
