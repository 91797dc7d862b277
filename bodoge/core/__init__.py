"""The game contract every game implements, the facts every game shares, seeded randomness
and shared errors."""

from bodoge.core.errors import (
    BadMove,
    BadOptions,
    GameError,
    GameFinished,
    IllegalMove,
    NotYourTurn,
)
from bodoge.core.game import Bot, Clock, EndReason, Event, Game, Move, Result, Seat
from bodoge.core.rng import derive_seed, rng
from bodoge.core.vocabulary import GameEnded, TableFacts, TurnStarted

__all__ = [
    "BadMove",
    "BadOptions",
    "Bot",
    "Clock",
    "EndReason",
    "Event",
    "Game",
    "GameEnded",
    "GameError",
    "GameFinished",
    "IllegalMove",
    "Move",
    "NotYourTurn",
    "Result",
    "Seat",
    "TableFacts",
    "TurnStarted",
    "derive_seed",
    "rng",
]
