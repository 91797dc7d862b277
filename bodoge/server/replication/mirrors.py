"""This process's mirrors of tables other processes run: loaded when a connection opens one,
kept subscribed to the owner's channel, dropped when nobody here watches; and presence —
each mirror tells the owner which players have the table open through this process, so
seats show connected wherever their player is, and a table watched anywhere stays in its
owner's memory.  When this process comes to run a table (it took it over, or claimed it),
the mirror's connections are handed to the live table (:meth:`Mirrors.promote`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import orjson

from bodoge.cluster.tasks import cancel_and_wait
from bodoge.core.values import JSON
from bodoge.server.replication.messages import (
    BadMessage,
    Publication,
    Watch,
    decode_publication,
)
from bodoge.server.replication.mirror import Mirror
from bodoge.server.runtime.inbox import Args, R, TableGone
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.runtime.table import LiveTable

if TYPE_CHECKING:
    from bodoge.cluster.service import ClusterService
    from bodoge.server.runtime.tables import Tables

log = logging.getLogger(__name__)

#: Asks the owner of a table (``None``: this process runs it now); see ``forwarding.py``.
AskOwner = Callable[[str, "str | None", Watch], Awaitable[JSON]]


class Mirrors:
    def __init__(self, tables: Tables, cluster: ClusterService) -> None:
        self.tables = tables
        self.cluster = cluster
        self.process = cluster.process
        self.mirrors: dict[str, Mirror] = {}
        self._loading: dict[str, asyncio.Task[Mirror]] = {}
        self._buffers: dict[str, list[Publication]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: How presence reaches the owner (set by the cluster's reach).
        self.ask_owner: AskOwner | None = None

    def get(self, table_id: str) -> Mirror | None:
        return self.mirrors.get(table_id)

    async def close(self) -> None:
        """Stop every mirror and what runs for them (the server is stopping)."""
        for mirror in list(self.mirrors.values()):
            mirror.stop()
        await cancel_and_wait(self._tasks)

    async def mirror(self, table_id: str, owner: str | None) -> Mirror:
        """The mirror of ``table_id`` (loaded and subscribed if there is none yet)."""
        mirror = self.mirrors.get(table_id)
        if mirror is not None and not mirror.closed:
            return mirror
        loading = self._loading.get(table_id)
        if loading is None:
            loading = self._loading[table_id] = asyncio.create_task(self._load(table_id, owner))
            loading.add_done_callback(lambda _: self._loading.pop(table_id, None))
        return await asyncio.shield(loading)

    async def _load(self, table_id: str, owner: str | None) -> Mirror:
        buffer: list[Publication] = []
        self._buffers[table_id] = buffer

        async def deliver(data: bytes) -> None:
            try:
                publication = decode_publication(orjson.loads(data))
            except (BadMessage, ValueError) as exc:
                log.warning("table %s: a publication not understood: %s", table_id, exc)
                return
            mirror = self.mirrors.get(table_id)
            if mirror is not None and mirror.subscription is subscription:
                mirror.post(mirror.receive, publication)
            elif self._buffers.get(table_id) is buffer:
                buffer.append(publication)

        bus = self.cluster.bus
        subscription = await bus.subscribe(self.cluster.namespace.table(table_id), deliver)
        try:
            bundle = await self.tables.load(table_id)
            if bundle is None:
                raise ProtocolError("unknown_table", "no such table")
            mirror = Mirror.restore(self.tables, self.tables.games[bundle.table.game], bundle)
        except BaseException:
            self._buffers.pop(table_id, None)
            await subscription.cancel()
            raise
        mirror.follow(self, owner, subscription)
        # Until the owner answers, the people it counted as the lobby last heard (none of
        # them through this process: it had no mirror).
        listed = self.tables.lobby.remote.get(table_id)
        if listed is not None:
            mirror.take_online(listed)
        self.mirrors[table_id] = mirror
        self._buffers.pop(table_id, None)
        mirror.start()
        for publication in buffer:
            mirror.post(mirror.receive, publication)
        self.report_presence(mirror)
        return mirror

    def dropped(self, mirror: Mirror) -> None:
        """A mirror closed: it stops listening to its table's channel."""
        if self.mirrors.get(mirror.id) is mirror:
            del self.mirrors[mirror.id]
        subscription, mirror.subscription = mirror.subscription, None
        if subscription is not None:
            self.tables.spawn(subscription.cancel())

    async def call(
        self,
        table_id: str,
        owner: str | None,
        command: Callable[[Mirror, *Args], Awaitable[R]],
        *args: *Args,
    ) -> R:
        """Run ``command(mirror, *args)`` (opening, closing) in the mirror's task."""
        for _ in range(5):
            mirror = await self.mirror(table_id, owner)
            try:
                return await mirror.call(command, mirror, *args)
            except TableGone:
                continue
        raise ProtocolError("internal_error", "the table kept moving; try again")

    async def promote(self, table: LiveTable) -> None:
        """This process runs ``table`` now: its mirror's connections watch the live table."""
        mirror = self.mirrors.get(table.id)
        if mirror is None:
            return
        try:
            subs, since, chat_since = await mirror.call(mirror.hand_over)
        except TableGone:
            return
        try:
            await table.call(table.adopt, subs, since, chat_since)
        except TableGone:
            for sub in subs:
                sub.kick(1012, flush=True)

    async def reconnected(self) -> None:
        """Publications were lost while Redis was away: every mirror catches up."""
        for mirror in list(self.mirrors.values()):
            mirror.post(mirror.resync)
            self.report_presence(mirror)

    # --- presence: who watches through this process -------------------------------------------

    def report_presence(self, mirror: Mirror) -> None:
        """Tell the owner (soon) who has the table open here."""
        mirror.presence_dirty = True
        if mirror.presence_task is None or mirror.presence_task.done():
            mirror.presence_task = asyncio.create_task(self._presence(mirror))
            self._tasks.add(mirror.presence_task)
            mirror.presence_task.add_done_callback(self._tasks.discard)

    async def _presence(self, mirror: Mirror) -> None:
        assert self.ask_owner is not None
        failures = 0
        while mirror.presence_dirty:
            mirror.presence_dirty = False
            players = tuple(sorted({sub.player_id for sub, _ in mirror.audience if sub.player_id}))
            watchers = 0 if mirror.closed else len(mirror.audience)
            call = Watch(mirror.id, self.process, players, watchers)
            try:
                answer = await self.ask_owner(mirror.id, mirror.owner, call)
            except Exception as exc:  # the owner or the database away: again in a moment
                if mirror.closed or getattr(exc, "code", "") == "unknown_table":
                    break
                failures += 1
                log.info("table %s: telling its owner who watches failed: %s", mirror.id, exc)
                mirror.presence_dirty = True
                await asyncio.sleep(min(2.0, 0.2 * failures))
                continue
            if answer is None:  # this process runs the table now
                break
            mirror.people_counted = frozenset(players)
            if not mirror.closed:
                mirror.post(_apply_owner_facts, mirror, answer)
        if not mirror.closed and not len(mirror.audience):
            mirror.post(_close_if_unwatched, mirror)


async def _apply_owner_facts(mirror: Mirror, facts: JSON) -> None:
    """The owner's answer to ``watch``: its facts, unless publications since told newer ones."""
    if not isinstance(facts, dict) or mirror.closed:
        return
    seq, epoch = facts.get("seq"), facts.get("epoch")
    if mirror.last_seq is None and isinstance(seq, int) and isinstance(epoch, int):
        # Nothing heard on the channel yet: the numbers go on from the owner's, so that a
        # publication lost before the first one that arrives is a gap too.
        mirror.last_seq, mirror.epoch = seq, epoch
    older = (
        mirror.epoch is not None
        and epoch == mirror.epoch
        and isinstance(seq, int)
        and seq < (mirror.last_seq or 0)
    )
    if older:  # only who is connected is news
        mirror.take_online(facts)
        present = facts.get("present") or []
        assert isinstance(present, list)
        if frozenset(str(p) for p in present) != mirror.present_ids:
            mirror.present_ids = frozenset(str(p) for p in present)
            mirror._seats_changed()
        return
    mirror.apply_facts(facts, from_owner=True)
    n, chat = facts.get("n"), facts.get("chat")
    behind = (isinstance(n, int) and n > mirror.n) or (
        isinstance(chat, int) and chat > mirror.chat.count
    )
    if behind:
        # The owner sends nothing on a table nobody followed: what it did between this
        # mirror's load and its owner hearing of it is read from the store.
        await mirror.resync()


async def _close_if_unwatched(mirror: Mirror) -> None:
    if not len(mirror.audience) and not mirror.closed:
        mirror._close()
