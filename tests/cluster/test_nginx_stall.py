"""A paused process behind the recommended nginx: routed around within seconds, then back.

The audit stopped one of three processes (``kill -STOP``): its listening socket stays open,
the kernel completes every TCP handshake for it, and with nginx's read timeout at an hour a
third of ``/healthz`` requests and WebSocket opens hung. Now every request that waits is
given a short read timeout (``bodoge/cluster/nginx.py``): the first requests to reach the
paused process wait that long and are tried on the next one, the process is left out for
``FAIL_TIMEOUT`` seconds, and then one request tries it again (and waits as long). Meanwhile
each process pings its quiet WebSockets every ``WS_PING`` s (a frame it sends counts as much
for nginx), so a quiet socket on a live process outlives the WebSocket's read timeout, while
a paused process's sockets are cut and their browsers can reconnect to a live process. After
``kill -CONT`` nginx sends it requests again.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bodoge.cluster.namespace import Namespace
from bodoge.cluster.nginx import FAIL_TIMEOUT, HEALTH_TIMEOUT, HTTP_TIMEOUT, WS_PING, WS_TIMEOUT
from tests.server.test_socket_protocol import PingsCounted, ticking_server, ticks
from tests.support.live_server import DEFAULT_ARGS, LiveServer
from tests.support.services import NginxServer

#: How long the test keeps asking while the process is paused: two of nginx's tries of it.
PAUSED_FOR = 2 * FAIL_TIMEOUT + WS_TIMEOUT
#: The longest a request may take: one timeout on the paused process, then an answer from
#: a live one (slack for this shared, loaded machine).
SLOWEST = max(WS_TIMEOUT, HTTP_TIMEOUT, HEALTH_TIMEOUT) + 1.5
#: A request that took this long waited for the paused process (nothing else is that slow).
WAITED = min(WS_TIMEOUT, HTTP_TIMEOUT, HEALTH_TIMEOUT) - 0.1


async def _welcome(ws: ClientConnection) -> None:
    await ws.send(json.dumps({"type": "hello", "id": 1, "name": "Ann", "token": None}))
    while True:
        reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if reply.get("id") == 1:
            assert reply["type"] == "welcome", reply
            return


async def _open(url: str) -> ClientConnection:
    """A browser's socket: opened, hello answered; it sends nothing more by itself (the
    browser's own ping is every 25 s), and answers the server's pings as every client does."""
    ws = await connect(url, ping_interval=None, open_timeout=30)
    await _welcome(ws)
    return ws


def _open_sockets(client: httpx.Client, process: LiveServer) -> int:
    stats = client.get(process.url + "api/stats", timeout=10).json()
    return int(stats["connections"]["open"])


async def _pong(ws: ClientConnection) -> bool:
    """Whether the socket still carries a request and its answer (False: it was cut)."""
    try:
        await ws.send(json.dumps({"type": "ping", "id": "p"}))
        while True:
            reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
            if reply.get("id") == "p":
                return bool(reply["type"] == "pong")
    except ConnectionClosed:
        return False


async def test_a_paused_process_is_routed_around_and_comes_back(
    tmp_path: Path,
    database_url: str,
    shared_redis: str,
    namespace: Namespace,
    make_nginx: Callable[[list[int]], NginxServer],
) -> None:
    args = [
        *DEFAULT_ARGS,
        *("--db", database_url, "--redis", shared_redis, "--redis-namespace", namespace.prefix),
        *("--trusted-proxies", "127.0.0.1", "--bot-workers", "0"),
    ]
    processes = [LiveServer(tmp_path / f"p{i}", args=args) for i in range(3)]
    paused = processes[0]
    sockets: list[tuple[ClientConnection, int]] = []
    try:
        await asyncio.gather(*(asyncio.to_thread(p.start) for p in processes))
        nginx = make_nginx([p.port for p in processes])
        with httpx.Client() as direct:
            names = [direct.get(p.url + "healthz").json()["process"] for p in processes]
            # Sockets through nginx, each found on its process by the processes' counts.
            for _ in range(6):
                before = [_open_sockets(direct, p) for p in processes]
                ws = await _open(nginx.ws_url)
                after = [_open_sockets(direct, p) for p in processes]
                grown = [i for i in range(3) if after[i] == before[i] + 1]
                assert len(grown) == 1, (before, after)
                sockets.append((ws, grown[0]))
        assert {where for _, where in sockets} == {0, 1, 2}, "round-robin over the three"

        os.kill(paused.pid, signal.SIGSTOP)
        began = time.monotonic()
        tries: list[tuple[str, float, float]] = []  # what, when (since the pause), how long
        async with httpx.AsyncClient(timeout=30) as client:
            while time.monotonic() - began < PAUSED_FOR:
                at = time.monotonic()
                health = await client.get(nginx.operator_url + "healthz")
                assert health.status_code == 200, health.text
                assert health.json()["process"] != names[0], "the paused process answered"
                tries.append(("healthz", at - began, time.monotonic() - at))

                at = time.monotonic()
                ws = await _open(nginx.ws_url)
                tries.append(("websocket", at - began, time.monotonic() - at))
                await ws.close()

                at = time.monotonic()
                page = await client.get(nginx.url + "api/games")
                assert page.status_code == 200, page.text
                tries.append(("GET /api/games", at - began, time.monotonic() - at))

            # The sockets were silent from the client's side all this while, longer than
            # the WebSocket's read timeout: the live processes' pings kept theirs open;
            # the paused process's were cut by nginx.
            quiet = time.monotonic() - began
            assert quiet > WS_TIMEOUT + 2
            alive = [await _pong(ws) for ws, _ in sockets]
            assert alive == [where != 0 for _, where in sockets], (alive, sockets)

            # Every request was answered (above), none waited more than one timeout...
            slow = [(what, round(at, 1), round(took, 1)) for what, at, took in tries if took > 1]
            assert all(t[2] < SLOWEST for t in tries), slow
            waited = [t for t in slow if t[2] >= WAITED]
            # ...and only the first ones, and one each time nginx tried the process again
            # (every FAIL_TIMEOUT s), waited at all: the rest went to the live processes.
            assert 1 <= len(waited) <= math.ceil(PAUSED_FOR / FAIL_TIMEOUT) + 1, slow
            # It was tried, and timed out: the test saw the stall, not a process gone.
            timed_out = (nginx.folder / "error.log").read_text()
            assert "upstream timed out" in timed_out and f":{paused.port}/" in timed_out

            os.kill(paused.pid, signal.SIGCONT)
            # Woken, it is asked again: within a try of nginx's, its /healthz through nginx.
            woke = time.monotonic()
            while True:
                health = await client.get(nginx.operator_url + "healthz")
                if health.status_code == 200 and health.json()["process"] == names[0]:
                    break
                assert time.monotonic() - woke < FAIL_TIMEOUT + 10, "not asked again"
                await asyncio.sleep(0.2)
            ws = await _open(nginx.ws_url)  # and it (or another) takes new sockets at once
            await ws.close()
    finally:
        for ws, _ in sockets:
            await ws.close()
        for process in processes:
            if process.process is not None:
                os.kill(process.pid, signal.SIGCONT)
        await asyncio.gather(*(asyncio.to_thread(p.stop) for p in processes))


async def test_a_socket_sent_frames_is_not_pinged_and_nginx_keeps_it(
    make_nginx: Callable[[list[int]], NginxServer],
) -> None:
    """A frame from the process restarts nginx's timer on the socket as a ping does: a socket
    sent a frame every half second, silent from the client's side far longer than the
    WebSocket's read timeout, stays open without one ping."""
    async with ticking_server(every=0.5, ping=WS_PING) as port:
        nginx = make_nginx([port])
        ws = await connect(nginx.ws_url, ping_interval=None, create_connection=PingsCounted)
        try:
            assert isinstance(ws, PingsCounted)
            count = int((WS_TIMEOUT + 3) / 0.5)
            assert await ticks(ws, count) == [str(i) for i in range(count)]
            assert ws.pings == 0
            await asyncio.sleep(WS_PING + 0.5)  # quiet now: pinged again, and kept
            assert ws.pings >= 1
            assert await ticks(ws, 1) == ["0"]
        finally:
            await ws.close()
