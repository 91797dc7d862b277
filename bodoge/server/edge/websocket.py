"""``/ws``: one WebSocket, served by a :class:`~bodoge.server.edge.connection.Connection`.

The connection knows nothing of ASGI: it sends through a
:class:`~bodoge.server.edge.connection.Transport` and is fed frames by
:meth:`~bodoge.server.edge.connection.Connection.run`; this module adapts the two.

A server holds thousands of these sockets, each waiting for its next frame for most of its
life, and everything on the stack of that wait is held as long as the socket: so ``/ws`` is
served in plain ASGI by :class:`WebSockets`, the outermost middleware, and not through
Starlette's router, its ``WebSocket`` and its exception wrappers, which put a dozen more
coroutines, closures and dicts under every waiting socket.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bodoge.server.edge.connection import Frame
from bodoge.server.runtime.stats import Counters

if TYPE_CHECKING:
    from bodoge.server.edge.ports import Server

PATH = "/ws"


class AsgiTransport:
    """A connection's way out: ASGI ``websocket.send`` and ``websocket.close`` messages."""

    __slots__ = ("_send", "counters")

    def __init__(self, send: Send, counters: Counters) -> None:
        self._send = send
        self.counters = counters

    async def send(self, text: str) -> None:
        self.counters.frames_sent += 1
        await self._send({"type": "websocket.send", "text": text})

    async def close(self, code: int) -> None:
        await self._send({"type": "websocket.close", "code": code})


class WebSockets:
    """ASGI middleware: ``/ws`` served here, everything else passed on to ``app``."""

    def __init__(self, app: ASGIApp, server: Server) -> None:
        self.app = app
        self.server = server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and scope["path"] == PATH:
            await serve(self.server, scope, receive, send)
        else:
            await self.app(scope, receive, send)


async def serve(server: Server, scope: Scope, receive: Receive, send: Send) -> None:
    """Serve one client until it goes."""
    if (await receive())["type"] != "websocket.connect":
        return
    client = scope.get("client")
    address = client[0] if client else None
    counters = server.counters
    # ASGI servers give header names in lower case; values are Latin-1, as Starlette reads them.
    # Read before accepting: the protocol lets go of the handshake's headers once it answered
    # (bodoge/server/edge/socket_protocol.py).
    agent = next(
        (
            value.decode("latin-1")
            for name, value in scope.get("headers", ())
            if name == b"user-agent"
        ),
        None,
    )
    await send({"type": "websocket.accept"})
    connection = server.connect(AsgiTransport(send, counters), address, agent)
    counters.connections_open += 1
    counters.connections_total += 1

    async def frame() -> Frame:
        message: Message = await receive()
        if message["type"] != "websocket.receive":
            return None  # websocket.disconnect
        text = message.get("text")
        return text if text is not None else message.get("bytes") or b""

    try:
        await connection.run(frame)
    finally:
        counters.connections_open -= 1
