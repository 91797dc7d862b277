"""What a question brings each seat nearer to certainty, the asker's rivals included.

With 3–4 players a question is answered by several seats at once and every
answer is public, so one question moves everybody: the asker learns the
others' answers, and each rival learns the answers of everyone but itself
(with 4 players everyone answers every card; with 3 the asker answers only a
shared one).  Declaring first is what wins, so what matters is how much
nearer a question brings the asker *against* its rivals.

Distances are counted in questions, as the game review counts them
(:data:`RATE` bits a question, measured on the normal bots' play): a
question whose answers are worth ``bits`` to a seat and leave it certain with
chance ``settle`` brings it ``settle + bits / RATE`` questions nearer.

A rival's gain is read from the rival's own deduction: this seat's worlds fix
every rival's hand, so for each rival the likeliest few hands it may hold
(:data:`HANDS_PER_RIVAL`, weighed by this seat's worlds) are given the same
public log, and what the question's heard answers would tell that deduction is
counted exactly (:func:`heard`).  That needs the worlds listed: with more than
:data:`MAX_WORLDS` (the opening, before any answer) nothing is known of the
rivals beyond what is known of oneself, and :func:`rival_gains` is ``None``.

>>> from bodoge.games.tagiron.ai.position import Position
>>> p = Position.from_json({"players": 3, "seat": 0, "hand": ["R2", "B2", "B3", "R4", "B8"],
...     "log": [{"seat": 0, "card": "red_sum", "answers": {"1": 13, "2": 15}},
...             {"seat": 1, "card": "blue_sum", "answers": {"0": 13, "2": 0}},
...             {"seat": 2, "card": "mid3_sum", "answers": {"0": 9, "1": 8}}]})
>>> d = Deduction(p)
>>> mine = heard(d, [("total_sum", None), ("odd_count", None)], asker=0)
>>> [round(b, 3) for b, _ in mine.values()] == [
...     round(b, 3) for b in d.question_bits([("total_sum", None), ("odd_count", None)]).values()]
True
>>> gains = rival_gains(d, [("total_sum", None), ("odd_count", None)], [1, 2])
>>> sorted(gains), all(b >= 0 and 0 <= p <= 1 for r in gains.values() for b, p in r.values())
([1, 2], True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from bodoge.games.tagiron.ai.histograms import compact, entropy, running_rank
from bodoge.games.tagiron.ai.rivals import list_worlds, rival_deduction
from bodoge.games.tagiron.ai.solver import Deduction, Variant, joint_answers
from bodoge.games.tagiron.ai.worlds import VARIANT_INDEX
from bodoge.games.tagiron.cards import answering_seats

#: Bits a seat's own question is worth on the way to certainty (the review's unit;
#: measured by ``bodoge tagiron selfplay --rate``, see :mod:`..review_rate`).
RATE = 3.75
#: This seat's worlds listed at most to read its rivals' gains.
MAX_WORLDS = 40_000
#: Hands per rival whose deduction is counted, the likeliest first.
HANDS_PER_RIVAL = 4
#: With more worlds than this, the chance that a question settles the game is
#: counted only for a question sure to settle it (see :func:`settle_chances`).
SETTLE_WORLDS = 100_000
#: With 3–4 players and more candidates than this, the same (listing the worlds of an
#: opening takes a second a question; the chance of settling there is tiny).
SETTLE_CANDIDATES = 64

#: What a question tells one seat: bits about the centre, and the chance to be certain.
Heard = tuple[float, float]


def heard(d: Deduction, variants: Sequence[Variant], asker: int) -> dict[Variant, Heard]:
    """For ``d``'s seat, if ``asker`` asks each variant: the bits the answers it hears
    tell it about the centre, and the chance they leave it certain.

    It hears every answering seat but itself (its own answer tells it nothing).
    With 3–4 players only; the bits equal :meth:`Deduction.question_bits` when
    ``asker`` is ``d``'s own seat.
    """
    u, players = d.universe, d.position.players
    seats = d.others
    nsets = len(u.sets)
    plans = []
    for v in variants:
        answering = answering_seats(players, asker, v[0])
        i = VARIANT_INDEX[v]
        plans.append(
            [(k, compact(u.column(i), d.ok[s], i)) for k, s in enumerate(seats) if s in answering]
        )
    hists: list[np.ndarray] = [np.zeros(0) for _ in variants]
    xlogx_ca = [0.0] * len(variants)
    pairs: list[list[np.ndarray]] = [[] for _ in variants]
    for centre, hands in d.world_blocks():
        centre_rank = running_rank(centre).astype(np.int64)
        n_centres = int(centre_rank[-1]) + 1
        sets = u.distinct[centre].astype(np.int64)
        for j, plan in enumerate(plans):
            code, hist, ca = joint_answers(
                [c for _, c in plan], [hands[k] for k, _ in plan], centre_rank, n_centres
            )
            hists[j] = hist if hists[j].size == 0 else hists[j] + hist
            xlogx_ca[j] += ca
            pairs[j].append(np.unique(code * nsets + sets))
    total = float(d.counts.sum())
    h_c = entropy(d.counts)
    out: dict[Variant, Heard] = {}
    for j, v in enumerate(variants):
        if hists[j].size == 0 or total <= 0:
            out[v] = (0.0, 0.0)
            continue
        h_ca = math.log2(total) - xlogx_ca[j] / total
        bits = max(0.0, h_c + entropy(hists[j]) - h_ca)
        keyed = np.unique(np.concatenate(pairs[j]))
        per_code = np.bincount(keyed // nsets, minlength=hists[j].size)
        settle = float(hists[j][per_code == 1].sum() / total)
        out[v] = (bits, settle)
    return out


def rival_gains(
    d: Deduction,
    variants: Sequence[Variant],
    rivals: Sequence[int],
    *,
    hands_per_rival: int = HANDS_PER_RIVAL,
    max_worlds: int = MAX_WORLDS,
) -> dict[int, dict[Variant, Heard]] | None:
    """Per rival, what each variant (asked by ``d``'s seat) tells it: the bits and the
    chance to be certain, averaged over its likeliest hands by this seat's worlds;
    ``None`` when the worlds are too many to list.  Remembered on ``d``."""
    memo = d.__dict__.setdefault("_rival_gains", {})
    key = (tuple(variants), tuple(rivals), hands_per_rival, max_worlds)
    if key not in memo:
        memo[key] = _rival_gains(d, variants, rivals, hands_per_rival, max_worlds)
    found: dict[int, dict[Variant, Heard]] | None = memo[key]
    return found


def _rival_gains(
    d: Deduction,
    variants: Sequence[Variant],
    rivals: Sequence[int],
    hands_per_rival: int,
    max_worlds: int,
) -> dict[int, dict[Variant, Heard]] | None:
    if d.position.players == 2:
        return None
    worlds = list_worlds(d, max_worlds)
    if worlds is None:
        return None
    me = d.position.seat
    out: dict[int, dict[Variant, Heard]] = {}
    for rival in rivals:
        hands, weight = np.unique(worlds.hands[rival], return_counts=True)
        total = np.zeros((len(variants), 2))
        weighed = 0.0
        for i in np.argsort(-weight, kind="stable")[:hands_per_rival]:
            theirs = rival_deduction(d, rival, hands[i])
            if theirs is None:
                continue
            worth = heard(theirs, variants, asker=me)
            total += weight[i] * np.array([worth[v] for v in variants])
            weighed += float(weight[i])
        if weighed:
            total /= weighed
        out[rival] = {v: (float(b), float(p)) for v, (b, p) in zip(variants, total, strict=True)}
    return out


def rivals_given(
    gains: Mapping[int, Mapping[Variant, Heard]], variant: Variant, settle: float
) -> float:
    """The questions ``variant`` brings an average rival nearer, as the asker weighs it:
    the rival's chance to be certain too (a place shared in the race), and its bits
    while the game goes on for the asker (``1 - settle``: a certain asker declares)."""
    if not gains:
        return 0.0
    total = 0.0
    for g in gains.values():
        bits, sure = g[variant]
        total += sure + (1 - settle) * bits / RATE
    return total / len(gains)


def settle_chances(
    d: Deduction, variants: Sequence[Variant], bits: Mapping[Variant, float]
) -> dict[Variant, float]:
    """For each variant, the chance that its answers leave ``d``'s seat certain."""
    if d.certain:
        return dict.fromkeys(variants, 1.0)
    players = d.position.players
    if players > 2 and (d.candidate_count > SETTLE_CANDIDATES or d.worlds > SETTLE_WORLDS):
        # sure to settle iff its answers tell everything the seat lacks
        lacking = entropy(d.set_weights)
        return {v: 1.0 if bits[v] >= lacking - 1e-9 else 0.0 for v in variants}
    u = d.universe
    nsets = len(u.sets)
    ids = [VARIANT_INDEX[v] for v in variants]
    if players == 2:
        live = np.nonzero(d.counts)[0]
        weight = d.counts[live]
        out = {}
        for v, i in zip(variants, ids, strict=True):
            out[v] = _settled(u.column(i)[live], u.distinct[live], weight, nsets)
        return out
    seats = d.others
    columns = [[compact(u.column(i), d.ok[s], i) for s in seats] for i in ids]
    keys: list[list[np.ndarray]] = [[] for _ in ids]
    hists: list[np.ndarray] = [np.zeros(0) for _ in ids]
    for centre, hands in d.world_blocks():
        sets = u.distinct[centre].astype(np.int64)
        for j, cols in enumerate(columns):
            code = np.zeros(len(centre), dtype=np.int64)
            size = 1
            for (col, m), h in zip(cols, hands, strict=True):
                code = code * m + col[h]
                size *= m
            hist = np.bincount(code, minlength=size).astype(np.float64)
            hists[j] = hist if hists[j].size == 0 else hists[j] + hist
            keys[j].append(np.unique(code * nsets + sets))
    out = {}
    for j, v in enumerate(variants):
        if not keys[j]:
            out[v] = 0.0
            continue
        pairs = np.unique(np.concatenate(keys[j]))
        per_code = np.bincount(pairs // nsets, minlength=hists[j].size)
        total = hists[j].sum()
        out[v] = float(hists[j][per_code == 1].sum() / total) if total else 0.0
    return out


def _settled(code: np.ndarray, sets: np.ndarray, weight: np.ndarray, nsets: int) -> float:
    """The weight of the answers that leave one set, over all the weight."""
    code = code.astype(np.int64)
    pairs = np.unique(code * nsets + sets.astype(np.int64))
    size = int(code.max()) + 1 if code.size else 0
    per_code = np.bincount(pairs // nsets, minlength=size)
    hist = np.bincount(code, weights=weight, minlength=size)
    total = hist.sum()
    return float(hist[per_code == 1].sum() / total) if total else 0.0
