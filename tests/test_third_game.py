"""A third game registered in one line gets its ``bodoge`` commands and plays at a table.

Relay (``tests/games/relay/``) stands for a new game: its folder holds all of it,
and the one line below (what ``bodoge/games/__init__.py``'s ``GAMES`` would hold)
registers it.  Nothing else is edited: not core, not the command line, not the server.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import bodoge.games
from bodoge.cli import build_parser, command_modules, main
from bodoge.games import registry
from tests.games.relay.game import ROUNDS_PLAYED, RelayGame
from tests.server.test_room import _play_relay_out
from tests.server.test_tables import _relay, _tabs, make_server

__all__ = ["make_server"]  # a fixture


@pytest.fixture
def relay_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(bodoge.games.GAMES, "relay", "tests.games.relay")  # the one line
    registry.cache_clear()
    yield
    registry.cache_clear()  # the next registry is made without Relay again


@pytest.mark.usefixtures("relay_registered")
def test_the_registered_game_is_in_the_registry() -> None:
    game = registry()["relay"]
    assert isinstance(game, RelayGame)
    assert {"tagiron", "illustori", "relay"} <= set(registry())
    assert ROUNDS_PLAYED in game.all_end_reasons() and "abandoned" in game.all_end_reasons()


@pytest.mark.usefixtures("relay_registered")
def test_the_registered_game_gets_its_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert command_modules()["relay"] == "tests.games.relay.cli"
    assert "relay" in build_parser().format_help()
    assert main(["relay", "play", "--players", "3", "--rounds", "2", "--seed", "4"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == {"places": [1, 1, 1], "reason": ROUNDS_PLAYED, "winners": [0, 1, 2]}


def test_a_game_without_registration_has_no_commands() -> None:
    assert "relay" not in command_modules() and "relay" not in registry()


@pytest.mark.usefixtures("relay_registered")
async def test_the_registered_game_plays_at_a_table(make_server: Callable[..., Any]) -> None:
    server = await make_server(games=None)  # every registered game, as `bodoge serve` offers
    assert "relay" in server.games
    tabs = await _tabs(server, 3)
    table = await _relay(server, tabs, options={"rounds": 1})
    snaps = [await tab.ok("table.open", table=table) for tab in tabs]
    assert [s["view"]["you"] for s in snaps] == [0, 1, 2]
    assert all(s["view"]["to_act"] == s["to_act"] == [0] for s in snaps)
    final = await _play_relay_out(tabs, table)
    assert final["result"] == {"places": [1, 1, 1], "reason": ROUNDS_PLAYED, "winners": [0, 1, 2]}
    assert final["view"]["result"] == final["result"] and final["view"]["turn"] is None
