"""Where a table runs and how to reach it: the one interface that differs between a single
process and a cluster (as Colyseus's ``Presence`` / ``LocalPresence``).

The wiring picks one implementation at start-up: :class:`LocalReach` here (every table runs
in this process; nothing is published, nothing claimed) or the cluster's
(``bodoge.server.replication.cluster_reach.ClusterReach``: commands forwarded to the owner,
changes published to the other processes' mirrors, tables claimed and let go, new tables
placed on the least loaded process).  The rest of the runtime, the connection and the lobby
call it and never ask which one they hold.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import TYPE_CHECKING, Protocol

from bodoge.core.game import Seat
from bodoge.core.values import JSON
from bodoge.server.runtime import commands
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.runtime.table import LiveTable, Reply
from bodoge.store import SeatRecord, TableBundle, TableRecord

if TYPE_CHECKING:
    from bodoge.server.runtime.chat import ChatLine
    from bodoge.server.runtime.fanout import Subscriber
    from bodoge.server.runtime.players import Player
    from bodoge.server.runtime.shown import ShownTable
    from bodoge.server.runtime.tables import Tables
    from bodoge.store import MoveRecord


class OwnedElsewhere(ProtocolError):
    """Another live process runs the table (``owner``); ``table_unavailable`` to old callers."""

    def __init__(self, table_id: str, owner: str | None) -> None:
        super().__init__("table_unavailable", "another server process runs this table")
        self.table_id = table_id
        self.owner = owner


class Watched(Protocol):
    """A table a connection here has open: live here, or (cluster) a mirror of one."""

    async def unwatch(self, sub: Subscriber) -> None: ...

    def unwatch_soon(self, sub: Subscriber) -> None: ...


class Publisher(Protocol):
    """What a live table tells the processes that mirror it; a single process tells nobody
    (and so builds nothing to tell)."""

    def moved(self, table: LiveTable, record: MoveRecord) -> None: ...

    def chatted(self, table: LiveTable, line: ChatLine) -> None: ...

    def facts_changed(self, table: LiveTable, *, notify: bool) -> None: ...

    def removed(self, table: LiveTable) -> None: ...


class Reach(Publisher, Protocol):
    """Everything that differs between one process and a cluster."""

    # --- commands from connections here ------------------------------------------------

    #: Whether a retried table command is answered where its table runs (a cluster: its
    #: owner), so that the connection's process remembers it only in its own memory.
    replies_at_owner: bool

    async def command(
        self,
        command: commands.TableCommand,
        player: Player,
        reply: Reply,
        request: Mapping[str, JSON] | None = None,
    ) -> None:
        """Run ``command`` where its table runs; the reply goes to ``reply``. ``request``
        (the client's, with ``replies_at_owner``) is answered once there."""

    async def rematch(
        self, table_id: str, player: Player, gone: str | None
    ) -> tuple[str, Seat, bool]:
        """:meth:`LiveTable.rematch_for` of a finished table, run where it runs."""

    async def open(
        self,
        table_id: str,
        sub: Subscriber,
        player_id: str,
        since: int | None,
        chat_since: int | None,
        reply: Reply,
    ) -> None:
        """Open the table for ``sub``: the live table here, or a mirror of it here."""

    def watched(self, table_id: str) -> Watched | None:
        """The table as a connection here has it open (live here, or a mirror)."""

    async def assist_view(
        self, table_id: str, player_id: str
    ) -> tuple[str, int, Seat, dict[str, JSON]]:
        """The game's id, move number, the player's seat and view, for the assistant."""

    async def peek(self, table_id: str) -> ShownTable:
        """A table to read (the HTTP API, a rematch's seat): live here, mirrored, or stored."""

    # --- running tables here ----------------------------------------------------------------

    async def load_to_run(
        self, table_id: str, load: Callable[[], Awaitable[TableBundle | None]]
    ) -> TableBundle | None:
        """The stored table, to run here (claimed first in a cluster, else
        :class:`OwnedElsewhere`)."""

    async def claim_many(self, bundles: list[TableBundle]) -> list[TableBundle]:
        """Of the open tables after a start, those this process runs."""

    async def insert(self, record: TableRecord, seats: Collection[SeatRecord]) -> None:
        """Store a new table to run here (and claim it, in a cluster)."""

    async def place(self, record: TableRecord, seats: list[SeatRecord], player: Player) -> None:
        """Run a new table: here, or on the process that should (cluster)."""

    async def hosted_waiting(self, player_id: str) -> int:
        """How many waiting tables ``player_id`` hosts, wherever they run."""

    #: Seconds a table this process took over waits to hear who has it open through other
    #: processes before the lobby may drop it (:meth:`LiveTable.await_presence`); 0 alone.
    presence_grace: float

    def started(self, table: LiveTable) -> None:
        """A table now runs here (a mirror's connections, in a cluster, move to it)."""

    def released(self, table: LiveTable) -> None:
        """A table left memory here (a cluster lets go of its claim)."""

    async def close(self) -> None:
        """The server is stopping."""


class LocalReach:
    """One process: every table runs here; nobody hears of a change, nothing is claimed."""

    presence_grace = 0.0

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    replies_at_owner = False

    async def command(
        self,
        command: commands.TableCommand,
        player: Player,
        reply: Reply,
        request: Mapping[str, JSON] | None = None,
    ) -> None:
        await self.tables.call(command.table, commands.run, command, player, reply)

    async def rematch(
        self, table_id: str, player: Player, gone: str | None
    ) -> tuple[str, Seat, bool]:
        return await self.tables.call(table_id, LiveTable.rematch_for, player.id, gone)

    async def open(
        self,
        table_id: str,
        sub: Subscriber,
        player_id: str,
        since: int | None,
        chat_since: int | None,
        reply: Reply,
    ) -> None:
        await self.tables.call(table_id, LiveTable.open, sub, player_id, since, chat_since, reply)

    def watched(self, table_id: str) -> Watched | None:
        return self.tables.live.get(table_id)

    async def assist_view(
        self, table_id: str, player_id: str
    ) -> tuple[str, int, Seat, dict[str, JSON]]:
        n, seat, view = await self.tables.call(table_id, LiveTable.view_for_assist, player_id)
        return (await self.tables.get(table_id)).game.id, n, seat, view

    async def peek(self, table_id: str) -> ShownTable:
        return await self.tables.get(table_id)

    async def load_to_run(
        self, table_id: str, load: Callable[[], Awaitable[TableBundle | None]]
    ) -> TableBundle | None:
        return await load()

    async def claim_many(self, bundles: list[TableBundle]) -> list[TableBundle]:
        return bundles

    async def insert(self, record: TableRecord, seats: Collection[SeatRecord]) -> None:
        await self.tables.store.create_table(record, list(seats))

    async def place(self, record: TableRecord, seats: list[SeatRecord], player: Player) -> None:
        await self.tables.start_new(record, seats, player)

    async def hosted_waiting(self, player_id: str) -> int:
        return self.tables.hosted_waiting(player_id)

    def started(self, table: LiveTable) -> None:
        pass

    def released(self, table: LiveTable) -> None:
        pass

    async def close(self) -> None:
        pass

    # Publishing: nobody listens.

    def moved(self, table: LiveTable, record: MoveRecord) -> None:
        pass

    def chatted(self, table: LiveTable, line: ChatLine) -> None:
        pass

    def facts_changed(self, table: LiveTable, *, notify: bool) -> None:
        pass

    def removed(self, table: LiveTable) -> None:
        pass
