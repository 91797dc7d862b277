"""Small drivers for writing whole Tagiron games in tests."""

from __future__ import annotations

from collections.abc import Sequence

from bodoge.core.game import Event
from bodoge.core.values import JSON
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.game import TagironGame
from bodoge.games.tagiron.moves import Ask, move_to_json
from bodoge.games.tagiron.state import TagironState

GAME = TagironGame()


def new(players: int, seed: int = 1) -> TagironState:
    return GAME.setup(GAME.options({"players": players}), players, seed)


def any_question(state: TagironState) -> Ask:
    card = state.face_up[0]
    choices = CARDS[card].choices
    return Ask(card, choices[0] if choices else None)


def ask(state: TagironState) -> tuple[TagironState, list[Event]]:
    """The player to move asks the first face-up card."""
    return GAME.apply(state, state.turn, any_question(state))


def wrong_tiles(right: tuple[str, ...]) -> tuple[str, ...]:
    """A well-formed declaration that differs from ``right``."""
    for candidate in (("R0", "B0", "R1", "B1", "R2"), ("R7", "B7", "R8", "B8", "R9")):
        guess = candidate[: len(right)]
        if guess != right:
            return guess
    raise AssertionError("unreachable")


def bot_history(players: int, seed: int, levels: Sequence[str]) -> dict[str, JSON]:
    """A bot game (``levels`` by seat) as ``GET /api/tables/{id}/history`` returns it."""
    from bodoge.games.tagiron.selfplay import play_game  # the bots: numpy and the solver

    record = play_game(players, list(levels), seed)
    return {
        "table": {"game": "tagiron"},
        "seed": seed,
        "options": {"players": players},
        "moves": [
            {"n": i + 1, "seat": s, "move": move_to_json(m)}
            for i, (s, m) in enumerate(record.moves)
        ],
    }
