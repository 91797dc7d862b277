"""Histograms of answer codes, and the entropies read off them.

The solver's question values are sums of ``c log2 c`` over how many worlds
share each (centre, answers) cell; these helpers count such cells on numpy
arrays — densely while a histogram fits in memory, by sorting when it does
not — and renumber answers and centres so that the histograms stay small.

>>> entropy(np.array([1, 1, 2]))
1.5
>>> running_rank(np.array([3, 3, 5, 8, 8]))
array([0, 0, 1, 2, 2], dtype=int32)
>>> merged(np.array([7, 2, 7, 7]))
(array([2, 7]), array([1., 3.]))
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from bodoge.games.tagiron.ai.worlds import value_count

#: Largest histogram kept as a dense array; larger ones are counted by sorting.
DENSE_BINS = 6_000_000


def xlogx(counts: np.ndarray) -> float:
    c = counts[counts > 0].astype(np.float64)
    return float(np.dot(c, np.log2(c)))


def entropy(counts: np.ndarray) -> float:
    """Entropy in bits of a histogram (need not be normalised)."""
    total = float(counts.sum())
    if total <= 0:
        return 0.0
    return math.log2(total) - xlogx(counts) / total


def centre_blocks(
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


def running_rank(sorted_values: np.ndarray) -> np.ndarray:
    """``0, 0, 1, 1, 1, 2, ...``: the rank of each value in a sorted array."""
    step = np.empty(len(sorted_values), dtype=np.int32)
    if len(step):
        step[0] = 0
        np.not_equal(sorted_values[1:], sorted_values[:-1], out=step[1:], casting="unsafe")
    return np.cumsum(step, dtype=np.int32)


def keyed_xlogx(keys: np.ndarray, size: int) -> float:
    """``Σ c log2 c`` over the multiplicities of ``keys`` (each key below ``size``)."""
    if size <= min(DENSE_BINS, 4 * len(keys)):
        return xlogx(np.bincount(keys, minlength=size))
    return xlogx(merged(keys)[1])


def compact(column: np.ndarray, ok: np.ndarray, variant: int) -> tuple[np.ndarray, int]:
    """Answer ids renumbered ``0..m-1`` over the values that ``ok`` hands give."""
    present = np.zeros(value_count(variant) + 1, dtype=bool)
    present[column[ok]] = True
    rank = np.cumsum(present) - 1
    return rank[column].astype(np.int64), int(present.sum())


def binned(
    keys: np.ndarray, weights: np.ndarray | None, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys (sorted) and the weight gathered by each (1 per key by default)."""
    if size <= DENSE_BINS and size <= 16 * len(keys):
        dense = np.bincount(keys, weights=weights, minlength=size)
        found = np.nonzero(dense)[0]
        return found, dense[found].astype(np.float64)
    if weights is None:
        return merged(keys)
    order = np.argsort(keys)
    keys = keys[order]
    starts = np.flatnonzero(np.diff(keys, prepend=-1))
    return keys[starts], np.add.reduceat(weights[order], starts) if len(keys) else weights


def merged(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``key`` (sorted) and how many times each occurs."""
    if len(key) == 0:
        return key, np.zeros(0)
    key = np.sort(key.astype(np.int32) if key.max() < 2**31 else key)
    starts = np.flatnonzero(np.diff(key, prepend=key[0] - 1))
    return key[starts].astype(np.int64), np.diff(starts, append=len(key)).astype(np.float64)


def weighted_xlogx(cells: np.ndarray, row_weight: np.ndarray, col_weight: np.ndarray) -> float:
    """``Σ row_weight[i] · col_weight[j] · c log2 c`` over the cells ``c = cells[i, j] > 0``."""
    where = np.flatnonzero(cells)
    c = cells.ravel()[where]
    i, j = np.divmod(where, cells.shape[1])
    return float(np.sum(row_weight[i] * col_weight[j] * c * np.log2(c)))


def is_function_of(values: np.ndarray, group: np.ndarray) -> bool:
    """Whether ``values`` agree within each group (``group`` numbers ``0..g-1``)."""
    seen = np.zeros(int(group.max()) + 1, dtype=values.dtype)
    seen[group] = values
    return bool(np.array_equal(seen[group], values))
