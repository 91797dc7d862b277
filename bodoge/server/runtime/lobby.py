"""The lobby: the tables one can join or watch (:attr:`LiveTable.listed`), live-updated
for those who watch it.

In a cluster every process's lobby lists every open table of the cluster: the tables this
process runs, and those the other processes run, which their owners publish on
``{ns}:lobby`` (:attr:`Lobby.teller` is the cluster's then) and which a process asks every other
one for when it starts and after its bus reconnected to Redis (:meth:`Lobby.replace_remote`).

Thousands may watch the lobby while tables are made, filled and started every second, so a
change does not cost a message to every watcher: changes are gathered, and at most once every
:data:`FLUSH_SECONDS` one ``lobby.update`` — every table changed since the last one, once, as it
is now, and every table gone — is encoded once and the same text queued to every watcher.  A
change in a quiet lobby goes out at once.  Each update is numbered (``version``), and so is the
``lobby`` snapshot a watcher starts from: the updates after it are exactly the changes after it
(a change made before the snapshot but not sent yet comes again, as it is: applying it changes
nothing), so a watcher's list is always one the lobby had.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Protocol

from bodoge.core.values import JSON
from bodoge.server.runtime.fanout import Subscriber
from bodoge.server.runtime.protocol import encode

if TYPE_CHECKING:
    from bodoge.server.runtime.table import LiveTable

#: The shortest time between two ``lobby.update`` messages.
FLUSH_SECONDS = 0.25


class LobbyTeller(Protocol):
    """Who hears of a change to the tables this process lists."""

    def listed(self, summary: dict[str, JSON]) -> None: ...

    def unlisted(self, table_id: str) -> None: ...


class _Nobody:
    def listed(self, summary: dict[str, JSON]) -> None:
        pass

    def unlisted(self, table_id: str) -> None:
        pass


class Lobby:
    def __init__(self, flush_seconds: float = FLUSH_SECONDS) -> None:
        self._subs: set[Subscriber] = set()
        #: Cluster: the open tables other processes run, by id (their summaries).
        self.remote: dict[str, dict[str, JSON]] = {}
        #: Tells the other processes of a change to a table this process runs (in a cluster,
        #: ``replication/lobby_link.py``; alone, nobody hears).
        self.teller: LobbyTeller = _Nobody()
        self.flush_seconds = flush_seconds
        #: The number of the last update sent (the snapshot's ``version``).
        self.version = 0
        #: Changes not sent yet: a table's summary as it is now (or the table, to make it of
        #: when sent), or ``None``: it left the list.
        self._pending: dict[str, dict[str, JSON] | LiveTable | None] = {}
        self._flush: asyncio.TimerHandle | None = None
        self._flushed_at = 0.0
        #: The listing as of now, kept until the next change (``None``: to be made again).
        self._listing: list[dict[str, JSON]] | None = None
        self._listed_at = 0.0
        #: Updates sent and the watchers each reached (``/api/stats``, the lobby bench).
        self.updates = 0
        self.changes = 0
        self.deliveries = 0

    def subscribe(self, sub: Subscriber, tables: Iterable[LiveTable]) -> dict[str, JSON]:
        """Watch the lobby; returns the ``lobby`` message listing the open tables now."""
        self._subs.add(sub)
        return {"type": "lobby", "version": self.version, "tables": self.listing(tables)}

    def listing(self, tables: Iterable[LiveTable]) -> list[dict[str, JSON]]:
        """The open tables' summaries, oldest first: ``tables`` (this process's) and, in a
        cluster, those the other processes run.  Made again after a change (or a flush period),
        not for each of thousands of watchers subscribing at once."""
        now = asyncio.get_running_loop().time()
        if self._listing is None or now > self._listed_at + self.flush_seconds:
            self._listed_at = now
            listed = [t.summary() for t in tables if t.listed]
            here = {s["id"] for s in listed}
            listed += [s for table_id, s in self.remote.items() if table_id not in here]
            listed.sort(key=lambda s: (str(s["created_at"]), str(s["id"])))
            self._listing = listed
        return self._listing[:]

    def unsubscribe(self, sub: Subscriber) -> None:
        self._subs.discard(sub)

    @property
    def watchers(self) -> int:
        return len(self._subs)

    def changed(self, table: LiveTable) -> None:
        if not table.listed:
            self.removed(table.id)
            return
        self.remote.pop(table.id, None)  # it runs here now
        if isinstance(self.teller, _Nobody):
            # Its summary is made when an update is sent, if one is: once however often it
            # changed meanwhile (players come and go by the thousand), none if nobody watches.
            self._note(table.id, table)
            return
        summary = table.summary()
        self._note(table.id, summary)
        self.teller.listed(summary)

    def removed(self, table_id: str) -> None:
        self.remote.pop(table_id, None)
        self._note(table_id, None)
        self.teller.unlisted(table_id)

    # --- the cluster --------------------------------------------------------------------

    def heard_listed(self, summary: dict[str, JSON]) -> None:
        """Another process's table is new or changed."""
        self.remote[str(summary["id"])] = summary
        self._note(str(summary["id"]), summary)

    def heard_unlisted(self, table_id: str) -> None:
        """Another process's table left the list."""
        self.remote.pop(table_id, None)
        self._note(table_id, None)

    def replace_remote(
        self,
        summaries: Iterable[dict[str, JSON]],
        here: set[str],
        newer: Collection[str] = (),
    ) -> None:
        """The other processes' open tables as they listed them just now (``here``: this
        process's own; ``newer``: tables whose change heard since is newer than the listing,
        kept as they are): watchers hear of every difference."""
        fresh = {
            str(s["id"]): s for s in summaries if str(s["id"]) not in here and s["id"] not in newer
        }
        fresh.update((t, self.remote[t]) for t in newer if t in self.remote and t not in here)
        for table_id in set(self.remote) - set(fresh):
            self._note(table_id, None)
        for table_id, summary in fresh.items():
            if self.remote.get(table_id) != summary:
                self._note(table_id, summary)
        self.remote = fresh

    # --- updates ------------------------------------------------------------------------

    def _note(self, table_id: str, summary: dict[str, JSON] | LiveTable | None) -> None:
        """One change: kept for the next update (which a quiet lobby sends at once)."""
        self._listing = None
        self.changes += 1
        if not self._subs:
            return  # nobody to tell: a new watcher's snapshot will have it
        self._pending.pop(table_id, None)  # in the order of their last change
        self._pending[table_id] = summary
        if self._flush is None:
            loop = asyncio.get_running_loop()
            at = max(loop.time(), self._flushed_at + self.flush_seconds)
            self._flush = loop.call_at(at, self.flush)

    def flush(self) -> None:
        """Send the changes gathered, as one message encoded once, to every watcher."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        pending, self._pending = self._pending, {}
        self._flushed_at = asyncio.get_running_loop().time()
        if not pending:
            return
        self.version += 1
        tables = [
            s if isinstance(s, dict) else s.summary() for s in pending.values() if s is not None
        ]
        removed: list[JSON] = [table_id for table_id, s in pending.items() if s is None]
        text = encode(
            {"type": "lobby.update", "version": self.version, "tables": tables, "removed": removed}
        )
        self.updates += 1
        self.deliveries += len(self._subs)
        for sub in list(self._subs):
            sub.send_text(text)

    def close(self) -> None:
        """Stop: nothing more is sent."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        self._pending.clear()

    def to_json(self) -> dict[str, JSON]:
        return {
            "watchers": len(self._subs),
            "version": self.version,
            "changes": self.changes,
            "updates": self.updates,
            "deliveries": self.deliveries,
        }
