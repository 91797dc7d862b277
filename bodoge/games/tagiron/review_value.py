"""What a question does to the asker's chances, for the game review, in *questions*.

A question is judged by how much nearer it brings its asker to certainty — the
moment it can declare — against how much nearer it brings the rivals.  The
unit is one question: the expected number of further questions a seat needs
to be certain is taken as ``0`` once it is certain and otherwise
``1 + H / R`` (``H`` the bits it still lacks about the target, ``R`` =
:data:`RATE`, the bits a seat's own question is worth on the way to certainty,
fitted to the normal bots' own 2-player play by :mod:`.review_rate`).  A
question with answers worth ``bits`` that leaves the asker certain with chance
``settle`` then saves, in expectation,

    gain = settle + bits / R

questions (the ``1`` is saved exactly when the answers settle it; the bits
are what the entropy drops).  The rivals gain what the expert charges the
question (what the asker's own answer tells them of its hand, and with 2
players the worth of the cards left to the opponent), in bits and so at
``charge / R`` questions — but only while the game goes on for the asker: a
seat that is certain declares at once (with 3–4 players it is asked first
after its own question; with 2 it declares on its next turn), so

    value = gain - (1 - settle) * charge / R.

A question that settles the game is therefore never worse than another, and
its told bits cost nothing.  :func:`settle_chances` counts ``settle`` exactly
over the seat's worlds; with 4 players and more than :data:`SETTLE_WORLDS`
worlds (the first questions, with hundreds of candidates) only a question sure
to settle — whose bits equal the entropy of the candidates — counts as
settling, since listing the worlds there would take seconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bodoge.games.tagiron.ai.duel import DuelExpert
from bodoge.games.tagiron.ai.group import GroupExpert
from bodoge.games.tagiron.ai.histograms import compact, entropy
from bodoge.games.tagiron.ai.situation import Situation
from bodoge.games.tagiron.ai.solver import Deduction, Variant
from bodoge.games.tagiron.ai.worlds import VARIANT_INDEX

#: Bits a seat's own question is worth on the way to certainty: fitted by least
#: squares to 754 questions of 150 all-normal 2-player games (``bodoge tagiron
#: selfplay --players 2 --games 150 --rate``; the bins agree within 0.2 questions).
#: With 3 players the fit is 8.8 (243 questions, 40 games): a seat also learns from
#: the others' questions, so its own need fewer; the rate only weighs a question's
#: chance to settle the game against its bits, and one rate keeps the unit the same
#: at every table.
RATE = 3.75
#: With more worlds than this, the chance that a question settles the game is
#: counted only for a question sure to settle it (see the module's text).
SETTLE_WORLDS = 100_000
#: With 3–4 players and more candidates than this, the same (listing the worlds of an
#: opening takes a second a question; the chance of settling there is tiny).
SETTLE_CANDIDATES = 64
#: A question telling fewer bits than this tells nothing.
NOTHING = 1e-9


@dataclass(frozen=True)
class Worth:
    """One face-up question's worth to its asker, at one moment."""

    bits: float
    #: The chance its answers leave the asker certain.
    settle: float
    #: What the expert charges it, in bits (told to the rivals; cards left, 2 players).
    charge: float

    @property
    def gain(self) -> float:
        """Questions to certainty it saves the asker, in expectation."""
        return self.settle + self.bits / RATE

    @property
    def given(self) -> float:
        """Questions it saves the rivals while the game goes on for the asker."""
        return (1 - self.settle) * self.charge / RATE

    @property
    def value(self) -> float:
        return self.gain - self.given

    @property
    def informative(self) -> bool:
        return self.bits > NOTHING


def worths(s: Situation) -> dict[Variant, Worth]:
    """Every face-up question's :class:`Worth` to the seat of ``s``."""
    d = s.deduction
    bits = d.question_bits(s.variants)
    if d.certain:  # nothing to gain or give: its fault is not declaring (review_missed)
        return {v: Worth(b, 0.0, 0.0) for v, b in bits.items()}
    expert = DuelExpert() if s.players == 2 else GroupExpert()
    charges = expert.charges(s)
    settle = settle_chances(d, list(bits), bits)
    return {v: Worth(b, settle[v], charges[v]) for v, b in bits.items()}


def best_of(worth: Mapping[Variant, Worth]) -> Variant:
    """The best question: the highest value among those that tell something (a question
    that tells nothing spends the turn without bringing the asker nearer), the first of
    equals in face-up order.  Values are compared to 1e-9: sums whose order follows a
    process's string hashing differ in the last bits, and the server and the command line
    must name the same best question."""
    pool = [v for v, w in worth.items() if w.informative] or list(worth)
    return max(pool, key=lambda v: round(worth[v].value, 9))


def loss_of(asked: Worth, best: Worth) -> float:
    """Questions of value lost by asking ``asked`` where ``best`` was face up.

    A question that tells nothing while ``best`` tells something loses at least
    all that ``best`` would have gained, whatever it kept from the rivals.
    """
    lost = max(0.0, best.value - asked.value)
    if best.informative and not asked.informative:
        lost = max(lost, best.gain)
    return lost


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
