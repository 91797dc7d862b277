"""Illustori's whole games, and its views and events by example.

The contract every game keeps (replay, JSON, refused moves, secrets) is
checked in ``tests/core/test_contract.py``, with the random player and the
secrecy oracle of ``tests/games/illustori/kit.py``.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bodoge.core.errors import BadMove, GameError
from bodoge.core.game import Event
from bodoge.games.illustori.events import (
    CardDrawn,
    CardsExchanged,
    FinalRound,
    FirstWordGiven,
    GameEnded,
    TurnStarted,
)
from bodoge.games.illustori.game import IllustoriGame
from bodoge.games.illustori.moves import (
    FirstWord,
    IllustoriMove,
    PlayCard,
    Vote,
    VoteTimeout,
)
from bodoge.games.illustori.options import hand_size
from bodoge.games.illustori.rules import cards_in_play
from bodoge.games.illustori.state import IllustoriState
from tests.games.illustori.kit import Style, a_mistake, a_move

GAME = IllustoriGame()


@dataclasses.dataclass
class Played:
    """A whole (or cut-off) game: every state, move and event, in order."""

    options: Any
    seed: int
    states: list[IllustoriState]
    moves: list[tuple[int | None, IllustoriMove]]
    events: list[list[Event]]


def play(
    raw: dict[str, Any], seed: int, style: Style | None = None, max_moves: int = 400
) -> Played:
    """Play a random game; every mistake the style asks for must be refused."""
    style = style or Style()
    options = GAME.options(raw)
    state = GAME.setup(options, GAME.seats(options), seed)
    r = random.Random(seed)
    played = Played(options, seed, [state], [], [])
    for _ in range(max_moves):
        if GAME.result(state) is not None:
            break
        if r.random() < style.mistake:
            seat, move = a_mistake(GAME, state, r)
            with pytest.raises(GameError):
                GAME.apply(state, seat, move)
        while True:
            seat, move = a_move(GAME, state, r, style)
            try:
                state, events = GAME.apply(state, seat, move)
            except GameError:
                # Only a first word can be refused here (ん, same ends): name it again.
                assert isinstance(move, FirstWord)
                continue
            break
        played.states.append(state)
        played.moves.append((seat, move))
        played.events.append(events)
    return played


def table_options() -> st.SearchStrategy[dict[str, Any]]:
    players = st.integers(3, 8)
    return st.fixed_dictionaries(
        {"players": players},
        optional={
            "language": st.sampled_from(["ja", "en"]),
            "ban_same_ends": st.booleans(),
            "ban_used_joints": st.booleans(),
            "vote_limit": st.booleans(),
            "secret_votes": st.booleans(),
            "deck_size": st.sampled_from([33, 40, 60]),
        },
    )


def styles() -> st.SearchStrategy[Style]:
    chance = st.floats(0, 1)
    return st.builds(Style, ok=chance, exchange=st.floats(0, 0.5), penalty=st.floats(0, 0.5))


GAMES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- whole games ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(3, 9))
@pytest.mark.parametrize("seed", [1, 2])
def test_whole_games_end_as_the_rules_say(players: int, seed: int) -> None:
    style = Style(ok=0.8, mistake=0.2)
    played = play({"players": players, "ban_used_joints": seed == 2}, seed, style, 2000)
    final = played.states[-1]
    result = GAME.result(final)
    assert result is not None, "the game did not end"
    giver = final.giver
    flat = [e for events in played.events for e in events]
    firsts = [e for e in flat if isinstance(e, FirstWordGiven)]
    assert len(firsts) == 1 and firsts[0].seat == giver
    # Turns go round in seat order from the giver's left.
    turns = [e.seat for e in flat if isinstance(e, TurnStarted)]
    assert turns[0] == (giver + 1) % players
    assert all(b == (a + 1) % players for a, b in itertools.pairwise(turns))
    # The final round starts when a hand empties and ends with the giver's turn.
    rounds = [i for i, e in enumerate(flat) if isinstance(e, FinalRound)]
    assert len(rounds) == 1
    emptier = flat[rounds[0]]
    assert isinstance(emptier, FinalRound) and emptier.ends_after == giver
    after = [e.seat for e in flat[rounds[0] :] if isinstance(e, TurnStarted)]
    assert after == [
        (emptier.seat + 1 + i) % players for i in range((giver - emptier.seat) % players)
    ]
    assert isinstance(flat[-1], GameEnded) and final.phase == "ended"
    # The game ended on the giver's turn.
    assert turns[-1] == giver
    # Winners: exactly the empty hands; all places 1 or 2.
    winners = tuple(s for s in range(players) if not final.hands[s])
    assert emptier.seat in winners
    assert result.winners == winners == flat[-1].result.winners
    assert flat[-1].result == result
    assert set(result.places) <= {1, 2} and len(result.places) == players
    assert result.places.count(1) == len(winners)
    assert sum(map(len, final.hands)) + len(final.chain) == players * hand_size(players) + 1
    assert GAME.to_act(final) == frozenset()


def test_whole_games_in_english() -> None:
    played = play({"players": 4, "language": "en", "ban_same_ends": True}, 9, max_moves=2000)
    final = played.states[-1]
    assert GAME.result(final) is not None
    words = [w.word for w in final.chain]
    for before, after in itertools.pairwise(words):
        letters = [c for c in before.lower() if c.isalpha()]
        assert after[0].lower() in letters[-2:]


@settings(parent=GAMES)
@given(raw=table_options(), seed=st.integers(0, 2**32), style=styles())
def test_cards_are_conserved(raw: dict, seed: int, style: Style) -> None:
    played = play(raw, seed, style, max_moves=250)
    size = played.options.deck_size
    for state in played.states:
        assert sorted(cards_in_play(state)) == list(range(size))
        assert all(len(h) <= hand_size(state.seats) for h in state.hands)
        assert state.phase != "vote" or state.pending is not None


@settings(parent=GAMES)
@given(players=st.integers(3, 8), seed=st.integers(0, 2**32), bans=st.booleans())
def test_every_game_ends_when_words_pass(players: int, seed: int, bans: bool) -> None:
    style = Style(ok=1.0, exchange=0.0, penalty=0.0, mistake=0.0)
    raw = {"players": players, "ban_used_joints": bans, "ban_same_ends": bans}
    # Each turn a card passes, so some hand empties within players x hand size turns.
    bound = 1 + players * hand_size(players) * players  # every turn: a play and its votes
    played = play(raw, seed, style, max_moves=bound)
    assert GAME.result(played.states[-1]) is not None


# -- views and events, by example --------------------------------------------------------------


def voting(raw: dict[str, Any]) -> tuple[IllustoriState, int, list[int]]:
    """A 4-player table where seat ``player`` has just played and nobody voted yet."""
    options = GAME.options({"players": 4, **raw})
    state = GAME.setup(options, 4, 5)
    state, _ = GAME.apply(state, state.giver, FirstWord("つきよ"))
    player = state.turn
    state, _ = GAME.apply(state, player, PlayCard(state.hands[player][0], "よる"))
    return state, player, sorted(GAME.to_act(state))


def test_public_votes_show_who_voted_then_how() -> None:
    state, player, voters = voting({})
    a, b, c = voters
    state, events = GAME.apply(state, a, Vote(False))
    view = GAME.view(state, b)
    assert view["phase"] == "vote" and view["turn"] == player
    assert view["votes"] == {"voters": 3, "cast": 1, "yours": None, "voted": [a], "awaited": [b, c]}
    assert GAME.view(state, a)["votes"]["yours"] is False
    assert view["to_act"] == [b, c] and view["pending"]["word"] == "よる"
    assert GAME.observe(events[0], b) == {
        "type": "vote_cast",
        "seat": a,
        "votes_cast": 1,
        "voters": 3,
    }
    assert GAME.observe(events[0], a)["ok"] is False
    state, _ = GAME.apply(state, b, Vote(True))
    state, events = GAME.apply(state, c, Vote(True))
    seen = GAME.observe(events[1], None)
    assert seen["passed"] and (seen["ok"], seen["ng"]) == (2, 1)
    assert seen["votes"] == [
        {"seat": a, "ok": False, "timed_out": False},
        {"seat": b, "ok": True, "timed_out": False},
        {"seat": c, "ok": True, "timed_out": False},
    ]
    last = GAME.view(state, None)["last_vote"]
    assert last["votes"] == seen["votes"] and last["passed"] and last["play"]["word"] == "よる"


def test_secret_votes_show_counts_only() -> None:
    state, player, voters = voting({"secret_votes": True, "vote_limit": True})
    a, b, _ = voters
    state, events = GAME.apply(state, a, Vote(False))
    assert GAME.view(state, b)["votes"] == {"voters": 3, "cast": 1, "yours": None}
    assert GAME.view(state, b)["to_act"] == [b]
    assert GAME.view(state, a)["to_act"] == [] and GAME.view(state, a)["votes"]["yours"] is False
    assert GAME.view(state, player)["to_act"] == [] and GAME.view(state, None)["to_act"] == []
    assert GAME.observe(events[0], b) == {"type": "vote_cast", "votes_cast": 1, "voters": 3}
    state, events = GAME.apply(state, None, VoteTimeout())
    assert GAME.observe(events[0], a) == {
        "type": "vote_resolved",
        "seat": player,
        "card": events[0].card,
        "passed": True,
        "ok": 2,
        "ng": 1,
        "timed_out": 2,
    }
    assert "votes" not in GAME.view(state, a)["last_vote"]


def test_views_show_the_table() -> None:
    options = GAME.options({"players": 3, "ban_used_joints": True, "vote_limit": True})
    state = GAME.setup(options, 3, 8)
    giver = state.giver
    view = GAME.view(state, giver)
    assert view["phase"] == "first_word" and view["to_act"] == [giver]
    assert view["first_word_giver"] == giver and view["first_card"] == state.first_card
    assert view["hand_counts"] == [5, 5, 5] and view["deck_count"] == 44
    assert view["chain"] == [] and view["word"] is None and view["result"] is None
    assert view["deck"] == {"size": 60, "seed": state.deck_seed, "custom": None}
    assert view["vote_seconds"] == 25 and view["options"] == GAME.options_json(options)
    state, _ = GAME.apply(state, giver, FirstWord("東京", head="と", tail="きょう"))
    view = GAME.view(state, None)
    assert view["hand"] is None and view["you"] is None
    assert view["chain"] == [
        {"card": state.first_card, "word": "東京", "head": "と", "tail": "う", "seat": giver}
    ]
    assert view["word"] == "東京" and view["next_heads"] == ["う", "ゔ"]


def test_drawn_and_exchanged_cards_are_seen_by_their_holder_only() -> None:
    drawn = CardDrawn(2, 17)
    assert GAME.observe(drawn, 2) == {"type": "card_drawn", "seat": 2, "card": 17}
    assert GAME.observe(drawn, 1) == GAME.observe(drawn, None) == {"type": "card_drawn", "seat": 2}
    swap = CardsExchanged(1, (3, 4))
    assert GAME.observe(swap, 1) == {
        "type": "cards_exchanged",
        "seat": 1,
        "count": 2,
        "cards": [3, 4],
    }
    assert GAME.observe(swap, 0) == {"type": "cards_exchanged", "seat": 1, "count": 2}
    assert GAME.observe(object(), 0) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("secret", [False, True])
def test_the_log_is_the_whole_game_and_the_same_for_everyone(secret: bool) -> None:
    style = Style(ok=0.5, exchange=0.2, penalty=0.2, mistake=0.0)
    raw = {"players": 4, "secret_votes": secret, "vote_limit": secret}
    played = play(raw, 3, style, max_moves=2000)
    assert GAME.result(played.states[-1]) is not None
    logged: list[dict[str, Any]] = []
    earlier: list[dict[str, Any]] = []
    for state, events in zip(played.states[1:], played.events, strict=True):
        for event in events:
            seen = GAME.observe(event, None)
            if seen["type"] not in ("turn_started", "card_drawn", "vote_cast"):
                logged.append(seen)
        views = [GAME.view(state, seat) for seat in (None, *range(4))]
        assert all(v["log"] == logged for v in views)
        # Made once and shared by every view of the state; an entry, by every later state too.
        assert all(v["log"] is views[0]["log"] for v in views)
        assert all(v["log_moves"] is views[0]["log_moves"] for v in views)
        assert all(a is b for a, b in zip(views[0]["log"], earlier, strict=False))
        earlier = views[0]["log"]
    kinds = {entry["type"] for entry in logged}
    assert kinds >= {"first_word", "card_played", "penalty", "vote_resolved", "cards_exchanged"}
    assert {"final_round", "game_ended"} <= kinds
    assert any(e["type"] == "vote_resolved" and not e["passed"] for e in logged)
    # An exchange says how many cards, never which; a secret vote never says who voted what.
    assert all("cards" not in e for e in logged if e["type"] == "cards_exchanged")
    resolved = [e for e in logged if e["type"] == "vote_resolved"]
    assert all(("votes" in e) != secret for e in resolved)
    assert logged[-1]["type"] == "game_ended"
    assert logged[-1]["result"]["reason"] == "hand_emptied"
    final = played.states[-1]
    assert logged[-1]["revealed"] == {"hand_counts": [len(h) for h in final.hands]}


# -- what the game declares, and its moves' JSON ------------------------------------------------


def test_the_game_declares_itself() -> None:
    assert GAME.id == "illustori" and (GAME.min_seats, GAME.max_seats) == (3, 8)
    assert GAME.title["ja"] == "イラストリー"
    options = GAME.options({"players": 6})
    assert GAME.seats(options) == 6


def test_the_registry_finds_illustori() -> None:
    from bodoge.games import get

    assert isinstance(get("illustori"), IllustoriGame)


@pytest.mark.parametrize(
    "data",
    [
        {},
        [],
        {"type": None},
        {"type": "dance"},
        {"type": "vote"},
        {"type": "vote", "ok": 1},
        {"type": "vote", "ok": True, "seat": 2},
        {"type": "play", "card": "1", "word": "よる"},
        {"type": "play", "card": 1.0, "word": "よる"},
        {"type": "play", "card": 1},
        {"type": "play", "card": 1, "word": "よる", "extra": 1},
        {"type": "play", "card": 1, "word": "よる", "head": 3},
        {"type": "exchange", "cards": "12"},
        {"type": "exchange", "cards": [1, True]},
        {"type": "exchange"},
        {"type": "first_word", "word": 5},
        {"type": "vote_timeout", "ok": True},
    ],
)
def test_malformed_move_json_is_refused(data: Any) -> None:
    with pytest.raises(BadMove):
        GAME.move_from_json(data)
