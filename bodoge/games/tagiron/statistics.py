"""What a player did in a game of Tagiron, as counts a profile adds up over games.

* ``questions`` — questions the seat asked;
* ``right`` — 1 if the seat declared right (in 2 players, the declaration or the final
  declaration; in 3–4, its place among the right declarations), else 0;
* ``questions_to_right`` — the questions it asked before that right declaration (0 when
  it never declared right), so that ``questions_to_right / right`` over a player's games
  is the mean number of questions they needed.

All of it is in the public log, which everyone sees during the game.
"""

from __future__ import annotations

from bodoge.core.game import Seat, StatField
from bodoge.games.tagiron.events import Asked, Declared
from bodoge.games.tagiron.state import TagironState

FIELDS = (
    StatField("right", "count", "tg.stat.right"),
    StatField(
        "questions_to_right", "mean", "tg.stat.questions_to_right", ("questions_to_right", "right")
    ),
    StatField("questions", "count", "tg.stat.questions"),
)


def statistics(state: TagironState, seat: Seat) -> dict[str, int]:
    """The counts of ``seat`` in the game as it stands in ``state``."""
    asked = 0
    before_right: int | None = None
    for entry in state.log:
        if entry.seat != seat:
            continue
        if isinstance(entry, Asked):
            asked += 1
        elif isinstance(entry, Declared) and entry.right and before_right is None:
            before_right = asked
    return {
        "questions": asked,
        "right": int(before_right is not None),
        "questions_to_right": before_right or 0,
    }
