"""Commands for a table another process runs, sent to that process (cluster mode).

A command (move, join, leave, chat, …) for a table owned elsewhere is sent as a typed call
(``messages.py``) to the owner's process channel (``Bus.request``) and run there exactly as
if its own connection had sent it; the reply (an ``ack``, or an error with its code) comes
back and goes to the client — after the mirror here has shown the change the command made.
An owner that is gone is waited for while the table is taken over.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from bodoge.cluster.bus import BusError, NoReply, RemoteError
from bodoge.core.errors import GameError
from bodoge.core.game import Seat
from bodoge.core.values import JSON
from bodoge.server.replication.messages import (
    Call,
    RunCommand,
    RunRematch,
    decode_command_done,
    decode_rematch_done,
    encode_call,
)
from bodoge.server.replication.mirrors import Mirrors
from bodoge.server.replication.owner_replies import OwnerReplies
from bodoge.server.runtime import commands
from bodoge.server.runtime.players import Player
from bodoge.server.runtime.protocol import ERRORS, ProtocolError
from bodoge.server.runtime.reach import OwnedElsewhere
from bodoge.server.runtime.table import LiveTable, Reply

if TYPE_CHECKING:
    from bodoge.cluster.service import ClusterService
    from bodoge.server.runtime.tables import Tables

#: Seconds a forwarded command waits for a new owner when its owner is gone.
PATIENCE = 8.0


class RefusedThere(GameError):
    """The owner refused a forwarded command: its error code and message, passed on."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def refusal(error: JSON) -> ProtocolError | RefusedThere:
    """The error another process answered with, as this process raises it."""
    fields = error if isinstance(error, dict) else {}
    code = str(fields.get("code", "internal_error"))
    message = str(fields.get("message", "refused"))
    if code in ERRORS:
        return ProtocolError(code, message)
    return RefusedThere(code, message)


class Forwarder:
    """Runs a table's commands where the table runs: here, or on its owner."""

    def __init__(
        self, tables: Tables, cluster: ClusterService, mirrors: Mirrors, replies: OwnerReplies
    ) -> None:
        self.tables = tables
        self.cluster = cluster
        self.mirrors = mirrors
        self.replies = replies
        self.process = cluster.process

    def _owner(self, table_id: str) -> str | None:
        mirror = self.mirrors.get(table_id)
        return mirror.owner if mirror is not None else None

    async def command(
        self,
        command: commands.TableCommand,
        player: Player,
        reply: Reply,
        request: Mapping[str, JSON] | None = None,
    ) -> None:
        """Run here if this process runs the table (or can claim it), else on its owner; the
        reply goes to ``reply`` either way. ``request``: the client's, answered once by the
        owner however often it comes (``owner_replies.py``)."""
        table_id = command.table

        async def run(reply: Reply) -> None:
            await self.tables.call(table_id, commands.run, command, player, reply)

        async def here() -> None:
            await self.replies.run(table_id, player.id, request, run, reply)

        call = RunCommand(table_id, player.id, player.name, command, request)
        answer = await self.ask_owner(table_id, self._owner(table_id), call, here=here)
        if answer is None:  # run here, and answered already
            return
        done = decode_command_done(answer, table_id)
        await self._shown(table_id, done.epoch, done.seq)
        reply(done.reply)

    async def rematch(
        self, table_id: str, player: Player, gone: str | None
    ) -> tuple[str, Seat, bool]:
        """:meth:`LiveTable.rematch_for` of a finished table, run where the table runs."""
        made: list[tuple[str, Seat, bool]] = []

        async def here() -> None:
            made.append(await self.tables.call(table_id, LiveTable.rematch_for, player.id, gone))

        call = RunRematch(table_id, player.id, player.name, gone)
        answer = await self.ask_owner(table_id, self._owner(table_id), call, here=here)
        if answer is None:
            return made[0]
        done = decode_rematch_done(answer)
        await self._shown(table_id, done.epoch, done.seq)  # the mirror shows it before the reply
        return done.rematch, done.seat, done.made

    async def _shown(self, table_id: str, epoch: int | None, seq: int) -> None:
        """Wait until the mirror here shows what the owner had published when it answered."""
        mirror = self.mirrors.get(table_id)
        if mirror is not None:
            await mirror.shown(epoch, seq)

    async def ask_owner(
        self,
        table_id: str,
        owner: str | None,
        call: Call,
        *,
        here: Callable[[], Awaitable[None]] | None = None,
    ) -> JSON:
        """Send ``call`` to the table's owner; ``None`` if this process runs the table.

        With no owner known, the table is looked up (and claimed if nobody live runs it, so
        that ``here`` runs it). An owner that is gone is waited for, up to :data:`PATIENCE`
        seconds, while another process takes the table over.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PATIENCE
        data = encode_call(call)
        while True:
            if owner is None or owner == self.process:
                try:
                    if here is None:
                        await self.mirrors.promote(await self.tables.get(table_id))
                    else:
                        await here()
                    return None
                except OwnedElsewhere as elsewhere:
                    owner = elsewhere.owner
                    if owner is None:  # its owner just let it go, or its lease ran out
                        if loop.time() > deadline:
                            raise
                        await asyncio.sleep(0.1)
                        continue
            try:
                return await self.cluster.bus.request(owner, data)
            except RemoteError as refused:
                error = refused.error if isinstance(refused.error, dict) else {}
                if error.get("code") == "moved":
                    moved_to = error.get("owner")
                    owner = moved_to if isinstance(moved_to, str) and moved_to != owner else None
                    if loop.time() < deadline:
                        await asyncio.sleep(0.05)
                        continue
                    raise ProtocolError(
                        "table_unavailable", "the table is changing hands"
                    ) from None
                raise refusal(error) from None
            except NoReply as silence:
                if silence.reason != "nobody listens" or loop.time() > deadline:
                    raise ProtocolError(
                        "table_unavailable",
                        "the server process running this table did not answer; try again",
                    ) from None
            except BusError:
                if loop.time() > deadline:
                    raise ProtocolError(
                        "table_unavailable", "the cluster's message bus is away; try again"
                    ) from None
            # The owner is gone (or Redis is): wait a little for the takeover, look again.
            await asyncio.sleep(0.25)
            owner = None
