"""The 2-player expert: legal questions, right when certain, and better questions than greedy."""

from __future__ import annotations

import functools
import random
from dataclasses import replace

import numpy as np
import pytest

from bodoge.core.rng import derive_seed
from bodoge.games.tagiron.ai.bots import make_bot
from bodoge.games.tagiron.ai.duel import DuelExpert, left_to_rival, rival_bits, unseen_deck
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.rollout import rollout_costs
from bodoge.games.tagiron.ai.situation import Situation
from bodoge.games.tagiron.ai.solver import Deduction, Variant, face_up_variants
from bodoge.games.tagiron.ai.worlds import VARIANT_INDEX
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.moves import Ask
from bodoge.games.tagiron.rules import questions
from bodoge.games.tagiron.selfplay import play_game, solo_questions
from bodoge.games.tagiron.state import TagironState
from tests.games.tagiron.helpers import GAME, new


def situation(state: TagironState, seat: int) -> Situation:
    view = GAME.view(state, seat)
    return Situation(view, seat, Deduction(Position.from_view(view)))


def test_the_expert_asks_only_face_up_questions() -> None:
    bots = {"game": make_bot("expert"), "alone": DuelExpert(alone=True)}
    seen = 0
    for seed in range(6):
        state = new(2, seed)
        choose = random.Random(seed)
        while state.result is None and state.phase == "play":
            s = situation(state, state.turn)
            if not s.deduction.certain:
                moves = [
                    bots["game"].act(s.view, s.seat, random.Random(seed)),
                    bots["alone"].best_question(s, random.Random(seed)),
                ]
                for move in moves:
                    if isinstance(move, Ask):
                        assert move.card in s.view["face_up"]
                        choices = CARDS[move.card].choices
                        assert move.choice in (choices or (None,))
                        seen += 1
            state, _ = GAME.apply(state, state.turn, choose.choice(questions(state)))
    assert seen > 20


@pytest.mark.parametrize("levels", [("expert", "expert"), ("expert", "easy")])
def test_expert_games_are_legal_and_never_wrong_when_certain(levels: tuple[str, str]) -> None:
    for seed in range(8):
        record = play_game(2, levels, seed, check_certainty=True)  # raises on either fault
        assert record.reason in ("declared", "draw", "final_declaration_wrong", "no_cards")


def test_the_expert_is_reproducible_from_its_random_source() -> None:
    state = new(2, 11)
    for _ in range(4):  # a middle game, where rollouts run
        state, _ = GAME.apply(state, state.turn, questions(state)[1])
    s = situation(state, state.turn)
    expert = DuelExpert()
    costs = expert.question_costs(s, random.Random(3))
    assert costs.keys() == set(s.variants)
    assert costs == expert.question_costs(s, random.Random(3))
    assert costs != expert.question_costs(s, random.Random(4))  # other deck orders
    assert expert.best_question(s, random.Random(3)) == expert.best_question(s, random.Random(3))


# --- a position where the greedy question is provably worse -------------------------------


def used_up_deck(seed: int, mine: int) -> tuple[TagironState, int]:
    """Seat A asks ``mine`` random questions, seat B the first face-up card, until the deck is out.

    Seat B's questions tell A nothing about B's hand (unless shared), so A is
    left with few candidates, the six face-up cards and no deck to refill them.
    """
    state = new(2, seed)
    a, b = state.turn, 1 - state.turn
    choose = random.Random(seed)
    asked = 0
    while state.deck:
        if asked < mine:
            card = choose.choice(state.face_up)
            choices = CARDS[card].choices
            move = Ask(card, choose.choice(choices) if choices else None)
            state, _ = GAME.apply(replace(state, turn=a), a, move)
            asked += 1
        card = state.face_up[0]
        choices = CARDS[card].choices
        state, _ = GAME.apply(replace(state, turn=b), b, Ask(card, choices[0] if choices else None))
    return replace(state, turn=a), a


def exact_costs(d: Deduction, face_up: tuple[str, ...]) -> dict[Variant, float]:
    """Expected questions until certain, asking each variant now and then the best ones.

    Plain expectimax over the live hands, asking alone with no deck left.
    """
    u = d.universe

    @functools.cache
    def value(hands: tuple[int, ...], cards: tuple[str, ...]) -> float:
        if len(set(u.distinct[list(hands)].tolist())) == 1:
            return 0.0
        if not cards:
            return 1.0  # the cards ran out: the count is the questions asked, plus one
        return min(ask(hands, cards, v) for v in face_up_variants(cards))

    @functools.cache
    def ask(hands: tuple[int, ...], cards: tuple[str, ...], variant: Variant) -> float:
        answers = u.answers[VARIANT_INDEX[variant], list(hands)]
        rest = tuple(c for c in cards if c != variant[0])
        total = 0.0
        for a in np.unique(answers):
            branch = tuple(h for h, x in zip(hands, answers, strict=True) if x == a)
            total += len(branch) * value(branch, rest)
        return 1.0 + total / len(hands)

    live = tuple(np.nonzero(d.counts)[0].tolist())
    return {v: ask(live, face_up, v) for v in face_up_variants(face_up)}


def test_the_expert_avoids_a_greedy_question_that_needs_more_questions() -> None:
    state, seat = used_up_deck(270, 3)
    s = situation(state, seat)
    assert not unseen_deck(s.view) and s.deduction.candidate_count == 8
    exact = exact_costs(s.deduction, state.face_up)
    best = min(exact.values())
    bits = s.deduction.question_bits(s.variants)
    greedy = max(bits, key=bits.__getitem__)
    assert greedy == ("where_3or4", 3)  # the most bits now ...
    assert exact[greedy] == pytest.approx(2.125) and best == pytest.approx(1.75)  # ... and worse
    assert make_bot("normal").act(s.view, seat, random.Random(0)) == Ask(*greedy)
    for r in range(5):
        move = DuelExpert(alone=True).best_question(s, random.Random(r))
        assert exact[move.card, move.choice] == pytest.approx(best)


def test_a_rollout_never_promises_less_than_the_best_play() -> None:
    # With no deck, a rollout's count is an average over runs of some policy,
    # so it is never below the exact optimum; for the best first question it
    # is the optimum here (the greedy questions after it are the best ones).
    state, seat = used_up_deck(270, 3)
    d = situation(state, seat).deduction
    exact = exact_costs(d, state.face_up)
    rollout = rollout_costs(d, state.face_up, [], np.random.default_rng(0), rival=False)
    assert rollout.keys() == exact.keys()
    assert all(rollout[v] >= exact[v] - 1e-9 for v in exact)
    best = min(exact, key=exact.__getitem__)
    assert rollout[best] == pytest.approx(exact[best])


def test_in_a_rollout_the_opponent_takes_cards_and_answers_shared_ones() -> None:
    # Two candidates, told apart by the shared card alone (largest minus smallest 3 or 2).
    p = Position.from_json(
        {
            "players": 2,
            "seat": 0,
            "hand": ["R0", "B0", "R1", "B1", "R2"],
            "log": [
                {"seat": 0, "card": "total_sum", "answers": {"0": 4, "1": 40}},
                {"seat": 0, "card": "red_count", "answers": {"1": 3}},
            ],
            "face_up": ["max_minus_min", "where_5"],
        }
    )
    d = Deduction(p)
    assert d.candidate_count == 2

    def costs(deck: list[str], rival: bool) -> dict[Variant, float]:
        return rollout_costs(d, p.face_up, deck, np.random.default_rng(0), rival=rival)

    alone = costs([], rival=False)
    assert alone == {("max_minus_min", None): 1.0, ("where_5", None): 2.0}
    # asking where the 5 is leaves the opponent only the shared card: its answer tells all
    assert costs([], rival=True) == {("max_minus_min", None): 1.0, ("where_5", None): 1.0}
    # with a card to refill the slot, it takes the shared one half the time
    assert costs(["where_0"], rival=True)[("where_5", None)] == pytest.approx(1.5, abs=0.25)


def test_the_expert_needs_no_more_questions_than_normal_on_the_same_deals() -> None:
    # The first deals of `bodoge tagiron selfplay --solo normal,expert` (seed 1).
    seeds = [derive_seed(1, "solo", i) for i in range(80)]
    normal = [solo_questions("normal", seed) for seed in seeds]
    expert = [solo_questions("expert", seed) for seed in seeds]
    assert sum(expert) <= sum(normal)
    assert expert != normal  # it does ask other questions


# --- what the opponent is left with ---------------------------------------------------------


def test_taking_the_opponents_best_card_leaves_it_the_least() -> None:
    state = new(2, 5)
    for _ in range(3):
        state, _ = GAME.apply(state, state.turn, questions(state)[0])
    s = situation(state, state.turn)
    face_up, deck = s.view["face_up"], unseen_deck(s.view)
    worth = rival_bits(s.deduction, [*face_up, *deck])
    left = left_to_rival(s.deduction, face_up, deck)
    top = max(face_up, key=worth.__getitem__)
    assert all(left[top] <= left[c] + 1e-12 for c in face_up)
    # and with no card to refill the slot, it is left exactly the second best
    second = sorted((worth[c] for c in face_up), reverse=True)[1]
    assert left_to_rival(s.deduction, face_up, [])[top] == pytest.approx(second)


def test_charges_count_only_in_a_real_game() -> None:
    state = new(2, 7)
    s = situation(state, state.turn)
    assert set(DuelExpert(alone=True).charges(s).values()) == {0.0}
    charges = DuelExpert().charges(s)
    assert charges.keys() == set(s.variants) and all(c > 0 for c in charges.values())
