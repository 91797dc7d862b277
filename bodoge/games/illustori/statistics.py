"""What a player did in a game of Illustori, as counts a profile adds up over games.

* ``played`` — words the seat played on a card (the first word, which the giver names
  for the table and nobody votes on, does not count);
* ``accepted`` — those of them the table's vote let join the chain (a word that broke a
  rule, a penalty, never came to a vote and is not accepted).

Every play and every verdict is in the table's log, which everyone sees.
"""

from __future__ import annotations

from bodoge.core.game import Seat, StatField
from bodoge.games.illustori.events import CardPlayed, VoteResolved
from bodoge.games.illustori.state import IllustoriState

FIELDS = (
    StatField("played", "count", "il.stat.played"),
    StatField("accepted", "count", "il.stat.accepted"),
    StatField("acceptance", "share", "il.stat.acceptance", ("accepted", "played")),
)


def statistics(state: IllustoriState, seat: Seat) -> dict[str, int]:
    """The counts of ``seat`` in the game as it stands in ``state``."""
    played = sum(1 for e in state.log if isinstance(e, CardPlayed) and e.seat == seat)
    accepted = sum(
        1 for e in state.log if isinstance(e, VoteResolved) and e.seat == seat and e.passed
    )
    return {"played": played, "accepted": accepted}
