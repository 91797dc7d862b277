"""A server process's membership of a cluster: its bus, its lease and the tables it owns.

:class:`ClusterService` joins the pieces of :mod:`bodoge.cluster` for one ``bodoge serve
--redis`` process and knows nothing of tables beyond their ids: the server gives it
callbacks for tables it lost (another process claimed them) and tables it took over (their
owner died), and asks it to claim, release and fence.

* **Start:** the store gets the ownership columns (:func:`~bodoge.cluster.ownership.prepare`),
  the bus connects to Redis, the process takes its lease and starts renewing it and scanning
  for orphans; it listens on ``{ns}:cluster`` for processes that leave.
* **Fencing:** the service is the store writer's fence (``SqlStore.fence``, the protocol
  :class:`~bodoge.store.writes.Fence`): the writes of a table this process does not hold at
  the epoch it claimed fail with :class:`~bodoge.cluster.ownership.Fenced`, and such tables
  are let go (``on_lost``). A group of moves to held tables carries the epochs of their
  claims (:meth:`claims`) and each move's statement checks its own; any other group runs
  :meth:`refused` inside its transaction first. A table being created is not claimed yet:
  its first write (the insert) passes by :meth:`creating`.
* **Stop:** the lease row is deleted and the leaving announced on ``{ns}:cluster``, so the
  other processes claim its running tables at once rather than when the lease would run out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection, Iterator
from typing import Any

import orjson
from sqlalchemy.ext.asyncio import AsyncEngine

from bodoge.cluster.bus import Bus, BusError
from bodoge.cluster.namespace import Namespace
from bodoge.cluster.ownership import (
    LEASE,
    ClaimsCallback,
    Ownership,
    ProcessesCallback,
    TablesCallback,
    fenced,
    prepare,
)
from bodoge.cluster.shared import Shared
from bodoge.cluster.tasks import cancel_and_wait

log = logging.getLogger(__name__)


class ClusterService:
    """One process's end of the cluster (see the module's docstring)."""

    def __init__(
        self,
        engine: AsyncEngine,
        redis_url: str,
        namespace: Namespace,
        process: str,
        *,
        address: str = "",
        lease: float = LEASE,
        on_lost: TablesCallback | None = None,
        on_orphans: ClaimsCallback | None = None,
        on_departed: ProcessesCallback | None = None,
    ) -> None:
        self.engine = engine
        self.namespace = namespace
        self.process = process
        self.bus = Bus(redis_url, namespace, process)
        #: Rates and remembered replies, the cluster's (``bodoge/cluster/shared.py``).
        self.shared = Shared(redis_url, namespace)
        self.ownership = Ownership(
            engine,
            process,
            address=address,
            lease=lease,
            on_lost=on_lost,
            on_orphans=on_orphans,
            on_departed=on_departed,
        )
        #: Tables being created here: their insert passes the fence before they are claimed.
        self._creating: set[str] = set()
        self._started = False
        #: Publications waiting to leave, in order (see :meth:`publish_soon`).
        self._outgoing: asyncio.Queue[tuple[str, bytes, Callable[[int], None] | None]] = (
            asyncio.Queue()
        )
        self._publisher: asyncio.Task[None] | None = None
        #: Publications dropped because Redis was away (their readers catch up).
        self.dropped = 0
        #: Hears of a player renamed on another process (player id, new name).
        self.on_renamed: Callable[[str, str], None] | None = None
        #: Hears of tokens ended on another process (player id, token hashes; ``None``: all).
        self.on_signed_out: Callable[[str, set[str] | None], None] | None = None

    async def start(self) -> None:
        """Prepare the store, connect to Redis, take the lease (raises if either is missing)."""
        await prepare(self.engine)
        await self.bus.start()
        try:
            await self.bus.subscribe(self.namespace.cluster, self._on_cluster)
            await self.ownership.join()
        except BaseException:
            await self.bus.close()
            raise
        self._publisher = asyncio.create_task(self._publish_loop(), name="cluster-publisher")
        self._started = True

    def publish_soon(
        self,
        channel: str,
        message: dict[str, Any],
        heard: Callable[[int], None] | None = None,
    ) -> None:
        """Publish ``message`` on ``channel`` without waiting; publications leave in order.

        A table's task calls this after each commit: it never waits for Redis. While Redis
        is away publications are dropped: whoever reads the channel catches up from the
        database when its bus reconnects (or when it sees the gap in the numbers).
        ``heard`` is told how many subscriber connections got it, once Redis has said.
        """
        if not self.bus.connected:
            self.dropped += 1
            return
        self._outgoing.put_nowait((channel, orjson.dumps(message), heard))

    async def _publish_loop(self) -> None:
        while True:
            channel, data, heard = await self._outgoing.get()
            try:
                receivers = await self.bus.publish(channel, data)
            except BusError:
                self.dropped += 1
                continue
            if heard is not None:
                heard(receivers)

    async def stop(self) -> None:
        """Leave: the lease row goes, the others hear it and claim this process's tables."""
        if not self._started:
            return
        self._started = False
        if self._publisher is not None:
            await cancel_and_wait([self._publisher])
        try:
            handed = await self.ownership.leave()
        except Exception:  # the database is away: the lease simply runs out
            log.exception("process %s could not end its lease", self.process)
            await self.ownership.stop()
            handed = set()
        with contextlib.suppress(BusError):
            await self.bus.publish(
                self.namespace.cluster,
                {"kind": "left", "process": self.process, "tables": sorted(handed)},
            )
        await self.bus.close()
        with contextlib.suppress(Exception):
            await self.shared.close()

    async def _on_cluster(self, data: bytes) -> None:
        message = orjson.loads(data)
        if message.get("process") == self.process:
            return
        if message.get("kind") == "left":
            self.ownership.wake()  # its tables are orphans now: look at once
        elif message.get("kind") == "renamed" and self.on_renamed is not None:
            self.on_renamed(str(message.get("player")), str(message.get("name")))
        elif message.get("kind") == "signed_out" and self.on_signed_out is not None:
            hashes = message.get("tokens")
            ended = None if hashes is None else {str(h) for h in hashes}
            self.on_signed_out(str(message.get("player")), ended)

    def signed_out(self, player_id: str, token_hashes: set[str] | None) -> None:
        """Tokens ended here (``None``: every token of the player): every process forgets
        them and closes their sockets, so a device signed out stays signed out whichever
        process it is connected to."""
        tokens = None if token_hashes is None else sorted(token_hashes)
        self.publish_soon(
            self.namespace.cluster,
            {"kind": "signed_out", "process": self.process, "player": player_id, "tokens": tokens},
        )

    def renamed(self, player_id: str, name: str) -> None:
        """A player renamed themselves here: every other process shows the new name."""
        self.publish_soon(
            self.namespace.cluster,
            {"kind": "renamed", "process": self.process, "player": player_id, "name": name},
        )

    # --- tables --------------------------------------------------------------------------

    @contextlib.contextmanager
    def creating(self, table_id: str) -> Iterator[None]:
        """While a new table is inserted and claimed, its writes pass the fence."""
        self._creating.add(table_id)
        try:
            yield
        finally:
            self._creating.discard(table_id)

    async def alive(self, process: str) -> bool:
        """Whether ``process`` is in the cluster (its lease is running)."""
        return process in await self.ownership.live_processes()

    def holds(self, table_id: str) -> bool:
        return self.ownership.epoch(table_id) is not None

    async def claim(self, table_id: str) -> bool:
        """Claim ``table_id`` if no live process holds it; whether this process holds it now."""
        return await self.ownership.claim(table_id) is not None

    async def claim_many(self, table_ids: Collection[str]) -> set[str]:
        """Claim those of ``table_ids`` no live process holds; the ones this process holds now."""
        return set(await self.ownership.claim_many(table_ids))

    async def release(self, table_id: str, epoch: int | None = None) -> None:
        """The table left memory: dormant until someone needs it (a failure is only logged).

        ``epoch``: the claim the table was run under (a later claim here is kept)."""
        try:
            await self.ownership.release(table_id, epoch)
        except Exception as exc:  # it stays ours in the database; the next claim moves the epoch
            log.warning("process %s could not release %s: %s", self.process, table_id, exc)

    # --- the store writer's fence (bodoge.store.writes.Fence) ---------------------------

    def claims(self, table_ids: Collection[str]) -> dict[str, int] | None:
        """The epoch of this process's claim on each of ``table_ids``, if it holds them all."""
        held = self.ownership.held
        try:
            return {t: held[t] for t in table_ids}
        except KeyError:
            return None

    async def refused(self, conn: Any, table_ids: Collection[str]) -> set[str]:
        """Of the tables a group commit writes, those this process may not write (see above).

        ``conn`` is the writer's connection inside the group's transaction.
        """
        held = self.ownership.held
        epochs = {t: held[t] for t in table_ids if t in held}
        refused = {t for t in table_ids if t not in held and t not in self._creating}
        lost = await fenced(conn, self.process, epochs)
        await self.lost(lost)
        if refused and self.ownership.on_lost is not None:
            # Run here but not held (released meanwhile): let them go, so that whoever needs
            # one next claims it and loads it again, rather than every write failing.
            log.warning("process %s does not hold %s", self.process, ", ".join(sorted(refused)))
            await self.ownership.on_lost(refused)
        return refused | lost

    async def lost(self, table_ids: Collection[str]) -> None:
        """Writes found ``table_ids`` claimed by another process since: let them go."""
        if table_ids:
            log.warning("process %s no longer owns %s", self.process, ", ".join(sorted(table_ids)))
            await self.ownership.forget(table_ids)

    # --- health and metrics ----------------------------------------------------------------

    async def ping_redis(self) -> None:
        await self.bus.ping()

    @property
    def takeovers(self) -> int:
        return self.ownership.takeovers

    @property
    def redis_reconnects(self) -> int:
        return self.bus.reconnects

    @property
    def database_reconnects(self) -> int:
        return self.ownership.database_reconnects
