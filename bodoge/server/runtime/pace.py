"""How fast bots play: a think time per bot level and pace, and the reaction window.

A table's ``bot_pace`` setting (chosen by its host) is one of :data:`PACES`.
The server alone decides when a bot's move is made: the think time is drawn
from the server's own random source, never from the game's seeded one, and the
bot's move itself does not depend on it.

* **fast** is the speed bots had before paces existed: half a second per
  move, no reaction window — for bot-only games and tests.
* **normal** (the default): a bot waits a few seconds before it moves, like a
  person reading the board — easy 2–4 s, normal 2.5–5 s, expert 3–6 s (the
  expert "thinks longest"); a level a game names otherwise takes 2.5–5 s.
* **slow**: twice as long, for newcomers.

The **reaction window** is for races (:meth:`bodoge.core.game.Game.contested`):
a Tagiron declaration with 3–4 players wins a place for whoever makes it first.
A bot is certain the moment an answer makes it so, while a person must read
the answer, see that only one combination is left and click four times to
declare — about five seconds.  So at a table where a person sits, a bot holds
such a move until the window has passed since the last move (the event that
made it certain, or a later one): 5 s at the normal pace, 8 s at the slow one,
none at the fast one.

At a **turn-based** table (:mod:`.turns`) every bot plays at the ``turn`` pace: it moves
one to five minutes after its turn came, and it holds a race for the table's whole time
per move after the last move, so no person who looks at the game once within their own
time per move is ever beaten to it.

>>> import random
>>> r = random.Random(1)
>>> 3.0 <= PACE_TABLE["normal"].think_seconds("expert", r) <= 6.0
True
>>> PACE_TABLE["fast"].think_seconds("expert", r), PACE_TABLE["slow"].reaction_seconds
(0.5, 8.0)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

FAST, NORMAL, SLOW = "fast", "normal", "slow"
#: The pace of every bot at a turn-based table (``settings.turn_based``), whatever its
#: ``bot_pace``: not a host's choice, so not among :data:`PACES`.
TURN = "turn"
#: The paces a table may have, from the fastest.
PACES: tuple[str, ...] = (FAST, NORMAL, SLOW)
DEFAULT_PACE = NORMAL


@dataclass(frozen=True)
class Pace:
    """One pace: the think time range of each bot level (seconds) and the reaction window."""

    #: (shortest, longest) think time per level; ``default`` for a level not listed.
    think: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    default: tuple[float, float] = (0.0, 0.0)
    #: Seconds a bot holds a contested move after the last move, when a person sits at the table.
    reaction_seconds: float = 0.0

    def think_seconds(self, level: str, rng: random.Random) -> float:
        """How long a bot of ``level`` waits before it moves, drawn uniformly from its range."""
        low, high = self.think.get(level, self.default)
        return low if high <= low else rng.uniform(low, high)


def _scaled(think: Mapping[str, tuple[float, float]], by: float) -> dict[str, tuple[float, float]]:
    return {level: (low * by, high * by) for level, (low, high) in think.items()}


_NORMAL_THINK = {"easy": (2.0, 4.0), "normal": (2.5, 5.0), "expert": (3.0, 6.0)}

#: Every pace by name.  ``ServerConfig.paces`` may replace it (tests shorten the times).
PACE_TABLE: Mapping[str, Pace] = {
    FAST: Pace(default=(0.5, 0.5)),
    NORMAL: Pace(_NORMAL_THINK, (2.5, 5.0), 5.0),
    SLOW: Pace(_scaled(_NORMAL_THINK, 2), (5.0, 10.0), 8.0),
    # Within minutes, as a friend who looks at the game now and then; its reaction window
    # is the table's whole time per move (``TableBots.reaction_wait``), not this.
    TURN: Pace(default=(60.0, 300.0)),
}


def fixed(seconds: float) -> Pace:
    """Every bot waits exactly ``seconds`` and nothing is held (``bodoge serve --bot-delay``)."""
    return Pace(default=(seconds, seconds))
