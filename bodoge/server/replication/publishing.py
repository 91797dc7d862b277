"""What an owner tells the mirrors of its tables (cluster mode): each committed move, each
chat line, the table's public facts, its removal — numbered per table, so that a mirror
that misses one catches up from the store (``mirror.py``).

Only a table some other process follows is told about. Redis says how many subscribers
got each publication: once one reached nobody, the table's next ones are numbered but not
sent, until a process says it watches the table (``Watch``) or sends it a command. A mirror
subscribes before it loads the table and says so right after, so what it missed meanwhile
is a gap in the numbers, or a move number ahead of its own in the owner's answer to
``Watch``: it catches up from the store (``mirror.py``). A new owner's first publication (its
facts, at start) is always sent: the mirrors of the previous owner learn of it so.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

from bodoge.core.values import JSON
from bodoge.server.replication.messages import (
    ChatPublished,
    FactsPublished,
    MovePublished,
    Publication,
    Published,
    RemovedPublished,
    encode_publication,
)
from bodoge.server.runtime.chat import ChatLine
from bodoge.server.runtime.table import LiveTable
from bodoge.store import MoveRecord

if TYPE_CHECKING:
    from bodoge.cluster.service import ClusterService


def facts_of(table: LiveTable, seq: int) -> dict[str, JSON]:
    """The table's public facts as mirrors take them: seats, settings and options, people,
    status, timers, the rematch (``seq``: the publications so far).

    ``present`` is every seated player who has the table open anywhere in the cluster, and
    ``online`` how many people have it open anywhere: presence is added up here, at the owner.
    """
    seats = table.seats
    people = {s.player for s in seats if s.player} | {s.left for s in seats if s.left}
    return {
        "seats": [[s.seat, s.kind, s.player, s.level, s.left] for s in seats],
        "host": table.seating.host,
        "settings": table.settings.to_json(),
        "options": table.options_json,
        "rematch": table.rematch,
        "people": {p: table.people[p].name for p in sorted(people) if p in table.people},
        "present": sorted(p for p in people if table.present(p)),
        "online": table.online(),
        "status": table.status,
        "ended": table.ended,
        "started_at": table.started_at,
        "finished_at": table.finished_at,
        "deadlines": {str(s): at for s, at in table.deadlines.items()},
        "clock_deadline": table.clock_deadline,
        "n": table.n,
        "chat": table.chat.count,
        "seq": seq,
    }


class TablePublisher:
    """The owner's end of publishing: numbers each table's publications and sends them."""

    def __init__(self, cluster: ClusterService) -> None:
        self.cluster = cluster
        #: Publications of each live table so far (mirrors find gaps by the numbers).
        self._seq: weakref.WeakKeyDictionary[LiveTable, int] = weakref.WeakKeyDictionary()
        #: Tables whose last publication reached no process: their next ones are not sent.
        self._unheard: weakref.WeakSet[LiveTable] = weakref.WeakSet()
        #: Times a process said it listens, per table: a publication's "nobody heard it" counts
        #: only if nobody said so since it was sent.
        self._listeners: weakref.WeakKeyDictionary[LiveTable, int] = weakref.WeakKeyDictionary()
        #: Publications numbered but not sent (nobody follows their table).
        self.unsent = 0

    def seq(self, table: LiveTable) -> int:
        return self._seq.get(table, 0)

    def moved(self, table: LiveTable, record: MoveRecord) -> None:
        deadlines = {str(s): at for s, at in table.deadlines.items()}
        move = MovePublished(
            record.n,
            record.seat,
            record.move,
            record.at,
            record.actor,
            deadlines,
            table.clock_deadline,
        )
        self._publish(table, move)

    def chatted(self, table: LiveTable, line: ChatLine) -> None:
        self._publish(table, ChatPublished(line.line, line.player, line.name, line.text, line.at))

    def facts_changed(self, table: LiveTable, *, notify: bool) -> None:
        self._publish(table, FactsPublished(facts_of(table, self.seq(table)), notify))

    def removed(self, table: LiveTable) -> None:
        self._publish(table, RemovedPublished())

    def listening(self, table: LiveTable) -> None:
        """Another process follows ``table`` (it said it watches, or sent a command): its
        publications are sent again."""
        self._listeners[table] = self._listeners.get(table, 0) + 1
        self._unheard.discard(table)

    def _publish(self, table: LiveTable, body: Published) -> None:
        seq = self._seq[table] = self.seq(table) + 1
        cluster = self.cluster
        epoch = cluster.ownership.held.get(table.id)
        if epoch is None:
            return
        if table in self._unheard:
            self.unsent += 1
            return
        publication = Publication(table.id, seq, cluster.process, epoch, body)
        listeners = self._listeners.get(table, 0)

        def heard(receivers: int) -> None:
            if receivers == 0 and self._listeners.get(table, 0) == listeners:
                self._unheard.add(table)

        self.send(table.id, encode_publication(publication), heard)

    def send(
        self, table_id: str, data: dict[str, JSON], heard: Callable[[int], None] | None = None
    ) -> None:
        """Put one publication on the table's channel (soon, in order)."""
        self.cluster.publish_soon(self.cluster.namespace.table(table_id), data, heard)
