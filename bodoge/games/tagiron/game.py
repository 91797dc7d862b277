"""Tagiron behind the :class:`~bodoge.core.game.Game` contract.

>>> game = TagironGame()
>>> options = game.options({"players": 2})
>>> state = game.setup(options, game.seats(options), seed=1)
>>> game.to_act(state) == {state.first}, game.view(state, None)["phase"]
(True, 'play')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from bodoge.core.game import Bot, Event, Game, Result, Seat, StatField
from bodoge.core.puzzles import PuzzleBook
from bodoge.games.tagiron import moves, rules, stand_in, statistics, views
from bodoge.games.tagiron.events import TagironEnd
from bodoge.games.tagiron.moves import TagironMove
from bodoge.games.tagiron.options import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    TagironOptions,
    options_to_json,
    parse_options,
)
from bodoge.games.tagiron.state import TagironState

__all__ = ["GAME", "TagironGame"]

#: The bots' levels (the bots themselves load only when one is asked for: see :meth:`bot`).
BOT_LEVELS = ("easy", "normal", "expert")


class TagironGame(Game[TagironState, TagironMove, TagironOptions]):
    """Tagiron (タギロン): deduce hidden number tiles from questions."""

    id: ClassVar[str] = "tagiron"
    title: ClassVar[Mapping[str, str]] = {"ja": "タギロン", "en": "Tagiron"}
    min_seats: ClassVar[int] = MIN_PLAYERS
    max_seats: ClassVar[int] = MAX_PLAYERS
    bot_levels: ClassVar[tuple[str, ...]] = BOT_LEVELS
    end_reasons: ClassVar[tuple[str, ...]] = tuple(TagironEnd)
    has_assistant: ClassVar[bool] = True
    stat_fields: ClassVar[tuple[StatField, ...]] = statistics.FIELDS

    def options(self, raw: Mapping[str, Any] | None = None) -> TagironOptions:
        return parse_options(raw)

    def options_json(self, options: TagironOptions) -> dict[str, Any]:
        return options_to_json(options)

    def seats(self, options: TagironOptions) -> int:
        return options.players

    def setup(self, options: TagironOptions, seats: int, seed: int) -> TagironState:
        return rules.setup(options, seats, seed)

    def apply(
        self, state: TagironState, seat: Seat | None, move: TagironMove
    ) -> tuple[TagironState, list[Event]]:
        return rules.apply(state, seat, move)

    def to_act(self, state: TagironState) -> frozenset[Seat]:
        return rules.to_act(state)

    def may_act(self, state: TagironState) -> frozenset[Seat]:
        return rules.may_act(state)

    def contested(self, state: TagironState, seat: Seat, move: TagironMove) -> bool:
        """With 3–4 players every declaration is a race for the next place, in turn or not.

        >>> game = TagironGame()
        >>> state = game.setup(game.options({"players": 4}), 4, seed=1)
        >>> game.contested(state, state.turn, moves.Declare(("R0", "R1", "R2", "R3")))
        True
        >>> game.contested(state, state.turn, moves.Ask("red_sum"))
        False
        """
        return (
            state.players > 2
            and not state.options.own_turn_declarations
            and isinstance(move, moves.Declare)
        )

    def turn_based_options(
        self, options: TagironOptions, move_seconds: int | None
    ) -> TagironOptions:
        """Turn-based, declarations are made on one's own turn (3–4 players): no race.

        >>> game = TagironGame()
        >>> game.turn_based_options(game.options({"players": 3}), 86400).own_turn_declarations
        True
        >>> game.turn_based_options(game.options({"players": 3}), None).own_turn_declarations
        False
        """
        return replace(options, own_turn_declarations=move_seconds is not None)

    def view(self, state: TagironState, seat: Seat | None) -> dict[str, Any]:
        return views.view(state, seat)

    def observe(self, event: Event, seat: Seat | None) -> dict[str, Any] | None:
        return views.observe(event, seat)

    def result(self, state: TagironState) -> Result | None:
        return rules.result(state)

    def statistics(self, state: TagironState, seat: Seat) -> dict[str, int]:
        return statistics.statistics(state, seat)

    def move_from_json(self, data: Mapping[str, Any]) -> TagironMove:
        return moves.move_from_json(data)

    def move_to_json(self, move: TagironMove) -> dict[str, Any]:
        return moves.move_to_json(move)

    # The solver and the bots need numpy and take a while to load: they are imported
    # only where they run (the bot workers, the command line), never by the server.

    def assist(self, view: Mapping[str, Any], seat: Seat) -> dict[str, Any] | None:
        from bodoge.games.tagiron.ai.analysis import analyse_view

        return analyse_view(view, seat)

    def stand_in(
        self, view: Mapping[str, Any], seat: Seat, move: TagironMove | None
    ) -> TagironMove | None:
        return stand_in.stand_in(view, seat, move)

    def puzzles(self) -> PuzzleBook | None:
        from bodoge.games.tagiron.puzzles import TagironPuzzles

        return TagironPuzzles()

    def review(self, history: Mapping[str, Any]) -> dict[str, Any] | None:
        from bodoge.games.tagiron.review import review_history

        # an abandoned table is finished too, and is reviewed as far as it went
        return review_history(history, unfinished=True).to_json()

    def bot(self, level: str) -> Bot[TagironMove]:
        from bodoge.games.tagiron.ai.bots import make_bot

        return make_bot(level)


#: What the registry (:mod:`bodoge.games`) makes this game from.
GAME = TagironGame
