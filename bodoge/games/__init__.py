"""The games bodoge knows, by id."""

from __future__ import annotations

from functools import cache

from bodoge.core.game import Game


@cache
def registry() -> dict[str, Game]:
    """Every registered game, imported lazily so a command loads only what it uses."""
    games: dict[str, Game] = {}
    from bodoge.games.tagiron.game import TagironGame

    games[TagironGame.id] = TagironGame()
    try:
        from bodoge.games.illustori.game import IllustoriGame
    except ImportError:  # Illustori lands after Tagiron
        pass
    else:
        games[IllustoriGame.id] = IllustoriGame()
    return games


def get(game_id: str) -> Game:
    """The game with this id; raises ``KeyError`` for an unknown one."""
    return registry()[game_id]
