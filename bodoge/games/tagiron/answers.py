"""The answer to every question card: the single source of truth.

The engine, the solver and the protocol all call :func:`answer`.  Tiles are
given in hand order (ascending, red before blue), positions are 1-based from
the owner's left, and answers have these JSON shapes:

* numbers: an ``int``;
* positions: a list of positions, ``[]`` for none;
* runs: a list of ``[first, last]`` position pairs;
* ``centre_high_low``: ``"high"`` (5 or more) or ``"low"``.

>>> answer("red_sum", ["R1", "B1", "R3", "B8", "R9"])
13
>>> answer("max_minus_min", ["R0", "B2", "G5", "R6", "B6"])
6
>>> answer("consecutive_runs", ["R0", "B1", "G5", "R6", "B9"])
[[1, 2], [3, 4]]
>>> answer("where_6or7", ["R0", "B1", "G5", "R6", "B6"], choice=6)
[4, 5]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.errors import BadChoice, UnknownCard
from bodoge.games.tagiron.tiles import colour, number

Answer = Any  # int | list[int] | list[list[int]] | str, JSON-ready


def _runs(tiles: Sequence[str], linked: Callable[[str, str], bool]) -> list[list[int]]:
    """Maximal runs of two or more neighbours in which each pair is ``linked``."""
    runs: list[list[int]] = []
    start = 0
    for i in range(1, len(tiles) + 1):
        if i == len(tiles) or not linked(tiles[i - 1], tiles[i]):
            if i - start >= 2:
                runs.append([start + 1, i])
            start = i
    return runs


def _positions(tiles: Sequence[str], n: int) -> list[int]:
    return [i + 1 for i, t in enumerate(tiles) if number(t) == n]


def _numbers(tiles: Sequence[str]) -> list[int]:
    return [number(t) for t in tiles]


def _pairs(tiles: Sequence[str]) -> int:
    numbers = _numbers(tiles)
    return sum(1 for n in set(numbers) if numbers.count(n) == 2)


def _mid3(tiles: Sequence[str]) -> int:
    start = (len(tiles) - 3) // 2
    return sum(_numbers(tiles[start : start + 3]))


_NUMBER: dict[str, Callable[[Sequence[str]], Answer]] = {
    "total_sum": lambda t: sum(_numbers(t)),
    "low3_sum": lambda t: sum(_numbers(t[:3])),
    "mid3_sum": _mid3,
    "high3_sum": lambda t: sum(_numbers(t[-3:])),
    "red_sum": lambda t: sum(number(x) for x in t if colour(x) == "R"),
    "blue_sum": lambda t: sum(number(x) for x in t if colour(x) == "B"),
    "max_minus_min": lambda t: max(_numbers(t)) - min(_numbers(t)),
    "odd_count": lambda t: sum(n % 2 for n in _numbers(t)),
    "even_count": lambda t: sum(1 - n % 2 for n in _numbers(t)),
    "pairs": _pairs,
    "red_count": lambda t: sum(colour(x) == "R" for x in t),
    "blue_count": lambda t: sum(colour(x) == "B" for x in t),
    "where_0": lambda t: _positions(t, 0),
    "where_5": lambda t: _positions(t, 5),
    "same_colour_runs": lambda t: _runs(t, lambda a, b: colour(a) == colour(b)),
    "consecutive_runs": lambda t: _runs(t, lambda a, b: number(b) == number(a) + 1),
    "centre_high_low": lambda t: "high" if number(t[len(t) // 2]) >= 5 else "low",
}


def check_choice(card_id: str, choice: int | None) -> None:
    """Raise unless ``choice`` fits the card: one of its two numbers, or ``None``."""
    card = CARDS.get(card_id)
    if card is None:
        raise UnknownCard(f"no question card {card_id!r}")
    if card.choices is None:
        if choice is not None:
            raise BadChoice(f"{card_id} takes no choice")
    elif isinstance(choice, bool) or choice not in card.choices:
        a, b = card.choices
        raise BadChoice(f"{card_id} needs a choice of {a} or {b}")


def answer(card_id: str, tiles: Sequence[str], choice: int | None = None) -> Answer:
    """The answer a holder of ``tiles`` (in hand order) gives to a question card."""
    check_choice(card_id, choice)
    if choice is not None:
        return _positions(tiles, choice)
    return _NUMBER[card_id](tiles)
