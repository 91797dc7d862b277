"""Illustori's rules, one at a time, on arranged tables (see docs/rules/illustori.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bodoge.core.errors import (
    BadMove,
    BadOptions,
    GameError,
    GameFinished,
    IllegalMove,
    NotYourTurn,
)
from bodoge.core.game import Clock, Result
from bodoge.core.rng import rng
from bodoge.games.illustori import rules
from bodoge.games.illustori.events import (
    CardDrawn,
    CardPlayed,
    CardsExchanged,
    DeckReshuffled,
    FinalRound,
    FirstWordGiven,
    GameEnded,
    Penalty,
    TurnStarted,
    VoteCast,
    VoteResolved,
)
from bodoge.games.illustori.moves import Exchange, FirstWord, PlayCard, Vote, VoteTimeout
from bodoge.games.illustori.options import (
    MAX_DECK_SEED,
    IllustoriOptions,
    hand_size,
    options_to_json,
    parse_options,
)
from bodoge.games.illustori.state import IllustoriState


def table(
    players: int = 3,
    hands: Sequence[Sequence[int]] | None = None,
    *,
    giver: int = 0,
    deck: Sequence[int] | None = None,
    discards: Sequence[int] = (),
    first_card: int | None = None,
    seed: int = 11,
    **options: object,
) -> IllustoriState:
    """A table in the first-word phase with the given hands; spare cards make the deck."""
    opts = parse_options({"players": players, **options})
    state = rules.setup(opts, players, seed)
    if hands is None:
        return dataclasses.replace(state, giver=giver, turn=giver)
    held = {c for h in hands for c in h}
    first = first_card if first_card is not None else max(range(opts.deck_size))
    rest = [c for c in range(opts.deck_size) if c not in held and c != first]
    if deck is None:
        deck = [c for c in rest if c not in discards]
    assert sorted([*held, first, *deck, *discards]) == list(range(opts.deck_size))
    return dataclasses.replace(
        state,
        giver=giver,
        turn=giver,
        first_card=first,
        hands=tuple(tuple(h) for h in hands),
        deck=tuple(deck),
        discards=tuple(discards),
    )


def started(state: IllustoriState, word: str = "つきよ") -> IllustoriState:
    """The state after the giver names the turned-up card."""
    state, _ = rules.apply(state, state.giver, FirstWord(word))
    return state


def refused(state: IllustoriState, seat: int | None, move: object, error: type[GameError]) -> str:
    """Apply a move that must fail with exactly ``error``; return the message."""
    before = state
    with pytest.raises(GameError) as caught:
        rules.apply(state, seat, move)  # type: ignore[arg-type]
    assert type(caught.value) is error, caught.value
    assert state == before
    return str(caught.value)


def all_cards(state: IllustoriState) -> list[int]:
    return sorted(rules.cards_in_play(state))


HANDS3 = [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14]]


# -- options --------------------------------------------------------------------


def test_default_options_and_round_trip() -> None:
    options = parse_options(None)
    assert options == IllustoriOptions()
    assert (options.players, options.language, options.deck_size) == (4, "ja", 60)
    assert not options.secret_votes and not options.vote_limit and options.show_rules
    data = options_to_json(options)
    assert parse_options(data) == options
    assert set(data) == {
        "players",
        "language",
        "ban_same_ends",
        "ban_used_joints",
        "vote_limit",
        "secret_votes",
        "show_rules",
        "deck_size",
        "deck_seed",
        "custom_deck",
    }
    custom = parse_options({"custom_deck": "my-deck_1.v2", "deck_size": 45, "players": 8})
    assert parse_options(options_to_json(custom)) == custom


@pytest.mark.parametrize(
    "raw",
    [
        {"colour": "red"},
        {"players": 2},
        {"players": 9},
        {"players": True},
        {"players": "4"},
        {"language": "fr"},
        {"language": None},
        {"ban_same_ends": 1},
        {"secret_votes": "yes"},
        {"vote_limit": 25},
        {"show_rules": None},
        {"deck_size": 29},
        {"deck_size": 201},
        {"deck_size": 60.0},
        {"deck_size": 32, "players": 8},
        {"deck_size": 30, "players": 6},
        {"deck_seed": -1},
        {"deck_seed": MAX_DECK_SEED + 1},
        {"deck_seed": "7"},
        {"deck_seed": 1, "custom_deck": "abc"},
        {"custom_deck": ""},
        {"custom_deck": "a b"},
        {"custom_deck": "-lead"},
        {"custom_deck": "x" * 65},
        {"custom_deck": 3},
        {1: 2},
    ],
)
def test_bad_options_are_refused(raw: dict) -> None:
    with pytest.raises(BadOptions):
        parse_options(raw)


def test_smallest_decks_are_accepted() -> None:
    assert parse_options({"players": 8, "deck_size": 33}).deck_size == 33
    assert parse_options({"players": 6, "deck_size": 31}).deck_size == 31
    assert parse_options({"players": 3, "deck_size": 30, "deck_seed": 0}).deck_seed == 0


# -- set-up ---------------------------------------------------------------------


@pytest.mark.parametrize("players", range(3, 9))
def test_setup_deals_hands_and_turns_up_a_card(players: int) -> None:
    state = rules.setup(parse_options({"players": players}), players, seed=3)
    size = 4 if players >= 7 else 5
    assert hand_size(players) == size
    assert [len(h) for h in state.hands] == [size] * players
    assert len(state.deck) == 60 - players * size - 1
    assert all_cards(state) == list(range(60))
    assert state.first_card not in state.deck
    assert state.phase == "first_word" and state.chain == ()
    assert rules.to_act(state) == {state.giver}
    assert rules.result(state) is None and rules.clock(state) is None


def test_setup_is_decided_by_the_seed() -> None:
    options = parse_options({"players": 5})
    states = [rules.setup(options, 5, seed) for seed in range(40)]
    assert len({s.hands for s in states}) == 40
    assert {s.giver for s in states} == set(range(5))


def test_deck_seed_is_derived_given_or_absent() -> None:
    derived = rules.setup(parse_options({"players": 3}), 3, 42).deck_seed
    assert derived is not None and 0 <= derived <= MAX_DECK_SEED
    assert rules.setup(parse_options({"players": 3}), 3, 42).deck_seed == derived
    assert rules.setup(parse_options({"players": 3}), 3, 43).deck_seed != derived
    assert rules.setup(parse_options({"players": 3, "deck_seed": 5}), 3, 42).deck_seed == 5
    custom = parse_options({"players": 3, "custom_deck": "cats", "deck_size": 40})
    state = rules.setup(custom, 3, 42)
    assert state.deck_seed is None and all_cards(state) == list(range(40))


def test_setup_refuses_another_number_of_seats() -> None:
    with pytest.raises(BadOptions):
        rules.setup(parse_options({"players": 4}), 5, 1)


# -- the first word -------------------------------------------------------------


def test_the_giver_names_the_first_card_without_a_vote() -> None:
    state = table(4, giver=3)
    refused(state, 0, FirstWord("つきよ"), NotYourTurn)
    refused(state, 0, PlayCard(state.hands[0][0], "よる"), IllegalMove)
    refused(state, 3, Exchange((state.hands[3][0],)), IllegalMove)
    refused(state, 1, Vote(True), IllegalMove)
    after, events = rules.apply(state, 3, FirstWord("  つきよ "))
    assert events == [FirstWordGiven(3, state.first_card, "つきよ", "つ", "よ"), TurnStarted(0)]
    assert after.phase == "play" and after.turn == 0 and rules.to_act(after) == {0}
    assert [w.card for w in after.chain] == [state.first_card]
    assert after.current is not None and after.current.next_heads == ("よ",)
    assert after.hands == state.hands and after.deck == state.deck
    refused(after, 3, FirstWord("よる"), IllegalMove)


def test_first_word_in_kanji() -> None:
    state = table(3)
    refused(state, 0, FirstWord("東京"), BadMove)
    refused(state, 0, FirstWord("東京", head="と"), BadMove)
    refused(state, 0, FirstWord("とうきょう", head="か"), BadMove)
    after, _ = rules.apply(state, 0, FirstWord("東京", head="と", tail="きょう"))
    assert after.chain[0].head == "と" and after.chain[0].tail == "う"


@pytest.mark.parametrize(
    ("options", "word"),
    [({}, "みかん"), ({"ban_same_ends": True}, "トマト"), ({}, "   "), ({}, "x" * 41)],
)
def test_a_first_word_that_breaks_a_rule_is_given_again(options: dict, word: str) -> None:
    state = table(3, **options)
    error = BadMove if not word.strip() or len(word) > 40 else IllegalMove
    refused(state, 0, FirstWord(word), error)


def test_same_ends_is_fine_without_the_ban() -> None:
    assert started(table(3), "トマト").current.word == "トマト"  # type: ignore[union-attr]


# -- playing a card ----------------------------------------------------------------


def test_a_word_that_does_not_link_is_refused() -> None:
    state = started(table(3, HANDS3))
    assert "よ" in refused(state, 1, PlayCard(5, "ねこ"), IllegalMove)


def test_a_passed_word_joins_the_chain() -> None:
    state = started(table(3, HANDS3))
    state, events = rules.apply(state, 1, PlayCard(5, "ヨット"))
    assert events == [CardPlayed(1, 5, "ヨット", "よ", "と")]
    assert state.phase == "vote" and state.pending is not None and state.pending.card == 5
    assert rules.to_act(state) == {0, 2} and state.turn == 1
    assert state.hands[1] == (6, 7, 8, 9)
    assert all_cards(state) == list(range(60))
    refused(state, 2, PlayCard(10, "とけい"), IllegalMove)
    refused(state, 1, Exchange((6,)), IllegalMove)
    state, events = rules.apply(state, 0, Vote(True))
    assert events == [VoteCast(0, True, 1, 2, False)]
    assert rules.to_act(state) == {2}
    state, events = rules.apply(state, 2, Vote(True))
    assert events[0] == VoteCast(2, True, 2, 2, False)
    assert events[1] == VoteResolved(1, 5, True, 2, 0, ((0, True), (2, True)), (), False)
    assert events[2:] == [TurnStarted(2)]
    assert [w.card for w in state.chain][1:] == [5]
    assert state.current is not None and state.current.word == "ヨット"
    assert state.current.next_heads == ("と", "ど")
    assert state.used_joints == ("よ",)
    assert state.phase == "play" and state.turn == 2 and state.pending is None
    assert state.last_vote is not None and state.last_vote.passed


def test_a_failed_word_is_discarded_and_replaced() -> None:
    state = started(table(3, HANDS3))
    top = state.deck[0]
    state, _ = rules.apply(state, 1, PlayCard(5, "ヨット"))
    state, _ = rules.apply(state, 0, Vote(False))
    state, events = rules.apply(state, 2, Vote(False))
    assert events[1:] == [
        VoteResolved(1, 5, False, 0, 2, ((0, False), (2, False)), (), False),
        CardDrawn(1, top),
        TurnStarted(2),
    ]
    assert state.hands[1] == (6, 7, 8, 9, top)
    assert state.discards == (5,)
    assert len(state.chain) == 1 and state.current is not None
    assert state.current.word == "つきよ"  # the chain goes on from the previous word
    assert state.used_joints == ()


@pytest.mark.parametrize(
    ("players", "votes", "passed"),
    [
        (3, [True, False], True),  # a tie passes
        (3, [False, False], False),
        (4, [True, False, False], False),
        (4, [True, True, False], True),
        (5, [True, True, False, False], True),  # a tie passes
        (5, [True, False, False, False], False),
        (8, [True, True, True, False, False, False, False], False),
        (8, [True, True, True, True, False, False, False], True),
    ],
)
def test_at_least_half_ok_passes(players: int, votes: list[bool], passed: bool) -> None:
    state = started(table(players))
    player = state.turn
    state, _ = rules.apply(state, player, PlayCard(state.hands[player][0], "よる"))
    voters = sorted(rules.to_act(state))
    assert len(voters) == len(votes) == players - 1
    for seat, ok in zip(voters, votes, strict=True):
        state, events = rules.apply(state, seat, Vote(ok))
    resolved = events[1]
    assert isinstance(resolved, VoteResolved) and resolved.passed is passed
    assert (resolved.ok_count, resolved.ng_count) == (sum(votes), len(votes) - sum(votes))
    assert len(state.chain) == (2 if passed else 1)


def test_votes_from_the_wrong_seat_are_refused() -> None:
    state = started(table(4, giver=3))
    state, _ = rules.apply(state, 0, PlayCard(state.hands[0][0], "よる"))
    assert "own word" in refused(state, 0, Vote(True), IllegalMove)
    state, _ = rules.apply(state, 1, Vote(False))
    assert "already voted" in refused(state, 1, Vote(True), IllegalMove)
    refused(state, 2, Vote("yes"), BadMove)  # type: ignore[arg-type]
    refused(state, None, Vote(True), NotYourTurn)
    refused(state, 7, Vote(True), BadMove)


def test_a_vote_outside_a_vote_is_refused() -> None:
    state = started(table(3))
    refused(state, 2, Vote(True), IllegalMove)


def assert_penalty(state: IllustoriState, seat: int, card: int, word: str, reason: str) -> None:
    top = state.deck[0]
    after, events = rules.apply(state, seat, PlayCard(card, word))
    assert [type(e) for e in events] == [CardPlayed, Penalty, CardDrawn, TurnStarted]
    assert events[1] == Penalty(seat, card, reason)
    assert events[2] == CardDrawn(seat, top)
    assert after.phase == "play" and after.turn == (seat + 1) % state.seats
    assert after.discards == (*state.discards, card)
    kept = [c for c in state.hands[seat] if c != card]
    assert sorted(after.hands[seat]) == sorted([*kept, top])
    assert after.chain == state.chain and after.pending is None


def test_a_word_ending_with_n_is_a_penalty() -> None:
    state = started(table(3, HANDS3))
    assert_penalty(state, 1, 7, "よかん", "ends_with_n")
    assert_penalty(state, 1, 7, "ヨカン！", "ends_with_n")


def test_same_ends_is_a_penalty_only_with_the_ban() -> None:
    state = started(table(3, HANDS3), "ぽてと")
    after, _ = rules.apply(state, 1, PlayCard(5, "トマト"))
    assert after.phase == "vote"
    banned = started(table(3, HANDS3, ban_same_ends=True), "ぽてと")
    assert_penalty(banned, 1, 5, "トマト", "same_ends")
    assert_penalty(banned, 1, 5, "ドアと", "same_ends")  # dakuten aside


def play_and_pass(state: IllustoriState, card: int, word: str) -> IllustoriState:
    seat = state.turn
    state, _ = rules.apply(state, seat, PlayCard(card, word))
    for voter in sorted(rules.to_act(state)):
        state, _ = rules.apply(state, voter, Vote(True))
    return state


def test_a_word_ending_in_a_used_joint_is_a_penalty_only_with_the_ban() -> None:
    hands = HANDS3
    for ban in (False, True):
        state = started(table(3, hands, ban_used_joints=ban), "つきよ")
        state = play_and_pass(state, 5, "よこ")  # joint よ
        state = play_and_pass(state, 10, "こあら")  # joint こ
        assert state.used_joints == ("よ", "こ")
        # ending in an old joint, in the joint this word makes, or (dakuten aside) in ご
        for word in ("らいよ", "らっこら", "らいご"):
            if ban:
                assert_penalty(state, 0, 0, word, "banned_joint")
            else:
                assert rules.apply(state, 0, PlayCard(0, word))[0].phase == "vote"
        # the first word's head (つ) was never a joint
        assert rules.apply(state, 0, PlayCard(0, "らくつ"))[0].phase == "vote"


def test_bad_plays_are_refused_precisely() -> None:
    state = started(table(3, HANDS3))
    refused(state, 2, PlayCard(10, "よる"), NotYourTurn)
    refused(state, 1, PlayCard(0, "よる"), IllegalMove)  # seat 0's card
    refused(state, 1, PlayCard(60, "よる"), BadMove)
    refused(state, 1, PlayCard(-1, "よる"), BadMove)
    refused(state, 1, PlayCard(True, "よる"), BadMove)  # type: ignore[arg-type]
    refused(state, 1, PlayCard(5, ""), BadMove)
    refused(state, 1, PlayCard(5, " \u3000 "), BadMove)
    refused(state, 1, PlayCard(5, "よ" * 41), BadMove)
    refused(state, 1, PlayCard(5, "よる\nよる"), BadMove)
    refused(state, 1, PlayCard(5, 42), BadMove)  # type: ignore[arg-type]
    refused(state, 1, PlayCard(5, "夜", head="よ"), BadMove)  # no tail
    refused(state, 1, PlayCard(5, "よる", head="か"), BadMove)  # contradicts the word
    refused(state, None, PlayCard(5, "よる"), NotYourTurn)
    refused(state, 1, "よる", BadMove)
    assert rules.apply(state, 1, PlayCard(5, "よ" * 40))[0].phase == "vote"
    after, _ = rules.apply(state, 1, PlayCard(5, "夜", head="よ", tail="る"))
    assert after.pending is not None and (after.pending.head, after.pending.tail) == ("よ", "る")


# -- exchanging -------------------------------------------------------------------


def test_an_exchange_draws_first_then_returns_the_cards() -> None:
    state = started(table(3, HANDS3))
    top = state.deck[:2]
    after, events = rules.apply(state, 1, Exchange((7, 5)))
    assert events == [
        CardsExchanged(1, (7, 5)),
        CardDrawn(1, top[0]),
        CardDrawn(1, top[1]),
        TurnStarted(2),
    ]
    assert after.hands[1] == (6, 8, 9, *top)
    assert after.discards == (7, 5) and after.deck == state.deck[2:]
    assert after.turn == 2 and after.phase == "play" and after.chain == state.chain


def test_bad_exchanges_are_refused() -> None:
    state = started(table(3, HANDS3))
    refused(state, 1, Exchange(()), BadMove)
    refused(state, 1, Exchange((5, 5)), BadMove)
    refused(state, 1, Exchange((5, 0)), IllegalMove)
    refused(state, 1, Exchange((5, 99)), BadMove)
    refused(state, 1, Exchange(None), BadMove)  # type: ignore[arg-type]
    refused(state, 0, Exchange((0,)), NotYourTurn)


def test_a_short_deck_reshuffles_the_other_discards_before_your_own() -> None:
    hands = [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14]]
    state = table(3, hands, first_card=15, deck=[16], discards=list(range(17, 60)))
    state = started(state)
    after, events = rules.apply(state, 1, Exchange((5, 6, 7)))
    assert events[:3] == [CardsExchanged(1, (5, 6, 7)), CardDrawn(1, 16), DeckReshuffled(43)]
    expected = list(range(17, 60))
    rng(state.seed, "reshuffle", 0).shuffle(expected)
    assert after.hands[1] == (8, 9, 16, *expected[:2])
    assert after.deck == tuple(expected[2:])
    assert after.discards == (5, 6, 7) and after.reshuffles == 1
    assert all_cards(after) == list(range(60))


def test_with_deck_and_discards_empty_the_returned_cards_come_back() -> None:
    # 3 players, 31-card deck... the smallest deck leaves one spare card; put
    # it in the chain so that deck and discards are both empty.
    options = {"deck_size": 30}
    hands = [list(range(0, 5)), list(range(5, 10)), list(range(10, 15))]
    state = table(3, hands, first_card=15, deck=list(range(16, 30)), **options)
    state = dataclasses.replace(started(state), deck=(), discards=())
    # The 14 spare cards go to seat 2's hand to keep them somewhere.
    state = dataclasses.replace(
        state, hands=(state.hands[0], state.hands[1], (*state.hands[2], *range(16, 30)))
    )
    assert all_cards(state) == list(range(30))
    after, events = rules.apply(state, 1, Exchange((5, 6)))
    assert [type(e) for e in events] == [
        CardsExchanged,
        DeckReshuffled,
        CardDrawn,
        CardDrawn,
        TurnStarted,
    ]
    assert sorted(after.hands[1]) == list(range(5, 10))
    assert after.deck == () and after.discards == ()
    # A failed card with nothing else left comes straight back too.
    state, _ = rules.apply(after, 2, PlayCard(10, "よる"))
    state, _ = rules.apply(state, 0, Vote(False))
    state, events = rules.apply(state, 1, Vote(False))
    assert events[2:4] == [DeckReshuffled(1), CardDrawn(2, 10)]
    assert 10 in state.hands[2] and all_cards(state) == list(range(30))


def test_a_failed_card_is_not_drawn_back_while_other_discards_remain() -> None:
    state = table(3, HANDS3, first_card=15, deck=[], discards=list(range(16, 60)))
    state = started(state)
    state, _ = rules.apply(state, 1, PlayCard(5, "よる"))
    state, _ = rules.apply(state, 0, Vote(False))
    state, events = rules.apply(state, 2, Vote(False))
    expected = list(range(16, 60))
    rng(state.seed, "reshuffle", 0).shuffle(expected)
    assert events[2:4] == [DeckReshuffled(44), CardDrawn(1, expected[0])]
    assert state.discards == (5,) and state.deck == tuple(expected[1:])


# -- the vote limit -------------------------------------------------------------------


def test_the_vote_limit_counts_missing_votes_as_ok() -> None:
    state = started(table(4, vote_limit=True, giver=3))
    assert rules.clock(state) is None
    state, _ = rules.apply(state, 0, PlayCard(state.hands[0][0], "よる"))
    assert rules.clock(state) == Clock(25, VoteTimeout())
    refused(state, 1, VoteTimeout(), IllegalMove)
    state, _ = rules.apply(state, 1, Vote(False))
    state, events = rules.apply(state, None, VoteTimeout())
    assert events[0] == VoteResolved(
        0, state.chain[-1].card, True, 2, 1, ((1, False), (2, True), (3, True)), (2, 3), False
    )
    assert len(state.chain) == 2 and rules.clock(state) is None
    assert state.last_vote is not None and state.last_vote.timed_out == (2, 3)
    refused(state, None, VoteTimeout(), IllegalMove)  # no vote running


def test_without_the_vote_limit_the_table_waits() -> None:
    state = started(table(3))
    state, _ = rules.apply(state, 1, PlayCard(state.hands[1][0], "よる"))
    assert rules.clock(state) is None
    refused(state, None, VoteTimeout(), IllegalMove)


# -- the end ----------------------------------------------------------------------------


def nearly_done(players: int, giver: int, emptier: int, **options: object) -> IllustoriState:
    """A started table where ``emptier`` holds one card and everyone else two."""
    hands = [[2 * s, 2 * s + 1] for s in range(players)]
    hands[emptier] = [2 * emptier]
    state = table(players, hands, giver=giver, **options)
    return started(state)


def pass_turn(state: IllustoriState, seat: int) -> IllustoriState:
    """``seat`` plays its first card with a linking word, and everyone says OK."""
    assert state.turn == seat and state.current is not None
    return play_and_pass(state, state.hands[seat][0], state.current.next_heads[0] + "るい")


def test_the_final_round_ends_with_the_givers_turn() -> None:
    # 4 players, giver 2: turn order 3, 0, 1, 2.  Seat 0 plays out first.
    state = nearly_done(4, giver=2, emptier=0)
    state, _ = rules.apply(state, 3, Exchange((6,)))  # seat 3 exchanges
    seat0 = state.hands[0][0]
    state, events = rules.apply(state, 0, PlayCard(seat0, "よい"))
    for voter in (1, 2, 3):
        state, events = rules.apply(state, voter, Vote(True))
    assert FinalRound(0, 2) in events and state.final_round
    assert state.hands[0] == () and state.turn == 1
    # Seat 1's word passes too, but it still holds a card.
    state, _ = rules.apply(state, 1, PlayCard(state.hands[1][0], "いよ"))
    for voter in (0, 2, 3):
        state, events = rules.apply(state, voter, Vote(True))
    assert state.turn == 2 and state.phase == "play" and rules.result(state) is None
    assert not any(isinstance(e, FinalRound) for e in events)  # already the final round
    # The giver's turn ends the game, whatever happens in it.
    state, events = rules.apply(state, 2, PlayCard(state.hands[2][0], "よよん"))
    assert isinstance(events[-1], GameEnded) and events[-1].result.winners == (0,)
    assert state.phase == "ended" and rules.to_act(state) == frozenset()
    result = rules.result(state)
    assert result is not None and result.places == (1, 2, 2, 2) and result.winners == (0,)
    assert result.reason == "hand_emptied"
    for seat, move in [(1, Vote(True)), (3, PlayCard(7, "よる")), (None, VoteTimeout())]:
        refused(state, seat, move, GameFinished)
    assert rules.clock(state) is None


def test_several_players_can_share_the_win() -> None:
    hands = [[0], [2, 3], [4]]
    state = started(table(3, hands, giver=2))
    state = play_and_pass(state, 0, "よい")  # seat 0 plays out
    assert state.final_round and state.turn == 1
    state, _ = rules.apply(state, 1, Exchange((2,)))
    state = play_and_pass(state, 4, "いか")  # the giver plays out too: the game ends
    assert state.phase == "ended" and state.winners == (0, 2)
    result = rules.result(state)
    assert result is not None and result.places == (1, 2, 1) and not result.draw


def test_the_giver_playing_out_ends_the_game_at_once() -> None:
    state = nearly_done(3, giver=1, emptier=1)
    state = pass_turn(state, 2)
    state = pass_turn(state, 0)
    state, _ = rules.apply(state, 1, PlayCard(state.hands[1][0], "いよ"))
    state, _ = rules.apply(state, 0, Vote(True))
    state, events = rules.apply(state, 2, Vote(False))  # 1-1: a tie passes
    assert [type(e) for e in events] == [VoteCast, VoteResolved, FinalRound, GameEnded]
    assert state.phase == "ended" and state.winners == (1,)


def test_nobody_plays_out_on_a_failed_vote_or_a_penalty() -> None:
    state = nearly_done(3, giver=2, emptier=0)
    state, _ = rules.apply(state, 0, PlayCard(0, "よかん"))  # penalty
    assert len(state.hands[0]) == 1 and not state.final_round
    state = dataclasses.replace(state, turn=0)
    state, _ = rules.apply(state, 0, PlayCard(state.hands[0][0], "よる"))
    state, _ = rules.apply(state, 1, Vote(False))
    state, _ = rules.apply(state, 2, Vote(False))
    assert len(state.hands[0]) == 1 and not state.final_round and state.phase == "play"


# -- a stalled table ----------------------------------------------------------------------


def stalled_table() -> IllustoriState:
    """3 players, giver 2 (turn order 0, 1, 2), hands of 2, 3 and 1 cards, after the first word."""
    return started(table(3, [[0, 1], [2, 3, 4], [5]], giver=2))


def no_word(state: IllustoriState, how: str) -> IllustoriState:
    """The turn player's turn ends without a word joining the chain: ``how`` it goes."""
    seat = state.turn
    card = state.hands[seat][0]
    assert state.current is not None
    head = state.current.next_heads[0]
    if how == "exchange":
        state, _ = rules.apply(state, seat, Exchange((card,)))
    elif how == "penalty":
        state, _ = rules.apply(state, seat, PlayCard(card, head + "かん"))
    else:  # voted down
        state, _ = rules.apply(state, seat, PlayCard(card, head + "る"))
        for voter in state.awaited:
            state, _ = rules.apply(state, voter, Vote(False))
    return state


def test_three_rounds_without_a_word_end_the_game() -> None:
    state = stalled_table()
    assert rules.STALL_ROUNDS == 3 and rules.stall_turns(state) == 9
    ways = ["exchange", "penalty", "failed"]
    for turn in range(8):
        state = no_word(state, ways[turn % 3])
        assert state.phase == "play" and state.idle_turns == turn + 1
        assert rules.result(state) is None
    log_before = len(state.log)
    last = state.hands[2][0]
    state, events = rules.apply(state, 2, Exchange((last,)))  # the ninth turn: three rounds
    assert state.phase == "ended" and state.stalled and rules.to_act(state) == frozenset()
    assert events[-1] == GameEnded(Result((2, 3, 1), "stalled"), {"hand_counts": [2, 3, 1]})
    assert not any(isinstance(e, TurnStarted) for e in events)
    result = rules.result(state)
    assert result is not None and result.reason == "stalled"
    # The fewest cards win; the others are ranked by the cards they hold.
    assert result.places == (2, 3, 1) and result.winners == (2,)
    assert state.log[log_before:] == (CardsExchanged(2, (last,)), events[-1])
    refused(state, 0, Exchange((0,)), GameFinished)


def test_a_stalled_game_shares_first_place_among_the_fewest_cards() -> None:
    state = started(table(3, [[0, 1], [2, 3], [4, 5, 6]], giver=2))
    for _ in range(9):
        state = no_word(state, "exchange")
    result = rules.result(state)
    assert result is not None and result.places == (1, 1, 3) and result.winners == (0, 1)
    assert state.winners == (0, 1)


def test_an_accepted_word_starts_the_count_again() -> None:
    state = started(table(3, [[0, 1], [2, 3, 4], [5, 6]], giver=2))
    for _ in range(8):
        state = no_word(state, "exchange")
    assert state.idle_turns == 8 and state.turn == 2
    state = play_and_pass(state, state.hands[2][0], state.current.next_heads[0] + "るい")
    assert state.idle_turns == 0 and state.phase == "play" and state.turn == 0
    for _ in range(8):  # three more rounds are needed again
        state = no_word(state, "exchange")
    assert state.phase == "play" and rules.result(state) is None
    state = no_word(state, "exchange")
    assert state.phase == "ended" and state.stalled


def test_a_game_where_words_join_the_chain_never_stalls() -> None:
    state = started(table(3, HANDS3, giver=2))
    ways = ["exchange", "failed", "penalty"]
    for _ in range(12):
        # Seven turns without a word (over two rounds), then a word joins: it goes on.
        for turn in range(7):
            state = no_word(state, ways[turn % 3])
        assert state.idle_turns == 7
        state = play_and_pass(
            state, state.hands[state.turn][0], state.current.next_heads[0] + "るい"
        )
        assert state.idle_turns == 0 and state.phase == "play"
    assert len(state.chain) == 13 and not state.stalled and rules.result(state) is None


# -- any text --------------------------------------------------------------------------


_chars = st.characters() | st.sampled_from(list("よるかんーッャゞ東京ab 。\n\u200d🐼"))
_text = st.text(_chars, max_size=12)
_end = st.none() | st.text(_chars, max_size=6)


@settings(max_examples=300, deadline=None)
@given(word=_text, head=_end, tail=_end, language=st.sampled_from(["ja", "en"]))
def test_any_text_is_judged_or_refused_cleanly(
    word: str, head: str | None, tail: str | None, language: str
) -> None:
    """Whatever a client sends as a word, the engine answers with a game error or a play."""
    state = table(3, HANDS3, ban_same_ends=True, ban_used_joints=True, language=language)
    first = "night" if language == "en" else "つきよ"
    for seat, move in [(0, FirstWord(word, head, tail)), (1, PlayCard(5, word, head, tail))]:
        if seat == 1:
            state = started(state, first)
        try:
            after, events = rules.apply(state, seat, move)
        except GameError:
            continue
        assert events and after.phase in ("play", "vote")
        assert all_cards(after) == list(range(60))
