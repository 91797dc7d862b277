"""Every process's lobby lists every open table of the cluster (see ``runtime/lobby.py``):
each process tells the others of a change to a table it lists (on ``{ns}:lobby``), and asks
every other live process for the tables it runs when it starts and after its bus
reconnected to Redis."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import orjson

from bodoge.core.values import JSON
from bodoge.server.replication.messages import (
    BadMessage,
    Listed,
    ListTables,
    Unlisted,
    decode_lobby,
    encode_call,
    encode_lobby,
)
from bodoge.server.runtime.lobby import Lobby

if TYPE_CHECKING:
    from bodoge.cluster.service import ClusterService
    from bodoge.server.runtime.tables import Tables

log = logging.getLogger(__name__)


class LobbyLink:
    """This process's lobby joined to the others' (the lobby's :class:`LobbyTeller`)."""

    def __init__(self, lobby: Lobby, tables: Tables, cluster: ClusterService) -> None:
        self.lobby = lobby
        self.tables = tables
        self.cluster = cluster
        self.channel = cluster.namespace.lobby

    async def start(self) -> None:
        self.lobby.teller = self
        await self.cluster.bus.subscribe(self.channel, self._heard)
        self.cluster.bus.add_reconnect_hook(self.sync)
        await self.sync()

    def listed(self, summary: dict[str, JSON]) -> None:
        self._tell(Listed(self.cluster.process, summary))

    def unlisted(self, table_id: str) -> None:
        self._tell(Unlisted(self.cluster.process, table_id))

    def _tell(self, message: Listed | Unlisted) -> None:
        self.cluster.publish_soon(self.channel, encode_lobby(message))

    async def _heard(self, data: bytes) -> None:
        try:
            message = decode_lobby(orjson.loads(data))
        except (BadMessage, ValueError) as exc:
            log.warning("a lobby message not understood: %s", exc)
            return
        if message.process == self.cluster.process:
            return
        if isinstance(message, Listed):
            self.lobby.heard_listed(message.summary)
        else:
            self.lobby.heard_unlisted(message.table)

    async def sync(self) -> None:
        """Ask every other live process for the open tables it runs (start, Redis back)."""
        cluster = self.cluster
        try:
            processes = await cluster.ownership.live_processes()
        except Exception as exc:
            log.warning("listing the cluster's processes failed: %s", exc)
            return
        others = [p for p in processes if p != cluster.process]
        answers = await asyncio.gather(
            *(cluster.bus.request(p, encode_call(ListTables())) for p in others),
            return_exceptions=True,
        )
        summaries: list[dict[str, JSON]] = []
        for process, answer in zip(others, answers, strict=True):
            if isinstance(answer, BaseException):
                log.info("process %s did not list its tables: %s", process, answer)
            elif isinstance(answer, list):
                summaries += [s for s in answer if isinstance(s, dict)]
        self.lobby.replace_remote(summaries, set(self.tables.live))
