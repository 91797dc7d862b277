"""The 3–4 player expert: when to declare before certainty, and what to ask.

:class:`GroupExpert` chooses the expert's move with 3 or 4 players (see
``docs/solver.md``, "Bots").

**When to declare.**  Everything is weighed as selfplay counts a game against
each rival: ahead of it scores 1, behind it −1 (an eliminated seat is
unplaced, behind every placed one).  Naming the likeliest centre now, right
with chance ``p``, puts this seat ahead of every rival still racing and of
every eliminated one, or (wrong) behind every rival still racing::

    declare = p · (racing + eliminated) − (1 − p) · racing

Waiting loses a place to each rival that is certain now (it declares before
this seat's next chance); after that the race goes on, worth
:data:`RACE_ON`, measured in selfplay: very different on this seat's own
turn (its own question comes next, and right after it this seat is asked
before the next seat on turn) and just before it (the seat on turn asks, and
this seat, next on turn, is then asked last)::

    wait = Σ over worlds  P(world) · (race_on(racing − certain rivals) − certain rivals)
           + eliminated

Which rivals are certain comes from :func:`~bodoge.games.tagiron.ai.rivals.rival_race`:
late in a game this seat's worlds are few, and each fixes every rival's hand.

**What to ask.**  The question that brings this seat nearest to certainty
*against* its rivals, in questions (:mod:`.race`): its own ``settle + bits /
RATE``, less what it brings an average rival still racing — the rival's chance
to be certain too, and its bits while the game goes on for this seat — read
from each rival's own deduction for its likeliest hands.  Before the worlds can
be listed (the opening), nothing is known of the rivals beyond what is known of
oneself: the charge is then the bits this seat's own answer tells them
(:data:`LEAK`).  A question that tells this seat nothing is never chosen while
another tells it something.

>>> stakes = Stakes(players=3, racing=2, eliminated=0, until_turn=1)
>>> stakes.declare(0.5), stakes.wait([0.0]), stakes.wait([1.0])
(0.0, 0.35, -1.4)
>>> declare_now(0.45, stakes, certain=[1.0]), declare_now(0.45, stakes, certain=[0.0])
(True, False)
>>> declare_now(0.6, Stakes(players=3, racing=2, eliminated=0, until_turn=0), certain=[0.0])
False
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bodoge.core.values import JSON
from bodoge.games.tagiron.ai.race import RATE, rival_gains, rivals_given, settle_chances
from bodoge.games.tagiron.ai.rivals import rival_race, told_by_my_answers
from bodoge.games.tagiron.ai.situation import Situation, best_variants, pick, usual_move
from bodoge.games.tagiron.ai.solver import Variant
from bodoge.games.tagiron.moves import Ask, TagironMove

#: The worth of racing on while no rival is certain, in "ahead minus behind"
#: over the rivals still racing: by player count, then by (rivals racing, turns
#: until this seat asks — 0 on its own turn).  Measured on all-normal selfplay
#: (600 games with 3 players, 200 with 4): each seat's final result from every
#: point where it was not certain, its likeliest centre had at least 15%, and
#: no rival was certain.
RACE_ON: dict[int, dict[tuple[int, int], float]] = {
    3: {(1, 0): 0.4, (1, 1): -0.4, (2, 0): 0.7, (2, 1): 0.35, (2, 2): 0.1},
    4: {
        (1, 0): 0.9,
        (1, 1): -0.9,
        (2, 0): 0.8,
        (2, 1): -1.35,
        (2, 2): 0.5,
        (3, 0): 0.95,
        (3, 1): -0.5,
        (3, 2): -0.1,
        (3, 3): 0.25,
    },
}
#: Below this chance the likeliest centre is not named before the end (nor are
#: the rivals looked at): a right guess would be rarer than one in six.
FLOOR = 0.15
#: What a bit this seat's own answer tells the rivals about its hand costs,
#: against a bit it learns about the centre, by players (measured: 0.5, 1 and 2
#: beat 0 with 3 players, by avoiding shared cards; with 4 they tie with 0 —
#: everyone answers every question there, so a seat's answer to a card is heard
#: whoever asks it, and asking it oneself only brings that forward).
LEAK: dict[int, float] = {3: 1.0, 4: 0.0}
#: What a question of value brought an average rival costs, against one brought this
#: seat, by players (1: the race counted as selfplay counts it, each rival one place).
RIVALS: dict[int, float] = {3: 1.0, 4: 1.0}
#: A question telling fewer bits than this tells nothing.
NOTHING = 1e-9


@dataclass(frozen=True)
class Worth:
    """One face-up question's worth to its asker, at one moment, in questions."""

    bits: float
    #: The chance its answers leave the asker certain.
    settle: float
    #: Questions it brings the rivals nearer, as the asker weighs it.
    given: float

    @property
    def gain(self) -> float:
        """Questions to certainty it saves the asker, in expectation."""
        return self.settle + self.bits / RATE

    @property
    def value(self) -> float:
        return self.gain - self.given

    @property
    def informative(self) -> bool:
        return self.bits > NOTHING


def best_worth(worth: Mapping[Variant, Worth]) -> Variant:
    """The highest value among the questions that tell something (a question that tells
    nothing spends the turn without bringing the asker nearer), the first of equals in
    face-up order.  Values are compared to 1e-9: sums whose order follows a process's
    string hashing differ in the last bits, and every process must name the same one."""
    pool = [v for v, w in worth.items() if w.informative] or list(worth)
    return max(pool, key=lambda v: round(worth[v].value, 9))


@dataclass(frozen=True)
class Stakes:
    """What a declaration now is weighed against."""

    players: int
    #: Rivals that may still declare, and rivals eliminated by a wrong declaration.
    racing: int
    eliminated: int
    #: Turns (of seats that may still declare) before this seat asks; 0 on its turn.
    until_turn: int

    def declare(self, p: float) -> float:
        """Naming a centre of chance ``p`` now."""
        return p * (self.racing + self.eliminated) - (1 - p) * self.racing

    def race_on(self, racing: float) -> float:
        """:data:`RACE_ON` with ``racing`` rivals left (linear between whole numbers)."""
        table = RACE_ON[self.players]

        def at(r: int) -> float:
            return table[r, min(self.until_turn, r)] if r > 0 else 0.0

        low = int(np.floor(racing + 1e-9))
        frac = racing - low
        return at(low) if frac < 1e-9 else (1 - frac) * at(low) + frac * at(low + 1)

    def wait(
        self,
        certain: Sequence[float] | np.ndarray,
        weights: Sequence[float] | np.ndarray | None = None,
    ) -> float:
        """Waiting, with ``certain[w]`` rivals certain now in world ``w`` (chances ``weights``)."""
        j = np.asarray(certain, dtype=np.float64)
        w = np.ones(len(j)) if weights is None else np.asarray(weights, dtype=np.float64)
        on = np.array([self.race_on(self.racing - x) for x in j])
        return round(float(np.dot(w, on - j) / w.sum()) + self.eliminated, 12)

    def bounds(self) -> tuple[float, float]:
        """The least and the most waiting can be worth, whatever the rivals know."""
        values = [self.wait([j]) for j in range(self.racing + 1)]
        return min(values), max(values)


def declare_now(
    p: float,
    stakes: Stakes,
    certain: Sequence[float] | np.ndarray,
    weights: Sequence[float] | np.ndarray | None = None,
) -> bool:
    """Whether naming a centre of chance ``p`` beats waiting (see the module text)."""
    return bool(stakes.declare(p) > stakes.wait(certain, weights))


def racing_rivals(view: Mapping[str, JSON], seat: int) -> list[int]:
    """The other seats that may still declare."""
    status = view["status"]
    return [t for t in range(view["players"]) if t != seat and status[t] == "active"]


def turns_until(view: Mapping[str, JSON], seat: int) -> int:
    """How many turns (of seats that may still declare) come before ``seat`` asks; 0 on its turn.

    >>> turns_until({"turn": 1, "players": 4, "status": ["active"] * 4}, 0)
    3
    >>> turns_until({"turn": 1, "players": 4, "status": ["active", "active", "right", "active"]}, 0)
    2
    """
    turn, players, status = view["turn"], view["players"], view["status"]
    if turn is None or turn == seat:
        return 0
    count, s = 0, turn
    while s != seat:
        count += status[s] == "active"
        s = (s + 1) % players
    return count


def stakes_of(view: Mapping[str, JSON], seat: int) -> Stakes:
    status = view["status"]
    return Stakes(
        players=view["players"],
        racing=len(racing_rivals(view, seat)),
        eliminated=sum(1 for t, x in enumerate(status) if t != seat and x == "eliminated"),
        until_turn=turns_until(view, seat),
    )


class GroupExpert:
    """The expert's choice with 3–4 players."""

    def choose(self, s: Situation, rng: random.Random) -> TagironMove | None:
        return usual_move(
            s, declare=lambda: self.should_declare(s), question=lambda: self.question(s, rng)
        )

    def should_declare(self, s: Situation) -> bool:
        """Whether naming the likeliest centre now is worth more than waiting."""
        d = s.deduction
        if d.certain or s.phase == "last_turns":
            return True  # nothing more will be heard: the earliest declaration places best
        p = d.best()[1]
        stakes = stakes_of(s.view, s.seat)
        if p < FLOOR or not stakes.racing:
            return False  # a long shot, or alone in the race: only certainty adds anything
        now = stakes.declare(p)
        least, most = stakes.bounds()
        if now <= least or now > most:
            return now > most  # the rivals' knowledge cannot change the answer
        race = rival_race(d, racing_rivals(s.view, s.seat))
        if race is None:  # too many worlds for any rival to be certain
            return declare_now(p, stakes, [0.0])
        return declare_now(p, stakes, race.certain_rivals())

    def charges(self, s: Situation) -> dict[Variant, float]:
        """Bits each face-up variant costs before the rivals can be read: what this seat's
        own answer tells them (:data:`LEAK`)."""
        weight = LEAK[s.players]
        if not weight:
            return dict.fromkeys(s.variants, 0.0)
        told = told_by_my_answers(s.position, s.variants)
        return {v: weight * bits for v, bits in told.items()}

    def worths(self, s: Situation) -> dict[Variant, Worth]:
        """Every face-up question's :class:`Worth` to this seat (see the module text)."""
        d = s.deduction
        variants = s.variants
        bits = d.question_bits(variants)
        if d.certain:  # nothing to gain or give: declaring is all that is left
            return {v: Worth(b, 0.0, 0.0) for v, b in bits.items()}
        settle = settle_chances(d, variants, bits)
        rivals = racing_rivals(s.view, s.seat)
        gains = rival_gains(d, variants, rivals) if rivals else {}
        weight = RIVALS[s.players]
        if gains is None:  # the opening: only this seat's own answer can be priced
            charges = self.charges(s)
            return {
                v: Worth(b, settle[v], (1 - settle[v]) * charges[v] / RATE) for v, b in bits.items()
            }
        return {
            v: Worth(b, settle[v], weight * rivals_given(gains, v, settle[v]))
            for v, b in bits.items()
        }

    def question(self, s: Situation, rng: random.Random) -> Ask:
        """The question of most value (:meth:`worths`), a random one of equals."""
        worth = self.worths(s)
        pool = {v: w.value for v, w in worth.items() if w.informative} or {
            v: w.value for v, w in worth.items()
        }
        return pick(best_variants(pool), rng)
