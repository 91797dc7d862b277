"""What happened in an Illustori game, as small frozen dataclasses.

Events hold the whole truth (a drawn card, every vote); what each seat may see
of them is decided in :func:`bodoge.games.illustori.views.observe`.  Vote
events carry the table's ``secret`` flag because an event is filtered without
the state at hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bodoge.core.game import Event
from bodoge.core.vocabulary import GameEnded, TurnStarted

__all__ = [
    "CardDrawn",
    "CardPlayed",
    "CardsExchanged",
    "DeckReshuffled",
    "FinalRound",
    "FirstWordGiven",
    "GameEnded",
    "IllustoriEnd",
    "Penalty",
    "TurnStarted",
    "VoteCast",
    "VoteResolved",
]


class IllustoriEnd(StrEnum):
    """Why an Illustori game ended (the game's ``end_reasons``; stable codes, as the store
    keeps them).

    The end itself is core's :class:`~bodoge.core.vocabulary.GameEnded`, whose
    ``revealed`` holds every seat's hand count then: ``{"hand_counts": [...]}``.
    """

    #: A player played their last card and the final round was played: empty hands win.
    HAND_EMPTIED = "hand_emptied"
    #: No word joined the chain for three rounds: the fewest cards in hand win.
    STALLED = "stalled"


@dataclass(frozen=True)
class FirstWordGiven(Event):
    """The first-word giver named the card turned up from the deck."""

    seat: int
    card: int
    word: str
    head: str
    tail: str


@dataclass(frozen=True)
class CardPlayed(Event):
    """A hand card was played with a word (the word is then voted on, or penalised)."""

    seat: int
    card: int
    word: str
    head: str
    tail: str


@dataclass(frozen=True)
class Penalty(Event):
    """The word broke a rule (``ends_with_n``, ``same_ends``, ``banned_joint``): card discarded."""

    seat: int
    card: int
    reason: str


@dataclass(frozen=True)
class VoteCast(Event):
    """``seat`` voted; ``votes_cast`` of ``voters`` votes are now in."""

    seat: int
    ok: bool
    votes_cast: int
    voters: int
    secret: bool


@dataclass(frozen=True)
class VoteResolved(Event):
    """The vote on ``seat``'s word ended: passed (card joins the chain) or failed (discarded).

    ``votes`` is ``(voter, ok)`` for every voter, ``timed_out`` the voters whose
    missing vote counted as OK.
    """

    seat: int
    card: int
    passed: bool
    ok_count: int
    ng_count: int
    votes: tuple[tuple[int, bool], ...]
    timed_out: tuple[int, ...]
    secret: bool


@dataclass(frozen=True)
class CardsExchanged(Event):
    """``seat`` gave back ``cards`` (to the discards) and draws as many."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class CardDrawn(Event):
    """``seat`` drew ``card``; only that seat learns which card."""

    seat: int
    card: int


@dataclass(frozen=True)
class DeckReshuffled(Event):
    """The deck ran out: the discards, shuffled, became the deck."""

    cards: int


@dataclass(frozen=True)
class FinalRound(Event):
    """``seat`` played their last card: the game ends with the first-word giver's turn."""

    seat: int
    ends_after: int
