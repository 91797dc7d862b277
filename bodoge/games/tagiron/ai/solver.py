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
and hands that the question and the answers so far cannot tell apart
(:mod:`~bodoge.games.tagiron.ai.symmetry`; the histograms both count are in
:mod:`~bodoge.games.tagiron.ai.histograms`).

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
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from bodoge.games.tagiron.ai.histograms import compact, entropy, keyed_xlogx, running_rank
from bodoge.games.tagiron.ai.position import (
    Declaration,
    Position,
    PositionError,
    Question,
    dumps,
)
from bodoge.games.tagiron.ai.symmetry import CollapsedSum, colour_runs_of, four_plan
from bodoge.games.tagiron.ai.worlds import (
    VARIANT_INDEX,
    VARIANTS,
    Universe,
    answer_id,
    answer_key,
    combos,
    hand_pairs,
    hand_splits,
    universe,
)
from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.tiles import TILE_CODES

Variant = tuple[str, int | None]

#: Worlds enumerated at once when valuing questions (bounds memory, not results).
CHUNK_WORLDS = 3_000_000
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


def joint_answers(
    columns: Sequence[tuple[np.ndarray, int]],
    hands: Sequence[np.ndarray],
    centre_rank: np.ndarray,
    n_centres: int,
) -> tuple[np.ndarray, np.ndarray, float]:
    """The answers that several seats give together, over one block of worlds.

    ``columns[k]`` is seat ``k``'s compacted answer column and its value count
    (see :func:`.histograms.compact`), ``hands[k]`` that seat's hand in each
    world, and ``centre_rank`` each world's centre ranked ``0..n_centres-1``.
    Returns each world's joint answer code, the histogram of the codes, and
    ``Σ c log2 c`` over the (centre, code) pairs, the two sums the mutual
    information between the centre and the answers needs.
    """
    code = np.zeros(len(centre_rank), dtype=np.int64)
    size = 1
    for (col, m), h in zip(columns, hands, strict=True):
        code = code * m + col[h]
        size *= m
    hist = np.bincount(code, minlength=size)
    # only the codes that occur are keyed, so keys stay below n_centres * width
    present = hist > 0
    rank = np.cumsum(present) - 1
    width = int(present.sum())
    return code, hist, keyed_xlogx(centre_rank * width + rank[code], n_centres * width)


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

    def slot_probabilities(self, seat: int | None = None) -> list[dict[str, float]]:
        """For each position of a hidden hand in hand order, each tile's probability.

        The target's unless ``seat`` names another seat, whose hand is then the one
        (with 3–4 players the centre is the target, and each opponent's hand is
        weighed by the same worlds: see :meth:`hand_weights`).
        """
        weights = self.counts if seat is None else self.hand_weights()[seat]
        u, p = self.universe, weights / weights.sum()
        out = []
        for i in range(u.k):
            by_code = np.bincount(u.slot_code[:, i], weights=p, minlength=len(TILE_CODES))
            out.append({TILE_CODES[c]: float(by_code[c]) for c in np.nonzero(by_code > 1e-15)[0]})
        return out

    def hand_weights(self) -> dict[int, np.ndarray]:
        """Worlds per hand (physical numbering of the universe) of each other seat.

        With 2 players the other seat's hand is the target.  With 3–4 players
        each opponent's hand is counted over the same consistent worlds as the
        centre, with the sums :meth:`_target_counts` makes, turned round: per
        split row (3 players), or per split row and per pair of hands keyed by
        their union (4 players).  No world is listed: each is a few vectorised
        passes over the ~0.8–0.9 million rows of the pair and split tables.
        """
        found: dict[int, np.ndarray] | None = self.__dict__.get("_hand_weights")
        if found is None:
            found = self.__dict__["_hand_weights"] = self._hand_weights()
        return found

    def _hand_weights(self) -> dict[int, np.ndarray]:
        players, n, k = self.position.players, self.universe.n, self.universe.k
        size, ok = len(self.universe.hands), self.ok
        if players == 2:
            return {self.others[0]: self.counts}
        if players == 3:
            a, b = self.others
            sp = hand_splits(n, k, k)
            world = ok[a][sp.first] & ok[b][sp.second] & self.target_ok[sp.rest]
            return {
                a: np.bincount(sp.first[world], minlength=size).astype(np.float64),
                b: np.bincount(sp.second[world], minlength=size).astype(np.float64),
            }
        a, b, c = self.others
        hp, sp = hand_pairs(n, k), hand_splits(n, k, 2 * k)
        unions = len(combos(n, 2 * k))
        both = ok[b][hp.first] & ok[c][hp.second]
        pair_weight = np.bincount(hp.rest[both], minlength=unions)
        # a's hand with a union of b's and c's and the centre they leave
        split_ok = ok[a][sp.first] & self.target_ok[sp.rest]
        split_weight = np.where(split_ok, pair_weight[sp.second], 0).astype(np.float64)
        # each union's worlds on a's side, for every pair of hands b and c that make it
        union_weight = np.bincount(sp.second[split_ok], minlength=unions).astype(np.float64)
        pair_rows = np.where(both, union_weight[hp.rest], 0.0)
        return {
            a: np.bincount(sp.first, weights=split_weight, minlength=size),
            b: np.bincount(hp.first, weights=pair_rows, minlength=size),
            c: np.bincount(hp.second, weights=pair_rows, minlength=size),
        }

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
        columns = [[compact(u.column(v), self.ok[s], v) for s in seats] for v in ids]
        hist_a: list[np.ndarray] = [np.zeros(0) for _ in ids]
        xlogx_ca = [0.0] * len(ids)
        for centre, hands in self.world_blocks():
            # blocks come sorted by centre, so ranks are a running count of changes
            centre_rank = running_rank(centre).astype(np.int64)
            n_centres = int(centre_rank[-1]) + 1
            for j, cols in enumerate(columns):
                _, hist, ca = joint_answers(cols, hands, centre_rank, n_centres)
                hist_a[j] = hist if hist_a[j].size == 0 else hist_a[j] + hist
                xlogx_ca[j] += ca
        total = float(self.counts.sum())
        h_c = entropy(self.counts)
        out = []
        for j in range(len(ids)):
            h_a = entropy(hist_a[j])
            h_ca = math.log2(total) - xlogx_ca[j] / total
            out.append(max(0.0, h_c + h_a - h_ca))
        return out

    def _four_plan(self, variant: int, budget: float = math.inf) -> CollapsedSum | None:
        """One question's 4-player sum, collapsed by symmetry (see :func:`.symmetry.four_plan`)."""
        return four_plan(
            self.universe, self.ok, self.others, self.counts, self._colour_runs, variant, budget
        )

    @cached_property
    def _colour_runs(self) -> np.ndarray:
        # kept per deduction: every question of one decision reads it again
        return colour_runs_of(self.universe)

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
