"""The lobby: the tables one can join or watch (:attr:`LiveTable.listed`), live-updated
for those who watch it.

In a cluster every process's lobby lists every open table of the cluster: the tables this
process runs, and those the other processes run, which their owners publish on
``{ns}:lobby`` (:attr:`Lobby.teller` is the cluster's then) and which a process asks every other
one for when it starts and after its bus reconnected to Redis (:meth:`Lobby.replace_remote`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from bodoge.core.values import JSON
from bodoge.server.runtime.fanout import Subscriber
from bodoge.server.runtime.protocol import encode

if TYPE_CHECKING:
    from bodoge.server.runtime.table import LiveTable


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
    def __init__(self) -> None:
        self._subs: set[Subscriber] = set()
        #: Cluster: the open tables other processes run, by id (their summaries).
        self.remote: dict[str, dict[str, JSON]] = {}
        #: Tells the other processes of a change to a table this process runs (in a cluster,
        #: ``replication/lobby_link.py``; alone, nobody hears).
        self.teller: LobbyTeller = _Nobody()

    def subscribe(self, sub: Subscriber, tables: Iterable[LiveTable]) -> dict[str, JSON]:
        """Watch the lobby; returns the ``lobby`` message listing the open tables now."""
        self._subs.add(sub)
        return {"type": "lobby", "tables": self.listing(tables)}

    def listing(self, tables: Iterable[LiveTable]) -> list[dict[str, JSON]]:
        """The open tables' summaries, oldest first: ``tables`` (this process's) and, in a
        cluster, those the other processes run."""
        listed = [t.summary() for t in tables if t.listed]
        here = {s["id"] for s in listed}
        listed += [s for table_id, s in self.remote.items() if table_id not in here]
        listed.sort(key=lambda s: (str(s["created_at"]), str(s["id"])))
        return listed

    def unsubscribe(self, sub: Subscriber) -> None:
        self._subs.discard(sub)

    def changed(self, table: LiveTable) -> None:
        if not table.listed:
            self.removed(table.id)
            return
        summary = table.summary()
        self.remote.pop(table.id, None)  # it runs here now
        self._send({"type": "lobby.table", "table": summary})
        self.teller.listed(summary)

    def removed(self, table_id: str) -> None:
        self.remote.pop(table_id, None)
        self._send({"type": "lobby.removed", "table": table_id})
        self.teller.unlisted(table_id)

    # --- the cluster --------------------------------------------------------------------

    def heard_listed(self, summary: dict[str, JSON]) -> None:
        """Another process's table is new or changed."""
        self.remote[str(summary["id"])] = summary
        self._send({"type": "lobby.table", "table": summary})

    def heard_unlisted(self, table_id: str) -> None:
        """Another process's table left the list."""
        self.remote.pop(table_id, None)
        self._send({"type": "lobby.removed", "table": table_id})

    def replace_remote(self, summaries: Iterable[dict[str, JSON]], here: set[str]) -> None:
        """The other processes' open tables as they listed them just now (``here``: this
        process's own): watchers hear of every difference."""
        fresh = {str(s["id"]): s for s in summaries if str(s["id"]) not in here}
        for table_id in set(self.remote) - set(fresh):
            self._send({"type": "lobby.removed", "table": table_id})
        for table_id, summary in fresh.items():
            if self.remote.get(table_id) != summary:
                self._send({"type": "lobby.table", "table": summary})
        self.remote = fresh

    def _send(self, message: dict[str, JSON]) -> None:
        if self._subs:
            text = encode(message)
            for sub in list(self._subs):
                sub.send_text(text)
