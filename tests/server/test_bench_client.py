"""The bench's lean WebSocket client against a real server: requests, state frames, and a
server killed under it (the pending request fails as lost, the seat comes back with its
token, and ``on_back`` runs)."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

from bodoge.bench.client import Lost, Seat, Stats
from bodoge.bench.lean_socket import connect
from bodoge.core.values import JSON
from tests.support.live_server import LiveServer


async def _seat(url: str, stats: Stats, name: str) -> Seat:
    seat = Seat(await connect(url), url, stats, name)
    welcome = await seat.request("hello", token=None, name=name)
    seat.token = str(welcome["token"])
    return seat


async def test_a_seat_gets_its_replies_and_its_table_frames(live_server: LiveServer) -> None:
    stats = Stats()
    host, guest = [await _seat(live_server.ws_url, stats, name) for name in ("Lean", "Mean")]
    frames: list[tuple[dict[str, JSON], int]] = []
    guest.on_state = lambda message, size: frames.append((message, size))
    created = await host.request("table.create", game="tagiron", options={"players": 2})
    await guest.request("table.join", table=created["table"])
    for seat in (host, guest):
        assert (await seat.request("table.open", table=created["table"]))["type"] == "table"
    await host.request("table.start", table=created["table"])
    while not frames:
        await asyncio.sleep(0.01)
    message, size = frames[0]
    assert message["type"] in ("event", "table") and size > 100
    assert (await asyncio.gather(*(guest.request("ping") for _ in range(20))))[-1]["type"] == "pong"
    await host.close()
    seat = guest
    await seat.close()
    assert seat.ws.closed.is_set() and stats.errors == 0


async def test_a_seat_whose_server_is_killed_fails_its_request_and_comes_back(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server()
    stats = Stats()
    seat = await _seat(server.ws_url, stats, "Lean")
    await seat.request("lobby.subscribe")  # its player is stored before the crash
    back = asyncio.Event()

    async def on_back() -> None:
        back.set()

    seat.on_back = on_back
    assert server.process is not None
    server.process.send_signal(signal.SIGSTOP)  # the request waits: no reply will come
    pending = asyncio.create_task(seat.request("ping"))
    await asyncio.sleep(0.2)
    await asyncio.to_thread(server.kill)
    try:
        await asyncio.wait_for(pending, 10)
        raise AssertionError("a reply from a stopped server")
    except Lost:
        pass
    await asyncio.to_thread(server.start)
    await asyncio.wait_for(back.wait(), 30)
    assert stats.reconnects == 1
    # The token was taken: what needs a hello is answered.
    assert (await seat.request("lobby.subscribe"))["type"] != "error"
    await seat.close()
