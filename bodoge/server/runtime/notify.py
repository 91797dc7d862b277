"""The seam for notifications of turn-based play (e-mail, Web Push): ``TurnNotifier``.

The runtime tells a :class:`TurnNotifier` what a person away from the page may want to
hear of; it never waits for it (each call runs as a background job of the table's server:
a slow or failing notifier holds up no move) and never learns what was sent.  The wiring
(``bodoge/server/wiring.py``) installs one as ``Tables.notifier``; the default,
:class:`NoNotifier`, does nothing.  Only turn-based tables call it (``settings.turn_based``).

* ``your_turn(player_id, table_id, game, deadline, after=None)`` — a person's turn began
  (or, in an Illustori vote, their vote is awaited): ``deadline`` is when it runs out, in
  wall-clock ms; ``after``: the turn began during the person's vacation, which runs until
  then — tell them when it ends (or when they end it early), not before.  Called when
  the turn begins, by the process that runs the table (the one that committed the move),
  and again for each turn still running when a table is brought back
  (a restart, a takeover in a cluster: the process that began it may have died before its
  notifier stored it) with the same ``deadline``: the deadline names the turn, and a
  notifier keeps one notification per turn.  Not called for an *absent* person's turns
  (the stand-in plays them at once).
* ``game_ended(player_id, table_id, game, seat, final)`` — the game ended; ``seat`` is the
  person's, ``final`` (:class:`Final`) every seat's name and place and whether the game was
  abandoned: what the person is told of how it went for them and for the others.
* ``invited(player_id, table_id, game, by)`` — ``by`` (a player id) made the rematch
  ``table_id`` of a turn-based game ``player_id`` played: a waiting table to join.

``watching(player_id, table_id)`` (:class:`Presence`, given to the notifier by the wiring
as ``Tables.watching``) says whether the person has the table open right now, on this
process or (cluster) through another one, as the table's owner knows it: a notifier sends
nothing to someone looking at the table.  Ask it at sending time; it answers ``False`` for
a table not running on this process, so in a cluster only the table's owner may trust it
(the services' notifier leaves a table's notifications to its owner).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Standing:
    """One seat at a game's end: the person's name (``None``: a bot played it throughout)
    and its place (1 = first, several seats may share one; ``None``: unranked)."""

    name: str | None
    place: int | None


@dataclass(frozen=True)
class Final:
    """How a game ended, as its people are told: every seat in seat order, and whether it
    was abandoned (nobody placed).

    >>> Final((Standing("Hana", 2), Standing(None, 1))).place(0)
    2
    """

    standings: tuple[Standing, ...]
    abandoned: bool = False

    def place(self, seat: int) -> int | None:
        return self.standings[seat].place if 0 <= seat < len(self.standings) else None


class TurnNotifier(Protocol):
    async def your_turn(
        self, player_id: str, table_id: str, game: str, deadline: int, after: int | None = None
    ) -> None: ...

    async def game_ended(
        self, player_id: str, table_id: str, game: str, seat: int, final: Final
    ) -> None: ...

    async def invited(self, player_id: str, table_id: str, game: str, by: str) -> None: ...


class Presence(Protocol):
    def __call__(self, player_id: str, table_id: str) -> bool: ...


class NoNotifier:
    """Tells nobody anything (the default)."""

    async def your_turn(
        self, player_id: str, table_id: str, game: str, deadline: int, after: int | None = None
    ) -> None:
        pass

    async def game_ended(
        self, player_id: str, table_id: str, game: str, seat: int, final: Final
    ) -> None:
        pass

    async def invited(self, player_id: str, table_id: str, game: str, by: str) -> None:
        pass
