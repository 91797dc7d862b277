"""The review of a finished game: judgements on constructed positions, and honesty.

* On positions built by hand the judgements agree with a brute-force count:
  the expert's question is marked best, a question that cannot tell anything is
  a mistake, one that tells more but gives away much more about the asker's
  hand is judged worse than one that tells less and gives nothing away, a seat
  that was certain and asked again missed a chance, a wrong guess at the
  opening is hasty and a free final guess is not.
* Honest by construction: each seat's review, recomputed from that seat's own
  history (``?seat=k``: what the server sent it), is the same; and a deal that
  differs only in what the seat could not see gives it the same review.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from bodoge.core.rng import derive_seed
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.solver import Deduction
from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.cards import cards_for
from bodoge.games.tagiron.moves import Ask, Declare
from bodoge.games.tagiron.options import TagironOptions
from bodoge.games.tagiron.review import (
    HistoryError,
    question_mark,
    review_game,
    review_history,
    review_seat,
    seat_views,
    views_from,
)
from bodoge.games.tagiron.selfplay import play_game
from bodoge.games.tagiron.state import TagironState
from bodoge.games.tagiron.tiles import ALL_TILES, sort_hand
from tests.games.tagiron.helpers import GAME, bot_history


def dealt(hands, face_up, *, first=0) -> TagironState:
    """A 2-player state with these hands and face-up cards (the deck: the other cards)."""
    hands = tuple(sort_hand(h) for h in hands)
    rest = Counter(ALL_TILES)
    rest.subtract(Counter(t for h in hands for t in h))
    centre = sort_hand(rest.elements())
    deck = tuple(c for c in cards_for(2) if c not in face_up)
    return TagironState(
        options=TagironOptions(2),
        hands=hands,
        centre=centre,
        face_up=tuple(face_up),
        deck=deck,
        first=first,
        turn=first,
        status=("active", "active"),
    )


def entropy(answers) -> float:
    counts = Counter(json.dumps(a) for a in answers)
    total = sum(counts.values())
    return -sum(c / total * math.log2(c / total) for c in counts.values())


# --- constructed positions -------------------------------------------------------------

# Seat 0 holds both green 5s: "where are your 5s?" can only be answered "none".
FIVES = ("R0", "B0", "G5", "G5", "R9")
OPPONENT = ("R1", "B2", "R3", "B4", "R6")
FACE_UP = ("where_5", "total_sum", "red_count", "pairs", "odd_count", "blue_count")


def brute_bits() -> dict[str, float]:
    """Each face-up question's bits at the opening, counted over every hand by hand."""
    unseen = list(ALL_TILES)
    for t in FIVES:
        unseen.remove(t)
    hands = [sort_hand(h) for h in itertools.combinations(unseen, 5)]
    assert len(hands) == 3003
    return {card: entropy(answer(card, h) for h in hands) for card in FACE_UP}


def told_by_brute(card: str, hand) -> float:
    """Bits an answer to ``card`` about ``hand`` tells someone who has heard nothing of it:
    counted over every physical hand of as many of the 20 tiles."""
    hands = [sort_hand(h) for h in itertools.combinations(ALL_TILES, len(hand))]
    mine = answer(card, sort_hand(hand))
    return math.log2(len(hands) / sum(answer(card, h) == mine for h in hands))


def test_a_question_that_cannot_tell_anything_is_a_mistake() -> None:
    state = dealt((FIVES, OPPONENT), FACE_UP)
    views = views_from(state, [(0, Ask("where_5"))])
    r = review_seat(views[0], 0)
    q = r.questions[0]
    brute = brute_bits()
    assert q.bits == pytest.approx(0.0, abs=1e-9) and brute["where_5"] == 0.0
    assert q.most_bits == pytest.approx(max(brute.values()))
    assert q.best != ("where_5", None) and q.best_bits == pytest.approx(brute[q.best[0]])
    assert q.loss >= q.best_gain > 0.5  # everything the best question would have gained
    assert (q.before, q.after, q.mark) == (3003, 3003, "mistake")
    assert r.score == 0


def test_the_experts_question_is_marked_best_and_the_rest_by_their_loss() -> None:
    """Each question's value is, in questions to certainty, what it gains the asker (its
    exact bits at RATE bits a question, and the chance it settles the game) less what the
    expert's charges give the opponent while the game goes on; the mark is the loss
    against the best value, over what the best question would have gained."""
    from bodoge.games.tagiron.ai.bots import ExpertBot
    from bodoge.games.tagiron.ai.duel import DuelExpert
    from bodoge.games.tagiron.ai.situation import Situation
    from bodoge.games.tagiron.review_value import RATE

    brute = brute_bits()
    state = dealt((FIVES, OPPONENT), FACE_UP)
    view = GAME.view(state, 0)
    situation = Situation(view, 0, Deduction(Position.from_view(view)))
    charges = DuelExpert().charges(situation)
    reviews = {
        card: review_seat(views_from(state, [(0, Ask(card))])[0], 0).questions[0]
        for card in FACE_UP
    }
    value = {}
    for card, q in reviews.items():
        assert q.settle < 0.01  # 3,003 hands: an answer rarely leaves one
        gain = q.settle + brute[card] / RATE
        value[card] = gain - (1 - q.settle) * charges[card, None] / RATE
        assert q.bits == pytest.approx(brute[card]) and q.value == pytest.approx(value[card])
    best = max((c for c in FACE_UP if brute[c] > 0), key=value.__getitem__)
    for card, q in reviews.items():
        loss = max(value[best] - value[card], 0.0 if brute[card] else reviews[best].gain)
        assert q.loss == pytest.approx(loss, abs=1e-9)
        assert q.mark == question_mark(loss, reviews[best].gain)
        # what it narrowed the candidates to: the opponent's hands giving its answer
        assert q.after == _hands_answering(card, answer(card, OPPONENT))
    # the shared total sum: the most bits, and (its answer from seat 0 too) the most told
    assert max(brute, key=brute.__getitem__) == "total_sum"
    total = reviews["total_sum"]
    assert total.told == pytest.approx(told_by_brute("total_sum", FIVES)) and total.loss > 0.05
    # the expert's own choice there is the best, and scores 100
    move = ExpertBot().act(view, 0, __import__("random").Random(3))
    mine = review_seat(views_from(state, [(0, move)])[0], 0)
    assert mine.questions[0].mark == "best" and mine.score == 100


# 3 players: only a shared card makes the asker answer too.  Seat 0's total sum (with
# both green 5s) is unusual, so its own answer would give much of its hand away.
HANDS_3 = (FIVES, OPPONENT, ("B1", "R2", "B3", "R4", "B6"))
FACE_UP_3 = ("total_sum", "red_count", "pairs", "odd_count", "blue_count", "where_0")


def dealt3(hands, face_up) -> TagironState:
    hands = tuple(sort_hand(h) for h in hands)
    rest = Counter(ALL_TILES)
    rest.subtract(Counter(t for h in hands for t in h))
    deck = tuple(c for c in cards_for(3) if c not in face_up)
    return TagironState(
        options=TagironOptions(3),
        hands=hands,
        centre=sort_hand(rest.elements()),
        face_up=tuple(face_up),
        deck=deck,
        first=0,
        turn=0,
        status=("active",) * 3,
    )


def test_a_question_that_tells_more_but_gives_away_much_more_is_judged_worse() -> None:
    """The shared total sum tells the most about the centre, but seat 0's own answer to
    it tells the rivals over 4 bits of its hand: the expert asks a colour count, which
    tells it 2 bits and them nothing, and the review follows the expert."""
    from bodoge.games.tagiron.ai.group import LEAK
    from bodoge.games.tagiron.review_value import RATE

    state = dealt3(HANDS_3, FACE_UP_3)
    total, red = (
        review_seat(views_from(state, [(0, Ask(card))])[0], 0).questions[0]
        for card in ("total_sum", "red_count")
    )
    assert total.bits > red.bits + 2 == pytest.approx(3.96, abs=0.01)
    assert total.told == pytest.approx(told_by_brute("total_sum", FIVES)) and red.told == 0.0
    assert total.told > 4
    assert red.mark == "best" and red.best == ("red_count", None)
    assert total.best_value == pytest.approx(red.value)
    assert red.settle == 0.0 and total.settle < 0.001  # an extreme sum would settle it
    settle = total.settle
    value = settle + (total.bits - (1 - settle) * LEAK[3] * total.told) / RATE
    assert total.loss == pytest.approx(red.bits / RATE - value)
    assert total.mark == "mistake"  # over half of what the best question would gain, lost
    # the normal bot's question there (the most bits) now scores below the expert's
    scores = {
        level: review_seat(views_from(state, [(0, move)])[0], 0).score
        for level, move in (("normal", Ask("total_sum")), ("expert", Ask("red_count")))
    }
    assert scores["expert"] == 100 > 50 > scores["normal"]


def _hands_answering(card: str, value) -> int:
    unseen = list(ALL_TILES)
    for t in FIVES:
        unseen.remove(t)
    return sum(1 for h in itertools.combinations(unseen, 5) if answer(card, sort_hand(h)) == value)


def test_question_marks_by_loss() -> None:
    losses = (0.0, 0.03, 0.3, 0.31, 1.0, 1.01, 2.0)
    assert [question_mark(loss, 2.0) for loss in losses] == [
        "best",
        "good",
        "good",
        "inaccuracy",
        "inaccuracy",
        "mistake",
        "mistake",
    ]


# Seat 1's hand is the only one of its two sums of 41 with three red tiles.
LOW = ("R0", "B0", "R1", "B1", "R2")
HIGH = ("R7", "R8", "B8", "R9", "B9")
CERTAIN_FACE_UP = ("total_sum", "where_0", "red_count", "pairs", "odd_count", "even_count")


def certain_game() -> list[tuple[int, object]]:
    return [
        (0, Ask("total_sum")),  # 41: two hands are left
        (1, Ask("where_0")),
        (0, Ask("red_count")),  # 3: certain
        (1, Ask("pairs")),
        (0, Ask("odd_count")),  # certain, and asked again: a missed chance
        (1, Ask("even_count")),
        (0, Declare(HIGH)),
        (1, Declare(("R0", "B0", "R1", "B1", "R3"))),  # the final guess, wrong (sums to 5)
    ]


def test_a_certain_seat_that_asks_instead_of_declaring_missed_a_chance() -> None:
    state = dealt((LOW, HIGH), CERTAIN_FACE_UP)
    views = views_from(state, certain_game())
    assert views[0][-1]["phase"] == "ended"
    r = review_seat(views[0], 0)
    assert r.candidates[:6] == (2288, 2, 2, 1, 1, 1)  # distinct sets: the green 5s are alike
    total, red, odd = r.questions
    assert (total.before, total.after, red.before, red.after) == (2288, 2, 2, 1)
    assert red.bits == pytest.approx(1.0) and odd.bits == 0.0 and odd.best_bits == 0.0
    assert [(m.n, m.certain, m.probability, m.cost) for m in r.missed] == [(5, True, 1.0, 10)]
    (declared,) = r.declarations
    assert (declared.n, declared.probability, declared.right, declared.mark) == (7, 1.0, True, None)
    # with a sum of 4, seat 0's own answer to the shared total gave its hand away
    assert total.told == pytest.approx(told_by_brute("total_sum", LOW)) and total.told > 12
    assert (total.mark, red.mark, red.settle) == ("mistake", "best", 1.0)
    # asked when certain, the odd count changes nothing: the missed chance is the charge
    assert (odd.gain, odd.given, odd.mark) == (0.0, 0.0, "best")
    assert r.score == max(0, round(100 * r.accuracy - 10))
    assert "1 missed declaration when certain" in r.summary


def test_a_wrong_guess_at_low_odds_is_hasty_and_a_free_one_is_not() -> None:
    state = dealt((LOW, HIGH), CERTAIN_FACE_UP)
    views = views_from(state, certain_game())
    (final,) = review_seat(views[1], 1).declarations
    assert final.free and not final.right and final.probability < 0.5 and final.mark is None
    guess = views_from(state, [(0, Declare(("B2", "R3", "B3", "R4", "B4")))])
    (hasty,) = review_seat(guess[0], 0).declarations
    assert hasty.probability == pytest.approx(1 / 3003)
    assert (hasty.right, hasty.free, hasty.mark) == (False, False, "mistake")
    assert review_seat(guess[0], 0).score == 90


def test_with_2_players_a_wrong_guess_the_expert_would_take_is_not_hasty() -> None:
    """A guess is judged as declarations are with 3–4 players: hasty only if the expert,
    in the seat's place, would not have taken it (here it would, at 1 in 8 among 8
    candidates: a wrong guess still rules a hand out)."""
    from bodoge.games.tagiron.ai.duel import DuelExpert
    from bodoge.games.tagiron.ai.situation import Situation
    from bodoge.games.tagiron.review import known, question_values

    record = play_game(2, ["expert", "normal"], 5)
    views = seat_views(2, 5, record.moves)[0]
    guess = review_seat(views, 0).declarations[0]
    assert (guess.n, guess.right, guess.free, guess.probability) == (4, False, False, 0.125)
    assert guess.expert_would is True and guess.mark is None
    view = known(views[3], 0)
    s = Situation(view, 0, Deduction(Position.from_view(view)))
    values = question_values(s, s.deduction.question_bits(s.variants))
    assert DuelExpert().would_declare(s, max(values, key=values.__getitem__))
    assert review_seat(views, 0).to_json()["declarations"][0]["expert_would"] is True


# --- whole games ----------------------------------------------------------------------


def test_a_history_file_reviews_every_seat_and_bad_ones_are_refused() -> None:
    history = bot_history(3, 11, ["expert", "normal", "easy"])
    review = review_history(history).to_json()
    assert [s["seat"] for s in review["seats"]] == [0, 1, 2]
    for s in review["seats"]:
        assert s["candidates"][0] in (2288, 3003) and 0 <= s["score"] <= 100
    with pytest.raises(HistoryError, match="no seed"):
        review_history({**history, "seed": None})
    with pytest.raises(HistoryError, match="move 1"):
        review_history({**history, "moves": [{"seat": 0, "move": {"type": "jump"}}]})
    bad = [
        {"seat": 1 - m["seat"] if m["seat"] < 2 else 0, "move": m["move"]} for m in history["moves"]
    ]
    with pytest.raises(HistoryError, match="do not replay"):
        review_history({**history, "moves": bad})
    with pytest.raises(HistoryError, match="not a Tagiron"):
        review_history({**history, "table": {"game": "illustori"}})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_seat_judged_from_its_own_history_gets_the_same_review(players) -> None:
    """Honesty: the review of seat k, made from the history the server gives seat k alone."""
    from bodoge.server.runtime import render
    from bodoge.server.runtime.render import Step

    seed = derive_seed(5, "honest", players)
    history = bot_history(players, seed, ["expert", "normal", "easy", "normal"][:players])
    whole = review_history(history)
    moves = [(m["seat"], GAME.move_from_json(m["move"])) for m in history["moves"]]
    steps = [Step(i + 1, s, m, 0, "bot") for i, (s, m) in enumerate(moves)]
    for seat in range(players):
        own = render.history(
            GAME,
            render.replay(GAME, GAME.options({"players": players}), players, seed, steps),
            seat,
            table={"game": "tagiron"},
            seed=seed,
            options={"players": players},
        )
        assert own["seat"] == seat
        mine = review_seat(own["views"], seat)
        assert mine.to_json() == whole.seats[seat].to_json()


def _prefix_before_certain(players: int, seed: int, seat: int):
    """Moves of a selfplay game up to a point where ``seat`` is not yet certain and nobody
    has declared, with its deduction there."""
    record = play_game(players, ["normal"] * players, seed)
    views = seat_views(players, seed, record.moves)[seat]
    best = None
    for t, view in enumerate(views):
        if any(e.get("type") == "declaration" for e in view["log"]):
            break
        d = Deduction(Position.from_view(view))
        if d.candidate_count > 1 and len(view["log"]) >= 2:
            best = (t, d)
    assert best is not None
    t, d = best
    return list(record.moves[:t]), d


def test_a_deal_that_differs_only_in_what_a_seat_could_not_see_gives_it_the_same_review():
    """Honesty: hide another world behind the same answers; the seat cannot tell."""
    # 2 players: another opponent hand that fits everything seat 0 heard.
    seed = 21
    moves, d = _prefix_before_certain(2, seed, 0)
    state = GAME.setup(GAME.options({"players": 2}), 2, seed)
    other = next(c.tiles for c in d.ranked() if c.tiles != state.hands[1])
    rest = Counter(ALL_TILES)
    rest.subtract(Counter(state.hands[0] + other))
    twin = replace(state, hands=(state.hands[0], other), centre=sort_hand(rest.elements()))
    real, alt = views_from(state, moves), views_from(twin, moves)
    assert real[1] != alt[1]  # the opponent's own views differ: its hand does
    assert review_seat(real[0], 0).to_json() == review_seat(alt[0], 0).to_json()

    # 3 players: another world (other hands and another centre) behind the same answers.
    seed = 8
    moves, d = _prefix_before_certain(3, seed, 0)
    state = GAME.setup(GAME.options({"players": 3}), 3, seed)
    u = d.universe
    a, b = d.others
    twin = None
    for centre, (ha, hb) in d.world_blocks():
        for c, x, y in zip(centre, ha, hb, strict=True):
            world = {a: u.hand_tiles[x], b: u.hand_tiles[y]}
            if sort_hand(u.hand_tiles[c]) != state.centre:
                hands = list(state.hands)
                hands[a], hands[b] = world[a], world[b]
                twin = replace(state, hands=tuple(hands), centre=sort_hand(u.hand_tiles[c]))
                break
        if twin:
            break
    assert twin is not None and twin.centre != state.centre
    real, alt = views_from(state, moves), views_from(twin, moves)
    assert review_seat(real[0], 0).to_json() == review_seat(alt[0], 0).to_json()


def test_review_game_matches_the_selfplay_record_and_is_quick() -> None:
    import time

    record = play_game(4, ["expert", "normal", "easy", "easy"], 3)
    started = time.process_time()
    review = review_game(4, 3, record.moves)
    # processor time: a loaded machine stretches the wall clock many times over
    assert time.process_time() - started < 10
    asked = Counter(s for s, m in record.moves if isinstance(m, Ask))
    assert [len(s.questions) for s in review.seats] == [asked[s] for s in range(4)]
    declared = Counter(s for s, m in record.moves if isinstance(m, Declare))
    assert [len(s.declarations) for s in review.seats] == [declared[s] for s in range(4)]
    for s in review.seats:
        counts = [c for c in s.candidates if c is not None]
        assert counts[0] in (1456, 1820) and all(np.diff(counts) <= 0)


def test_selfplay_reviews_reuse_the_bots_deductions_and_score_alike() -> None:
    from bodoge.games.tagiron.selfplay import review_record

    for players, levels in ((2, ["expert", "easy"]), (3, ["expert", "normal", "easy"])):
        shared: dict = {}
        record = play_game(players, levels, 12, shared=shared)
        assert shared  # the bots' deductions, kept for the review
        assert review_record(record, shared).scores == review_record(record).scores


def test_the_normal_bot_scores_clearly_above_the_easy_bot() -> None:
    """Over a few games the gap is wide (the README gives 200 games' figures)."""
    from bodoge.games.tagiron.selfplay import ScoreTally, run_reviews

    tally = ScoreTally(("normal", "easy", "easy"))
    for reviewed in run_reviews(3, ("normal", "easy", "easy"), 6, 2):
        tally.add(reviewed)
    (normal, half_n), (easy, half_e) = tally.mean("normal"), tally.mean("easy")
    assert normal - half_n > easy + half_e


def test_the_expert_scores_above_the_normal_bot_in_the_same_games() -> None:
    """The order the README's 200 games show, already clear over a few: the review judges
    by the expert's own valuation, which the plain bits (the normal bot's rule) did not."""
    from bodoge.games.tagiron.selfplay import ScoreTally, run_reviews

    levels = ("expert", "normal", "easy")
    tally = ScoreTally(levels)
    for reviewed in run_reviews(3, levels, 6, 4):
        tally.add(reviewed)
    # never below the normal bot in the same game, and above it in some
    assert all(g["expert"] >= g["normal"] for g in tally.games)
    assert any(g["expert"] > g["normal"] for g in tally.games)
    assert tally.breakdown("expert")[0] > tally.breakdown("normal")[0]  # accuracy


def test_out_of_turn_the_first_move_by_another_seat_is_not_a_missed_chance() -> None:
    """3–4 players, no times known (selfplay): in a window of moments where the seat
    should have declared, the first question or pass by another seat may have been
    quicker and other seats' declarations race to the same answer; the window is charged
    once, at its first own question or pass or at a further question or pass."""
    from bodoge.games.tagiron.ai.group import GroupExpert
    from bodoge.games.tagiron.ai.situation import Situation
    from bodoge.games.tagiron.review import known

    found_grace = found_waited = 0
    for seed in range(3):
        record = play_game(3, ["normal", "normal", "easy"], seed)
        views = seat_views(3, seed, record.moves)
        for seat in range(3):
            review = review_seat(views[seat], seat)
            declared_at = next((d.n for d in review.declarations), len(record.moves) + 1)
            should = []
            for t in range(min(declared_at, len(record.moves))):
                view = known(views[seat][t], seat)
                d = Deduction(Position.from_view(view))
                should.append(
                    t + 1 != declared_at
                    and view["may_declare"]
                    and GroupExpert().should_declare(Situation(view, seat, d))
                )
            expected = []
            others, charged = 0, False
            for t in range(len(should)):
                if not should[t]:
                    continue
                if t == 0 or not should[t - 1]:
                    others, charged = 0, False  # a new window
                if charged:
                    continue  # one charge per window
                mover, move = record.moves[t]
                if mover == seat:
                    expected.append(t + 1)
                    charged = True
                    continue
                if isinstance(move, Declare):
                    continue  # another seat's declaration: a race, not time the seat had
                others += 1
                if others > 1:
                    expected.append(t + 1)
                    charged = True
                else:
                    found_grace += 1
            assert [m.n for m in review.missed] == expected
            found_waited += len(expected)
    assert found_grace and found_waited  # both cases met
