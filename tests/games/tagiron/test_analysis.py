"""The in-game assistant's report, built from a seat's view only."""

from __future__ import annotations

import numpy as np
import pytest

from bodoge.games.tagiron.ai.analysis import analyse_view
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.solver import Deduction
from bodoge.games.tagiron.moves import Ask, Declare
from tests.games.tagiron.helpers import GAME, ask, new


def test_two_player_report_narrows_as_answers_come() -> None:
    state = new(2, seed=9)
    seat = state.turn
    before = analyse_view(GAME.view(state, seat), seat)
    assert before["target"] == "opponent" and len(before["slots"]) == 5
    assert {q["card"] for q in before["questions"]} == set(state.face_up)
    state, _ = GAME.apply(
        state,
        seat,
        Ask("where_0")
        if "where_0" in state.face_up
        else Ask(
            next(c for c in state.face_up if c in ("total_sum", "red_sum", "blue_sum", "odd_count"))
            if any(c in state.face_up for c in ("total_sum", "red_sum", "blue_sum", "odd_count"))
            else Ask(state.face_up[0], None)
        ),
    )
    after = analyse_view(GAME.view(state, seat), seat)
    assert after["candidates"] < before["candidates"]
    truth = state.hands[1 - seat]
    for position, tile in enumerate(truth):
        assert after["slots"][position][tile] > 0
    assert sum(c["p"] for c in after["top"]) <= 1 + 1e-9


@pytest.mark.parametrize("players", [3, 4])
def test_group_report_targets_the_centre(players: int) -> None:
    state = new(players, seed=10)
    seat = (state.turn + 1) % players
    # one question in, so the 4-player opening stays cheap
    state, _ = GAME.apply(
        state,
        state.turn,
        Ask("red_count")
        if "red_count" in state.face_up
        else Ask(next(c for c in state.face_up if not c.startswith("where_"))),
    )
    report = analyse_view(GAME.view(state, seat), seat)
    assert report["target"] == "centre" and "slots" not in report
    assert all(report["tiles"][t] > 0 for t in state.centre)
    mine = set(state.hands[seat])
    if state.hands[seat].count("G5") < 2:
        mine.discard("G5")  # the other green 5 may still lie in the centre
    assert not set(report["tiles"]) & mine


def test_no_report_after_the_end_or_for_another_seat() -> None:
    state = new(3, seed=11)
    assert analyse_view(GAME.view(state, 0), 1) is None
    for seat in (0, 1):
        state, _ = GAME.apply(state, seat, Declare(state.centre))
    assert analyse_view(GAME.view(state, 2), 2) is None


@pytest.mark.parametrize(("players", "asked"), [(2, 1), (3, 0), (3, 2), (4, 0), (4, 2)])
def test_every_hidden_hand_gets_each_positions_tiles(players: int, asked: int) -> None:
    """The memo sheet has a page per hidden hand: the report fills each one."""
    state = new(players, seed=12)
    for _ in range(asked):
        state, _ = ask(state)
    seat = state.turn
    report = analyse_view(GAME.view(state, seat), seat)
    others = [s for s in range(players) if s != seat]
    hidden = {str(s): state.hands[s] for s in others}
    if players > 2:
        hidden["centre"] = state.centre
    assert set(report["hands"]) == set(hidden)
    for key, truth in hidden.items():
        slots = report["hands"][key]
        assert len(slots) == len(truth)
        for position, tile in enumerate(truth):
            assert slots[position][tile] > 0, (key, position, tile)
            assert sum(slots[position].values()) == pytest.approx(1)
    if players == 2:
        assert report["hands"][str(others[0])] == report["slots"]


@pytest.mark.parametrize(("players", "asked"), [(3, 1), (4, 1), (4, 3)])
def test_each_opponents_worlds_are_those_listed_one_by_one(players: int, asked: int) -> None:
    """Every hand's weights are its count over the consistent worlds, as listed."""
    state = new(players, seed=13)
    for _ in range(asked):
        state, _ = ask(state)
    deduction = Deduction(Position.from_view(GAME.view(state, state.turn)))
    size = len(deduction.universe.hands)
    listed = {s: np.zeros(size) for s in deduction.others}
    for _centre, hands in deduction.world_blocks():
        for s, hand in zip(deduction.others, hands, strict=True):
            listed[s] += np.bincount(hand, minlength=size)
    weights = deduction.hand_weights()
    for s in deduction.others:
        assert np.array_equal(weights[s], listed[s]), s
        assert weights[s].sum() == deduction.worlds
