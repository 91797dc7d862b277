"""Hypothesis properties over random whole Tagiron games for 2, 3 and 4 players."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from bodoge.core.errors import GameError
from bodoge.games.tagiron.rules import Declare, Declared, Pass, TagironState, questions
from bodoge.games.tagiron.tiles import ALL_TILES, TILE_CODES, sort_hand
from tests.games.tagiron.helpers import GAME, new

MAX_MOVES = 400


def random_move(data: st.DataObject, state: TagironState, stalled: int) -> tuple[int, object]:
    """A random move, right or wrong, legal or not, by a seat that may act.

    After a few moves that asked nothing, the player to move asks: wrong
    2-player declarations could otherwise go on for ever, as at a real table.
    """
    seat = data.draw(st.sampled_from(sorted(GAME.may_act(state))), label="seat")
    kind = data.draw(st.sampled_from(["ask"] * 8 + ["declare", "pass", "bad"]), label="kind")
    if stalled >= 3 and state.turn is not None:
        seat, kind = state.turn, "ask" if state.may_ask(state.turn) else "pass"
    if kind == "ask" and state.may_ask(seat):
        return seat, data.draw(st.sampled_from(questions(state)), label="question")
    if kind == "pass":
        return seat, Pass()
    target = state.target_of(seat)
    if data.draw(st.booleans(), label="right"):
        return seat, Declare(target)
    size = len(target)
    tiles = data.draw(st.lists(st.sampled_from(TILE_CODES), min_size=size, max_size=size))
    return seat, Declare(sort_hand(tiles) if kind == "declare" else tuple(tiles))


def tiles_in(data: object) -> Counter[str]:
    text = json.dumps(data)
    return Counter({code: text.count(f'"{code}"') for code in TILE_CODES if f'"{code}"' in text})


def allowed_tiles(state: TagironState, seat: int | None) -> set[str]:
    """Tiles a seat may see while the game runs: its own, and declarations it heard."""
    seen = set(state.hands[seat]) if seat is not None else set()
    for entry in state.log:
        if not isinstance(entry, Declared):
            continue
        if seat in entry.heard_by:
            seen.update(entry.tiles)
    return seen


@settings(max_examples=150, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32), data=st.data())
def test_random_games(players: int, seed: int, data: st.DataObject) -> None:
    state = new(players, seed)
    moves: list[tuple[int, object]] = []
    stalled = 0
    for _ in range(MAX_MOVES):
        if state.result is not None:
            break
        seat, move = random_move(data, state, stalled)
        try:
            after, events = GAME.apply(state, seat, move)
        except GameError:
            stalled += 1
            continue  # refused: nothing changed (the state is a value)
        stalled = (
            0
            if len(after.face_up) + len(after.deck) < len(state.face_up) + len(state.deck)
            else stalled + 1
        )
        moves.append((seat, move))
        state = after

        # tiles are conserved
        assert Counter(t for h in state.hands for t in h) + Counter(state.centre) == Counter(
            ALL_TILES
        )
        # no view and no event shows a tile its seat may not see
        if state.result is None:
            for viewer in [*range(players), None]:
                allowed = allowed_tiles(state, viewer)
                assert set(tiles_in(GAME.view(state, viewer))) <= allowed
                for event in events:
                    assert set(tiles_in(GAME.observe(event, viewer))) <= allowed
    # every game ends
    assert state.result is not None, "a game ran past its bound"
    assert GAME.view(state, None)["revealed"] is not None
    # replay from (options, seed, moves) gives the same state
    replayed = GAME.replay(GAME.options({"players": players}), players, seed, moves)
    assert replayed == state
    # stored JSON moves replay the same
    stored = [
        (s, GAME.move_from_json(json.loads(json.dumps(GAME.move_to_json(m))))) for s, m in moves
    ]
    assert GAME.replay(GAME.options({"players": players}), players, seed, stored) == state
