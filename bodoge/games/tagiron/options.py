"""Tagiron table options: how many play.

>>> o = parse_options({"players": 3})
>>> (o.players, o.hand_size, options_to_json(o))
(3, 5, {'players': 3})
>>> parse_options(options_to_json(o)) == o
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bodoge.core.errors import BadOptions
from bodoge.core.values import is_whole

MIN_PLAYERS = 2
MAX_PLAYERS = 4


def hand_size(players: int) -> int:
    """Tiles in each hand (and in the centre): 5, or 4 with 4 players.

    >>> [hand_size(n) for n in (2, 3, 4)]
    [5, 5, 4]
    """
    return 4 if players == 4 else 5


@dataclass(frozen=True)
class TagironOptions:
    """Validated options; build them with :func:`parse_options` (or directly)."""

    players: int = 2
    #: With 3–4 players, declarations only on one's own turn: a turn-based table's rule
    #: (``Game.turn_based_options``), where an out-of-turn race would go to whoever looked
    #: at their phone first.  With 2 players one declares on one's turn anyway.
    own_turn_declarations: bool = False

    def __post_init__(self) -> None:
        if not is_whole(self.players) or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise BadOptions("Tagiron is for 2, 3 or 4 players")

    @property
    def hand_size(self) -> int:
        return hand_size(self.players)


def parse_options(raw: Mapping[str, Any] | None = None) -> TagironOptions:
    """Options from a table's settings, strictly checked, with defaults filled in.

    >>> parse_options({"players": 5})
    Traceback (most recent call last):
    ...
    bodoge.core.errors.BadOptions: Tagiron is for 2, 3 or 4 players
    """
    raw = dict(raw or {})
    unknown = set(raw) - {"players", "own_turn_declarations"}
    if unknown:
        raise BadOptions(f"unknown Tagiron option: {sorted(unknown)[0]}")
    own_turn = raw.get("own_turn_declarations", False)
    if not isinstance(own_turn, bool):
        raise BadOptions(f"option own_turn_declarations must be true or false, not {own_turn!r}")
    return TagironOptions(players=raw.get("players", 2), own_turn_declarations=own_turn)


def options_to_json(options: TagironOptions) -> dict[str, Any]:
    """Options as stored and shown: every key, defaults included — but
    ``own_turn_declarations`` only when on (a turn-based table's), so that a real-time
    table's options read as they always did.

    >>> options_to_json(TagironOptions(3, own_turn_declarations=True))
    {'players': 3, 'own_turn_declarations': True}
    """
    if options.own_turn_declarations:
        return {"players": options.players, "own_turn_declarations": True}
    return {"players": options.players}
