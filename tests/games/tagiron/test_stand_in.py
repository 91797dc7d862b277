"""A stand-in (a late turn's bot, or the bot in the seat of a player who left) never
declares for an absent Tagiron player: it asks, or passes when asking is over, at 2, 3 and
4 players; so the absent player keeps what the rules give one who never declares."""

from __future__ import annotations

import random

import pytest

from bodoge.games.tagiron.ai.bots import make_bot
from bodoge.games.tagiron.moves import Ask, Declare, Pass
from bodoge.games.tagiron.state import TagironState
from tests.games.tagiron.helpers import GAME, ask, new


def _awaited(state: TagironState) -> int:
    return min(GAME.to_act(state))


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("level", ["easy", "normal"])
def test_where_its_bot_would_declare_a_stand_in_asks_or_passes(players: int, level: str) -> None:
    """Games of bots; wherever one would declare, the stand-in's move instead."""
    bot, declared = make_bot(level), 0
    for seed in range(3 if players < 4 else 2):
        state, rng = new(players, seed=40 + seed), random.Random(seed)
        while GAME.result(state) is None:
            for seat in sorted(GAME.may_act(state)):
                view = GAME.view(state, seat)
                move = bot.act(view, seat, rng)
                instead = GAME.stand_in(view, seat, move)
                assert not isinstance(instead, Declare)
                if not isinstance(move, Declare):
                    assert instead == move  # a question or a pass stays what it was
                    continue
                declared += 1
                if seat in GAME.to_act(state):
                    assert isinstance(instead, Ask | Pass)
                    GAME.apply(state, seat, instead)  # legal: raises if not
                else:
                    assert instead is None  # out of turn: nothing
            seat = _awaited(state)
            state, _ = GAME.apply(state, seat, bot.act(GAME.view(state, seat), seat, rng))
    assert declared  # the bots did get to declare: the stand-in was put to the test


@pytest.mark.parametrize("players", [2, 3, 4])
def test_an_absent_player_never_takes_a_place_a_declaration_would(players: int) -> None:
    """Whole games with seat 0 played by a stand-in all along, the others by normal bots."""
    bot = make_bot("normal")
    for seed in range(4 if players < 4 else 2):
        state, rng = new(players, seed=60 + seed), random.Random(seed)
        while GAME.result(state) is None:
            seat = _awaited(state)
            view = GAME.view(state, seat)
            move = bot.act(view, seat, rng)
            if seat == 0:
                move = GAME.stand_in(view, seat, move)
                assert isinstance(move, Ask | Pass)
            state, _ = GAME.apply(state, seat, move)
        result = GAME.result(state)
        assert result is not None
        if players == 2:
            # the opponent wins, or nobody does (the cards ran out): a draw, as the rules say
            assert result.places[0] != 1 or result.draw
        else:
            # the one who never declared: last when the places are decided, else unranked
            assert result.places[0] in (players, None)


def test_a_two_player_final_declaration_is_passed() -> None:
    """Only a declaration is left (the first player was right): the rules' pass, which
    counts as a wrong final declaration — the first player wins."""
    state = new(2, seed=4)
    first, second = state.first, 1 - state.first
    state, _ = GAME.apply(state, first, Declare(state.hands[second]))
    assert state.phase == "final_declaration"
    view = GAME.view(state, second)
    assert GAME.stand_in(view, second, Declare(state.hands[first])) == Pass()
    state, _ = GAME.apply(state, second, Pass())
    assert state.result.winners == (first,)


def test_in_the_last_turns_a_stand_in_passes() -> None:
    state = new(2, seed=7)
    while state.phase == "play":
        state, _ = ask(state)
    assert state.phase == "last_turns"
    seat = state.turn
    view = GAME.view(state, seat)
    assert GAME.stand_in(view, seat, Declare(state.hands[1 - seat])) == Pass()
