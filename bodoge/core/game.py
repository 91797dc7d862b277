"""The contract between a game and everything that drives it.

A game is pure data in, data out (as in boardgame.io or OpenSpiel): it never
reads a clock, does I/O or touches global randomness.  The server, the bots
runner and the command line only ever talk to a game through :class:`Game`.

* ``options(raw)`` validates table options and fills defaults;
* ``setup(options, seats, seed)`` makes the first state;
* ``apply(state, seat, move)`` checks the move and returns the next state and
  the events it caused (it raises a :class:`~bodoge.core.errors.GameError`
  and changes nothing when the move is not allowed);
* ``view(state, seat)`` is what one seat (or a spectator, ``seat=None``) may
  see, as JSON-ready data; ``observe(event, seat)`` likewise for one event;
* ``result(state)`` is ``None`` while the game runs, then a :class:`Result`
  whose ``reason`` is one of the game's own ``end_reasons``;
* ``statistics(state, seat)`` counts what one seat did in a game (words
  played, questions asked), which profiles add up as its ``stat_fields`` say.

Seats are numbered from 0.  A move with ``seat=None`` comes from the table
itself (a clock running out), never from a player.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, Generic, Literal, TypeVar

from bodoge.core.puzzles import PuzzleBook
from bodoge.core.values import JSON

Seat = int


class Move:
    """Base of every game's moves: small frozen dataclasses."""


class Event:
    """Base of every game's events: small frozen dataclasses describing what happened."""


S = TypeVar("S")
M = TypeVar("M", bound=Move)
Opts = TypeVar("Opts")


class EndReason(StrEnum):
    """Why a game ended, for the reasons that belong to the table rather than to a game.

    Each game declares its own reasons (:attr:`Game.end_reasons`), so adding a
    game adds none here.  The values are stable codes: clients show them and
    the store keeps them in finished tables' results, so a value is never
    renamed or reused.

    >>> EndReason("abandoned") is EndReason.ABANDONED, f"{EndReason.ABANDONED}"
    (True, 'abandoned')
    """

    #: Nobody watched the running game for too long (any game).
    ABANDONED = "abandoned"


@dataclass(frozen=True)
class Result:
    """How a finished game ended.

    ``places[seat]`` is 1 for first place (several seats may share a place),
    2 for second and so on, or ``None`` for a seat left unranked.  ``reason``
    is one of the game's :attr:`Game.end_reasons` or the table's
    :class:`EndReason` (a game may pass its own ``StrEnum``: its members are
    those strings); :meth:`Game.check_result` tells whether it is.

    >>> Result((2, 1), "declared").to_json()
    {'places': [2, 1], 'reason': 'declared', 'winners': [1]}
    >>> Result((1,), "")
    Traceback (most recent call last):
    ...
    ValueError: an end reason is a non-empty string, not ''
    """

    places: tuple[int | None, ...]
    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.reason, str) or not self.reason:
            raise ValueError(f"an end reason is a non-empty string, not {self.reason!r}")

    @property
    def winners(self) -> tuple[Seat, ...]:
        return tuple(s for s, p in enumerate(self.places) if p == 1)

    @property
    def draw(self) -> bool:
        return not self.winners or len(self.winners) == len(self.places)

    def to_json(self) -> dict[str, JSON]:
        return {
            "places": list(self.places),
            "reason": str(self.reason),
            "winners": list(self.winners),
        }


@dataclass(frozen=True)
class Clock(Generic[M]):
    """A rule-level time limit: ``seconds`` after the clock starts, the table applies ``move``.

    The clock starts with the move after which the game first reports it, and keeps
    running while later moves leave the game reporting an equal clock (an Illustori
    vote: its 25 seconds run from the play, not from the last vote); a different
    clock, or none, ends it.  The game only says how long and what happens; the
    server keeps the time.
    """

    seconds: float
    move: M


@dataclass(frozen=True)
class OptionField:
    """One table option as every page shows it (the waiting room, the lobby's cards).

    ``key`` names the option in ``options_json``; ``label`` is the key of its
    label in the front-end's strings (the game's ``web/strings.js`` or the
    shell's); ``kind`` says how its value reads:

    * ``"players"`` — a count of players;
    * ``"flag"`` — true or false, shown as on/off;
    * ``"choice"`` — one of ``choices``, each shown as ``{label}_{value}``.

    The host may change every option but the player count in the waiting room
    (``table.settings``): the seats are made for that count.

    >>> OptionField("language", "choice", "il.opt.language", ("ja", "en")).to_json()
    {'key': 'language', 'kind': 'choice', 'label': 'il.opt.language', 'choices': ['ja', 'en']}
    """

    key: str
    kind: Literal["players", "flag", "choice"]
    label: str
    #: A choice's values, in the order a page offers them.
    choices: tuple[str, ...] = ()

    def to_json(self) -> dict[str, JSON]:
        data: dict[str, JSON] = {"key": self.key, "kind": self.kind, "label": self.label}
        if self.kind == "choice":
            data["choices"] = list(self.choices)
        return data


@dataclass(frozen=True)
class StatField:
    """One per-game statistic a profile shows, made from the counts of
    :meth:`Game.statistics` added up over a player's games.

    ``kind`` says how:

    * ``"count"`` — the sum of the count ``key``;
    * ``"mean"`` — the sum of the count ``of[0]`` over the sum of ``of[1]`` (questions
      asked before a right declaration, per right declaration);
    * ``"share"`` — the same ratio, shown as a percentage (words accepted of those played).

    ``label`` is the key of its label in the front-end's strings, as for :class:`OptionField`.

    >>> StatField("acceptance", "share", "il.stat.acceptance", ("accepted", "played")).to_json()
    {'key': 'acceptance', 'kind': 'share', 'label': 'il.stat.acceptance'}
    >>> StatField("played", "count", "il.stat.played").value({"played": 7})
    7
    >>> StatField("rate", "share", "x", ("a", "b")).value({"a": 1, "b": 4})
    0.25
    >>> StatField("rate", "mean", "x", ("a", "b")).value({"a": 0, "b": 0}) is None
    True
    """

    key: str
    kind: Literal["count", "mean", "share"]
    label: str
    of: tuple[str, str] | None = None

    def value(self, counts: Mapping[str, int]) -> int | float | None:
        """What this field shows for these summed counts (``None``: nothing to divide)."""
        if self.of is None:
            return counts.get(self.key, 0)
        part, whole = (counts.get(k, 0) for k in self.of)
        return part / whole if whole else None

    def to_json(self) -> dict[str, JSON]:
        return {"key": self.key, "kind": self.kind, "label": self.label}


class Bot(ABC, Generic[M]):
    """A computer player.  It sees exactly what a person in that seat sees: the seat's view."""

    level: ClassVar[str]

    @abstractmethod
    def act(self, view: Mapping[str, JSON], seat: Seat, rng: random.Random) -> M | None:
        """The move to make now, or ``None`` when this seat has nothing to do."""


class Game(ABC, Generic[S, M, Opts]):
    """One game's rules.  Subclasses declare their properties as class data."""

    id: ClassVar[str]
    title: ClassVar[Mapping[str, str]]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    bot_levels: ClassVar[Sequence[str]] = ()
    #: The options every page shows for a table of this game, in order (the waiting
    #: room lists them to everyone); options left out are not shown (a deck's seed).
    option_fields: ClassVar[Sequence[OptionField]] = (
        OptionField("players", "players", "lobby.players"),
    )
    #: Why a game of this may end (each :class:`Result`'s ``reason``): its own codes, never
    #: the table's (:class:`EndReason`), which every game may also end with.
    end_reasons: ClassVar[Sequence[str]] = ()
    #: Whether :meth:`assist` answers: the table then has an ``assistant`` setting.
    has_assistant: ClassVar[bool] = False
    #: What a profile shows of a player's games of this, in order, made from the counts
    #: of :meth:`statistics`; none (the default): only games and wins.
    stat_fields: ClassVar[Sequence[StatField]] = ()

    @abstractmethod
    def options(self, raw: Mapping[str, JSON] | None = None) -> Opts:
        """Validated options with defaults filled in; raises ``BadOptions``."""

    @abstractmethod
    def options_json(self, options: Opts) -> dict[str, JSON]:
        """Options as stored and shown; ``options(options_json(o)) == o``."""

    @abstractmethod
    def seats(self, options: Opts) -> int:
        """How many seats a table with these options has."""

    @abstractmethod
    def setup(self, options: Opts, seats: int, seed: int) -> S:
        """The first state of a game."""

    @abstractmethod
    def apply(self, state: S, seat: Seat | None, move: M) -> tuple[S, list[Event]]:
        """The state after ``seat`` makes ``move`` and the events it caused."""

    @abstractmethod
    def to_act(self, state: S) -> frozenset[Seat]:
        """Seats the game is waiting for (empty when finished)."""

    @abstractmethod
    def view(self, state: S, seat: Seat | None) -> dict[str, JSON]:
        """What ``seat`` may see (``None``: a spectator), as JSON-ready data."""

    @abstractmethod
    def observe(self, event: Event, seat: Seat | None) -> dict[str, JSON] | None:
        """What ``seat`` may see of one event, or ``None`` if nothing."""

    @abstractmethod
    def result(self, state: S) -> Result | None:
        """How the game ended, or ``None`` while it runs."""

    @abstractmethod
    def move_from_json(self, data: Mapping[str, JSON]) -> M:
        """Parse a move sent by a client; raises ``BadMove``."""

    @abstractmethod
    def move_to_json(self, move: M) -> dict[str, JSON]:
        """The inverse of :meth:`move_from_json`; also the stored form of a move."""

    @classmethod
    def all_end_reasons(cls) -> tuple[str, ...]:
        """Every reason a table of this game may end with: the game's, then the table's."""
        return (*(str(r) for r in cls.end_reasons), *(str(r) for r in EndReason))

    def check_result(self, result: Result) -> Result:
        """``result`` itself if its reason is one this game may end with; else ``ValueError``."""
        if result.reason not in self.all_end_reasons():
            raise ValueError(f"{self.id} does not end as {result.reason!r}")
        return result

    def may_act(self, state: S) -> frozenset[Seat]:
        """Seats that may move now: those awaited, plus any allowed to act out of turn."""
        return self.to_act(state)

    def contested(self, state: S, seat: Seat, move: M) -> bool:
        """Whether ``move`` by ``seat`` is a race that a person may be about to win too.

        A bot holds such a move for its table's reaction window after the last
        move, so that a person who saw the same thing has the time to act on it
        (``bodoge/server/runtime/pace.py``).  The default: a move out of turn.
        """
        return seat not in self.to_act(state)

    def public_to_act(self, state: S, seat: Seat | None) -> frozenset[Seat]:
        """The awaited seats that ``seat`` (``None``: a spectator) may be told of.

        Everything the server sends a seat about who is awaited (``to_act``,
        turn deadlines) goes through this.  A game hides seats when being
        awaited is itself a secret: during a secret vote, the voters no longer
        awaited are the ones who have voted.
        """
        return self.to_act(state)

    def public_move(
        self, state: S, seat: Seat | None, move: M, viewer: Seat | None
    ) -> tuple[Seat | None, dict[str, JSON] | None]:
        """Who made ``move`` (which led to ``state``) and the move, as ``viewer`` may learn them.

        Used for the mover shown with each event and for the moves of a
        finished game's history.  The default shows both; a game returns
        ``None`` for a secret mover (a secret vote), and ``None`` or a smaller
        public form for a move that holds a secret after the game too.
        """
        return seat, self.move_to_json(move)

    def asset(self, path: str) -> tuple[bytes, str] | None:
        """A file the game draws on the fly (card art), as ``(content, media type)``.

        The server serves it at ``/api/games/{id}/assets/{path}``; ``None``
        (the default, also for any path the game does not know): 404.
        Content must depend on the path alone, since it is cached for long.
        """
        return None

    def turn_based_options(self, options: Opts, move_seconds: int | None) -> Opts:
        """The options of a table of this game played turn-based, ``move_seconds`` per move
        (``None``: real time, the options as the host chose them).

        A turn-based game runs for days (``bodoge/server/runtime/turns.py``): whatever in
        the rules assumes everyone at the table at once — a race out of turn, a vote limit
        of seconds — is stated here, as options, so that it is stored with the table (a
        table is its options, seed and moves) and the rules stay pure.  It must undo itself:
        ``turn_based_options(turn_based_options(o, s), None)`` is the host's ``o`` again
        (a waiting table's host may switch the mode back).  The default: no change.
        """
        return options

    def clock(self, state: S) -> Clock[M] | None:
        """A rule-level time limit running now, if the options asked for one."""
        return None

    def assist(self, view: Mapping[str, JSON], seat: Seat) -> dict[str, JSON] | None:
        """An optional in-game assistant's analysis of one seat's view (``None``: none)."""
        return None

    def puzzles(self) -> PuzzleBook | None:
        """The game's puzzles, if it makes any (:mod:`bodoge.core.puzzles`); ``None``: none."""
        return None

    def review(self, history: Mapping[str, JSON]) -> dict[str, JSON] | None:
        """An optional review of a finished game, from its history as a spectator gets it
        (``GET /api/tables/{id}/history``); ``None``: this game has none."""
        return None

    def statistics(self, state: S, seat: Seat) -> dict[str, int]:
        """What ``seat`` did in the game that ended in ``state``, as counts that add up over
        games (``stat_fields`` says what a profile makes of them).  Only what every seat
        may know after the game: a profile is public.  The default: nothing."""
        return {}

    def stand_in(self, view: Mapping[str, JSON], seat: Seat, move: M | None) -> M | None:
        """What a *stand-in* plays for an absent person, given the move its bot chose.

        A stand-in is the bot that plays a person's turn when their time ran out, or that
        took the seat of a person who left a running game.  It plays so that the table can
        go on, not to win: it must not gain the absent player what only their own choice
        could (a place, a card played out), and they keep what the rules give them, no
        more.  ``move`` is what the bot of that level would play in ``view`` (``None``:
        nothing); the answer is a move legal in ``view`` or ``None`` (nothing now, as a bot
        says when another seat is awaited).  The default: the bot's move as it is.  Pure:
        from the view alone, like a bot.
        """
        return move

    def bot(self, level: str) -> Bot[M]:
        """A bot of the given level; raises ``BadOptions`` for an unknown level."""
        from bodoge.core.errors import BadOptions

        raise BadOptions(f"{self.id} has no bot level {level!r}")

    def replay(
        self, options: Opts, seats: int, seed: int, moves: Sequence[tuple[Seat | None, M]]
    ) -> S:
        """The state after the given moves: a table is its history."""
        state = self.setup(options, seats, seed)
        for seat, move in moves:
            state, _ = self.apply(state, seat, move)
        return state
