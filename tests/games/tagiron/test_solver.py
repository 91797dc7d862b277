"""The solver against plain brute force over joint worlds, for 2, 3 and 4 players."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bodoge.games.tagiron.ai.solver as solver_module
from bodoge.core.rng import rng
from bodoge.games.tagiron.ai import histograms
from bodoge.games.tagiron.ai.position import Position, PositionError, Question
from bodoge.games.tagiron.ai.solver import Deduction, face_up_variants
from bodoge.games.tagiron.ai.worlds import (
    VARIANT_INDEX,
    TileClasses,
    combos,
    hand_pairs,
    hand_splits,
    interchangeable,
    sequence_keys,
    tile_bits,
)
from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.moves import Declare
from bodoge.games.tagiron.rules import questions
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


def pair_table_bits(d: Deduction, variant: int) -> float:
    """The 4-player question value without symmetry: the earlier solver's sum.

    Seats b and c collapse to ``(union, answer of b, answer of c)`` with a
    multiplicity, and every (hand of a, union) split adds the rows of its union;
    one histogram of (centre, answers) per block of centres.  Kept as an
    independent reference for the symmetric sum that replaced it.
    """
    compact, entropy_of = histograms.compact, histograms.entropy
    u, ok = d.universe, d.ok
    n, k = u.n, u.k
    a, b, c = d.others
    (col_a, m_a), (col_b, m_b), (col_c, m_c) = (
        compact(u.answers[variant], ok[s], variant) for s in (a, b, c)
    )
    hp = hand_pairs(n, k)
    rows = np.nonzero(ok[b][hp.first] & ok[c][hp.second])[0]
    width_bc = m_b * m_c
    key = hp.rest[rows].astype(np.int64) * width_bc + col_b[hp.first[rows]] * m_c
    key += col_c[hp.second[rows]]
    key = np.sort(key)
    starts = np.flatnonzero(np.diff(key, prepend=-1))
    keys, mult = key[starts], np.diff(starts, append=len(key))
    union, code_bc = np.divmod(keys, width_bc)
    n_unions = len(combos(n, 2 * k))
    per_union = np.bincount(union, minlength=n_unions)
    union_start = np.concatenate(([0], np.cumsum(per_union)))
    sp = hand_splits(n, k, 2 * k)
    split_rows = np.nonzero(ok[a][sp.first] & (per_union[sp.second] > 0) & d.target_ok[sp.rest])[0]
    width = m_a * width_bc
    hist_a = np.zeros(width)
    xlogx_ca = 0.0
    centres = sp.rest[split_rows]
    step = max(1, min(64, 4_000_000 // width))  # centres per block
    for low in range(0, int(centres[-1]) + 1, step):
        lo, hi = np.searchsorted(centres, [low, low + step])
        if lo == hi:
            continue
        rows_here = split_rows[lo:hi]
        unions = sp.second[rows_here]
        sizes = per_union[unions]
        ends = np.cumsum(sizes)
        entry = np.repeat(union_start[unions] - (ends - sizes), sizes) + np.arange(ends[-1])
        row_cell = (centres[lo:hi] - low) * width + col_a[sp.first[rows_here]] * width_bc
        cell = np.repeat(row_cell, sizes) + code_bc[entry]
        cells = np.bincount(cell, weights=mult[entry], minlength=step * width)
        hist_a += cells.reshape(step, width).sum(axis=0)
        cells = cells[cells > 0]
        xlogx_ca += float(np.dot(cells, np.log2(cells)))
    total = float(d.counts.sum())
    h_ca = math.log2(total) - xlogx_ca / total
    return entropy_of(d.counts) + entropy_of(hist_a) - h_ca


def planned_bits(d: Deduction, variant: tuple[str, int | None]) -> float:
    """A question's value by the symmetric 4-player sum, whatever the world count."""
    return d._four_plan(VARIANT_INDEX[variant]).bits(d.counts)


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
        expected_bits = brute_bits(position, worlds, card, choice)
        assert value == pytest.approx(expected_bits, abs=1e-9)
        if position.players == 4:
            assert planned_bits(d, (card, choice)) == pytest.approx(expected_bits, abs=1e-9)


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
    # Few answers: many worlds.  The single listing, the chunked listing, the sum
    # over the pair table and the symmetric sum must give the same bits.
    position = position_after(4, 9, 1, seat=2)
    d = Deduction(position)
    assert d.worlds > 50_000
    variants = face_up_variants(position.face_up)[:3]
    one_block = d._bits_group([VARIANT_INDEX[v] for v in variants])
    monkeypatch.setattr(solver_module, "CHUNK_WORLDS", 20_000)
    chunked = d._bits_group([VARIANT_INDEX[v] for v in variants])
    pair_table = [pair_table_bits(d, VARIANT_INDEX[v]) for v in variants]
    assert chunked == pytest.approx(one_block, abs=1e-9)
    assert pair_table == pytest.approx(one_block, abs=1e-9)
    assert [planned_bits(d, v) for v in variants] == pytest.approx(one_block, abs=1e-9)


def test_the_four_player_opening_matches_the_pair_table() -> None:
    # No answer yet: all 63,063,000 worlds, the three other seats alike.  Each
    # card stands for one way of collapsing: colours in order (same-colour runs),
    # two-tile classes with a wide answer space (the sum), bigger classes (red
    # sum, where the 5s are).
    position = position_after(4, 5, 0, seat=1)
    d = Deduction(position)
    assert d.worlds == 63_063_000
    variants = [
        ("same_colour_runs", None),
        ("total_sum", None),
        ("red_sum", None),
        ("where_5", None),
    ]
    bits = d.question_bits(variants)
    for v in variants:
        assert bits[v] == pytest.approx(pair_table_bits(d, VARIANT_INDEX[v]), abs=1e-9), v


def test_a_centre_ruled_out_at_the_opening_breaks_the_symmetry() -> None:
    # A wrong declaration removes one centre: the tiles it names are no longer
    # interchangeable with the others, and the sums must see it.
    position = Position.from_json(
        {
            "players": 4,
            "seat": 0,
            "hand": ["R0", "B3", "G5", "R8"],
            "face_up": ["total_sum", "where_1or2", "same_colour_runs"],
            "log": [
                {
                    "type": "declaration",
                    "seat": 0,
                    "right": False,
                    "tiles": ["B0", "R1", "R4", "B9"],
                }
            ],
        }
    )
    d = Deduction(position)
    assert d.worlds == 63_063_000 - 34_650
    bits = d.question_bits([("total_sum", None), ("where_1or2", 1), ("same_colour_runs", None)])
    for v, value in bits.items():
        assert value == pytest.approx(pair_table_bits(d, VARIANT_INDEX[v]), abs=1e-9), v


@pytest.mark.parametrize(
    ("seed", "seat", "alike"),
    [
        (0, 3, 3),  # all three answered the same: sorted triples, under constraints
        (4, 0, 2),  # two alike; same-colour runs read off colours and the 0s
        (2, 1, 2),
    ],
)
def test_four_players_after_one_answer_match_the_pair_table(
    seed: int, seat: int, alike: int
) -> None:
    position = position_after(4, seed, 1, seat=seat)
    d = Deduction(position)
    assert d.worlds > solver_module.CHUNK_WORLDS
    ok = [d.ok[s] for s in d.others]
    same = sum(np.array_equal(ok[i], ok[j]) for i, j in ((0, 1), (0, 2), (1, 2)))
    assert same == {3: 3, 2: 1}[alike]
    bits = d.question_bits()
    for v, value in bits.items():
        assert value == pytest.approx(pair_table_bits(d, VARIANT_INDEX[v]), abs=1e-9), v


@pytest.mark.parametrize(
    ("seed", "seat", "asked"), [(7, 0, 1), (1, 2, 1), (3, 1, 2), (6, 3, 2), (5, 2, 1), (21, 0, 2)]
)
def test_symmetric_sum_matches_the_listing(seed: int, seat: int, asked: int) -> None:
    # Tens of thousands to a million worlds: the symmetric sum, forced for every
    # face-up question, against listing the worlds one by one.  The pairs of
    # seats b and c come from the unions or, when b has few hands left, from
    # those; the last two positions read same-colour runs off colours in order.
    position = position_after(4, seed, asked, seat=seat)
    d = Deduction(position)
    variants = face_up_variants(position.face_up)
    listed = d._bits_group([VARIANT_INDEX[v] for v in variants])
    assert [planned_bits(d, v) for v in variants] == pytest.approx(listed, abs=1e-9)
    assert list(d.question_bits(variants).values()) == pytest.approx(listed, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    labels=st.lists(st.integers(0, 3), min_size=4, max_size=7),
    data=st.data(),
)
def test_tile_classes_count_the_sets_they_stand_for(labels: list[int], data) -> None:
    n = len(labels)
    tc = TileClasses.of(np.array(labels))
    outer = data.draw(st.sets(st.integers(0, n - 1), min_size=1), label="outer")
    inner = data.draw(st.sets(st.sampled_from(sorted(outer))), label="inner")
    size = len(inner)

    def as_mask(tiles) -> np.ndarray:
        return np.array([sum(1 << t for t in tiles)])

    signature = Counter(labels[t] for t in inner)
    alike = [
        s for s in combinations(sorted(outer), size) if Counter(labels[t] for t in s) == signature
    ]
    canonical = min(alike)
    mask = as_mask(canonical)
    assert tc.ways(as_mask(outer), mask, tc.lone_partners(mask))[0] == len(alike)
    assert (tc.missing(mask) & as_mask(outer))[0] == 0
    assert all((tc.missing(as_mask(s)) & as_mask(outer))[0] != 0 for s in alike if s != canonical)
    sig = tc.signatures(as_mask(canonical))[0]
    assert all(tc.signatures(as_mask(s))[0] == sig for s in alike)


def test_interchangeable_tiles_of_a_sum_are_the_two_of_a_number() -> None:
    d = Deduction(position_after(4, 5, 0, seat=1))
    u = d.universe
    tc = interchangeable(u.n, u.k, u.answers[VARIANT_INDEX["total_sum", None]].astype(np.int64))
    numbers = [int(t[1]) for t in u.tiles]
    for i in range(u.n):
        for j in range(u.n):
            assert (tc.label[i] == tc.label[j]) == (numbers[i] == numbers[j])


def test_sequence_keys_tell_colour_orders_apart() -> None:
    bits = tile_bits(6, 3)
    colour = np.array([0, 1, 0, 1, 1, 2])
    keys = sequence_keys(bits, colour)
    reads = [tuple(colour[t] for t in range(6) if b[t]) for b in bits]
    for i in range(len(bits)):
        for j in range(len(bits)):
            assert (keys[i] == keys[j]) == (reads[i] == reads[j])


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


def test_the_bench_times_the_four_player_opening() -> None:
    from bodoge.games.tagiron.bench import bench_positions

    first, second = bench_positions(4, 1, asked=0)[0], bench_positions(4, 1, asked=1)[0]
    assert first.log == () and len(first.face_up) == 6
    assert len(second.log) == 1 and isinstance(second.log[0], Question)
