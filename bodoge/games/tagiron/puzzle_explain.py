"""Why a puzzle's answer is right, from the solver: what each log entry ruled out, and how each
answer to each face-up question would split the hands still fitting.

Every explanation is plain JSON, numbered as the page shows the log (entry 1 first):

* ``steps``: for each log entry that ruled a hand out, how many hands fitted after it and
  a few of those it ruled out (with 2 players, what each would have answered);
* ``options`` (``question``): each face-up question's value, bits and chance to settle the
  game, and its ``splits``: each answer it may get (by seat), its chance, and how many
  hands would be left.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from bodoge.core.values import JSON
from bodoge.games.tagiron.ai.histograms import compact
from bodoge.games.tagiron.ai.position import Position, Question
from bodoge.games.tagiron.ai.situation import Situation
from bodoge.games.tagiron.ai.solver import Deduction, Variant
from bodoge.games.tagiron.ai.worlds import VARIANT_INDEX, answer_value
from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.cards import answering_seats
from bodoge.games.tagiron.review_value import worths

#: Hands shown for the last entry that ruled some out, and for each earlier one.
LAST_EXAMPLES, EXAMPLES = 6, 3
#: Candidates listed in full when there are this few.
LISTED = 12
#: Answers shown per question, the likeliest first (the rest are summed up).
SPLITS = 10


def _prefix(position: Position, entries: int) -> Position:
    return Position(
        position.players, position.seat, position.hand, position.face_up, position.log[:entries]
    )


def candidate_sets(position: Position) -> list[tuple[str, ...]]:
    return [c.tiles for c in Deduction(position).ranked()]


def steps(position: Position) -> tuple[int, list[dict[str, JSON]]]:
    """The hands fitting before any entry, and what each entry that ruled some out did."""
    before = set(candidate_sets(_prefix(position, 0)))
    start = len(before)
    out: list[dict[str, JSON]] = []
    for i, entry in enumerate(position.log, start=1):
        after = set(candidate_sets(_prefix(position, i)))
        gone = sorted(before - after)
        before = after
        if not gone:
            continue
        shown: list[dict[str, JSON]] = []
        for tiles in gone:
            example: dict[str, JSON] = {"tiles": list(tiles)}
            if position.players == 2 and isinstance(entry, Question):
                example["answer"] = answer(entry.card, tiles, entry.choice)
            shown.append(example)
        out.append({"entry": i, "ruled_out": len(gone), "left": len(after), "examples": shown})
    for j, step in enumerate(out):
        keep = LAST_EXAMPLES if j == len(out) - 1 else EXAMPLES
        step["examples"] = step["examples"][:keep]
    return start, out


def declare_explanation(position: Position) -> dict[str, JSON]:
    start, found = steps(position)
    return {"start": start, "steps": found}


def count_explanation(position: Position) -> dict[str, JSON]:
    start, found = steps(position)
    sets = candidate_sets(position)
    listed: list[JSON] = [list(t) for t in sets] if len(sets) <= LISTED else []
    return {"start": start, "steps": found, "count": len(sets), "candidates": listed}


def tile_explanation(position: Position, slot: int) -> dict[str, JSON]:
    """Which tiles each entry ruled out at ``slot`` (0-based) until one was left."""

    def support(entries: int) -> set[str]:
        probabilities = Deduction(_prefix(position, entries)).slot_probabilities()[slot]
        return {t for t, p in probabilities.items() if p > 1e-12}

    before = support(0)
    start = sorted(before)
    found: list[JSON] = []
    for i in range(1, len(position.log) + 1):
        after = support(i)
        gone = sorted(before - after)
        if gone:
            found.append({"entry": i, "tiles": gone, "left": len(after)})
        before = after
    count = Deduction(position).candidate_count
    return {"slot": slot + 1, "start": start, "steps": found, "count": count}


def question_explanation(view: Mapping[str, JSON], seat: int, d: Deduction) -> dict[str, JSON]:
    """Every face-up question's worth and how its answers would split the hands, best first."""
    worth = worths(Situation(view, seat, d))
    options: list[JSON] = []
    for variant in sorted(worth, key=lambda v: -worth[v].value):
        w = worth[variant]
        shown, more = splits(d, variant)
        mine: JSON = None
        if seat in answering_seats(d.position.players, seat, variant[0]):
            mine = answer(variant[0], d.position.hand, variant[1])
        options.append(
            {
                "card": variant[0],
                "choice": variant[1],
                "value": round(w.value, 3),
                "bits": round(w.bits, 3),
                "settle": round(w.settle, 3),
                "mine": mine,
                "splits": shown,
                "more": more,
                "expected_left": round(
                    sum(s["share"] * s["left"] for s in shown) / max(1e-12, 1 - more),
                    2,
                ),
            }
        )
    return {"candidates": d.candidate_count, "options": options}


def splits(d: Deduction, variant: Variant) -> tuple[list[dict[str, JSON]], float]:
    """Each answer ``variant`` may get from the other seats: its chance (over the worlds
    still fitting) and how many distinct hands it would leave; the likeliest
    :data:`SPLITS`, and the chance of the rest."""
    u = d.universe
    index = VARIANT_INDEX[variant]
    nsets = len(u.sets)
    seats = d.others
    if d.position.players == 2:
        live = np.nonzero(d.counts)[0]
        codes = u.column(index)[live].astype(np.int64)
        sets = u.distinct[live].astype(np.int64)
        weight = d.counts[live]
        sizes = [int(codes.max()) + 1 if codes.size else 1]
        value_of: list[Callable[[int], JSON]] = [lambda i: answer_value(index, i)]
    else:
        columns = [compact(u.column(index), d.ok[s], index) for s in seats]
        code_parts: list[np.ndarray] = []
        set_parts: list[np.ndarray] = []
        for centre, hands in d.world_blocks():
            code = np.zeros(len(centre), dtype=np.int64)
            for (col, m), h in zip(columns, hands, strict=True):
                code = code * m + col[h]
            code_parts.append(code)
            set_parts.append(u.distinct[centre].astype(np.int64))
        codes = np.concatenate(code_parts) if code_parts else np.zeros(0, np.int64)
        sets = np.concatenate(set_parts) if set_parts else np.zeros(0, np.int64)
        weight = np.ones(len(codes))
        sizes = [m for _, m in columns]
        value_of = [
            _compact_value(u.column(index)[d.ok[s]], col[d.ok[s]], index)
            for s, (col, _) in zip(seats, columns, strict=True)
        ]
    total = float(weight.sum())
    keys, inverse = np.unique(codes, return_inverse=True)
    share = np.bincount(inverse, weights=weight) / total
    pairs = np.unique(inverse.astype(np.int64) * nsets + sets)
    left = np.bincount(pairs // nsets, minlength=len(keys))
    order = np.lexsort((keys, -share))
    out: list[dict[str, JSON]] = []
    for j in order[:SPLITS]:
        parts = _digits(int(keys[j]), sizes)
        answers = {
            str(s): value_of[i](p) for i, (s, p) in enumerate(zip(seats, parts, strict=True))
        }
        out.append({"answers": answers, "share": round(float(share[j]), 4), "left": int(left[j])})
    more = round(float(share[order[SPLITS:]].sum()), 4)
    return out, more


def _digits(code: int, sizes: list[int]) -> list[int]:
    out = []
    for m in reversed(sizes):
        out.append(code % m)
        code //= m
    return out[::-1]


def _compact_value(column: np.ndarray, col: np.ndarray, index: int) -> Callable[[int], JSON]:
    """The answer of a compacted id (``compact`` renumbers a seat's answer ids)."""
    lookup: dict[int, JSON] = {}
    for original, small in zip(column.tolist(), col.tolist(), strict=True):
        lookup.setdefault(small, answer_value(index, original))
    return lookup.__getitem__
