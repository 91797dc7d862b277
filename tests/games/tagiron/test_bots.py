"""Bots through the engine: legal moves only, never wrong when certain, sensible choices."""

from __future__ import annotations

import json
import random

import pytest

from bodoge.core.errors import BadOptions
from bodoge.games.tagiron.ai.bots import make_bot
from bodoge.games.tagiron.ai.group import GroupExpert
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.situation import Situation
from bodoge.games.tagiron.ai.solver import Deduction
from bodoge.games.tagiron.moves import Ask, Declare, Pass
from bodoge.games.tagiron.rules import questions
from bodoge.games.tagiron.selfplay import play_game
from tests.games.tagiron.helpers import GAME, new


def seeds_where_first(players: int, seat: int, count: int) -> list[int]:
    """Seeds whose deal lets ``seat`` start (keeps the slow 4-player opening to cheap bots)."""
    return [s for s in range(500) if new(players, s).first == seat][:count]


def test_unknown_level_is_refused() -> None:
    with pytest.raises(BadOptions):
        make_bot("grandmaster")
    assert GAME.bot("expert").level == "expert"


@pytest.mark.parametrize("levels", [("easy", "normal"), ("normal", "expert"), ("expert", "easy")])
def test_two_player_games_are_legal_and_certainty_is_right(levels: tuple[str, str]) -> None:
    for seed in range(12):
        record = play_game(2, levels, seed, check_certainty=True)
        assert record.reason in ("declared", "draw", "final_declaration_wrong", "no_cards")


def test_three_player_games_are_legal_and_certainty_is_right() -> None:
    for seed in range(5):
        levels = ("expert", "normal", "easy")[seed % 3 :] + ("expert", "normal", "easy")[: seed % 3]
        record = play_game(3, levels, seed, check_certainty=True)
        assert record.questions > 0


def test_four_player_games_are_legal_and_certainty_is_right() -> None:
    for seed in seeds_where_first(4, 0, 2):
        record = play_game(4, ("easy", "expert", "normal", "normal"), seed, check_certainty=True)
        assert record.questions > 0


def test_easy_declares_only_when_certain() -> None:
    bot = make_bot("easy")
    for seed in range(6):
        state = new(3, seed)
        choose = random.Random(seed)
        for _ in range(40):
            if state.result is not None or state.phase != "play":
                break
            for seat in sorted(GAME.may_act(state)):
                view = GAME.view(state, seat)
                move = bot.act(view, seat, choose)
                if isinstance(move, Declare) and view["phase"] == "play":
                    assert Deduction(Position.from_view(view)).certain
            state, _ = GAME.apply(state, state.turn, choose.choice(questions(state)))


def test_bots_wait_when_it_is_not_their_turn() -> None:
    state = new(2, 3)
    other = 1 - state.turn
    for level in ("easy", "normal", "expert"):
        assert make_bot(level).act(GAME.view(state, other), other, random.Random(0)) is None


def test_bots_read_nothing_but_the_json_view() -> None:
    state = new(3, 8)
    for _ in range(3):
        state, _ = GAME.apply(state, state.turn, questions(state)[0])
    seat = state.turn
    view = json.loads(json.dumps(GAME.view(state, seat)))
    for level in ("easy", "normal", "expert"):
        move = make_bot(level).act(view, seat, random.Random(1))
        assert isinstance(move, Ask | Declare)
        GAME.apply(state, seat, move)  # legal


def test_normal_asks_the_most_informative_question() -> None:
    state = new(2, 4)
    seat = state.turn
    view = GAME.view(state, seat)
    move = make_bot("normal").act(view, seat, random.Random(0))
    bits = Deduction(Position.from_view(view)).question_bits()
    assert isinstance(move, Ask)
    assert bits[move.card, move.choice] == pytest.approx(max(bits.values()))


def _state_with_candidates(players: int, wanted: int, seed: int):
    """A seeded 2-player state whose seat to move has exactly ``wanted`` candidates."""
    for s in range(seed, seed + 300):
        state = new(players, s)
        choose = random.Random(s)
        while state.result is None and state.phase == "play":
            d = Deduction(Position.from_view(GAME.view(state, state.turn)))
            if d.candidate_count == wanted:
                return state
            if d.candidate_count < wanted:
                break
            state, _ = GAME.apply(state, state.turn, choose.choice(questions(state)))
    raise AssertionError("no such state")


def test_expert_names_the_likelier_of_two_hands_at_once() -> None:
    state = _state_with_candidates(2, 2, 0)
    seat = state.turn
    move = make_bot("expert").act(GAME.view(state, seat), seat, random.Random(0))
    assert isinstance(move, Declare)


def test_normal_keeps_asking_with_two_candidates() -> None:
    state = _state_with_candidates(2, 2, 0)
    seat = state.turn
    assert isinstance(make_bot("normal").act(GAME.view(state, seat), seat, random.Random(0)), Ask)


def test_second_player_guesses_in_the_final_declaration() -> None:
    state = new(2, 5)
    first = state.first
    state, _ = GAME.apply(state, first, Declare(state.hands[1 - first]))
    assert state.phase == "final_declaration"
    second = 1 - first
    for level in ("easy", "normal", "expert"):
        move = make_bot(level).act(GAME.view(state, second), second, random.Random(0))
        assert isinstance(move, Declare)


def test_when_the_cards_run_out_bots_still_move() -> None:
    state = new(2, 6)
    while state.face_up:
        state, _ = GAME.apply(state, state.turn, questions(state)[0])
    assert state.phase == "last_turns"
    seat = state.turn
    for level in ("easy", "normal", "expert"):
        move = make_bot(level).act(GAME.view(state, seat), seat, random.Random(0))
        assert isinstance(move, Declare | Pass)
        GAME.apply(state, seat, move)


def test_group_bots_declare_out_of_turn_when_certain() -> None:
    # Play random questions until some seat other than the one to move is certain.
    for seed in range(40):
        state = new(3, seed)
        choose = random.Random(seed)
        while state.result is None and state.phase == "play":
            for seat in range(3):
                if seat == state.turn:
                    continue
                view = GAME.view(state, seat)
                if Deduction(Position.from_view(view)).certain:
                    move = make_bot("normal").act(view, seat, random.Random(0))
                    assert isinstance(move, Declare)
                    after, _ = GAME.apply(state, seat, move)
                    assert after.log[-1].right
                    return
            state, _ = GAME.apply(state, state.turn, choose.choice(questions(state)))
    raise AssertionError("no seat became certain out of turn")


def test_group_expert_declares_out_of_turn_once_a_guess_is_worth_more_than_waiting() -> None:
    # With 3 players, out of turn: the expert names its likeliest centre exactly
    # when its rule says declaring beats waiting, which is no fixed threshold
    # (it declares below 50% and waits above it); the normal bot waits for
    # certainty either way.
    seen = {"declare below half": False, "wait above half": False}
    for seed in range(40):
        state = new(3, seed)
        choose = random.Random(seed)
        while state.result is None and state.phase == "play" and not all(seen.values()):
            for seat in range(3):
                if seat == state.turn:
                    continue
                view = GAME.view(state, seat)
                d = Deduction(Position.from_view(view))
                if d.certain:
                    continue
                expert = make_bot("expert").act(view, seat, random.Random(0))
                assert make_bot("normal").act(view, seat, random.Random(0)) is None
                wanted = GroupExpert().should_declare(Situation(view, seat, d))
                assert expert == (Declare(d.best()[0]) if wanted else None)
                p = d.best()[1]
                seen["declare below half"] |= wanted and p < 0.5
                seen["wait above half"] |= not wanted and p >= 0.5
            state, _ = GAME.apply(state, state.turn, choose.choice(questions(state)))
        if all(seen.values()):
            return
    raise AssertionError(f"not every case came up: {seen}")
