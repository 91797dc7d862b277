"""Whole random Tagiron games for 2, 3 and 4 players: tiles stay, every game ends.

The contract every game keeps (replay, JSON, refused moves, secrets) is
checked in ``tests/core/test_contract.py``; these are Tagiron's own rules.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from bodoge.core.errors import GameError
from bodoge.games.tagiron.tiles import ALL_TILES
from tests.games.tagiron.helpers import GAME, new
from tests.games.tagiron.kit import random_move

#: Moves tried, refused ones included, within which a game must end.
MAX_MOVES = 400


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32), moves=st.integers())
def test_random_games_keep_the_tiles_and_end(players: int, seed: int, moves: int) -> None:
    state = new(players, seed)
    rng = random.Random(moves)
    for _ in range(MAX_MOVES):
        if state.result is not None:
            break
        seat, move = random_move(state, rng)
        try:
            state, _ = GAME.apply(state, seat, move)
        except GameError:
            continue
        in_play = Counter(t for h in state.hands for t in h) + Counter(state.centre)
        assert in_play == Counter(ALL_TILES)
    assert state.result is not None, "a game ran past its bound"
    revealed = GAME.view(state, None)["revealed"]
    assert revealed["hands"] == [list(h) for h in state.hands]
