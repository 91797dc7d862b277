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

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.tiles import ALL_TILES, TILE_CODES, sort_hand

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
# Per hand (tiles in hand order): its answer id to every variant.
_hand_ids: dict[tuple[str, ...], tuple[int, ...]] = {}
# Per variant: the answer id of hands met for that variant alone (not in _hand_ids).
_some_ids: list[dict[tuple[str, ...], int]] = [{} for _ in VARIANTS]


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


def answer_ids(variant: int, hands: Sequence[tuple[str, ...]]) -> np.ndarray:
    """The answer ids of hands (each in hand order) to one variant, cached per hand.

    Only this variant's answers are worked out for hands met for the first time:
    a one-off deduction needs a few of the variants.
    """
    some = _some_ids[variant]
    found = [
        some.get(tiles, -1) if row is None else row[variant]
        for tiles, row in zip(hands, map(_hand_ids.get, hands), strict=True)
    ]
    if -1 in found:
        card, choice = VARIANTS[variant]
        with _lock:
            for i, tiles in enumerate(hands):
                if found[i] < 0:
                    row = _hand_ids.get(tiles)
                    ident = row[variant] if row is not None else some.get(tiles)
                    if ident is None:
                        ident = some[tiles] = _intern(variant, answer(card, tiles, choice))
                    found[i] = ident
    return np.array(found, dtype=np.int16)


def hand_answer_ids(tiles: tuple[str, ...]) -> tuple[int, ...]:
    """The answer ids of a hand (in hand order) for every variant, cached."""
    found = _hand_ids.get(tiles)
    if found is None:
        with _lock:
            found = _hand_ids.get(tiles)
            if found is None:
                ids = []
                for v, (card, choice) in enumerate(VARIANTS):
                    ident = _some_ids[v].pop(tiles, None)
                    ids.append(_intern(v, answer(card, tiles, choice)) if ident is None else ident)
                found = _hand_ids[tiles] = tuple(ids)
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


@cache
def hand_partners(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """For each ``k``-hand, the ``C(n - k, k)`` hands disjoint from it, and their unions.

    ``partner[h, j]`` is a hand number and ``union[h, j]`` the number of the
    ``2k``-subset they make: the rows of :func:`hand_pairs`, by first hand.
    """
    hp = hand_pairs(n, k)
    order = np.argsort(hp.first, kind="stable")
    shape = (len(combos(n, k)), math.comb(n - k, k))
    return hp.second[order].reshape(shape), hp.rest[order].reshape(shape)


def groups(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct values of ``keys``: where each first occurs, the group of every
    position (groups numbered in the order of their values), and the group sizes.

    (``np.unique`` does the same, but far more slowly on this numpy.)

    >>> [g.tolist() for g in groups(np.array([7, 3, 7, 5, 3]))]
    [[1, 3, 0], [2, 0, 2, 1, 0], [2, 1, 2]]
    """
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    new = np.ones(len(keys), dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    starts = np.flatnonzero(new)
    group = np.empty(len(keys), dtype=np.int64)
    group[order] = np.cumsum(new) - 1
    return order[starts], group, np.diff(starts, append=len(keys))


# --- tiles that a table cannot tell apart ----------------------------------------


@cache
def _transpositions(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every swap ``(i, j)`` of two tiles, and the hand numbers it maps the hands to."""
    hands, index = combos(n, k), combo_index(n, k)
    swaps = [(i, j) for i in range(n) for j in range(i + 1, n)]
    images = np.empty((len(swaps), len(hands)), dtype=np.int32)
    for row, (i, j) in enumerate(swaps):
        moved = ((hands >> i) & 1) << j | ((hands >> j) & 1) << i
        images[row] = index[hands & ~((1 << i) | (1 << j)) | moved]
    return np.array(swaps, dtype=np.int64), images


@cache
def tile_bits(n: int, k: int) -> np.ndarray:
    """``bits[h, t]``: whether ``k``-subset number ``h`` of ``n`` tiles holds tile ``t``."""
    return ((combos(n, k)[:, None] >> np.arange(n)) & 1).astype(np.int64)


#: ``_CHOOSE[a, b]``: the binomial coefficient, for the class sizes met here.
_CHOOSE = np.array([[math.comb(a, b) for b in range(17)] for a in range(17)], dtype=np.float64)


@dataclass(frozen=True)
class TileClasses:
    """Classes of tiles that may be swapped freely, and subsets up to such swaps.

    Two sets of tiles with the same number of tiles from each class (the same
    *signature*) are images of one another under swaps within the classes.
    A signature is a mixed-radix integer, the count of each class being one
    digit, so the signature of a union of disjoint sets is the sum of theirs.
    Among the sets of one signature inside a given set, the *canonical* one
    takes the lowest-numbered tiles of each class.

    >>> tc = TileClasses.of(np.array([0, 0, 0, 3]))
    >>> tc.radix, [int(s) for s in tc.signatures(np.array([0b0011, 0b1001, 0b1010]))]
    (8, [2, 5, 5])
    >>> [int(m) for m in tc.missing(np.array([0b0011, 0b0110, 0b1001]))]
    [0, 1, 0]
    >>> inner = np.array([0b0011])
    >>> tc.ways(np.array([0b1111]), inner, tc.lone_partners(inner)).tolist()  # 2 of 3 in class 0
    [3.0]
    """

    #: ``label[t]``: the lowest tile of tile ``t``'s class.
    label: np.ndarray
    #: ``place[t]``: the place value of tile ``t``'s class in a signature.
    place: np.ndarray
    #: One more than the largest signature.
    radix: int
    #: ``earlier[t]``: the tiles of ``t``'s class numbered below ``t``, as a mask.
    earlier: np.ndarray

    @staticmethod
    def of(label: np.ndarray) -> TileClasses:
        label = np.asarray(label, dtype=np.int64)
        n = len(label)
        place = np.zeros(n, dtype=np.int64)
        earlier = np.zeros(n, dtype=np.int64)
        radix = 1
        for c in np.unique(label):
            members = np.nonzero(label == c)[0]
            place[members] = radix
            radix *= len(members) + 1
            for rank, t in enumerate(members):
                earlier[t] = int(sum(1 << int(s) for s in members[:rank]))
        return TileClasses(label, place, radix, earlier)

    @property
    def trivial(self) -> bool:
        """Whether every class is a single tile (nothing may be swapped)."""
        return self.radix == 1 << len(self.label)

    def signatures(self, masks: np.ndarray) -> np.ndarray:
        out = np.zeros(len(masks), dtype=np.int64)
        for t in range(len(self.label)):
            out += ((masks >> t) & 1) * self.place[t]
        return out

    def missing(self, masks: np.ndarray) -> np.ndarray:
        """The tiles that a set skips below its own tiles of the same class.

        A set is canonical inside ``outer`` exactly when ``missing & outer == 0``.
        """
        out = np.zeros(len(masks), dtype=np.int64)
        for t in np.nonzero(self.earlier)[0]:
            out |= ((masks >> int(t)) & 1) * self.earlier[t]
        return out & ~masks

    def lone_partners(self, masks: np.ndarray) -> np.ndarray:
        """For each set, the partners it lacks of its tiles in two-tile classes."""
        out = np.zeros(len(masks), dtype=np.int64)
        for t in range(len(self.label)):
            partner = self.label == self.label[t]
            partner[t] = False
            if np.count_nonzero(self.label == self.label[t]) == 2:
                (p,) = np.nonzero(partner)[0]
                out |= ((masks >> t) & 1) << int(p)
        return out & ~masks

    def ways(self, outer: np.ndarray, inner: np.ndarray, lone: np.ndarray) -> np.ndarray:
        """How many sets with the signature of ``inner`` lie inside ``outer``.

        ``inner`` is a subset of ``outer`` and ``lone`` its :meth:`lone_partners`
        (a table lookup for the caller); each class adds a binomial factor, which
        for a two-tile class is 2 exactly when ``outer`` holds both tiles and
        ``inner`` one.
        """
        out = np.ldexp(1.0, np.bitwise_count(lone & outer).astype(np.int32))
        for mask in self._big_classes:
            out *= _CHOOSE[np.bitwise_count(outer & mask), np.bitwise_count(inner & mask)]
        return out

    @cached_property
    def _big_classes(self) -> list[int]:
        """Each class of three tiles or more, as a mask."""
        out = []
        for c in np.unique(self.label):
            members = np.nonzero(self.label == c)[0]
            if len(members) > 2:
                out.append(int(sum(1 << int(t) for t in members)))
        return out


def interchangeable(n: int, k: int, key: np.ndarray) -> TileClasses:
    """The tiles that ``key`` (one value per ``k``-hand of ``n`` tiles) cannot tell apart.

    Tiles ``i`` and ``j`` share a class when swapping them maps every hand to
    one with the same key.  Such swaps compose, so the classes are the
    components of the swaps allowed, and any permutation within the classes
    keeps every key.

    >>> hands = combos(4, 2)
    >>> interchangeable(4, 2, (hands & 0b0011 > 0).astype(int)).label.tolist()
    [0, 0, 2, 2]
    """
    swaps, images = _transpositions(n, k)
    allowed = swaps[(key[images] == key[None, :]).all(axis=1)]
    label = np.arange(n)
    for i, j in allowed:  # components, small enough to relabel directly
        li, lj = label[i], label[j]
        if li != lj:
            label[label == max(li, lj)] = min(li, lj)
    return TileClasses.of(label)


def sequence_keys(bits: np.ndarray, attribute: np.ndarray) -> np.ndarray:
    """For sets given as rows of tile bits, a number for the sequence of their tiles'
    attributes in tile order: equal exactly when the sequences are.

    ``attribute[t]`` is a small integer; sets of one size are compared only with
    one another.

    >>> bits = tile_bits(4, 2)  # {0,1} {0,2} {0,3} {1,2} {1,3} {2,3}
    >>> sequence_keys(bits, np.array([0, 1, 0, 1])).tolist()  # 01 00 01 10 11 01
    [2, 0, 2, 1, 3, 2]
    """
    base = int(attribute.max()) + 1
    position = np.cumsum(bits, axis=1) - bits
    return (bits * attribute[None, :] * base**position).sum(axis=1)


# --- one seat's universe --------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Universe:
    """The physical tiles one seat cannot see, and every ``k``-hand of them.

    ``column(v)[h]`` is the answer id of hand ``h`` to variant ``v`` (worked
    out for a variant when first asked for) and ``answers[v, h]`` the same for
    every variant at once; ``distinct[h]`` numbers the hand's tile *set* (hands
    that differ only in which green 5 they hold share a number), ``sets[d]`` is
    that set in hand order.
    """

    tiles: tuple[str, ...]
    k: int
    hands: np.ndarray
    hand_tiles: tuple[tuple[str, ...], ...]
    distinct: np.ndarray
    sets: tuple[tuple[str, ...], ...]
    set_index: dict[tuple[str, ...], int]
    #: ``slot_code[h, i]``: the code number (in ``TILE_CODES``) of hand ``h``'s ``i``-th tile.
    slot_code: np.ndarray
    #: ``physical[i]``: the unseen tile ``i`` as an index into ``ALL_TILES``.
    physical: tuple[int, ...] = ()
    _columns: dict[int, np.ndarray] = field(default_factory=dict, init=False, repr=False)

    def column(self, variant: int) -> np.ndarray:
        """Every hand's answer id to one variant (``answers[variant]``), worked out
        for this variant alone while some hand is new to the process."""
        if "answers" in self.__dict__:  # where functools.cached_property keeps it
            return self.answers[variant]
        found = self._columns.get(variant)
        if found is None:
            if all(t in _hand_ids for t in self.hand_tiles):  # the whole table is cheap
                return self.answers[variant]
            found = self._columns.setdefault(variant, answer_ids(variant, self.hand_tiles))
        return found

    @cached_property
    def answers(self) -> np.ndarray:
        """``answers[v, h]``: the answer id of hand ``h`` to variant ``v``, for every variant."""
        return np.array([hand_answer_ids(t) for t in self.hand_tiles], dtype=np.int16).T.copy()

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
    set_index: dict[tuple[str, ...], int] = {}
    distinct = np.array([set_index.setdefault(t, len(set_index)) for t in hand_tiles])
    code_number = {c: i for i, c in enumerate(TILE_CODES)}
    slot_code = np.array([[code_number[c] for c in t] for t in hand_tiles], dtype=np.int8)
    return Universe(
        tiles=tiles,
        k=k,
        hands=combos(n, k),
        hand_tiles=hand_tiles,
        distinct=distinct.astype(np.int32),
        sets=tuple(set_index),
        set_index=set_index,
        slot_code=slot_code,
        physical=physical,
    )
