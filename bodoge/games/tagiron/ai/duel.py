"""The 2-player expert: questions by rollout, what the opponent gets, and when to guess.

:class:`DuelExpert` chooses the expert's move with 2 players (see
``docs/solver.md``, "Bots"): the normal bot's question unless a rollout
(:mod:`~bodoge.games.tagiron.ai.rollout`) finds one that needs clearly fewer
questions until certain, less what a question gives the opponent, and a
declaration when naming the likeliest hand now is worth more than asking.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bodoge.core.values import JSON
from bodoge.games.tagiron.ai.histograms import entropy
from bodoge.games.tagiron.ai.rivals import public_hands, told_by_my_answers
from bodoge.games.tagiron.ai.rollout import sample_costs
from bodoge.games.tagiron.ai.situation import TIE, Situation, best_variants, pick
from bodoge.games.tagiron.ai.solver import Deduction, Variant, face_up_variants
from bodoge.games.tagiron.ai.worlds import (
    VARIANT_INDEX,
    hand_answer_ids,
    universe,
)
from bodoge.games.tagiron.cards import cards_for
from bodoge.games.tagiron.moves import Ask, Pass, TagironMove


def unseen_deck(view: Mapping[str, JSON]) -> list[str]:
    """Cards still in the deck: neither face up nor asked (their order is hidden)."""
    asked = {e["card"] for e in view["log"] if e.get("type", "question") == "question"}
    face_up = set(view["face_up"])
    return [c for c in cards_for(view["players"]) if c not in asked and c not in face_up]


@dataclass(frozen=True)
class Rival:
    """What the 2-player opponent likely knows about this seat's hand."""

    #: Chance the opponent is already certain (it will declare right on its turn).
    certain: float
    #: Chance it becomes certain with its next question (and declares the turn after).
    soon: float
    #: The opponent's chance of naming this seat's hand if it had to guess now.
    guess: float


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
            bits = entropy(np.bincount(everything.answers[v, public[cand]]))
            if bits > best_bits + TIE:
                best, best_bits = v, bits
        if best is not None:
            same = cand[everything.answers[best, public[cand]] == my_ids[best]]
            if len(np.unique(sets[same])) == 1:
                soon += w
    total = float(weights.sum())
    return Rival(certain / total, soon / total, guess / total)


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


def rival_bits(d: Deduction, cards: Sequence[str]) -> dict[str, float]:
    """For each card, the most bits its answer from this seat would tell the opponent.

    The opponent's view of this hand is taken as every hand that fits this
    seat's public answers (:func:`~bodoge.games.tagiron.ai.rivals.public_hands`).
    """
    everything = universe((), d.position.k)
    public = public_hands(d.position)
    out = {}
    for card in dict.fromkeys(cards):
        out[card] = max(
            entropy(np.bincount(everything.answers[VARIANT_INDEX[v], public]))
            for v in face_up_variants([card])
        )
    return out


def left_to_rival(d: Deduction, face_up: Sequence[str], deck: Sequence[str]) -> dict[str, float]:
    """For each face-up card asked now: what the opponent's best question is then worth.

    The opponent chooses among the other face-up cards and the one that
    refills the slot (each card of the deck alike); the value is its best
    question's bits about this hand, averaged over the refill.
    """
    worth = rival_bits(d, [*face_up, *deck])
    out = {}
    for card in face_up:
        rest = max((worth[c] for c in face_up if c != card), default=0.0)
        out[card] = float(np.mean([max(rest, worth[c]) for c in deck])) if deck else rest
    return out


#: Bits one question tells, about, in the middle of a 2-player game.
BITS_PER_QUESTION = 2.6
#: How much a bit told to the opponent (by a shared card) weighs against one learnt.
LEAK = 1.0
#: How much a bit the opponent's next question is worth weighs against one learnt.
DENY = 1.0
#: Truths (deck orders × questions now × live hands) a rollout may follow, about.
BUDGET = 100_000
#: Deck orders sampled per decision, at least (else the greedy choice stands) and at most.
MIN_SAMPLES = 8
MAX_SAMPLES = 64
#: Expected questions a rollout must save to overrule the greedy choice, and standard errors.
MARGIN = 0.02
CONFIDENCE = 1.0


#: How much of the remaining race a not-yet-certain seat is taken to win later.
LATER = 0.6
#: A guess before certainty is weighed only with this many candidates or fewer.
GUESS_CANDIDATES = 30


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
    """The expert's choice with 2 players.

    ``alone`` is for measuring questioning by itself: the opponent never asks,
    so no card leaves the table on its turns and nothing is told to it.
    """

    def __init__(
        self,
        *,
        leak: float | None = None,
        deny: float | None = None,
        alone: bool = False,
        budget: int = BUDGET,
    ) -> None:
        #: The weight of bits a shared card tells the opponent.
        self.leak = 0.0 if alone else LEAK if leak is None else leak
        #: The weight of the bits the opponent's next question is worth.
        self.deny = 0.0 if alone else DENY if deny is None else deny
        self.alone = alone
        self.budget = budget

    def charges(self, s: Situation) -> dict[Variant, float]:
        """Bits each face-up variant gives the opponent: a shared answer, and the cards left.

        ``leak`` weighs what this seat's own answer to a shared card tells the
        opponent; ``deny`` weighs what the opponent's best question among the
        cards then face up is worth to it (taking its best card away lowers it).
        """
        d = s.deduction
        variants = s.variants
        out = dict.fromkeys(variants, 0.0)
        if self.leak:
            for variant, leak in told_by_my_answers(d.position, variants).items():
                out[variant] += self.leak * leak
        if self.deny:
            left = left_to_rival(d, s.view["face_up"], unseen_deck(s.view))
            for variant in variants:
                out[variant] += self.deny * left[variant[0]]
        return out

    def question_costs(self, s: Situation, rng: random.Random) -> dict[Variant, float]:
        """Each face-up variant's expected questions until certain (see :mod:`.rollout`).

        Charges (:meth:`charges`) count at :data:`BITS_PER_QUESTION` bits a
        question.  ``{}`` when too many hands are live for a rollout to be worth it.
        """
        found = self._rollout(s, rng, self.charges(s))
        if found is None:
            return {}
        variants, costs = found
        return {v: float(c) for v, c in zip(variants, costs.mean(axis=0), strict=True)}

    def best_question(self, s: Situation, rng: random.Random) -> Ask:
        """The question to ask: the greedy one, unless a rollout finds a clearly better one.

        The greedy choice is the normal bot's (the most bits now) less the
        :meth:`charges`.  It stands unless another question needs, over the
        same deck orders, fewer expected questions by more than both
        :data:`MARGIN` and one standard error: a rollout's own noise would
        otherwise lose a little where the greedy choice is already right (as
        in the opening, measured over 40 deals: 0.002 questions to gain, and
        0.008 lost with 4 deck orders).
        """
        d = s.deduction
        charges = self.charges(s)
        worth = d.question_bits(s.variants)
        for variant, bits in charges.items():
            worth[variant] -= bits
        greedy = pick(best_variants(worth), rng)
        found = self._rollout(s, rng, charges)
        if found is None:
            return greedy
        variants, costs = found
        diff = costs - costs[:, [variants.index((greedy.card, greedy.choice))]]
        gain = -diff.mean(axis=0)
        error = diff.std(axis=0, ddof=1) / np.sqrt(len(diff))
        best = int(np.argmax(gain))
        if gain[best] > max(MARGIN, CONFIDENCE * error[best]):
            return Ask(*variants[best])
        return greedy

    def _rollout(
        self, s: Situation, rng: random.Random, charges: dict[Variant, float]
    ) -> tuple[list[Variant], np.ndarray] | None:
        """Per sampled deck order, each variant's questions until certain, plus charges."""
        d = s.deduction
        face_up = s.view["face_up"]
        live = np.nonzero(d.counts)[0]
        variants = face_up_variants(face_up)
        samples = self.budget // max(1, len(live) * len(variants))
        if samples < MIN_SAMPLES or len(variants) < 2:
            return None
        gen = np.random.default_rng(rng.getrandbits(64))
        variants, costs = sample_costs(
            d.universe.answers[:, live],
            d.universe.distinct[live],
            d.counts[live],
            face_up,
            unseen_deck(s.view),
            gen,
            samples=min(samples, MAX_SAMPLES),
            rival=not self.alone,
        )
        costs += np.array([charges[v] for v in variants]) / BITS_PER_QUESTION
        return variants, costs

    def choose(self, s: Situation, rng: random.Random) -> TagironMove | None:
        if not s.my_turn:
            return None
        if s.last_chance:
            return s.declare_best()
        if not s.may_ask:
            return Pass()
        question = self.best_question(s, rng)
        if self.would_declare(s, (question.card, question.choice)):
            return s.declare_best()
        return question

    def would_declare(self, s: Situation, question: Variant) -> bool:
        """Whether naming the likeliest hand now beats asking ``question`` (:func:`declare_now`),
        looked at only once few candidates are left."""
        if s.deduction.candidate_count > GUESS_CANDIDATES:
            return False
        return bool(declare_now(s, question, rival_knowledge(s)))
