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
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

import orjson

from bodoge.core.values import JSON

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


@dataclass
class _Entry:
    request: str
    reply: asyncio.Future[dict[str, JSON]]
    at: float


class RecentReplies:
    """Replies by (player, request id), kept for ``seconds`` and at most ``size`` in all."""

    def __init__(self, seconds: float = 600.0, size: int = 50_000) -> None:
        self.seconds = seconds
        self.size = size
        self._entries: OrderedDict[tuple[str, str], _Entry] = OrderedDict()

    def begin(
        self, player_id: str, request: Mapping[str, JSON]
    ) -> tuple[asyncio.Future[dict[str, JSON]], bool]:
        """The future reply to ``request``, and whether the request is new.

        The caller settles a new request's future with its reply, or calls
        :meth:`forget` when it failed in a way worth retrying.  A repeat gets the
        first request's future: done, or done once the first request is answered.
        """
        self._expire()
        # As text: orjson's bytes keep the whole buffer they were written in (4 KiB or so),
        # and a server keeps tens of thousands of these.
        key = (player_id, orjson.dumps(request["id"]).decode())
        text = orjson.dumps(request, option=orjson.OPT_SORT_KEYS).decode()
        entry = self._entries.get(key)
        if entry is not None and entry.request == text:
            return entry.reply, False
        future: asyncio.Future[dict[str, JSON]] = asyncio.get_running_loop().create_future()
        self._entries[key] = _Entry(text, future, time.monotonic())
        self._entries.move_to_end(key)
        return future, True

    def forget(self, player_id: str, request_id: JSON, reply: dict[str, JSON]) -> None:
        """Run the request again if it comes again; whoever waits for it now gets ``reply``."""
        entry = self._entries.pop((player_id, orjson.dumps(request_id).decode()), None)
        if entry is not None and not entry.reply.done():
            entry.reply.set_result(reply)

    def _expire(self) -> None:
        oldest = time.monotonic() - self.seconds
        while self._entries:
            key, entry = next(iter(self._entries.items()))
            if entry.at >= oldest and len(self._entries) < self.size:
                break
            del self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)
