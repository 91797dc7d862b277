"""``/ws``: one WebSocket, served by a :class:`~bodoge.server.edge.connection.Connection`.

The connection knows nothing of ASGI: it sends through a
:class:`~bodoge.server.edge.connection.Transport` and is fed frames by
:meth:`~bodoge.server.edge.connection.Connection.run`; this module adapts the two.

A server holds thousands of these sockets, each waiting for its next frame for most of its
life, and everything on the stack of that wait is held as long as the socket: so ``/ws`` is
served in plain ASGI by :class:`WebSockets`, ahead of Starlette's middleware stack (its
error middleware and the security headers, which pass a socket through untouched) and not
through its router, its ``WebSocket`` and its exception wrappers, which put a dozen more
coroutines, closures and dicts under every waiting socket.  Only the origin check stands in
front of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.types import Message, Receive, Scope, Send

from bodoge.server.edge.connection import Frame
from bodoge.server.edge.socket_protocol import LeanWebSocketProtocol
from bodoge.server.runtime.stats import Counters

if TYPE_CHECKING:
    from bodoge.server.edge.ports import Server

PATH = "/ws"


class AsgiTransport:
    """A connection's way out: ASGI ``websocket.send`` and ``websocket.close`` messages."""

    __slots__ = ("_now", "_send", "counters")

    def __init__(self, send: Send, counters: Counters) -> None:
        self._send = send
        self.counters = counters
        # bodoge's own uvicorn protocol (socket_protocol.py) sends a ready socket's frame at
        # once; another ASGI server's ``send`` has no such thing.
        protocol = getattr(send, "__self__", None)
        self._now: Callable[[str], bool] | None = (
            protocol.send_text_now if isinstance(protocol, LeanWebSocketProtocol) else None
        )

    def send_now(self, text: str) -> bool:
        if self._now is not None and self._now(text):
            self.counters.frames_sent += 1
            return True
        return False

    async def send(self, text: str) -> None:
        self.counters.frames_sent += 1
        await self._send({"type": "websocket.send", "text": text})

    async def close(self, code: int) -> None:
        await self._send({"type": "websocket.close", "code": code})


class WebSockets:
    """The ASGI application of ``/ws`` (:class:`~bodoge.server.edge.app.App` calls it ahead of
    Starlette's middleware, behind the origin check alone)."""

    def __init__(self, server: Server) -> None:
        self.server = server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await serve(self.server, scope, receive, send)


def served_here(scope: Scope) -> bool:
    """Whether ``scope`` is a WebSocket to ``/ws``."""
    return scope["type"] == "websocket" and scope["path"] == PATH


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
