"""The bench's WebSocket connection: ``websockets``' sans-I/O client under an asyncio protocol.

The bench's clients share the machine's cores with the server they measure, so what a frame
costs them is taken from the server.  ``websockets``' asyncio client hands each frame through
an assembler, a queue and a waiting task, and pings on a timer of its own; here the protocol
parses what the transport reads (the framing stays ``websockets``'), and each text frame goes
straight to one callback, still bytes (``orjson`` reads them as they are).  No pings of its
own (the server's are answered by the protocol), no compression.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import cast

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

#: The largest message received, as the asyncio client was given (4 MiB).
MAX_SIZE = 2**22
#: Seconds a closing handshake may take before the connection is cut.
CLOSE_SECONDS = 10.0

FrameHandler = Callable[[bytes], None]


class LeanSocket(asyncio.Protocol):
    """One client connection: :func:`connect` opens it, :meth:`deliver` says where frames go.

    ``closed`` is set when the TCP connection is gone (whoever closed it); ``on_lost`` is
    called then, once, before anything awaiting ``closed`` runs.
    """

    def __init__(self, url: str, max_size: int = MAX_SIZE) -> None:
        self.conn = ClientProtocol(parse_uri(url), max_size=max_size)
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # A handshake given up on (``connect``'s timeout) fails unheard: not an error to log.
        self.opened.add_done_callback(lambda f: f.cancelled() or f.exception())
        self.closed = asyncio.Event()
        self.on_frame: FrameHandler | None = None
        self.on_lost: Callable[[], None] | None = None
        #: Frames received before :meth:`deliver` (none, unless the server speaks first).
        self._early: list[bytes] = []
        #: The first fragments of a fragmented message (the server sends none, but may).
        self._parts: list[bytes] = []

    def deliver(self, on_frame: FrameHandler, on_lost: Callable[[], None]) -> None:
        """Hand every text frame (and those already received) to ``on_frame``."""
        self.on_frame = on_frame
        self.on_lost = on_lost
        early, self._early = self._early, []
        for data in early:
            on_frame(data)

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio's classes, but have their methods.
        self.transport = cast(asyncio.Transport, transport)
        self.conn.send_request(self.conn.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        conn = self.conn
        conn.receive_data(data)
        self._flush()  # pongs, and the close frame echoed
        for event in conn.events_received():
            if isinstance(event, Frame):
                self._frame(event)
            elif isinstance(event, Response) and not self.opened.done():
                if conn.handshake_exc is None:
                    self.opened.set_result(None)
                else:
                    self.opened.set_exception(conn.handshake_exc)

    def eof_received(self) -> bool | None:
        self.conn.receive_eof()
        self._flush()
        return None  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed during the handshake"))
        self.closed.set()
        if self.on_lost is not None:
            self.on_lost()

    # The connection

    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.CONT:
            # A frame parsed from the network holds bytes (``BytesLike`` is for frames sent).
            data = cast(bytes, frame.data)
            if not frame.fin:
                self._parts.append(data)
                return
            if self._parts:
                self._parts.append(data)
                data = b"".join(self._parts)
                self._parts.clear()
            if self.on_frame is None:
                self._early.append(data)
            else:
                self.on_frame(data)

    def _flush(self) -> None:
        writes = self.conn.data_to_send()
        if not writes or self.transport is None:
            return
        eof = not writes[-1]
        data = b"".join(writes)
        if data:
            self.transport.write(data)
        if eof and self.transport.can_write_eof():
            self.transport.write_eof()

    @property
    def open(self) -> bool:
        return self.conn.state is State.OPEN and not self.closed.is_set()

    def send(self, text: bytes) -> None:
        """Send one text frame (UTF-8); ``ConnectionError`` once the connection is closing."""
        if not self.open or self.transport is None or self.transport.is_closing():
            raise ConnectionError("the connection is closed")
        self.conn.send_text(text)
        self.transport.write(b"".join(self.conn.data_to_send()))

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    async def close(self, timeout: float = CLOSE_SECONDS) -> None:
        """The closing handshake; the connection is cut if the server has not ended it."""
        if self.closed.is_set():
            return
        if self.conn.state is State.OPEN:
            self.conn.send_close()
            self._flush()
        try:
            await asyncio.wait_for(self.closed.wait(), timeout)
        except TimeoutError:
            self.abort()


async def connect(url: str, open_timeout: float = 10.0) -> LeanSocket:
    """A connection to ``url`` (``ws://`` or ``wss://``) whose opening handshake succeeded."""
    uri = parse_uri(url)
    loop = asyncio.get_running_loop()
    socket: LeanSocket | None = None

    def made() -> LeanSocket:
        nonlocal socket
        socket = LeanSocket(url)
        return socket

    async def opening() -> LeanSocket:
        await loop.create_connection(made, uri.host, uri.port, ssl=True if uri.secure else None)
        assert socket is not None
        await socket.opened
        return socket

    try:
        return await asyncio.wait_for(opening(), open_timeout)
    except BaseException:
        if socket is not None:
            socket.abort()
        raise
