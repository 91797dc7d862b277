"""What one seat (or a spectator, ``seat=None``) sees of a table: the only place that decides it.

Live events, the snapshot on ``table.open``, the catch-up after a reconnect and
the history of a finished game are all rendered here, from the game, a state,
the seat and the table's clocks.  Nothing else renders for a seat, so hiding
what a seat may not see is done once.

A seat's messages come in two parts:

* the game's **view** of the state for that seat, and the game's **events**
  as that seat may observe them;
* the table's **facts** for that seat: who is awaited (``to_act``, as far as
  the seat may know), whether the seat may act, the turn deadlines, the rule
  clock and the result.

A snapshot carries both whole.  An event frame carries the events, the view
as a patch against the view after the previous move (:mod:`viewdiff`), and the
facts of its move that differ from those of the move before (all of them in
move 1's frame).  A frame is a function of the table's history alone: each move
keeps the timers it left running (:class:`Step`), so a catch-up sends every
seat exactly the frames it was sent live, never the table's current deadlines
seen through an older state (in a secret vote, a running vote deadline tells
who has not voted yet).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bodoge.core.game import Event, Game, Move, Seat
from bodoge.core.values import JSON
from bodoge.server.runtime import viewdiff
from bodoge.server.runtime.protocol import iso

Facts = dict[str, JSON]

FACT_KEYS = ("to_act", "may_act", "deadlines", "clock", "result")
#: The actor of a move the stand-in bot played because the seat's turn ran out.
TIMEOUT = "timeout"


@dataclass(frozen=True)
class Clocks:
    """The table's timers: each awaited seat's turn deadline and the rule clock (ms)."""

    seats: int
    deadlines: Mapping[Seat, int]
    clock: int | None = None

    @classmethod
    def of(cls, step: Step, seats: int) -> Clocks:
        """The timers move ``step`` left running (none known for a move stored before
        moves kept them)."""
        return cls(seats, step.deadlines or {}, step.clock)


@dataclass(frozen=True, slots=True)
class Step:
    """Move ``n`` as it was played: who, what, when and by whom.

    Neither the state it led to nor its events are kept (a table keeps only its
    current state): :func:`replay` brings them back when a catch-up or a
    history needs them.
    """

    n: int
    seat: Seat | None
    move: Move
    at: int
    actor: str
    #: The turn deadlines (ms) the move left running, per seat (``None``: not known, a
    #: move stored before moves kept them), and the rule clock's.
    deadlines: Mapping[Seat, int] | None = None
    clock: int | None = None


class Shared:
    """The facts of one state for every seat, worked out once per state."""

    __slots__ = ("clock", "deadlines", "game", "may_act", "result", "state", "to_act")

    def __init__(
        self, game: Game[Any, Any, Any], state: Any, clocks: Clocks, ended: JSON = None
    ) -> None:
        """``ended``: how the table ended when the game itself did not (abandoned)."""
        self.game = game
        self.state = state
        self.deadlines = [iso(clocks.deadlines.get(s)) for s in range(clocks.seats)]
        if state is None:
            self.to_act: frozenset[Seat] = frozenset()
            self.may_act: frozenset[Seat] = frozenset()
            self.clock: str | None = None
            self.result: JSON = None
            return
        outcome = game.result(state)
        self.result = outcome.to_json() if outcome else ended
        stopped = outcome is None and ended is not None  # abandoned: nobody is awaited
        self.to_act = frozenset() if stopped else frozenset(game.to_act(state))
        self.may_act = frozenset() if stopped else frozenset(game.may_act(state))
        self.clock = iso(clocks.clock)

    def facts(self, seat: Seat | None) -> Facts:
        """The facts as ``seat`` may see them: a game may keep some awaited seats secret."""
        to_act, deadlines = self.to_act, self.deadlines
        if self.state is not None:
            public = self.game.public_to_act(self.state, seat) & to_act
            if public != to_act:
                to_act = public
                deadlines = [at if s in public else None for s, at in enumerate(deadlines)]
        return {
            "to_act": sorted(to_act),
            "may_act": seat is not None and seat in self.may_act,
            "deadlines": deadlines,
            "clock": self.clock,
            "result": self.result,
        }


def view(game: Game[Any, Any, Any], state: Any, seat: Seat | None) -> JSON:
    return None if state is None else game.view(state, seat)


def observed(game: Game[Any, Any, Any], events: Sequence[Event], seat: Seat | None) -> list[JSON]:
    """What ``seat`` may see of a move's events, in order."""
    return [o for o in (game.observe(e, seat) for e in events) if o is not None]


def snapshot(
    game: Game[Any, Any, Any],
    shared: Shared,
    seat: Seat | None,
    *,
    table: Mapping[str, JSON],
    n: int,
    chat: list[JSON],
    seat_view: JSON = None,
    steps: Sequence[Step] = (),
) -> dict[str, JSON]:
    """The whole table for ``seat``: the reply to ``table.open`` (``seat_view`` if rendered).

    ``timed_out`` lists the moves the stand-in bot played for a late seat (of
    ``steps``, the table's moves) whose mover ``seat`` may know.
    """
    if seat_view is None:
        seat_view = view(game, shared.state, seat)
    return {
        "type": "table",
        "table": table,
        "you": seat,
        "n": n,
        "view": seat_view,
        **shared.facts(seat),
        "timed_out": timed_out(game, shared.state, steps, seat),
        "chat": chat,
    }


def timed_out(
    game: Game[Any, Any, Any], state: Any, steps: Iterable[Step], seat: Seat | None
) -> list[JSON]:
    """The numbers of the moves the stand-in bot played, as far as ``seat`` may know their mover.

    A game keeps a mover secret by the move's kind and its options (a secret vote),
    which the current state tells as well as the state the move led to.
    """
    return [
        step.n
        for step in steps
        if step.actor == TIMEOUT
        and game.public_move(state, step.seat, step.move, seat)[0] == step.seat
    ]


def event(
    table_id: str,
    step: Step,
    mover: Seat | None,
    events: list[JSON],
    patch: list[JSON],
    facts: Facts,
    before: Facts | None,
) -> dict[str, JSON]:
    """Move ``step.n`` for one seat: its events, its view's patch and the facts that changed.

    ``before`` is the facts of move ``step.n - 1`` as the seat sees them
    (``None`` for move 1: every fact is sent).  ``timed_out: true`` marks a move the stand-in bot
    played for a late seat, when the seat may know who moved.
    """
    frame: dict[str, JSON] = {
        "type": "event",
        "table": table_id,
        "n": step.n,
        "seat": mover,
        "events": events,
        "patch": patch,
    }
    if step.actor == TIMEOUT and mover is not None and mover == step.seat:
        frame["timed_out"] = True
    for key in FACT_KEYS:
        if before is None or before[key] != facts[key]:
            frame[key] = facts[key]
    return frame


def patch(before: JSON, after: JSON, events: Sequence[JSON]) -> list[JSON]:
    return viewdiff.diff(before, after, events)


def replay(
    game: Game[Any, Any, Any], options: Any, seats: int, seed: int, steps: Iterable[Step]
) -> Iterator[tuple[Any, Step | None, tuple[Event, ...]]]:
    """Every state of a game from its history, with the events of the step that led to it.

    First ``(setup, None, ())``, then one triple per step: what a catch-up and a
    history walk through.  A table brought back after a restart needs only its
    last state, which the contract's ``Game.replay`` gives.
    """
    state = game.setup(options, seats, seed)
    yield state, None, ()
    for step in steps:
        state, events = game.apply(state, step.seat, step.move)
        yield state, step, tuple(events)


def catch_up(
    game: Game[Any, Any, Any],
    table_id: str,
    states: Iterator[tuple[Any, Step | None, tuple[Event, ...]]],
    since: int,
    seat: Seat | None,
    seats: int,
) -> Iterator[dict[str, JSON]]:
    """The event frames ``since + 1 …`` for a seat coming back, exactly as they were sent
    live: each move's facts are those of its state and its own timers (:meth:`Clocks.of`),
    seen through the seat's eyes, never the table's current timers."""
    before: JSON = None
    told: Facts | None = None
    for state, step, caused in states:
        n = 0 if step is None else step.n
        if n <= since:
            if n == since:
                before = view(game, state, seat)
                if step is not None:
                    told = Shared(game, state, Clocks.of(step, seats)).facts(seat)
            continue
        assert step is not None
        after = view(game, state, seat)
        events = observed(game, caused, seat)
        mover, _ = game.public_move(state, step.seat, step.move, seat)
        facts = Shared(game, state, Clocks.of(step, seats)).facts(seat)
        yield event(table_id, step, mover, events, patch(before, after, events), facts, told)
        before, told = after, facts


def history(
    game: Game[Any, Any, Any],
    states: Iterator[tuple[Any, Step | None, tuple[Event, ...]]],
    seat: Seat | None,
    *,
    table: Mapping[str, JSON],
    seed: int,
    options: JSON,
    ended: JSON = None,
) -> dict[str, JSON]:
    """A finished table's moves, what ``seat`` saw of each, and its view after each move."""
    moves: list[JSON] = []
    events: list[JSON] = []
    views: list[JSON] = []
    state: Any = None
    for state, step, caused in states:
        views.append(game.view(state, seat))
        if step is None:
            continue
        mover, move = game.public_move(state, step.seat, step.move, seat)
        moves.append(
            {
                "n": step.n,
                "seat": mover,
                "move": move,
                "at": iso(step.at),
                "actor": step.actor if mover == step.seat else None,
            }
        )
        events.append(observed(game, caused, seat))
    outcome = game.result(state) if state is not None else None
    return {
        "table": table,
        "seed": seed,
        "options": options,
        "seat": seat,
        "moves": moves,
        "events": events,
        "views": views,
        "result": outcome.to_json() if outcome else ended,
    }
