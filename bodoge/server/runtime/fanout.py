"""Who watches a table, and as which seat: the only way table messages leave a table.

A table hands the audience either one message for everyone or a function
that renders the message for one seat (``None``: spectators); each distinct
seat is rendered and encoded once, however many tabs watch it.  Sending never
waits: a subscriber queues the text or drops itself when too far behind.

In a cluster the same boundary spans processes: the owner publishes what happened and
each process's mirror (:mod:`bodoge.server.replication.mirror`) renders for its own audience.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, KeysView, Mapping
from typing import Protocol

from bodoge.core.game import Seat
from bodoge.core.values import JSON
from bodoge.server.runtime.protocol import encode


class Subscriber(Protocol):
    """A connection as a table sees it."""

    @property
    def player_id(self) -> str | None: ...

    def send_text(self, text: str) -> None:
        """Queue one frame; must never block or raise."""

    def kick(self, code: int, *, flush: bool = False) -> None:
        """Close the connection with WebSocket close ``code``; must never block or raise."""


class Audience:
    def __init__(self) -> None:
        self._seats: dict[Subscriber, Seat | None] = {}
        self._present: Counter[str] = Counter()

    def __len__(self) -> int:
        return len(self._seats)

    def __contains__(self, sub: object) -> bool:
        return sub in self._seats

    def __iter__(self) -> Iterator[tuple[Subscriber, Seat | None]]:
        return iter(list(self._seats.items()))

    def add(self, sub: Subscriber, seat: Seat | None) -> bool:
        """Watch as ``seat``; true if this is the player's first open connection here."""
        if sub in self._seats:
            self._seats[sub] = seat
            return False
        self._seats[sub] = seat
        if sub.player_id is None:
            return False
        self._present[sub.player_id] += 1
        return self._present[sub.player_id] == 1

    def remove(self, sub: Subscriber) -> bool:
        """Stop watching; true if that was the player's last open connection here."""
        if sub not in self._seats:
            return False
        del self._seats[sub]
        if sub.player_id is None:
            return False
        self._present[sub.player_id] -= 1
        if self._present[sub.player_id] <= 0:
            del self._present[sub.player_id]
            return True
        return False

    def seat(self, sub: Subscriber) -> Seat | None:
        return self._seats.get(sub)

    def present(self, player_id: str | None) -> bool:
        return player_id is not None and player_id in self._present

    @property
    def people(self) -> int:
        """Players with at least one connection here (one, however many tabs)."""
        return len(self._present)

    def player_ids(self) -> KeysView[str]:
        return self._present.keys()

    def reseat(self, player_id: str, seat: Seat | None) -> list[Subscriber]:
        """Every connection of a player now watches as ``seat``; returns them."""
        moved = [sub for sub in self._seats if sub.player_id == player_id]
        for sub in moved:
            self._seats[sub] = seat
        return moved

    def send_all(self, message: Mapping[str, JSON]) -> None:
        if not self._seats:
            return
        text = encode(message)
        for sub in list(self._seats):
            sub.send_text(text)

    def send_each(self, render: Callable[[Seat | None], Mapping[str, JSON] | None]) -> None:
        """Send every subscriber the message rendered for its seat (``None``: send nothing)."""
        texts: dict[Seat | None, str | None] = {}
        for sub, seat in list(self._seats.items()):
            if seat not in texts:
                message = render(seat)
                texts[seat] = None if message is None else encode(message)
            text = texts[seat]
            if text is not None:
                sub.send_text(text)
