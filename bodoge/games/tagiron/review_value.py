"""What a question does to the asker's chances, for the game review, in *questions*.

A question is judged by how much nearer it brings its asker to certainty — the
moment it can declare — against how much nearer it brings the rivals: the value
the expert bot itself chooses by.  The unit is one question: the expected
number of further questions a seat needs to be certain is taken as ``0`` once
it is certain and otherwise ``1 + H / R`` (``H`` the bits it still lacks about
the target, ``R`` = :data:`RATE`, the bits a seat's own question is worth on the
way to certainty, fitted to the normal bots' own 2-player play by
:mod:`.review_rate`).  A question with answers worth ``bits`` that leaves the
asker certain with chance ``settle`` then saves, in expectation,

    gain = settle + bits / R

questions (the ``1`` is saved exactly when the answers settle it; the bits
are what the entropy drops), and its value is that less what it brings the
rivals, ``given``, in the same unit:

* with 3–4 players (:meth:`GroupExpert.worths`), what it brings an average rival
  still racing — the rival's chance to be certain too (the race for the place is
  then shared), and its bits while the game goes on for the asker — read from
  each rival's own deduction for its likeliest hands: the answers of every seat
  but the rival's own count, so the other seats' answers to the same card are
  priced as well as the asker's.  At the opening, before the worlds can be
  listed, only the asker's own answer is priced (3 players; with 4 nothing);
* with 2 players, ``(1 - settle) · charge / R``: the expert's charge in bits (what
  the asker's own answer tells the opponent, and the worth of the cards left to
  it) while the game goes on for the asker.

:func:`settle_chances` counts ``settle`` exactly over the seat's worlds; with 3–4
players and more than :data:`SETTLE_WORLDS` worlds or :data:`SETTLE_CANDIDATES`
candidates (the first questions) only a question sure to settle — whose bits
equal the entropy of the candidates — counts as settling, since listing the
worlds there would take seconds.
"""

from __future__ import annotations

from collections.abc import Mapping

from bodoge.games.tagiron.ai.duel import DuelExpert
from bodoge.games.tagiron.ai.group import NOTHING, GroupExpert, Worth, best_worth
from bodoge.games.tagiron.ai.race import (
    RATE,
    SETTLE_CANDIDATES,
    SETTLE_WORLDS,
    settle_chances,
)
from bodoge.games.tagiron.ai.situation import Situation
from bodoge.games.tagiron.ai.solver import Variant

#: Bits a seat's own question is worth on the way to certainty: fitted by least
#: squares to 754 questions of 150 all-normal 2-player games (``bodoge tagiron
#: selfplay --players 2 --games 150 --rate``; the bins agree within 0.2 questions).
#: With 3 players the fit is 8.8 (243 questions, 40 games): a seat also learns from
#: the others' questions, so its own need fewer; the rate only weighs a question's
#: chance to settle the game against its bits, and one rate keeps the unit the same
#: at every table.  (The expert's own, :data:`.race.RATE`.)
__all__ = [
    "NOTHING",
    "RATE",
    "SETTLE_CANDIDATES",
    "SETTLE_WORLDS",
    "Worth",
    "best_of",
    "loss_of",
    "settle_chances",
    "worths",
]


def worths(s: Situation) -> dict[Variant, Worth]:
    """Every face-up question's :class:`Worth` to the seat of ``s``, as the expert weighs it."""
    if s.players > 2:
        return GroupExpert().worths(s)
    d = s.deduction
    bits = d.question_bits(s.variants)
    if d.certain:  # nothing to gain or give: its fault is not declaring (review_missed)
        return {v: Worth(b, 0.0, 0.0) for v, b in bits.items()}
    charges = DuelExpert().charges(s)
    settle = settle_chances(d, list(bits), bits)
    return {v: Worth(b, settle[v], (1 - settle[v]) * charges[v] / RATE) for v, b in bits.items()}


def best_of(worth: Mapping[Variant, Worth]) -> Variant:
    """The best question: the highest value among those that tell something (a question
    that tells nothing spends the turn without bringing the asker nearer), the first of
    equals in face-up order (:func:`.group.best_worth`: the server and the command line
    must name the same best question)."""
    return best_worth(worth)


def loss_of(asked: Worth, best: Worth) -> float:
    """Questions of value lost by asking ``asked`` where ``best`` was face up.

    A question that tells nothing while ``best`` tells something loses at least
    all that ``best`` would have gained, whatever it kept from the rivals.
    """
    lost = max(0.0, best.value - asked.value)
    if best.informative and not asked.informative:
        lost = max(lost, best.gain)
    return lost
