"""Relay for the contract harness: random play; no oracle, since its state hides nothing.

Every seat sees every word and every vote.  The ``secret`` in a view comes
from the seat alone, not from the state: it lets the server tests see that a
seat is sent its own view, and there is nothing in it a twin could change.
"""

from __future__ import annotations

import random

from bodoge.core.game import Move, Seat
from tests.core.kit import GameKit
from tests.games.relay.game import RelayGame, RelayState, Say, TimeUp, Vote

GAME = RelayGame()


def table(rng: random.Random) -> dict[str, object]:
    return {
        "players": rng.randint(2, 4),
        "rounds": rng.randint(1, 5),
        "vote_seconds": rng.choice([None, 30.0]),
    }


def random_move(state: RelayState, rng: random.Random) -> tuple[Seat | None, Move]:
    """Mostly the move awaited; now and then a vote or a word out of place, or time called."""
    roll = rng.random()
    if not state.voting:
        if roll < 0.1:
            return state.turn, Vote(True)
        if roll < 0.15:
            return None, TimeUp()
        return state.turn, Say(rng.choice(["りんご", "ごりら", "", "x" * 30]))
    if GAME.clock(state) is not None and roll < 0.15:
        return None, TimeUp()
    if roll < 0.25:
        return state.turn, Say("again")
    return rng.choice(sorted(GAME.to_act(state))), Vote(rng.random() < 0.7)


KIT = GameKit(game=GAME, table=table, move=random_move, secrets=None)
