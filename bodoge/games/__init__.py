"""The games bodoge knows, by id: one line each in :data:`GAMES`.

A game lives in its own package.  Its ``game`` module names its
:class:`~bodoge.core.game.Game` in ``GAME``; its ``cli`` module, if it has one,
defines ``register(subparsers)`` for the ``bodoge <id> …`` commands.  So the
line below is the only edit outside its folder that a new game needs: the
server, the bots, the pages' game list and the command line all read this.
"""

from __future__ import annotations

import importlib
import importlib.util
from functools import cache

from bodoge.core.game import Game

#: Every game: its id, and the package that holds it.
GAMES: dict[str, str] = {
    "tagiron": "bodoge.games.tagiron",
    "illustori": "bodoge.games.illustori",
}


@cache
def registry() -> dict[str, Game]:
    """Every registered game, imported lazily so a command loads only what it uses."""
    games: dict[str, Game] = {}
    for game_id, package in GAMES.items():
        game = importlib.import_module(f"{package}.game").GAME()
        if game.id != game_id:
            raise ValueError(f"{package} holds the game {game.id!r}, registered as {game_id!r}")
        games[game_id] = game
    return games


def get(game_id: str) -> Game:
    """The game with this id; raises ``KeyError`` for an unknown one."""
    return registry()[game_id]


def command_module(game_id: str) -> str | None:
    """The module of ``bodoge <game_id> …``'s commands, or ``None`` for a game without any.

    Only the game's package is imported to find out, not its rules nor its commands.
    """
    name = f"{GAMES[game_id]}.cli"
    return name if importlib.util.find_spec(name) is not None else None
