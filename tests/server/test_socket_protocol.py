"""The WebSocket protocol ``bodoge serve`` gives uvicorn holds no asyncio queue or event per
socket (``bodoge/server/edge/socket_protocol.py``)."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from uvicorn.server import ServerState

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


def test_ws_is_served_behind_the_origin_check_and_ahead_of_the_router(tmp_path: Path) -> None:
    """A waiting socket holds no Starlette router frames, ``WebSocket`` or wrappers: ``/ws`` is
    a middleware's, right behind the origin check (which must still see every socket)."""
    app = create_app(ServerConfig(db_url=sqlite_url(tmp_path)))
    kinds = [m.cls for m in app.user_middleware]
    assert kinds.index(WebSockets) == kinds.index(SameOrigin) + 1
    assert not [r for r in app.routes if getattr(r, "path", None) == "/ws"]
