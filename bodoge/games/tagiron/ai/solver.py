"""Exact deduction from one seat: the target's candidates and each question's worth.

From a :class:`~bodoge.games.tagiron.ai.position.Position` (one seat's tiles and
the public log) a :class:`Deduction` counts every *world* — every way the
physical tiles this seat cannot see may lie — that agrees with every answer,
and from those counts gives

* the candidates for the target (the opponent's hand with 2 players, the
  centre with 3–4) with their probabilities, as distinct tile sets;
* the chance of each tile in each position of the target, and of each tile
  being in it at all;
* for every face-up question, the mutual information in bits between the
  target and the answers it would get.

How (see ``docs/solver.md``): a seat's answers only ever depend on its own
hand, so a seat is a boolean vector over the ``C(n, k)`` hands that agree with
everything it answered.  The joint worlds are disjoint tuples of hands; the
pair and split tables of :mod:`~bodoge.games.tagiron.ai.worlds` list the disjoint
tuples once per process, so with 3 players the 756,756 worlds are one
vectorised filter, and with 4 players the 63,063,000 worlds are never listed:
the centre's weight is a two-step sum, first over pairs of hands keyed by their
union, then over (hand, union) splits keyed by the centre they leave.  Question
values enumerate only the worlds still consistent, a block of centres at a time;
with 4 players and many worlds they are summed once per class of centres, unions
and hands that the question and the answers so far cannot tell apart.

>>> from bodoge.games.tagiron.ai.position import Position
>>> p = Position.from_json({"players": 2, "seat": 0, "hand": ["R0", "B0", "R1", "B1", "R2"],
...     "log": [{"seat": 0, "card": "total_sum", "answers": {"0": 4, "1": 40}},
...             {"seat": 0, "card": "where_6or7", "choice": 6, "answers": {"1": []}}]})
>>> d = Deduction(p)
>>> d.candidates()
[(('R7', 'B7', 'R8', 'R9', 'B9'), 0.5), (('R7', 'B7', 'B8', 'R9', 'B9'), 0.5)]
>>> round(d.question_bits([("red_count", None), ("where_5", None)])[("red_count", None)], 3)
1.0
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from bodoge.games.tagiron.ai.position import (
    Declaration,
    Position,
    PositionError,
    Question,
    dumps,
)
from bodoge.games.tagiron.ai.worlds import (
    VARIANT_INDEX,
    VARIANTS,
    TileClasses,
    Universe,
    answer_id,
    answer_key,
    combos,
    groups,
    hand_pairs,
    hand_partners,
    hand_splits,
    interchangeable,
    sequence_keys,
    tile_bits,
    universe,
    value_count,
)
from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.tiles import TILE_CODES

Variant = tuple[str, int | None]

#: Worlds enumerated at once when valuing questions (bounds memory, not results).
CHUNK_WORLDS = 3_000_000
#: Largest histogram kept as a dense array; larger ones are counted by sorting.
DENSE_BINS = 6_000_000
#: Blocks of the collapsed 4-player sum: entries, and (centre, answers) cells, at most;
#: small enough for the histograms to stay in cache.
BLOCK_ENTRIES = 1_000_000
BLOCK_CELLS = 2_000_000
#: Answer spaces up to this size are binned with the centre at once.
NARROW = 4096
#: With 4 players and more consistent worlds than this, questions are valued by
#: symmetry (:meth:`Deduction._four_plan`) rather than by listing the worlds ...
FEW_WORLDS = 100_000
#: ... unless a question's collapsed sum has more rows to build, or entries to
#: expand, than this many per world (with few enough worlds to list).
ROW_WORTH = 3.0
ENTRY_WORTH = 1.0


def face_up_variants(face_up: Sequence[str]) -> list[Variant]:
    """Every question that the face-up cards allow, each choice apart."""
    out: list[Variant] = []
    for card in face_up:
        choices = CARDS[card].choices
        out.extend((card, c) for c in choices) if choices else out.append((card, None))
    return out


def _xlogx(counts: np.ndarray) -> float:
    c = counts[counts > 0].astype(np.float64)
    return float(np.dot(c, np.log2(c)))


def entropy(counts: np.ndarray) -> float:
    """Entropy in bits of a histogram (need not be normalised)."""
    total = float(counts.sum())
    if total <= 0:
        return 0.0
    return math.log2(total) - _xlogx(counts) / total


def _blocks(
    ends: np.ndarray, centres: np.ndarray, max_entries: int, max_centres: int
) -> Iterator[tuple[int, int]]:
    """Ranges of rows, sorted by centre, that keep each centre whole.

    ``ends`` is the running total of entries per row; a block holds at most
    ``max_entries`` entries and ``max_centres`` centres, unless one centre alone
    is bigger.
    """
    begin, rows = 0, len(ends)
    while begin < rows:
        base = ends[begin - 1] if begin else 0
        end = max(int(np.searchsorted(ends, base + max_entries, side="right")), begin + 1)
        last = int(np.searchsorted(centres, centres[begin] + max_centres, side="left"))
        end = max(min(end, last), begin + 1)
        if end < rows:  # finish the last centre of the block
            end = int(np.searchsorted(centres, centres[end - 1], side="right"))
        yield begin, end
        begin = end


def _running_rank(sorted_values: np.ndarray) -> np.ndarray:
    """``0, 0, 1, 1, 1, 2, ...``: the rank of each value in a sorted array."""
    step = np.empty(len(sorted_values), dtype=np.int32)
    if len(step):
        step[0] = 0
        np.not_equal(sorted_values[1:], sorted_values[:-1], out=step[1:], casting="unsafe")
    return np.cumsum(step, dtype=np.int32)


def _keyed_xlogx(keys: np.ndarray, size: int) -> float:
    """``Σ c log2 c`` over the multiplicities of ``keys`` (each key below ``size``)."""
    if size <= min(DENSE_BINS, 4 * len(keys)):
        return _xlogx(np.bincount(keys, minlength=size))
    return _xlogx(_merged(keys)[1])


def _compact(column: np.ndarray, ok: np.ndarray, variant: int) -> tuple[np.ndarray, int]:
    """Answer ids renumbered ``0..m-1`` over the values that ``ok`` hands give."""
    present = np.zeros(value_count(variant) + 1, dtype=bool)
    present[column[ok]] = True
    rank = np.cumsum(present) - 1
    return rank[column].astype(np.int64), int(present.sum())


def _binned(
    keys: np.ndarray, weights: np.ndarray | None, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys (sorted) and the weight gathered by each (1 per key by default)."""
    if size <= DENSE_BINS and size <= 16 * len(keys):
        dense = np.bincount(keys, weights=weights, minlength=size)
        found = np.nonzero(dense)[0]
        return found, dense[found].astype(np.float64)
    if weights is None:
        return _merged(keys)
    order = np.argsort(keys)
    keys = keys[order]
    starts = np.flatnonzero(np.diff(keys, prepend=-1))
    return keys[starts], np.add.reduceat(weights[order], starts) if len(keys) else weights


def _merged(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``key`` (sorted) and how many times each occurs."""
    if len(key) == 0:
        return key, np.zeros(0)
    key = np.sort(key.astype(np.int32) if key.max() < 2**31 else key)
    starts = np.flatnonzero(np.diff(key, prepend=key[0] - 1))
    return key[starts].astype(np.int64), np.diff(starts, append=len(key)).astype(np.float64)


def _weighted_xlogx(cells: np.ndarray, row_weight: np.ndarray, col_weight: np.ndarray) -> float:
    """``Σ row_weight[i] · col_weight[j] · c log2 c`` over the cells ``c = cells[i, j] > 0``."""
    where = np.flatnonzero(cells)
    c = cells.ravel()[where]
    i, j = np.divmod(where, cells.shape[1])
    return float(np.sum(row_weight[i] * col_weight[j] * c * np.log2(c)))


def _is_function_of(values: np.ndarray, group: np.ndarray) -> bool:
    """Whether ``values`` agree within each group (``group`` numbers ``0..g-1``)."""
    seen = np.zeros(int(group.max()) + 1, dtype=values.dtype)
    seen[group] = values
    return bool(np.array_equal(seen[group], values))


def _alike_last(ok: dict[int, np.ndarray], seats: Sequence[int]) -> tuple[int, int, int]:
    """The three seats, ordered so that two with the same constraints come last."""
    a, b, c = seats
    if np.array_equal(ok[a], ok[c]):
        return b, a, c
    if np.array_equal(ok[a], ok[b]):
        return c, a, b
    return a, b, c


def _orders(m_a: int, m_b: int, m_c: int, pair: bool, full: bool) -> np.ndarray:
    """Per answer code ``(x, y, z)``: how many orders of the seats' answers it stands for.

    Alike seats b and c are counted with ``y <= z`` only; three alike seats with
    ``x <= y <= z`` only.  Codes that are never formed get ``0``.
    """
    x, y, z = (v.ravel() for v in np.indices((m_a, m_b, m_c)))
    if full:  # a sorted triple with 0, 1 or 2 equal neighbours stands for 6, 3 or 1 orders
        orders = np.array([6.0, 3.0, 1.0])[(x == y).astype(int) + (y == z)]
        return np.where((x <= y) & (y <= z), orders, 0.0)
    if pair:
        return np.where(y < z, 2.0, np.where(y == z, 1.0, 0.0))
    return np.ones(len(x))


@dataclass
class _Plan:
    """One question's collapsed 4-player sum, ready to be expanded block by block.

    Row ``r`` is a canonical hand of seat a inside the rest of centre
    ``centre_rank[r]`` (standing for ``row_ways[r]`` hands, and that centre for
    ``orbit`` centres); it meets the entries ``first[r] : first[r] + sizes[r]``
    of the table of seats b and c, each an answer code ``code_bc`` with a
    multiplicity ``mult``.
    """

    centre_rank: np.ndarray
    orbit: np.ndarray
    first: np.ndarray
    sizes: np.ndarray
    code_a: np.ndarray
    row_ways: np.ndarray | None
    code_bc: np.ndarray
    mult: np.ndarray
    width: int
    orders: np.ndarray

    @property
    def entries(self) -> int:
        return int(self.sizes.sum())

    def bits(self, counts: np.ndarray) -> float:
        """``I(centre; answers)`` given the worlds per centre."""
        sizes = self.sizes
        ends = np.cumsum(sizes)
        shift = self.first - (ends - sizes)  # entry index minus running position
        width, narrow = self.width, self.width <= NARROW
        hist = np.zeros(width)
        xlogx = 0.0
        max_centres = max(1, BLOCK_CELLS // width)
        for begin, end in _blocks(ends, self.centre_rank, BLOCK_ENTRIES, max_centres):
            count = sizes[begin:end]
            entry = np.repeat(shift[begin:end], count)
            entry += np.arange(ends[begin - 1] if begin else 0, ends[end - 1])
            weight = self.mult[entry]
            if self.row_ways is not None:
                weight *= np.repeat(self.row_ways[begin:end], count)
            low = int(self.centre_rank[begin])
            here = self.centre_rank[begin:end] - low
            n_c = int(here[-1]) + 1
            orbit = self.orbit[low : low + n_c]
            if narrow:  # (centre, answers) cells straight away
                code = np.repeat(here * width + self.code_a[begin:end], count)
                code += self.code_bc[entry]
                cells = np.bincount(code, weights=weight, minlength=n_c * width)
                cells = cells.reshape(n_c, width)
                hist += np.einsum("i,ij->j", orbit, cells)
                xlogx += _weighted_xlogx(cells, orbit, self.orders)
                continue
            code = np.repeat(self.code_a[begin:end], count)
            code += self.code_bc[entry]
            present = np.bincount(code, minlength=width) > 0
            kinds = int(np.count_nonzero(present))
            rank = np.cumsum(present) - 1
            cell = np.repeat(here * kinds, count)
            cell += rank[code]
            cells = np.bincount(cell, weights=weight, minlength=n_c * kinds).reshape(n_c, kinds)
            hist[present] += np.einsum("i,ij->j", orbit, cells)
            xlogx += _weighted_xlogx(cells, orbit, self.orders[present])
        total = float(counts.sum())
        h_a = math.log2(total) - _weighted_xlogx(hist[None, :], np.ones(1), self.orders) / total
        h_ca = math.log2(total) - xlogx / total
        return max(0.0, entropy(counts) + h_a - h_ca)


@dataclass(frozen=True)
class _Alike:
    """The centres and unions one question's 4-player sum takes once, and what each stands for.

    Either tiles in one class of ``tc`` may be swapped freely, or (``by_colour``,
    and ``tc`` is then trivial) sets whose tiles read the same colours in hand
    order are alike.  ``missing`` and ``lone`` are per hand, of the classes
    first found.  ``centres`` are the canonical centres, ``orbit`` how many
    centres each stands for; ``canon`` the canonical unions of two hands and
    ``union_rank`` the rank in ``canon`` of every union's canonical one.
    """

    tc: TileClasses
    missing: np.ndarray
    lone: np.ndarray
    centres: np.ndarray
    canon: np.ndarray
    by_colour: bool
    #: Known at once when alike by colour; else see :meth:`counted`.
    orbit: np.ndarray | None = None
    union_rank: np.ndarray | None = None

    def counted(self, n: int, k: int) -> _Alike:
        """With the orbits and union ranks also when sets are alike by classes of tiles."""
        if self.orbit is not None:
            return self
        tc, centres = self.tc, self.centres
        everything = np.full(len(centres), (1 << n) - 1)
        orbit = tc.ways(everything, combos(n, k)[centres], self.lone[centres])
        sig_union = tile_bits(n, 2 * k) @ tc.place
        union_of_sig = np.full(tc.radix, -1, dtype=np.int64)
        union_of_sig[sig_union[self.canon]] = np.arange(len(self.canon))
        return replace(self, orbit=orbit, union_rank=union_of_sig[sig_union])


@dataclass(frozen=True)
class _Kept:
    """Which pairs of hands of seats b and c a 4-player sum keeps."""

    alike: _Alike
    col_b: np.ndarray
    col_c: np.ndarray
    pair: bool
    n: int
    k: int

    def __call__(
        self, keep: np.ndarray, hb: np.ndarray, hc: np.ndarray, union: np.ndarray
    ) -> np.ndarray:
        """``keep`` (hands allowed), narrowed to the pairs taken once."""
        if self.pair:  # two alike seats: their answers y <= z only
            keep &= self.col_b[hb] <= self.col_c[hc]
        if not self.alike.tc.trivial:  # one hand of b per signature inside the union
            keep &= (self.alike.missing[hb] & combos(self.n, 2 * self.k)[union]) == 0
        return keep


def _pairs_by_hand(
    kept: _Kept, seats_b: np.ndarray, ok_c: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seat b's hands, each with every hand of seat c it leaves a canonical union with."""
    partner, union_of = hand_partners(kept.n, kept.k)
    hb, hc, union = seats_b[:, None], partner[seats_b], union_of[seats_b]
    is_canon = np.zeros(len(combos(kept.n, 2 * kept.k)), dtype=bool)
    is_canon[kept.alike.canon] = True
    keep = kept(ok_c[hc] & is_canon[union], hb, hc, union)
    where = np.flatnonzero(keep)
    return seats_b[where // keep.shape[1]], hc.ravel()[where], union.ravel()[where]


def _pairs_by_union(
    kept: _Kept, ok_b: np.ndarray, ok_c: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each canonical union's splits into a hand of seat b and one of seat c."""
    canon = kept.alike.canon
    hp = hand_pairs(kept.n, kept.k)  # the rows of a union are consecutive
    hb = hp.first.reshape(-1, math.comb(2 * kept.k, kept.k))[canon]
    hc = hp.second.reshape(-1, math.comb(2 * kept.k, kept.k))[canon]
    keep = kept(ok_b[hb] & ok_c[hc], hb, hc, canon[:, None])
    where = np.flatnonzero(keep)
    return hb.ravel()[where], hc.ravel()[where], canon[where // keep.shape[1]]


@dataclass(frozen=True)
class _Pairs:
    """Seats b and c: per canonical union, its entries (answer code ``code_bc`` taken
    ``mult`` times), ending at ``union_end``; ``start_at[union, x]`` is where the
    entries a row of seat a with answer ``x`` meets begin."""

    code_bc: np.ndarray
    mult: np.ndarray
    union_end: np.ndarray
    start_at: np.ndarray


def _pair_table(
    alike: _Alike,
    hb: np.ndarray,
    hc: np.ndarray,
    union: np.ndarray,
    b: tuple[np.ndarray, int],
    c: tuple[np.ndarray, int],
    full: bool,
    n: int,
    k: int,
) -> _Pairs:
    """The kept pairs of hands binned by union and answers (``b``, ``c``: answer ids, count)."""
    (col_b, m_b), (col_c, m_c) = b, c
    tc, n_union, width_bc = alike.tc, len(alike.canon), m_b * m_c
    assert alike.union_rank is not None, "the sets must be counted first"
    ways = None
    if not tc.trivial:
        ways = tc.ways(combos(n, 2 * k)[union], combos(n, k)[hb], alike.lone[hb])
    code = alike.union_rank[union] * width_bc + col_b[hb] * m_c + col_c[hc]
    keys, mult = _binned(code, ways, n_union * width_bc)
    union, code_bc = np.divmod(keys, width_bc)
    entries = np.bincount(union, minlength=n_union)
    union_end = np.cumsum(entries)
    if full:  # where each union's entries with y >= x begin (they are sorted by y)
        by_y = np.bincount(union * m_b + code_bc // m_c, minlength=n_union * m_b)
        by_y = by_y.reshape(n_union, m_b)
        start_at = (union_end - entries)[:, None] + np.cumsum(by_y, axis=1) - by_y
    else:
        start_at = (union_end - entries)[:, None]
    return _Pairs(code_bc, mult, union_end, start_at)


@dataclass(frozen=True)
class _Rows:
    """Seat a: per row, a canonical hand in the rest of centre ``centre_rank`` (standing
    for ``ways`` hands, ``None``: one each), the rank of the union it leaves, and its answer."""

    centre_rank: np.ndarray
    union: np.ndarray
    answer: np.ndarray
    ways: np.ndarray | None


def _seat_rows(
    alike: _Alike, ok_a: np.ndarray, col_a: np.ndarray, m_a: int, n: int, k: int
) -> _Rows:
    """Seat a's hands in the rest of each canonical centre, and the union each leaves."""
    tc, centres, n_union = alike.tc, alike.centres, len(alike.canon)
    assert alike.union_rank is not None, "the sets must be counted first"
    hands, per_hand = combos(n, k), math.comb(n - k, k)
    sp = hand_splits(n, k, 2 * k)  # the rows of a centre are consecutive
    ha = sp.first.reshape(-1, per_hand)[centres]
    keep = ok_a[ha]
    rest = ((1 << n) - 1) ^ hands[centres]
    if not tc.trivial:  # one hand per signature inside the rest
        keep &= (alike.missing[ha] & rest[:, None]) == 0
    where = np.flatnonzero(keep)
    centre_rank = where // per_hand
    s_rank = alike.union_rank[sp.second.reshape(-1, per_hand)[centres].ravel()[where]]
    ha = ha.ravel()[where]
    x = col_a[ha]
    row_ways = None
    if not tc.trivial:
        row_ways = tc.ways(rest[centre_rank], hands[ha], alike.lone[ha])
    elif alike.by_colour:  # merge the rows that are alike
        row_key, row_ways = _merged((centre_rank * m_a + x) * n_union + s_rank)
        centre_rank, row_key = np.divmod(row_key, m_a * n_union)
        x, s_rank = np.divmod(row_key, n_union)
    return _Rows(centre_rank, s_rank, x, row_ways)


@dataclass(frozen=True)
class Candidate:
    tiles: tuple[str, ...]
    probability: float
    #: Worlds (physical arrangements of the unseen tiles) with this target.
    worlds: int


class Deduction:
    """Everything one seat can deduce; raises :class:`PositionError` if nothing fits."""

    def __init__(self, position: Position) -> None:
        self.position = position
        self.universe: Universe = universe(position.hand, position.k)
        self.others = position.others
        self.ok, self.target_ok = self._constraints(position.log)
        counts = self._target_counts(self.ok, self.target_ok)
        if counts.sum() == 0:
            self._blame()
        #: Worlds per target hand (physical numbering of the universe).
        self.counts = counts
        self.worlds = round(counts.sum())

    # --- constraints ------------------------------------------------------------

    def _constraints(self, log: Sequence[object]) -> tuple[dict[int, np.ndarray], np.ndarray]:
        pos, u = self.position, self.universe
        size = len(u.hands)
        ok = {s: np.ones(size, dtype=bool) for s in self.others}
        answered = dict.fromkeys(self.others, 0)
        target_ok = np.ones(size, dtype=bool)
        for number, entry in enumerate(log, start=1):
            if isinstance(entry, Question):
                variant = VARIANT_INDEX[entry.card, entry.choice]
                column = u.column(variant)  # first: answer_id knows only answers met
                for s, given in entry.answers:
                    where = entry.describe(number)
                    if s == pos.seat:
                        mine = answer(entry.card, pos.hand, entry.choice)
                        if isinstance(given, bool) or answer_key(mine) != _key(given):
                            raise PositionError(
                                f"{where}: your own hand answers {dumps(mine)}, not {dumps(given)}"
                            )
                        continue
                    ident = answer_id(variant, given)
                    fits = column == ident if ident >= 0 else np.zeros(size, bool)
                    narrowed = ok[s] & fits
                    if not narrowed.any():
                        also = " and its earlier answers" if answered[s] else ""
                        who = f" (seat {s})" if pos.players > 2 else ""
                        raise PositionError(
                            f"{where}: no hand is consistent with answer {dumps(given)}{who}{also}"
                        )
                    ok[s] = narrowed
                    answered[s] += 1
            elif isinstance(entry, Declaration) and entry.tiles is not None:
                if pos.players == 2 and entry.seat != pos.seat:
                    continue  # it named this seat's own tiles
                same = u.hands_of_set(entry.tiles)
                narrowed = target_ok & (same if entry.right else ~same)
                if not narrowed.any():
                    raise PositionError(
                        f"{entry.describe(number)}: no target is left once it is "
                        f"{'right' if entry.right else 'wrong'}"
                    )
                target_ok = narrowed
        return ok, target_ok

    def _blame(self) -> None:
        """Name the first log entry after which no world is left."""
        log = self.position.log
        for end in range(1, len(log) + 1):
            ok, target_ok = self._constraints(log[:end])
            if self._target_counts(ok, target_ok).sum() == 0:
                raise PositionError(
                    f"{log[end - 1].describe(end)}: no arrangement of the unseen tiles fits "
                    "this together with the earlier entries"
                )
        raise PositionError("no arrangement of the unseen tiles fits your hand")  # unreachable

    # --- the target's weights -------------------------------------------------------

    def _target_counts(self, ok: dict[int, np.ndarray], target_ok: np.ndarray) -> np.ndarray:
        players, n, k = self.position.players, self.universe.n, self.universe.k
        size = len(self.universe.hands)
        if players == 2:
            return (ok[self.others[0]] & target_ok).astype(np.float64)
        if players == 3:
            a, b = self.others
            sp = hand_splits(n, k, k)
            world = ok[a][sp.first] & ok[b][sp.second] & target_ok[sp.rest]
            return np.bincount(sp.rest[world], minlength=size).astype(np.float64)
        a, b, c = self.others
        # the rows of each union, and of each centre, are consecutive and as many
        hp, sp = hand_pairs(n, k), hand_splits(n, k, 2 * k)
        per_union, per_centre = math.comb(2 * k, k), math.comb(n - k, k)
        both = ok[b][hp.first.reshape(-1, per_union)] & ok[c][hp.second.reshape(-1, per_union)]
        pair_weight = np.count_nonzero(both, axis=1)
        ways = pair_weight[sp.second.reshape(-1, per_centre)]
        ways *= ok[a][sp.first.reshape(-1, per_centre)]
        return ways.sum(axis=1, dtype=np.float64) * target_ok

    # --- what the seat can read off the counts -----------------------------------

    @cached_property
    def set_weights(self) -> np.ndarray:
        """Worlds per distinct target set (numbered as ``universe.sets``)."""
        u = self.universe
        return np.bincount(u.distinct, weights=self.counts, minlength=len(u.sets))

    @property
    def candidate_count(self) -> int:
        """How many distinct tile sets the target may still be."""
        return int(np.count_nonzero(self.set_weights))

    @property
    def certain(self) -> bool:
        return self.candidate_count == 1

    def candidates(self, limit: int | None = None) -> list[tuple[tuple[str, ...], float]]:
        """Distinct target sets and their probabilities, the likeliest first."""
        return [(c.tiles, c.probability) for c in self.ranked(limit)]

    def ranked(self, limit: int | None = None) -> list[Candidate]:
        weights = self.set_weights
        live = np.nonzero(weights)[0]
        order = live[np.lexsort((live, -weights[live]))]
        if limit is not None:
            order = order[:limit]
        total = weights.sum()
        sets = self.universe.sets
        return [Candidate(sets[d], float(weights[d] / total), int(weights[d])) for d in order]

    def best(self) -> tuple[tuple[str, ...], float]:
        """The likeliest target and its probability."""
        top = self.ranked(1)[0]
        return top.tiles, top.probability

    def slot_probabilities(self) -> list[dict[str, float]]:
        """For each position of the target in hand order, each tile's probability."""
        u, p = self.universe, self.counts / self.counts.sum()
        out = []
        for i in range(u.k):
            by_code = np.bincount(u.slot_code[:, i], weights=p, minlength=len(TILE_CODES))
            out.append({TILE_CODES[c]: float(by_code[c]) for c in np.nonzero(by_code > 1e-15)[0]})
        return out

    def tile_probabilities(self) -> dict[str, float]:
        """For each tile code, the probability that the target holds it (at least one)."""
        u, p = self.universe, self.counts / self.counts.sum()
        out: dict[str, float] = {}
        for code_number, code in enumerate(TILE_CODES):
            holds = (u.slot_code == code_number).any(axis=1)
            out[code] = float(p[holds].sum())
        return out

    # --- the worth of questions -----------------------------------------------------

    def question_bits(self, variants: Sequence[Variant] | None = None) -> dict[Variant, float]:
        """Expected information about the target, in bits, of asking each variant.

        With 2 players the answer is a function of the target, so this is the
        entropy of the opponent's answer; with 3–4 players it is the mutual
        information between the centre and every other seat's answer.
        """
        if variants is None:
            variants = face_up_variants(self.position.face_up)
        variants = list(dict.fromkeys(variants))
        if not variants:
            return {}
        # remembered: a bot and a game's review may ask the same deduction again
        memo = self.__dict__.setdefault("_bits", {})
        found = memo.get(tuple(variants))
        if found is None:
            found = memo[tuple(variants)] = self._question_bits(variants)
        return dict(found)

    def _question_bits(self, variants: list[Variant]) -> dict[Variant, float]:
        ids = [VARIANT_INDEX[v] for v in variants]
        if self.position.players == 2:
            bits = self._bits_two(ids)
        elif self.position.players == 4 and self.worlds > FEW_WORLDS:
            bits = self._bits_four(ids)
        else:
            bits = self._bits_group(ids)
        return dict(zip(variants, bits, strict=True))

    def _bits_four(self, ids: list[int]) -> list[float]:
        """4 players with many worlds: each question collapsed by symmetry, unless
        listing the worlds is cheaper for it."""
        few = self.worlds <= CHUNK_WORLDS
        budget = self.worlds * ROW_WORTH if few else math.inf
        plans = {v: self._four_plan(v, budget) for v in ids}
        listed = [
            v
            for v, plan in plans.items()
            if plan is None or (few and plan.entries > self.worlds * ENTRY_WORTH)
        ]
        found = dict(zip(listed, self._bits_group(listed), strict=True)) if listed else {}
        bits = []
        for v in ids:
            plan = plans[v]  # None only for a listed question
            bits.append(found[v] if v in found or plan is None else plan.bits(self.counts))
        return bits

    def _bits_two(self, ids: list[int]) -> list[float]:
        live = np.nonzero(self.counts)[0]
        return [entropy(np.bincount(self.universe.column(v)[live])) for v in ids]

    def _bits_group(self, ids: list[int]) -> list[float]:
        u, seats = self.universe, self.others
        columns = [[_compact(u.column(v), self.ok[s], v) for s in seats] for v in ids]
        hist_a: list[np.ndarray] = [np.zeros(0) for _ in ids]
        xlogx_ca = [0.0] * len(ids)
        for centre, hands in self.world_blocks():
            # blocks come sorted by centre, so ranks are a running count of changes
            centre_rank = _running_rank(centre).astype(np.int64)
            n_centres = int(centre_rank[-1]) + 1
            for j, cols in enumerate(columns):
                code = np.zeros(len(centre), dtype=np.int64)
                size = 1
                for (col, m), h in zip(cols, hands, strict=True):
                    code = code * m + col[h]
                    size *= m
                hist = np.bincount(code, minlength=size)
                hist_a[j] = hist if hist_a[j].size == 0 else hist_a[j] + hist
                present = hist > 0
                rank = np.cumsum(present) - 1
                width = int(present.sum())
                xlogx_ca[j] += _keyed_xlogx(centre_rank * width + rank[code], n_centres * width)
        total = float(self.counts.sum())
        h_c = entropy(self.counts)
        out = []
        for j in range(len(ids)):
            h_a = entropy(hist_a[j])
            h_ca = math.log2(total) - xlogx_ca[j] / total
            out.append(max(0.0, h_c + h_a - h_ca))
        return out

    def _four_plan(self, variant: int, budget: float = math.inf) -> _Plan | None:
        """One question's joint answer counts with 4 players, collapsed by symmetry.

        See ``docs/solver.md``.  Sets of tiles that the question and the
        constraints cannot tell apart are taken once, weighted by how many
        they stand for: either tiles in one class may be swapped freely (sets
        with the same count from each class are alike), or, when the answers
        depend on the colours only, sets whose tiles read the same colours in
        hand order are alike.  Seats with the same constraints answer alike
        too, so the answers of two such seats are counted once per unordered
        pair (of three, once per sorted triple), weighted by the orders they
        stand for.  ``None`` if the sum would take more than ``budget`` rows.
        """
        u, ok = self.universe, self.ok
        n, k = u.n, u.k
        column = u.column(variant)
        a, b, c = _alike_last(ok, self.others)
        pair = np.array_equal(ok[b], ok[c])
        full = pair and np.array_equal(ok[a], ok[b])
        live = self.counts > 0
        alike = self._alike_sets(column, ok[a] * 8 + ok[b] * 4 + ok[c] * 2 + live, live)
        per_union, per_hand = math.comb(2 * k, k), math.comb(n - k, k)
        seats_b = np.flatnonzero(ok[b])
        by_hand = len(seats_b) * per_hand < len(alike.canon) * per_union
        pair_rows = min(len(seats_b) * per_hand, len(alike.canon) * per_union)
        if pair_rows + len(alike.centres) * per_hand > budget:
            return None
        alike = alike.counted(n, k)
        col_a, m_a = _compact(column, ok[a], variant)
        col_b, m_b = _compact(column, ok[b], variant)
        col_c, m_c = _compact(column, ok[c], variant)
        # Seats b and c: each canonical union's splits into two hands, binned by their
        # answers (only y <= z when the two seats are alike).  The pairs are found from
        # the union, or from b's hands when b has few.
        kept = _Kept(alike, col_b, col_c, pair, n, k)
        if by_hand:
            hb, hc, union = _pairs_by_hand(kept, seats_b, ok[c])
        else:
            hb, hc, union = _pairs_by_union(kept, ok[b], ok[c])
        pairs = _pair_table(alike, hb, hc, union, (col_b, m_b), (col_c, m_c), full, n, k)
        # Seat a: its hands in the rest of each centre, and the union they leave.
        rows = _seat_rows(alike, ok[a], col_a, m_a, n, k)
        first = pairs.start_at[rows.union, rows.answer] if full else pairs.start_at[rows.union, 0]
        sizes = pairs.union_end[rows.union] - first
        keep = sizes > 0
        row_ways = rows.ways
        if row_ways is not None:
            row_ways = row_ways[keep]
            if (row_ways == 1).all():
                row_ways = None
        width_bc = m_b * m_c
        assert alike.orbit is not None, "counted above"
        return _Plan(
            centre_rank=rows.centre_rank[keep],
            orbit=alike.orbit.astype(np.float64),
            first=first[keep],
            sizes=sizes[keep],
            code_a=rows.answer[keep] * width_bc,
            row_ways=row_ways,
            code_bc=pairs.code_bc,
            mult=pairs.mult,
            width=m_a * width_bc,
            orders=_orders(m_a, m_b, m_c, pair, full),
        )

    def _alike_sets(self, column: np.ndarray, constraints: np.ndarray, live: np.ndarray) -> _Alike:
        """The centres and unions one question's 4-player sum takes once (see ``_four_plan``).

        The orbits of sets alike by classes of tiles are left to be counted
        (:meth:`_Alike.counted`) once the sum is known to be worth building.
        """
        n, k = self.universe.n, self.universe.k
        tc = interchangeable(n, k, column.astype(np.int64) * 16 + constraints)
        hands, unions = combos(n, k), combos(n, 2 * k)
        missing, lone = tc.missing(hands), tc.lone_partners(hands)
        centres = np.nonzero(live & (missing == 0))[0]
        colours = self._colour_attribute(column, constraints)
        if colours is not None:
            live_centres = np.nonzero(live)[0]
            first, _, orbit = groups(sequence_keys(1 - tile_bits(n, k)[live_centres], colours))
            if len(first) < len(centres):
                canon, union_rank, _ = groups(sequence_keys(tile_bits(n, 2 * k), colours))
                trivial = TileClasses.of(np.arange(n))  # nothing further to swap
                centres = live_centres[first]
                return _Alike(trivial, missing, lone, centres, canon, True, orbit, union_rank)
        canon = np.nonzero(tc.missing(unions) == 0)[0]
        return _Alike(tc, missing, lone, centres, canon, False)

    @cached_property
    def _colour_runs(self) -> np.ndarray:
        """For each hand, a number for the colours of its tiles in hand order."""
        u = self.universe
        colour = np.array(["RBG".index(t[0]) for t in u.tiles])
        return groups(sequence_keys(tile_bits(u.n, u.k), colour))[1]

    def _colour_attribute(self, column: np.ndarray, constraints: np.ndarray) -> np.ndarray | None:
        """If a hand's answer depends only on its colours in hand order, a label per
        tile (its colour and constraint class) whose sequence fixes a hand's answer
        and constraints."""
        if not _is_function_of(column, self._colour_runs):
            return None
        u = self.universe
        classes = interchangeable(u.n, u.k, constraints).label
        colour = np.array(["RBG".index(t[0]) for t in u.tiles])
        attribute = groups(colour * u.n + classes)[1]
        group = groups(sequence_keys(tile_bits(u.n, u.k), attribute))[1]
        return attribute if _is_function_of(constraints, group) else None

    def world_blocks(self) -> Iterator[tuple[np.ndarray, list[np.ndarray]]]:
        """The consistent worlds, as (centre, [hand of each other seat]) arrays.

        Each block holds every world of the centres it covers, so per-centre
        counts never straddle two blocks.
        """
        u, ok = self.universe, self.ok
        n, k = u.n, u.k
        if self.position.players == 3:
            a, b = self.others
            sp = hand_splits(n, k, k)
            world = ok[a][sp.first] & ok[b][sp.second] & self.target_ok[sp.rest]
            idx = np.nonzero(world)[0]
            yield sp.rest[idx], [sp.first[idx], sp.second[idx]]
            return
        a, b, c = self.others
        hp = hand_pairs(n, k)
        pair_rows = np.nonzero(ok[b][hp.first] & ok[c][hp.second])[0]  # sorted by union
        per_union = np.bincount(hp.rest[pair_rows], minlength=len(combos(n, 2 * k)))
        union_start = np.concatenate(([0], np.cumsum(per_union)))
        sp = hand_splits(n, k, 2 * k)
        split_rows = np.nonzero(
            ok[a][sp.first] & (per_union[sp.second] > 0) & self.target_ok[sp.rest]
        )[0]  # sorted by centre
        sizes = per_union[sp.second[split_rows]]
        ends = np.cumsum(sizes)
        centres = sp.rest[split_rows]
        begin = 0
        while begin < len(split_rows):
            base = ends[begin - 1] if begin else 0
            end = int(np.searchsorted(ends, base + CHUNK_WORLDS, side="right"))
            end = max(end, begin + 1)
            if end < len(split_rows):  # finish the last centre of the block
                end = int(np.searchsorted(centres, centres[end - 1], side="right"))
            rows = split_rows[begin:end]
            count = sizes[begin:end]
            which = np.repeat(np.arange(len(rows)), count)
            offset = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
            pair = pair_rows[union_start[sp.second[rows]][which] + offset]
            yield sp.rest[rows][which], [sp.first[rows][which], hp.first[pair], hp.second[pair]]
            begin = end


def _key(value: object) -> object:
    try:
        return answer_key(value)
    except TypeError:
        return object()


def analyse(position: Position) -> Deduction:
    """A :class:`Deduction` for a position (raises :class:`PositionError`)."""
    return Deduction(position)


__all__ = [
    "VARIANTS",
    "Candidate",
    "Deduction",
    "PositionError",
    "analyse",
    "face_up_variants",
]
