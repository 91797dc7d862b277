"""The WebSocket protocol ``bodoge serve`` gives uvicorn holds no asyncio queue or event per
socket (``bodoge/server/edge/socket_protocol.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from uvicorn.server import ServerState
from websockets.asyncio.client import ClientConnection, connect
from websockets.frames import Frame, Opcode
from websockets.http11 import Request

from bodoge.server.cli import uvicorn_config
from bodoge.server.edge import socket_protocol
from bodoge.server.edge.app import create_app
from bodoge.server.edge.origins import SameOrigin
from bodoge.server.edge.socket_protocol import Inbound, LeanWebSocketProtocol, Writable
from bodoge.server.edge.websocket import WebSockets
from bodoge.server.runtime.config import ServerConfig
from bodoge.store import sqlite_url


async def _app(scope: Any, receive: Any, send: Any) -> None:
    pass


async def test_a_socket_holds_no_asyncio_queue_or_event() -> None:
    config = uvicorn.Config(_app, ws=LeanWebSocketProtocol, log_level="warning")
    config.load()
    protocol = LeanWebSocketProtocol(config, ServerState(), {})
    held = gc.get_referents(*gc.get_referents(protocol))  # its attributes' contents
    assert not [o for o in held if isinstance(o, asyncio.Queue | asyncio.Event)]
    assert not [o for o in gc.get_referents(protocol.__dict__) if isinstance(o, asyncio.Queue)]
    assert isinstance(protocol.queue, Inbound) and protocol.writable.is_set()


async def test_inbound_messages_come_in_order_to_their_one_reader() -> None:
    inbound = Inbound()
    inbound.put_nowait(1)
    reader = asyncio.ensure_future(inbound.get())
    assert await reader == 1 and inbound.empty()
    later = asyncio.ensure_future(inbound.get())
    await asyncio.sleep(0)
    assert not later.done()  # waits
    inbound.put_nowait(2)
    inbound.put_nowait(3)
    assert await later == 2 and inbound.qsize() == 1 and await inbound.get() == 3
    first = asyncio.ensure_future(inbound.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError):
        await inbound.get()
    first.cancel()


async def test_writers_wait_while_the_socket_may_not_be_written_to() -> None:
    writable = Writable()
    writable.set()
    assert await writable.wait()
    writable.clear()
    writers = [asyncio.ensure_future(writable.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in writers)
    writable.set()
    assert await asyncio.gather(*writers) == [True, True, True]


def test_ws_is_served_behind_the_origin_check_and_ahead_of_starlette(tmp_path: Path) -> None:
    """A waiting socket holds no Starlette middleware, router frames, ``WebSocket`` or
    wrappers: ``/ws`` is served ahead of them, right behind the origin check (which must still
    see every socket, and every HTTP request)."""
    app = create_app(ServerConfig(db_url=sqlite_url(tmp_path)))
    assert isinstance(app.sockets, SameOrigin) and isinstance(app.sockets.app, WebSockets)
    assert SameOrigin in [m.cls for m in app.user_middleware]
    assert WebSockets not in [m.cls for m in app.user_middleware]
    assert not [r for r in app.routes if getattr(r, "path", None) == "/ws"]


class EchoApp:
    """An ASGI app that notes each socket's user agent and protocol, and echoes its frames."""

    def __init__(self) -> None:
        self.agents: list[str | None] = []
        self.open: list[LeanWebSocketProtocol] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()  # websocket.connect
        headers = dict(scope["headers"])
        self.agents.append(headers[b"user-agent"].decode() if b"user-agent" in headers else None)
        await send({"type": "websocket.accept"})
        protocol = send.__self__
        self.open.append(protocol)
        try:
            while (message := await receive())["type"] == "websocket.receive":
                await send({"type": "websocket.send", "text": message["text"]})
        finally:
            self.open.remove(protocol)


@pytest.fixture
async def echo_server() -> Any:
    app = EchoApp()
    server = uvicorn.Server(uvicorn_config(app, 2**16, "warning", ()))
    server.config.lifespan = "off"
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    serving = asyncio.ensure_future(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    yield app, f"ws://127.0.0.1:{sock.getsockname()[1]}/ws"
    server.should_exit = True
    await asyncio.wait_for(serving, 10)


async def test_an_open_socket_lets_go_of_its_handshake(echo_server: Any) -> None:
    app, url = echo_server
    async with connect(url, user_agent_header="Bench/1.0 (X11)") as ws:
        await ws.send("hi")
        assert await ws.recv() == "hi"  # still served after letting go
        (protocol,) = app.open
        assert app.agents == ["Bench/1.0 (X11)"]  # read before the answer
        assert not hasattr(protocol, "request") and not hasattr(protocol, "response")
        assert protocol.scope["headers"] == []
        # websockets' parser keeps the request for the socket's life: its headers are empty.
        request = protocol.conn.parser.gi_frame.f_locals["request"]
        assert isinstance(request, Request) and not request.headers


def _alive(kinds: set[str]) -> int:
    return sum(1 for o in gc.get_objects() if type(o).__name__ in kinds)


async def test_reference_counting_alone_frees_sockets_that_come_and_go(echo_server: Any) -> None:
    """The server freezes what outlives a young collector pass, so a socket's protocols in a
    reference cycle would be kept for good: with the collector off, none may outlive it."""
    _, url = echo_server
    protocols = {"LeanWebSocketProtocol", "LeanHttpProtocol", "ServerProtocol", "HttpRequestParser"}
    gc.collect()
    gc.disable()
    try:
        before = _alive(protocols)
        for i in range(20):
            async with connect(url) as ws:
                await ws.send(str(i))
                assert await ws.recv() == str(i)
        for _ in range(500):  # the server side notices each close
            if _alive(protocols) <= before:
                break
            await asyncio.sleep(0.01)
        left = _alive(protocols) - before
    finally:
        gc.enable()
    assert left <= 0, f"{left} protocol objects outlived their sockets"


class PingsCounted(ClientConnection):
    """A client's socket that counts the server's pings (it answers them as every client does)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pings = 0

    def process_event(self, event: Any) -> None:
        if isinstance(event, Frame) and event.opcode is Opcode.PING:
            self.pings += 1
        super().process_event(event)


class TickingApp:
    """An ASGI app that, asked ``"N"``, sends ``N`` frames, one every ``every`` seconds."""

    def __init__(self, every: float) -> None:
        self.every = every

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] == "websocket.receive":
            for i in range(int(message["text"])):
                await asyncio.sleep(self.every)
                await send({"type": "websocket.send", "text": str(i)})


@contextlib.asynccontextmanager
async def ticking_server(every: float, ping: float) -> AsyncIterator[int]:
    """A :class:`TickingApp` served as ``bodoge serve`` serves, pinging every ``ping`` s;
    yields its port."""
    server = uvicorn.Server(uvicorn_config(TickingApp(every), 2**16, "warning", (), ping))
    server.config.lifespan = "off"
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    serving = asyncio.ensure_future(server.serve(sockets=[sock]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, 10)


async def ticks(ws: ClientConnection, count: int) -> list[str]:
    await ws.send(str(count))
    return [str(await asyncio.wait_for(ws.recv(), 10)) for _ in range(count)]


async def test_only_quiet_sockets_are_pinged_and_busy_ones_now_and_then(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A frame sent keeps a socket from looking quiet as a ping would; a socket sent frames
    all the time is still pinged every ``PING_AT_LEAST`` seconds (here 0.6)."""
    monkeypatch.setattr(socket_protocol, "PING_AT_LEAST", 0.6)
    async with ticking_server(every=0.05, ping=0.2) as port:
        url = f"ws://127.0.0.1:{port}/ws"
        async with (
            connect(url, ping_interval=None, create_connection=PingsCounted) as busy,
            connect(url, ping_interval=None, create_connection=PingsCounted) as quiet,
        ):
            assert isinstance(busy, PingsCounted) and isinstance(quiet, PingsCounted)
            began = time.monotonic()
            assert await ticks(busy, 30) == [str(i) for i in range(30)]
            took = time.monotonic() - began  # 1.5 s, or more on a busy machine
            await asyncio.sleep(0.05)
            assert quiet.pings >= took / 0.2 - 2, (quiet.pings, took)
            assert 1 <= busy.pings <= took / 0.6 + 1, (busy.pings, took)
            # Quiet again, the busy socket is pinged at every interval too.
            before = busy.pings
            await asyncio.sleep(1.0)
            assert busy.pings - before >= 3
