"""The review's judgements that a player must be able to trust (issue 28), on arranged
positions: a question that settles the game is never marked down, a question that tells
nothing is never the best while another tells something, the bands never have zero
width, one window of certainty is one missed chance (and only if the seat had the time),
the words tell certainty from a gamble, and an unfinished history is refused.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.race import rival_gains
from bodoge.games.tagiron.ai.solver import Deduction
from bodoge.games.tagiron.cards import CARDS, cards_for
from bodoge.games.tagiron.moves import Ask, Declare
from bodoge.games.tagiron.review import (
    MIN_STAKE,
    PAR_FACTOR,
    PAR_FLOOR,
    TIE,
    QuestionReview,
    UnfinishedError,
    known,
    question_mark,
    review_history,
    review_seat,
    seat_views,
    views_from,
)
from bodoge.games.tagiron.review_missed import (
    MISSED_COST,
    REACTION_SECONDS,
    Moment,
    missed_chances,
)
from bodoge.games.tagiron.review_value import RATE
from tests.games.tagiron.helpers import GAME, bot_history
from tests.games.tagiron.test_review import (
    CERTAIN_FACE_UP,
    FACE_UP_3,
    HANDS_3,
    HIGH,
    LOW,
    certain_game,
    dealt,
    dealt3,
)

# --- 1. a question that settles the game -----------------------------------------------

# Seat 0 (LOW, total 4) has two candidates left for seat 1 after its red sum and the
# consecutive runs: HIGH (41) and R3 R4 R8 R9 B9 (33).  Face up then: the three-tile
# sums, the blue sum, and the shared total sum and max − min.
SETTLE_FACE_UP = (
    "red_sum",
    "where_1or2",
    "consecutive_runs",
    "where_3or4",
    "total_sum",
    "max_minus_min",
)
SETTLE_MOVES = [
    (0, Ask("red_sum")),
    (1, Ask("where_1or2", 1)),
    (0, Ask("consecutive_runs")),
    (1, Ask("where_3or4", 3)),
]


def settle_state():
    state = dealt((LOW, HIGH), SETTLE_FACE_UP)
    return replace(state, deck=tuple(c for c in cards_for(2) if c not in SETTLE_FACE_UP))


def test_with_2_players_a_question_that_settles_the_game_is_best_though_it_is_shared() -> None:
    """The shared total sum makes seat 0 answer too, and its sum of 4 tells the opponent
    2.8 bits of its hand (beyond its public answers); but it leaves seat 0 certain, to
    declare on its next turn, so what it told is worth nothing to the opponent against
    it: best, not a mistake."""
    state = settle_state()
    views = views_from(state, [*SETTLE_MOVES, (0, Ask("total_sum"))])
    d = Deduction(Position.from_view({**views[0][4], "you": 0}))
    assert d.candidate_count == 2 and set(views[0][4]["face_up"]) >= {"total_sum", "low3_sum"}
    q = review_seat(views[0], 0).questions[-1]
    assert (q.card, q.before, q.after) == ("total_sum", 2, 1)
    assert q.bits == pytest.approx(1.0) and q.settle == 1.0 and q.told > 2.5
    assert q.given == 0.0 and q.gain == pytest.approx(1 + 1 / RATE)
    assert (q.mark, q.loss) == ("best", 0.0)
    # the unshared three-tile sum settles it as well: as good
    low = review_seat(views_from(state, [*SETTLE_MOVES, (0, Ask("low3_sum"))])[0], 0)
    assert low.questions[-1].settle == 1.0 and low.questions[-1].mark == "best"
    # the three-tile high sum (26 for both candidates) tells nothing: a mistake beside them
    other = review_seat(views_from(state, [*SETTLE_MOVES, (0, Ask("high3_sum"))])[0], 0)
    worse = other.questions[-1]
    assert (worse.bits, worse.settle, worse.best_settle) == (0.0, 0.0, 1.0)
    assert worse.loss >= worse.best_gain and worse.mark == "mistake"


# A 4-player deal (GAME.setup(seed 4)) where seat 0, at 10 candidates, asks the
# consecutive runs: 3.2 bits, and it is certain after, though all answer it and seat 0's
# own answer tells the rivals 2.7 bits.
FOUR_SEED = 4
FOUR_MOVES = [
    (1, Ask("red_sum")),
    (2, Ask("odd_count")),
    (3, Ask("max_minus_min")),
    (0, Ask("consecutive_runs")),
]


def q_deduction(views, t: int) -> Deduction:
    """Seat 0's deduction after ``t`` moves, from its own view."""
    return Deduction(Position.from_view({**known(views[t], 0), "you": 0}))


def four_state():
    return GAME.setup(GAME.options({"players": 4}), 4, FOUR_SEED)


def test_with_4_players_a_question_that_settles_the_game_is_best() -> None:
    views = views_from(four_state(), FOUR_MOVES)
    q = review_seat(views[0], 0).questions[-1]
    assert (q.card, q.before, q.after) == ("consecutive_runs", 10, 1)
    assert q.settle == 1.0 and q.told > 2.5
    # certain after it, seat 0 is charged only the rivals' chance to be certain too (the
    # race for the place shared): their bits no longer matter to it
    gains = rival_gains(q_deduction(views[0], 3), [("consecutive_runs", None)], [1, 2, 3])
    assert gains is not None
    shared = sum(g["consecutive_runs", None][1] for g in gains.values()) / 3
    assert 0 < shared < 1 and q.given == pytest.approx(shared)
    assert q.mark == "best" and q.value == pytest.approx(1 + q.bits / RATE - shared)
    # red_count (0 bits, and its told bits charged) is no longer ranked above it
    assert q.best == ("consecutive_runs", None)


def test_a_question_that_tells_nothing_is_never_best_while_another_tells_something() -> None:
    """Seat 0's red count and where_0 tell it nothing at that moment (both 0 bits): asked,
    each loses at least everything the best question would have gained, a mistake."""
    views = views_from(four_state(), [*FOUR_MOVES[:3], (0, Ask("where_0"))])
    q = review_seat(views[0], 0).questions[-1]
    assert q.bits == 0.0 and q.most_bits > 3
    assert q.best != ("where_0", None) and q.best_bits > 0
    assert q.loss >= q.best_gain and q.mark == "mistake"


def test_a_question_that_tells_nothing_is_not_best_though_the_others_give_more_away() -> None:
    """GAME.setup(seed 5), 4 players, seat 0 after three moves: the even count tells it
    nothing (0 bits); the bits-less-charges value ranked it first there, since every
    informative card told the rivals more of seat 0's hand than it told seat 0.  It spends
    the turn for nothing: the best is an informative question, and asking it a mistake."""
    state = GAME.setup(GAME.options({"players": 4}), 4, 5)
    opening = [(2, Ask("red_sum")), (3, Ask("total_sum")), (2, Declare(("R0", "B2", "B4", "G5")))]
    even = review_seat(views_from(state, [*opening, (0, Ask("even_count"))])[0], 0)
    q = even.questions[-1]
    assert q.bits == 0.0 and q.best_bits > 0.5 and q.mark == "mistake"
    assert q.loss >= q.best_gain
    runs = review_seat(views_from(state, [*opening, (0, Ask("same_colour_runs"))])[0], 0)
    assert runs.questions[-1].mark in ("best", "good")


def test_the_best_question_tells_something_whatever_the_charges() -> None:
    """Where charges make a 0-bit question's value the highest (with 2 or 3 players the
    expert still charges what an answer gives away), the best is still an informative
    one, and the 0-bit question loses all that the best would have gained."""
    from bodoge.games.tagiron.review_value import Worth, best_of, loss_of

    worth = {
        ("odd_count", None): Worth(bits=0.0, settle=0.0, given=0.0),
        ("total_sum", None): Worth(bits=2.0, settle=0.0, given=4.0 / RATE),
        ("red_count", None): Worth(bits=1.0, settle=0.0, given=2.0 / RATE),
    }
    assert max(worth, key=lambda v: worth[v].value) == ("odd_count", None)
    assert best_of(worth) == ("red_count", None)  # the higher value of the informative two
    best = worth["red_count", None]
    assert loss_of(worth["odd_count", None], best) == pytest.approx(best.gain)
    assert question_mark(loss_of(worth["odd_count", None], best), best.gain) == "mistake"
    # with no informative question face up, the 0-bit ones are compared by value
    nothing = {
        v: Worth(0.0, 0.0, c) for v, c in ((("pairs", None), 0.03), (("where_0", None), 0.0))
    }
    assert best_of(nothing) == ("where_0", None)


# --- 2. no question on offer tells anything ----------------------------------------------


def test_when_no_face_up_question_tells_anything_the_bands_keep_their_width() -> None:
    """After the total sum and where_0, seat 0's two candidates differ only by R7 for B7,
    and none of the face-up cards can tell them apart: every question is 0 bits.  What
    the opponent is left with still differs a little between them — a hundredth of a
    question — which is good, never a mistake."""
    face = ("total_sum", "where_0", "odd_count", "pairs", "low3_sum", "mid3_sum")
    state = replace(dealt((LOW, HIGH), face), deck=("even_count", "high3_sum", "red_count"))
    for card in ("odd_count", "pairs", "low3_sum", "mid3_sum", "even_count", "high3_sum"):
        views = views_from(state, [*certain_game()[:2], (0, Ask(card))])
        q = review_seat(views[0], 0).questions[-1]
        assert q.most_bits == 0.0 and q.before == q.after == 2
        assert q.mark in ("best", "good") and q.loss <= (1 - 0.85) * MIN_STAKE
    assert question_mark(0.03, 0.0) == "good" and question_mark(TIE, 0.0) == "good"
    assert question_mark(0.2, 0.0) == "mistake"  # a quarter of a question at least


def test_a_certain_seat_asking_a_question_that_tells_nothing_is_charged_once_not_twice() -> None:
    """Seat 0 is certain from move 4 and asks the odd count at move 5: every question face
    up tells it 0 bits.  The bits-less-charges value marked that a mistake (0.73 bits of
    the opponent's next card lost) on top of the missed chance; the chance is the fault."""
    state = dealt((LOW, HIGH), CERTAIN_FACE_UP)
    review = review_seat(views_from(state, certain_game())[0], 0)
    odd = review.questions[-1]
    assert (odd.card, odd.most_bits, odd.before) == ("odd_count", 0.0, 1)
    assert (odd.mark, odd.loss, odd.par, odd.stake) == ("best", 0.0, 0.0, PAR_FLOOR)
    assert [m.n for m in review.missed] == [5]


# --- 3. one window of certainty, one charge --------------------------------------------------


def certain_for_a_while(times_after: list[float], *, own_turn: bool) -> tuple[list, list]:
    """Seat 0 is certain after move 4 (its own question); seats 1–3 ask, then seat 0 asks
    once more on its own turn (if ``own_turn``) and declares.  ``times_after``: seconds
    after move 4 of moves 5, 6, 7 (and 8)."""
    state = four_state()
    moves = list(FOUR_MOVES)
    views = views_from(state, moves)
    for seat in (1, 2, 3, *((0,) if own_turn else ())):
        face = views[seat][-1]["face_up"]
        card = face[0]
        choices = CARDS[card].choices
        moves.append((seat, Ask(card, choices[0] if choices else None)))
        views = views_from(state, moves)
    d = Deduction(Position.from_view({**views[0][-1], "you": 0}))
    assert d.certain
    moves.append((0, Declare(d.best()[0])))
    start = 1000.0
    times = [start - 4 + i for i in range(4)] + [start + s for s in times_after]
    times.append(times[-1] + 1)
    return moves, times


@pytest.mark.parametrize("own_turn", [True, False])
def test_a_4_player_seat_certain_for_several_moves_is_charged_once(own_turn) -> None:
    moves, _ = certain_for_a_while([1, 2, 3, 4][: 3 + own_turn], own_turn=own_turn)
    views = views_from(four_state(), moves)
    # no times known (a selfplay game): the first move by another seat may have been
    # quicker; the window is charged once, at its second
    (m,) = review_seat(views[0], 0).missed
    assert (m.n, m.opened, m.certain, m.why, m.cost) == (6, 4, True, "later", MISSED_COST)
    # the seat's own turn came within 5 s: charged once, there
    quick = [1.0, 2.0, 3.0, 4.0][: 3 + own_turn]
    moves, times = certain_for_a_while(quick, own_turn=own_turn)
    missed = review_seat(views[0], 0, times=times).missed
    if own_turn:
        assert [(m.n, m.why) for m in missed] == [(8, "own_turn")]
    else:  # every other seat moved within the reaction window, then it declared
        assert missed == ()
    # slow moves: the first move after the reaction window is the chance missed
    slow = [3.0, REACTION_SECONDS + 1, 20.0, 30.0][: 3 + own_turn]
    moves, times = certain_for_a_while(slow, own_turn=own_turn)
    assert [(m.n, m.why) for m in review_seat(views[0], 0, times=times).missed] == [(6, "waited")]
    review = review_seat(views[0], 0, times=times)
    assert review.score == max(0, round(100 * review.accuracy - MISSED_COST))
    assert "1 missed declaration when certain" in review.summary


def test_a_bot_declaring_a_tenth_of_a_second_after_the_answer_took_no_chance() -> None:
    """Seat 0 is certain after its question (move 4); seats 1 and 2, bots, declare 0.1 s
    and 0.2 s later; seat 0 declares after 3 s.  A person had no time to be first."""
    state = four_state()
    views = views_from(state, FOUR_MOVES)
    guesses = []
    for seat in (1, 2):
        d = Deduction(Position.from_view({**views[seat][-1], "you": seat}))
        guesses.append((seat, Declare(d.best()[0])))
    d0 = Deduction(Position.from_view({**views[0][-1], "you": 0}))
    moves = [*FOUR_MOVES, *guesses, (0, Declare(d0.best()[0]))]
    views = views_from(state, moves)
    times = [0.0, 4.0, 8.0, 12.0, 12.1, 12.2, 15.0]
    assert review_seat(views[0], 0, times=times).missed == ()
    history = {
        "table": {"game": "tagiron"},
        "seed": FOUR_SEED,
        "options": {"players": 4},
        "moves": [
            {"seat": s, "move": GAME.move_to_json(m), "at": f"2026-01-01T00:00:{t:06.3f}Z"}
            for (s, m), t in zip(moves, times, strict=True)
        ],
    }
    # the history's times reach the review (the game is not over: allowed here)
    assert review_history(history, unfinished=True).seats[0].missed == ()
    # without the times, other seats' declarations are a race, not a chance had
    assert review_seat(views[0], 0).missed == ()
    # had seat 2 declared 6 s after the answer, seat 0 would have had the time
    slow = [0.0, 4.0, 8.0, 12.0, 12.1, 18.0, 19.0]
    assert [(m.n, m.why) for m in review_seat(views[0], 0, times=slow).missed] == [(6, "waited")]


def test_the_reaction_window_is_the_servers() -> None:
    from bodoge.server.runtime.pace import PACE_TABLE

    assert PACE_TABLE["normal"].reaction_seconds == REACTION_SECONDS


# --- 4. the penalty scaled by the chance, and the words ----------------------------------


def moment(t: int, should: bool, p: float, mover: int | None, kind: str | None = "question"):
    return Moment(t, should, p, p >= 1.0, mover, kind)


def test_without_times_other_seats_declarations_are_a_race_not_a_chance_had() -> None:
    """A selfplay game has no times: seat 0, certain after move 4 on its own turn, sees
    seats 1 and 2 declare first (the seats that may declare are asked before the seat
    whose turn it is), then declares.  No chance was let go; two questions by others
    would have shown one."""
    before = [moment(t, False, 0.0, t % 4) for t in range(4)]
    raced = [
        moment(4, True, 1.0, 1, "declaration"),
        moment(5, True, 1.0, 2, "declaration"),
        moment(6, False, 0.0, 0, "declaration"),
    ]
    assert missed_chances(4, 0, before + raced) == []
    waited = [
        moment(4, True, 1.0, 1, "declaration"),
        moment(5, True, 1.0, 2),
        moment(6, True, 1.0, 3),
        moment(7, False, 0.0, 0, "declaration"),
    ]
    assert [(m.n, m.why) for m in missed_chances(4, 0, before + waited)] == [(7, "later")]


def test_a_gamble_is_charged_by_its_chance_once_per_window_and_named_as_a_gamble() -> None:
    from bodoge.games.tagiron.review import SeatReview

    # seat 0 at 4 players: a 50% gamble the expert would take from moment 5 to 8 (it
    # asks at move 8), then certain from moment 10 on while others move slowly
    moments = [moment(t, False, 0.0, t % 4) for t in range(5)]
    moments += [moment(t, True, 0.5, t % 4) for t in range(5, 9)]
    moments += [moment(9, False, 0.0, 1)]
    moments += [moment(t, True, 1.0, t % 4) for t in range(10, 13)]
    times = [10.0 * i for i in range(13)]
    missed = missed_chances(4, 0, moments, times)
    assert [(m.n, m.certain, m.cost) for m in missed] == [(6, False, 5.0), (11, True, 10.0)]
    review = SeatReview(0, (), (), (), tuple(missed))
    assert review.score == 85
    assert "1 missed declaration when certain" in review.summary
    assert "1 gamble the expert would take not taken (50%)" in review.summary
    # with 2 players: every own turn on which it was certain and asked
    two = [moment(t, t % 2 == 0 and t > 2, 1.0, t % 2) for t in range(8)]
    assert [m.n for m in missed_chances(2, 0, two)] == [5, 7]


# --- 6. an unfinished history ------------------------------------------------------------------


def test_an_unfinished_history_is_refused_and_a_finished_one_reviewed() -> None:
    history = bot_history(3, 11, ["expert", "normal", "easy"])
    assert review_history(history).seats
    cut = {**history, "moves": history["moves"][:6]}
    with pytest.raises(UnfinishedError, match=r"has not ended \(the history stops after 6 moves"):
        review_history(cut)
    assert len(review_history(cut, unfinished=True).seats) == 3


# --- scores comparable at every table --------------------------------------------------------


def test_par_is_what_a_face_up_card_picked_at_random_loses() -> None:
    """Each question's ``par`` is the mean loss of the face-up questions, each card alike
    and each choice on a card alike — the easy bot's question — found by reviewing every
    one of them asked there; the score's yardstick is :data:`PAR_FACTOR` times it, so the
    best scores 100% and a question losing as much as the yardstick 0%."""
    state = dealt3(HANDS_3, FACE_UP_3)
    by_card: dict[str, list[QuestionReview]] = {}
    for card in FACE_UP_3:
        for choice in CARDS[card].choices or (None,):
            q = review_seat(views_from(state, [(0, Ask(card, choice))])[0], 0).questions[0]
            by_card.setdefault(card, []).append(q)
    pars = {q.par for qs in by_card.values() for q in qs}
    assert len(pars) == 1  # the same moment, the same yardstick
    (par,) = pars
    mean = sum(sum(q.loss for q in qs) / len(qs) for qs in by_card.values()) / len(by_card)
    assert par == pytest.approx(mean) and par > 0.1
    for q in (q for qs in by_card.values() for q in qs):
        assert q.stake == max(PAR_FACTOR[3] * par, PAR_FLOOR, q.loss)
        review = review_seat(views_from(state, [(0, Ask(q.card, q.choice))])[0], 0)
        assert review.accuracy == pytest.approx(1 - q.loss / q.stake)
    assert max(1 - q.loss / q.stake for qs in by_card.values() for q in qs) == 1.0


def test_the_easy_bot_scores_about_half_on_a_small_seeded_sample() -> None:
    """Twelve seeded 2-player games: the easy bot's random questions are about 50%
    accurate (50.4% over 300 games), the normal bot's well above."""
    from bodoge.games.tagiron.selfplay import ScoreTally, run_reviews

    tally = ScoreTally(("normal", "easy"))
    for reviewed in run_reviews(2, ("normal", "easy"), 12, seed=5):
        tally.add(reviewed)
    easy, normal = tally.breakdown("easy")[0], tally.breakdown("normal")[0]
    assert 0.35 < easy < 0.65 and normal > easy + 0.2


@pytest.mark.parametrize("players", [3, 4])
def test_over_the_questions_of_seeded_games_a_random_card_scores_about_half(players) -> None:
    """With 3 and 4 players the calibration is checked without the noise of a bot's dice:
    at every question of seeded normal games, a face-up card picked at random scores, in
    expectation over the cards, about 50% on average (PAR_FACTOR shortens the yardstick
    for what the clip at 0 adds), and the best question 100%."""
    from bodoge.games.tagiron.ai.situation import Situation
    from bodoge.games.tagiron.review import par_loss, stake
    from bodoge.games.tagiron.review_value import best_of, loss_of, worths
    from bodoge.games.tagiron.selfplay import play_game

    expected: list[float] = []
    for seed in (1, 2, 3):
        record = play_game(players, ["normal"] * players, seed)
        views = seat_views(players, seed, record.moves)
        for t, (seat, move) in enumerate(record.moves):
            if not isinstance(move, Ask):
                continue
            view = known(views[seat][t], seat)
            s = Situation(view, seat, Deduction(Position.from_view({**view, "you": seat})))
            worth = worths(s)
            best = worth[best_of(worth)]
            par = par_loss(worth, best)
            by_card: dict[str, list[float]] = {}
            for (card, _), w in worth.items():
                loss = loss_of(w, best)
                by_card.setdefault(card, []).append(1 - loss / stake(loss, par, players))
            expected.append(sum(sum(a) / len(a) for a in by_card.values()) / len(by_card))
            assert 1 - loss_of(best, best) / stake(0.0, par, players) == 1.0
    assert len(expected) >= 6
    assert 0.35 < sum(expected) / len(expected) < 0.65
