"""Examples of the server's game-blind functions on the real games.

They were doctests; they live here because no module of the server names a game.
"""

from __future__ import annotations

import pytest

from bodoge.games import get
from bodoge.server.edge.profiles import stats
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.runtime.settings import changed_options, fields, parse_settings
from bodoge.server.services.statistics import figures
from bodoge.store import SeatRecord, TableBundle, TableRecord


def test_settings_of_a_tagiron_table() -> None:
    settings = parse_settings({"turn_seconds": 60}, get("tagiron"))
    assert settings.to_json() == {
        "turn_seconds": 60,
        "timeout_bot": "normal",
        "assistant": None,
        "bot_pace": "normal",
        "rated": False,
        "turn_based": None,
    }
    turn = parse_settings({"turn_based": 86400}, get("tagiron"))
    assert (turn.turn_based, turn.turn_seconds, turn.turn_seconds_in_force) == (86400, None, 86400)


def test_an_illustori_table_shows_no_assistant() -> None:
    assert [f["key"] for f in fields(get("illustori"))] == [
        "turn_based",
        "turn_seconds",
        "timeout_bot",
        "bot_pace",
        "rated",
    ]


def test_the_host_changes_options_but_not_the_player_count() -> None:
    game = get("illustori")
    stored = game.options_json(game.options({"players": 3}))
    assert changed_options(game, stored, {"secret_votes": True}).secret_votes is True
    with pytest.raises(ProtocolError, match="the player count is fixed once the table"):
        changed_options(game, stored, {"players": 5})


def test_a_profile_sums_a_games_figures() -> None:
    game = get("illustori")
    assert [(f["key"], f["value"]) for f in figures(game, {"played": 8, "accepted": 6})] == [
        ("played", 8),
        ("accepted", 6),
        ("acceptance", 0.75),
    ]


def test_a_profile_counts_games_wins_places_and_figures() -> None:
    def played(
        places: list[int], rated: bool = False, counts: list[dict[str, int]] | None = None
    ) -> TableBundle:
        seats = (SeatRecord(0, "human", "p_a"), SeatRecord(1, "bot", level="easy"))
        record = TableRecord(
            "t_1",
            "illustori",
            {},
            {"rated": rated},
            1,
            "finished",
            None,
            0,
            result={"places": places},
            statistics=counts,
        )
        return TableBundle(record, seats, (), (), 0, {})

    counts = [{"played": 4, "accepted": 3}, {"played": 9, "accepted": 9}]
    bundles = [played([1, 2], True, counts), played([2, 1]), played([1, 1], False, counts)]
    (row,) = stats(bundles, "p_a", {"illustori": get("illustori")})
    assert {k: v for k, v in row.items() if k != "figures"} == {
        "game": "illustori",
        "games": 3,
        "wins": 1,
        "draws": 1,  # both first: a draw, no win
        "losses": 1,
        "abandoned": 0,
        "win_rate": 0.3333,
        "places": {"1": 2, "2": 1},
        "left": 0,
        "rated": 1,
        "counted": 2,
    }
    assert [(f["key"], f["value"]) for f in row["figures"]] == [
        ("played", 8),
        ("accepted", 6),
        ("acceptance", 0.75),
    ]


@pytest.mark.parametrize(
    ("game", "players", "option", "turn_based", "realtime"),
    [
        ("tagiron", 2, "own_turn_declarations", True, None),
        ("tagiron", 3, "own_turn_declarations", True, None),
        ("tagiron", 4, "own_turn_declarations", True, None),
        ("illustori", 3, "turn_vote_seconds", 3600, None),
        ("illustori", 8, "turn_vote_seconds", 3600, None),
    ],
)
def test_the_games_turn_based_rules_are_options_that_undo_themselves(
    game: str, players: int, option: str, turn_based: object, realtime: object
) -> None:
    """``Game.turn_based_options``: stored with the options, and gone when the host switches
    back to real time; a real-time table's options read as they always did."""
    g = get(game)
    host = g.options({"players": players})
    turned = g.turn_based_options(host, 3600)
    assert g.options_json(turned)[option] == turn_based
    assert g.options(g.options_json(turned)) == turned
    back = g.turn_based_options(turned, None)
    assert back == host and option not in g.options_json(back)
