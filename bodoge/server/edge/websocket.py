"""``/ws``: one WebSocket, served by a :class:`~bodoge.server.edge.connection.Connection`.

The connection knows nothing of Starlette: it sends through a
:class:`~bodoge.server.edge.connection.Transport` and is fed frames by
:meth:`~bodoge.server.edge.connection.Connection.run`; this module adapts the two.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket

from bodoge.server.edge.connection import Frame
from bodoge.server.runtime.stats import Counters

if TYPE_CHECKING:
    from bodoge.server.edge.ports import Server


class StarletteTransport:
    def __init__(self, websocket: WebSocket, counters: Counters) -> None:
        self.websocket = websocket
        self.counters = counters

    async def send(self, text: str) -> None:
        self.counters.frames_sent += 1
        await self.websocket.send_text(text)

    async def close(self, code: int) -> None:
        await self.websocket.close(code)


def websocket_routes(server: Server) -> list[BaseRoute]:
    return [WebSocketRoute("/ws", partial(serve, server))]


async def serve(server: Server, websocket: WebSocket) -> None:
    """Serve one client until it goes."""
    await websocket.accept()
    address = websocket.client.host if websocket.client else None
    counters = server.counters
    agent = websocket.headers.get("user-agent")
    connection = server.connect(StarletteTransport(websocket, counters), address, agent)
    counters.connections_open += 1
    counters.connections_total += 1

    async def receive() -> Frame:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return None
        text = message.get("text")
        return text if text is not None else message.get("bytes") or b""

    try:
        await connection.run(receive)
    finally:
        counters.connections_open -= 1
