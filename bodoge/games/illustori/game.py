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

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from bodoge.core.game import Bot, Clock, Event, Game, OptionField, Result, Seat, StatField
from bodoge.games.illustori import assets, moves, rules, stand_in, statistics, views
from bodoge.games.illustori.bots import BOT_LEVELS, make_bot
from bodoge.games.illustori.events import IllustoriEnd
from bodoge.games.illustori.moves import Exchange, IllustoriMove, Vote
from bodoge.games.illustori.options import (
    LANGUAGES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    IllustoriOptions,
    options_to_json,
    parse_options,
)
from bodoge.games.illustori.state import IllustoriState

__all__ = ["GAME", "IllustoriGame"]


class IllustoriGame(Game[IllustoriState, IllustoriMove, IllustoriOptions]):
    """Picture shiritori: name your cards' pictures, link the words, let the table vote."""

    id: ClassVar[str] = "illustori"
    title: ClassVar[Mapping[str, str]] = {"ja": "イラストリー", "en": "Illustori"}
    min_seats: ClassVar[int] = MIN_PLAYERS
    max_seats: ClassVar[int] = MAX_PLAYERS
    bot_levels: ClassVar[tuple[str, ...]] = BOT_LEVELS
    end_reasons: ClassVar[tuple[str, ...]] = tuple(IllustoriEnd)
    option_fields: ClassVar[tuple[OptionField, ...]] = (
        OptionField("players", "players", "lobby.players"),
        OptionField("language", "choice", "il.opt.language", LANGUAGES),
        OptionField("ban_same_ends", "flag", "il.opt.ban_same_ends"),
        OptionField("ban_used_joints", "flag", "il.opt.ban_used_joints"),
        OptionField("vote_limit", "flag", "il.opt.vote_limit"),
        OptionField("secret_votes", "flag", "il.opt.secret_votes"),
        OptionField("show_rules", "flag", "il.opt.show_rules"),
    )
    stat_fields: ClassVar[tuple[StatField, ...]] = statistics.FIELDS

    def options(self, raw: Mapping[str, Any] | None = None) -> IllustoriOptions:
        return parse_options(raw)

    def options_json(self, options: IllustoriOptions) -> dict[str, Any]:
        return options_to_json(options)

    def seats(self, options: IllustoriOptions) -> int:
        return options.players

    def turn_based_options(
        self, options: IllustoriOptions, move_seconds: int | None
    ) -> IllustoriOptions:
        """Turn-based, a vote runs for the table's time per move at most: it ends when
        every voter has voted or that time runs out (missing votes OK).

        >>> game = IllustoriGame()
        >>> game.turn_based_options(game.options({}), 43200).vote_seconds
        43200
        >>> game.turn_based_options(game.options({"vote_limit": True}), None).vote_seconds
        25
        """
        return dataclasses.replace(options, turn_vote_seconds=move_seconds)

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

    def statistics(self, state: IllustoriState, seat: Seat) -> dict[str, int]:
        return statistics.statistics(state, seat)

    def move_from_json(self, data: Mapping[str, Any]) -> IllustoriMove:
        return moves.move_from_json(data)

    def move_to_json(self, move: IllustoriMove) -> dict[str, Any]:
        return moves.move_to_json(move)

    def public_to_act(self, state: IllustoriState, seat: Seat | None) -> frozenset[Seat]:
        waiting = rules.to_act(state)
        if state.phase == "vote" and state.options.secret_votes:
            # The voters no longer awaited are the ones who voted: each sees only themselves.
            return waiting & {seat}
        return waiting

    def public_move(
        self, state: IllustoriState, seat: Seat | None, move: IllustoriMove, viewer: Seat | None
    ) -> tuple[Seat | None, dict[str, Any] | None]:
        if viewer == seat:
            return seat, moves.move_to_json(move)
        if isinstance(move, Vote) and state.options.secret_votes:
            return None, None  # nobody, ever, learns who voted what
        if isinstance(move, Exchange):
            return seat, {"type": "exchange", "count": len(move.cards)}  # never which cards
        return seat, moves.move_to_json(move)

    def asset(self, path: str) -> tuple[bytes, str] | None:
        return assets.asset(path)

    def clock(self, state: IllustoriState) -> Clock[IllustoriMove] | None:
        return rules.clock(state)

    def stand_in(
        self, view: Mapping[str, Any], seat: Seat, move: IllustoriMove | None
    ) -> IllustoriMove | None:
        return stand_in.stand_in(view, seat, move)

    def bot(self, level: str) -> Bot[IllustoriMove]:
        return make_bot(level)


#: What the registry (:mod:`bodoge.games`) makes this game from.
GAME = IllustoriGame
