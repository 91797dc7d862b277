"""What a table tells the people it waits for: the port between turn-based tables and
notifications (:mod:`bodoge.server.services.notify` fills it; the wiring hands it over).

It sits in the runtime, the lowest floor, because the tables call it and the runtime may
import nothing above it.  Each call returns at once: it never holds up a move.  What it is
told is written to the store's outbox in a task of its own and sent later, off the move's
path, so a failure of the mail server or a push service costs the table nothing.

Calling again for the same turn (a restart, a takeover in a cluster re-announcing the turn
that was running) is harmless: ``(player, table, turn)`` is a notification's identity, and
one is sent once.  ``turn`` is any number that grows with the table's turns — the count of
its moves when the turn began does.
"""

from __future__ import annotations

from typing import Protocol


class TurnNotifier(Protocol):
    """Tells a person who may not have the page open that a table needs them."""

    def your_turn(
        self, player_id: str, table_id: str, game: str, deadline: int | None, turn: int
    ) -> None:
        """It is ``player_id``'s turn at ``table_id`` (a game of ``game``), to be played by
        ``deadline`` (ms since the epoch; ``None``: no limit)."""

    def game_ended(self, player_id: str, table_id: str, game: str) -> None:
        """The game at ``table_id`` ended (``player_id`` sat there)."""

    def invited(self, player_id: str, table_id: str, game: str, by: str) -> None:
        """``by`` (a name) invited ``player_id`` to the table ``table_id``."""


class NoNotifier:
    """Tells nobody: a server built without notifications, and tests of the tables."""

    def your_turn(
        self, player_id: str, table_id: str, game: str, deadline: int | None, turn: int
    ) -> None:
        return None

    def game_ended(self, player_id: str, table_id: str, game: str) -> None:
        return None

    def invited(self, player_id: str, table_id: str, game: str, by: str) -> None:
        return None
