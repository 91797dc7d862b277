"""uvicorn's WebSocket protocol (websockets' sans-I/O one) with lighter waiting parts.

uvicorn gives every WebSocket an ``asyncio.Queue`` for the messages it received (three deques,
an ``Event`` with a fourth, and their dicts: about 3 KiB, a dozen objects the collector tracks)
and an ``asyncio.Event`` for "the socket may be written to". A server holding thousands of
sockets holds thousands of each, though only one reader — the application — ever waits on the
queue, and the queue holds a message or two at a time. :class:`LeanWebSocketProtocol` is
uvicorn's protocol with a list and one future for the first, and a flag and a list of futures
(made only while a writer waits) for the second; ``bodoge serve`` runs it
(``uvicorn.Config(ws=…)``).

It also lets go of what only the opening handshake needed, and of what would be garbage in
reference cycles once a socket is gone:

* the handshake's request and response, and their headers (uvicorn keeps both as long as the
  socket, and the ASGI scope a copy of the request's headers as bytes: some 5 KiB a socket).
  The application reads what it needs of the headers before it accepts (the origin, the
  user agent, the proxy's forwarded address), so once the handshake's answer is sent the
  protocol empties them. websockets' parser keeps the request in a local variable of its
  generator for as long as the socket is open, so the request's headers are emptied in
  place;
* websockets' parser, a generator holding its protocol (a cycle), is closed when the socket
  is lost;
* the HTTP protocol that read the upgrade request holds its parser, which holds it back
  (a cycle uvicorn breaks only when an HTTP connection is lost, which an upgraded one never
  is): :class:`LeanHttpProtocol` drops its parser once it has handed the socket over.

It pings only quiet sockets. A cluster process pings every socket every second so that
nginx, which cuts an upgraded connection silent both ways for a few seconds, cuts only a
paused process's (bodoge/cluster/nginx.py); but any frame the server sends restarts nginx's
timer as a ping does, and a socket at a table in play gets a frame or two a second anyway:
uvicorn's ping on each (a frame out, a pong in, three timers) cost a process serving 160
players more than two pings per move. A socket that was sent a frame less than an interval
ago is looked at again an interval after that frame instead; it is still pinged at least
every :data:`PING_AT_LEAST` seconds, so a peer gone without a word is found as soon as a lone
process (which pings every 20 s) finds it.

The server freezes what survives each young collector pass (bodoge/server/services/
collector.py), so garbage in cycles that lived a moment would be kept for good: every socket
that ever came and went would have left its protocols behind.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class Inbound:
    """The messages a socket received, for its one reader, in order."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Any:
        while not self._items:
            if self._waiter is not None:
                raise RuntimeError("a WebSocket's messages have one reader")
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)


class Writable:
    """Whether the socket may be written to (flow control); writers wait while it may not."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        if self._set:
            return True
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)
        return True


#: Seconds a socket goes without a ping at most, however many frames it is sent.
PING_AT_LEAST = 20.0


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue: Any = Inbound()
        writable = Writable()
        writable.set()  # as uvicorn's own starts
        self.writable: Any = writable
        #: The loop's time of the last frame sent (pings aside), and of the last ping.
        self.sent_at = self.pinged_at = self.loop.time()

    async def send(self, message: Any) -> None:
        opening = not self.handshake_complete
        await super().send(message)
        self.sent_at = self.loop.time()
        if opening and self.handshake_complete:
            self._forget_handshake()

    def send_text_now(self, text: str) -> bool:
        """Send a text frame at once, if the socket takes it now; ``False``: it did not
        (flow control holds the socket, or it is closing), so send it as ASGI does.

        A table's move sends a frame to each of its seats; through ASGI each costs a task, a
        message dict and an await, for what is two calls when the socket is ready."""
        if (
            self.disconnected
            or self.close_sent
            or not self.handshake_complete
            or self.initial_response is not None
            or not self.writable.is_set()
        ):
            return False
        try:
            self.conn.send_text(text.encode())
        except Exception:  # websockets' InvalidState: the slow way says so properly
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.sent_at = self.loop.time()
        return True

    def send_keepalive_ping(self) -> None:
        now, interval = self.loop.time(), self.ping_interval
        since = now - self.sent_at
        if interval and since < interval and now - self.pinged_at < PING_AT_LEAST:
            # The last frame keeps the socket from looking quiet, as a ping would.
            self.ping_timer = self.loop.call_later(interval - since, self.send_keepalive_ping)
            return
        self.pinged_at = now
        super().send_keepalive_ping()

    def _forget_handshake(self) -> None:
        # uvicorn reads them only until the handshake is complete.
        self.request.headers.clear()
        self.response.headers.clear()
        del self.request, self.response
        # The same list the application was given: emptied, not replaced.
        headers = self.scope["headers"]
        if isinstance(headers, list):
            headers.clear()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.conn.parser.close()


class LeanHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol (httptools), which lets go of its parser once upgraded."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # The socket is the WebSocket protocol's now; this one is done with.
        self.parser = None  # type: ignore[assignment]
