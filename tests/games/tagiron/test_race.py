"""What a question brings each seat, the asker's rivals included (``ai/race.py``), and the
3–4 player expert that asks by it: counted against plain sums over the listed worlds, and
on an arranged 4-player position where the most informative question hands the race to
the rivals."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from bodoge.games.tagiron.ai.bots import make_bot
from bodoge.games.tagiron.ai.group import GroupExpert, best_worth
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.race import heard, rival_gains, rivals_given, settle_chances
from bodoge.games.tagiron.ai.situation import Situation
from bodoge.games.tagiron.ai.solver import Deduction, Variant
from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.cards import answering_seats
from bodoge.games.tagiron.moves import Ask
from bodoge.games.tagiron.review import known, review_seat, views_from
from tests.games.tagiron.helpers import GAME


def plain_heard(d: Deduction, variant: Variant, asker: int) -> tuple[float, float]:
    """Bits and the chance to be certain, summed world by world with dictionaries: the
    answers a seat hears are those of the answering seats but itself."""
    u = d.universe
    card, choice = variant
    hearing = [
        k for k, s in enumerate(d.others) if s in answering_seats(d.position.players, asker, card)
    ]
    joint: Counter[tuple[object, ...]] = Counter()
    centres: Counter[int] = Counter()
    sets_by_code: dict[tuple[object, ...], set[int]] = {}
    for centre, hands in d.world_blocks():
        for w in range(len(centre)):
            code = tuple(repr(answer(card, u.hand_tiles[hands[k][w]], choice)) for k in hearing)
            c = int(centre[w])
            joint[(c, *code)] += 1
            centres[c] += 1
            sets_by_code.setdefault(code, set()).add(int(u.distinct[c]))
    total = sum(centres.values())
    by_code: Counter[tuple[object, ...]] = Counter()
    for (_centre, *code), n in joint.items():
        by_code[tuple(code)] += n

    def h(counts: Counter) -> float:
        return -sum(n / total * math.log2(n / total) for n in counts.values())

    bits = h(centres) + h(by_code) - h(joint)
    settle = sum(n for code, n in by_code.items() if len(sets_by_code[code]) == 1) / total
    return max(0.0, bits), settle


THREE = {
    "players": 3,
    "seat": 0,
    "hand": ["R2", "B2", "B3", "R4", "B8"],
    "log": [
        {"seat": 0, "card": "red_sum", "answers": {"1": 13, "2": 15}},
        {"seat": 1, "card": "blue_sum", "answers": {"0": 13, "2": 0}},
    ],
}
VARIANTS = [("total_sum", None), ("red_count", None), ("odd_count", None), ("where_0", None)]


@pytest.mark.parametrize("asker", [0, 1, 2])
def test_what_a_seat_hears_with_3_players_is_the_answers_of_the_others(asker: int) -> None:
    """With 3 players the asker answers only a shared card: a seat whose rival asks the
    red count hears the third seat alone, and its own answer tells it nothing."""
    d = Deduction(Position.from_json(THREE))
    got = heard(d, VARIANTS, asker)
    for v in VARIANTS:
        bits, settle = plain_heard(d, v, asker)
        assert got[v] == (pytest.approx(bits, abs=1e-9), pytest.approx(settle, abs=1e-12))
    if asker == 0:  # its own question: the solver's bits and chance to settle
        bits = d.question_bits(VARIANTS)
        settle = settle_chances(d, VARIANTS, bits)
        assert {v: got[v][0] for v in VARIANTS} == pytest.approx(bits)
        assert {v: got[v][1] for v in VARIANTS} == pytest.approx(settle)
    else:  # a rival asks: seat 0 hears one seat for an unshared card, two for a shared one
        assert got["red_count", None][0] < d.question_bits(VARIANTS)["red_count", None]


# GAME.setup(seed 6), 4 players; seats 0 and 1 asked the blue sum and the three low tiles'
# sum (the normal bots' questions).  Seat 2 (R7 R8 B8 B9) has 11 candidates.
FOUR_SEED = 6
FOUR_MOVES = [(0, Ask("blue_sum")), (1, Ask("low3_sum"))]


def four_views() -> list[list[dict]]:
    state = GAME.setup(GAME.options({"players": 4}), 4, FOUR_SEED)
    return views_from(state, FOUR_MOVES)


def test_with_4_players_the_expert_keeps_the_race_from_its_rivals() -> None:
    """The red count tells seat 2 the most (2.5 bits, certain 41% of the time), and the
    normal bot asks it; but everyone answers it, and it leaves an average rival certain
    far more often than where-6-or-7 (on 6) does.  The expert asks that: fewer bits, yet
    more questions nearer to certainty against its rivals."""
    views = four_views()
    view = views[2][2]
    s = Situation(view, 2, Deduction(Position.from_view({**view, "you": 2})))
    worth = GroupExpert().worths(s)
    red, where = worth["red_count", None], worth["where_6or7", 6]
    assert red.bits > where.bits + 0.5 and red.settle > where.settle
    assert red.given > where.given + 0.5
    assert where.value > red.value + 0.1
    assert best_worth(worth) == ("where_6or7", 6)
    # the charge is the rivals' own deductions: the chance each is certain too, and its
    # bits while seat 2 is not
    gains = rival_gains(s.deduction, s.variants, [0, 1, 3])
    assert gains is not None
    assert red.given == pytest.approx(rivals_given(gains, ("red_count", None), red.settle))
    assert max(g["red_count", None][1] for g in gains.values()) > 0.3
    rng = random.Random(0)
    assert make_bot("expert").act(view, 2, rng) == Ask("where_6or7", 6)
    assert make_bot("normal").act(view, 2, rng) == Ask("red_count")


def test_with_4_players_the_review_marks_the_normal_question_below_the_expert() -> None:
    """The review weighs questions as the expert does: the normal bot's red count there
    loses to where-6-or-7, and is no longer the best as it was when only the asker's own
    answer was priced (nothing, with 4 players)."""
    state = GAME.setup(GAME.options({"players": 4}), 4, FOUR_SEED)
    normal = review_seat(views_from(state, [*FOUR_MOVES, (2, Ask("red_count"))])[2], 2)
    expert = review_seat(views_from(state, [*FOUR_MOVES, (2, Ask("where_6or7", 6))])[2], 2)
    q, e = normal.questions[-1], expert.questions[-1]
    assert e.mark == "best" and e.loss == 0.0
    assert q.best == ("where_6or7", 6) and q.loss == pytest.approx(e.value - q.value)
    assert q.mark != "best" and q.bits > e.bits
    assert expert.score == 100 > normal.score


def test_a_seat_hears_every_other_answer_with_4_players() -> None:
    """With 4 players everyone answers everything: whoever asks, a seat hears the same
    answers, and what it hears is the solver's own question bits and chance to settle."""
    views = four_views()
    view = known(views[2][2], 2)
    d = Deduction(Position.from_view({**view, "you": 2}))
    variants = [("red_count", None), ("where_6or7", 6), ("odd_count", None)]
    mine = heard(d, variants, 2)
    bits = d.question_bits(variants)
    assert {v: b for v, (b, _) in mine.items()} == pytest.approx(bits)
    assert {v: p for v, (_, p) in mine.items()} == pytest.approx(settle_chances(d, variants, bits))
    theirs = heard(d, variants, 0)
    for v in variants:
        assert theirs[v] == pytest.approx(mine[v])
        assert mine[v] == pytest.approx(plain_heard(d, v, 0), abs=1e-9)
