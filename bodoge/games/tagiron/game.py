"""Tagiron behind the shared :class:`~bodoge.core.game.Game` contract.

This module turns the pure rules into JSON views and events per seat: what a
seat may see is decided here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from bodoge.core.errors import BadMove, BadOptions
from bodoge.core.game import Bot, Event, Game, Move, Result, Seat
from bodoge.core.values import JSON, is_whole
from bodoge.games.tagiron import rules
from bodoge.games.tagiron.rules import (
    Ask,
    Asked,
    CardRevealed,
    Declare,
    Declared,
    GameEnded,
    Pass,
    Passed,
    PhaseChanged,
    TagironOptions,
    TagironState,
    TurnStarted,
)


def log_entry_json(entry: rules.LogEntry, seat: Seat | None, *, over: bool) -> dict[str, JSON]:
    """One public log entry as ``seat`` may see it."""
    if isinstance(entry, Asked):
        return {
            "type": "question",
            "seat": entry.seat,
            "card": entry.card,
            "choice": entry.choice,
            "answers": {str(s): a for s, a in entry.answers},
        }
    if isinstance(entry, Declared):
        data: dict[str, JSON] = {"type": "declaration", "seat": entry.seat, "right": entry.right}
        if over or seat in entry.heard_by:
            data["tiles"] = list(entry.tiles)
        return data
    return {"type": "pass", "seat": entry.seat}


class TagironGame(Game[TagironState, Move, TagironOptions]):
    """Tagiron (タギロン): deduce hidden number tiles from questions.

    >>> game = TagironGame()
    >>> state = game.setup(game.options({"players": 3}), 3, seed=5)
    >>> view = game.view(state, 0)
    >>> len(view["hand"]), view["centre_size"], "centre" in view
    (5, 5, False)
    """

    id: ClassVar[str] = "tagiron"
    title: ClassVar[Mapping[str, str]] = {"ja": "タギロン", "en": "Tagiron"}
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 4
    bot_levels: ClassVar[tuple[str, ...]] = ("easy", "normal", "expert")

    def options(self, raw: Mapping[str, JSON] | None = None) -> TagironOptions:
        raw = dict(raw or {})
        unknown = set(raw) - {"players"}
        if unknown:
            raise BadOptions(f"unknown Tagiron option: {sorted(unknown)[0]}")
        return TagironOptions(players=raw.get("players", 2))

    def options_json(self, options: TagironOptions) -> dict[str, JSON]:
        return {"players": options.players}

    def seats(self, options: TagironOptions) -> int:
        return options.players

    def setup(self, options: TagironOptions, seats: int, seed: int) -> TagironState:
        if seats != options.players:
            raise BadOptions(f"a {options.players}-player game needs {options.players} seats")
        return rules.setup(options, seed)

    def apply(
        self, state: TagironState, seat: Seat | None, move: Move
    ) -> tuple[TagironState, list[Event]]:
        return rules.apply(state, seat, move)

    def to_act(self, state: TagironState) -> frozenset[Seat]:
        return frozenset() if state.turn is None else frozenset({state.turn})

    def may_act(self, state: TagironState) -> frozenset[Seat]:
        if state.phase == "over":
            return frozenset()
        return self.to_act(state) | {s for s in range(state.players) if state.may_declare(s)}

    def result(self, state: TagironState) -> Result | None:
        return state.result

    def view(self, state: TagironState, seat: Seat | None) -> dict[str, JSON]:
        over = state.phase == "over"
        view: dict[str, JSON] = {
            "game": self.id,
            "players": state.players,
            "seat": seat,
            "hand": list(state.hands[seat]) if seat is not None else None,
            "hand_sizes": [len(h) for h in state.hands],
            "centre_size": len(state.centre) if state.players > 2 else 0,
            "face_up": list(state.face_up),
            "deck": len(state.deck),
            "first": state.first,
            "turn": state.turn,
            "phase": state.phase,
            "status": list(state.status),
            "places": [None] * state.players if state.result is None else list(state.result.places),
            "may_ask": seat is not None and state.may_ask(seat),
            "may_declare": seat is not None and state.may_declare(seat),
            "may_pass": seat is not None
            and state.turn == seat
            and state.phase not in ("play", "over"),
            "log": [log_entry_json(e, seat, over=over) for e in state.log],
            "result": state.result.to_json() if state.result else None,
            "revealed": None,
        }
        if over:
            view["revealed"] = {
                "hands": [list(h) for h in state.hands],
                "centre": list(state.centre) if state.players > 2 else [],
            }
        return view

    def observe(self, event: Event, seat: Seat | None) -> dict[str, JSON] | None:
        if isinstance(event, (Asked, Declared, Passed)):
            return log_entry_json(event, seat, over=False)
        if isinstance(event, CardRevealed):
            return {"type": "card_revealed", "card": event.card, "slot": event.slot}
        if isinstance(event, PhaseChanged):
            return {"type": "phase", "phase": event.phase}
        if isinstance(event, TurnStarted):
            return {"type": "turn", "seat": event.seat}
        if isinstance(event, GameEnded):
            return {
                "type": "game_over",
                "result": event.result.to_json(),
                "revealed": {
                    "hands": [list(h) for h in event.hands],
                    "centre": list(event.centre) if len(event.hands) > 2 else [],
                },
            }
        raise TypeError(f"unknown Tagiron event {event!r}")

    def move_from_json(self, data: Mapping[str, JSON]) -> Move:
        if not isinstance(data, Mapping):
            raise BadMove("a move is a JSON object")
        kind = data.get("type")
        try:
            if kind == "ask":
                _only(data, {"type", "card", "choice"})
                card, choice = data["card"], data.get("choice")
                if not isinstance(card, str) or not (choice is None or is_whole(choice)):
                    raise BadMove("ask needs a card id and an optional integer choice")
                return Ask(card, choice)
            if kind == "declare":
                _only(data, {"type", "tiles"})
                tiles = data["tiles"]
                if not isinstance(tiles, list) or not all(isinstance(t, str) for t in tiles):
                    raise BadMove("declare needs a list of tile codes")
                return Declare(tuple(tiles))
            if kind == "pass":
                _only(data, {"type"})
                return Pass()
        except KeyError as exc:
            raise BadMove(f"{kind} needs {exc.args[0]!r}") from None
        raise BadMove(f"unknown Tagiron move type {kind!r}")

    def move_to_json(self, move: Move) -> dict[str, JSON]:
        if isinstance(move, Ask):
            return {"type": "ask", "card": move.card, "choice": move.choice}
        if isinstance(move, Declare):
            return {"type": "declare", "tiles": list(move.tiles)}
        if isinstance(move, Pass):
            return {"type": "pass"}
        raise BadMove(f"not a Tagiron move: {move!r}")

    def assist(self, view: Mapping[str, JSON], seat: Seat) -> dict[str, JSON] | None:
        from bodoge.games.tagiron.analysis import analyse_view

        return analyse_view(view, seat)

    def bot(self, level: str) -> Bot[Move]:
        from bodoge.games.tagiron.bots import make_bot

        return make_bot(level)


def _only(data: Mapping[str, JSON], keys: set[str]) -> None:
    extra = set(data) - keys
    if extra:
        raise BadMove(f"unexpected field {sorted(extra)[0]!r}")
