"""The cluster's :class:`~bodoge.server.runtime.reach.Reach`: in a cluster one process owns
each live table (``bodoge/cluster/ownership.py``) and is the only one that changes it; any
other process still serves any player of it.

* a command reaches the owner through :class:`~.forwarding.Forwarder`;
* the owner publishes each change (:class:`~.publishing.TablePublisher`) to the other
  processes' mirrors (:class:`~.mirrors.Mirrors`, :class:`~.mirror.Mirror`);
* a table is claimed when it is made or loaded, let go of when it leaves memory;
* a new table is placed on the least loaded process (:class:`~.placement.Placement`);
* the owner's end of all this is :class:`~.owner.OwnerEnd`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import TYPE_CHECKING

from bodoge.core.game import Seat
from bodoge.core.values import JSON
from bodoge.server.replication.forwarding import Forwarder, refusal
from bodoge.server.replication.mirror import Mirror
from bodoge.server.replication.mirrors import Mirrors
from bodoge.server.replication.owner import OwnerEnd
from bodoge.server.replication.owner_replies import OwnerReplies, Remembered, Retries
from bodoge.server.replication.placement import Placement
from bodoge.server.replication.publishing import TablePublisher
from bodoge.server.runtime import commands
from bodoge.server.runtime.chat import ChatLine
from bodoge.server.runtime.fanout import Subscriber
from bodoge.server.runtime.players import Player
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.runtime.reach import OwnedElsewhere, Watched
from bodoge.server.runtime.shown import ShownTable
from bodoge.server.runtime.table import LiveTable, Reply
from bodoge.store import MoveRecord, SeatRecord, TableBundle, TableRecord

if TYPE_CHECKING:
    from bodoge.cluster.service import ClusterService
    from bodoge.server.runtime.tables import Tables


class ClusterReach:
    """One process of a cluster: it runs the tables it owns, mirrors the others'."""

    def __init__(
        self, tables: Tables, cluster: ClusterService, recent: Remembered, retries: Retries
    ) -> None:
        self.tables = tables
        self.cluster = cluster
        self.publisher = TablePublisher(cluster)
        self.mirrors = Mirrors(tables, cluster)
        self.replies = OwnerReplies(cluster, refusal, recent, retries)
        self.forwarder = Forwarder(tables, cluster, self.mirrors, self.replies)
        self.mirrors.ask_owner = self.forwarder.ask_owner
        self.owner = OwnerEnd(tables, cluster, self.publisher, self.replies)
        self.placement = Placement(tables, cluster)
        # The mirrors answer a new owner's first publication at once; a lease leaves room
        # for a retry or two.
        self.presence_grace = cluster.ownership.lease

    async def start(self) -> None:
        self.owner.start()
        self.cluster.bus.add_reconnect_hook(self.mirrors.reconnected)

    # --- commands from connections here ------------------------------------------------

    #: A retried table command is answered by its table's owner (``owner_replies.py``).
    replies_at_owner = True

    async def command(
        self,
        command: commands.TableCommand,
        player: Player,
        reply: Reply,
        request: Mapping[str, JSON] | None = None,
    ) -> None:
        await self.forwarder.command(command, player, reply, request)

    async def rematch(
        self, table_id: str, player: Player, gone: str | None
    ) -> tuple[str, Seat, bool]:
        return await self.forwarder.rematch(table_id, player, gone)

    async def open(
        self,
        table_id: str,
        sub: Subscriber,
        player_id: str,
        since: int | None,
        chat_since: int | None,
        reply: Reply,
    ) -> None:
        if table_id not in self.tables.live and self.mirrors.get(table_id):
            # A mirror here already follows the table.
            await self.mirrors.call(
                table_id, None, Mirror.open, sub, player_id, since, chat_since, reply
            )
            return
        try:
            await self.tables.call(
                table_id, LiveTable.open, sub, player_id, since, chat_since, reply
            )
        except OwnedElsewhere as elsewhere:  # watched through a mirror here
            await self.mirrors.call(
                table_id, elsewhere.owner, Mirror.open, sub, player_id, since, chat_since, reply
            )

    def watched(self, table_id: str) -> Watched | None:
        live = self.tables.live.get(table_id)
        return live if live is not None else self.mirrors.get(table_id)

    async def assist_view(
        self, table_id: str, player_id: str
    ) -> tuple[str, int, Seat, dict[str, JSON]]:
        try:
            n, seat, view = await self.tables.call(table_id, LiveTable.view_for_assist, player_id)
            return (await self.tables.get(table_id)).game.id, n, seat, view
        except OwnedElsewhere as elsewhere:  # the mirror here knows the view
            n, seat, view = await self.mirrors.call(
                table_id, elsewhere.owner, Mirror.view_for_assist, player_id
            )
            mirror = await self.mirrors.mirror(table_id, elsewhere.owner)
            return mirror.game.id, n, seat, view

    async def peek(self, table_id: str) -> ShownTable:
        """Live here, its mirror, or as the store has it: a table another process runs is
        read from the store (its history and seats are the owner's; who is connected not)."""
        try:
            return await self.tables.get(table_id)
        except OwnedElsewhere:
            mirror = self.mirrors.get(table_id)
            if mirror is not None:
                return mirror
            bundle = await self.tables.load(table_id)
            if bundle is None:
                raise ProtocolError("unknown_table", "no such table") from None
            return ShownTable.restore(self.tables, self.tables.games[bundle.table.game], bundle)

    # --- running tables here: claimed first ------------------------------------------------

    async def load_to_run(
        self, table_id: str, load: Callable[[], Awaitable[TableBundle | None]]
    ) -> TableBundle | None:
        bundle = await load()
        if bundle is None or table_id in self.tables.live:
            return bundle
        if not await self.cluster.claim(table_id):
            owner = await self.cluster.ownership.owner_of(table_id)
            raise OwnedElsewhere(table_id, owner)
        if table_id in self.tables.live:
            return bundle
        # Claimed after the load: what the previous owner wrote meanwhile is read again.
        return await load()

    async def claim_many(self, bundles: list[TableBundle]) -> list[TableBundle]:
        """Only those no other live process runs."""
        mine = await self.cluster.claim_many([b.table.id for b in bundles])
        live = self.tables.live
        return [b for b in bundles if b.table.id in mine and b.table.id not in live]

    async def insert(self, record: TableRecord, seats: Collection[SeatRecord]) -> None:
        """Store a new table and claim it (its insert passes the fence)."""
        with self.cluster.creating(record.id):
            await self.tables.store.create_table(record, list(seats))
            if not await self.cluster.claim(record.id):
                raise ProtocolError("internal_error", "the new table could not be claimed")

    async def place(self, record: TableRecord, seats: list[SeatRecord], player: Player) -> None:
        await self.placement.place(record, seats, player)

    async def hosted_waiting(self, player_id: str) -> int:
        """Waiting tables run anywhere in the cluster: the store knows them all."""
        return await self.tables.store.waiting_tables_hosted(player_id)

    def started(self, table: LiveTable) -> None:
        if self.mirrors.get(table.id) is not None:  # its connections watch it directly now
            self.tables.spawn(self.mirrors.promote(table))

    def released(self, table: LiveTable) -> None:
        # The claim it ran under, not one made since.
        epoch = self.cluster.ownership.held.get(table.id)
        if epoch is not None:
            self.tables.spawn(self.cluster.release(table.id, epoch))

    async def close(self) -> None:
        await self.mirrors.close()

    # --- publishing ---------------------------------------------------------------------------

    def moved(self, table: LiveTable, record: MoveRecord) -> None:
        self.publisher.moved(table, record)

    def chatted(self, table: LiveTable, line: ChatLine) -> None:
        self.publisher.chatted(table, line)

    def facts_changed(self, table: LiveTable, *, notify: bool) -> None:
        self.publisher.facts_changed(table, notify=notify)

    def removed(self, table: LiveTable) -> None:
        self.publisher.removed(table)
