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
    unknown = set(raw) - {"players"}
    if unknown:
        raise BadOptions(f"unknown Tagiron option: {sorted(unknown)[0]}")
    return TagironOptions(players=raw.get("players", 2))


def options_to_json(options: TagironOptions) -> dict[str, Any]:
    """Options as stored and shown: every key, defaults included."""
    return {"players": options.players}
