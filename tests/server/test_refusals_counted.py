"""Every refusal for a limit is counted by its code, in ``/api/stats`` and in ``/metrics``.

Each limit the README lists is hit from a client on a server with small limits, and the
refusals the clients got, by code, must be exactly what ``/api/stats`` (``refused_by_quota``,
``refused_by_rate``) and ``/metrics`` (``bodoge_refused_total{kind, code}``) count: the
WebSocket's (too many connections for an address and for a player, the flood's
``rate_limited``, a frame too large, new players, tables) and HTTP's (sign-ins, account
bodies too large, uploads and their quotas).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bodoge.server.runtime.stats import REFUSALS
from tests.server.test_quotas import noise
from tests.support.client import Client
from tests.support.live_server import LiveServer

LIMITS = (
    "--bot-delay",
    "0",
    "--max-connections-per-address",
    "12",
    "--max-connections-per-player",
    "2",
    "--new-players-per-hour",
    "5",
    "--sign-ins-per-hour",
    "0",
    "--sign-ins-per-account-hour",
    "2",
    "--waiting-tables-per-player",
    "1",
    "--tables-per-hour",
    "2",
    "--uploads-per-hour",
    "3",
    "--decks-per-player",
    "1",
)
DECK_BYTES = (
    "--bot-delay",
    "0",
    "--max-connections-per-address",
    "0",
    "--uploads-per-hour",
    "0",
    "--deck-mb-per-player",
    "0.05",
    "--deck-mb-total",
    "0.08",
)

#: The codes of the README's limits table and the protocol's frame limits.
README_CODES = {
    "too_many_connections",
    "new_player_rate_limited",
    "sign_in_rate_limited",
    "too_many_tables",
    "table_rate_limited",
    "upload_rate_limited",
    "too_many_decks",
    "too_many_deck_bytes",
    "server_full",
    "upload_too_large",
    "rate_limited",
    "too_large",
}


class Tally:
    """The refusals the clients were answered, by code."""

    def __init__(self) -> None:
        self.got: Counter[str] = Counter()

    def ws(self, reply: dict) -> str:
        code = reply.get("code", "")
        if reply.get("type") == "error" and code in REFUSALS:
            self.got[code] += 1
        return code

    def http(self, response: httpx.Response) -> str:
        code = response.json()["error"]["code"] if response.status_code >= 400 else ""
        if code in REFUSALS:
            self.got[code] += 1
        return code


async def counted(server: LiveServer) -> tuple[Counter[str], Counter[str]]:
    """What ``/api/stats`` and ``/metrics`` count, by code."""
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        quotas = (await http.get("/api/stats")).json()["quotas"]
        text = (await http.get("/metrics")).text
    stats: Counter[str] = Counter()
    for kind in ("quota", "rate"):
        for code, n in quotas[f"refused_by_{kind}"].items():
            assert REFUSALS[code] == kind, code
            stats[code] += n
    metrics: Counter[str] = Counter()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "bodoge_refused_total":
                code = sample.labels["code"]
                assert REFUSALS[code] == sample.labels["kind"], code
                metrics[code] += int(sample.value)
    return stats, metrics


async def _upload(server: LiveServer, token: str, picture: bytes) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        return await http.post(
            "/api/decks",
            files=[("files", ("a.png", picture, "image/png"))],
            headers={"Authorization": f"Bearer {token}"},
        )


async def _declared_too_large(server: LiveServer, token: str) -> httpx.Response:
    """An upload declaring more bytes than one may send: refused before its body is read."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    writer.write(
        (
            "POST /api/decks HTTP/1.1\r\nHost: localhost\r\n"
            f"Authorization: Bearer {token}\r\n"
            "Content-Type: multipart/form-data; boundary=x\r\n"
            f"Content-Length: {49 * 2**20}\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    head = (await reader.readuntil(b"\r\n\r\n")).decode()
    status = int(head.split()[1])
    length = int(
        next(h for h in head.split("\r\n") if h.lower().startswith("content-length")).split(":")[1]
    )
    body = await reader.readexactly(length)
    writer.close()
    return httpx.Response(status, content=body)


async def test_every_refusal_is_counted_by_its_code(
    make_live_server: Callable[..., LiveServer],
) -> None:
    assert set(REFUSALS) >= README_CODES
    server = make_live_server(args=LIMITS)
    tally = Tally()
    ann = await Client.connect(server.ws_url, "Ann")
    bob = await Client.connect(server.ws_url, "Bob")

    # New players from one address: a rate.
    extra = []
    for _ in range(10):
        newcomer = await Client.connect(server.ws_url, name=None)
        extra.append(newcomer)
        if tally.ws(await newcomer.request("hello", name="New")) == "new_player_rate_limited":
            break
    assert tally.got["new_player_rate_limited"] == 1

    # Connections for one player, then for one address.
    second = await Client.connect(server.ws_url, name=None)
    await second.hello(token=ann.token)
    third = await Client.connect(server.ws_url, name=None)
    assert tally.ws(await third.request("hello", token=ann.token)) == "too_many_connections"
    await third.closed
    crowd = []
    for _ in range(15):
        client = await Client.connect(server.ws_url, name=None)
        crowd.append(client)
        try:
            code = await asyncio.wait_for(client.closed, 0.5)
        except TimeoutError:
            continue
        assert code == 4029
        assert tally.ws(client.received[-1]) == "too_many_connections"
        break
    assert tally.got["too_many_connections"] == 2
    for client in crowd + extra:
        await client.close()

    # A frame too large, then a flood.
    await ann.send({"type": "ping", "pad": "x" * 17_000})
    assert tally.ws(await ann.wait_for(lambda m: m.get("type") == "error")) == "too_large"
    for _ in range(45):
        await second.send({"type": "ping"})
    await second.wait_for(lambda m: m.get("code") == "rate_limited")
    await asyncio.sleep(0.5)
    for message in second.received:
        tally.ws(message)
    assert tally.got["rate_limited"] >= 1

    # Tables: one waiting table at a time, and a rate.
    await ann.ok("table.create", game="tagiron")
    assert tally.ws(await ann.request("table.create", game="tagiron")) == "too_many_tables"
    for _ in range(2):
        table = (await bob.ok("table.create", game="tagiron"))["table"]
        await bob.ok("table.leave", table=table)
    assert tally.ws(await bob.request("table.create", game="tagiron")) == "table_rate_limited"

    # Sign-ins for one account name: a rate.
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        for _ in range(10):
            response = await http.post(
                "/api/sign-in", json={"name": "Ann", "password": "wrong1234"}
            )
            if tally.http(response) == "sign_in_rate_limited":
                break
        assert tally.got["sign_in_rate_limited"] == 1
        headers = {"Authorization": f"Bearer {ann.token}"}
        body = {"name": "Ann", "password": "x" * 20_000}
        response = await http.post("/api/account", json=body, headers=headers)
        assert tally.http(response) == "too_large"

    # Uploads: a size, the decks a player keeps, and a rate per address.
    assert tally.http(await _declared_too_large(server, bob.token)) == "upload_too_large"
    picture = noise(8)
    assert (await _upload(server, ann.token, picture)).status_code == 201
    assert tally.http(await _upload(server, ann.token, picture)) == "too_many_decks"
    assert tally.http(await _upload(server, bob.token, picture)) == "upload_rate_limited"

    stats, metrics = await counted(server)
    assert stats == tally.got
    assert metrics == tally.got
    for client in (ann, bob, second):
        await client.close()

    # The bytes of a player's decks, and of the server's.
    server = make_live_server(args=DECK_BYTES)
    tally = Tally()
    ann, bob, cid = [await Client.connect(server.ws_url, n) for n in ("Ann", "Bob", "Cid")]
    assert (await _upload(server, ann.token, noise())).status_code == 201
    assert tally.http(await _upload(server, ann.token, noise())) == "too_many_deck_bytes"
    assert (await _upload(server, bob.token, noise())).status_code == 201
    assert tally.http(await _upload(server, cid.token, noise())) == "server_full"
    stats, metrics = await counted(server)
    assert stats == metrics == tally.got == Counter({"too_many_deck_bytes": 1, "server_full": 1})
    for client in (ann, bob, cid):
        await client.close()
