"""A stand-in never plays a card for an absent Illustori player: where its bot would play
one it exchanges that card, and it votes OK as the rules count a missing vote; so the absent
player keeps the cards they held, and the table still ends."""

from __future__ import annotations

import random

import pytest

from bodoge.games.illustori.bots import make_bot
from bodoge.games.illustori.game import IllustoriGame
from bodoge.games.illustori.moves import Exchange, FirstWord, PlayCard, Vote

GAME = IllustoriGame()


@pytest.mark.parametrize(("players", "seed"), [(3, 5), (4, 6), (5, 7)])
def test_an_absent_player_keeps_their_hand_and_never_wins_by_a_word(
    players: int, seed: int
) -> None:
    state = GAME.setup(GAME.options({"players": players, "language": "ja"}), players, seed)
    bot, rng = make_bot("normal"), random.Random(seed)
    dealt = len(state.hands[0])
    stood_in = {"exchange": 0, "vote": 0}
    while GAME.result(state) is None:
        seat = min(GAME.to_act(state))
        view = GAME.view(state, seat)
        move = bot.act(view, seat, rng)
        if seat == 0:
            instead = GAME.stand_in(view, seat, move)
            if isinstance(move, PlayCard):
                assert instead == Exchange((move.card,))
                stood_in["exchange"] += 1
            elif isinstance(move, Vote):
                assert instead == Vote(True)
                stood_in["vote"] += 1
            else:
                assert isinstance(move, FirstWord | Exchange) and instead == move
            move = instead
        state, _ = GAME.apply(state, seat, move)
        assert len(state.hands[0]) == dealt  # never a card played out, never one more
    assert stood_in["exchange"] and stood_in["vote"]
    result = GAME.result(state)
    assert result is not None
    assert result.places[0] != 1 or result.draw or result.reason == "stalled"
