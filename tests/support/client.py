"""A protocol client over a real WebSocket (the ``websockets`` package), for tests.

Every message received is kept (``received``) so tests can check what a seat
was ever sent; :meth:`Client.request` sends a request with an ``id`` and
returns the reply carrying it (``error`` replies included).  Every frame is
also checked against the protocol's JSON Schemas (:mod:`tests.support.schema`).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bodoge.core.values import JSON
from tests.support.follow import Follower
from tests.support.schema import FrameChecker

Message = dict[str, JSON]


class ServerError(Exception):
    def __init__(self, reply: Message) -> None:
        super().__init__(f"{reply.get('code')}: {reply.get('message')}")
        self.reply = reply
        self.code = reply.get("code")


class Client:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.received: list[Message] = []
        self.checker = FrameChecker("to a test client")
        #: Frames exactly as the server sent them (``received`` completes event frames).
        self.frames: list[Message] = []
        #: Each open table's state, kept current from the frames alone.
        self.follower = Follower()
        self.player: Message | None = None
        self.token: str | None = None
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[Message]] = {}
        self._arrived = asyncio.Condition()
        self._cursor = 0
        self.closed: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(
        cls, ws_url: str, name: str | None = "tester", token: str | None = None
    ) -> Client:
        """Connect and say hello (``name=None`` and ``token=None``: no hello)."""
        ws = await connect(ws_url, compression=None, max_size=2**22, open_timeout=20)
        client = cls(ws)
        if name is not None or token is not None:
            await client.hello(name=name, token=token)
        return client

    async def hello(self, name: str | None = None, token: str | None = None) -> Message:
        fields: Message = {"token": token}
        if name is not None:
            fields["name"] = name
        welcome = await self.request("hello", **fields)
        if welcome["type"] == "error":
            raise ServerError(welcome)
        self.player, self.token = welcome["player"], welcome["token"]
        return welcome

    def _follow(self, message: Message) -> Message:
        """The frame as received, with an event completed (see :mod:`tests.support.follow`)."""
        self.frames.append(message)
        return self.follower.follow(message)

    @property
    def player_id(self) -> str:
        assert self.player is not None
        return self.player["id"]

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                self.checker.check(frame)
                message = self._follow(json.loads(frame))
                self.received.append(message)
                waiter = self._waiting.pop(message.get("id"), None)  # type: ignore[arg-type]
                if waiter is not None and not waiter.done():
                    waiter.set_result(message)
                async with self._arrived:
                    self._arrived.notify_all()
        except ConnectionClosed:
            pass
        finally:
            code = self.ws.close_code
            if not self.closed.done():
                self.closed.set_result(code)
            for waiter in self._waiting.values():
                if not waiter.done():
                    waiter.set_exception(ConnectionError(f"closed ({code})"))
            async with self._arrived:
                self._arrived.notify_all()

    async def send(self, message: Message | str) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def request(self, type: str, *, timeout: float = 20.0, **fields: JSON) -> Message:
        """Send a request and return its reply (an ``error`` reply too)."""
        rid = next(self._ids)
        waiter: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = waiter
        await self.send({"type": type, "id": rid, **fields})
        return await asyncio.wait_for(waiter, timeout)

    async def ok(self, type: str, **fields: JSON) -> Message:
        """Like :meth:`request`, raising :class:`ServerError` for an ``error`` reply."""
        reply = await self.request(type, **fields)
        if reply["type"] == "error":
            raise ServerError(reply)
        return reply

    async def wait_for(
        self, predicate: Callable[[Message], bool], timeout: float = 20.0
    ) -> Message:
        """The next message (after those already consumed) that satisfies ``predicate``."""

        async def scan() -> Message:
            while True:
                while self._cursor < len(self.received):
                    message = self.received[self._cursor]
                    self._cursor += 1
                    if predicate(message):
                        return message
                if self.closed.done():
                    raise ConnectionError(f"closed ({self.closed.result()})")
                async with self._arrived:
                    await self._arrived.wait_for(
                        lambda: self._cursor < len(self.received) or self.closed.done()
                    )

        return await asyncio.wait_for(scan(), timeout)

    async def wait_type(self, type: str, timeout: float = 20.0, **match: JSON) -> Message:
        return await self.wait_for(
            lambda m: m.get("type") == type and all(m.get(k) == v for k, v in match.items()),
            timeout,
        )

    def of_type(self, type: str) -> list[Message]:
        return [m for m in self.received if m.get("type") == type]

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()

    async def drop(self) -> None:
        """Vanish without a closing handshake, like a laptop lid shutting."""
        self.ws.transport.abort()
        self._reader.cancel()
