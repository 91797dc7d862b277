"""A tiny game for server tests: one seat says a word, the others vote on it, with a clock.

It exercises what Tagiron does not: several seats awaited at once, a rule
clock whose move comes from the table (``seat=None``), and a secret per seat.
It is also the model of a game added to bodoge: everything it needs is in this
folder, it speaks the table's shared vocabulary (:mod:`bodoge.core.vocabulary`)
and declares its own end reason; one line registers it (``tests/test_third_game.py``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import ClassVar

from bodoge.core.errors import BadMove, BadOptions, GameFinished, IllegalMove, NotYourTurn
from bodoge.core.game import Bot, Clock, Event, Game, Move, Result, Seat
from bodoge.core.values import JSON
from bodoge.core.vocabulary import GameEnded, TableFacts

#: Relay's one way to end: every round was played.
ROUNDS_PLAYED = "rounds_played"


@dataclass(frozen=True)
class RelayOptions:
    players: int = 3
    rounds: int = 3
    vote_seconds: float | None = None


@dataclass(frozen=True)
class Say(Move):
    word: str


@dataclass(frozen=True)
class Vote(Move):
    ok: bool


@dataclass(frozen=True)
class TimeUp(Move):
    """The table's move when the vote clock runs out."""


@dataclass(frozen=True)
class Said(Event):
    seat: Seat
    word: str


@dataclass(frozen=True)
class Voted(Event):
    seat: Seat | None


@dataclass(frozen=True)
class RelayState:
    options: RelayOptions
    seed: int
    turn: Seat = 0
    round: int = 0
    voting: bool = False
    voted: frozenset[Seat] = frozenset()
    words: tuple[str, ...] = ()

    @property
    def over(self) -> bool:
        return self.round >= self.options.rounds


class RelayBot(Bot[Move]):
    level = "plain"

    def act(self, view: Mapping[str, JSON], seat: Seat, rng: random.Random) -> Move | None:
        if view["over"]:
            return None
        if not view["voting"] and view["turn"] == seat:
            return Say(f"bot{seat}")
        if view["voting"] and seat in view["to_vote"]:
            return Vote(True)
        return None


class RelayGame(Game[RelayState, Move, RelayOptions]):
    id: ClassVar[str] = "relay"
    title: ClassVar[Mapping[str, str]] = {"en": "Relay"}
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 4
    bot_levels: ClassVar[tuple[str, ...]] = ("plain",)
    has_assistant: ClassVar[bool] = True
    end_reasons: ClassVar[tuple[str, ...]] = (ROUNDS_PLAYED,)

    def options(self, raw: Mapping[str, JSON] | None = None) -> RelayOptions:
        raw = dict(raw or {})
        if set(raw) - {"players", "rounds", "vote_seconds"}:
            raise BadOptions("unknown relay option")
        options = RelayOptions(**raw)
        if options.players not in (2, 3, 4):
            raise BadOptions("relay is for 2-4 players")
        return options

    def options_json(self, options: RelayOptions) -> dict[str, JSON]:
        return {
            "players": options.players,
            "rounds": options.rounds,
            "vote_seconds": options.vote_seconds,
        }

    def seats(self, options: RelayOptions) -> int:
        return options.players

    def setup(self, options: RelayOptions, seats: int, seed: int) -> RelayState:
        return RelayState(options, seed)

    def _voters(self, state: RelayState) -> frozenset[Seat]:
        everyone = frozenset(range(state.options.players))
        return everyone - {state.turn} - state.voted

    def to_act(self, state: RelayState) -> frozenset[Seat]:
        if state.over:
            return frozenset()
        return self._voters(state) if state.voting else frozenset({state.turn})

    def apply(self, state: RelayState, seat: Seat | None, move: Move) -> tuple[RelayState, list]:
        if state.over:
            raise GameFinished("the relay is over")
        if isinstance(move, TimeUp):
            if seat is not None or not state.voting:
                raise IllegalMove("only the table's clock calls time")
            return self._ended(self._next_turn(state), [Voted(None)])
        if seat not in self.to_act(state):
            raise NotYourTurn("not your turn")
        if isinstance(move, Say) and not state.voting:
            new = replace(state, voting=True, voted=frozenset(), words=(*state.words, move.word))
            return new, [Said(seat, move.word)]
        if isinstance(move, Vote) and state.voting:
            new = replace(state, voted=state.voted | {seat})
            if not self._voters(new):
                new = self._next_turn(new)
            return self._ended(new, [Voted(seat)])
        raise IllegalMove("say on your turn, vote on the others'")

    def _ended(self, state: RelayState, events: list[Event]) -> tuple[RelayState, list[Event]]:
        result = self.result(state)
        return state, events if result is None else [*events, GameEnded(result)]

    def _next_turn(self, state: RelayState) -> RelayState:
        return replace(
            state,
            voting=False,
            voted=frozenset(),
            turn=(state.turn + 1) % state.options.players,
            round=state.round + 1,
        )

    def clock(self, state: RelayState) -> Clock[Move] | None:
        if state.voting and state.options.vote_seconds is not None:
            return Clock(state.options.vote_seconds, TimeUp())
        return None

    def view(self, state: RelayState, seat: Seat | None) -> dict[str, JSON]:
        facts = TableFacts(
            players=state.options.players,
            you=seat,
            turn=None if state.over else state.turn,
            to_act=self.to_act(state),
            result=self.result(state),
        )
        return {
            **facts.to_json(),
            "round": state.round,
            "voting": state.voting,
            "to_vote": sorted(self._voters(state)) if state.voting else [],
            "words": list(state.words),
            "over": state.over,
            "secret": None if seat is None else f"secret-{seat}",
        }

    def observe(self, event: Event, seat: Seat | None) -> dict[str, JSON] | None:
        if isinstance(event, Said):
            return {"type": "said", "seat": event.seat, "word": event.word}
        if isinstance(event, Voted):
            return {"type": "voted", "seat": event.seat}
        if isinstance(event, GameEnded):
            return event.to_json()
        raise TypeError(event)

    def result(self, state: RelayState) -> Result | None:
        if not state.over:
            return None
        # every seat shares first place once the rounds are played
        return Result((1,) * state.options.players, ROUNDS_PLAYED)

    def move_from_json(self, data: Mapping[str, JSON]) -> Move:
        kind = data.get("type")
        if kind == "say" and isinstance(data.get("word"), str):
            return Say(data["word"])
        if kind == "vote" and isinstance(data.get("ok"), bool):
            return Vote(data["ok"])
        if kind == "time_up":
            return TimeUp()
        raise BadMove("say {word} or vote {ok}")

    def move_to_json(self, move: Move) -> dict[str, JSON]:
        if isinstance(move, Say):
            return {"type": "say", "word": move.word}
        if isinstance(move, Vote):
            return {"type": "vote", "ok": move.ok}
        if isinstance(move, TimeUp):
            return {"type": "time_up"}
        raise BadMove(repr(move))

    def stand_in(self, view: Mapping[str, JSON], seat: Seat, move: Move | None) -> Move | None:
        # Recognisable: a stand-in's word says whose seat it stood in for.
        return Say(f"for{seat}") if isinstance(move, Say) else move

    def bot(self, level: str) -> Bot[Move]:
        if level != "plain":
            raise BadOptions(level)
        return RelayBot()

    def assist(self, view: Mapping[str, JSON], seat: Seat) -> dict[str, JSON] | None:
        return {"words_so_far": len(view["words"]), "seat": seat}


#: What the registry (``bodoge.games.GAMES``) makes this game from, once a line registers it.
GAME = RelayGame
