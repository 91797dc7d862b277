"""What happened in a Tagiron game, as small frozen dataclasses.

Events hold the whole truth (the tiles a declaration named, every hand at
the end); what each seat may see of them is decided in
:func:`bodoge.games.tagiron.views.observe`.  A question, a declaration and a
pass are also the entries of the public log the state keeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from bodoge.core.game import Event, Seat
from bodoge.core.values import JSON
from bodoge.core.vocabulary import GameEnded, TurnStarted
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


__all__ = [
    "Asked",
    "CardRevealed",
    "Declared",
    "GameEnded",
    "LogEntry",
    "Passed",
    "PhaseChanged",
    "TagironEnd",
    "TurnStarted",
    "revealed",
]


class TagironEnd(StrEnum):
    """Why a Tagiron game ended (the game's ``end_reasons``; stable codes, as the store keeps them).

    The end itself is core's :class:`~bodoge.core.vocabulary.GameEnded`, whose
    ``revealed`` holds every tile: ``{"hands": [...], "centre": [...]}``.
    """

    #: 2 players: the second player declared right, and wins.
    DECLARED = "declared"
    #: 2 players: both declared right, the second in its final declaration.
    DRAW = "draw"
    #: 2 players: the first player declared right and the second, in its final
    #: declaration, was wrong or passed.
    FINAL_DECLARATION_WRONG = "final_declaration_wrong"
    #: The question cards ran out and the last turns are over.
    NO_CARDS = "no_cards"
    #: 3–4 players: all but one declared right, so every place is decided.
    PLACES_DECIDED = "places_decided"
    #: 3–4 players: everyone has declared, before the cards ran out.
    NO_DECLARERS = "no_declarers"


def revealed(hands: tuple[tuple[str, ...], ...], centre: tuple[str, ...]) -> dict[str, JSON]:
    """Every tile, as the end reveals it (``GameEnded.revealed``, and a finished game's view).

    >>> revealed((("R0", "B1"), ("G2", "R3")), ("B4",))
    {'hands': [['R0', 'B1'], ['G2', 'R3']], 'centre': []}
    """
    # With 2 players the centre holds the tiles set aside, which nobody ever sees.
    return {"hands": [list(h) for h in hands], "centre": list(centre) if len(hands) > 2 else []}


#: The events the public log keeps.
LogEntry = Asked | Declared | Passed
