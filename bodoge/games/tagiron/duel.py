"""The 2-player expert: a question ahead, what the opponent hears, and when to guess.

:class:`DuelExpert` chooses the expert's move with 2 players (see
``docs/solver.md``, "Bots").
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bodoge.core.game import Move
from bodoge.games.tagiron.cards import CARDS, cards_for
from bodoge.games.tagiron.position import Position, Question
from bodoge.games.tagiron.rules import Pass
from bodoge.games.tagiron.situation import TIE, Situation, pick
from bodoge.games.tagiron.solver import Deduction, Variant, face_up_variants
from bodoge.games.tagiron.worlds import (
    VARIANT_INDEX,
    VARIANTS,
    answer_id,
    hand_answer_ids,
    universe,
    value_count,
)

JSON = Any

_CARD_VARIANTS: dict[str, list[int]] = {}
for _i, (_card, _choice) in enumerate(VARIANTS):
    _CARD_VARIANTS.setdefault(_card, []).append(_i)


def unseen_deck(view: Mapping[str, JSON]) -> list[str]:
    """Cards still in the deck: neither face up nor asked (their order is hidden)."""
    asked = {e["card"] for e in view["log"] if e.get("type", "question") == "question"}
    face_up = set(view["face_up"])
    return [c for c in cards_for(view["players"]) if c not in asked and c not in face_up]


def _cost_leaf(n: np.ndarray, per_question: float) -> np.ndarray:
    """Questions still needed, roughly, with ``n`` distinct candidates left."""
    return np.where(n <= 1, 0.0, 1.0 + np.log2(np.maximum(n, 1)) / per_question - 1 / per_question)


def lookahead_costs(
    d: Deduction, face_up: Sequence[str], deck: Sequence[str], per_question: float = 2.6
) -> dict[Variant, float]:
    """Expected questions until certain if each variant is asked now (2 players).

    Looks two questions deep: after the first answer, the best second question
    among the cards then face up (the others, plus a card drawn at random from
    ``deck``), then a rough estimate from the number of candidates left.
    """
    u = d.universe
    live = np.nonzero(d.counts)[0]
    table = u.answers[:, live].astype(np.int64)
    distinct = u.distinct[live].astype(np.int64)
    n_sets = int(distinct.max()) + 1
    variants_now = [VARIANT_INDEX[v] for v in face_up_variants(face_up)]
    m = max(value_count(v) for v in range(len(VARIANTS)))
    # all candidate second questions: the face-up ones and the deck's
    second = sorted({*variants_now, *(i for c in deck for i in _CARD_VARIANTS[c])})
    out: dict[Variant, float] = {}
    for q in variants_now:
        aq = table[q]
        na = int(aq.max()) + 1
        # for each (second variant, first answer, second answer): distinct sets left, weight
        key = (np.arange(len(second))[:, None] * na + aq[None, :]) * m + table[second]
        key = key * n_sets + distinct[None, :]
        cells, weight = np.unique(key, return_counts=True)
        group = cells // n_sets
        groups, inverse = np.unique(group, return_inverse=True)
        sets_in = np.bincount(inverse)
        w = np.bincount(inverse, weights=weight)
        leaf = _cost_leaf(sets_in, per_question)
        v_idx, rest = np.divmod(groups, na * m)
        a_idx = rest // m
        # expected leaf cost after asking v second, for each first answer a
        cost = np.zeros((len(second), na))
        mass = np.zeros((len(second), na))
        np.add.at(cost, (v_idx, a_idx), w * leaf)
        np.add.at(mass, (v_idx, a_idx), w)
        with np.errstate(invalid="ignore", divide="ignore"):
            after = np.where(mass > 0, cost / np.maximum(mass, 1e-300), 0.0)
        branch_w = np.bincount(aq, minlength=na).astype(np.float64)
        branch_sets = np.array(
            [len(np.unique(distinct[aq == a])) if branch_w[a] else 0 for a in range(na)]
        )
        card_q = VARIANTS[q][0]
        kept = [i for i, v in enumerate(second) if v in variants_now and VARIANTS[v][0] != card_q]
        best_kept = after[kept].min(axis=0) if kept else np.full(na, np.inf)
        if deck:
            per_card = []
            for c in deck:
                rows = [second.index(v) for v in _CARD_VARIANTS[c]]
                per_card.append(np.minimum(best_kept, after[rows].min(axis=0)))
            best = np.mean(per_card, axis=0)
        else:
            best = best_kept
        best = np.where(np.isinf(best), _cost_leaf(branch_sets, per_question), best)
        branch_cost = np.where(branch_sets <= 1, 0.0, 1.0 + best)
        out[VARIANTS[q]] = 1.0 + float(np.dot(branch_w, branch_cost) / branch_w.sum())
    return out


@dataclass(frozen=True)
class Rival:
    """What the 2-player opponent likely knows about this seat's hand."""

    #: Chance the opponent is already certain (it will declare right on its turn).
    certain: float
    #: Chance it becomes certain with its next question (and declares the turn after).
    soon: float
    #: The opponent's chance of naming this seat's hand if it had to guess now.
    guess: float


def public_hands(position: Position) -> np.ndarray:
    """Indices in the all-tiles universe of the hands that fit this seat's public answers."""
    everything = universe((), position.k)
    ok = np.ones(len(everything.hands), dtype=bool)
    for entry in position.log:
        if isinstance(entry, Question):
            for s, given in entry.answers:
                if s == position.seat:
                    v = VARIANT_INDEX[entry.card, entry.choice]
                    ok &= everything.answers[v] == answer_id(v, given)
    return np.nonzero(ok)[0]


def rival_knowledge(s: Situation, *, limit: int = 400) -> Rival | None:
    """Estimate the opponent's knowledge of this seat's hand, if few hands are in play.

    For each hand the opponent may hold (this seat's posterior), the opponent's
    candidates for this seat are the public-consistent hands disjoint from it.
    ``None`` when there are too many hypotheses to look at cheaply.
    """
    d = s.deduction
    live = np.nonzero(d.counts)[0]
    if len(live) > limit:
        return None
    everything = universe((), d.position.k)
    public = public_hands(d.position)
    if len(live) * len(public) > 4_000_000:
        return None
    theirs = d.universe.physical_masks()[live]
    mine_masks = everything.hands[public]
    disjoint = (theirs[:, None] & mine_masks[None, :]) == 0
    sets = everything.distinct[public]
    n_sets = int(sets.max()) + 1
    my_ids = hand_answer_ids(d.position.hand)
    face_up = [VARIANT_INDEX[v] for v in s.variants]
    weights = d.counts[live]
    certain = soon = guess = 0.0
    for row, w in zip(disjoint, weights, strict=True):
        cand = np.nonzero(row)[0]
        per_set = np.bincount(sets[cand], minlength=n_sets)
        guess += w * per_set.max() / len(cand)
        if np.count_nonzero(per_set) == 1:
            certain += w
            continue
        # the opponent's likeliest next question: the most informative for it
        best, best_bits = None, -1.0
        for v in face_up:
            bits = _bits_of(everything.answers[v, public[cand]])
            if bits > best_bits + TIE:
                best, best_bits = v, bits
        if best is not None:
            same = cand[everything.answers[best, public[cand]] == my_ids[best]]
            if len(np.unique(sets[same])) == 1:
                soon += w
    total = float(weights.sum())
    return Rival(certain / total, soon / total, guess / total)


def _bits_of(codes: np.ndarray) -> float:
    counts = np.bincount(codes)
    p = counts[counts > 0] / len(codes)
    return float(-(p * np.log2(p)).sum())


def split_after(d: Deduction, variant: Variant) -> list[tuple[float, float, int]]:
    """Per answer to ``variant``: its chance, the then likeliest target's chance, candidates."""
    u = d.universe
    live = np.nonzero(d.counts)[0]
    codes = u.answers[VARIANT_INDEX[variant], live]
    total = d.counts[live].sum()
    out = []
    for a in np.unique(codes):
        rows = live[codes == a]
        per_set = np.bincount(u.distinct[rows], weights=d.counts[rows])
        mass = per_set.sum()
        out.append(
            (float(mass / total), float(per_set.max() / mass), int(np.count_nonzero(per_set)))
        )
    return out


#: Bits one question tells, about, in the middle of a 2-player game.
BITS_PER_QUESTION = 2.6
#: How much a bit told to the opponent (by a shared card) weighs against one learnt.
LEAK = 1.0


def shared_leaks(d: Deduction, variants: Sequence[Variant]) -> dict[Variant, float]:
    """Bits a shared card's answer from this seat tells the opponent about this hand.

    The opponent's view of this hand is taken as every hand that fits this
    seat's public answers (ignoring the opponent's own tiles).
    """
    shared = [v for v in variants if CARDS[v[0]].shared]
    if not shared:
        return {}
    everything = universe((), d.position.k)
    public = public_hands(d.position)
    mine = hand_answer_ids(d.position.hand)
    out = {}
    for variant in shared:
        v = VARIANT_INDEX[variant]
        agree = np.count_nonzero(everything.answers[v, public] == mine[v])
        out[variant] = float(np.log2(len(public) / max(agree, 1)))
    return out


#: How much of the remaining race a not-yet-certain seat is taken to win later.
LATER = 0.6


def declare_now(s: Situation, question: Variant, rival: Rival | None) -> bool:
    """Whether naming the likeliest hand now beats asking ``question`` (2 players).

    Both lead to the opponent's turn; compare the chance of winning now plus
    what a wrong guess still teaches (one candidate fewer) against what the
    question's answer teaches, each followed by the opponent's turn.
    """
    d = s.deduction
    ranked = d.ranked(2)
    p1 = ranked[0].probability
    first = s.view["first"] == s.seat
    r = rival or Rival(0.0, 0.0, 0.0)
    # the value of a right declaration: as first player the opponent may still draw
    win = 1.0 - 0.5 * r.guess if first else 1.0
    later = LATER * (1.0 - r.soon)

    def value(top: float, count: int) -> float:
        """At the next turn, if the opponent has not won meanwhile."""
        if count <= 1:
            return win
        return win * (top + (1 - top) * later)

    def lost_turn(top: float) -> float:
        """The opponent declares right on its turn: a final guess if it went first."""
        return 0.5 * top if not first else 0.0

    # after a wrong guess: the rest, renormalised
    rest_top = ranked[1].probability / (1 - p1) if len(ranked) > 1 and p1 < 1 else 1.0
    rest_count = d.candidate_count - 1
    declare = p1 * win + (1 - p1) * (
        r.certain * lost_turn(rest_top) + (1 - r.certain) * value(rest_top, rest_count)
    )
    ask = sum(
        w * (r.certain * lost_turn(top) + (1 - r.certain) * value(top, count))
        for w, top, count in split_after(d, question)
    )
    return declare >= ask  # a tie: a chance to win now is worth more than the model says


class DuelExpert:
    """The expert's choice with 2 players."""

    def __init__(self, *, leak: float | None = None) -> None:
        #: The weight of bits a shared card tells the opponent (0 when asking alone).
        self.leak = LEAK if leak is None else leak

    def choose(self, s: Situation, rng: random.Random) -> Move | None:
        d = s.deduction
        if not s.my_turn:
            return None
        if s.last_chance:
            return s.declare_best()
        if not s.may_ask:
            return Pass()
        costs = lookahead_costs(d, s.view["face_up"], unseen_deck(s.view))
        if self.leak:
            for variant, leak in shared_leaks(d, costs).items():
                costs[variant] += self.leak * leak / BITS_PER_QUESTION
        top = min(costs.values())
        question = pick([v for v, c in costs.items() if c <= top + TIE], rng)
        if d.candidate_count <= 30:
            rival = rival_knowledge(s)
            if declare_now(s, (question.card, question.choice), rival):
                return s.declare_best()
        return question
