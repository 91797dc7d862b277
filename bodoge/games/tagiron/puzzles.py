"""Tagiron's puzzles as the server sees them: what a solver is shown, and whether an answer is
right.  How they are made is :mod:`.puzzle_make` (the solver and the bots; never loaded by
the server).  The kinds:

* ``declare``: exactly one hand fits: name it (``{"tiles": [...]}``, any order);
* ``question``: one face-up question is clearly the best: pick it (``{"card", "choice"}``);
* ``count``: how many hands still fit (``{"count": n}``, right within :func:`tolerance`);
* ``tile``: which tile is certain at a position of the hidden hand (``{"tile": code}``).

>>> book = TagironPuzzles()
>>> data = {"kind": "count", "players": 2, "solution": {"count": 20, "low": 18, "high": 22},
...         "explanation": {}}
>>> book.judge(data, {"count": 21}).right, book.judge(data, {"count": 23}).right
(True, False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bodoge.core.puzzles import MakeReport, Progress, PuzzleAnswerError, PuzzleBook, Verdict
from bodoge.core.values import JSON
from bodoge.games.tagiron.options import hand_size
from bodoge.games.tagiron.tiles import is_possible_set, is_tile, sort_hand

KINDS = ("declare", "question", "count", "tile")
#: A ``count`` answer may be off by this share of the true count (rounded), and no more.
COUNT_TOLERANCE = 0.1

Variant = tuple[str, int | None]


def tolerance(count: int) -> int:
    """How far a ``count`` answer may be from the true count and still be right: a tenth of
    it, rounded down (a count under ten must be exact).

    >>> [tolerance(n) for n in (3, 9, 10, 19, 20, 150)]
    [0, 0, 1, 1, 2, 15]
    """
    return count // round(1 / COUNT_TOLERANCE)


class TagironPuzzles(PuzzleBook):
    kinds = KINDS

    def make(
        self, count: int, seed: int, *, jobs: int = 1, progress: Progress | None = None
    ) -> MakeReport:
        # the solver and the bots load only where puzzles are made, never in the server
        from bodoge.games.tagiron.puzzle_make import make

        return make(count, seed, jobs=jobs, progress=progress)

    def public(self, data: Mapping[str, JSON]) -> dict[str, JSON]:
        return {k: data[k] for k in ("kind", "players", "position", "ask")}

    def judge(self, data: Mapping[str, JSON], answer: JSON) -> Verdict:
        kind = data["kind"]
        solution: dict[str, JSON] = dict(data["solution"])
        if not isinstance(answer, Mapping):
            raise PuzzleAnswerError("an answer is a JSON object")
        if kind == "declare":
            right = _tiles(answer, data["players"]) == tuple(solution["tiles"])
        elif kind == "question":
            right = _option(answer, data["ask"]["options"]) == (
                solution["card"],
                solution["choice"],
            )
        elif kind == "count":
            n = _number(answer)
            right = solution["low"] <= n <= solution["high"]
        elif kind == "tile":
            right = _tile_code(answer) == solution["tile"]
        else:
            raise PuzzleAnswerError(f"unknown kind of puzzle {kind!r}")
        return Verdict(right, solution, dict(data["explanation"]))


def _only(answer: Mapping[str, JSON], *keys: str) -> None:
    extra = sorted(set(answer) - set(keys))
    if extra:
        raise PuzzleAnswerError(f"unknown field {extra[0]!r} in the answer")
    missing = [k for k in keys if k not in answer]
    if missing:
        raise PuzzleAnswerError(f"the answer needs {missing[0]!r}")


def _tiles(answer: Mapping[str, JSON], players: JSON) -> tuple[str, ...]:
    _only(answer, "tiles")
    tiles, size = answer["tiles"], hand_size(int(players))
    if not isinstance(tiles, list) or len(tiles) != size:
        raise PuzzleAnswerError(f"tiles: give exactly {size} tile codes")
    bad = [t for t in tiles if not is_tile(t)]
    if bad:
        raise PuzzleAnswerError(f"tiles: no such tile {bad[0]!r} (codes are R0..R9, B0..B9, G5)")
    if not is_possible_set(tiles):
        raise PuzzleAnswerError("tiles: a tile is named more often than it exists")
    return sort_hand(tiles)


def _option(answer: Mapping[str, JSON], options: Sequence[Mapping[str, JSON]]) -> Variant:
    _only(answer, "card", "choice")
    chosen = (answer["card"], answer["choice"])
    if isinstance(chosen[1], bool) or not any((o["card"], o["choice"]) == chosen for o in options):
        raise PuzzleAnswerError("card and choice must name one of the questions offered")
    return chosen


def _number(answer: Mapping[str, JSON]) -> int:
    _only(answer, "count")
    n = answer["count"]
    if type(n) is not int or not 0 <= n <= 100_000:
        raise PuzzleAnswerError("count: a whole number from 0 to 100000")
    return n


def _tile_code(answer: Mapping[str, JSON]) -> str:
    _only(answer, "tile")
    tile = answer["tile"]
    if not is_tile(tile):
        raise PuzzleAnswerError(f"tile: no such tile {tile!r} (codes are R0..R9, B0..B9, G5)")
    return tile


__all__ = ["KINDS", "TagironPuzzles", "tolerance"]
