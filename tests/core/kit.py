"""What a game gives the contract harness: random play and a secrecy oracle, nothing more.

Each game's kit lives beside its own tests (``tests/games/<id>/kit.py``) and is
listed in :data:`tests.core.harness.KITS`; the harness (``tests/core/test_contract.py``)
checks the :class:`~bodoge.core.game.Game` contract with it.  A kit knows its
game's rules; the harness knows only the contract.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bodoge.core.game import Event, Game, Move, Seat
from bodoge.core.values import JSON


@dataclass(frozen=True)
class Secrets:
    """A secrecy oracle: what may differ without a seat being able to tell.

    ``state(state, seat, rng)`` is a *twin* of ``state``: the same game with
    everything ``seat`` (``None``: a spectator) may not see drawn afresh —
    other hands redealt, other votes changed — and everything else as it was.
    ``event(event, seat, rng)`` is likewise a twin of one event.  A twin need not
    be a state the rules could reach; it only has to keep all that ``seat``
    may know.  The harness checks that a seat's view, the facts it is told
    and what it sees of each event are the same for a state (or event) and its
    twin: then they cannot hold what was drawn afresh.
    """

    state: Callable[[Any, Seat | None, random.Random], Any]
    event: Callable[[Event, Seat | None, random.Random], Event]


@dataclass(frozen=True)
class GameKit:
    """One game as the harness plays it.

    ``game`` is the game object (for a registered game, the registry's own);
    ``table(rng)`` the raw options of a random table; ``move(state, rng)`` a
    random move, right or wrong, by a seat that may act (or by the table,
    ``None``, when a rule clock runs) — mostly right, so that games go on and
    end; ``secrets`` the oracle, or ``None`` for a game whose state hides
    nothing from anyone.
    """

    game: Game
    table: Callable[[random.Random], Mapping[str, JSON]]
    move: Callable[[Any, random.Random], tuple[Seat | None, Move]]
    secrets: Secrets | None
