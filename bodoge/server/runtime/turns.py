"""Turn-based tables: a game that runs for days, each person moving when they have a minute.

A host makes a table turn-based at creation (the setting ``turn_based``: the time per
move, one of :data:`MOVE_SECONDS`); it cannot change once the game has started.  The rest
of the runtime treats it as a turn limit of hours instead of seconds — the deadlines are
the ones every move stores (so they survive restarts) — plus the rules here, pure:

* **the game's own rules** for turn-based play come from the game
  (``Game.turn_based_options``: Tagiron's declarations on one's own turn, Illustori's vote
  limit of a move's time), stored with the table's options when it is made;
* **the bots** play at the ``turn`` pace (:mod:`.pace`: within minutes), and a race they
  would run (``Game.contested``) is held for a whole move's time after the last move;
* **a late move** is played by the stand-in (the table's ``timeout_bot``, through
  ``Game.stand_in``: it wins nothing the person did not) as in real time;
* **absent**: a person whose last ``ServerConfig.absent_after_timeouts`` (3) turns in a row
  all ran out, or who has not moved for ``ServerConfig.absent_after_seconds`` (7 days) and
  ran out of time since, is *absent* (:func:`absent_seats`): while they do not have the
  table open, each of their turns is played by the stand-in at once, so that the others do
  not wait days for nobody.  A move of their own makes them present again.  When every
  person at a table is absent, the game ends as abandoned (nobody placed, no rating change);
* **vacation**: a person on vacation (:func:`vacation_after`, at most
  ``ServerConfig.vacation_days_per_year`` (30) days a calendar year) has no turn running
  out: a turn that comes, or would run out, during it gets its whole time per move from the
  vacation's end;
* **abandoned**: a game at which no person has moved for ``ServerConfig.turn_abandon_seconds``
  (14 days) ends as abandoned, as a real-time game nobody watched for a day does.

The numbers are the operator's (``bodoge serve --absent-after-timeouts``,
``--absent-after-days``, ``--turn-abandon-days``, ``--vacation-days``; docs/deploy.md); the
constants below are their defaults.

>>> from bodoge.server.runtime.render import Step
>>> from bodoge.core.game import Move
>>> steps = [Step(n, 0, Move(), n * 1000, "timeout") for n in range(1, 4)]
>>> absent_seats(steps, {0, 1}, now=4_000)
frozenset({0})
>>> absent_seats([*steps, Step(4, 0, Move(), 5_000, "player")], {0, 1}, now=6_000)
frozenset()
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from bodoge.core.game import Seat
from bodoge.store import VacationRecord

if TYPE_CHECKING:
    from bodoge.server.runtime.render import Step

HOUR = 3600
DAY = 24 * HOUR
#: The times per move a host may choose, in seconds: 1 hour, 12 hours, 1 day, 3 days.
MOVE_SECONDS: tuple[int, ...] = (HOUR, 12 * HOUR, DAY, 3 * DAY)
# The defaults of the operator's settings (``ServerConfig``, ``bodoge serve`` options):
#: Turns in a row run out after which a person is absent.
ABSENT_AFTER_TIMEOUTS = 3
#: Days without a move of one's own after which a person who ran out of time is absent.
ABSENT_AFTER_DAYS = 7
#: Days of vacation a person may take in one calendar year (UTC), and at once.
VACATION_DAYS_PER_YEAR = 30
#: Days without a move by any person after which a turn-based game is abandoned.
ABANDON_AFTER_DAYS = 14


def absent_seats(
    steps: Sequence[Step],
    humans: Collection[Seat],
    now: int,
    *,
    timeouts: int = ABSENT_AFTER_TIMEOUTS,
    away_ms: int = ABSENT_AFTER_DAYS * DAY * 1000,
) -> frozenset[Seat]:
    """The seats of people who are absent after ``steps`` (a table's moves, in order).

    A seat is absent when its last ``timeouts`` moves were all played for it by the
    stand-in (``actor == "timeout"``) with no move of its own since, or when it ran out of
    time at least once since its last own move (or the start) and that was ``away_ms`` ago
    or more.

    >>> from bodoge.server.runtime.render import Step
    >>> from bodoge.core.game import Move
    >>> twice = [Step(n, 0, Move(), n * 1000, "timeout") for n in (1, 2)]
    >>> absent_seats(twice, {0}, now=3_000), absent_seats(twice, {0}, now=3_000, timeouts=2)
    (frozenset(), frozenset({0}))
    >>> absent_seats(twice, {0}, now=3_000, away_ms=2_000)  # ran out, and away since 1_000
    frozenset({0})
    """
    absent: set[Seat] = set()
    for seat in humans:
        ran_out = 0
        last_own: int | None = None
        for step in reversed(steps):
            if step.seat != seat:
                continue
            if step.actor == "timeout":
                ran_out += 1
            elif step.actor == "player":
                last_own = step.at
                break
        # Without a move of one's own, the days away count from the game's first move.
        since = last_own if last_own is not None else steps[0].at if steps else now
        away = now - since >= away_ms
        if ran_out >= timeouts or (ran_out and away):
            absent.add(seat)
    return frozenset(absent)


def year_of(ms: int) -> int:
    return datetime.fromtimestamp(ms / 1000, UTC).year


def days_left(
    vacation: VacationRecord | None, now: int, per_year: int = VACATION_DAYS_PER_YEAR
) -> int:
    """Days of vacation the player may still take this year, of ``per_year``.

    >>> days_left(None, 0), days_left(VacationRecord("p", None, 1970, 12), 0)
    (30, 18)
    >>> days_left(VacationRecord("p", None, 1969, 30), 0), days_left(None, 0, per_year=10)
    (30, 10)
    >>> days_left(VacationRecord("p", None, 1970, 12), 0, per_year=10)  # the operator lowered it
    0
    """
    if vacation is None or vacation.year != year_of(now):
        return per_year
    return max(0, per_year - vacation.days_used)


class VacationRefused(ValueError):
    """A vacation the rules do not allow; the message says why."""


def vacation_after(
    player_id: str,
    vacation: VacationRecord | None,
    days: int | None,
    now: int,
    per_year: int = VACATION_DAYS_PER_YEAR,
) -> VacationRecord:
    """The player's vacation record after asking for ``days`` of vacation from now
    (``None``: end the one running), with ``per_year`` days a year.  Days are counted when a
    vacation begins; ending one early gives back its whole days not begun.

    >>> v = vacation_after("p", None, 3, now=0)
    >>> v.until, v.days_used
    (259200000, 3)
    >>> vacation_after("p", v, None, now=DAY * 1000 + 1).days_used
    2
    >>> vacation_after("p", v, 40, now=3 * DAY * 1000)
    Traceback (most recent call last):
    ...
    bodoge.server.runtime.turns.VacationRefused: a vacation is 1-27 whole days (27 left this year)
    >>> vacation_after("p", v, 1, now=0)
    Traceback (most recent call last):
    ...
    bodoge.server.runtime.turns.VacationRefused: a vacation is running: end it first
    >>> vacation_after("p", None, 1, now=0, per_year=0)
    Traceback (most recent call last):
    ...
    bodoge.server.runtime.turns.VacationRefused: no vacation days are left this year
    """
    year = year_of(now)
    used = vacation.days_used if vacation is not None and vacation.year == year else 0
    running = vacation is not None and vacation.until is not None and vacation.until > now
    if days is None:
        if not running:
            raise VacationRefused("no vacation is running")
        assert vacation is not None and vacation.until is not None
        unused = (vacation.until - now) // (DAY * 1000)
        return VacationRecord(player_id, now, year, max(0, used - unused))
    if running:
        raise VacationRefused("a vacation is running: end it first")
    left = max(0, per_year - used)
    if left < 1:
        raise VacationRefused("no vacation days are left this year")
    if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= left:
        raise VacationRefused(f"a vacation is 1-{left} whole days ({left} left this year)")
    return VacationRecord(player_id, now + days * DAY * 1000, year, used + days)
