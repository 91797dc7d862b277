"""Tagiron bots: three levels that play through the same moves as people.

A bot gets exactly one seat's view and answers with a move, or ``None`` when
it has nothing to do (with 3–4 players it is asked after every event and may
declare out of turn).

* ``easy`` asks a random face-up question and declares only when certain;
* ``normal`` asks the question worth the most bits now and declares when
  certain (and guesses the likeliest target when a guess costs nothing);
* ``expert`` plays 2-player games with :class:`~bodoge.games.tagiron.ai.duel.DuelExpert`
  and 3–4 player games with :class:`~bodoge.games.tagiron.ai.group.GroupExpert`.

>>> from bodoge.games.tagiron.game import TagironGame
>>> game = TagironGame()
>>> state = game.setup(game.options({"players": 2}), 2, seed=3)
>>> bot = make_bot("normal")
>>> move = bot.act(game.view(state, state.turn), state.turn, __import__("random").Random(1))
>>> type(move).__name__
'Ask'
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Mapping
from typing import ClassVar

from bodoge.core.errors import BadOptions
from bodoge.core.game import Bot, Seat
from bodoge.core.values import JSON
from bodoge.games.tagiron.ai.duel import DuelExpert
from bodoge.games.tagiron.ai.group import GroupExpert
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.situation import (
    Situation,
    best_variants,
    pick,
    random_question,
    usual_move,
)
from bodoge.games.tagiron.ai.solver import Deduction
from bodoge.games.tagiron.moves import Pass, TagironMove


class TagironBot(Bot[TagironMove]):
    """Shared plumbing: reading the view, caching deductions, legal fallbacks."""

    level: ClassVar[str] = ""

    def __init__(self) -> None:
        self._cache: OrderedDict[tuple[object, ...], Deduction] = OrderedDict()
        #: Deductions shared with others (a game's review after selfplay), by
        #: :func:`position_key`; ``None``: none.
        self.shared: dict[tuple[object, ...], Deduction] | None = None

    def deduction(self, view: Mapping[str, JSON], seat: Seat) -> Deduction:
        """The deduction for a view, remembered: a bot is asked after every event."""
        key = (
            seat,
            view["players"],
            tuple(view["hand"]),
            repr(view["log"]),
            tuple(view["face_up"]),
        )
        found = self._cache.get(key)
        if found is None:
            position = Position.from_view({**view, "seat": seat})
            if self.shared is not None:
                found = self.shared.get(position_key(position))
            if found is None:
                found = Deduction(position)
                if self.shared is not None:
                    self.shared[position_key(position)] = found
            self._cache[key] = found
            while len(self._cache) > 8:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return found

    def act(self, view: Mapping[str, JSON], seat: Seat, rng: random.Random) -> TagironMove | None:
        if view["phase"] == "ended" or view.get("you", seat) != seat:
            return None
        my_turn = view["turn"] == seat
        if not my_turn and not (view["players"] > 2 and view["may_declare"]):
            return None
        situation = Situation(view, seat, self.deduction(view, seat))
        move = self.choose(situation, rng)
        if move is None and my_turn:  # never stall the table
            move = self.fallback(situation, rng)
        return move

    def choose(self, s: Situation, rng: random.Random) -> TagironMove | None:
        raise NotImplementedError

    def fallback(self, s: Situation, rng: random.Random) -> TagironMove:
        if s.may_ask:
            return random_question(s, rng)
        if s.may_pass:
            return Pass()
        return s.declare_best()


class EasyBot(TagironBot):
    """Random questions; declares only when certain (or in a 2-player final declaration)."""

    level = "easy"

    def choose(self, s: Situation, rng: random.Random) -> TagironMove | None:
        if s.may_declare and s.deduction.certain:
            return s.declare_best()
        if not s.my_turn:
            return None
        if s.phase == "final_declaration":
            return s.declare_best()  # passing would simply lose
        if s.may_ask:
            return random_question(s, rng)
        return Pass()


class NormalBot(TagironBot):
    """The question with the most expected information now; declares when certain."""

    level = "normal"

    def choose(self, s: Situation, rng: random.Random) -> TagironMove | None:
        return usual_move(
            s,
            declare=lambda: s.deduction.certain,
            question=lambda: pick(best_variants(s.deduction.question_bits(s.variants)), rng),
        )


class ExpertBot(NormalBot):
    """Declares when certain; otherwise the 2-player or the 3–4 player expert decides."""

    level = "expert"

    def __init__(self, *, leak: float | None = None) -> None:
        super().__init__()
        self.duel = DuelExpert(leak=leak)
        self.group = GroupExpert()

    def choose(self, s: Situation, rng: random.Random) -> TagironMove | None:
        if s.may_declare and s.deduction.certain:
            return s.declare_best()
        return (self.group if s.players > 2 else self.duel).choose(s, rng)


def position_key(position: Position) -> tuple[object, ...]:
    """What a deduction depends on: one seat's tiles, the face-up cards and the log."""
    return (
        position.players,
        position.seat,
        position.hand,
        position.face_up,
        tuple(repr(e) for e in position.log),
    )


def make_bot(level: str) -> TagironBot:
    """A bot of the given level: ``"easy"``, ``"normal"`` or ``"expert"``."""
    if level == "easy":
        return EasyBot()
    if level == "normal":
        return NormalBot()
    if level == "expert":
        return ExpertBot()
    raise BadOptions(f"tagiron has no bot level {level!r}")
