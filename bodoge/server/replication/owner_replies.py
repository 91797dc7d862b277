"""The replies to the table commands a table's owner ran, so that a retry is answered, not
run twice, whichever process the client reached (cluster mode).

A client that lost its connection sends its unacknowledged requests again, with the same
``id``, on a new connection that the load balancer may put on any process. Every command of
a table runs on the one process that owns the table, whichever process the client is
connected to (``forwarding.py``): the owner remembers the commands it ran, in memory, and
answers a retry with the first reply (or waits for it while the first is still running).
A move costs no Redis round trip before it runs.

Only a process that dies takes its memory with it: each reply is also written to Redis,
without waiting, with the others of the last 50 ms in one round trip (the key of
``bodoge/cluster/shared.py``'s remembered replies), and a process running a table that
another claim ran before (its epoch is not the first) reads that note before running a
request it has not seen. Requests that no table runs (``rename``, ``table.create``) are
noted in Redis by the connection's process before they run
(``bodoge/server/services/replies.py``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Protocol

import orjson

from bodoge.cluster.shared import SharedUnavailable
from bodoge.core.errors import GameError
from bodoge.core.values import JSON
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.runtime.table import Reply

if TYPE_CHECKING:
    from bodoge.cluster.service import ClusterService

log = logging.getLogger(__name__)

#: A table's first claim: nobody ran a command of it before this process.
FIRST_EPOCH = 1

#: Seconds the replies to note in Redis gather before they go together.
WRITE_EVERY = 0.05


class Remembered(Protocol):
    """Replies by player and request id, in this process's memory (the wiring gives a
    ``bodoge.server.services.replies.RecentReplies`` of its own, never shared)."""

    seconds: float

    def begin(
        self, player_id: str, request: Mapping[str, JSON]
    ) -> tuple[asyncio.Future[dict[str, JSON]], bool]: ...

    def forget(self, player_id: str, request_id: JSON, reply: dict[str, JSON]) -> None: ...


class Retries(Protocol):
    """What the services say of retries: which replies a retry gets again, how long it waits
    for a first request still being handled (``bodoge.server.services.replies``)."""

    wait_seconds: float

    def kept(self, reply: Mapping[str, JSON]) -> bool: ...


class OwnerReplies:
    """The owner's end of answering retries (see the module's docstring)."""

    def __init__(
        self,
        cluster: ClusterService,
        refusal: Callable[[JSON], Exception],
        recent: Remembered,
        retries: Retries,
    ) -> None:
        self.cluster = cluster
        #: Turns a remembered error reply back into the exception the first run raised.
        self.refusal = refusal
        self.recent = recent
        self.retries = retries
        #: Replies to note in Redis, and the task noting them (see :meth:`_write`).
        self._unwritten: list[tuple[str, str, dict[str, JSON]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def run(
        self,
        table_id: str,
        player_id: str,
        request: Mapping[str, JSON] | None,
        work: Callable[[Reply], Awaitable[None]],
        reply: Reply,
    ) -> None:
        """``work(reply)``, unless ``request`` ran here (or under the table's earlier claim)
        already: then its first reply (or error) again."""
        if request is None or "id" not in request:
            await work(reply)
            return
        request_id = orjson.dumps(request["id"]).decode()
        future, new = self.recent.begin(player_id, request)
        if not new:
            try:
                first = await asyncio.wait_for(asyncio.shield(future), self.retries.wait_seconds)
            except TimeoutError:
                raise ProtocolError("internal_error", "still working on it; try again") from None
            self._answer(first, reply)
            return
        text = orjson.dumps(request, option=orjson.OPT_SORT_KEYS).decode()
        epoch = self.cluster.ownership.held.get(table_id)
        if epoch is None or epoch > FIRST_EPOCH:
            earlier = await self._earlier(player_id, request_id, text)
            if earlier is not None:
                future.set_result(earlier)
                self._answer(earlier, reply)
                return
        replies: list[dict[str, JSON]] = []

        def keep(message: dict[str, JSON]) -> None:
            replies.append(message)
            reply(message)

        try:
            await work(keep)
        except (ProtocolError, GameError) as exc:
            self._settle(player_id, request["id"], text, future, _error(exc))
            raise
        except BaseException:
            self._settle(player_id, request["id"], text, future, None)
            raise
        self._settle(player_id, request["id"], text, future, replies[-1] if replies else None)

    def _answer(self, first: dict[str, JSON], reply: Reply) -> None:
        if first.get("type") == "error":
            raise self.refusal(first)
        reply(first)

    async def _earlier(self, player_id: str, request_id: str, text: str) -> dict[str, JSON] | None:
        """The reply an earlier owner of the table gave ``text``, as it noted it."""
        try:
            note = await self.cluster.shared.read(player_id, request_id)
        except SharedUnavailable:
            return None  # Redis away: run it; a move made already is refused then
        if note is None or note.get("request") != text:
            return None
        earlier = note.get("reply")
        return earlier if isinstance(earlier, dict) else None

    def _settle(
        self,
        player_id: str,
        request_id: JSON,
        text: str,
        future: asyncio.Future[dict[str, JSON]],
        final: dict[str, JSON] | None,
    ) -> None:
        """Keep ``final`` for a retry (here, and in Redis for a later owner), unless the
        request is worth running again (no reply, a transient refusal)."""
        if final is None or not self.retries.kept(final):
            self.recent.forget(
                player_id,
                request_id,
                final or {"type": "error", "code": "internal_error", "message": "try again"},
            )
            return
        future.set_result(final)
        note: dict[str, JSON] = {"request": text, "process": self.cluster.process, "reply": final}
        self._unwritten.append((player_id, orjson.dumps(request_id).decode(), note))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        """The replies noted meanwhile, in one round trip: only a retry after this process
        died reads them, so a moment's wait costs nothing and saves a command a move."""
        while self._unwritten:
            await asyncio.sleep(WRITE_EVERY)
            notes, self._unwritten = self._unwritten, []
            try:
                await self.cluster.shared.write_many(notes, self.recent.seconds)
            except SharedUnavailable as exc:  # a later owner runs such a retry again
                log.debug("noting %d replies failed: %s", len(notes), exc)


def _error(exc: ProtocolError | GameError) -> dict[str, JSON]:
    return {"type": "error", "code": exc.code, "message": str(exc)}
