"""Whole games for 2, 3 and 4 players, covering every way a game ends, and bad input."""

from __future__ import annotations

import pytest

from bodoge.core.errors import BadMove, BadOptions, GameFinished, NotYourTurn
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.errors import (
    BadChoice,
    BadDeclaration,
    CardNotFaceUp,
    MayNotAsk,
    MayNotDeclare,
    MayNotPass,
    UnknownCard,
)
from bodoge.games.tagiron.events import Asked, CardRevealed
from bodoge.games.tagiron.moves import Ask, Declare, Pass
from bodoge.games.tagiron.state import TagironState
from tests.games.tagiron.helpers import GAME, any_question, ask, new, wrong_tiles

# --- 2 players ------------------------------------------------------------


def test_two_player_setup() -> None:
    state = new(2, seed=3)
    assert [len(h) for h in state.hands] == [5, 5]
    assert len(state.centre) == 10 and len(state.face_up) == 6 and len(state.deck) == 15
    assert state.turn == state.first
    for hand in state.hands:
        assert list(hand) == sorted(hand, key=lambda t: (int(t[1]), "RGB".index(t[0])))


def test_first_player_comes_from_the_seed() -> None:
    firsts = {new(2, seed).first for seed in range(40)}
    assert firsts == {0, 1}


def test_a_question_is_answered_by_the_opponent_or_both_when_shared() -> None:
    state = new(2, seed=1)
    asker = state.turn
    plain = next(c for c in state.face_up if not CARDS[c].shared and not CARDS[c].choices)
    after, events = GAME.apply(state, asker, Ask(plain))
    asked = events[0]
    assert isinstance(asked, Asked)
    assert [s for s, _ in asked.answers] == [1 - asker]
    # the used card's slot is refilled from the deck
    slot = state.face_up.index(plain)
    assert after.face_up[slot] == state.deck[0]
    assert isinstance(events[1], CardRevealed) and events[1].slot == slot
    assert after.turn == 1 - asker

    state = _with_face_up(new(2, seed=1), "total_sum")
    _, events = GAME.apply(state, state.turn, Ask("total_sum"))
    assert sorted(s for s, _ in events[0].answers) == [0, 1]


def _with_face_up(state: TagironState, card: str) -> TagironState:
    from dataclasses import replace

    if card in state.face_up:
        return state
    deck = tuple(c for c in state.deck if c != card)
    return replace(state, face_up=(card, *state.face_up[1:]), deck=(state.face_up[0], *deck))


def test_second_player_right_wins_at_once() -> None:
    state = new(2, seed=2)
    first, second = state.first, 1 - state.first
    state, _ = ask(state)
    state, _events = GAME.apply(state, second, Declare(state.hands[first]))
    assert state.phase == "ended"
    assert state.result.winners == (second,)
    assert state.result.reason == "declared"


def test_first_player_right_then_second_right_is_a_draw() -> None:
    state = new(2, seed=4)
    first, second = state.first, 1 - state.first
    state, _ = GAME.apply(state, first, Declare(state.hands[second]))
    assert state.phase == "final_declaration" and state.turn == second
    with pytest.raises(MayNotAsk):
        GAME.apply(state, second, any_question(state))
    state, _ = GAME.apply(state, second, Declare(state.hands[first]))
    assert state.result.places == (1, 1) and state.result.draw
    assert state.result.reason == "draw"


@pytest.mark.parametrize("final", ["wrong", "pass"])
def test_first_player_right_then_second_fails_first_wins(final: str) -> None:
    state = new(2, seed=5)
    first, second = state.first, 1 - state.first
    state, _ = GAME.apply(state, first, Declare(state.hands[second]))
    move = Declare(wrong_tiles(state.hands[first])) if final == "wrong" else Pass()
    state, _ = GAME.apply(state, second, move)
    assert state.result.winners == (first,)
    assert state.result.reason == "final_declaration_wrong"


def test_a_wrong_declaration_just_passes_the_turn() -> None:
    state = new(2, seed=6)
    first = state.first
    state, events = GAME.apply(state, first, Declare(wrong_tiles(state.hands[1 - first])))
    assert state.phase == "play" and state.turn == 1 - first
    assert not events[0].right
    state, _ = ask(state)
    state, _ = GAME.apply(state, first, Declare(wrong_tiles(state.hands[1 - first])))
    assert state.turn == 1 - first


def _ask_all_cards(state: TagironState) -> TagironState:
    while state.phase == "play":
        state, _ = ask(state)
    return state


def test_two_players_draw_when_the_cards_run_out() -> None:
    state = new(2, seed=7)
    state = _ask_all_cards(state)
    assert state.phase == "last_turns" and not state.face_up
    assert sum(isinstance(e, Asked) for e in state.log) == 21
    # the asker of the last card used it; the other player takes the first last turn
    last_asker = state.log[-1].seat
    assert state.turn == 1 - last_asker
    with pytest.raises(MayNotAsk):
        GAME.apply(state, state.turn, Ask(state.log[-1].card))
    state, _ = GAME.apply(state, state.turn, Pass())
    assert state.turn == last_asker
    state, _ = GAME.apply(state, state.turn, Declare(wrong_tiles(state.hands[1 - last_asker])))
    assert state.result.places == (1, 1) and state.result.reason == "no_cards"


def test_last_turn_right_declaration_still_wins() -> None:
    state = _ask_all_cards(new(2, seed=8))
    seat = state.turn
    second = 1 - state.first
    state, _ = GAME.apply(state, seat, Declare(state.hands[1 - seat]))
    if seat == second:
        assert state.result.winners == (second,)
    else:  # the first player was right: the second gets the final declaration
        assert state.phase == "final_declaration" and state.turn == second


# --- 3 players ----------------------------------------------------------------


def test_three_player_answers_and_out_of_turn_declarations() -> None:
    state = new(3, seed=11)
    assert [len(h) for h in state.hands] == [5, 5, 5] and len(state.centre) == 5
    asker = state.turn
    plain = next(c for c in state.face_up if not CARDS[c].shared)
    choice = CARDS[plain].choices[0] if CARDS[plain].choices else None
    state, events = GAME.apply(state, asker, Ask(plain, choice))
    assert sorted(s for s, _ in events[0].answers) == sorted({0, 1, 2} - {asker})

    # a player who is not to move declares right: first place, skipped from now on
    turn = state.turn
    other = next(s for s in range(3) if s != turn)
    state, _ = GAME.apply(state, other, Declare(tuple(reversed(state.centre))))
    assert state.status[other] == "right" and state.turn == turn
    with pytest.raises(MayNotDeclare):
        GAME.apply(state, other, Declare(state.centre))
    # turns now skip the right declarer, but they still answer
    for _ in range(4):
        assert state.turn != other
        state, events = ask(state)
        answering = {s for s, _ in events[0].answers}
        assert other in answering or events[0].seat == other

    # the last two: one wrong (eliminated, still answers), then the other right: 2nd place
    remaining = [s for s in range(3) if s != other]
    loser, winner = remaining
    state, _ = GAME.apply(state, loser, Declare(wrong_tiles(state.centre)))
    assert state.status[loser] == "eliminated" and state.phase == "play"
    state, _ = GAME.apply(state, winner, Declare(state.centre))
    assert state.phase == "ended"
    assert state.result.places[other] == 1
    assert state.result.places[winner] == 2
    assert state.result.places[loser] is None
    assert state.result.reason == "places_decided"


def test_three_players_two_right_ends_with_the_third_last() -> None:
    state = new(3, seed=12)
    a, b, c = state.turn, (state.turn + 1) % 3, (state.turn + 2) % 3
    state, _ = GAME.apply(state, b, Declare(state.centre))
    state, _ = GAME.apply(state, a, Declare(state.centre))
    assert state.result.places[b] == 1 and state.result.places[a] == 2
    assert state.result.places[c] == 3


def test_three_players_all_wrong_ends_with_nobody_ranked() -> None:
    state = new(3, seed=13)
    for seat in range(3):
        assert state.phase == "play"
        state, _ = GAME.apply(state, seat, Declare(wrong_tiles(state.centre)))
    assert state.result.places == (None, None, None)
    assert state.result.reason == "no_declarers"
    with pytest.raises(GameFinished):
        GAME.apply(state, 0, Pass())


def test_three_players_cards_run_out_last_turns_then_unranked() -> None:
    state = new(3, seed=14)
    right = state.turn
    state, _ = GAME.apply(state, right, Declare(state.centre))
    state = _ask_all_cards(state)
    assert state.phase == "last_turns"
    assert right not in state.last_turns and len(state.last_turns) == 2
    first_last, second_last = state.last_turns
    # the one not to move may still declare out of turn (wrong: eliminated)
    state, _ = GAME.apply(state, second_last, Declare(wrong_tiles(state.centre)))
    assert state.turn == first_last
    state, _ = GAME.apply(state, first_last, Pass())
    assert state.result.places[right] == 1
    assert state.result.places[first_last] is None and state.result.places[second_last] is None
    assert state.result.reason == "no_cards"


def test_three_player_declaration_content_is_secret() -> None:
    state = new(3, seed=15)
    declarer = (state.turn + 1) % 3
    guess = wrong_tiles(state.centre)
    state, events = GAME.apply(state, declarer, Declare(guess))
    for seat in (0, 1, 2, None):
        seen = GAME.observe(events[0], seat)
        entry = GAME.view(state, seat)["log"][-1]
        assert seen["right"] is False and entry["right"] is False
        if seat == declarer:
            assert seen["tiles"] == list(guess) and entry["tiles"] == list(guess)
        else:
            assert "tiles" not in seen and "tiles" not in entry


def test_every_view_shares_each_log_entry_it_may_see_alike() -> None:
    # Made once and shared, so the server renders a move's views and patches cheaply.
    state = new(3, seed=15)
    state, _ = ask(state)
    declarer = state.turn
    state, _ = GAME.apply(state, declarer, Declare(wrong_tiles(state.centre)))
    views = {seat: GAME.view(state, seat) for seat in (0, 1, 2, None)}
    question = [v["log"][0] for v in views.values()]
    assert all(entry is question[0] for entry in question)
    others = [views[s]["log"][-1] for s in views if s != declarer]
    assert all(entry is others[0] for entry in others)
    assert views[declarer]["log"][-1] is not others[0] and "tiles" in views[declarer]["log"][-1]


# --- 4 players -------------------------------------------------------------------


def test_four_players_everyone_answers_and_places_two_and_three() -> None:
    state = new(4, seed=21)
    assert [len(h) for h in state.hands] == [4, 4, 4, 4] and len(state.centre) == 4
    assert {"mid3_sum", "centre_high_low"}.isdisjoint(state.face_up + state.deck)
    assert len(state.face_up) + len(state.deck) == 19
    state, events = ask(state)
    assert sorted(s for s, _ in events[0].answers) == [0, 1, 2, 3]
    order = [(state.turn + k) % 4 for k in range(4)]
    with pytest.raises(UnknownCard):
        GAME.apply(state, state.turn, Ask("mid3_sum"))
    state, _ = GAME.apply(state, order[0], Declare(state.centre))
    state, _ = GAME.apply(state, order[2], Declare(wrong_tiles(state.centre)))
    state, _ = GAME.apply(state, order[3], Declare(state.centre))
    assert state.phase == "play" and state.turn == order[1]
    state, _ = GAME.apply(state, order[1], Declare(state.centre))
    assert state.result.places[order[0]] == 1
    assert state.result.places[order[3]] == 2
    assert state.result.places[order[1]] == 3
    assert state.result.places[order[2]] is None


def test_four_players_three_right_leaves_fourth_place() -> None:
    state = new(4, seed=22)
    for seat in (3, 1, 0):
        state, _ = GAME.apply(state, seat, Declare(state.centre))
    assert state.result.places == (3, 2, 4, 1)


# --- bad input ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "make", "error"),
    [
        (2, lambda s: Ask("no_such_card"), UnknownCard),
        (2, lambda s: Ask(next(c for c in s.deck if not CARDS[c].choices)), CardNotFaceUp),
        (
            2,
            lambda s: (
                Ask(s.face_up[0], 7) if not CARDS[s.face_up[0]].choices else Ask("red_sum", 1)
            ),
            BadChoice,
        ),
        (2, lambda s: Declare(("R1", "B1", "R2")), BadDeclaration),
        (2, lambda s: Declare(("R1", "B1", "R2", "B2", "R5")), BadDeclaration),
        (2, lambda s: Declare(("R1", "R1", "R2", "B2", "R3")), BadDeclaration),
        (2, lambda s: Declare(("B2", "R1", "B1", "R3", "B4")), BadDeclaration),
        (2, lambda s: Pass(), MayNotPass),
        (3, lambda s: Declare(("G5", "G5", "G5", "R1", "R2")), BadDeclaration),
        (4, lambda s: Declare(("R1", "B1", "R2", "B2", "R3")), BadDeclaration),
    ],
)
def test_bad_moves_raise_and_change_nothing(players, make, error) -> None:
    state = new(players, seed=31)
    before = GAME.view(state, state.turn)
    with pytest.raises(error):
        GAME.apply(state, state.turn, make(state))
    assert GAME.view(state, state.turn) == before
    assert state == new(players, seed=31)


def test_choice_cards_need_a_choice() -> None:
    for card in ("where_1or2", "where_3or4", "where_6or7", "where_8or9"):
        state = _with_face_up(new(2, seed=32), card)
        with pytest.raises(BadChoice):
            GAME.apply(state, state.turn, Ask(card))
        with pytest.raises(BadChoice):
            GAME.apply(state, state.turn, Ask(card, 5))
        _ok, events = GAME.apply(state, state.turn, Ask(card, CARDS[card].choices[1]))
        assert events[0].choice == CARDS[card].choices[1]


def test_out_of_turn_and_after_elimination() -> None:
    state = new(2, seed=33)
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 1 - state.turn, any_question(state))
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 1 - state.turn, Declare(state.hands[state.turn]))
    with pytest.raises(NotYourTurn):
        GAME.apply(state, None, any_question(state))

    state = new(3, seed=33)
    loser = state.turn
    state, _ = GAME.apply(state, loser, Declare(wrong_tiles(state.centre)))
    with pytest.raises(MayNotDeclare):
        GAME.apply(state, loser, Declare(state.centre))
    with pytest.raises(NotYourTurn):
        GAME.apply(state, loser, any_question(state))


def test_options_are_checked() -> None:
    for raw in ({"players": 1}, {"players": 5}, {"players": "3"}, {"players": True}, {"colour": 1}):
        with pytest.raises(BadOptions):
            GAME.options(raw)
    assert GAME.options({}).players == 2
    with pytest.raises(BadOptions):
        GAME.setup(GAME.options({"players": 3}), 2, seed=1)


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"type": "fly"},
        {"type": "ask"},
        {"type": "ask", "card": 3},
        {"type": "ask", "card": "where_1or2", "choice": "1"},
        {"type": "declare", "tiles": "R1"},
        {"type": "declare", "tiles": [1, 2]},
        {"type": "pass", "extra": 1},
    ],
)
def test_malformed_json_moves(data) -> None:
    with pytest.raises(BadMove):
        GAME.move_from_json(data)


# --- views ---------------------------------------------------------------------


def test_views_hide_other_tiles_until_the_end() -> None:
    state = new(3, seed=41)
    for seat in (0, 1, 2):
        view = GAME.view(state, seat)
        assert view["hand"] == list(state.hands[seat])
        assert view["revealed"] is None
        assert "centre" not in view and "hands" not in view
    assert GAME.view(state, None)["hand"] is None
    for seat in (0, 1):
        state, _ = GAME.apply(state, seat, Declare(state.centre))
    end = GAME.view(state, None)
    assert end["revealed"] == {
        "hands": [list(h) for h in state.hands],
        "centre": list(state.centre),
    }
