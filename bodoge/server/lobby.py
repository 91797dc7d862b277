"""The lobby: every waiting or running table, live-updated for those who watch it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from bodoge.core.values import JSON
from bodoge.server.fanout import Subscriber
from bodoge.server.protocol import encode

if TYPE_CHECKING:
    from bodoge.server.table import LiveTable


class Lobby:
    def __init__(self) -> None:
        self._subs: set[Subscriber] = set()

    def subscribe(self, sub: Subscriber, tables: Iterable[LiveTable]) -> dict[str, JSON]:
        """Watch the lobby; returns the ``lobby`` message listing the open tables now."""
        self._subs.add(sub)
        listed = [t.summary() for t in tables if t.status != "finished"]
        listed.sort(key=lambda s: s["created_at"])
        return {"type": "lobby", "tables": listed}

    def unsubscribe(self, sub: Subscriber) -> None:
        self._subs.discard(sub)

    def changed(self, table: LiveTable) -> None:
        if table.status == "finished":
            self.removed(table.id)
        else:
            self._send({"type": "lobby.table", "table": table.summary()})

    def removed(self, table_id: str) -> None:
        self._send({"type": "lobby.removed", "table": table_id})

    def _send(self, message: dict[str, JSON]) -> None:
        if self._subs:
            text = encode(message)
            for sub in list(self._subs):
                sub.send_text(text)
