"""The game contract every game implements, seeded randomness and shared errors."""

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

__all__ = [
    "BadMove",
    "BadOptions",
    "Bot",
    "Clock",
    "EndReason",
    "Event",
    "Game",
    "GameError",
    "GameFinished",
    "IllegalMove",
    "Move",
    "NotYourTurn",
    "Result",
    "Seat",
    "derive_seed",
    "rng",
]
