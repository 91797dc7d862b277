"""The 4-player question value, collapsed by symmetry.

With 4 players the 63,063,000 worlds are too many to list for every
question.  :func:`four_plan` builds one question's joint answer counts as a
:class:`CollapsedSum`: sets of tiles that the question and the answers so far
cannot tell apart are taken once, weighted by how many they stand for, and
seats with the same constraints are counted once per unordered pair (or
sorted triple) of answers; :meth:`CollapsedSum.bits` then expands it block by
block into the mutual information between the centre and the answers.  See
``docs/solver.md``, "The information of a question".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from bodoge.games.tagiron.ai.histograms import (
    binned,
    centre_blocks,
    compact,
    entropy,
    is_function_of,
    merged,
    weighted_xlogx,
)
from bodoge.games.tagiron.ai.worlds import (
    TileClasses,
    Universe,
    combos,
    groups,
    hand_pairs,
    hand_partners,
    hand_splits,
    interchangeable,
    sequence_keys,
    tile_bits,
)

#: Blocks of the collapsed 4-player sum: entries, and (centre, answers) cells, at most;
#: small enough for the histograms to stay in cache.
BLOCK_ENTRIES = 1_000_000
BLOCK_CELLS = 2_000_000
#: Answer spaces up to this size are binned with the centre at once.
NARROW = 4096


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
class CollapsedSum:
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
        sum_xlogx = 0.0
        max_centres = max(1, BLOCK_CELLS // width)
        for begin, end in centre_blocks(ends, self.centre_rank, BLOCK_ENTRIES, max_centres):
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
                sum_xlogx += weighted_xlogx(cells, orbit, self.orders)
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
            sum_xlogx += weighted_xlogx(cells, orbit, self.orders[present])
        total = float(counts.sum())
        h_a = math.log2(total) - weighted_xlogx(hist[None, :], np.ones(1), self.orders) / total
        h_ca = math.log2(total) - sum_xlogx / total
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
    keys, mult = binned(code, ways, n_union * width_bc)
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
        row_key, row_ways = merged((centre_rank * m_a + x) * n_union + s_rank)
        centre_rank, row_key = np.divmod(row_key, m_a * n_union)
        x, s_rank = np.divmod(row_key, n_union)
    return _Rows(centre_rank, s_rank, x, row_ways)


def four_plan(
    u: Universe,
    ok: dict[int, np.ndarray],
    seats: Sequence[int],
    counts: np.ndarray,
    colour_runs: np.ndarray,
    variant: int,
    budget: float = math.inf,
) -> CollapsedSum | None:
    """One question's joint answer counts with 4 players, collapsed by symmetry.

    See ``docs/solver.md``.  Sets of tiles that the question and the
    constraints cannot tell apart are taken once, weighted by how many
    they stand for: either tiles in one class may be swapped freely (sets
    with the same count from each class are alike), or, when the answers
    depend on the colours only, sets whose tiles read the same colours in
    hand order are alike.  Seats with the same constraints answer alike
    too, so the answers of two such seats are counted once per unordered
    pair (of three, once per sorted triple), weighted by the orders they
    stand for.  ``colour_runs`` is ``colour_runs_of(u)``, kept by the caller.
    ``None`` if the sum would take more than ``budget`` rows.
    """
    n, k = u.n, u.k
    column = u.column(variant)
    a, b, c = _alike_last(ok, seats)
    pair = np.array_equal(ok[b], ok[c])
    full = pair and np.array_equal(ok[a], ok[b])
    live = counts > 0
    constraints = ok[a] * 8 + ok[b] * 4 + ok[c] * 2 + live
    alike = _alike_sets(u, column, constraints, live, colour_runs)
    per_union, per_hand = math.comb(2 * k, k), math.comb(n - k, k)
    seats_b = np.flatnonzero(ok[b])
    by_hand = len(seats_b) * per_hand < len(alike.canon) * per_union
    pair_rows = min(len(seats_b) * per_hand, len(alike.canon) * per_union)
    if pair_rows + len(alike.centres) * per_hand > budget:
        return None
    alike = alike.counted(n, k)
    col_a, m_a = compact(column, ok[a], variant)
    col_b, m_b = compact(column, ok[b], variant)
    col_c, m_c = compact(column, ok[c], variant)
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
    return CollapsedSum(
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


def _alike_sets(
    u: Universe,
    column: np.ndarray,
    constraints: np.ndarray,
    live: np.ndarray,
    colour_runs: np.ndarray,
) -> _Alike:
    """The centres and unions one question's 4-player sum takes once (see :func:`four_plan`).

    The orbits of sets alike by classes of tiles are left to be counted
    (:meth:`_Alike.counted`) once the sum is known to be worth building.
    """
    n, k = u.n, u.k
    tc = interchangeable(n, k, column.astype(np.int64) * 16 + constraints)
    hands, unions = combos(n, k), combos(n, 2 * k)
    missing, lone = tc.missing(hands), tc.lone_partners(hands)
    centres = np.nonzero(live & (missing == 0))[0]
    colours = _colour_attribute(u, column, constraints, colour_runs)
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


def colour_runs_of(u: Universe) -> np.ndarray:
    """For each hand, a number for the colours of its tiles in hand order."""
    colour = np.array(["RBG".index(t[0]) for t in u.tiles])
    return groups(sequence_keys(tile_bits(u.n, u.k), colour))[1]


def _colour_attribute(
    u: Universe, column: np.ndarray, constraints: np.ndarray, colour_runs: np.ndarray
) -> np.ndarray | None:
    """If a hand's answer depends only on its colours in hand order, a label per
    tile (its colour and constraint class) whose sequence fixes a hand's answer
    and constraints."""
    if not is_function_of(column, colour_runs):
        return None
    classes = interchangeable(u.n, u.k, constraints).label
    colour = np.array(["RBG".index(t[0]) for t in u.tiles])
    attribute = groups(colour * u.n + classes)[1]
    group = groups(sequence_keys(tile_bits(u.n, u.k), attribute))[1]
    return attribute if is_function_of(constraints, group) else None
