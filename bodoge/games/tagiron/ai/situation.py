"""What a Tagiron bot reads off one seat's view, and the small choices every level shares."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from bodoge.core.game import Seat
from bodoge.core.values import JSON
from bodoge.games.tagiron.ai.solver import Deduction, Variant, face_up_variants
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.moves import Ask, Declare, Pass, TagironMove

#: Questions whose worth differs by less than this are taken as equal.
TIE = 1e-9


class Situation:
    """What a bot needs from a view: the position, whose move it is, and the deduction."""

    def __init__(self, view: Mapping[str, JSON], seat: Seat, deduction: Deduction) -> None:
        self.view = view
        self.seat = seat
        self.players: int = view["players"]
        self.phase: str = view["phase"]
        self.my_turn = view["turn"] == seat
        self.may_ask: bool = view["may_ask"]
        self.may_declare: bool = view["may_declare"]
        self.may_pass: bool = view["may_pass"]
        self.deduction = deduction
        self.position = deduction.position

    @property
    def variants(self) -> list[Variant]:
        return face_up_variants(self.view["face_up"])

    @property
    def last_chance(self) -> bool:
        """Whether declaring now is free: passing would gain nothing.

        In the 2-player final declaration a pass loses; in the last turns after
        the cards ran out, no question can be asked any more.
        """
        return self.my_turn and not self.may_ask and self.may_declare

    def declare_best(self) -> Declare:
        return Declare(self.deduction.best()[0])


def random_question(s: Situation, rng: random.Random) -> Ask:
    """A face-up card at random, and a random choice if it has one."""
    card = rng.choice(list(s.view["face_up"]))
    choices = CARDS[card].choices
    return Ask(card, rng.choice(choices) if choices else None)


def best_variants(values: Mapping[Variant, float]) -> list[Variant]:
    top = max(values.values())
    return [v for v, b in values.items() if b >= top - TIE]


def pick(variants: Sequence[Variant], rng: random.Random) -> Ask:
    card, choice = variants[0] if len(variants) == 1 else rng.choice(list(variants))
    return Ask(card, choice)


def usual_move(
    s: Situation, *, declare: Callable[[], bool], question: Callable[[], Ask]
) -> TagironMove | None:
    """The normal bot's shape of a move, with its two choices left open.

    Declare (at any time) if ``declare()`` says so; otherwise, on this seat's
    turn only: name the likeliest target when that costs nothing, else ask
    ``question()``, else pass.
    """
    if s.may_declare and declare():
        return s.declare_best()
    if not s.my_turn:
        return None
    if s.last_chance:
        return s.declare_best()
    if s.may_ask:
        return question()
    return Pass()
