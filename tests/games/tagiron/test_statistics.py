"""Tagiron's statistics for profiles: questions asked, and how many before a right declaration."""

from __future__ import annotations

from bodoge.games.tagiron.moves import Declare
from tests.games.tagiron.helpers import GAME, ask, new, wrong_tiles


def test_two_players_count_the_questions_before_each_right_declaration() -> None:
    state = new(2, seed=2)
    first, second = state.first, 1 - state.first
    for _ in range(3):  # first, second, first ask
        state, _ = ask(state)
    state, _ = GAME.apply(state, second, Declare(wrong_tiles(state.hands[first])))
    state, _ = ask(state)  # first's third question
    state, _ = ask(state)  # second's second
    state, _ = GAME.apply(state, first, Declare(state.hands[second]))
    assert GAME.statistics(state, first) == {"questions": 3, "right": 1, "questions_to_right": 3}
    state, _ = GAME.apply(state, second, Declare(state.hands[first]))  # a draw
    assert state.result is not None and state.result.places == (1, 1)
    assert GAME.statistics(state, second) == {"questions": 2, "right": 1, "questions_to_right": 2}


def test_a_player_who_never_declares_right_asked_questions_but_needed_none() -> None:
    state = new(3, seed=13)
    asker = state.turn
    state, _ = ask(state)
    for seat in range(3):
        state, _ = GAME.apply(state, seat, Declare(wrong_tiles(state.centre)))
    assert state.result is not None and state.result.places == (None, None, None)
    assert GAME.statistics(state, asker) == {"questions": 1, "right": 0, "questions_to_right": 0}
    other = (asker + 1) % 3
    assert GAME.statistics(state, other) == {"questions": 0, "right": 0, "questions_to_right": 0}


def test_an_out_of_turn_right_declaration_counts_the_questions_asked_so_far() -> None:
    state = new(3, seed=12)
    a, b = state.turn, (state.turn + 1) % 3
    state, _ = ask(state)  # a asks
    state, _ = ask(state)  # b asks
    state, _ = GAME.apply(state, a, Declare(state.centre))  # out of turn: c is to ask
    state, _ = ask(state)  # c asks
    state, _ = ask(state)  # b asks again (a is skipped now)
    state, _ = GAME.apply(state, b, Declare(state.centre))
    assert state.result is not None and state.result.places[a] == 1
    assert GAME.statistics(state, a) == {"questions": 1, "right": 1, "questions_to_right": 1}
    assert GAME.statistics(state, b) == {"questions": 2, "right": 1, "questions_to_right": 2}


def test_every_counted_field_is_declared() -> None:
    counts = GAME.statistics(new(2), 0)
    for field in GAME.stat_fields:
        assert all(k in counts for k in (field.of or (field.key,)))
