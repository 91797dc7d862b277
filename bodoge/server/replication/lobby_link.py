"""Every process's lobby lists every open table of the cluster (see ``runtime/lobby.py``):
each process tells the others of a change to a table it lists (on ``{ns}:lobby``), and asks
every other live process for the tables it runs when it starts and after its bus
reconnected to Redis.

A process alone hears only itself: Redis says how many subscriber connections got each
lobby message, and once one reached nobody but this process (it heard its own message back,
and nobody else could have), the next ones are not sent. Any other process that starts or
gets Redis back asks this one for its tables first (``ListTables``): this process sends
again from before it answers, so nothing changed after the answer goes untold. A lobby
message heard from another process also sends it again.

A process's lobby messages are numbered, and its answer carries the number of the last one
it sent before it made the listing. The answer and the messages travel apart, so a change
may be heard before the answer that is older than it: a table whose change was heard while
the asking waited, numbered after that process's answer, keeps what the change said.
"""

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

#: Times :meth:`LobbyLink.sync` asks a process that does not answer, and the pause between.
SYNC_ATTEMPTS = 3
SYNC_RETRY_SECONDS = 0.5


class LobbyLink:
    """This process's lobby joined to the others' (the lobby's :class:`LobbyTeller`)."""

    def __init__(self, lobby: Lobby, tables: Tables, cluster: ClusterService) -> None:
        self.lobby = lobby
        self.tables = tables
        self.cluster = cluster
        self.channel = cluster.namespace.lobby
        #: Whether this process's lobby changes go untold (nobody else listens).
        self.quiet = False
        #: Lobby changes not sent because nobody else listened.
        self.unsent = 0
        #: Lobby messages sent so far: each carries its number, so that this process knows
        #: whether a message that reached one subscriber connection reached its own.
        self._sent = 0
        #: The number of this process's last message heard back.
        self._echoed = 0
        #: A message that reached one connection, not yet heard back (number, listeners).
        self._lonely: tuple[int, int] | None = None
        #: Times another process showed it listens: a message's "nobody else heard it"
        #: counts only if nobody showed so since it was sent.
        self._listeners = 0
        #: For each :meth:`sync` under way: the tables whose changes were heard meanwhile,
        #: with the process that told each last and its message's number.
        self._heard_during: list[dict[str, tuple[str, int]]] = []

    async def start(self) -> None:
        self.lobby.teller = self
        await self.cluster.bus.subscribe(self.channel, self._heard)
        self.cluster.bus.add_reconnect_hook(self.sync)
        await self.sync()

    def listed(self, summary: dict[str, JSON]) -> None:
        self._tell(Listed(self.cluster.process, summary))

    def unlisted(self, table_id: str) -> None:
        self._tell(Unlisted(self.cluster.process, table_id))

    def listening(self) -> int:
        """Another process listens (it asked for this one's tables, or told a change):
        this process's lobby changes are sent again. The number of the last one sent."""
        self._listeners += 1
        self.quiet = False
        self._lonely = None
        return self._sent

    def _tell(self, message: Listed | Unlisted) -> None:
        if self.quiet:
            self.unsent += 1
            return
        self._sent += 1
        number, listeners = self._sent, self._listeners
        data = encode_lobby(message)
        data["n"] = number

        def heard(receivers: int) -> None:
            if receivers > 1 or listeners != self._listeners:
                return
            if receivers == 0 or self._echoed >= number:
                self.quiet = True  # nobody, or only this process, heard it
            else:  # one connection: quiet only once it proves to be this process's own
                self._lonely = (number, listeners)

        self.cluster.publish_soon(self.channel, data, heard)

    async def _heard(self, data: bytes) -> None:
        try:
            raw = orjson.loads(data)
            message = decode_lobby(raw)
        except (BadMessage, ValueError) as exc:
            log.warning("a lobby message not understood: %s", exc)
            return
        number = raw.get("n") if isinstance(raw, dict) else None
        if message.process == self.cluster.process:
            if isinstance(number, int):
                self._echoed = max(self._echoed, number)
                if self._lonely == (number, self._listeners):
                    self.quiet = True
                    self._lonely = None
            return
        self.listening()
        if isinstance(number, int):
            table_id = str(message.summary["id"]) if isinstance(message, Listed) else message.table
            for heard in self._heard_during:
                heard[table_id] = (message.process, number)
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
        heard: dict[str, tuple[str, int]] = {}
        self._heard_during.append(heard)
        try:
            summaries, told = await self._ask(others)
        finally:
            self._heard_during.remove(heard)
        # A change heard meanwhile that its process sent after it answered is newer than
        # the answer; one from a process that gave no number is not known to be.
        newer = {t for t, (p, n) in heard.items() if p in told and n > told[p]}
        self.lobby.replace_remote(summaries, set(self.tables.live), newer)

    async def _ask(self, others: list[str]) -> tuple[list[dict[str, JSON]], dict[str, int]]:
        """The open tables of ``others``, and the number each gave its listing."""
        cluster = self.cluster
        summaries: list[dict[str, JSON]] = []
        told: dict[str, int] = {}
        # After Redis came back the others may not be back on it yet: a process that did
        # not answer is asked again, since it tells nothing more while it believes itself
        # alone (its quiet lobby, above).
        for attempt in range(SYNC_ATTEMPTS):
            if attempt:
                await asyncio.sleep(SYNC_RETRY_SECONDS)
            answers = await asyncio.gather(
                *(cluster.bus.request(p, encode_call(ListTables())) for p in others),
                return_exceptions=True,
            )
            unanswered = []
            for process, answer in zip(others, answers, strict=True):
                if isinstance(answer, BaseException):
                    log.info("process %s did not list its tables: %s", process, answer)
                    unanswered.append(process)
                elif isinstance(answer, dict):
                    tables, number = answer.get("tables"), answer.get("n")
                    if isinstance(tables, list):
                        summaries += [s for s in tables if isinstance(s, dict)]
                    if isinstance(number, int):
                        told[process] = number
            others = unanswered
            if not others:
                break
        return summaries, told
