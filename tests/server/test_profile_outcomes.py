"""What a profile counts — wins, draws, losses, abandoned games, the win rate — against the
result of every way both games end: the same words as the recent-games list says."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bodoge.core.game import EndReason, Result
from bodoge.games import get
from bodoge.games.illustori.rules import _ranked
from bodoge.games.tagiron.moves import Declare, Pass
from bodoge.games.tagiron.state import TagironState
from bodoge.server.edge.profiles import stats
from bodoge.server.services.statistics import outcome
from bodoge.store import SeatRecord, TableBundle, TableRecord
from tests.games.tagiron.helpers import GAME, ask, new, wrong_tiles


def _all_asked(state: TagironState) -> TagironState:
    while state.phase == "play":
        state, _ = ask(state)
    return state


def _tagiron_declared() -> Result:
    state = new(2, seed=2)
    state, _ = ask(state)
    state, _ = GAME.apply(state, 1 - state.first, Declare(state.hands[state.first]))
    return state.result


def _tagiron_draw() -> Result:
    state = new(2, seed=4)
    first, second = state.first, 1 - state.first
    state, _ = GAME.apply(state, first, Declare(state.hands[second]))
    state, _ = GAME.apply(state, second, Declare(state.hands[first]))
    return state.result


def _tagiron_final_wrong() -> Result:
    state = new(2, seed=5)
    first, second = state.first, 1 - state.first
    state, _ = GAME.apply(state, first, Declare(state.hands[second]))
    state, _ = GAME.apply(state, second, Pass())
    return state.result


def _tagiron_no_cards_two() -> Result:
    state = _all_asked(new(2, seed=7))
    state, _ = GAME.apply(state, state.turn, Pass())
    state, _ = GAME.apply(state, state.turn, Pass())
    return state.result


def _tagiron_places_decided(players: int) -> Callable[[], Result]:
    def play() -> Result:
        state = new(players, seed=12)
        order = [(state.turn + i) % players for i in range(players)]
        # one eliminated (4 players), the rest right, in turn order
        if players == 4:
            state, _ = GAME.apply(state, order[3], Declare(wrong_tiles(state.centre)))
        for seat in order[: players - 1 if players == 4 else 2]:
            if state.result is None:
                state, _ = GAME.apply(state, seat, Declare(state.centre))
        return state.result

    return play


def _tagiron_no_declarers() -> Result:
    state = new(3, seed=13)
    for seat in range(3):
        state, _ = GAME.apply(state, seat, Declare(wrong_tiles(state.centre)))
    return state.result


def _tagiron_no_cards_three() -> Result:
    state = new(3, seed=14)
    right = state.turn
    state, _ = GAME.apply(state, right, Declare(state.centre))
    state = _all_asked(state)
    while state.result is None:
        state, _ = GAME.apply(state, state.turn, Pass())
    return state.result


#: (game, how it ends, its result, each seat's outcome)
CASES: list[tuple[str, str, Callable[[], Result], list[str] | None]] = [
    ("tagiron", "declared", _tagiron_declared, None),
    ("tagiron", "draw", _tagiron_draw, ["draw", "draw"]),
    ("tagiron", "final_declaration_wrong", _tagiron_final_wrong, None),
    ("tagiron", "no_cards, 2 players", _tagiron_no_cards_two, ["draw", "draw"]),
    ("tagiron", "places_decided, 3 players", _tagiron_places_decided(3), None),
    ("tagiron", "places_decided, 4 players, one eliminated", _tagiron_places_decided(4), None),
    ("tagiron", "no_declarers", _tagiron_no_declarers, ["draw", "draw", "draw"]),
    ("tagiron", "no_cards, 3 players", _tagiron_no_cards_three, None),
    ("illustori", "hand_emptied, one winner", lambda: _ranked((2,), False, [3, 1, 0]), None),
    ("illustori", "hand_emptied, shared", lambda: _ranked((0, 2), False, [0, 4, 0, 1]), None),
    ("illustori", "stalled", lambda: _ranked((1, 3), True, [2, 1, 5, 1]), None),
    (
        "illustori",
        "stalled, hands alike",
        lambda: _ranked((0, 1, 2), True, [3, 3, 3]),
        ["draw"] * 3,
    ),
    ("tagiron", "abandoned", lambda: Result((None, None), EndReason.ABANDONED), ["abandoned"] * 2),
    ("illustori", "abandoned", lambda: Result((None,) * 3, EndReason.ABANDONED), ["abandoned"] * 3),
]


def _bundle(game: str, result: Result | None, seat_of_a: int, table: str = "t_1") -> TableBundle:
    size = len(result.places) if result else 2
    seats = tuple(
        SeatRecord(s, "human", "p_a") if s == seat_of_a else SeatRecord(s, "bot", level="easy")
        for s in range(size)
    )
    record = TableRecord(
        table,
        game,
        {},
        {"rated": True},
        1,
        "finished",
        None,
        0,
        result=result.to_json() if result else None,
    )
    return TableBundle(record, seats, (), (), 0, {})


def _expected(result: Result, seat: int) -> str:
    """What the recent-games list says (profile.js ``placeText``), in its terms."""
    if result.reason == EndReason.ABANDONED:
        return "abandoned"
    if result.draw:
        return "draw"
    return "won" if seat in result.winners else "lost"


@pytest.mark.parametrize(
    ("game", "result", "seats"), [(g, r, s) for g, _, r, s in CASES], ids=[c[1] for c in CASES]
)
def test_each_seats_outcome_is_what_the_result_says(
    game: str, result: Callable[[], Result], seats: list[str] | None
) -> None:
    ended = get(game).check_result(result())
    found = [outcome(ended.to_json(), s) for s in range(len(ended.places))]
    assert found == [_expected(ended, s) for s in range(len(ended.places))]
    if seats is not None:
        assert found == seats
    # Only a first place in a game someone lost is a win: never a draw.
    for s, o in enumerate(found):
        assert (o == "won") == (ended.places[s] == 1 and not ended.draw)
        row = stats([_bundle(game, ended, s)], "p_a")[0]
        assert (row["wins"], row["draws"], row["losses"], row["abandoned"]) == (
            int(o == "won"),
            int(o == "draw"),
            int(o == "lost"),
            int(o == "abandoned"),
        )
        assert row["win_rate"] == (None if o == "abandoned" else float(o == "won"))


@pytest.mark.parametrize("game", ["tagiron", "illustori"])
def test_every_end_reason_of_each_game_is_covered(game: str) -> None:
    covered = {str(r().reason) for g, _, r, _ in CASES if g == game}
    assert covered == set(get(game).all_end_reasons())


def test_lost_draw_lost_is_no_win() -> None:
    """The issue's three rated games, as an account: Lost, Draw, Lost."""
    lost = _tagiron_declared()
    loser = next(s for s, p in enumerate(lost.places) if p != 1)
    bundles = [
        _bundle("tagiron", lost, loser, "t_1"),
        _bundle("tagiron", _tagiron_draw(), 0, "t_2"),
        _bundle("tagiron", lost, loser, "t_3"),
    ]
    (row,) = stats(bundles, "p_a")
    assert (row["games"], row["wins"], row["draws"], row["losses"]) == (3, 0, 1, 2)
    assert row["win_rate"] == 0


def test_the_win_rate_leaves_out_abandoned_games() -> None:
    won = _ranked((0,), False, [0, 2, 3])
    bundles = [
        _bundle("illustori", won, 0, "t_1"),
        _bundle("illustori", won, 1, "t_2"),
        _bundle("illustori", Result((None,) * 3, EndReason.ABANDONED), 0, "t_3"),
    ]
    (row,) = stats(bundles, "p_a")
    assert (row["games"], row["wins"], row["losses"], row["abandoned"]) == (3, 1, 1, 1)
    assert row["win_rate"] == 0.5
    assert row["places"] == {"1": 1, "2": 1}  # nobody placed in the abandoned game
