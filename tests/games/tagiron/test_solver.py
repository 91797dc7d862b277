"""The solver against plain brute force over joint worlds, for 2, 3 and 4 players."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bodoge.games.tagiron.solver as solver_module
from bodoge.core.rng import rng
from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.position import Position, PositionError, Question
from bodoge.games.tagiron.rules import Declare, questions
from bodoge.games.tagiron.solver import Deduction, face_up_variants
from bodoge.games.tagiron.tiles import ALL_TILES, sort_hand
from tests.games.tagiron.helpers import GAME, new

# --- brute force: every arrangement of the unseen tiles, one by one ---------------


def brute_worlds(position: Position) -> list[tuple[tuple[str, ...], dict[int, tuple[str, ...]]]]:
    """Every consistent world as (target tiles, {other seat: its tiles})."""
    unseen = list(ALL_TILES)
    for code in position.hand:
        unseen.remove(code)
    k = position.k

    def fits(seat: int, tiles: tuple[str, ...]) -> bool:
        for entry in position.log:
            if isinstance(entry, Question):
                for s, given_answer in entry.answers:
                    if s == seat and answer(entry.card, tiles, entry.choice) != given_answer:
                        return False
        return True

    hands = {
        s: [c for c in combinations(range(len(unseen)), k) if fits(s, tuple(unseen[i] for i in c))]
        for s in position.others
    }

    def tiles(c: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(unseen[i] for i in c)

    def target_ok(target: tuple[str, ...]) -> bool:
        for entry in position.log:
            if getattr(entry, "tiles", None) is None or not hasattr(entry, "right"):
                continue
            if position.players == 2 and entry.seat != position.seat:
                continue
            if (sort_hand(entry.tiles) == target) != entry.right:
                return False
        return True

    worlds = []
    others = position.others
    everything = set(range(len(unseen)))
    if position.players == 2:
        for c in hands[others[0]]:
            if target_ok(tiles(c)):
                worlds.append((tiles(c), {others[0]: tiles(c)}))
        return worlds
    if position.players == 3:
        a, b = others
        for ha in hands[a]:
            for hb in hands[b]:
                if set(ha) & set(hb):
                    continue
                centre = tiles(tuple(sorted(everything - set(ha) - set(hb))))
                if target_ok(centre):
                    worlds.append((centre, {a: tiles(ha), b: tiles(hb)}))
        return worlds
    a, b, c = others
    for ha in hands[a]:
        for hb in hands[b]:
            if set(ha) & set(hb):
                continue
            for hc in hands[c]:
                if set(hc) & (set(ha) | set(hb)):
                    continue
                centre = tiles(tuple(sorted(everything - set(ha) - set(hb) - set(hc))))
                if target_ok(centre):
                    worlds.append((centre, {a: tiles(ha), b: tiles(hb), c: tiles(hc)}))
    return worlds


def entropy(counter: Counter) -> float:
    total = sum(counter.values())
    return -sum(n / total * math.log2(n / total) for n in counter.values())


def brute_bits(position: Position, worlds, card: str, choice: int | None) -> float:
    """I(target; answers of every other seat), straight from the definition."""
    joint: Counter = Counter()
    for target, hands in worlds:
        answers = tuple(repr(answer(card, hands[s], choice)) for s in sorted(hands))
        joint[target, answers] += 1
    targets: Counter = Counter()
    replies: Counter = Counter()
    for (target, answers), n in joint.items():
        targets[target] += n
        replies[answers] += n
    return entropy(targets) + entropy(replies) - entropy(joint)


def assert_matches_brute_force(position: Position) -> None:
    worlds = brute_worlds(position)
    d = Deduction(position)
    assert d.worlds == len(worlds)
    expected = Counter(target for target, _ in worlds)
    assert d.candidate_count == len(expected)
    got = dict(d.candidates())
    for target, n in expected.items():
        assert got[target] == pytest.approx(n / len(worlds))
    for slot, probabilities in enumerate(d.slot_probabilities()):
        by_tile = Counter()
        for target, _ in worlds:
            by_tile[target[slot]] += 1
        assert probabilities == pytest.approx({t: n / len(worlds) for t, n in by_tile.items()})
    bits = d.question_bits()
    assert set(bits) == set(face_up_variants(position.face_up))
    for (card, choice), value in bits.items():
        assert value == pytest.approx(brute_bits(position, worlds, card, choice), abs=1e-9)


def position_after(players: int, seed: int, asked: int, seat: int = 0) -> Position:
    """Seat ``seat``'s position after ``asked`` random questions of a seeded game."""
    state = new(players, seed)
    choose = rng(seed, "test")
    for _ in range(asked):
        state, _ = GAME.apply(state, state.turn, choose.choice(questions(state)))
    return Position.from_view(GAME.view(state, seat))


# --- the tests ------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), asked=st.integers(0, 6), seat=st.integers(0, 1))
def test_two_players_match_brute_force(seed: int, asked: int, seat: int) -> None:
    assert_matches_brute_force(position_after(2, seed, asked, seat))


@pytest.mark.parametrize(("seed", "asked"), [(1, 3), (2, 4), (5, 5), (11, 3)])
def test_three_players_match_brute_force(seed: int, asked: int) -> None:
    assert_matches_brute_force(position_after(3, seed, asked, seat=seed % 3))


@pytest.mark.parametrize(("seed", "asked"), [(3, 4), (8, 5), (13, 6)])
def test_four_players_match_brute_force(seed: int, asked: int) -> None:
    assert_matches_brute_force(position_after(4, seed, asked, seat=seed % 4))


def test_the_green_fives_count_as_two_worlds() -> None:
    # Both green 5s unseen and the opponent holds exactly one 5: every candidate
    # with a green 5 stands for two physical arrangements.
    p = Position.from_json(
        {
            "players": 2,
            "seat": 0,
            "hand": ["R0", "B0", "R1", "B1", "R2"],
            "log": [
                {"seat": 0, "card": "where_5", "answers": {"1": [3]}},
                {"seat": 0, "card": "total_sum", "answers": {"0": 4, "1": 31}},
                {"seat": 0, "card": "red_count", "answers": {"1": 2}},
            ],
        }
    )
    d = Deduction(p)
    assert all(c.worlds == 2 for c in d.ranked())
    assert d.worlds == 2 * d.candidate_count
    assert_matches_brute_force(p)


def test_a_wrong_declaration_rules_out_that_hand() -> None:
    state = new(2, 21)
    seat = state.turn
    for _ in range(4):
        state, _ = GAME.apply(state, state.turn, questions(state)[0])
    before = Deduction(Position.from_view(GAME.view(state, state.turn)))
    seat = state.turn
    guess = next(t for t, _ in before.candidates() if t != state.hands[1 - seat])
    state, _ = GAME.apply(state, seat, Declare(guess))
    after = Deduction(Position.from_view(GAME.view(state, seat)))
    assert after.candidate_count == before.candidate_count - 1
    assert guess not in dict(after.candidates())


def test_large_four_player_positions_agree_across_methods(monkeypatch) -> None:
    # Few answers: many worlds.  The collapsed pair table, the chunked listing and the
    # single listing must give the same bits.
    position = position_after(4, 9, 1, seat=2)
    d = Deduction(position)
    assert d.worlds > 50_000
    variants = face_up_variants(position.face_up)[:3]
    one_block = d._bits_group([solver_module.VARIANT_INDEX[v] for v in variants])
    monkeypatch.setattr(solver_module, "CHUNK_WORLDS", 20_000)
    chunked = d._bits_group([solver_module.VARIANT_INDEX[v] for v in variants])
    collapsed = [d._bits_four_collapsed(solver_module.VARIANT_INDEX[v]) for v in variants]
    assert chunked == pytest.approx(one_block, abs=1e-9)
    assert collapsed == pytest.approx(one_block, abs=1e-9)


def test_probabilities_add_up_and_tiles_agree() -> None:
    d = Deduction(position_after(3, 4, 3, seat=1))
    assert sum(p for _, p in d.candidates()) == pytest.approx(1)
    for slot in d.slot_probabilities():
        assert sum(slot.values()) == pytest.approx(1)
    tiles = d.tile_probabilities()
    for code, p in tiles.items():
        assert p == pytest.approx(sum(q for t, q in d.candidates() if code in t))


def test_certain_when_one_candidate_is_left() -> None:
    state = new(2, 2)
    seat = state.turn
    target = state.hands[1 - seat]
    choose = rng(2, "certain")
    while True:
        d = Deduction(Position.from_view(GAME.view(state, seat)))
        if d.certain or not state.face_up:
            break
        state, _ = GAME.apply(state, state.turn, choose.choice(questions(state)))
    if d.certain:
        assert d.best() == (target, 1.0)
    assert target in dict(d.candidates())


# --- errors -------------------------------------------------------------------------


def test_an_impossible_answer_names_its_entry() -> None:
    with pytest.raises(PositionError, match=r"log entry 2 \(red_sum by seat 0\).*answer 40"):
        Deduction(
            Position.from_json(
                {
                    "players": 2,
                    "seat": 0,
                    "hand": ["R0", "B0", "R1", "B1", "R2"],
                    "log": [
                        {"seat": 0, "card": "total_sum", "answers": {"0": 4, "1": 30}},
                        {"seat": 0, "card": "red_sum", "answers": {"1": 40}},
                    ],
                }
            )
        )


def test_answers_that_cannot_hold_together_name_the_entry() -> None:
    # Only one 0 is unseen, yet seats 1 and 2 both hold a 0 on their left.
    with pytest.raises(PositionError, match=r"log entry 2 \(.*\): no arrangement"):
        Deduction(
            Position.from_json(
                {
                    "players": 3,
                    "seat": 0,
                    "hand": ["R0", "B1", "R3", "G5", "B9"],
                    "log": [
                        {"seat": 0, "card": "red_count", "answers": {"1": 2, "2": 2}},
                        {"seat": 0, "card": "where_0", "answers": {"1": [1], "2": [1]}},
                    ],
                }
            )
        )


def test_own_answer_must_fit_own_hand() -> None:
    with pytest.raises(PositionError, match=r"log entry 1 .*your own hand answers 4, not 5"):
        Deduction(
            Position.from_json(
                {
                    "players": 2,
                    "seat": 0,
                    "hand": ["R0", "B0", "R1", "B1", "R2"],
                    "log": [{"seat": 1, "card": "total_sum", "answers": {"0": 5, "1": 30}}],
                }
            )
        )
