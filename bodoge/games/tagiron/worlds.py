"""The unseen tiles of one seat, its possible hands, and their answers as tables.

Everything the solver counts is a *world*: one way the physical tiles a seat
cannot see may lie.  The deal is uniform over the twenty physical tiles, so
every world is equally likely before any answer; the two green 5s are two
physical tiles with the same code, so a tile *set* holding one green 5 when
both are unseen stands for two worlds.

A :class:`Universe` numbers the unseen physical tiles ``0..n-1`` in hand order,
so a hand is an ``n``-bit mask and its bits, read upwards, are already in hand
order.  Hands are numbered in the lexicographic order of
:func:`itertools.combinations`; that numbering depends only on ``(n, k)``, which
lets the pair and split tables below be built once per process and shared by
every seat and every game.

>>> u = universe(("R0", "B0", "R1", "B1", "R2"), 5)
>>> u.n, len(u.hands)
(15, 3003)
>>> u.hand_tiles[0]
('B2', 'R3', 'B3', 'R4', 'B4')
>>> int(u.answers[VARIANT_INDEX["total_sum", None], 0]) == answer_id(
...     VARIANT_INDEX["total_sum", None], 16)
True
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.tiles import ALL_TILES, TILE_CODES

# --- question variants and answer ids ----------------------------------------

#: Every question that can be asked: each choice of a choice card apart.
VARIANTS: tuple[tuple[str, int | None], ...] = tuple(
    (cid, choice)
    for cid, card in CARDS.items()
    for choice in (card.choices if card.choices else (None,))
)
VARIANT_INDEX: dict[tuple[str, int | None], int] = {v: i for i, v in enumerate(VARIANTS)}

#: Cards whose answer is a sum over the tiles of a per-tile value: what the
#: other seats answer then adds up to a known total.
ADDITIVE_CARDS = frozenset(
    {"total_sum", "red_sum", "blue_sum", "odd_count", "even_count", "red_count", "blue_count"}
)

_lock = threading.Lock()
# Per variant: answer key -> small int id, and the answers in id order.  Ids are
# handed out as answers are first met and never change within a process.
_ids: list[dict[Any, int]] = [{} for _ in VARIANTS]
_values: list[list[Any]] = [[] for _ in VARIANTS]
_hand_ids: dict[tuple[str, ...], tuple[int, ...]] = {}


def answer_key(value: Any) -> Any:
    """A hashable form of a JSON answer (lists become tuples)."""
    if isinstance(value, list | tuple):
        return tuple(answer_key(v) for v in value)
    return value


def _intern(variant: int, value: Any) -> int:
    key = answer_key(value)
    ids = _ids[variant]
    found = ids.get(key)
    if found is None:
        found = ids[key] = len(ids)
        _values[variant].append(value)
    return found


def answer_id(variant: int, value: Any) -> int:
    """The id of an answer to a variant, or ``-1`` if no hand seen so far gives it.

    Booleans are refused so that ``True`` never passes for ``1``.
    """
    if isinstance(value, bool):
        return -1
    try:
        return _ids[variant].get(answer_key(value), -1)
    except TypeError:  # unhashable junk such as a dict
        return -1


def answer_value(variant: int, ident: int) -> Any:
    return _values[variant][ident]


def value_count(variant: int) -> int:
    return len(_values[variant])


def hand_answer_ids(tiles: tuple[str, ...]) -> tuple[int, ...]:
    """The answer ids of a hand (in hand order) for every variant, cached."""
    found = _hand_ids.get(tiles)
    if found is None:
        with _lock:
            found = _hand_ids.get(tiles)
            if found is None:
                found = tuple(
                    _intern(v, answer(card, tiles, choice))
                    for v, (card, choice) in enumerate(VARIANTS)
                )
                _hand_ids[tiles] = found
    return found


# --- combinatorial tables that depend only on (n, k) ---------------------------


@cache
def combos(n: int, k: int) -> np.ndarray:
    """All ``k``-subsets of ``n`` bits as masks, in lexicographic order."""
    return np.array([sum(1 << i for i in c) for c in combinations(range(n), k)], dtype=np.int64)


@cache
def combo_index(n: int, k: int) -> np.ndarray:
    """``index[mask]``: the number of a ``k``-subset mask, ``-1`` for other masks."""
    index = np.full(1 << n, -1, dtype=np.int32)
    masks = combos(n, k)
    index[masks] = np.arange(len(masks), dtype=np.int32)
    return index


def _disjoint_pairs(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs ``(i, j)`` with ``left[i] & right[j] == 0``, row by row."""
    rows, cols = [], []
    step = max(1, 4_000_000 // len(right))
    for start in range(0, len(left), step):
        block = (left[start : start + step, None] & right[None, :]) == 0
        i, j = np.nonzero(block)
        rows.append(i + start)
        cols.append(j)
    return np.concatenate(rows).astype(np.int32), np.concatenate(cols).astype(np.int32)


@dataclass(frozen=True)
class Pairs:
    """Ordered pairs of disjoint ``k``-hands of ``n`` tiles and what they leave.

    ``first[i]``, ``second[i]`` are hand numbers; ``rest[i]`` numbers the
    remaining tiles (the complement, as an ``(n - 2k)``-subset) or, for
    :func:`hand_pairs`, the union (a ``2k``-subset).  Rows are sorted by ``rest``
    and ``start[r]:start[r+1]`` is the block of rows with ``rest == r``.
    """

    first: np.ndarray
    second: np.ndarray
    rest: np.ndarray
    start: np.ndarray


def _sorted_pairs(first: np.ndarray, second: np.ndarray, rest: np.ndarray, size: int) -> Pairs:
    order = np.argsort(rest, kind="stable")
    rest = rest[order]
    start = np.searchsorted(rest, np.arange(size + 1)).astype(np.int64)
    return Pairs(first[order], second[order], rest.astype(np.int32), start)


@cache
def hand_pairs(n: int, k: int) -> Pairs:
    """Disjoint ordered pairs of ``k``-hands, keyed by their union (a ``2k``-subset)."""
    masks = combos(n, k)
    a, b = _disjoint_pairs(masks, masks)
    union = combo_index(n, 2 * k)[masks[a] | masks[b]]
    return _sorted_pairs(a, b, union, len(combos(n, 2 * k)))


@cache
def hand_splits(n: int, k: int, m: int) -> Pairs:
    """Disjoint pairs (``k``-hand, ``m``-subset), keyed by the ``n-k-m`` tiles left.

    With ``m = k`` this is two seats' hands and the centre they leave; with
    ``m = 2k`` it is one hand, the union of two more, and the centre.
    """
    small, big = combos(n, k), combos(n, m)
    a, b = _disjoint_pairs(small, big)
    full = (1 << n) - 1
    left = combo_index(n, n - k - m)[full ^ (small[a] | big[b])]
    return _sorted_pairs(a, b, left, len(combos(n, n - k - m)))


# --- one seat's universe --------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Universe:
    """The physical tiles one seat cannot see, and every ``k``-hand of them.

    ``answers[v, h]`` is the answer id of hand ``h`` to variant ``v``;
    ``distinct[h]`` numbers the hand's tile *set* (hands that differ only in
    which green 5 they hold share a number), ``sets[d]`` is that set in hand order.
    """

    tiles: tuple[str, ...]
    k: int
    hands: np.ndarray
    hand_tiles: tuple[tuple[str, ...], ...]
    answers: np.ndarray
    distinct: np.ndarray
    sets: tuple[tuple[str, ...], ...]
    set_index: dict[tuple[str, ...], int]
    #: ``slot_code[h, i]``: the code number (in ``TILE_CODES``) of hand ``h``'s ``i``-th tile.
    slot_code: np.ndarray
    #: ``physical[i]``: the unseen tile ``i`` as an index into ``ALL_TILES``.
    physical: tuple[int, ...] = ()

    def physical_masks(self) -> np.ndarray:
        """Each hand as a 20-bit mask over ``ALL_TILES`` (comparable across seats)."""
        out = np.zeros(len(self.hands), dtype=np.int64)
        for i, p in enumerate(self.physical):
            out |= ((self.hands >> i) & 1) << p
        return out

    @property
    def n(self) -> int:
        return len(self.tiles)

    def hands_of_set(self, tiles: Sequence[str]) -> np.ndarray:
        """A boolean mask of the hands whose tile set is ``tiles`` (any order)."""
        from bodoge.games.tagiron.tiles import sort_hand

        d = self.set_index.get(sort_hand(tiles), -1)
        return self.distinct == d


def unseen_tiles(hand: Sequence[str]) -> tuple[str, ...]:
    """The physical tiles left when ``hand`` is taken out, in hand order."""
    rest = list(ALL_TILES)
    for code in hand:
        rest.remove(code)
    return tuple(rest)


def unseen_physical(hand: Sequence[str]) -> tuple[int, ...]:
    """The indices in ``ALL_TILES`` of the tiles left when ``hand`` is taken out."""
    rest = list(range(len(ALL_TILES)))
    for code in hand:
        rest.remove(next(i for i in rest if ALL_TILES[i] == code))
    return tuple(rest)


def universe(hand: Sequence[str], k: int) -> Universe:
    """The universe of a seat holding ``hand`` whose unknown hands have ``k`` tiles."""
    return _universe(unseen_tiles(hand), k)


@lru_cache(maxsize=64)
def _universe(tiles: tuple[str, ...], k: int) -> Universe:
    n = len(tiles)
    taken = list(ALL_TILES)
    for code in tiles:
        taken.remove(code)
    physical = unseen_physical(taken)
    hand_tiles = tuple(tuple(tiles[i] for i in c) for c in combinations(range(n), k))
    answers = np.array([hand_answer_ids(t) for t in hand_tiles], dtype=np.int16).T.copy()
    set_index: dict[tuple[str, ...], int] = {}
    distinct = np.array([set_index.setdefault(t, len(set_index)) for t in hand_tiles])
    code_number = {c: i for i, c in enumerate(TILE_CODES)}
    slot_code = np.array([[code_number[c] for c in t] for t in hand_tiles], dtype=np.int8)
    return Universe(
        tiles=tiles,
        k=k,
        hands=combos(n, k),
        hand_tiles=hand_tiles,
        answers=answers,
        distinct=distinct.astype(np.int32),
        sets=tuple(set_index),
        set_index=set_index,
        slot_code=slot_code,
        physical=physical,
    )
