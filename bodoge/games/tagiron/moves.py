"""Tagiron moves and their JSON form.

Every move is a small frozen dataclass; its JSON form carries a ``type``.

>>> move_from_json({"type": "ask", "card": "where_6or7", "choice": 7})
Ask(card='where_6or7', choice=7)
>>> move_to_json(Declare(("R1", "B1", "R3", "B8", "R9")))
{'type': 'declare', 'tiles': ['R1', 'B1', 'R3', 'B8', 'R9']}
>>> move_from_json(move_to_json(Pass()))
Pass()
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bodoge.core.errors import BadMove
from bodoge.core.game import Move
from bodoge.core.values import is_whole


@dataclass(frozen=True)
class Ask(Move):
    """Ask the face-up question ``card`` (``choice``: the number picked on a choice card)."""

    card: str
    choice: int | None = None


@dataclass(frozen=True)
class Declare(Move):
    """Name the target: the opponent's tiles in order (2 players) or the centre set (3–4)."""

    tiles: tuple[str, ...]


@dataclass(frozen=True)
class Pass(Move):
    """Give up a turn in which one may only declare or pass."""


TagironMove = Ask | Declare | Pass


def move_from_json(data: Mapping[str, Any]) -> TagironMove:
    """Parse a move sent by a client; raises ``BadMove`` for any other shape.

    Only the shape is checked here: whether the card exists, is face up or
    takes that choice is for :func:`bodoge.games.tagiron.rules.apply`.

    >>> move_from_json({"type": "ask", "card": "red_sum", "choice": "one"})
    Traceback (most recent call last):
    ...
    bodoge.core.errors.BadMove: ask needs a card id and an optional integer choice
    """
    if not isinstance(data, Mapping):
        raise BadMove("a move is a JSON object")
    kind = data.get("type")
    try:
        if kind == "ask":
            _only(data, {"type", "card", "choice"})
            card, choice = data["card"], data.get("choice")
            if not isinstance(card, str) or not (choice is None or is_whole(choice)):
                raise BadMove("ask needs a card id and an optional integer choice")
            return Ask(card, choice)
        if kind == "declare":
            _only(data, {"type", "tiles"})
            tiles = data["tiles"]
            if not isinstance(tiles, list) or not all(isinstance(t, str) for t in tiles):
                raise BadMove("declare needs a list of tile codes")
            return Declare(tuple(tiles))
        if kind == "pass":
            _only(data, {"type"})
            return Pass()
    except KeyError as exc:
        raise BadMove(f"{kind} needs {exc.args[0]!r}") from None
    raise BadMove(f"unknown Tagiron move type {kind!r}")


def move_to_json(move: Move) -> dict[str, Any]:
    """The stored form of a move; :func:`move_from_json` reads it back unchanged."""
    if isinstance(move, Ask):
        return {"type": "ask", "card": move.card, "choice": move.choice}
    if isinstance(move, Declare):
        return {"type": "declare", "tiles": list(move.tiles)}
    if isinstance(move, Pass):
        return {"type": "pass"}
    raise BadMove(f"not a Tagiron move: {move!r}")


def _only(data: Mapping[str, Any], keys: set[str]) -> None:
    extra = set(data) - keys
    if extra:
        raise BadMove(f"unexpected field {sorted(extra)[0]!r}")
