"""Other sites' pages may not change anything here nor open a WebSocket: ``Origin`` must be
the server's own (or its configured public origin) and bodies must be JSON
(``bodoge/server/edge/origins.py``)."""

from __future__ import annotations

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.support.client import Client
from tests.support.live_server import DEFAULT_ARGS, LiveServer

PUBLIC = "https://games.example.org"


@pytest.fixture
def server(make_live_server) -> LiveServer:
    return make_live_server(args=[*DEFAULT_ARGS, "--public-origin", PUBLIC])


async def _refusals(http: httpx.AsyncClient) -> dict[str, int]:
    quotas = (await http.get("/api/stats")).json()["quotas"]
    return {**quotas["refused_by_quota"], **quotas["refused_by_rate"]}


async def test_a_sign_in_sent_as_text_is_refused_and_spends_nothing(make_live_server) -> None:
    """The audit's attack: a page posting ``text/plain`` (no preflight) to spend the
    account's tries.  Refused with 415 before anything runs, so the owner signs in after
    more of them than the throttle allows."""
    args = [*DEFAULT_ARGS]
    at = args.index("--sign-ins-per-account-hour")
    args[at + 1] = "2"
    server = make_live_server(args=args)
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        owner = await Client.connect(server.ws_url, "Owner")
        try:
            body = {"name": "Owner415", "password": "correct horse battery"}
            made = await http.post(
                "/api/account", json=body, headers={"Authorization": f"Bearer {owner.token}"}
            )
            assert made.status_code == 201, made.text
            wrong = '{"name": "Owner415", "password": "wrong wrong wrong"}'
            for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
                for _ in range(3):
                    sent = await http.post(
                        "/api/sign-in", content=wrong, headers={"Content-Type": kind}
                    )
                    assert sent.status_code == 415, sent.text
                    assert sent.json()["error"]["code"] == "unsupported_media_type"
            no_type = await http.post("/api/sign-in", content=wrong.encode())
            assert no_type.status_code == 415
            assert (await http.post("/api/sign-in", json=body)).status_code == 200
            assert (await _refusals(http))["unsupported_media_type"] == 10
        finally:
            await owner.close()


async def test_a_foreign_origin_is_refused_over_http(server: LiveServer) -> None:
    own = server.url.rstrip("/")
    body = {"name": "nobody-at-all", "password": "whatever it is"}
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        for origin in ("https://evil.example", "null", own.replace("http:", "https:"), own + "1"):
            refused = await http.post("/api/sign-in", json=body, headers={"Origin": origin})
            assert refused.status_code == 403, origin
            assert refused.json()["error"]["code"] == "foreign_origin"
        # Bodiless, with a token, any state-changing method: the same.
        for method, path in (("POST", "/api/sign-out"), ("DELETE", "/api/account/password")):
            refused = await http.request(method, path, headers={"Origin": "https://evil.example"})
            assert refused.status_code == 403
        # Reading is anyone's.
        read = await http.get("/api/games", headers={"Origin": "https://evil.example"})
        assert read.status_code == 200
        # The server's own origin, its public one, and a program that names none: let through.
        for headers in ({"Origin": own}, {"Origin": PUBLIC}, {}):
            let = await http.post("/api/sign-in", json=body, headers=headers)
            assert let.json()["error"]["code"] == "sign_in_failed", headers
        assert (await _refusals(http))["foreign_origin"] == 6


async def test_a_foreign_origin_cannot_open_a_websocket(server: LiveServer) -> None:
    for origin in ("https://evil.example", "null"):
        with pytest.raises(InvalidStatus) as refused:
            async with connect(server.ws_url, origin=origin, open_timeout=10):  # type: ignore[arg-type]
                pass
        assert refused.value.response.status_code == 403
    for origin in (server.url.rstrip("/"), PUBLIC, None):
        async with connect(server.ws_url, origin=origin, open_timeout=10) as ws:  # type: ignore[arg-type]
            await ws.send('{"type": "hello", "name": "Ok"}')
            assert '"welcome"' in str(await ws.recv())
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        assert (await _refusals(http))["foreign_origin"] == 2


def test_public_origins_are_checked_at_start() -> None:
    from bodoge.server.cli import public_origin

    assert public_origin("https://games.example.org/") == PUBLIC
    with pytest.raises(Exception, match="scheme and a host"):
        public_origin("games.example.org")
