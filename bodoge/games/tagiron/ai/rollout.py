"""Policy rollout for the 2-player expert: questions until certain, asking each question now.

The *base policy* is the normal bot's: ask the face-up question whose answer
has the most entropy.  For each question that may be asked now, a rollout
estimates the expected number of questions until the opponent's hand is one
distinct tile set if that question is asked now and the base policy asks the
rest (Bertsekas' rollout algorithm: choosing by these estimates is, in
expectation, never worse than the base policy itself).

The expectation over the opponent's hand is exact.  Every live hand is a
possible truth, weighted by its worlds; the hands that have heard the same
answers form a *node*, on which the base policy is deterministic, so a whole
game tree of the base policy is a pass over numpy arrays, a level of
questions at a time.  Only what is hidden from both players is sampled: the
order of the unseen deck (a used card's slot takes the deck's top card), the
same orders for every question now (common random numbers); and, in a real
game, which face-up card the opponent takes on its turns (a card at random; a
shared one tells this seat the opponent's answer too).  If the cards run out
first, the count is the questions asked plus one.

>>> from bodoge.games.tagiron.ai.position import Position
>>> from bodoge.games.tagiron.ai.solver import Deduction
>>> p = Position.from_json({"players": 2, "seat": 0, "hand": ["R0", "B0", "R1", "B1", "R2"],
...     "log": [{"seat": 0, "card": "total_sum", "answers": {"0": 4, "1": 40}}],
...     "face_up": ["red_count", "where_5", "blue_sum"]})
>>> d = Deduction(p)
>>> d.candidate_count
4
>>> rollout_costs(d, p.face_up, [], np.random.default_rng(0), rival=False)
{('red_count', None): 2.0, ('where_5', None): 2.0, ('blue_sum', None): 1.0}

The blue sum tells the four candidates apart; the red count halves them and
leaves a second question; where the 5 is tells nothing here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bodoge.games.tagiron.ai.solver import Deduction, Variant, face_up_variants
from bodoge.games.tagiron.ai.worlds import VARIANT_INDEX, VARIANTS
from bodoge.games.tagiron.cards import CARDS

#: Card ``i`` is bit ``1 << i`` of a card mask.
CARD_IDS: tuple[str, ...] = tuple(CARDS)
_CARD_NUMBER = {c: i for i, c in enumerate(CARD_IDS)}
#: The card of each variant, as a card number.
_VARIANT_CARD = np.array([_CARD_NUMBER[card] for card, _ in VARIANTS], dtype=np.int64)
#: For each card, its variant if it is a shared card (shared cards have no choice), else -1.
_SHARED_VARIANT = np.array(
    [VARIANT_INDEX[c, None] if CARDS[c].shared else -1 for c in CARD_IDS], dtype=np.int64
)
#: Entropies closer than this are a tie, broken at random (as the normal bot does).
_JITTER = 1e-9


def card_mask(cards: Sequence[str]) -> int:
    """The cards as a bit mask (card ``i`` of :data:`CARD_IDS` is bit ``1 << i``)."""
    mask = 0
    for c in cards:
        mask |= 1 << _CARD_NUMBER[c]
    return mask


def rollout_costs(
    d: Deduction,
    face_up: Sequence[str],
    deck: Sequence[str],
    gen: np.random.Generator,
    *,
    samples: int = 16,
    rival: bool = True,
) -> dict[Variant, float]:
    """Expected questions until certain if each face-up variant is asked now (2 players).

    ``deck`` is the unseen deck (any order); ``samples`` deck orders are drawn
    from ``gen``.  With ``rival``, the opponent takes a face-up card after each
    of this seat's questions.
    """
    live = np.nonzero(d.counts)[0]
    variants, costs = sample_costs(
        d.universe.answers[:, live],
        d.universe.distinct[live],
        d.counts[live],
        face_up,
        deck,
        gen,
        samples=samples,
        rival=rival,
    )
    return {v: float(c) for v, c in zip(variants, costs.mean(axis=0), strict=True)}


def sample_costs(
    answers: np.ndarray,
    distinct: np.ndarray,
    weights: np.ndarray,
    face_up: Sequence[str],
    deck: Sequence[str],
    gen: np.random.Generator,
    *,
    samples: int = 16,
    rival: bool = True,
) -> tuple[list[Variant], np.ndarray]:
    """The face-up variants, and each one's expected questions per sampled deck order.

    ``answers[v, h]`` is the answer id of live hand ``h`` to variant ``v``,
    ``distinct[h]`` its tile set and ``weights[h]`` its worlds.  The costs are
    a ``(samples, variants)`` array: every variant met the same deck orders.
    """
    variants = face_up_variants(face_up)
    sets = np.unique(distinct, return_inverse=True)[1].astype(np.int64)
    if not variants or sets.max(initial=0) == 0:
        return variants, np.zeros((samples, len(variants)))
    table, widths = _compact(answers)
    firsts = np.array([VARIANT_INDEX[v] for v in variants], dtype=np.int64)
    deck_numbers = np.array([_CARD_NUMBER[c] for c in deck], dtype=np.int64)
    orders = np.array([gen.permutation(deck_numbers) for _ in range(samples)], dtype=np.int64)
    sim = _Rollout(
        answers=table,
        widths=widths,
        sets=sets,
        weights=np.asarray(weights, dtype=np.float64),
        face_up=card_mask(face_up),
        orders=orders.reshape(samples, len(deck_numbers)),
        gen=gen,
        rival=rival,
    )
    return variants, sim.run(firsts)


def _compact(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Answer ids renumbered ``0..m-1`` per variant over the given hands, and each ``m``."""
    table = table.astype(np.int64)
    rows = np.arange(len(table))[:, None]
    present = np.zeros((len(table), int(table.max()) + 1), dtype=bool)
    present[rows, table] = True
    rank = np.cumsum(present, axis=1) - 1
    return rank[rows, table], present.sum(axis=1)


def _ranges(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``starts[0], starts[0]+1, …`` for ``sizes[0]`` items, then the next range, and so on."""
    total = int(sizes.sum())
    shift = np.repeat(starts - (np.cumsum(sizes) - sizes), sizes)
    return shift + np.arange(total)


class _Rollout:
    """The base policy's game trees for every (deck order, first question), level by level.

    A *node* is a set of live hands that heard the same answers (its
    *members*); a *class* is one branch of one tree: a node, the deck order it
    follows, the tree it belongs to (``group``: deck order and first question)
    and the cards used up on its way.  Classes that reach the same hands, in
    any tree and by any order of questions, share one node, so the work on
    hands grows with the distinct nodes, not with the number of deck orders.
    """

    def __init__(
        self,
        *,
        answers: np.ndarray,
        widths: np.ndarray,
        sets: np.ndarray,
        weights: np.ndarray,
        face_up: int,
        orders: np.ndarray,
        gen: np.random.Generator,
        rival: bool,
    ) -> None:
        # one more row: a "question" with a single answer, for a turn that tells nothing
        self.silent = len(answers)
        self.answers = np.vstack([answers, np.zeros((1, answers.shape[1]), dtype=answers.dtype)])
        self.widths = np.append(widths, 1)
        self.wide = int(self.widths.max())
        self.sets = sets
        self.weights = weights
        self.face_up = face_up
        self.samples, self.deck_size = orders.shape
        # revealed[k, r]: the mask of the first r cards of deck order k
        self.revealed = np.zeros((self.samples, self.deck_size + 1), dtype=np.int64)
        if orders.size:
            self.revealed[:, 1:] = np.bitwise_or.accumulate(np.left_shift(1, orders), axis=1)
        self.gen = gen
        self.rival = rival
        self.jitter = gen.random((self.samples, len(VARIANTS))) * _JITTER
        # the nodes: members sorted by node, where each node's members start, and its weight
        hands = len(sets)
        self.mem_node = np.zeros(hands, dtype=np.int64)
        self.mem_hand = np.arange(hands, dtype=np.int64)
        self.node_start = np.array([0, hands], dtype=np.int64)
        self.node_mass = np.array([weights.sum()])
        self.fingerprint = gen.integers(0, 2**63, hands, dtype=np.uint64, endpoint=True)

    def run(self, firsts: np.ndarray) -> np.ndarray:
        """Mean questions until certain, per (deck order, first variant)."""
        q, k = len(firsts), self.samples
        groups = k * q
        c = _Classes(
            node=np.zeros(groups, dtype=np.int64),
            sample=np.arange(groups, dtype=np.int64) // q,
            group=np.arange(groups, dtype=np.int64),
            used=np.zeros(groups, dtype=np.int64),
        )
        cost = np.zeros(groups)
        used = level = 0
        chosen = firsts[c.group % q]
        while len(c.node):
            if level:
                chosen = self._greedy(c, used)
                stuck = chosen < 0
                if stuck.any():  # no card left: the count is the questions asked, plus one
                    cost += np.bincount(
                        c.group[stuck], self.node_mass[c.node[stuck]] * (level + 1), groups
                    )
                    c, chosen = c.take(~stuck), chosen[~stuck]
                    if not len(c.node):
                        break
            c.used |= np.left_shift(1, _VARIANT_CARD[chosen])
            used += 1
            level += 1
            c = self._settle(self._split(c, chosen), cost, level)
            if self.rival and len(c.node):
                c, heard = self._rival(c, used)
                used += 1
                if (heard != self.silent).any():
                    c = self._settle(self._split(c, heard), cost, level)
        return (cost / self.weights.sum()).reshape(k, q)

    def _face_up(self, c: _Classes, used: int) -> np.ndarray:
        """Each class's face-up cards: the first ones and those revealed, less those used."""
        shown = self.face_up | self.revealed[c.sample, min(used, self.deck_size)]
        return shown & ~c.used

    def _greedy(self, c: _Classes, used: int) -> np.ndarray:
        """Each class's most informative face-up variant (``-1`` if none is face up)."""
        cards = self._face_up(c, used)
        allowed = ((cards[:, None] >> _VARIANT_CARD[None, :]) & 1).astype(bool)
        nodes = len(self.node_mass)
        mass = self.node_mass
        log_mass = np.log2(mass)
        w = self.weights[self.mem_hand]
        entropy = np.zeros((nodes, len(VARIANTS)))
        for v in np.nonzero(allowed.any(axis=0))[0]:
            m = int(self.widths[v])
            key = self.mem_node * m + self.answers[v, self.mem_hand]
            cell = np.bincount(key, w, minlength=nodes * m)
            spread = np.bincount(self.mem_node, w * np.log2(cell[key]), minlength=nodes)
            entropy[:, v] = log_mass - spread / mass
        score = entropy[c.node] + self.jitter[c.sample]
        score[~allowed] = -np.inf
        chosen = np.argmax(score, axis=1)
        chosen[~allowed.any(axis=1)] = -1
        return chosen

    def _split(self, c: _Classes, variant: np.ndarray) -> _Classes:
        """Each class asks its ``variant``: one class per answer, on the node that answer leaves."""
        rows = len(self.answers)
        pairs, class_pair = np.unique(c.node * rows + variant, return_inverse=True)
        pair_node, pair_var = np.divmod(pairs, rows)
        sizes = self.node_start[pair_node + 1] - self.node_start[pair_node]
        members = _ranges(self.node_start[pair_node], sizes)
        hand = self.mem_hand[members]
        pair_of = np.repeat(np.arange(len(pairs)), sizes)
        key = pair_of * self.wide + self.answers[pair_var[pair_of], hand]
        order = np.argsort(key, kind="stable")
        key, hand = key[order], hand[order]
        new_node = np.empty(len(key), dtype=np.int64)
        new_node[0] = 0
        np.cumsum(key[1:] != key[:-1], out=new_node[1:])
        nodes = int(new_node[-1]) + 1
        self.mem_node, self.mem_hand = new_node, hand
        self.node_start = np.searchsorted(new_node, np.arange(nodes + 1))
        self.node_mass = np.bincount(new_node, self.weights[hand], minlength=nodes)
        # the children of a pair are consecutive nodes
        child_pair = key[self.node_start[:-1]] // self.wide
        first_child = np.searchsorted(child_pair, np.arange(len(pairs) + 1))
        count = np.diff(first_child)[class_pair]
        expand = np.repeat(np.arange(len(c.node)), count)
        out = c.take(expand)
        out.node = self._merge()[_ranges(first_child[class_pair], count)]
        return out

    def _merge(self) -> np.ndarray:
        """Keep one node per set of members (trees reach the same node by many paths).

        Returns the kept number of each node.  Nodes are told apart by a
        random 64-bit sum over their members: two different sets of hands
        share one with chance about ``2**-64``.
        """
        sums = np.add.reduceat(self.fingerprint[self.mem_hand], self.node_start[:-1])
        kept, first, renumber = np.unique(sums, return_index=True, return_inverse=True)
        if len(kept) == len(sums):
            return np.arange(len(sums))
        sizes = np.diff(self.node_start)[first]
        self.mem_hand = self.mem_hand[_ranges(self.node_start[first], sizes)]
        self.mem_node = np.repeat(np.arange(len(kept)), sizes)
        self.node_start = np.concatenate(([0], np.cumsum(sizes)))
        self.node_mass = self.node_mass[first]
        return renumber

    def _settle(self, c: _Classes, cost: np.ndarray, level: int) -> _Classes:
        """Take out the classes whose node is one tile set: they needed ``level`` questions."""
        nodes = len(self.node_mass)
        s = self.sets[self.mem_hand]
        low = np.full(nodes, np.iinfo(np.int64).max)
        high = np.full(nodes, -1)
        np.minimum.at(low, self.mem_node, s)
        np.maximum.at(high, self.mem_node, s)
        done = (low == high)[c.node]
        if done.any():
            cost += np.bincount(c.group[done], self.node_mass[c.node[done]] * level, len(cost))
            c = c.take(~done)
        # forget the nodes no class is on
        wanted = np.zeros(nodes, dtype=bool)
        wanted[c.node] = True
        if not wanted.all():
            renumber = np.cumsum(wanted) - 1
            keep = wanted[self.mem_node]
            self.mem_node = renumber[self.mem_node[keep]]
            self.mem_hand = self.mem_hand[keep]
            self.node_mass = self.node_mass[wanted]
            self.node_start = np.searchsorted(self.mem_node, np.arange(len(self.node_mass) + 1))
            c.node = renumber[c.node]
        return c

    def _rival(self, c: _Classes, used: int) -> tuple[_Classes, np.ndarray]:
        """The opponent takes a face-up card at random; a shared one answers for it too.

        Returns the classes with that card used up, and the variant each class
        hears an answer to (``silent`` for none).
        """
        cards = self._face_up(c, used)
        held = ((cards[:, None] >> np.arange(len(CARD_IDS))[None, :]) & 1).astype(bool)
        priority = self.gen.random((self.samples, len(CARD_IDS)))[c.sample]
        priority[~held] = -1.0
        taken = np.argmax(priority, axis=1)
        some = held.any(axis=1)
        c.used = np.where(some, c.used | np.left_shift(1, taken), c.used)
        heard = np.where(some, _SHARED_VARIANT[taken], -1)
        return c, np.where(heard >= 0, heard, self.silent)


class _Classes:
    """Branches of the trees, as parallel arrays (see :class:`_Rollout`)."""

    __slots__ = ("group", "node", "sample", "used")

    def __init__(
        self, *, node: np.ndarray, sample: np.ndarray, group: np.ndarray, used: np.ndarray
    ) -> None:
        self.node, self.sample, self.group, self.used = node, sample, group, used

    def take(self, which: np.ndarray) -> _Classes:
        return _Classes(
            node=self.node[which],
            sample=self.sample[which],
            group=self.group[which],
            used=self.used[which],
        )
