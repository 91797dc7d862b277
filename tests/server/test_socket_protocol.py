"""The WebSocket protocol ``bodoge serve`` gives uvicorn holds no asyncio queue or event per
socket (``bodoge/server/edge/socket_protocol.py``)."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
import uvicorn
from uvicorn.server import ServerState

from bodoge.server.edge.socket_protocol import Inbound, LeanWebSocketProtocol, Writable


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
