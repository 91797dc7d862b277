"""When turn limits and rule clocks run out: pure rules, plus one alarm per table.

Deadlines are wall-clock milliseconds, stored with each move, so that a
restarted server resumes the time that was left instead of starting again.

A seat's turn starts when it becomes awaited, or when it is still awaited
after its own move; a move by someone else (an out-of-turn declaration, a
vote) leaves the running turns alone:

>>> next_deadlines({0: 5_000}, before={0}, after={0}, actor=2, humans={0, 1, 2},
...                now=1_000, turn_ms=60_000)
{0: 5000}
>>> next_deadlines({0: 5_000}, before={0}, after={1}, actor=0, humans={0, 1},
...                now=1_000, turn_ms=60_000)
{1: 61000}
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from bodoge.core.game import Clock, Seat
from bodoge.server.runtime import clock


def next_deadlines(
    old: Mapping[Seat, int],
    *,
    before: Collection[Seat],
    after: Collection[Seat],
    actor: Seat | None,
    humans: Collection[Seat],
    now: int,
    turn_ms: int | None,
) -> dict[Seat, int]:
    """Turn deadlines after a move: only people (not bots) have a turn limit."""
    if turn_ms is None:
        return {}
    deadlines: dict[Seat, int] = {}
    for seat in sorted(after):
        if seat not in humans:
            continue
        if seat in old and seat in before and seat != actor:
            deadlines[seat] = old[seat]
        else:
            deadlines[seat] = now + turn_ms
    return deadlines


def next_clock_deadline(
    old_clock: Clock[Any] | None, new_clock: Clock[Any] | None, old_deadline: int | None, now: int
) -> int | None:
    """A rule clock keeps running while the game reports the same clock; a new one restarts.

    >>> from bodoge.core.game import Clock, Move
    >>> c = Clock(25, Move())
    >>> next_clock_deadline(None, c, None, now=0), next_clock_deadline(c, c, 25_000, now=9)
    (25000, 25000)
    """
    if new_clock is None:
        return None
    if old_clock == new_clock and old_deadline is not None:
        return old_deadline
    return now + round(new_clock.seconds * 1000)


class Alarm:
    """One pending wake-up (the earliest deadline of a table); setting it again replaces it."""

    def __init__(self, callback: Callable[[], None]) -> None:
        self._callback = callback
        self._handle: clock.Wakeup | None = None
        self.at: int | None = None

    def set(self, at_ms: int | None) -> None:
        if at_ms == self.at and self._handle is not None:
            return
        self.cancel()
        if at_ms is None:
            return
        self.at = at_ms
        self._handle = clock.clock().call_at(at_ms, self._fire)

    def _fire(self) -> None:
        self._handle = None
        self.at = None
        self._callback()

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle = None
        self.at = None

    def close(self) -> None:
        """Cancel for good and let go of the callback (which holds the table: a cycle)."""
        self.cancel()
        self._callback = _ignore


def _ignore() -> None:
    pass
