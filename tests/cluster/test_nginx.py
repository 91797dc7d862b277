"""nginx with the cluster's configuration: WebSockets round-robin, a dead process skipped."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from tests.support.services import NginxServer, free_port


class Upstream:
    """A stand-in for a bodoge process: a WebSocket echo that says its name, and plain HTTP."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.port = free_port()
        self.server: Server | None = None

    async def start(self) -> None:
        self.server = await serve(self._talk, "127.0.0.1", self.port, process_request=self._http)

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None

    async def _talk(self, ws: ServerConnection) -> None:
        async for message in ws:
            await ws.send(f"{self.name}:{message}")

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None  # go on with the WebSocket handshake
        if request.path == "/api/store-down":  # what every process answers without its database
            return connection.respond(503, f"{self.name}\n")
        return connection.respond(200, f"{self.name}\n")


@pytest.fixture
async def upstreams() -> AsyncIterator[list[Upstream]]:
    started = [Upstream("a"), Upstream("b")]
    for upstream in started:
        await upstream.start()
    yield started
    for upstream in started:
        await upstream.stop()


async def ask(url: str, text: str) -> str:
    async with connect(url, open_timeout=5) as ws:
        await ws.send(text)
        reply = await asyncio.wait_for(ws.recv(), 5)
        assert isinstance(reply, str)
        return reply


async def test_websockets_alternate_between_the_processes(
    upstreams: list[Upstream], make_nginx: Callable[[list[int]], NginxServer]
) -> None:
    nginx = make_nginx([u.port for u in upstreams])
    replies = [await ask(nginx.ws_url, f"m{i}") for i in range(6)]
    names = [reply.split(":")[0] for reply in replies]
    assert sorted(names[:2]) == ["a", "b"]
    assert names == names[:2] * 3  # round-robin, one after the other
    assert [reply.split(":")[1] for reply in replies] == [f"m{i}" for i in range(6)]

    # Plain HTTP (pages, the API) goes the same way.
    async with httpx.AsyncClient() as client:
        bodies = {(await client.get(nginx.url)).text.strip() for _ in range(4)}
    assert bodies == {"a", "b"}

    # A WebSocket stays open through nginx, on the process it landed on.
    async with connect(nginx.ws_url) as ws:
        for n in range(3):
            await ws.send(str(n))
            assert (await ws.recv()).endswith(f":{n}")


async def test_a_dead_process_is_skipped(
    upstreams: list[Upstream], make_nginx: Callable[[list[int]], NginxServer]
) -> None:
    nginx = make_nginx([u.port for u in upstreams])
    await upstreams[0].stop()
    names = [(await ask(nginx.ws_url, "x")).split(":")[0] for _ in range(4)]
    assert names == ["b"] * 4  # a refused connection is tried on the next process
    await upstreams[0].start()


async def test_a_503_is_passed_on_and_takes_no_process_out(
    upstreams: list[Upstream], make_nginx: Callable[[list[int]], NginxServer]
) -> None:
    """A process's 503 (``store_unavailable``: the database is away for every process alike)
    reaches the visitor as it is, with its Retry-After, and counts as no failure: were it one,
    nginx would take every process out in turn and answer its own 502 meanwhile."""
    nginx = make_nginx([u.port for u in upstreams])
    async with httpx.AsyncClient() as client:
        answers = [await client.get(nginx.url + "api/store-down") for _ in range(6)]
        assert [a.status_code for a in answers] == [503] * 6
        assert [a.text.strip() for a in answers] == [
            answers[0].text.strip(),
            answers[1].text.strip(),
        ] * 3
        assert {a.text.strip() for a in answers} == {"a", "b"}  # both still in the round robin


async def test_metrics_and_healthz_are_the_operators_only(
    upstreams: list[Upstream], make_nginx: Callable[[list[int]], NginxServer]
) -> None:
    """A visitor of the public site is not served /metrics or /healthz (however written);
    the operator's address serves them and nothing else, and listens on no other address."""
    nginx = make_nginx([u.port for u in upstreams])
    async with httpx.AsyncClient() as client:
        for path in ("metrics", "healthz", "metrics/", "healthz/", "./metrics", "%6detrics"):
            outside = await client.get(nginx.url + path)
            assert outside.status_code == 404, path
            assert outside.text.strip() not in ("a", "b"), path  # never reached a process
        assert (await client.get(nginx.url + "api/games")).status_code == 200  # the site works
        for path in ("metrics", "healthz"):
            inside = await client.get(nginx.operator_url + path)
            assert inside.status_code == 200
            assert inside.text.strip() in ("a", "b")
        assert (await client.get(nginx.operator_url + "api/games")).status_code == 404
    # Bound to 127.0.0.1 alone: the same port on another address of the machine is closed.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.2", nginx.operator_port), 1).close()


async def test_the_operators_server_answers_only_its_allow_list(
    upstreams: list[Upstream],
) -> None:
    nginx = NginxServer([u.port for u in upstreams], allow=["192.0.2.1"]).start()
    try:
        async with httpx.AsyncClient() as client:
            refused = await client.get(nginx.operator_url + "metrics")
        assert refused.status_code == 403
    finally:
        nginx.close()


def test_the_test_wrapper_keeps_the_documented_configuration(
    make_nginx: Callable[[list[int]], NginxServer],
) -> None:
    from bodoge.cluster.nginx import nginx_config

    nginx = make_nginx([free_port(), free_port()])
    written = nginx.config_path.read_text()
    upstreams = [f"127.0.0.1:{p}" for p in nginx.upstreams]
    operator = f"127.0.0.1:{nginx.operator_port}"
    documented = nginx_config(upstreams, f"127.0.0.1:{nginx.port}", operator)
    assert all(f"    {line}" in written for line in documented.splitlines() if line)
    nginx.restart()
    assert nginx.running
