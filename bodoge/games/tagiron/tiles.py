"""Tagiron's twenty number tiles and their codes.

Numbers 0–9 come twice: one red and one blue, except both 5s, which are
green.  A tile is named by its code everywhere (``R0``..``R9``, ``B0``..``B9``
without ``R5``/``B5``, and ``G5``); the two green 5s are alike, so ``G5`` may
appear twice in a hand.

A hand stands in ascending order, red before blue on equal numbers:

>>> sort_hand(["B3", "G5", "R3", "B0", "G5"])
('B0', 'R3', 'B3', 'G5', 'G5')
>>> number("G5"), colour("B7")
(5, 'B')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

COLOUR_ORDER = {"R": 0, "G": 1, "B": 2}

#: Every physical tile, in hand order.
ALL_TILES: tuple[str, ...] = tuple(
    code for n in range(10) for code in (("G5", "G5") if n == 5 else (f"R{n}", f"B{n}"))
)

#: The distinct tile codes (19: the green 5s are alike), in hand order.
TILE_CODES: tuple[str, ...] = tuple(dict.fromkeys(ALL_TILES))

#: How many physical tiles carry each code.
COPIES: dict[str, int] = dict(Counter(ALL_TILES))


def is_tile(code: object) -> bool:
    return isinstance(code, str) and code in COPIES


def number(code: str) -> int:
    return int(code[1])


def colour(code: str) -> str:
    """``"R"``, ``"B"`` or ``"G"``."""
    return code[0]


def sort_key(code: str) -> tuple[int, int]:
    return number(code), COLOUR_ORDER[colour(code)]


def sort_hand(tiles: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(tiles, key=sort_key))


def is_possible_set(tiles: Iterable[str]) -> bool:
    """Whether the tiles could all exist at once (no code more often than it has copies)."""
    counts = Counter(tiles)
    return all(is_tile(code) and n <= COPIES[code] for code, n in counts.items())
