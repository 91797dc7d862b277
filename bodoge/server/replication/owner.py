"""The owner's end (cluster mode): the calls other processes send to the process that runs a
table — a forwarded command or rematch, who watches through them, a new table placed here,
this process's open tables for their lobbies — each run here as if asked here."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from bodoge.cluster.bus import Refused
from bodoge.core.errors import GameError
from bodoge.core.values import JSON
from bodoge.server.replication.messages import (
    BadMessage,
    Call,
    CommandDone,
    Create,
    ListTables,
    RematchDone,
    RunCommand,
    RunRematch,
    Watch,
    decode_call,
    encode_command_done,
    encode_rematch_done,
)
from bodoge.server.replication.owner_replies import OwnerReplies
from bodoge.server.replication.publishing import TablePublisher, facts_of
from bodoge.server.runtime import commands
from bodoge.server.runtime.inbox import TableGone
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.runtime.reach import OwnedElsewhere
from bodoge.server.runtime.table import LiveTable, Reply
from bodoge.store import StoreUnavailable

if TYPE_CHECKING:
    from bodoge.cluster.service import ClusterService
    from bodoge.server.runtime.tables import Tables


class OwnerEnd:
    def __init__(
        self,
        tables: Tables,
        cluster: ClusterService,
        publisher: TablePublisher,
        replies: OwnerReplies,
    ) -> None:
        self.tables = tables
        self.cluster = cluster
        self.publisher = publisher
        self.replies = replies
        self._handlers: dict[type[Call], Callable[[Any], Awaitable[JSON]]] = {
            RunCommand: self._run_command,
            RunRematch: self._run_rematch,
            Watch: self._watch,
            Create: self._create,
            ListTables: self._list,
        }
        #: Told when another process asks for this one's open tables (it listens to the
        #: lobby's channel from then on): the lobby's link sends changes again, and says the
        #: number of its last lobby message (the listing is as of then).
        self.lobby_asked: Callable[[], int] | None = None

    def start(self) -> None:
        self.cluster.bus.serve(self.serve)
        self.tables.spawn(self._forget_dead_processes())

    async def serve(self, data: dict[str, JSON]) -> JSON:
        """One call from another process; a refusal carries the error code back."""
        try:
            call = decode_call(data)
        except BadMessage as exc:
            raise Refused({"code": "bad_message", "message": str(exc)[:300]}) from None
        try:
            return await self._handlers[type(call)](call)
        except OwnedElsewhere as elsewhere:
            raise Refused({"code": "moved", "owner": elsewhere.owner}) from None
        except (ProtocolError, GameError) as exc:
            raise Refused({"code": exc.code, "message": str(exc)[:300]}) from None
        except TableGone:
            raise Refused({"code": "moved", "owner": None}) from None
        except StoreUnavailable:
            raise Refused(
                {"code": "store_unavailable", "message": "the server cannot store anything now"}
            ) from None

    def _after(self, table_id: str) -> tuple[int, int | None]:
        """The publication number and epoch under which a change here was told."""
        table = self.tables.live.get(table_id)
        seq = self.publisher.seq(table) if table is not None else 0
        return seq, self.cluster.ownership.held.get(table_id)

    async def _run_command(self, call: RunCommand) -> JSON:
        self._listening(call.table)  # the caller's mirror waits for the change to be told
        player = self.tables.players.get(call.player)
        if player is None:  # held while the command runs, then by the table if it seats them
            player = self.tables.known(call.player, call.name)
        replies: list[dict[str, JSON]] = []

        async def run(reply: Reply) -> None:
            await self.tables.call(call.table, commands.run, call.command, player, reply)

        await self.replies.run(call.table, call.player, call.request, run, replies.append)
        seq, epoch = self._after(call.table)
        reply = replies[-1] if replies else {"type": "ack", "table": call.table}
        return encode_command_done(CommandDone(reply, seq, epoch))

    async def _run_rematch(self, call: RunRematch) -> JSON:
        self._listening(call.table)
        # Held while the rematch is made (its host), then by the new table.
        self.tables.known(call.player, call.name)
        rematch, seat, made = await self.tables.call(
            call.table, LiveTable.rematch_for, call.player, call.gone
        )
        seq, epoch = self._after(call.table)
        return encode_rematch_done(RematchDone(rematch, seat, made, seq, epoch))

    def _listening(self, table_id: str) -> None:
        table = self.tables.live.get(table_id)
        if table is not None:
            self.publisher.listening(table)

    async def _watch(self, call: Watch) -> JSON:
        if not call.watchers and call.table not in self.tables.live:
            return {}  # nobody watches there, and the table is not loaded here
        self._listening(call.table)
        facts = await self.tables.call(
            call.table,
            _watch_and_tell,
            self.publisher,
            call.process,
            frozenset(call.players),
            call.watchers,
        )
        return {**facts, "epoch": self.cluster.ownership.held.get(call.table)}

    async def _create(self, call: Create) -> JSON:
        record = call.record
        if record.game not in self.tables.games:
            raise Refused({"code": "unknown_game", "message": f"no game {record.game[:40]!r}"})
        player = self.tables.known(call.player, call.name)
        await self.tables.start_new(record, list(call.seats), player)
        return {"table": record.id, "load": len(self.cluster.ownership.held)}

    async def _list(self, call: ListTables) -> JSON:
        # Before the listing: no later change goes untold, and each later one is numbered
        # after the listing's number, so the asker knows a change it heard is newer.
        told = self.lobby_asked() if self.lobby_asked is not None else 0
        return {"n": told, "tables": [t.summary() for t in self.tables.open_tables()]}

    async def _forget_dead_processes(self) -> None:
        """The owner drops the presence of processes whose lease ran out (killed)."""
        ownership = self.cluster.ownership
        while True:
            await asyncio.sleep(max(0.5, ownership.lease / 2))
            tables = [t for t in self.tables.live.values() if t.remote_processes]
            if not tables:
                continue
            try:
                live = frozenset(await ownership.live_processes())
            except Exception:
                continue
            for table in tables:
                if table.remote_processes - live:
                    table.post(table.forget_processes, live)


async def _watch_and_tell(
    table: LiveTable,
    publisher: TablePublisher,
    process: str,
    players: frozenset[str],
    watchers: int,
) -> dict[str, JSON]:
    """Note who watches through ``process``; the table's facts in reply (in its task)."""
    publisher.listening(table)  # loaded here since the call came: it is sent what follows
    await table.remote_watch(process, players, watchers)
    return facts_of(table, publisher.seq(table))
