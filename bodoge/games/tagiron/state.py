"""The state of a Tagiron game: immutable data, changed only by :mod:`.rules`.

Tiles are codes (``R0``…``B9``, ``G5``, see :mod:`.tiles`), question cards ids
(see :mod:`.cards`).  Every tile lies in exactly one hand or in the centre;
every question card is face up, in the deck or asked (then it is in the log).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bodoge.core.game import Result, Seat
from bodoge.games.tagiron.events import LogEntry
from bodoge.games.tagiron.options import TagironOptions

Phase = Literal["play", "final_declaration", "last_turns", "ended"]
Status = Literal["active", "right", "eliminated"]


@dataclass(frozen=True)
class TagironState:
    """One moment of a game.

    ``deck[0]`` is the next question card to turn up.  ``turn`` is ``None``
    once the game has ended.
    """

    options: TagironOptions
    hands: tuple[tuple[str, ...], ...]
    #: The target in 3–4 players; in 2 players the ten tiles set aside, never used.
    centre: tuple[str, ...]
    face_up: tuple[str, ...]
    deck: tuple[str, ...]
    first: Seat
    turn: Seat | None
    phase: Phase = "play"
    status: tuple[Status, ...] = ()
    #: Seat order of right declarations (3–4 players) or the 2-player winner.
    right_order: tuple[Seat, ...] = ()
    #: Seats still owed their one last turn once the question cards ran out.
    last_turns: tuple[Seat, ...] = ()
    log: tuple[LogEntry, ...] = ()
    result: Result | None = None

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def target(self) -> tuple[str, ...]:
        """What is to be declared: for 2 players, see :meth:`target_of`."""
        return self.centre

    def target_of(self, seat: Seat) -> tuple[str, ...]:
        return self.hands[1 - seat] if self.players == 2 else self.centre

    def may_declare(self, seat: Seat) -> bool:
        if self.phase == "ended":
            return False
        if self.players == 2:
            return self.turn == seat
        if self.options.own_turn_declarations and self.turn != seat:
            return False
        return self.status[seat] == "active"

    def may_ask(self, seat: Seat) -> bool:
        return self.phase == "play" and self.turn == seat and bool(self.face_up)

    def may_pass(self, seat: Seat) -> bool:
        """Only in a turn in which one may only declare or pass."""
        return self.turn == seat and self.phase not in ("play", "ended")
