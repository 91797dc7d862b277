"""A player's recent replies, so that a retried request is answered, not run twice.

A client that loses its connection cannot know whether its last request was
carried out.  It sends the same request again, with the same ``id``, on its
new connection: the server recognises it and sends the first reply again,
changing nothing.  Only requests that change something are remembered (see
:data:`REMEMBERED`); a request is "the same" when its type, fields and id all
are, so a client that numbers its requests from 1 on every connection is not
mistaken for one that retries.

>>> import asyncio
>>> async def demo():
...     recent = RecentReplies()
...     chat = {"type": "chat", "id": 7, "table": "t_ab12", "text": "hi"}
...     first, new = recent.begin("p_1", chat)
...     first.set_result({"type": "ack", "id": 7, "line": 1})
...     again, new_again = recent.begin("p_1", chat)
...     return new, new_again, again.result()["line"]
>>> asyncio.run(demo())
(True, False, 1)
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any, Protocol

import orjson

from bodoge.core.values import JSON
from bodoge.server.runtime.protocol import ProtocolError

log = logging.getLogger(__name__)

#: Refusals a retry of the same request may not get again: they tell of the server's state at
#: that moment (it failed, the store or the table's process was away, the client went too
#: fast), not of the request, so the same request may succeed later and is run again.
RETRY_CODES = frozenset(
    {
        "internal_error",
        "store_unavailable",
        "table_unavailable",
        "rate_limited",
        "table_rate_limited",
    }
)


def kept_for_retry(reply: Mapping[str, JSON]) -> bool:
    """Whether a retry of the request gets ``reply`` again (else the retry runs anew).

    >>> kept_for_retry({"type": "ack", "id": 3})
    True
    >>> kept_for_retry({"type": "error", "id": 3, "code": "not_your_turn"})
    True
    >>> kept_for_retry({"type": "error", "id": 3, "code": "table_unavailable"})
    False
    """
    return reply.get("code") not in RETRY_CODES


#: How long a retry waits for the first request's reply when that is still being handled.
RETRY_WAIT_SECONDS = 30.0


class Retries:
    """:func:`kept_for_retry` and :data:`RETRY_WAIT_SECONDS`, for a table's owner in a cluster
    (``bodoge/server/replication/owner_replies.py``)."""

    wait_seconds = RETRY_WAIT_SECONDS

    def kept(self, reply: Mapping[str, JSON]) -> bool:
        return kept_for_retry(reply)


#: Requests that change something; reading ones (``table.open``, ``assist``…) are simply run again.
REMEMBERED = frozenset(
    {
        "rename",
        "table.create",
        "table.join",
        "table.leave",
        "table.add_bot",
        "table.remove_bot",
        "table.remove_player",
        "table.start",
        "move",
        "chat",
    }
)


#: A remembered request: the hash of its text, its reply (the future while it is being
#: handled, then the reply as JSON text) and when it came.  A server remembers tens of
#: thousands of these; once answered an entry is a plain tuple of a number, a string and a
#: number, which the collector stops tracking: no pass walks it nor freezes it.  The request
#: is kept as its hash, not its text (a move's text is 150 bytes or more): two different
#: requests of one player under one id would have to share a 64-bit hash to be mistaken for
#: each other.
_Entry = tuple[int, "asyncio.Future[dict[str, JSON]] | str", float]

#: A remembered request's key: the player, and the request's id as the client sent it (a
#: string or an integer, which never equal each other).
_Key = tuple[str, "str | int"]


class Notes(Protocol):
    """The cluster's remembered requests (``bodoge/cluster/shared.py``)."""

    async def note(
        self, player_id: str, request_id: str, note: dict[str, JSON], seconds: float
    ) -> dict[str, JSON] | None: ...

    async def write(
        self, player_id: str, request_id: str, note: dict[str, JSON], seconds: float
    ) -> None: ...

    async def forget(self, player_id: str, request_id: str) -> None: ...


class RecentReplies:
    """Replies by (player, request id), kept for ``seconds`` and at most ``size`` in all.

    In a cluster (:meth:`share`) every request is also noted where every process finds it
    (:meth:`start`), so a retry that reaches another process is answered there too.
    """

    def __init__(self, seconds: float = 600.0, size: int = 50_000) -> None:
        self.seconds = seconds
        self.size = size
        self._entries: OrderedDict[_Key, _Entry] = OrderedDict()
        #: When the oldest entry is due to go (``time.monotonic()``); none is before.
        self._due = 0.0
        self._shared: Notes | None = None
        self._process = ""
        self._alive: Callable[[str], Awaitable[bool]] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def share(self, notes: Notes, process: str, alive: Callable[[str], Awaitable[bool]]) -> None:
        """Cluster: note requests in ``notes`` too; ``alive`` says whether a process lives."""
        self._shared, self._process, self._alive = notes, process, alive

    async def start(
        self, player_id: str, request: Mapping[str, JSON]
    ) -> tuple[asyncio.Future[dict[str, JSON]], bool]:
        """:meth:`begin`, across the cluster's processes when it has several.

        A request another process noted is not new here: its reply is the one given there,
        waited for (up to :data:`RETRY_WAIT_SECONDS`) while that process is still at it. A
        request whose process died before replying is run again here.
        """
        future, new = self.begin(player_id, request)
        shared = self._shared
        if not new or shared is None:
            return future, new
        request_id = orjson.dumps(request["id"]).decode()
        text = orjson.dumps(request, option=orjson.OPT_SORT_KEYS).decode()
        note: dict[str, JSON] = {"request": text, "process": self._process}
        try:
            reply = await self._noted(shared, player_id, request_id, note)
        except ProtocolError as exc:
            # Not answered here: a retry here asks the cluster again.
            self.forget(player_id, request["id"], {"type": "error", "code": exc.code})
            raise
        except Exception as exc:  # Redis away: this process remembers alone meanwhile
            log.debug(
                "noting request %s of %s across the cluster failed: %s", request_id, player_id, exc
            )
            return future, True
        if reply is not None:
            future.set_result(reply)
            return future, False
        future.add_done_callback(lambda done: self._settled(player_id, request_id, note, done))
        return future, True

    async def _noted(
        self, shared: Notes, player_id: str, request_id: str, note: dict[str, JSON]
    ) -> dict[str, JSON] | None:
        """Note the request across the cluster: ``None`` if it is to run here, else the
        reply it got elsewhere."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RETRY_WAIT_SECONDS
        while True:
            old = await shared.note(player_id, request_id, note, self.seconds)
            if old is None:
                return None
            reply = old.get("reply")
            if old.get("request") == note["request"] and isinstance(reply, dict):
                return reply
            holder = old.get("process")
            running = (
                old.get("request") == note["request"]
                and isinstance(holder, str)
                and holder != self._process
                and self._alive is not None
                and await self._alive(holder)
            )
            if not running:
                # Another request under this id (the client numbered anew), or its process
                # died before replying: it runs here.
                await shared.write(player_id, request_id, note, self.seconds)
                return None
            if loop.time() > deadline:
                raise ProtocolError("internal_error", "still working on it; try again")
            await asyncio.sleep(0.2)

    def _settled(
        self,
        player_id: str,
        request_id: str,
        note: dict[str, JSON],
        done: asyncio.Future[dict[str, JSON]],
    ) -> None:
        """The request here got its reply: every process answers a retry with it (or runs the
        retry, when the request failed in a way worth trying again)."""
        shared = self._shared
        if shared is None or done.cancelled():
            return
        reply = done.result()
        if not kept_for_retry(reply):
            work = shared.forget(player_id, request_id)
        else:
            work = shared.write(player_id, request_id, {**note, "reply": reply}, self.seconds)
        task = asyncio.get_running_loop().create_task(_quietly(work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def begin(
        self, player_id: str, request: Mapping[str, JSON]
    ) -> tuple[asyncio.Future[dict[str, JSON]], bool]:
        """The future reply to ``request``, and whether the request is new.

        The caller settles a new request's future with its reply, or calls
        :meth:`forget` when it failed in a way worth retrying.  A repeat gets the
        first request's future: done, or done once the first request is answered.
        """
        self._expire()
        key = _key(player_id, request["id"])
        same = hash(orjson.dumps(request, option=orjson.OPT_SORT_KEYS))
        entry = self._entries.get(key)
        loop = asyncio.get_running_loop()
        if entry is not None and entry[0] == same:
            reply = entry[1]
            if isinstance(reply, str):
                answered: asyncio.Future[dict[str, JSON]] = loop.create_future()
                answered.set_result(orjson.loads(reply))
                return answered, False
            return reply, False
        future: asyncio.Future[dict[str, JSON]] = loop.create_future()
        self._entries[key] = (same, future, time.monotonic())
        self._entries.move_to_end(key)
        future.add_done_callback(partial(self._answered, key))
        return future, True

    def _answered(self, key: _Key, future: asyncio.Future[dict[str, JSON]]) -> None:
        """Keep the reply as text, and let go of the future."""
        entry = self._entries.get(key)
        if entry is None or entry[1] is not future or future.cancelled():
            return
        # As text: orjson's bytes keep the whole buffer they were written in (4 KiB or so).
        self._entries[key] = (entry[0], orjson.dumps(future.result()).decode(), entry[2])

    def forget(self, player_id: str, request_id: JSON, reply: dict[str, JSON]) -> None:
        """Run the request again if it comes again; whoever waits for it now gets ``reply``."""
        entry = self._entries.pop(_key(player_id, request_id), None)
        pending = entry[1] if entry is not None else None
        if isinstance(pending, asyncio.Future) and not pending.done():
            pending.set_result(reply)

    def _expire(self) -> None:
        # Every request calls this: until the oldest entry is due (or the size is reached)
        # it is one comparison, not a look at the oldest entry.
        now = time.monotonic()
        if now < self._due and len(self._entries) < self.size:
            return
        oldest = now - self.seconds
        while self._entries:
            key, entry = next(iter(self._entries.items()))
            if entry[2] >= oldest and len(self._entries) < self.size:
                self._due = entry[2] + self.seconds
                return
            del self._entries[key]
        self._due = now + self.seconds  # nothing kept: what comes now is due after this

    def __len__(self) -> int:
        return len(self._entries)


def _key(player_id: str, request_id: JSON) -> _Key:
    """The key of a player's request under ``request_id`` (a string of up to 64 characters or
    a safe integer, as ``Request.parse`` lets through; anything else as its JSON text).

    >>> _key("p_1", 7) != _key("p_1", "7")
    True
    """
    if type(request_id) is str or type(request_id) is int:
        return (player_id, request_id)
    return (player_id, orjson.dumps(request_id).decode())


async def _quietly(work: Awaitable[None]) -> None:
    try:
        await work
    except Exception as exc:  # Redis away: a retry elsewhere runs the request again
        log.debug("sharing a reply failed: %s", exc)
