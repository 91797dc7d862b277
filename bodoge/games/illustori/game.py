"""Illustori behind the :class:`~bodoge.core.game.Game` contract.

>>> from bodoge.games.illustori.moves import FirstWord
>>> game = IllustoriGame()
>>> options = game.options({"players": 3})
>>> state = game.setup(options, game.seats(options), seed=7)
>>> giver = min(game.to_act(state))
>>> state, events = game.apply(state, giver, FirstWord("つきよ"))
>>> game.view(state, None)["word"], game.view(state, None)["next_heads"]
('つきよ', ['よ'])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bodoge.core.game import Clock, Event, Game, Result, Seat
from bodoge.games.illustori import moves, rules, views
from bodoge.games.illustori.moves import IllustoriMove
from bodoge.games.illustori.options import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    IllustoriOptions,
    options_to_json,
    parse_options,
)
from bodoge.games.illustori.state import IllustoriState

__all__ = ["IllustoriGame"]


class IllustoriGame(Game[IllustoriState, IllustoriMove, IllustoriOptions]):
    """Picture shiritori: name your cards' pictures, link the words, let the table vote."""

    id: ClassVar[str] = "illustori"
    title: ClassVar[Mapping[str, str]] = {"ja": "イラストリー", "en": "Illustori"}
    min_seats: ClassVar[int] = MIN_PLAYERS
    max_seats: ClassVar[int] = MAX_PLAYERS

    def options(self, raw: Mapping[str, Any] | None = None) -> IllustoriOptions:
        return parse_options(raw)

    def options_json(self, options: IllustoriOptions) -> dict[str, Any]:
        return options_to_json(options)

    def seats(self, options: IllustoriOptions) -> int:
        return options.players

    def setup(self, options: IllustoriOptions, seats: int, seed: int) -> IllustoriState:
        return rules.setup(options, seats, seed)

    def apply(
        self, state: IllustoriState, seat: Seat | None, move: IllustoriMove
    ) -> tuple[IllustoriState, list[Event]]:
        return rules.apply(state, seat, move)

    def to_act(self, state: IllustoriState) -> frozenset[Seat]:
        return rules.to_act(state)

    def view(self, state: IllustoriState, seat: Seat | None) -> dict[str, Any]:
        return views.view(state, seat)

    def observe(self, event: Event, seat: Seat | None) -> dict[str, Any] | None:
        return views.observe(event, seat)

    def result(self, state: IllustoriState) -> Result | None:
        return rules.result(state)

    def move_from_json(self, data: Mapping[str, Any]) -> IllustoriMove:
        return moves.move_from_json(data)

    def move_to_json(self, move: IllustoriMove) -> dict[str, Any]:
        return moves.move_to_json(move)

    def clock(self, state: IllustoriState) -> Clock[IllustoriMove] | None:
        return rules.clock(state)
