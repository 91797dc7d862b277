"""The game contract (:mod:`bodoge.core.game`), checked the same way for every game.

In the spirit of OpenSpiel's ``random_sim_test`` and PettingZoo's ``api_test``:
random games (``harness.games``), played with each game's kit (random moves
and a secrecy oracle, ``tests/games/<id>/kit.py``), must show that

* the seed alone fixes the first state;
* replaying the moves gives the same states, views and events as live play;
* options, moves, views, events and results survive JSON;
* a refused move raises a precise error and changes nothing;
* ``public_to_act ⊆ to_act ⊆ may_act``, and only a finished game awaits nobody;
* every view holds the table's shared facts (:mod:`bodoge.core.vocabulary`), true to
  the game, and every game's turns and end are core's shared events;
* a result's reason is one the game declares;
* no seat's view, facts or events hold what that seat may not see.

A game's own rules are tested beside it, in ``tests/games/<id>/``.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bodoge.core.errors import BadMove, GameError, GameFinished, IllegalMove
from bodoge.core.game import EndReason, Event, Game, Move, Result, Seat
from bodoge.core.values import JSON
from bodoge.core.vocabulary import FACT_KEYS, GameEnded, TurnStarted
from bodoge.games import registry
from tests.core.harness import KITS, Played, games, not_json
from tests.core.kit import GameKit, Secrets

each_game = pytest.mark.parametrize("kit", KITS.values(), ids=KITS.keys())


def through_json(value: JSON) -> JSON:
    return json.loads(json.dumps(value, allow_nan=False))


def test_every_registered_game_has_a_kit() -> None:
    for game_id, game in registry().items():
        assert game_id in KITS, f"{game_id} has no kit in tests/core/harness.py"
        # the same class, not the same object: a test that registers a game of its own
        # (tests/test_third_game.py) makes the registry anew
        assert type(KITS[game_id].game) is type(game), f"{game_id}'s kit plays another game"


@each_game
def test_the_random_games_reach_every_corner(kit: GameKit) -> None:
    """Most games end, and some moves are refused, so that no check below is left empty."""
    played = games(kit.game.id)
    assert sum(p.ended for p in played) >= len(played) // 2
    assert any(a.error for p in played for a in p.attempts)


# -- setup, replay, JSON --------------------------------------------------------------------


@each_game
def test_options_survive_json(kit: GameKit) -> None:
    game = kit.game
    for played in games(game.id):
        stored = game.options_json(played.options)
        assert not_json(stored) is None, f"{played}: {not_json(stored)}"
        assert game.options(through_json(stored)) == played.options, played


@each_game
def test_the_seed_fixes_the_first_state(kit: GameKit) -> None:
    """Setting up twice gives the same state and views, whatever the global random state."""
    game = kit.game
    saved = random.getstate()
    for played in games(game.id):
        random.seed(played.seed + 1)
        again = game.setup(played.options, played.seats, played.seed)
        assert again == played.states[0], played
        for seat in played.viewers:
            assert game.view(again, seat) == game.view(played.states[0], seat), played
    random.setstate(saved)


@each_game
def test_replay_equals_live_play(kit: GameKit) -> None:
    """Moves applied again from the seed give the same states, events, views and observations."""
    game = kit.game
    for played in games(game.id):
        replayed = game.replay(played.options, played.seats, played.seed, played.moves)
        assert replayed == played.final, played
        state = game.setup(played.options, played.seats, played.seed)
        for n, (_, seat, move, events, after) in enumerate(played.steps()):
            state, again = game.apply(state, seat, move)
            assert state == after and again == events, f"{played}, move {n}"
            for viewer in played.viewers:
                assert game.view(state, viewer) == game.view(after, viewer), f"{played}, move {n}"
                assert [game.observe(e, viewer) for e in again] == [
                    game.observe(e, viewer) for e in events
                ], f"{played}, move {n}"


@each_game
def test_moves_survive_json(kit: GameKit) -> None:
    """Every move tried reads back as itself, and the stored moves replay the same game."""
    game = kit.game
    for played in games(game.id):
        for attempt in played.attempts:
            data = game.move_to_json(attempt.move)
            assert not_json(data) is None, f"{played}: {attempt.move}: {not_json(data)}"
            assert game.move_from_json(through_json(data)) == attempt.move, played
        stored = through_json([[seat, game.move_to_json(move)] for seat, move in played.moves])
        moves = [(seat, game.move_from_json(data)) for seat, data in stored]
        assert game.replay(played.options, played.seats, played.seed, moves) == played.final


@each_game
def test_views_events_and_results_are_json(kit: GameKit) -> None:
    """What a seat is sent is plain JSON data (so it reads back exactly as it was)."""
    game = kit.game
    for played in games(game.id):
        for n, state in enumerate(played.states):
            result = game.result(state)
            shown: list[JSON] = [None if result is None else result.to_json()]
            for viewer in played.viewers:
                shown.append(game.view(state, viewer))
                if n:
                    seat, move = played.moves[n - 1]
                    shown.extend(game.observe(e, viewer) for e in played.events[n - 1])
                    mover, public = game.public_move(state, seat, move, viewer)
                    assert mover in (seat, None), f"{played}, move {n}: mover {mover}"
                    shown.append(public)
            for data in shown:
                assert not_json(data) is None, f"{played}, after move {n}: {not_json(data)}"


# -- who acts --------------------------------------------------------------------------------


@each_game
def test_public_to_act_within_to_act_within_may_act(kit: GameKit) -> None:
    """Also: a seat is told it is awaited; only a finished game awaits nobody, and then no
    clock runs; a move is accepted only from a seat that may act, or from the table's clock."""
    game = kit.game
    for played in games(game.id):
        for n, state in enumerate(played.states):
            to_act, may_act = game.to_act(state), game.may_act(state)
            where = f"{played}, after move {n}"
            assert to_act <= may_act <= set(range(played.seats)), where
            for viewer in played.viewers:
                public = game.public_to_act(state, viewer)
                assert public <= to_act, f"{where}: {viewer} is told of {public - to_act}"
                assert viewer not in to_act or viewer in public, f"{where}: {viewer} not told"
            if game.result(state) is not None:
                assert not may_act and game.clock(state) is None, where
            else:
                assert to_act or game.clock(state) is not None, f"{where}: nobody may act"
        for n, (before, seat, move, _, _) in enumerate(played.steps()):
            clock = game.clock(before)
            by_table = seat is None and clock is not None and clock.move == move
            assert seat in game.may_act(before) or by_table, f"{played}, move {n}: {seat}"


# -- the shared vocabulary ------------------------------------------------------------------


@each_game
def test_every_view_holds_the_table_facts(kit: GameKit) -> None:
    """``players``, ``you``, ``turn``, ``to_act`` and ``result`` in every view say what the
    game says; ``hand_counts`` and ``deck_count``, where a game has them, are counts."""
    game = kit.game
    for played in games(game.id):
        for n, state in enumerate(played.states):
            result = game.result(state)
            for viewer in played.viewers:
                view = game.view(state, viewer)
                where = f"{played}, after move {n}, {viewer}'s view"
                assert set(FACT_KEYS) <= set(view), f"{where}: {set(FACT_KEYS) - set(view)}"
                assert view["players"] == played.seats and view["you"] == viewer, where
                assert view["to_act"] == sorted(game.public_to_act(state, viewer)), where
                assert view["result"] == (None if result is None else result.to_json()), where
                turn = view["turn"]
                assert (turn is None) == (result is not None), where
                assert turn is None or 0 <= turn < played.seats, where
                if "hand_counts" in view:
                    counts = view["hand_counts"]
                    assert len(counts) == played.seats and min(counts) >= 0, where
                if "deck_count" in view:
                    assert type(view["deck_count"]) is int and view["deck_count"] >= 0, where


@each_game
def test_turns_and_ends_are_the_shared_events(kit: GameKit) -> None:
    """A game announces a turn and its end only with core's events, which every seat sees
    whole; the move that ends a game announces its result."""
    game = kit.game
    for played in games(game.id):
        for n, events in enumerate(played.events):
            for event in events:
                for viewer in played.viewers:
                    seen = game.observe(event, viewer)
                    kind = None if seen is None else seen.get("type")
                    if kind in ("turn_started", "game_ended"):
                        assert isinstance(event, TurnStarted | GameEnded), f"{played}, move {n}"
                    if isinstance(event, TurnStarted | GameEnded):
                        assert seen == event.to_json(), f"{played}, move {n}"
        if played.ended:
            ended = [e for e in played.events[-1] if isinstance(e, GameEnded)]
            assert [e.result for e in ended] == [game.result(played.final)], played


@each_game
def test_every_result_gives_a_reason_the_game_declares(kit: GameKit) -> None:
    """The game's own reasons are its alone (core knows only the table's: ``abandoned``)."""
    game = kit.game
    declared = [str(r) for r in game.end_reasons]
    assert declared and len(set(declared)) == len(declared), game.id
    assert not set(declared) & {str(r) for r in EndReason}, game.id
    for played in games(game.id):
        result = game.result(played.final)
        if result is not None:
            assert result.reason in declared and game.check_result(result) is result, played
    with pytest.raises(ValueError):
        game.check_result(Result((1,) * game.min_seats, "no_such_reason"))
    abandoned = Result((None,) * game.min_seats, EndReason.ABANDONED)
    assert game.check_result(abandoned) is abandoned


# -- refused moves ---------------------------------------------------------------------------


def precise(error: GameError) -> bool:
    """A malformed move or one against the rules, never a bare ``GameError``."""
    return isinstance(error, BadMove | IllegalMove)


def refusal(game: Game, state: Any, seat: Seat | None, move: Move) -> GameError | None:
    """The error ``move`` from ``seat`` is refused with, or ``None`` if it is accepted."""
    try:
        game.apply(state, seat, move)
    except GameError as error:
        return error
    return None


@each_game
def test_refused_moves_change_nothing(kit: GameKit) -> None:
    """Refused moves raise a precise error; no move tried, refused or not, changes its state."""
    for played in games(kit.game.id):
        for attempt in played.attempts:
            where = f"{played}, move {attempt.step}: {attempt.seat} {attempt.move}"
            if attempt.error is not None:
                assert precise(attempt.error), f"{where}: {attempt.error!r}"
            assert not attempt.changed, f"{where} changed the state it was given"
        assert played.states == played.copies, f"{played}: a state changed after it was made"


@each_game
def test_moves_out_of_turn_are_refused(kit: GameKit) -> None:
    """A move accepted from one seat is refused from a seat that may not act, and from the
    table; the table's move is refused from every seat."""
    game = kit.game
    for played in games(game.id):
        for n, (before, seat, move, _, _) in enumerate(played.steps()):
            idle: list[Seat | None] = list(range(played.seats))
            if seat is not None:
                idle = [s for s in idle if s not in game.may_act(before)] + [None]
            for other in idle:
                error = refusal(game, before, other, move)
                where = f"{played}, move {n}: {move} from {other}"
                assert isinstance(error, IllegalMove), f"{where}: {error!r}"
            assert before == played.copies[n], f"{played}, move {n}: a refusal changed it"


@each_game
def test_moves_after_the_end_are_refused(kit: GameKit) -> None:
    game = kit.game
    for played in games(game.id):
        if not played.ended:
            continue
        for attempt in played.attempts[-5:]:
            for seat in played.viewers:
                error = refusal(game, played.final, seat, attempt.move)
                where = f"{played}, the end: {attempt.move} from {seat}"
                assert isinstance(error, GameFinished), f"{where}: {error!r}"
        assert played.final == played.copies[-1], played


def json_values() -> st.SearchStrategy[JSON]:
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-3, 300)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=4)
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
        max_leaves=5,
    )


@st.composite
def move_json(draw: st.DrawFn, samples: list[dict[str, JSON]]) -> dict[str, JSON]:
    """A move's JSON form, as a client might send it: a real one, or one bent out of shape."""
    data = dict(draw(st.sampled_from(samples)))
    keys = st.sampled_from([*data, "type", "extra"])
    for _ in range(draw(st.integers(0, 3))):
        key = draw(keys)
        if draw(st.booleans()):
            data.pop(key, None)
        else:
            data[key] = draw(json_values())
    return data


@each_game
@settings(max_examples=100, derandomize=True, database=None, deadline=None)
@given(data=st.data())
def test_any_json_is_read_as_a_move_or_refused(kit: GameKit, data: st.DataObject) -> None:
    """Any JSON object is read as a move that reads back as itself, or refused with ``BadMove``."""
    game = kit.game
    samples = [game.move_to_json(move) for p in games(game.id)[:4] for _, move in p.moves]
    sent = data.draw(move_json(samples) | st.dictionaries(st.text(max_size=4), json_values()))
    try:
        move = game.move_from_json(sent)
    except BadMove:
        return
    stored = game.move_to_json(move)
    assert not_json(stored) is None and game.move_from_json(through_json(stored)) == move


@each_game
@pytest.mark.parametrize("sent", [{}, {"type": None}, {"type": "no such move"}, {"type": []}])
def test_moves_of_no_kind_are_bad_moves(kit: GameKit, sent: dict[str, JSON]) -> None:
    with pytest.raises(BadMove):
        kit.game.move_from_json(sent)


# -- secrets ---------------------------------------------------------------------------------


def facts(game: Game, state: Any, seat: Seat | None) -> tuple[object, ...]:
    """What the server tells ``seat`` about a state besides its view."""
    return (
        game.public_to_act(state, seat) & game.to_act(state),
        seat in game.may_act(state),
        game.clock(state),
        game.result(state),
    )


def leaks(game: Game, secrets: Secrets, played: Played) -> list[str]:
    """Where a seat sees a difference between a state (or event) and its twin."""
    rng = random.Random(str(played))
    found: list[str] = []
    for n, state in enumerate(played.states):
        events = played.events[n - 1] if n else []
        for seat in played.viewers:
            twin = secrets.state(state, seat, rng)
            if game.view(twin, seat) != game.view(state, seat):
                found.append(f"after move {n}, {seat}'s view")
            if facts(game, twin, seat) != facts(game, state, seat):
                found.append(f"after move {n}, what {seat} is told")
            for event in events:
                seen = game.observe(event, seat)
                if game.observe(secrets.event(event, seat, rng), seat) != seen:
                    found.append(f"move {n}, {seat} sees {event}")
    return found


def secrets_of(kit: GameKit) -> Secrets:
    if kit.secrets is None:
        pytest.skip(f"{kit.game.id}'s state hides nothing")
    return kit.secrets


@each_game
def test_no_seat_sees_what_it_may_not(kit: GameKit) -> None:
    secrets = secrets_of(kit)
    for played in games(kit.game.id):
        found = leaks(kit.game, secrets, played)
        assert not found, f"{played}: {found[:5]}"


class ShowsAll:
    """A game that shows every seat what every seat sees: a leak the check must catch."""

    def __init__(self, game: Game, seats: int) -> None:
        self.game, self.seats = game, seats

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def view(self, state: Any, seat: Seat | None) -> dict[str, JSON]:
        return {"all": [self.game.view(state, s) for s in range(self.seats)]}

    def observe(self, event: Event, seat: Seat | None) -> dict[str, JSON]:
        return {"all": [self.game.observe(event, s) for s in range(self.seats)]}


@each_game
def test_the_secrecy_check_sees_a_leak(kit: GameKit) -> None:
    """Shown everything, seats see their twins differ: in views, and in events."""
    secrets = secrets_of(kit)
    found = [
        leak
        for played in games(kit.game.id)[:8]
        for leak in leaks(ShowsAll(kit.game, played.seats), secrets, played)  # type: ignore[arg-type]
    ]
    assert any("view" in leak for leak in found)
    assert any(" sees " in leak for leak in found)
