"""The contract harness's machinery: every game's kit, and random games played with it.

:func:`games` plays the same random games every run (the seeds are fixed), once
per process, and keeps every state, move, event and refused move; the checks in
``test_contract.py`` then look at them from every side.  A game is played
with its kit's random moves until it ends or :data:`TRIES` moves were tried.
"""

from __future__ import annotations

import copy
import functools
import math
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from bodoge.core.errors import GameError
from bodoge.core.game import Event, Game, Move, Seat
from bodoge.core.values import JSON
from tests.core.kit import GameKit
from tests.games.illustori.kit import KIT as ILLUSTORI
from tests.games.relay.kit import KIT as RELAY
from tests.games.tagiron.kit import KIT as TAGIRON

#: Every game the harness plays: the registered ones, and Relay, which exists only for tests.
KITS: dict[str, GameKit] = {kit.game.id: kit for kit in (TAGIRON, ILLUSTORI, RELAY)}
#: Random games played of each game.
PER_GAME = 24
#: Moves tried per game, refused ones included.
TRIES = 400


@dataclass(frozen=True)
class Attempt:
    """A move tried on ``states[step]``: refused with ``error``, or accepted (``None``).

    ``changed``: whether ``states[step]`` differed afterwards from a copy taken before.
    """

    step: int
    seat: Seat | None
    move: Move
    error: GameError | None
    changed: bool


@dataclass
class Played:
    """One random game: ``states[n]`` is the state after ``moves[:n]``, ``events[n]`` the
    events ``moves[n]`` caused; ``copies[n]`` is a deep copy of ``states[n]`` taken when it
    was reached (to see whether anything changed it since)."""

    game: Game
    raw: Mapping[str, JSON]
    options: Any
    seats: int
    seed: int
    states: list[Any] = field(default_factory=list)
    copies: list[Any] = field(default_factory=list)
    moves: list[tuple[Seat | None, Move]] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.game.id} table {dict(self.raw)} seed {self.seed}"

    @property
    def viewers(self) -> list[Seat | None]:
        """Every seat, and a spectator (``None``)."""
        return [*range(self.seats), None]

    @property
    def final(self) -> Any:
        return self.states[-1]

    @property
    def ended(self) -> bool:
        return self.game.result(self.final) is not None

    def steps(self) -> Iterator[tuple[Any, Seat | None, Move, list[Event], Any]]:
        """Each accepted move: the state before, the seat, the move, its events, the state after."""
        for n, ((seat, move), events) in enumerate(zip(self.moves, self.events, strict=True)):
            yield self.states[n], seat, move, events, self.states[n + 1]


def play(kit: GameKit, number: int) -> Played:
    """Random game ``number`` of ``kit``'s game: the same game every run."""
    game = kit.game
    rng = random.Random(f"{game.id}/{number}")
    raw = kit.table(rng)
    options = game.options(raw)
    seats = game.seats(options)
    played = Played(game, raw, options, seats, seed=rng.randrange(2**32))
    state = game.setup(options, seats, played.seed)
    played.states.append(state)
    played.copies.append(copy.deepcopy(state))
    for _ in range(TRIES):
        if game.result(state) is not None:
            break
        seat, move = kit.move(state, rng)
        step = len(played.moves)
        try:
            after, events = game.apply(state, seat, move)
        except GameError as error:
            changed = state != played.copies[step]
            played.attempts.append(Attempt(step, seat, move, error, changed))
            continue
        played.attempts.append(Attempt(step, seat, move, None, state != played.copies[step]))
        played.moves.append((seat, move))
        played.events.append(list(events))
        played.states.append(after)
        played.copies.append(copy.deepcopy(after))
        state = after
    return played


@functools.cache
def games(game_id: str) -> tuple[Played, ...]:
    """The random games of one game, played once per process."""
    kit = KITS[game_id]
    return tuple(play(kit, number) for number in range(PER_GAME))


def not_json(value: object, where: str = "") -> str | None:
    """Where ``value`` is not plain JSON data, or ``None`` if it is.

    Plain: objects with text keys, lists, text, whole numbers, finite floats,
    booleans and ``null`` — no tuples, sets or other objects, which a JSON
    encoder might write but which would not read back as they were.

    >>> not_json({"hand": [1, 2], "result": None})
    >>> not_json({"hand": (1, 2)})
    "['hand'] is a tuple"
    >>> not_json({1: "a"})
    '1 is a key but not text'
    """
    if value is None or isinstance(value, str | bool | int):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{where or 'the value'} is {value}"
    if isinstance(value, list):
        for i, item in enumerate(value):
            if problem := not_json(item, f"{where}[{i}]"):
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{where}{key!r} is a key but not text"
            if problem := not_json(item, f"{where}[{key!r}]"):
                return problem
        return None
    return f"{where or 'the value'} is a {type(value).__name__}"
