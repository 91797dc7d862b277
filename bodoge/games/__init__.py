"""The games bodoge knows, by id."""

from __future__ import annotations

from functools import cache

from bodoge.core.game import Game


@cache
def registry() -> dict[str, Game]:
    """Every registered game, imported lazily so a command loads only what it uses."""
    from bodoge.games.illustori.game import IllustoriGame
    from bodoge.games.tagiron.game import TagironGame

    return {game.id: game for game in (TagironGame(), IllustoriGame())}


def get(game_id: str) -> Game:
    """The game with this id; raises ``KeyError`` for an unknown one."""
    return registry()[game_id]
