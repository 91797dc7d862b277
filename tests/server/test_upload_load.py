"""Uploads that cannot exhaust memory: small files that decode to huge pictures are
budgeted from their headers before any is decoded, and decoded off the event loop one at
a time (``bodoge/server/edge/decoding.py``)."""

from __future__ import annotations

import asyncio
import io
import json

import httpx
import pytest

from bodoge.bench.uploads import bomb_png, upload_load
from bodoge.server.edge.decoding import Busy, Decoder
from bodoge.server.edge.pictures import measure_upload
from tests.support.live_server import DEFAULT_ARGS, LiveServer

#: A 4470×4470 grey PNG cut off after its header and first bytes of pixels: its header
#: says 20 megapixels, decoding it would fail. A refusal for its pixels, not for being
#: unreadable, shows that the budget came before any decoding.
TRUNCATED = bomb_png()[:200] + b"\x00\x00\x00\x00IEND\xaeB`\x82"


async def _token(server: LiveServer) -> str:
    from websockets.asyncio.client import connect

    async with connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "name": "Uploader"}))
        return str(json.loads(await ws.recv())["token"])


async def _upload(server: LiveServer, token: str, pictures: list[bytes]) -> httpx.Response:
    files = [("files", (f"p{i}.png", p, "image/png")) for i, p in enumerate(pictures)]
    async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
        return await http.post(
            "/api/decks", files=files, headers={"Authorization": f"Bearer {token}"}
        )


def test_an_upload_is_measured_from_headers_alone() -> None:
    files = [(f"t{i}.png", io.BytesIO(TRUNCATED)) for i in range(3)]
    assert measure_upload(files, 0) == 3 * 4470 * 4470


async def test_many_bombs_at_once_leave_memory_and_the_event_loop_alone(
    make_live_server,
) -> None:
    """Eight uploads at once of four 19.5 KB PNGs of 20 megapixels each, while a client
    pings: every upload is stored, the server's peak memory grows by less than 200 MB
    (decoded all at once, as before, it grew by some 900 MB) and no ping waits long."""
    server = make_live_server()
    assert server.process is not None
    http_url, pid = server.url, server.process.pid
    result = await upload_load(http_url, server.ws_url, pid, uploads=8, pictures=4)
    assert result.statuses == {201: 8}, result.codes
    grown_mb = (result.peak_kib - result.rss_before_kib) / 1024
    _, p99, top = result.lag_ms
    assert grown_mb < 200, (grown_mb, result.lag_ms)
    assert p99 < 300 and top < 1000, (result.lag_ms, grown_mb)
    assert len(result.pings) > 10


async def test_an_upload_over_its_pixel_budget_is_refused_before_decoding(
    make_live_server,
) -> None:
    server = make_live_server(args=[*DEFAULT_ARGS, "--upload-megapixels", "50"])
    token = await _token(server)
    refused = await _upload(server, token, [TRUNCATED] * 3)
    assert refused.status_code == 413, refused.text
    assert refused.json()["error"]["code"] == "too_many_pixels"
    # Within the budget the same pictures are decoded, and found broken.
    broken = await _upload(server, token, [TRUNCATED] * 2)
    assert broken.json()["error"]["code"] == "unreadable_image"
    async with httpx.AsyncClient(base_url=server.url) as http:
        stats = (await http.get("/api/stats")).json()["quotas"]
    assert stats["refused_by_quota"]["too_many_pixels"] == 1


async def test_a_players_pixels_an_hour_are_budgeted(make_live_server) -> None:
    server = make_live_server(args=[*DEFAULT_ARGS, "--megapixels-per-player-hour", "50"])
    bomb = bomb_png()
    mia, leo = await _token(server), await _token(server)
    assert (await _upload(server, mia, [bomb, bomb])).status_code == 201  # 40 of 50
    late = await _upload(server, mia, [bomb])
    assert late.status_code == 429, late.text
    assert late.json()["error"]["code"] == "pixel_rate_limited"
    assert int(late.headers["retry-after"]) > 0
    assert (await _upload(server, leo, [bomb])).status_code == 201  # another player's own
    async with httpx.AsyncClient(base_url=server.url) as http:
        stats = (await http.get("/api/stats")).json()["quotas"]
    assert stats["refused_by_rate"]["pixel_rate_limited"] == 1


async def test_uploads_beyond_those_waiting_are_refused_as_busy() -> None:
    decoder = Decoder(uploads=1, waiting=1)
    first = asyncio.Event()
    release = asyncio.Event()

    async def hold() -> None:
        async with decoder.turn():
            first.set()
            await release.wait()

    holder = asyncio.create_task(hold())
    await first.wait()
    waiter = asyncio.create_task(hold())
    await asyncio.sleep(0.01)
    assert decoder.waiting == 1
    with pytest.raises(Busy):
        async with decoder.turn():
            pass
    release.set()
    await asyncio.gather(holder, waiter)
    assert decoder.waiting == 0
    decoder.close()
