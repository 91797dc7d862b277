"""The bench's WebSocket client: one seat's connection, its requests, and what it knows."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from bodoge.bench.lean_socket import LeanSocket, connect
from bodoge.core.values import JSON
from bodoge.server.runtime.viewdiff import apply

#: What an ``event`` frame may leave out when unchanged, and a ``table`` snapshot always has.
FACTS = ("to_act", "may_act", "deadlines", "clock", "result")


@dataclass
class Stats:
    moves: int = 0
    games: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)
    clients: int = 0
    #: How late the client process's own event loop ran (its share of the latencies).
    lags: list[float] = field(default_factory=list)
    #: Its stalls and whose they were (``LoopWatch.to_json``: its own work or no CPU).
    loop: dict[str, JSON] = field(default_factory=dict)
    #: Bytes of each ``event`` frame received while measuring.
    event_bytes: list[int] = field(default_factory=list)
    #: Event frames carrying a ``patch`` (the others carry the whole ``view``).
    patches: int = 0
    #: Every acknowledged move of the run, measured or not: (table, n, seat, when acknowledged
    #: on ``time.monotonic()``, the same clock in every process of the machine).
    acked: list[tuple[str, int, int, float]] = field(default_factory=list)
    #: The errors by kind (``"move: table_unavailable"``, ``"move: connection lost"`` …).
    kinds: dict[str, int] = field(default_factory=dict)
    #: Connections that dropped and came back (through the load balancer, same token).
    reconnects: int = 0
    #: Tables whose clients gave their game up (a request of the setting up failed).
    abandoned: list[str] = field(default_factory=list)

    def error(self, kind: str) -> None:
        self.errors += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1


class Lost(ConnectionError):
    """The connection dropped before the reply came (the request may have been carried out)."""


class Refused(RuntimeError):
    """The server answered ``error``: ``code`` says why."""

    def __init__(self, type: str, code: str, message: str) -> None:
        super().__init__(f"{type}: {code} {message}")
        self.code = code


class Seat:
    """One WebSocket client: replies by id, state messages (and their size) to a callback.

    Frames come from the connection's protocol (:class:`LeanSocket`) one call each, with no
    task or queue between.  When the connection drops (its server process was killed) every
    pending request fails with :class:`Lost`, and the seat connects again to the same URL —
    through the load balancer, to whichever process it picks — with the player's token, and
    calls ``on_back`` (which reopens the table from its last event).
    """

    def __init__(self, ws: LeanSocket, url: str, stats: Stats, name: str) -> None:
        self.ws = ws
        self.url = url
        self.name = name
        self.stats = stats
        self.token: str | None = None
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, JSON]]] = {}
        self.on_state: Callable[[dict[str, JSON], int], None] = lambda m, size: None
        self.on_back: Callable[[], Any] | None = None
        self.closing = False
        self.back = asyncio.Event()
        self.back.set()
        ws.deliver(self._frame, self._lost)
        self.reader = asyncio.create_task(self._run())

    def _frame(self, frame: bytes) -> None:
        try:
            message = orjson.loads(frame)
            future = self.waiting.pop(message.get("id"), None)
            if future is not None:
                if not future.done():
                    future.set_result(message)
            elif message["type"] in ("event", "table"):
                self.on_state(message, len(frame))
        except Exception as exc:
            # A frame this client cannot follow: counted, and the connection started afresh.
            self.stats.error(f"frame: {exc.__class__.__name__}")
            self.ws.abort()

    def _lost(self) -> None:
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(Lost("connection lost"))
        self.waiting.clear()

    async def _run(self) -> None:
        while True:
            await self.ws.closed.wait()
            if self.closing or self.token is None:
                return
            self.back.clear()
            await self._reconnect()
            self.back.set()
            if self.on_back is not None:
                asyncio.get_running_loop().create_task(self.on_back())

    async def _reconnect(self) -> None:
        while not self.closing:
            try:
                self.ws = await connect(self.url, open_timeout=10)
            except Exception:
                await asyncio.sleep(0.2)  # no process behind the balancer answered yet
                continue
            self.ws.deliver(self._frame, self._lost)
            hello = {"type": "hello", "id": 0, "token": self.token, "name": self.name}
            future: asyncio.Future[dict[str, JSON]] = asyncio.get_running_loop().create_future()
            self.waiting[0] = future
            try:
                self.ws.send(orjson.dumps(hello))
                await asyncio.wait_for(future, 10)
            except Exception:
                self.waiting.pop(0, None)
                self.ws.abort()
                await asyncio.sleep(0.2)
                continue
            self.stats.reconnects += 1
            return

    async def request(self, type: str, timeout: float = 60, **fields: JSON) -> dict[str, JSON]:
        await self.back.wait()
        rid = next(self.ids)
        future: asyncio.Future[dict[str, JSON]] = asyncio.get_running_loop().create_future()
        self.waiting[rid] = future
        try:
            self.ws.send(orjson.dumps({"type": type, "id": rid, **fields}))
        except Exception as exc:
            self.waiting.pop(rid, None)
            raise Lost("connection lost") from exc
        try:
            reply = await asyncio.wait_for(future, timeout)
        finally:
            self.waiting.pop(rid, None)  # no reply in time: forgotten
        if reply["type"] == "error":
            raise Refused(type, str(reply["code"]), str(reply["message"]))
        return reply

    async def close(self) -> None:
        self.closing = True
        with contextlib.suppress(Exception):
            await self.ws.close()


async def open_seat(url: str, name: str, stats: Stats) -> Seat:
    """A new guest ``name`` connected to ``url``, said hello to, with its token."""
    seat = Seat(await connect(url, open_timeout=120), url, stats, name)
    welcome = await seat.request("hello", token=None, name=name)
    seat.token = str(welcome["token"])
    return seat


def settle_heap(then: Callable[[], None]) -> None:
    """Freeze what a client process holds for good, then ``then()``.

    A client process holds thousands of sockets: a full collector pass over them stalled
    its loop for 300-500 ms several times a window, and every move it received meanwhile
    looked late (2.5 s of its stalls in a 30 s window at 2,000 tables, all the collector's).
    Frozen, they are walked by no pass: the bench measures the server, not its clients.
    Only in a client process, where nothing frozen is ever let go before it exits; and there
    no full pass either (young ones free a move's garbage), as a client lives a minute.
    """
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 1_000_000)
    then()


def error_kind(type: str, exc: BaseException) -> str:
    """How an error of a request shows in the report.

    >>> error_kind("move", Refused("move", "table_unavailable", "…"))
    'move: table_unavailable'
    >>> error_kind("move", Lost("connection lost")), error_kind("move", TimeoutError())
    ('move: connection lost', 'move: no reply in time')
    """
    if isinstance(exc, Refused):
        return f"{type}: {exc.code}"
    if isinstance(exc, Lost):
        return f"{type}: connection lost"
    if isinstance(exc, TimeoutError):
        return f"{type}: no reply in time"
    return f"{type}: {exc.__class__.__name__}"


class Known:
    """What one seat knows of its table: the view and the facts, kept up by each frame.

    A ``table`` snapshot sets everything.  An ``event`` frame either carries the whole
    ``view`` or a ``patch`` against the previous one (JSON Patch ops, some naming one of
    the frame's ``events`` as their value), and only the facts that changed.

    >>> known = Known()
    >>> known.update({"type": "table", "view": {"turn": 0}, "to_act": [0], "may_act": True,
    ...               "deadlines": [None], "clock": None, "result": None})
    >>> known.update({"type": "event", "events": [{"type": "pass"}], "to_act": [1],
    ...               "patch": [{"op": "replace", "path": "/turn", "value": 1}]})
    >>> known.view, known.facts["to_act"], known.facts["may_act"]
    ({'turn': 1}, [1], True)
    """

    def __init__(self) -> None:
        self.view: JSON = None
        self.facts: dict[str, JSON] = dict.fromkeys(FACTS)
        #: The number of the last move this seat has seen (``None``: nothing yet).
        self.n: int | None = None

    def update(self, message: dict[str, JSON]) -> None:
        n = message.get("n")
        self.n = n if isinstance(n, int) else self.n
        if message["type"] == "table":
            self.view = message.get("view")
            self.facts = {key: message.get(key) for key in FACTS}
            return
        if "view" in message:
            self.view = message["view"]
        elif "patch" in message:
            self.view = apply(self.view, message["patch"], message.get("events", ()))
        for key in FACTS:
            if key in message:
                self.facts[key] = message[key]
