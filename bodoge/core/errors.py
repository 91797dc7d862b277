"""Precise errors shared by every game.

Each error carries a stable ``code`` that the protocol sends to clients, so a
client can react to the kind of mistake without parsing the message.
"""

from __future__ import annotations


class GameError(Exception):
    """Base of every error a game raises for bad input; the state is never changed."""

    code = "game_error"


class BadOptions(GameError):
    """Table options that the game does not accept (unknown key, out-of-range value)."""

    code = "bad_options"


class BadMove(GameError):
    """A move that is malformed: wrong shape, unknown card or tile, missing choice."""

    code = "bad_move"


class IllegalMove(GameError):
    """A well-formed move that the rules do not allow now."""

    code = "illegal_move"


class NotYourTurn(IllegalMove):
    """A seat acted when the game is not waiting for it."""

    code = "not_your_turn"


class GameFinished(IllegalMove):
    """A move after the game has ended."""

    code = "game_finished"
