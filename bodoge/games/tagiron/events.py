"""What happened in a Tagiron game, as small frozen dataclasses.

Events hold the whole truth (the tiles a declaration named, every hand at
the end); what each seat may see of them is decided in
:func:`bodoge.games.tagiron.views.observe`.  A question, a declaration and a
pass are also the entries of the public log the state keeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bodoge.core.game import Event, Result, Seat
from bodoge.games.tagiron.answers import Answer

if TYPE_CHECKING:  # the state holds the log of these events, so it imports them
    from bodoge.games.tagiron.state import Phase


@dataclass(frozen=True)
class Asked(Event):
    """A question and every answer to it, keyed by the answering seat."""

    seat: Seat
    card: str
    choice: int | None
    answers: tuple[tuple[Seat, Answer], ...]


@dataclass(frozen=True)
class Declared(Event):
    """A declaration and whether it was right.

    Everyone learns right or wrong; the tiles named are heard only by the
    seats in ``heard_by`` (2 players: both, since they name the opponent's
    tiles aloud; 3–4 players: the declarer alone) until the game ends.
    """

    seat: Seat
    tiles: tuple[str, ...]
    right: bool
    heard_by: tuple[Seat, ...]


@dataclass(frozen=True)
class Passed(Event):
    seat: Seat


@dataclass(frozen=True)
class CardRevealed(Event):
    """A question card turned up from the deck into slot ``slot``."""

    card: str
    slot: int


@dataclass(frozen=True)
class PhaseChanged(Event):
    phase: Phase


@dataclass(frozen=True)
class TurnStarted(Event):
    seat: Seat


@dataclass(frozen=True)
class GameEnded(Event):
    """The end: every tile is revealed."""

    result: Result
    hands: tuple[tuple[str, ...], ...]
    centre: tuple[str, ...]


#: The events the public log keeps.
LogEntry = Asked | Declared | Passed
