"""Missed chances to declare, for the game review: one charge per chance a seat really had.

With 2 players a seat may declare only on its own turn, so each own turn on
which it was certain and asked or passed instead is a chance missed.

With 3–4 players anyone may declare at any moment, so a stretch of moments in
which the seat could declare and should have (certain, or past the point
where the expert would gamble) is *one* chance, however many moves it lasted:
a *window*.  It is charged once, and only if the seat really had it — if,
inside the window, the seat's own turn came (it asked or passed instead), or
another seat moved at least :data:`REACTION_SECONDS` after the move that opened
the window: the time the table itself gives a person to read an answer, see
that one combination is left and declare (the server's reaction window,
``bodoge.server.runtime.pace``, at the normal pace).  A bot declaring a tenth
of a second after the answer took nothing from a person.  A history without
the moves' times (a selfplay game) counts instead any question or pass by
another seat but the first in the window: that one may simply have been
quicker.  Other seats' declarations do not count there: they race to the same
answer (in selfplay the seats that may declare are asked before the seat
whose turn it is, so a seat certain on its own turn sees the others declare
first).

The charge is :data:`MISSED_COST` points times the chance the seat's likeliest
target had then: 10 for a certainty, 5 for a 50% gamble the expert would have
taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bodoge.core.game import Seat
from bodoge.core.values import JSON

#: Seconds a person needs to declare once an answer makes it possible (the
#: server's reaction window at the normal pace; a test keeps the two equal).
REACTION_SECONDS = 5.0
#: Points off the score for a missed chance, times the chance of the tiles then.
MISSED_COST = 10


@dataclass(frozen=True)
class MissedChance:
    """Move ``n`` was made while the seat could and should have declared, and it had had
    the chance to; the window of that chance ran from the moment after move ``opened``."""

    n: int
    probability: float
    certain: bool
    opened: int
    #: Why it counts: "own_turn" (the seat asked or passed instead), "waited" (another
    #: seat moved after the reaction window), "later" (a further move, no times known).
    why: str

    @property
    def cost(self) -> float:
        return MISSED_COST * self.probability

    def to_json(self) -> dict[str, JSON]:
        return {
            "n": self.n,
            "probability": round(self.probability, 6),
            "certain": self.certain,
            "opened": self.opened,
            "why": self.why,
            "cost": round(self.cost, 3),
        }


@dataclass(frozen=True)
class Moment:
    """The moment after ``t`` moves, for one seat, and the move made from it."""

    t: int
    #: Whether the seat could declare then and should have.
    should: bool
    probability: float
    certain: bool
    #: The seat that made move ``t + 1`` and its kind ("question", "pass", "declaration").
    mover: Seat | None
    kind: str | None


def missed_chances(
    players: int,
    seat: Seat,
    moments: Sequence[Moment],
    times: Sequence[float | None] | None = None,
) -> list[MissedChance]:
    """The chances ``seat`` missed; ``times[i]``: when move ``i + 1`` was made (seconds)."""
    out: list[MissedChance] = []
    if players == 2:
        for m in moments:
            if m.should and m.mover == seat and m.kind != "declaration":
                out.append(MissedChance(m.t + 1, m.probability, m.certain, m.t, "own_turn"))
        return out
    window: list[Moment] = []
    ends: list[Moment | None] = [*moments, None]  # None: the end closes the last window
    for moment in ends:
        if moment is not None and moment.should:
            window.append(moment)
            continue
        if window:
            found = _charge(seat, window, times)
            if found is not None:
                out.append(found)
            window = []
    return out


def _time(times: Sequence[float | None] | None, move: int) -> float | None:
    """When move ``move`` (from 1) was made, if known."""
    if times is None or not 1 <= move <= len(times):
        return None
    return times[move - 1]


def _charge(
    seat: Seat, window: Sequence[Moment], times: Sequence[float | None] | None
) -> MissedChance | None:
    """The one charge of a window: at its first move that shows the seat had the chance."""
    opened = window[0].t
    start = _time(times, opened)
    others = 0  # questions and passes by other seats so far in the window
    for m in window:
        if m.mover is None:
            break
        if m.mover == seat:
            if m.kind == "declaration":
                return None  # declared within the window: nobody moved past it in time
            return MissedChance(m.t + 1, m.probability, m.certain, opened, "own_turn")
        at = _time(times, m.t + 1)
        if start is not None and at is not None:
            if at - start >= REACTION_SECONDS:
                return MissedChance(m.t + 1, m.probability, m.certain, opened, "waited")
            continue
        if m.kind == "declaration":
            continue  # a race to the same answer: no sign the seat had time
        others += 1
        if others > 1:
            return MissedChance(m.t + 1, m.probability, m.certain, opened, "later")
    return None
