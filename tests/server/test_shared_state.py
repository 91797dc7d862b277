"""State that must hold across processes and restarts: passkey ceremonies (begun on one server,
finished on another behind a round-robin balancer) and the players a host removed from a
waiting table (after a restart, or on the process that takes the table over)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from bodoge.server.edge.account_api import account_routes
from bodoge.server.runtime.config import ServerConfig
from bodoge.server.wiring import Server
from bodoge.store import sqlite_url
from tests.support.authenticator import Authenticator
from tests.support.client import Client
from tests.support.live_server import LiveServer

ORIGIN = "http://127.0.0.1:8000"


@pytest.fixture
async def two_servers(tmp_path: Path) -> AsyncIterator[tuple[Server, Server]]:
    """Two server objects, each with its own connections to one store."""
    servers = []
    for _ in range(2):
        server = Server(ServerConfig(db_url=sqlite_url(tmp_path), bot_delay=0.0, bot_workers=0))
        await server.start()
        servers.append(server)
    yield servers[0], servers[1]
    for server in servers:
        await server.stop()


def _http(server: Server) -> httpx.AsyncClient:
    app = Starlette(routes=account_routes(server))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=ORIGIN)


async def test_a_passkey_ceremony_begun_on_one_server_finishes_on_another(
    two_servers: tuple[Server, Server],
) -> None:
    one, other = two_servers
    player, token = await one.players.create("Ivy")
    key = Authenticator()
    auth = {"Authorization": f"Bearer {token}"}
    async with _http(one) as first, _http(other) as second:
        # Keep the name with a passkey: options from one, the answer to the other.
        options = (
            await first.post("/api/account/passkeys/options", json={"name": "Ivy"}, headers=auth)
        ).json()
        made = await second.post(
            "/api/account/passkeys",
            json={
                "challenge": options["challenge"],
                "credential": key.create(options["publicKey"], ORIGIN),
            },
            headers=auth,
        )
        assert made.status_code == 201, made.text
        # Sign in with it: options from the other, the answer to the first.
        ask = (await second.post("/api/sign-in/passkey/options")).json()
        answer = key.get(ask["publicKey"], ORIGIN)
        body = {"challenge": ask["challenge"], "credential": answer}
        signed = await first.post("/api/sign-in/passkey", json=body)
        assert signed.status_code == 200, signed.text
        assert signed.json()["player"]["id"] == player.id
        # Taken once, whichever server is asked again.
        for http in (first, second):
            again = await http.post("/api/sign-in/passkey", json=body)
            assert again.json()["error"]["code"] == "bad_challenge"


async def test_a_removed_player_stays_removed_after_a_restart(
    make_live_server: Callable[..., Any],
) -> None:
    server: LiveServer = make_live_server()
    ann = await Client.connect(server.ws_url, "Ann")
    bob = await Client.connect(server.ws_url, "Bob")
    table = (await ann.ok("table.create", game="tagiron", options={"players": 3}))["table"]
    await bob.ok("table.open", table=table)
    await bob.ok("table.join", table=table, seat=1)
    await ann.ok("table.remove_player", table=table, seat=1)
    for client in (ann, bob):
        await client.close()
    server.restart()  # kill -9 and start again
    ann = await Client.connect(server.ws_url, None, token=ann.token)
    await ann.ok("table.open", table=table)
    bob = await Client.connect(server.ws_url, None, token=bob.token)
    await bob.ok("table.open", table=table)
    again = await bob.request("table.join", table=table)
    assert again["code"] == "removed"
    cat = await Client.connect(server.ws_url, "Cat")  # the seat is free for anyone else
    await cat.ok("table.open", table=table)
    await cat.ok("table.join", table=table, seat=1)
    for client in (ann, bob, cat):
        await client.close()
