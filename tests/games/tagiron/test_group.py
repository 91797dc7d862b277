"""The 3–4 player expert: its declaration rule, its picture of the rivals, and whole games."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bodoge.games.tagiron.ai.bots import make_bot
from bodoge.games.tagiron.ai.group import (
    FLOOR,
    LEAK,
    RACE_ON,
    RIVALS,
    GroupExpert,
    Stakes,
    declare_now,
    racing_rivals,
    stakes_of,
    turns_until,
)
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.race import RATE, rival_gains, rivals_given
from bodoge.games.tagiron.ai.rivals import list_worlds, rival_race, told_by_my_answers
from bodoge.games.tagiron.ai.situation import Situation
from bodoge.games.tagiron.ai.solver import Deduction
from bodoge.games.tagiron.moves import Ask, Declare
from bodoge.games.tagiron.rules import questions
from bodoge.games.tagiron.selfplay import play_game
from tests.games.tagiron.helpers import GAME, new


def seeds_where_first(players: int, seat: int, count: int) -> list[int]:
    """Seeds whose deal lets ``seat`` start (keeps the slow 4-player opening to cheap bots)."""
    return [s for s in range(500) if new(players, s).first == seat][:count]


def old_threshold(p: float) -> bool:
    return p >= 0.5


def only_when_certain(p: float) -> bool:
    return p >= 1.0


# --- whole games ------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_three_player_games_with_experts_are_legal_and_never_wrong_when_certain(seed) -> None:
    levels = [("expert", "normal", "normal"), ("normal", "expert", "expert")][seed % 2]
    record = play_game(3, levels, seed, check_certainty=True)
    assert record.reason in ("places_decided", "no_declarers", "no_cards")


def test_four_player_games_with_experts_are_legal_and_never_wrong_when_certain() -> None:
    for seed in seeds_where_first(4, 0, 2):
        record = play_game(4, ("easy", "expert", "expert", "normal"), seed, check_certainty=True)
        assert record.questions > 0


# --- the declaration rule -----------------------------------------------------------------


def test_declares_below_half_when_a_rival_is_already_certain() -> None:
    # Racing one rival for the last places, which asks next: at 45% the expert
    # names its centre, where the old 50% rule and "only when certain" wait.
    stakes = Stakes(players=3, racing=1, eliminated=0, until_turn=1)
    assert declare_now(0.45, stakes, certain=[1.0])
    assert not old_threshold(0.45) and not only_when_certain(0.45)
    # the same with two rivals, one of them certain, and with 4 players
    assert declare_now(0.45, Stakes(3, racing=2, eliminated=0, until_turn=2), certain=[1.0])
    assert declare_now(0.35, Stakes(4, racing=2, eliminated=0, until_turn=2), certain=[1.0])


def test_waits_above_half_when_no_rival_is_close() -> None:
    # On its own turn its question comes first: at 60% it asks, where the old rule declared.
    for players, racing in ((3, 1), (3, 2), (4, 2), (4, 3)):
        stakes = Stakes(players, racing=racing, eliminated=0, until_turn=0)
        assert not declare_now(0.6, stakes, certain=[0.0])
    assert old_threshold(0.6)


def test_a_rival_that_is_certain_makes_declaring_likelier() -> None:
    for players in (3, 4):
        for racing in range(1, players):
            for until in range(racing + 1):
                stakes = Stakes(players, racing=racing, eliminated=0, until_turn=until)
                for p in np.linspace(FLOOR, 0.95, 17):
                    calm = declare_now(p, stakes, certain=[0.0])
                    pressed = declare_now(p, stakes, certain=[1.0])
                    assert pressed or not calm
                    # and a likelier centre never turns a declaration into waiting
                    assert declare_now(min(p + 0.05, 1.0), stakes, certain=[1.0]) or not pressed


def test_eliminated_rivals_make_a_wrong_guess_dearer() -> None:
    # Ahead of an eliminated rival only by finishing placed: a wrong guess throws that away.
    assert declare_now(0.35, Stakes(3, racing=1, eliminated=0, until_turn=1), certain=[0.0])
    assert not declare_now(0.35, Stakes(3, racing=1, eliminated=1, until_turn=1), certain=[0.0])


def test_waiting_is_weighed_world_by_world() -> None:
    stakes = Stakes(players=3, racing=2, eliminated=0, until_turn=1)
    mixed = stakes.wait([0.0, 1.0, 1.0], weights=[2.0, 1.0, 1.0])
    assert mixed == pytest.approx((2 * stakes.wait([0.0]) + 2 * stakes.wait([1.0])) / 4)
    assert stakes.bounds() == (stakes.wait([2.0]), stakes.wait([0.0]))
    # the table covers every count of rivals and every turn distance
    for players, table in RACE_ON.items():
        assert {(r, t) for r in range(1, players) for t in range(r + 1)} <= set(table)


def test_turns_until_counts_only_seats_that_still_declare() -> None:
    view = {"turn": 2, "players": 4, "status": ["active", "eliminated", "active", "active"]}
    assert turns_until(view, 2) == 0
    assert turns_until(view, 3) == 1
    assert turns_until(view, 0) == 2
    stakes = stakes_of(view, 0)
    assert (stakes.racing, stakes.eliminated, stakes.until_turn) == (2, 1, 2)


# --- the picture of the rivals ---------------------------------------------------------


def _states(players: int, seeds, moves: int):
    """States of seeded games in which random questions are asked (no declarations)."""
    for seed in seeds:
        state = new(players, seed)
        choose = random.Random(seed)
        for _ in range(moves):
            if state.result is not None or state.phase != "play":
                break
            yield state
            state, _ = GAME.apply(state, state.turn, choose.choice(questions(state)))


def _true_world(d: Deduction, state) -> int:
    """The row of the real deal among the worlds (as tile sets: the green 5s are alike)."""
    worlds, u = list_worlds(d), d.universe

    def same(hands: np.ndarray, tiles: tuple[str, ...]) -> np.ndarray:
        return u.distinct[hands] == u.set_index[tiles]

    fits = same(worlds.centre, state.centre)
    for s, hands in worlds.hands.items():
        fits &= same(hands, state.hands[s])
    assert fits.any(), "the real deal is always a world"
    return int(np.argmax(fits))


@pytest.mark.parametrize("players", [3, 4])
def test_the_race_in_the_real_world_is_what_the_rivals_know(players: int) -> None:
    checked, seen = 0, set()
    for state in _states(players, range(3), 7):
        seat = (state.turn + 1) % players
        d = Deduction(Position.from_view(GAME.view(state, seat)))
        if d.worlds > 400:
            continue
        rivals = [s for s in range(players) if s != seat]
        race = rival_race(d, rivals, hands_per_rival=10**6)
        assert race is not None and race.worlds == d.worlds == len(list_worlds(d))
        w = _true_world(d, state)
        for s in rivals:
            theirs = Deduction(Position.from_view(GAME.view(state, s)))
            assert race.certain[s][w] == theirs.certain
            seen.add(theirs.certain)
        checked += 1
    assert checked >= 3 and seen == {True, False}


def test_hands_not_looked_at_count_as_certain_as_the_looked_at_ones() -> None:
    for state in _states(3, range(10), 7):
        d = Deduction(Position.from_view(GAME.view(state, state.turn)))
        rivals = [s for s in range(3) if s != state.turn]
        if not 40 <= d.worlds <= 20_000:
            continue
        sampled = rival_race(d, rivals, hands_per_rival=1)
        for s in rivals:
            values = sampled.certain[s]
            assert ((values >= 0) & (values <= 1)).all()
            # the likeliest hand is looked at, so its worlds carry exact 0 or 1
            held = list_worlds(d).hands[s]
            top = np.bincount(held).argmax()
            assert set(values[held == top]) <= {0.0, 1.0}
        return
    raise AssertionError("no position with enough worlds")


def test_too_many_worlds_are_not_listed() -> None:
    d = Deduction(Position.from_view(GAME.view(new(3, 1), 0)))
    assert list_worlds(d) is None and rival_race(d, [1, 2]) is None


def test_what_my_answer_tells_the_others() -> None:
    state = new(3, 4)
    seat = state.turn
    position = Position.from_view(GAME.view(state, seat))
    told = told_by_my_answers(position, [("total_sum", None), ("red_sum", None)])
    assert told[("red_sum", None)] == 0.0  # the asker does not answer a plain card
    assert told[("total_sum", None)] > 0.0  # a shared one it answers too
    four = Position.from_view(GAME.view(new(4, 4), 0))
    assert told_by_my_answers(four, [("red_sum", None)])[("red_sum", None)] > 0.0


# --- the expert at the table ---------------------------------------------------------------


def _situation(state, seat: int) -> Situation:
    view = GAME.view(state, seat)
    return Situation(view, seat, Deduction(Position.from_view(view)))


def test_out_of_turn_the_expert_declares_below_half_when_a_rival_is_certain() -> None:
    for state in _states(3, range(60), 12):
        for seat in range(3):
            if seat == state.turn:
                continue
            s = _situation(state, seat)
            p = s.deduction.best()[1]
            if s.deduction.certain or not FLOOR <= p < 0.5:
                continue
            rivals = [t for t in range(3) if t != seat]
            if not any(Deduction(Position.from_view(GAME.view(state, t))).certain for t in rivals):
                continue
            race = rival_race(s.deduction, rivals)
            if race is None or race.certain_rivals().min() < 1:
                continue  # this seat cannot tell that a rival is certain
            view = GAME.view(state, seat)
            move = make_bot("expert").act(view, seat, random.Random(0))
            assert move == Declare(s.deduction.best()[0])
            assert make_bot("normal").act(view, seat, random.Random(0)) is None
            return
    raise AssertionError("no such position")


def test_on_its_turn_the_expert_asks_at_better_than_half_while_nobody_is_certain() -> None:
    for state in _states(3, range(60), 12):
        seat = state.turn
        s = _situation(state, seat)
        if not 0.5 <= s.deduction.best()[1] < 0.7:
            continue
        if any(Deduction(Position.from_view(GAME.view(state, t))).certain for t in range(3)):
            continue
        assert not GroupExpert().should_declare(s)
        move = make_bot("expert").act(GAME.view(state, seat), seat, random.Random(0))
        assert isinstance(move, Ask)
        return
    raise AssertionError("no such position")


def test_in_the_last_turns_the_expert_declares_at_once() -> None:
    state = new(3, 6)
    choose = random.Random(6)
    while state.face_up:
        state, _ = GAME.apply(state, state.turn, choose.choice(questions(state)))
    assert state.phase == "last_turns"
    seat = next(s for s in range(3) if s != state.turn and state.status[s] == "active")
    move = make_bot("expert").act(GAME.view(state, seat), seat, random.Random(0))
    assert isinstance(move, Declare)
    GAME.apply(state, seat, move)  # legal out of turn


def test_the_expert_asks_the_question_of_most_value_against_its_rivals() -> None:
    """Once its worlds can be listed, the expert charges a question what it brings an
    average rival (:func:`rivals_given`); before, the bits its own answer tells them
    (:data:`LEAK`, 3 players).  It asks the most valuable question that tells it
    something, and somewhere that is not the normal bot's (the most bits)."""
    differs = read = opening = False
    for state in _states(3, range(8), 4):
        seat = state.turn
        s = _situation(state, seat)
        if s.deduction.certain:
            continue
        worth = GroupExpert().worths(s)
        move = GroupExpert().question(s, random.Random(0))
        informative = [w.value for w in worth.values() if w.informative]
        assert worth[move.card, move.choice].value == pytest.approx(max(informative))
        gains = rival_gains(s.deduction, s.variants, racing_rivals(s.view, seat))
        told = told_by_my_answers(s.position, s.variants)
        for v, w in worth.items():
            if gains is None:
                assert w.given == pytest.approx((1 - w.settle) * LEAK[3] * told[v] / RATE)
            else:
                assert w.given == pytest.approx(RIVALS[3] * rivals_given(gains, v, w.settle))
        read |= gains is not None
        opening |= gains is None
        bits = s.deduction.question_bits(s.variants)
        differs |= bits[move.card, move.choice] < max(bits.values()) - 1e-9
    assert differs and read and opening


def test_with_4_players_the_expert_asks_for_the_most_bits_at_the_opening() -> None:
    """Everyone answers every question with 4 players, so before the rivals can be read
    (the worlds too many to list) a seat's answer is heard whoever asks: the expert
    charges nothing for it and asks what the normal bot asks."""
    for state in _states(4, range(3), 1):
        s = _situation(state, state.turn)
        assert rival_gains(s.deduction, s.variants, [1, 2, 3]) is None
        assert set(GroupExpert().charges(s).values()) == {0.0}
        move = GroupExpert().question(s, random.Random(0))
        bits = s.deduction.question_bits(s.variants)
        assert bits[move.card, move.choice] == pytest.approx(max(bits.values()))
