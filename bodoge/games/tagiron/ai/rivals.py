"""What one seat can tell of its rivals' knowledge, and what its own answers tell them.

Every answer is public, so a rival's deduction differs from this seat's only
by the hand it holds.  Late in a game this seat's worlds are few, and each of
them fixes every rival's hand; the rival's own :class:`Deduction`, from that
hand and the same public log, then says whether the rival is certain (a
certain rival declares at its first chance).  :func:`rival_race` does this in
every world, computing the deductions of each rival's likeliest hands and
counting its other hands as certain as those are on average.

:func:`told_by_my_answers` is the other side: what this seat's own answer to
a question tells everyone about its hand (with 2 players, only a shared card
makes the asker answer).

>>> from bodoge.games.tagiron.ai.position import Position
>>> p = Position.from_json({"players": 3, "seat": 0, "hand": ["R2", "B2", "B3", "R4", "B8"],
...     "log": [{"seat": 0, "card": "red_sum", "answers": {"1": 13, "2": 15}},
...             {"seat": 1, "card": "blue_sum", "answers": {"0": 13, "2": 0}},
...             {"seat": 2, "card": "mid3_sum", "answers": {"0": 9, "1": 8}}]})
>>> d = Deduction(p)
>>> d.worlds, d.candidate_count
(6, 4)
>>> race = rival_race(d, [1, 2])
>>> race.certain[2].tolist()  # seat 2 is certain when it holds R0 B0 G5 R7 R8
[0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
>>> told = told_by_my_answers(p, [("odd_count", None), ("total_sum", None)])
>>> told[("odd_count", None)], round(told[("total_sum", None)], 2)  # only a shared card
(0.0, 2.77)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bodoge.games.tagiron.ai.position import Position, PositionError, Question
from bodoge.games.tagiron.ai.solver import Deduction, Variant
from bodoge.games.tagiron.ai.worlds import (
    VARIANT_INDEX,
    answer_id,
    hand_answer_ids,
    universe,
)
from bodoge.games.tagiron.cards import answering_seats

#: Worlds listed at most: with more, no rival is anywhere near certain.
MAX_WORLDS = 20_000
#: Distinct hands per rival whose deduction is computed, the likeliest first.
HANDS_PER_RIVAL = 12


@dataclass(frozen=True)
class WorldList:
    """The worlds a seat still thinks possible, one row each (all equally likely).

    ``centre`` and ``hands[s]`` number hands in the seat's universe.
    """

    centre: np.ndarray
    hands: dict[int, np.ndarray]

    def __len__(self) -> int:
        return len(self.centre)


def list_worlds(d: Deduction, limit: int = MAX_WORLDS) -> WorldList | None:
    """Every world the deduction allows, or ``None`` if there are more than ``limit``.

    The solver's own listing (:meth:`Deduction.world_blocks`), in one piece.
    """
    if d.position.players == 2 or d.worlds > limit:
        return None
    blocks = list(d.world_blocks())
    centre = np.concatenate([c for c, _ in blocks])
    hands = [np.concatenate(column) for column in zip(*(h for _, h in blocks), strict=True)]
    return WorldList(centre, dict(zip(d.others, hands, strict=True)))


def rival_position(position: Position, rival: int, tiles: Sequence[str]) -> Position:
    """The position of ``rival`` if it holds ``tiles``: the same public log, its own hand."""
    return Position(position.players, rival, tuple(tiles), position.face_up, position.log)


def rival_deduction(d: Deduction, rival: int, hand: int) -> Deduction | None:
    """The deduction of ``rival`` holding hand ``hand`` (numbered in ``d``'s universe),
    from the same public log; remembered on ``d`` (the race and the questions share it)."""
    memo = d.__dict__.setdefault("_rival_deductions", {})
    key = (rival, int(hand))
    if key not in memo:
        tiles = d.universe.hand_tiles[hand]
        try:
            memo[key] = Deduction(rival_position(d.position, rival, tiles))
        except PositionError:  # not for a world the deduction allows
            memo[key] = None
    found: Deduction | None = memo[key]
    return found


@dataclass(frozen=True)
class RivalRace:
    """Per world, whether each rival still racing is certain of the centre.

    ``certain[s][w]`` is 1 if rival ``s`` is certain in world ``w`` and 0 if
    not; for a hand whose deduction was not computed, the share of certain
    ones among its computed hands (weighted by worlds).
    """

    worlds: int
    certain: dict[int, np.ndarray]

    def certain_rivals(self) -> np.ndarray:
        """Per world, how many rivals are certain."""
        return sum(self.certain.values(), np.zeros(self.worlds))


def rival_race(
    d: Deduction,
    rivals: Sequence[int],
    *,
    hands_per_rival: int = HANDS_PER_RIVAL,
    max_worlds: int = MAX_WORLDS,
) -> RivalRace | None:
    """Each rival's certainty in every world, or ``None`` when the worlds are too many.

    Remembered on ``d``: a game's review asks again what the expert asked in play.
    """
    memo = d.__dict__.setdefault("_rival_race", {})
    key = (tuple(rivals), hands_per_rival, max_worlds)
    if key not in memo:
        memo[key] = _rival_race(d, rivals, hands_per_rival, max_worlds)
    return memo[key]


def _rival_race(
    d: Deduction, rivals: Sequence[int], hands_per_rival: int, max_worlds: int
) -> RivalRace | None:
    worlds = list_worlds(d, max_worlds)
    if worlds is None:
        return None
    certain: dict[int, np.ndarray] = {}
    for rival in rivals:
        hands, inverse, weight = np.unique(
            worlds.hands[rival], return_inverse=True, return_counts=True
        )
        sure = np.full(len(hands), np.nan)
        for i in np.argsort(-weight, kind="stable")[:hands_per_rival]:
            theirs = rival_deduction(d, rival, hands[i])
            if theirs is not None:  # None: not for a world the deduction allows; stay neutral
                sure[i] = theirs.certain
        known = ~np.isnan(sure)
        share = np.dot(weight[known], sure[known]) / weight[known].sum() if known.any() else 0.0
        certain[rival] = np.where(known, sure, share)[inverse]
    return RivalRace(len(worlds), certain)


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


def told_by_my_answers(position: Position, variants: Sequence[Variant]) -> dict[Variant, float]:
    """Bits this seat's own answer to each question would tell the others about its hand.

    The others' view of this hand is taken as every hand that fits this seat's
    public answers (leaving out their own tiles); a question this seat does not
    answer (with 3 players, one it asks that is not shared) tells them nothing.
    """
    everything = universe((), position.k)
    public = public_hands(position)
    mine = hand_answer_ids(position.hand)
    out: dict[Variant, float] = {}
    for card, choice in variants:
        if position.seat not in answering_seats(position.players, position.seat, card):
            out[card, choice] = 0.0
            continue
        v = VARIANT_INDEX[card, choice]
        agree = int(np.count_nonzero(everything.answers[v, public] == mine[v]))
        out[card, choice] = float(np.log2(len(public) / max(agree, 1)))
    return out
